/* fs_urlencoded, fs_multipart and fs_coerce. */
#include "fs_coerce.h"
#include "fs_html.h"
#include "fs_json.h"
#include "fs_multipart.h"
#include "fs_test.h"
#include "fs_urlencoded.h"
#include "fs_validate.h"

#include <apr_strings.h>

static const fs_pair *pair(apr_array_header_t *a, int i) {
    return &APR_ARRAY_IDX(a, i, fs_pair);
}

static void urlencoded(void **state) {
    apr_pool_t *p = *state;
    apr_array_header_t *a;
    const char *b = "a=1&b=hello+world&c=%C3%A9t%C3%A9&&d&e=x%3Dy%26z&a=2";
    assert_null(fs_urlencoded_parse(p, b, strlen(b), &a));
    assert_int_equal(a->nelts, 6);
    assert_string_equal(pair(a, 1)->value, "hello world");
    assert_string_equal(pair(a, 2)->value, "\xc3\xa9t\xc3\xa9");
    assert_string_equal(pair(a, 3)->name, "d");
    assert_string_equal(pair(a, 3)->value, "");
    assert_string_equal(pair(a, 4)->value, "x=y&z");
    assert_string_equal(pair(a, 5)->value, "2");
    static const char *const bad[] = {"a=%",   "a=%4",     "a=%zz", "a=%00",
                                      "a=%C3", "a=%FF%FE", "%ZZ=1"};
    for (unsigned i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
        fs_error *e = fs_urlencoded_parse(p, bad[i], strlen(bad[i]), &a);
        if (!e)
            fail_msg("accepted %s", bad[i]);
        assert_int_equal(e->status, 400);
    }
    assert_null(fs_urlencoded_parse(p, "", 0, &a));
    assert_int_equal(a->nelts, 0);
}

static fs_error *mp_parse(apr_pool_t *p, const char *boundary, const char *body, apr_size_t len,
                          apr_size_t chunk, apr_array_header_t **out) {
    fs_multipart_limits lim = {1024, 4096, 50};
    fs_multipart *mp = fs_multipart_new(p, boundary, &lim);
    for (apr_size_t i = 0; i < len; i += chunk) {
        fs_error *e = fs_multipart_feed(mp, body + i, len - i < chunk ? len - i : chunk);
        if (e)
            return e;
    }
    return fs_multipart_finish(mp, out);
}

static const char MP[] = "preamble\r\n"
                         "--XyZ\r\n"
                         "Content-Disposition: form-data; name=\"name\"\r\n\r\n"
                         "Ada Lovelace\r\n"
                         "--XyZ  \r\n"
                         "content-disposition: form-data; name=\"tags\"\r\n"
                         "Content-Type: text/plain; charset=utf-8\r\n\r\n"
                         "a\r\n"
                         "--XyZ\r\n"
                         "Content-Disposition: form-data; name=\"note\"\r\n\r\n"
                         "line1\r\n-XyZ not a delimiter\r\nline3\r\n"
                         "--XyZ\r\n"
                         "Content-Disposition: form-data; name=\"empty\"\r\n\r\n"
                         "\r\n"
                         "--XyZ--\r\nepilogue";

static void multipart_any_chunking(void **state) {
    apr_pool_t *p = *state;
    for (apr_size_t chunk = 1; chunk <= sizeof(MP); chunk++) {
        apr_array_header_t *a;
        fs_error *e = mp_parse(p, "XyZ", MP, sizeof(MP) - 1, chunk, &a);
        if (e)
            fail_msg("chunk %lu: %s", (unsigned long)chunk, e->detail);
        assert_int_equal(a->nelts, 4);
        assert_string_equal(pair(a, 0)->name, "name");
        assert_string_equal(pair(a, 0)->value, "Ada Lovelace");
        assert_string_equal(pair(a, 1)->name, "tags");
        assert_string_equal(pair(a, 2)->value, "line1\r\n-XyZ not a delimiter\r\nline3");
        assert_string_equal(pair(a, 3)->value, "");
    }
}

static void multipart_refuses(void **state) {
    apr_pool_t *p = *state;
    apr_array_header_t *a;
    struct {
        const char *body;
        int status;
    } cases[] = {
        {"", 400}, /* nothing */
        {"no delimiter at all", 400},
        {"--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nvalue", 400}, /* truncated */
        {"--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n", 400},
        {"--XyZ\r\nContent-Disposition: form-data\r\n\r\nv\r\n--XyZ--", 400}, /* no name */
        {"--XyZ\r\n\r\nv\r\n--XyZ--", 400},                                   /* no headers */
        {"--XyZ\r\nContent-Disposition: attachment; name=\"a\"\r\n\r\nv\r\n--XyZ--", 400},
        {"--XyZ\r\nContent-Disposition: form-data; name=\"f\"; filename=\"x.txt\"\r\n\r\n"
         "v\r\n--XyZ--",
         400}, /* files */
        {"--XyZ\r\nbad header line\r\n\r\nv\r\n--XyZ--", 400},
        {"--XyZ\r\nContent-Disposition: form-data; name=\"a\r\n\r\nv\r\n--XyZ--", 400},
        {"--XyZjunk\r\n", 400}, /* delimiter then junk */
        {"--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n\xff\r\n--XyZ--", 400},
    };
    for (unsigned i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
        fs_error *e = mp_parse(p, "XyZ", cases[i].body, strlen(cases[i].body), 7, &a);
        if (!e)
            fail_msg("case %u accepted", i);
        assert_int_equal(e->status, cases[i].status);
    }
    /* a NUL byte in a value */
    const char nul[] = "--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\na\0b\r\n--XyZ--";
    assert_non_null(mp_parse(p, "XyZ", nul, sizeof(nul) - 1, 100, &a));
    /* huge header block: refused once it passes the limit, memory bounded */
    char *big = apr_palloc(p, 200000);
    strcpy(big, "--XyZ\r\nX-Pad: ");
    memset(big + 14, 'a', 190000);
    big[190014] = '\0';
    fs_error *e = mp_parse(p, "XyZ", big, strlen(big), 4096, &a);
    assert_non_null(e);
    assert_int_equal(e->status, 400);
    /* huge value: 413 */
    strcpy(big, "--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n");
    apr_size_t n = strlen(big);
    memset(big + n, 'a', 10000);
    big[n + 10000] = '\0';
    e = mp_parse(p, "XyZ", big, strlen(big), 333, &a);
    assert_non_null(e);
    assert_int_equal(e->status, 413);
    /* too many parts */
    char *many = "";
    for (int i = 0; i < 60; i++)
        many = apr_pstrcat(
            p, many, "--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nv\r\n", NULL);
    many = apr_pstrcat(p, many, "--XyZ--", NULL);
    assert_non_null(mp_parse(p, "XyZ", many, strlen(many), 1000, &a));
}

static void boundary_param(void **state) {
    apr_pool_t *p = *state;
    assert_string_equal(fs_multipart_boundary(p, "multipart/form-data; boundary=abc"), "abc");
    assert_string_equal(
        fs_multipart_boundary(p, "Multipart/Form-Data;charset=x; boundary=\"a b:c\""), "a b:c");
    assert_null(fs_multipart_boundary(p, "multipart/form-data"));
    assert_null(fs_multipart_boundary(p, "multipart/form-data; boundary="));
    assert_null(fs_multipart_boundary(p, "multipart/mixed; boundary=abc"));
    assert_null(fs_multipart_boundary(p, "multipart/form-data; boundary=\"unterminated"));
    assert_null(fs_multipart_boundary(p, "multipart/form-data; boundary=a<b"));
    assert_null(fs_multipart_boundary(
        p, "multipart/form-data; boundary=01234567890123456789012345678901234567890123456789"
           "012345678901234567890"));
    assert_null(fs_multipart_boundary(p, NULL));
}

static const char FIELDS[] =
    "[{\"key\":\"n\",\"type\":\"number\"},{\"key\":\"i\",\"type\":\"integer\"},"
    "{\"key\":\"ok\",\"type\":\"boolean\"},{\"key\":\"must\",\"type\":\"boolean\",\"required\":"
    "true},"
    "{\"key\":\"size\",\"type\":\"select\",\"options\":[{\"value\":\"s\",\"label\":\"S\"},"
    "{\"value\":2,\"label\":\"Two\"}]},"
    "{\"key\":\"tags\",\"type\":\"multiselect\",\"options\":[{\"value\":\"a\",\"label\":\"A\"},"
    "{\"value\":\"b\",\"label\":\"B\"}]},"
    "{\"key\":\"at\",\"type\":\"datetime\"},{\"key\":\"d\",\"type\":\"date\"},"
    "{\"key\":\"t\",\"type\":\"text\"},"
    "{\"key\":\"extra\",\"type\":\"boolean\",\"visibleIf\":{\"field\":\"t\",\"equals\":\"x\"}}]";

static json_object *coerce(apr_pool_t *p, const char *urlenc, int *hp) {
    const fs_fieldset *fs = fs_fieldset_from_json(p, fs_json_parse_trusted(p, FIELDS));
    apr_array_header_t *a;
    assert_null(fs_urlencoded_parse(p, urlenc, strlen(urlenc), &a));
    json_object *o;
    assert_null(fs_coerce(p, fs, a, 1, &o, hp));
    return o;
}

static void coercion(void **state) {
    apr_pool_t *p = *state;
    int hp;
    json_object *o = coerce(p,
                            "n=1.5&i=42&must=on&size=2&tags=a&tags=b&at=2026-11-21T14%3A30"
                            "&d=2026-02-28&t=&_hp=&_token=fst_x",
                            &hp);
    assert_int_equal(hp, 0);
    assert_string_equal(fs_json_str(p, o),
                        "{\"n\":1.5,\"i\":42,\"must\":true,\"size\":2,\"tags\":[\"a\",\"b\"],"
                        "\"at\":\"2026-11-21T14:30:00Z\",\"d\":\"2026-02-28\",\"ok\":false}");
    const fs_fieldset *fs = fs_fieldset_from_json(p, fs_json_parse_trusted(p, FIELDS));
    assert_null(fs_validate(p, fs, o));
    /* values that do not convert stay strings and fail validation as the
     * wrong type; repeated single answers become a list */
    o = coerce(p, "n=abc&i=1.5&must=maybe&size=zz&t=a&t=b&_hp=bot", &hp);
    assert_int_equal(hp, 1);
    assert_string_equal(fs_json_str(p, o),
                        "{\"n\":\"abc\",\"i\":1.5,\"must\":\"maybe\",\"size\":\"zz\","
                        "\"t\":[\"a\",\"b\"],\"ok\":false}");
    fs_error *e = fs_validate(p, fs, o);
    assert_non_null(e);
    assert_int_equal(e->errors->nelts, 5);
    /* an unticked optional box is false only when its question applies */
    o = coerce(p, "must=true&t=x", &hp);
    assert_string_equal(fs_json_str(p, o),
                        "{\"must\":true,\"t\":\"x\",\"ok\":false,\"extra\":false}");
    assert_null(fs_validate(p, fs, o));
    /* unknown names are kept for the validator to report */
    o = coerce(p, "must=true&bogus=", &hp);
    e = fs_validate(p, fs, o);
    assert_non_null(e);
    assert_string_equal(APR_ARRAY_IDX(e->errors, 0, fs_field_error).code, "unknown");
}

static const struct CMUnitTest tests[] = {
    FS_TEST(urlencoded),        FS_TEST(multipart_any_chunking),
    FS_TEST(multipart_refuses), FS_TEST(boundary_param),
    FS_TEST(coercion),
};
FS_TEST_MAIN(tests)
