/* fs_code: one-time codes. */
#include "fs_code.h"
#include "fs_test.h"

static void generate(void **state) {
    apr_pool_t *p = *state;
    int seen[256] = {0};
    for (int i = 0; i < 2000; i++) {
        char *c = fs_code_generate(p);
        assert_int_equal(strlen(c), FS_CODE_LEN);
        for (char *q = c; *q; q++) {
            assert_non_null(strchr(FS_CODE_ALPHABET, *q));
            seen[(unsigned char)*q]++;
        }
        assert_string_equal(fs_code_normalize(p, c), c);
    }
    for (const char *a = FS_CODE_ALPHABET; *a; a++)
        assert_true(seen[(unsigned char)*a] > 0); /* every character occurs */
    assert_string_not_equal(fs_code_generate(p), fs_code_generate(p));
}

static void normalize(void **state) {
    apr_pool_t *p = *state;
    assert_string_equal(fs_code_normalize(p, "abcd-2345"), "ABCD2345");
    assert_string_equal(fs_code_normalize(p, " ABCD 2345 "), "ABCD2345");
    assert_null(fs_code_normalize(p, "ABCD234"));   /* short */
    assert_null(fs_code_normalize(p, "ABCD23456")); /* long */
    assert_null(fs_code_normalize(p, "ABCD2340"));  /* 0 is not in the alphabet */
    assert_null(fs_code_normalize(p, "ABCD234\xc3\xa9"));
    assert_null(fs_code_normalize(p, "' OR 1=1"));
    assert_null(fs_code_normalize(p, ""));
    assert_null(fs_code_normalize(p, NULL));
}

static void token(void **state) {
    apr_pool_t *p = *state;
    char *t = fs_code_token(p);
    assert_int_equal(strlen(t), 43);
    assert_string_not_equal(t, fs_code_token(p));
}

int main(void) {
    const struct CMUnitTest tests[] = {FS_TEST(generate), FS_TEST(normalize), FS_TEST(token)};
    apr_initialize();
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    apr_terminate();
    return rc;
}
