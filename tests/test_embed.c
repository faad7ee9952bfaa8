/* fs_embed: the origins that may frame a form, settings.embed, the scripts'
 * hashes. */
#include "fs_embed.h"
#include "fs_form.h"
#include "fs_html.h"
#include "fs_json.h"
#include "fs_test.h"

#include <apr_strings.h>

static void origins(void **state) {
    apr_pool_t *p = *state;
    assert_string_equal(fs_embed_origin(p, "https://example.com"), "https://example.com");
    assert_string_equal(fs_embed_origin(p, "HTTPS://Shop.Example.COM:8443"),
                        "https://shop.example.com:8443");
    assert_string_equal(fs_embed_origin(p, "https://a-b.c0.example"), "https://a-b.c0.example");
    assert_string_equal(fs_embed_origin(p, "http://localhost:3000"), "http://localhost:3000");
    assert_string_equal(fs_embed_origin(p, "http://127.0.0.1"), "http://127.0.0.1");
    assert_string_equal(fs_embed_origin(p, "https://192.0.2.1:65535"), "https://192.0.2.1:65535");
    static const char *const bad[] = {"https://example.com/",
                                      "https://example.com/path",
                                      "https://example.com?q",
                                      "https://example.com#f",
                                      "https://*.example.com",
                                      "*",
                                      "https://*",
                                      "'self'",
                                      "'none'",
                                      "https://example.com; script-src *",
                                      "https://example.com 'unsafe-inline'",
                                      "https://example.com,https://evil.example",
                                      "https://example.com\r\nX: y",
                                      "https://user@example.com",
                                      "https://[::1]",
                                      "https://example..com",
                                      "https://.example.com",
                                      "https://example.com.",
                                      "https://exa_mple.com",
                                      "https://example.com:",
                                      "https://example.com:0",
                                      "https://example.com:08443",
                                      "https://example.com:65536",
                                      "https://example.com:123456",
                                      "http://example.com",
                                      "http://localhost.example.com",
                                      "http://127.0.0.10",
                                      "ftp://example.com",
                                      "//example.com",
                                      "example.com",
                                      "https://",
                                      "https://ex\xc3\xa4mple.com",
                                      "",
                                      NULL};
    for (int i = 0; bad[i]; i++)
        if (fs_embed_origin(p, bad[i]))
            fail_msg("accepted: %s", bad[i]);
    assert_null(fs_embed_origin(p, NULL));
}

static const char *code_at(const fs_error *e, const char *ptr) {
    for (int i = 0; e->errors && i < e->errors->nelts; i++) {
        const fs_field_error *fe = &APR_ARRAY_IDX(e->errors, i, fs_field_error);
        if (!strcmp(fe->pointer, ptr))
            return fe->code;
    }
    return "(none)";
}

static json_object *parse(apr_pool_t *p, const char *json, fs_error *e) {
    return fs_json_own(p, fs_settings_parse(p, fs_json_parse_trusted(p, json), "/settings", e));
}

static void embed_settings(void **state) {
    apr_pool_t *p = *state;
    fs_error *e = fs_error_validation(p);
    json_object *s = parse(p,
                           "{\"embed\":{\"allowedOrigins\":[\"https://Example.com\","
                           "\"http://localhost:8080\"]}}",
                           e);
    assert_null(e->errors);
    assert_string_equal(fs_json_str(p, fs_json_get(s, "embed")),
                        "{\"allowedOrigins\":[\"https://example.com\",\"http://localhost:8080\"]}");
    assert_string_equal(fs_embed_frame_ancestors(p, s),
                        "https://example.com http://localhost:8080");
    s = parse(p, "{\"embed\":null}", e);
    assert_null(e->errors);
    assert_false(json_object_object_get_ex(s, "embed", NULL));
    assert_null(fs_embed_frame_ancestors(p, s));
    assert_null(fs_embed_frame_ancestors(p, NULL));
    /* a stored value that is not an origin never reaches the policy */
    assert_string_equal(
        fs_embed_frame_ancestors(
            p, fs_json_parse_trusted(p, "{\"embed\":{\"allowedOrigins\":[\"https://a.example\","
                                        "\"https://b.example; script-src *\",1]}}")),
        "https://a.example");

    assert_null(parse(p,
                      "{\"embed\":{\"allowedOrigins\":[\"https://a.example\",\"https://A.example\","
                      "\"https://a.example/\",2],\"x\":1}}",
                      e));
    assert_string_equal(code_at(e, "/settings/embed/allowedOrigins/1"), "unique");
    assert_string_equal(code_at(e, "/settings/embed/allowedOrigins/2"), "format");
    assert_string_equal(code_at(e, "/settings/embed/allowedOrigins/3"), "type");
    assert_string_equal(code_at(e, "/settings/embed/x"), "unknown");
    e = fs_error_validation(p);
    assert_null(parse(p, "{\"embed\":{\"allowedOrigins\":[]}}", e));
    assert_string_equal(code_at(e, "/settings/embed/allowedOrigins"), "minItems");
    e = fs_error_validation(p);
    assert_null(parse(p, "{\"embed\":{}}", e));
    assert_string_equal(code_at(e, "/settings/embed/allowedOrigins"), "required");
    e = fs_error_validation(p);
    assert_null(parse(p, "{\"embed\":true}", e));
    assert_string_equal(code_at(e, "/settings/embed"), "type");
    e = fs_error_validation(p);
    const char *many = "{\"embed\":{\"allowedOrigins\":[";
    for (int i = 0; i <= FS_EMBED_MAX_ORIGINS; i++)
        many = apr_psprintf(p, "%s%s\"https://o%d.example\"", many, i ? "," : "", i);
    assert_null(parse(p, apr_pstrcat(p, many, "]}}", NULL), e));
    assert_string_equal(code_at(e, "/settings/embed/allowedOrigins"), "maxItems");
}

static void scripts(void **state) {
    apr_pool_t *p = *state;
    const char *sri = fs_embed_js_integrity(p);
    assert_int_equal(strlen(sri), 7 + 64);
    assert_int_equal(strncmp(sri, "sha384-", 7), 0);
    const char *src = fs_embed_page_script_src(p);
    assert_int_equal(strncmp(src, "'sha256-", 8), 0);
    /* the listener checks both the frame's window and its origin */
    assert_non_null(strstr(fs_embed_js(), "f.contentWindow!==e.source"));
    assert_non_null(strstr(fs_embed_js(), "o!==e.origin"));
    /* the page carries the script exactly when it may be framed */
    const fs_fieldset *fs = fs_fieldset_from_json(
        p, fs_json_parse_trusted(p, "[{\"key\":\"a\",\"type\":\"text\",\"label\":\"A\"}]"));
    fs_page pg = {"T",  NULL, fs,   NULL, NULL, "https://f.example/f/frm_1",
                  NULL, 0,    NULL, NULL, NULL, NULL,
                  1,    NULL, NULL, NULL, 0,    0,
                  0,    NULL, NULL, NULL, NULL, 0,
                  NULL, NULL, 0,    0};
    const char *h = fs_html_form(p, &pg);
    assert_non_null(
        strstr(h, apr_pstrcat(p, "<script>", fs_embed_page_script(), "</script>", NULL)));
    pg.embed = 0;
    assert_null(strstr(fs_html_form(p, &pg), "<script"));
}

static const struct CMUnitTest tests[] = {FS_TEST(origins), FS_TEST(embed_settings),
                                          FS_TEST(scripts)};
FS_TEST_MAIN(tests)
