/* fs_validate and fs_pattern: every type, required, visibleIf, unknown
 * members, uniqueness, calendar dates, formats, rating, patterns, and all
 * errors at once. */
#include "fs_json.h"
#include "fs_test.h"
#include "fs_validate.h"

static const fs_fieldset *fields(apr_pool_t *p, const char *json) {
    json_object *a = fs_json_parse_trusted(p, json);
    assert_non_null(a);
    return fs_fieldset_from_json(p, a);
}

/* The validation result of body: NULL when accepted. */
static fs_error *check(apr_pool_t *p, const fs_fieldset *fs, const char *body) {
    json_object *o;
    fs_error *pe = fs_json_parse_object(p, body, strlen(body), &o);
    assert_null(pe);
    return fs_validate(p, fs, o);
}

/* Asserts body is refused with exactly one error (pointer, code). */
static void refused1(apr_pool_t *p, const fs_fieldset *fs, const char *body, const char *pointer,
                     const char *code) {
    fs_error *e = check(p, fs, body);
    if (!e)
        fail_msg("accepted: %s", body);
    assert_int_equal(e->status, 422);
    assert_string_equal(e->slug, "validation-failed");
    if (e->errors->nelts != 1)
        fail_msg("%d errors for %s", e->errors->nelts, body);
    fs_field_error *fe = &APR_ARRAY_IDX(e->errors, 0, fs_field_error);
    assert_string_equal(fe->pointer, pointer);
    assert_string_equal(fe->code, code);
    assert_non_null(fe->detail);
}

static void accepted(apr_pool_t *p, const fs_fieldset *fs, const char *body) {
    fs_error *e = check(p, fs, body);
    if (e)
        fail_msg("refused %s: %s %s", body, APR_ARRAY_IDX(e->errors, 0, fs_field_error).pointer,
                 APR_ARRAY_IDX(e->errors, 0, fs_field_error).code);
}

static void text_rules(void **state) {
    apr_pool_t *p = *state;
    const fs_fieldset *fs =
        fields(p, "[{\"key\":\"name\",\"type\":\"text\",\"required\":true,"
                  "\"validation\":{\"minLength\":2,\"maxLength\":5,\"pattern\":\"^[A-Z]\"}}]");
    accepted(p, fs, "{\"name\":\"Ab\"}");
    accepted(p, fs, "{\"name\":\"Abc\\u00e9\\u00e9\"}"); /* 5 code points, 7 bytes */
    refused1(p, fs, "{}", "/name", "required");
    refused1(p, fs, "{\"name\":\"\"}", "/name", "required");
    refused1(p, fs, "{\"name\":\"A\"}", "/name", "minLength");
    refused1(p, fs, "{\"name\":\"Abcdef\"}", "/name", "maxLength");
    refused1(p, fs, "{\"name\":\"abc\"}", "/name", "pattern");
    refused1(p, fs, "{\"name\":12}", "/name", "type");
    refused1(p, fs, "{\"name\":null}", "/name", "type");
    refused1(p, fs, "{\"name\":[\"Ab\"]}", "/name", "type");
    /* default limit of a single-line answer */
    fs = fields(p, "[{\"key\":\"t\",\"type\":\"text\"}]");
    char *big = apr_palloc(p, 1100);
    strcpy(big, "{\"t\":\"");
    memset(big + 6, 'x', 1001);
    strcpy(big + 1007, "\"}");
    refused1(p, fs, big, "/t", "maxLength");
    accepted(p, fs, "{\"t\":\"\"}"); /* optional: empty is a value */
    accepted(p, fs, "{}");
    /* an owner's maxLength above the default is honoured, not capped */
    fs = fields(p, "[{\"key\":\"t\",\"type\":\"text\",\"validation\":{\"maxLength\":2000}},"
                   "{\"key\":\"a\",\"type\":\"textarea\",\"validation\":{\"maxLength\":100000}},"
                   "{\"key\":\"e\",\"type\":\"email\",\"validation\":{\"maxLength\":1000}}]");
    assert_int_equal(fs->f[0].max_len, 2000);
    assert_int_equal(fs->f[1].max_len, 100000);
    assert_int_equal(fs->f[2].max_len, 254); /* an older definition: the format's ceiling */
    accepted(p, fs, big);
    char *long_text = apr_palloc(p, 20100);
    strcpy(long_text, "{\"a\":\"");
    memset(long_text + 6, 'x', 20000);
    strcpy(long_text + 20006, "\"}");
    accepted(p, fs, long_text);
}

static void formats(void **state) {
    apr_pool_t *p = *state;
    const fs_fieldset *fs =
        fields(p, "[{\"key\":\"e\",\"type\":\"email\"},{\"key\":\"u\",\"type\":\"url\"},"
                  "{\"key\":\"t\",\"type\":\"tel\"},{\"key\":\"d\",\"type\":\"date\"},"
                  "{\"key\":\"dt\",\"type\":\"datetime\"}]");
    accepted(p, fs,
             "{\"e\":\"a.b+c@example.co.uk\",\"u\":\"https://example.com/a?b=c#d\","
             "\"t\":\"+44 (0)20 7946-0958\",\"d\":\"2024-02-29\","
             "\"dt\":\"2026-11-21T23:25:28.123Z\"}");
    accepted(p, fs, "{\"u\":\"http://localhost:8080\",\"dt\":\"2026-11-21T23:25:28+05:30\"}");
    static const char *const bad_emails[] = {"a@b", "a@@b.com", "a b@c.com", "@b.com", "a@-b.com",
                                             "a@b.com\n", "a@b..com", "a@b.com.", "\"a\"@b.com",
                                             /* a local part of dot-separated atoms, as
                                              * validators' "email" format reads it */
                                             "a..b@c.com", ".a@b.com", "a.@b.com"};
    for (unsigned i = 0; i < sizeof(bad_emails) / sizeof(*bad_emails); i++) {
        json_object *o = fs_json_own(p, json_object_new_object());
        json_object_object_add(o, "e", json_object_new_string(bad_emails[i]));
        fs_error *e = fs_validate(p, fs, o);
        if (!e)
            fail_msg("email accepted: %s", bad_emails[i]);
        assert_string_equal(APR_ARRAY_IDX(e->errors, 0, fs_field_error).code, "format");
    }
    refused1(p, fs, "{\"u\":\"ftp://example.com\"}", "/u", "format");
    refused1(p, fs, "{\"u\":\"https://exa mple.com\"}", "/u", "format");
    refused1(p, fs, "{\"u\":\"https://\"}", "/u", "format");
    refused1(p, fs, "{\"u\":\"https://a.com/<script>\"}", "/u", "format");
    refused1(p, fs, "{\"u\":\"javascript:alert(1)\"}", "/u", "format");
    refused1(p, fs, "{\"t\":\"12\"}", "/t", "format");
    refused1(p, fs, "{\"t\":\"call me\"}", "/t", "format");
    refused1(p, fs, "{\"d\":\"2026-02-30\"}", "/d", "format");
    refused1(p, fs, "{\"d\":\"2026-02-29\"}", "/d", "format");
    refused1(p, fs, "{\"d\":\"1900-02-29\"}", "/d", "format");
    accepted(p, fs, "{\"d\":\"2000-02-29\"}");
    refused1(p, fs, "{\"d\":\"2026-04-31\"}", "/d", "format");
    refused1(p, fs, "{\"d\":\"0000-01-01\"}", "/d", "format");
    refused1(p, fs, "{\"d\":\"20260101\"}", "/d", "format");
    refused1(p, fs, "{\"d\":\"2026-1-01\"}", "/d", "format");
    refused1(p, fs, "{\"dt\":\"2026-11-21T23:25:60Z\"}", "/dt", "format");
    refused1(p, fs, "{\"dt\":\"2026-11-21T23:25Z\"}", "/dt", "format");
    refused1(p, fs, "{\"dt\":\"2026-11-21 23:25:00Z\"}", "/dt", "format");
    refused1(p, fs, "{\"dt\":\"2026-11-21T23:25:00\"}", "/dt", "format");
    refused1(p, fs, "{\"dt\":\"2026-02-30T00:00:00Z\"}", "/dt", "format");
}

static void numbers(void **state) {
    apr_pool_t *p = *state;
    const fs_fieldset *fs = fields(
        p, "[{\"key\":\"n\",\"type\":\"number\",\"validation\":{\"minimum\":0.5,\"maximum\":10}},"
           "{\"key\":\"i\",\"type\":\"integer\",\"validation\":{\"minimum\":-3}},"
           "{\"key\":\"r\",\"type\":\"rating\"},"
           "{\"key\":\"r7\",\"type\":\"rating\",\"validation\":{\"maximum\":7}}]");
    accepted(p, fs, "{\"n\":0.5,\"i\":-3,\"r\":5,\"r7\":7}");
    accepted(p, fs, "{\"n\":10,\"i\":4.0,\"r\":1.0}");
    refused1(p, fs, "{\"n\":0.49}", "/n", "minimum");
    refused1(p, fs, "{\"n\":10.01}", "/n", "maximum");
    refused1(p, fs, "{\"n\":\"5\"}", "/n", "type");
    refused1(p, fs, "{\"n\":true}", "/n", "type");
    refused1(p, fs, "{\"i\":1.5}", "/i", "type");
    refused1(p, fs, "{\"i\":-4}", "/i", "minimum");
    refused1(p, fs, "{\"i\":9007199254740992}", "/i", "maximum");
    refused1(p, fs, "{\"i\":99999999999999999999999}", "/i", "maximum");
    refused1(p, fs, "{\"r\":0}", "/r", "minimum");
    refused1(p, fs, "{\"r\":6}", "/r", "maximum");
    refused1(p, fs, "{\"r7\":8}", "/r7", "maximum");
    refused1(p, fs, "{\"r\":2.5}", "/r", "type");
}

static void booleans(void **state) {
    apr_pool_t *p = *state;
    const fs_fieldset *fs =
        fields(p, "[{\"key\":\"consent\",\"type\":\"boolean\",\"required\":true},"
                  "{\"key\":\"news\",\"type\":\"boolean\"}]");
    accepted(p, fs, "{\"consent\":true,\"news\":false}");
    accepted(p, fs, "{\"consent\":true}");
    refused1(p, fs, "{\"consent\":false}", "/consent", "required");
    refused1(p, fs, "{}", "/consent", "required");
    refused1(p, fs, "{\"consent\":\"true\"}", "/consent", "type");
    refused1(p, fs, "{\"consent\":true,\"news\":1}", "/news", "type");
}

static void choices(void **state) {
    apr_pool_t *p = *state;
    const fs_fieldset *fs = fields(
        p, "[{\"key\":\"size\",\"type\":\"select\",\"options\":[{\"value\":\"s\",\"label\":\"S\"},"
           "{\"value\":\"m\",\"label\":\"M\"}]},"
           "{\"key\":\"tags\",\"type\":\"multiselect\",\"required\":true,\"options\":["
           "{\"value\":\"a\",\"label\":\"A\"},{\"value\":\"b\",\"label\":\"B\"},"
           "{\"value\":\"c\",\"label\":\"C\"}],\"validation\":{\"maxItems\":2}}]");
    accepted(p, fs, "{\"size\":\"m\",\"tags\":[\"a\",\"c\"]}");
    refused1(p, fs, "{\"size\":\"xl\",\"tags\":[\"a\"]}", "/size", "enum");
    refused1(p, fs, "{\"size\":\"S\",\"tags\":[\"a\"]}", "/size", "enum");
    refused1(p, fs, "{\"tags\":[\"a\",\"a\"]}", "/tags/1", "unique");
    refused1(p, fs, "{\"tags\":[\"a\",\"z\"]}", "/tags/1", "enum");
    refused1(p, fs, "{\"tags\":[\"a\",\"b\",\"c\"]}", "/tags", "maxItems");
    refused1(p, fs, "{\"tags\":[]}", "/tags", "required");
    refused1(p, fs, "{\"tags\":\"a\"}", "/tags", "type");
    refused1(p, fs, "{}", "/tags", "required");
}

static void visible_if(void **state) {
    apr_pool_t *p = *state;
    const fs_fieldset *fs = fields(
        p, "[{\"key\":\"contact\",\"type\":\"select\",\"required\":true,\"options\":["
           "{\"value\":\"email\",\"label\":\"E-mail\"},{\"value\":\"phone\",\"label\":\"Phone\"},"
           "{\"value\":\"none\",\"label\":\"None\"}]},"
           "{\"key\":\"email\",\"type\":\"email\",\"required\":true,"
           "\"visibleIf\":{\"field\":\"contact\",\"equals\":\"email\"}},"
           "{\"key\":\"when\",\"type\":\"text\","
           "\"visibleIf\":{\"field\":\"contact\",\"in\":[\"email\",\"phone\"]}}]");
    accepted(p, fs, "{\"contact\":\"email\",\"email\":\"a@b.co\"}");
    accepted(p, fs, "{\"contact\":\"phone\",\"when\":\"evenings\"}");
    accepted(p, fs, "{\"contact\":\"none\"}");
    refused1(p, fs, "{\"contact\":\"email\"}", "/email", "required");
    refused1(p, fs, "{\"contact\":\"none\",\"email\":\"a@b.co\"}", "/email", "unknown");
    refused1(p, fs, "{\"contact\":\"none\",\"when\":\"x\"}", "/when", "unknown");
    refused1(p, fs, "{\"email\":\"a@b.co\",\"contact\":\"phone\"}", "/email", "unknown");
}

static void all_errors_at_once(void **state) {
    apr_pool_t *p = *state;
    const fs_fieldset *fs =
        fields(p, "[{\"key\":\"a\",\"type\":\"text\",\"required\":true},"
                  "{\"key\":\"b\",\"type\":\"integer\"},{\"key\":\"c\",\"type\":\"date\"}]");
    fs_error *e = check(p, fs, "{\"b\":\"x\",\"c\":\"2026-13-01\",\"zz\":1,\"a/~\":2}");
    assert_non_null(e);
    assert_int_equal(e->errors->nelts, 5);
    const char *want[5][2] = {{"/a", "required"},
                              {"/b", "type"},
                              {"/c", "format"},
                              {"/zz", "unknown"},
                              {"/a~1~0", "unknown"}};
    for (int i = 0; i < 5; i++) {
        fs_field_error *fe = &APR_ARRAY_IDX(e->errors, i, fs_field_error);
        int found = 0;
        for (int j = 0; j < 5; j++)
            found |= !strcmp(fe->pointer, want[j][0]) && !strcmp(fe->code, want[j][1]);
        if (!found)
            fail_msg("unexpected %s %s", fe->pointer, fe->code);
    }
}

/* fs_pattern, as the built-in formats use it: compiled once for the
 * process (kept in statics here, as fs_fieldset.c keeps them). */
static fs_pattern *backtracking, *dollar, *unanchored;

static void patterns_are_bounded(void **state) {
    apr_pool_t *p = *state;
    backtracking = fs_pattern_compile_forever("^(a+)+$");
    assert_non_null(backtracking);
    char s[64];
    memset(s, 'a', 40);
    s[40] = 'b';
    s[41] = '\0';
    /* catastrophic backtracking stops at the match limit: no match */
    assert_int_equal(fs_pattern_search(backtracking, s, strlen(s)), 0);
    assert_int_equal(fs_pattern_search(backtracking, "aaa", 3), 1);
    assert_null(fs_pattern_compile_forever("(unclosed"));
    /* '$' only at the very end, as in ECMA-262 */
    dollar = fs_pattern_compile_forever("^a$");
    assert_int_equal(fs_pattern_search(dollar, "a\n", 2), 0);
    assert_int_equal(fs_pattern_search(dollar, "a", 1), 1);
    /* unanchored search */
    unanchored = fs_pattern_compile_forever("b");
    assert_int_equal(fs_pattern_search(unanchored, "abc", 3), 1);
    assert_int_equal(fs_pattern_search(unanchored, "acd", 3), 0);
    /* a bad stored pattern refuses every value rather than failing open */
    const fs_fieldset *fs =
        fields(p, "[{\"key\":\"x\",\"type\":\"text\",\"validation\":{\"pattern\":\"([\"}}]");
    refused1(p, fs, "{\"x\":\"anything\"}", "/x", "pattern");
}

static void unknown_type_takes_nothing(void **state) {
    apr_pool_t *p = *state;
    const fs_fieldset *fs = fields(p, "[{\"key\":\"f\",\"type\":\"file\"},{\"nokey\":1},7]");
    assert_int_equal(fs->n, 1);
    accepted(p, fs, "{}");
    refused1(p, fs, "{\"f\":\"x\"}", "/f", "type");
}

static const struct CMUnitTest tests[] = {
    FS_TEST(text_rules),
    FS_TEST(formats),
    FS_TEST(numbers),
    FS_TEST(booleans),
    FS_TEST(choices),
    FS_TEST(visible_if),
    FS_TEST(all_errors_at_once),
    FS_TEST(patterns_are_bounded),
    FS_TEST(unknown_type_takes_nothing),
};
FS_TEST_MAIN(tests)
