/* fs_partial: the resume token of partial answers (format, parsing, the
 * secret derived from a page's submission token) and the page's script. */
#include "fs_partial.h"
#include "fs_secret.h"
#include "fs_test.h"

#include <apr_strings.h>
#include <string.h>

static const unsigned char PEPPER[] = "0123456789abcdef0123456789abcdef";
#define ID "sub_01JD0000000000000000000000"

static void secret_from_page_token(void **state) {
    apr_pool_t *p = *state;
    const char *a = fs_partial_secret(p, PEPPER, 32, "frm_1", "tok");
    const char *b = fs_partial_secret(p, PEPPER, 32, "frm_1", "tok");
    assert_non_null(a);
    assert_string_equal(a, b); /* one filling-in, one secret: concurrent steps meet */
    assert_int_equal(strlen(a), strlen(FS_PARTIAL_SECRET_PREFIX) + 64);
    assert_string_not_equal(a, fs_partial_secret(p, PEPPER, 32, "frm_2", "tok"));
    assert_string_not_equal(a, fs_partial_secret(p, PEPPER, 32, "frm_1", "tok2"));
    assert_string_not_equal(a, fs_partial_secret(p, PEPPER, 31, "frm_1", "tok"));
    /* no page token: random */
    const char *r1 = fs_partial_secret(p, PEPPER, 32, "frm_1", NULL);
    const char *r2 = fs_partial_secret(p, PEPPER, 32, "frm_1", NULL);
    assert_string_not_equal(r1, r2);
}

static void token_round_trip(void **state) {
    apr_pool_t *p = *state;
    const char *sec = fs_partial_secret(p, PEPPER, 32, "frm_1", "tok"), *id, *s2;
    const char *tok = fs_partial_token(p, ID, sec);
    assert_true(fs_partial_token_parse(p, tok, &id, &s2));
    assert_string_equal(id, ID);
    assert_string_equal(s2, sec);
}

static void token_refusals(void **state) {
    apr_pool_t *p = *state;
    const char *sec = fs_partial_secret(p, PEPPER, 32, "frm_1", "tok"), *id, *s;
    const char *bad[] = {
        NULL,
        "",
        "garbage",
        ID,
        apr_pstrcat(p, ID, ".", NULL),
        apr_pstrcat(p, "sub_short.", sec, NULL),
        apr_pstrcat(p, "frm_01JD0000000000000000000000.", sec, NULL),
        apr_pstrcat(p, ID, ".", sec + 4, NULL),                  /* no prefix */
        apr_pstrndup(p, apr_pstrcat(p, ID, ".", sec, NULL), 80), /* cut */
        apr_pstrcat(p, ID, ".", sec, "0", NULL),                 /* longer */
        apr_pstrcat(p, ID, ".frs_",
                    "ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789",
                    NULL), /* upper-case hex */
        apr_pstrcat(p, ID, ".", sec, "\n", NULL)};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_false(fs_partial_token_parse(p, bad[i], &id, &s));
        assert_null(id);
        assert_null(s);
    }
}

static void script_and_hash(void **state) {
    apr_pool_t *p = *state;
    const char *js = fs_partial_script();
    assert_non_null(strstr(js, "\"" FS_NAV_AUTOSAVE "\""));
    assert_non_null(strstr(js, FS_RESUME_NAME));
    assert_null(strstr(js, "</")); /* never ends its own <script> element */
    const char *src = fs_partial_script_src(p);
    assert_int_equal(strncmp(src, "'sha256-", 8), 0);
    assert_int_equal(strlen(src), 8 + 44 + 1);
}

static const struct CMUnitTest tests[] = {
    FS_TEST(secret_from_page_token),
    FS_TEST(token_round_trip),
    FS_TEST(token_refusals),
    FS_TEST(script_and_hash),
};
FS_TEST_MAIN(tests)
