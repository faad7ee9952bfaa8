/* fs_json: the strict request-body checker and pool ownership. */
#include "fs_json.h"
#include "fs_test.h"

#include <apr_strings.h>

static fs_error *check(apr_pool_t *p, const char *s) {
    return fs_json_check(p, s, strlen(s));
}

static void accepts_valid(void **state) {
    apr_pool_t *p = *state;
    const char *ok[] = {"{}",
                        "[]",
                        "0",
                        "-0.5e+10",
                        "\"\\u00e9\\ud83d\\ude00\"",
                        "{\"a\":[1,{\"b\":null}]}",
                        " {\"a\" : true , \"b\":false} ",
                        "\"caf\xc3\xa9\"",
                        "{\"a\":{},\"b\":{}}",
                        "{\"a\":{\"x\":1},\"b\":{\"x\":1}}"};
    for (unsigned i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
        assert_null(check(p, ok[i]));
}

static void refuses_invalid(void **state) {
    apr_pool_t *p = *state;
    const char *bad[] = {"",
                         "{",
                         "{'a':1}",
                         "{\"a\":NaN}",
                         "{\"a\":Infinity}",
                         "[1,]",
                         "{\"a\":1,}",
                         "01",
                         "1.",
                         ".5",
                         "\"a\tb\"",
                         "\"\\x\"",
                         "\"\\u12\"",
                         "\"\\u0000\"",
                         "\"\\ud800\"",
                         "\"\\udc00\"",
                         "\"\xff\"",
                         "\"\xc0\xaf\"",
                         "\"\xed\xa0\x80\"",
                         "{\"a\":1}x",
                         "{\"a\":1,\"a\":2}",
                         "{\"a\\u0062\":1,\"ab\":2}",
                         "tru",
                         "nul",
                         "{\"a\" 1}",
                         "[1 2]"};
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        fs_error *e = check(p, bad[i]);
        assert_non_null(e);
        assert_int_equal(e->status, 400);
        assert_string_equal(e->slug, "malformed-request");
    }
    /* NUL inside the buffer */
    assert_non_null(fs_json_check(p, "\"a\0b\"", 5));
}

static void depth_limit(void **state) {
    apr_pool_t *p = *state;
    char buf[200];
    for (int depth = 30; depth <= 34; depth++) {
        int n = 0;
        for (int i = 0; i < depth; i++)
            buf[n++] = '[';
        for (int i = 0; i < depth; i++)
            buf[n++] = ']';
        buf[n] = '\0';
        fs_error *e = check(p, buf);
        if (depth <= FS_JSON_MAX_DEPTH)
            assert_null(e);
        else
            assert_non_null(e);
    }
}

static void parse_object_only(void **state) {
    apr_pool_t *p = *state;
    json_object *o;
    assert_null(fs_json_parse_object(p, "{\"x\":\"/a\"}", 10, &o));
    assert_string_equal(fs_json_str(p, o), "{\"x\":\"/a\"}"); /* no \/ escaping */
    fs_error *e = fs_json_parse_object(p, "[1]", 3, &o);
    assert_non_null(e);
    assert_null(o);
    e = fs_json_parse_object(p, "{\"a\":1,\"a\":1}", 13, &o);
    assert_non_null(e);
}

static void utf8_helpers(void **state) {
    (void)state;
    assert_true(fs_utf8_valid("h\xc3\xa9llo", 6));
    assert_false(fs_utf8_valid("\xc3", 1));
    assert_false(fs_utf8_valid("a\0b", 3));
    assert_int_equal(fs_utf8_length("h\xc3\xa9llo"), 5);
    assert_int_equal(fs_utf8_length("\xf0\x9f\x98\x80"), 1);
}

static void problem_render(void **state) {
    apr_pool_t *p = *state;
    fs_error *e = fs_error_validation(p);
    fs_error_add(p, e, "/name", "required", "name is required.");
    fs_error_add(p, e, "/scopes/0", "enum", "Unknown.");
    char *s = fs_problem_render(p, e, "https://x.example/forms", "/forms/v1/keys");
    json_object *o = fs_json_parse_trusted(p, s);
    assert_string_equal(json_object_get_string(fs_json_get(o, "type")),
                        "https://x.example/forms/problems/validation-failed");
    assert_int_equal(json_object_get_int(fs_json_get(o, "status")), 422);
    assert_int_equal(json_object_array_length(fs_json_get(o, "errors")), 2);
    assert_string_equal(json_object_get_string(fs_json_get(o, "instance")), "/forms/v1/keys");
    fs_error *r = fs_error_make(p, "rate-limited", "slow down");
    r->retry_after = 7;
    o = fs_json_parse_trusted(p, fs_problem_render(p, r, "https://x", "/"));
    assert_int_equal(json_object_get_int(fs_json_get(o, "retryAfter")), 7);
    fs_error *u = fs_error_make(p, "no-such-slug", NULL);
    assert_int_equal(u->status, 500);
    int n;
    const fs_problem_type *cat = fs_problem_catalogue(&n);
    for (int i = 0; i < n; i++) {
        assert_true(cat[i].status >= 400 && cat[i].status <= 504);
        assert_non_null(cat[i].about);
    }
}

static const char *first_code(fs_error *e, const char *ptr) {
    for (int i = 0; e->errors && i < e->errors->nelts; i++) {
        fs_field_error *fe = &APR_ARRAY_IDX(e->errors, i, fs_field_error);
        if (!strcmp(fe->pointer, ptr))
            return fe->code;
    }
    return NULL;
}

static void member_helpers(void **state) {
    apr_pool_t *p = *state;
    json_object *o = fs_json_parse_trusted(p, "{\"email\":\" a@b.example \",\"x\":1,\"y\":2}");
    static const char *const allowed[] = {"email", "y", NULL};
    fs_error *e = fs_error_validation(p);
    fs_json_unknown_members(p, o, allowed, e);
    assert_int_equal(e->errors->nelts, 1);
    assert_string_equal(first_code(e, "/x"), "unknown");
    static const char *const none[] = {NULL};
    e = fs_error_validation(p);
    fs_json_unknown_members(p, o, none, e);
    assert_int_equal(e->errors->nelts, 3);
    /* member names are escaped in the pointer (RFC 6901) */
    e = fs_error_validation(p);
    fs_json_unknown_members(p, fs_json_parse_trusted(p, "{\"a/b~c\":1}"), none, e);
    assert_string_equal(first_code(e, "/a~1b~0c"), "unknown");

    e = fs_error_validation(p);
    assert_string_equal(fs_json_email_member(p, o, e), "a@b.example"); /* trimmed */
    assert_null(e->errors);
    struct {
        const char *body, *code;
    } bad[] = {
        {"{}", "required"},
        {"{\"email\":7}", "type"},
        {"{\"email\":\"no-at-sign\"}", "format"},
        {"{\"email\":\"a@localhost\"}", "format"},
    };
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        e = fs_error_validation(p);
        assert_null(fs_json_email_member(p, fs_json_parse_trusted(p, bad[i].body), e));
        assert_int_equal(e->errors->nelts, 1);
        assert_string_equal(first_code(e, "/email"), bad[i].code);
    }
    char local[251];
    memset(local, 'a', 250);
    local[250] = '\0';
    char *long_addr = apr_pstrcat(p, local, "@b.example", NULL); /* 260 bytes */
    e = fs_error_validation(p);
    assert_null(fs_json_email_member(
        p, fs_json_parse_trusted(p, apr_psprintf(p, "{\"email\":\"%s\"}", long_addr)), e));
    assert_string_equal(first_code(e, "/email"), "maxLength");
}

/* RFC 6901 section 3: '~' is written ~0 and '/' ~1, nothing else. */
static void pointers(void **state) {
    apr_pool_t *p = *state;
    assert_string_equal(fs_json_pointer(p, "", "email"), "/email");
    assert_string_equal(fs_json_pointer(p, "/fields/0", "key"), "/fields/0/key");
    assert_string_equal(fs_json_pointer(p, "", "a/b"), "/a~1b");
    assert_string_equal(fs_json_pointer(p, "/x", "m~n"), "/x/m~0n");
    assert_string_equal(fs_json_pointer(p, "/x", "~/~1"), "/x/~0~1~01");
    assert_string_equal(fs_json_pointer(p, "", ""), "/");
    assert_string_equal(fs_json_pointer(p, "", "caf\xc3\xa9 %"), "/caf\xc3\xa9 %");
}

/* fs_json_put_string writes what fs_json_str writes for a json-c string:
 * every byte alone, then random strings of them. */
static void put_string_equal(apr_pool_t *p, const char *s) {
    apr_array_header_t *b = apr_array_make(p, 1, 1);
    APR_ARRAY_PUSH(b, char) = '[';
    fs_json_put_string(b, s);
    APR_ARRAY_PUSH(b, char) = ']';
    APR_ARRAY_PUSH(b, char) = '\0';
    json_object *a = fs_json_own(p, json_object_new_array());
    json_object_array_add(a, json_object_new_string(s));
    const char *want = fs_json_str(p, a);
    if (strcmp(b->elts, want))
        fail_msg("got %s, want %s", b->elts, want);
}

static void put_string(void **state) {
    apr_pool_t *p = *state;
    char one[2] = {0, 0};
    for (int c = 1; c < 256; c++) {
        one[0] = (char)c;
        put_string_equal(p, one);
    }
    put_string_equal(p, "");
    put_string_equal(p, "a \"quoted\" back\\slash / caf\xc3\xa9 \x7f\x01\x1f\t\r\n");
    srand(25);
    for (int i = 0; i < 2000; i++) {
        char s[40];
        int n = rand() % 39;
        for (int k = 0; k < n; k++)
            s[k] = (char)(1 + rand() % 255);
        s[n] = '\0';
        put_string_equal(p, s);
    }
}

static const struct CMUnitTest tests[] = {
    FS_TEST(accepts_valid),     FS_TEST(refuses_invalid), FS_TEST(depth_limit),
    FS_TEST(parse_object_only), FS_TEST(utf8_helpers),    FS_TEST(problem_render),
    FS_TEST(member_helpers),    FS_TEST(pointers),        FS_TEST(put_string),
};
FS_TEST_MAIN(tests)
