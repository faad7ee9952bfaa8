/* fs_regex: the ECMA-262-compatible subset, translation, bounded matching. */
#include "fs_regex.h"
#include "fs_test.h"

static fs_regex *ok(apr_pool_t *p, const char *pat) {
    const char *err = NULL;
    fs_regex *re = fs_regex_compile(p, pat, &err);
    if (!re)
        fail_msg("pattern %s refused: %s", pat, err);
    return re;
}

static void refused(apr_pool_t *p, const char *pat) {
    const char *err = NULL;
    fs_regex *re = fs_regex_compile(p, pat, &err);
    if (re)
        fail_msg("pattern %s accepted", pat);
    assert_non_null(err);
}

static void basic_matching(void **state) {
    apr_pool_t *p = *state;
    fs_regex *re = ok(p, "^\\d{3}-\\d{4}$");
    assert_int_equal(fs_regex_match(re, "555-1234"), 1);
    assert_int_equal(fs_regex_match(re, "5551234"), 0);
    /* unanchored search, as RegExp.test */
    assert_int_equal(fs_regex_match(ok(p, "b+"), "abbbc"), 1);
    /* $ is the end only (PCRE2 would also match before a final \n) */
    assert_int_equal(fs_regex_match(ok(p, "^abc$"), "abc\n"), 0);
    /* \d and \w are ASCII, as in ECMA-262 */
    assert_int_equal(fs_regex_match(ok(p, "^\\d$"), "\xd9\xa3"), 0); /* Arabic-Indic 3 */
    assert_int_equal(fs_regex_match(ok(p, "^\\w+$"), "caf\xc3\xa9"), 0);
    /* \s covers Unicode spaces (NBSP, U+2028, U+FEFF) */
    fs_regex *s = ok(p, "^\\s$");
    assert_int_equal(fs_regex_match(s, "\xc2\xa0"), 1);
    assert_int_equal(fs_regex_match(s, "\xe2\x80\xa8"), 1);
    assert_int_equal(fs_regex_match(s, "\xef\xbb\xbf"), 1);
    assert_int_equal(fs_regex_match(s, "x"), 0);
    assert_int_equal(fs_regex_match(ok(p, "^\\S$"), "\xc2\xa0"), 0);
    /* . excludes line terminators only, and is one code point */
    fs_regex *dot = ok(p, "^.$");
    assert_int_equal(fs_regex_match(dot, "\n"), 0);
    assert_int_equal(fs_regex_match(dot, "\r"), 0);
    assert_int_equal(fs_regex_match(dot, "\xe2\x80\xa9"), 0);
    assert_int_equal(fs_regex_match(dot, "\x0b"), 1); /* vertical tab: ECMA . matches */
    assert_int_equal(fs_regex_match(dot, "\xf0\x9f\x98\x80"), 1);
    /* [\s\S] (any character) and [a\S] */
    assert_int_equal(fs_regex_match(ok(p, "^[\\s\\S]{2}$"), "a\n"), 1);
    fs_regex *as = ok(p, "^[a\\S]+$");
    assert_int_equal(fs_regex_match(as, "abc"), 1);
    assert_int_equal(fs_regex_match(as, "a c"), 0);
    /* \uHHHH and \xHH escapes */
    assert_int_equal(fs_regex_match(ok(p, "^\\u00e9\\x41$"), "\xc3\xa9"
                                                             "A"),
                     1);
    /* lookarounds and non-capturing groups */
    assert_int_equal(fs_regex_match(ok(p, "^(?=.*\\d)(?!.*x).{4,}$"), "ab1c"), 1);
    assert_int_equal(fs_regex_match(ok(p, "(?<=a)b"), "ab"), 1);
    assert_int_equal(fs_regex_match(ok(p, "^(?:ab)+$"), "abab"), 1);
    /* back references to one digit */
    assert_int_equal(fs_regex_match(ok(p, "^(a)\\1$"), "aa"), 1);
    /* escaped syntax characters */
    assert_int_equal(fs_regex_match(ok(p, "^\\{\\}\\[\\]\\/\\.$"), "{}[]/."), 1);
    assert_int_equal(fs_regex_match(ok(p, "^[\\-a]+$"), "a-a"), 1);
}

static void outside_subset(void **state) {
    apr_pool_t *p = *state;
    const char *bad[] = {"(?i)abc",   "(?<name>a)", "(?P<n>a)", "(?>a)",  "(?#c)",       "(?R)",
                         "(?(1)a|b)", "a++",        "a*+",      "a{2}+",  "[[:alpha:]]", "\\Aabc",
                         "abc\\Z",    "\\z",        "\\Qa\\E",  "\\K",    "\\p{L}",      "\\P{L}",
                         "\\h",       "\\R",        "\\X",      "\\g1",   "\\k<n>",      "\\v",
                         "\\e",       "\\C",        "a{",       "a}",     "]",           "[]",
                         "[^]",       "\\01",       "\\12",     "[\\b]",  "[^\\S]",      "\\x4",
                         "\\u12",     "\\u{1F600}", "\\c1",     "*a",     "a**",         "(",
                         "[a",        "\\",         "\\-",      "x{2,1}", NULL};
    for (const char **b = bad; *b; b++)
        refused(p, *b);
    char longp[FS_REGEX_MAX_PATTERN + 2];
    memset(longp, 'a', sizeof(longp) - 1);
    longp[sizeof(longp) - 1] = '\0';
    refused(p, longp);
    refused(p, "\xc3\x28"); /* invalid UTF-8 */
    const char *err;
    fs_regex_compile(p, "(?i)x", &err);
    assert_non_null(strstr(err, "character 1"));
}

static void bounded(void **state) {
    apr_pool_t *p = *state;
    fs_regex *re = ok(p, "^(a+)+$");
    char subject[64];
    memset(subject, 'a', 40);
    strcpy(subject + 40, "!");
    /* would take 2^40 steps: the limit stops it */
    assert_int_equal(fs_regex_match(re, subject), -1);
    assert_int_equal(fs_regex_match(re, "aaaa"), 1);
    assert_true(fs_regex_pathological(re));
    assert_true(fs_regex_pathological(ok(p, "(a|a)*b")));
    assert_true(fs_regex_pathological(ok(p, "^(\\w+\\s?)*$")));
    assert_true(fs_regex_pathological(ok(p, "(x+x+)+y")));
    assert_true(fs_regex_pathological(ok(p, "^(\\d*)*$")));
    assert_false(fs_regex_pathological(ok(p, "^[a-z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}$")));
    assert_false(fs_regex_pathological(ok(p, "^\\+?[0-9 ]{6,20}$")));
    assert_false(fs_regex_pathological(ok(p, "^[\\s\\S]*$")));
    assert_false(fs_regex_pathological(ok(p, "^(?=.*\\d).{8,}$")));
    /* a long ordinary subject is fine */
    char *big = apr_palloc(p, 60001);
    memset(big, 'x', 60000);
    big[60000] = '\0';
    assert_int_equal(fs_regex_match(ok(p, "^x+$"), big), 1);
    assert_int_equal(fs_regex_match(ok(p, "^.*y"), big), 0);
    /* invalid UTF-8 subject: not a match, no crash */
    assert_int_equal(fs_regex_match(ok(p, "a"), "\xff"
                                                "a"),
                     -1);
}

static const struct CMUnitTest tests[] = {FS_TEST(basic_matching), FS_TEST(outside_subset),
                                          FS_TEST(bounded)};
FS_TEST_MAIN(tests)
