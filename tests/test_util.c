/* fs_util: timestamps, base64url, cursors, routes, e-mail addresses. */
#include "fs_test.h"
#include "fs_util.h"

static void rfc3339(void **state) {
    apr_pool_t *p = *state;
    apr_time_t t;
    assert_true(fs_time_parse_rfc3339("2026-11-21T23:25:28.123Z", &t));
    assert_string_equal(fs_time_format(p, t), "2026-11-21T23:25:28.123Z");
    assert_true(fs_time_parse_rfc3339("2026-11-21T23:25:28+01:00", &t));
    assert_string_equal(fs_time_format(p, t), "2026-11-21T22:25:28.000Z");
    assert_true(fs_time_parse_rfc3339("2024-02-29T00:00:00Z", &t));
    assert_true(fs_time_parse_rfc3339("1970-01-01T00:00:00Z", &t));
    assert_int_equal(t, 0);
    const char *bad[] = {"2026-02-29T00:00:00Z",
                         "2026-02-30T00:00:00Z",
                         "2026-13-01T00:00:00Z",
                         "2026-11-21 23:25:28Z",
                         "2026-11-21T24:00:00Z",
                         "2026-11-21T23:25:28",
                         "2026-11-21T23:25:28.Z",
                         "2026-11-21T23:25:60Z",
                         "tomorrow",
                         "",
                         "2026-11-21T23:25:28Zjunk",
                         "2026-11-21T23:25:28+1:00"};
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_false(fs_time_parse_rfc3339(bad[i], &t));
    assert_true(fs_date_valid(2000, 2, 29));
    assert_false(fs_date_valid(1900, 2, 29));
}

static void b64url(void **state) {
    apr_pool_t *p = *state;
    const char *in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar", "\xff\xfe\xfd"};
    for (unsigned i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
        char *e = fs_b64url_encode(p, (const unsigned char *)in[i], strlen(in[i]));
        assert_null(strchr(e, '='));
        assert_null(strchr(e, '+'));
        apr_size_t n;
        unsigned char *d = fs_b64url_decode(p, e, &n);
        assert_non_null(d);
        assert_int_equal(n, strlen(in[i]));
        assert_memory_equal(d, in[i], n);
    }
    apr_size_t n;
    assert_null(fs_b64url_decode(p, "a", &n));
    assert_null(fs_b64url_decode(p, "ab!c", &n));
    assert_null(fs_b64url_decode(p, "Zh", &n)); /* non-zero trailing bits */
}

static void cursors(void **state) {
    apr_pool_t *p = *state;
    const char *id = "key_01M808FC9CMSEGX6N2ZE7FZY66";
    char *c = fs_cursor_encode(p, "keys", id);
    assert_string_equal(fs_cursor_decode(p, "keys", c, "key_"), id);
    assert_null(fs_cursor_decode(p, "forms", c, "frm_"));
    assert_null(fs_cursor_decode(p, "keys", "garbage!", "key_"));
    assert_null(fs_cursor_decode(p, "keys", fs_cursor_encode(p, "keys", "key_short"), "key_"));
}

static void routes(void **state) {
    apr_pool_t *p = *state;
    const char *caps[4] = {0};
    assert_true(fs_route_match(p, "/v1/keys/{id}/roll", "/v1/keys/key_1/roll", caps));
    assert_string_equal(caps[0], "key_1");
    assert_false(fs_route_match(p, "/v1/keys/{id}", "/v1/keys/", caps));
    assert_false(fs_route_match(p, "/v1/keys/{id}", "/v1/keys/a/b", caps));
    assert_false(fs_route_match(p, "/v1/keys", "/v1/keysx", caps));
    assert_true(
        fs_route_match(p, "/v1/forms/{id}/submissions/{sid}", "/v1/forms/f/submissions/s", caps));
    assert_string_equal(caps[1], "s");
}

static void emails(void **state) {
    apr_pool_t *p = *state;
    const char *ok[] = {"a@example.com", "first.last+tag@sub.example.co.uk",
                        "x@xn--bcher-kva.example",
                        "\xc3\xa9@b\xc3\xbc"
                        "cher.example"};
    for (unsigned i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
        assert_true(fs_email_valid(ok[i]));
    const char *bad[] = {"",
                         "a",
                         "a@b",
                         "@example.com",
                         "a@",
                         "a@@example.com",
                         "a b@example.com",
                         "a@exa mple.com",
                         ".a@example.com",
                         "a.@example.com",
                         "a..b@example.com",
                         "a@-example.com",
                         "a@example-.com",
                         "a@example..com",
                         "a@example.com.",
                         "a\"b@example.com",
                         "a@exam_ple.com"};
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_false(fs_email_valid(bad[i]));
    assert_string_equal(fs_trim(p, " \t a@b.c \n"), "a@b.c");
    assert_true(fs_has_control("a\x01"));
    assert_false(fs_has_control("caf\xc3\xa9"));
}

static void int_parse(void **state) {
    (void)state;
    int v = -7;
    assert_true(fs_int_parse("0", 0, 3600, &v));
    assert_int_equal(v, 0);
    assert_true(fs_int_parse("3600", 0, 3600, &v));
    assert_int_equal(v, 3600);
    assert_true(fs_int_parse(" +15", 0, 3600, &v)); /* as strtol reads it */
    assert_int_equal(v, 15);
    assert_true(fs_int_parse("-5", -10, 10, &v));
    assert_int_equal(v, -5);
    v = 42;
    const char *bad[] = {
        "", " ", "3601", "-1", "10s", "1.5", "0x10", "abc", "99999999999999999999"};
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_false(fs_int_parse(bad[i], 0, 3600, &v));
    assert_int_equal(v, 42); /* untouched on failure */
}

static const struct CMUnitTest tests[] = {
    FS_TEST(rfc3339), FS_TEST(b64url), FS_TEST(cursors),
    FS_TEST(routes),  FS_TEST(emails), FS_TEST(int_parse),
};
FS_TEST_MAIN(tests)
