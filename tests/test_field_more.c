/* fs_field_more: the types address, daterange, time and signature and the
 * bounds of dates and times: definitions, validation (its English
 * sentences are en.json's), HTML posts and the page's inputs. */
#include "fs_bounds.h"
#include "fs_coerce.h"
#include "fs_field.h"
#include "fs_field_more.h"
#include "fs_fieldset.h"
#include "fs_html.h"
#include "fs_html_target.h"
#include "fs_json.h"
#include "fs_locale.h"
#include "fs_schema.h"
#include "fs_test.h"
#include "fs_validate.h"

#include <apr_strings.h>
#include <stdio.h>
#include <stdlib.h>

#define FIELDS                                                                                     \
    "[{\"key\":\"a\",\"type\":\"address\",\"label\":\"A\",\"required\":true},"                     \
    "{\"key\":\"a2\",\"type\":\"address\",\"label\":\"A2\"},"                                      \
    "{\"key\":\"r\",\"type\":\"daterange\",\"label\":\"R\",\"validation\":"                        \
    "{\"minimum\":\"2026-06-01\",\"maximum\":\"2026-06-30\"}},"                                    \
    "{\"key\":\"r2\",\"type\":\"daterange\",\"label\":\"R2\"},"                                    \
    "{\"key\":\"r3\",\"type\":\"daterange\",\"label\":\"R3\"},"                                    \
    "{\"key\":\"t\",\"type\":\"time\",\"label\":\"T\",\"validation\":{\"minimum\":\"08:00\"}},"    \
    "{\"key\":\"t2\",\"type\":\"time\",\"label\":\"T2\"},"                                         \
    "{\"key\":\"d\",\"type\":\"date\",\"label\":\"D\",\"validation\":{\"maximum\":\"2026-01-31\"}" \
    "},"                                                                                           \
    "{\"key\":\"dt\",\"type\":\"datetime\",\"label\":\"DT\",\"validation\":"                       \
    "{\"minimum\":\"2026-01-01T00:00:00+01:00\"}},"                                                \
    "{\"key\":\"s\",\"type\":\"signature\",\"label\":\"S\",\"required\":true},"                    \
    "{\"key\":\"x\",\"type\":\"signature\",\"label\":\"X\"}]"

static const fs_fieldset *fieldset(apr_pool_t *p) {
    return fs_fieldset_from_json(p, fs_json_parse_trusted(p, FIELDS));
}

static fs_error *check(apr_pool_t *p, const char *body) {
    json_object *v;
    assert_null(fs_json_parse_object(p, body, strlen(body), &v));
    return fs_validate(p, fieldset(p), v);
}

static int has(const fs_error *e, const char *ptr, const char *code) {
    for (int i = 0; e && e->errors && i < e->errors->nelts; i++) {
        const fs_field_error *fe = &APR_ARRAY_IDX(e->errors, i, fs_field_error);
        if (!strcmp(fe->pointer, ptr) && !strcmp(fe->code, code))
            return 1;
    }
    return 0;
}

static void good_answers(void **state) {
    apr_pool_t *p = *state;
    assert_null(check(p, "{\"a\":{\"line1\":\"1 Main St\",\"city\":\"Springfield\","
                         "\"country\":\"US\",\"postalCode\":\"62701\"},"
                         "\"r\":{\"start\":\"2026-06-01\",\"end\":\"2026-06-30\"},"
                         "\"t\":\"08:00\",\"d\":\"2026-01-31\",\"dt\":\"2025-12-31T23:00:00Z\","
                         "\"s\":{\"name\":\"Ada Lovelace\"}}"));
}

/* Every message of these types, each said in en.json exactly as the API's
 * English detail. */
static void english_file_says_api_details(void **state) {
    apr_pool_t *p = *state;
    fs_locales *ls;
    assert_null(fs_locales_load(p, "share/locales", &ls));
    const fs_locale *en = fs_locales_get(ls, "en");
    fs_error *e = check(p, "{\"a\":{\"line1\":\"\",\"country\":\"XX\"},\"a2\":{\"line1\":\"x\","
                           "\"city\":\"\"},\"r\":{\"start\":\"2026-05-31\",\"end\":\"2026-07-01\"},"
                           "\"r2\":{},\"r3\":{\"start\":\"2026-02-02\",\"end\":\"2026-02-01\"},"
                           "\"t\":\"07:59\",\"t2\":\"25:00\",\"d\":\"2026-02-01\","
                           "\"dt\":\"2025-12-31T22:59:59Z\",\"s\":{\"name\":\"\"},\"x\":\"X\"}");
    assert_non_null(e);
    apr_hash_t *seen = apr_hash_make(p);
    for (int i = 0; i < e->errors->nelts; i++) {
        const fs_field_error *fe = &APR_ARRAY_IDX(e->errors, i, fs_field_error);
        assert_non_null(fe->msg);
        const char *key = apr_pstrcat(p, "error.", fe->msg, NULL);
        assert_non_null(apr_hash_get(en->msgs, key, APR_HASH_KEY_STRING));
        assert_string_equal(fs_trf(p, en, key, "label", fe->label, "n", fe->n, NULL), fe->detail);
        apr_hash_set(seen, key, APR_HASH_KEY_STRING, "");
    }
    for (apr_hash_index_t *hi = apr_hash_first(p, en->msgs); hi; hi = apr_hash_next(hi)) {
        const char *k = apr_hash_this_key(hi);
        if (fs_field_more_message(k) && !apr_hash_get(seen, k, APR_HASH_KEY_STRING))
            fail_msg("%s was not produced", k);
    }
    assert_true(has(e, "/a/line1", "required"));
    assert_true(has(e, "/a/city", "required"));
    assert_true(has(e, "/a/country", "enum"));
    assert_true(has(e, "/r/start", "minimum"));
    assert_true(has(e, "/r/end", "maximum"));
    assert_true(has(e, "/r2/start", "required"));
    assert_true(has(e, "/r3/end", "minimum"));
    assert_true(has(e, "/t", "minimum"));
    assert_true(has(e, "/t2", "format"));
    assert_true(has(e, "/d", "maximum"));
    assert_true(has(e, "/dt", "minimum"));
    assert_true(has(e, "/s/name", "required"));
    assert_true(has(e, "/x", "type"));
}

static void definitions(void **state) {
    apr_pool_t *p = *state;
    const char *bad[][2] = {
        {"{\"key\":\"d\",\"type\":\"date\",\"label\":\"D\",\"validation\":{\"minimum\":"
         "\"2026-02-01\",\"maximum\":\"2026-01-31\"}}",
         "/validation/minimum"},
        {"{\"key\":\"d\",\"type\":\"date\",\"label\":\"D\",\"validation\":{\"minimum\":5}}",
         "/validation/minimum"},
        {"{\"key\":\"d\",\"type\":\"date\",\"label\":\"D\",\"validation\":{\"maximum\":"
         "\"2026-02-30\"}}",
         "/validation/maximum"},
        {"{\"key\":\"t\",\"type\":\"time\",\"label\":\"T\",\"validation\":{\"minimum\":\"8:00\"}}",
         "/validation/minimum"},
        {"{\"key\":\"t\",\"type\":\"datetime\",\"label\":\"T\",\"validation\":{\"minimum\":"
         "\"2026-01-01T10:00:00+02:00\",\"maximum\":\"2026-01-01T07:59:59Z\"}}",
         "/validation/minimum"},
        {"{\"key\":\"a\",\"type\":\"address\",\"label\":\"A\",\"placeholder\":\"x\"}",
         "/placeholder"},
        {"{\"key\":\"a\",\"type\":\"address\",\"label\":\"A\",\"validation\":{\"minimum\":"
         "\"2026-01-01\"}}",
         "/validation/minimum"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
        fs_error *verr = fs_error_validation(p);
        assert_null(fs_field_parse(p, fs_json_parse_trusted(p, bad[i][0]), "fld_1", "", verr));
        assert_true(verr->errors && verr->errors->nelts >= 1);
        assert_string_equal(APR_ARRAY_IDX(verr->errors, 0, fs_field_error).pointer, bad[i][1]);
    }
    fs_error *verr = fs_error_validation(p);
    json_object *f = fs_field_parse(
        p,
        fs_json_parse_trusted(p, "{\"key\":\"t\",\"type\":\"datetime\",\"label\":\"T\","
                                 "\"validation\":{\"minimum\":\"2026-01-01T10:00:00+02:00\","
                                 "\"maximum\":\"2026-01-01T08:00:00Z\"}}"),
        "fld_1", "", verr);
    assert_non_null(f); /* 08:00Z is 10:00+02:00: equal bounds */
    json_object_put(f);
}

static void bound_patterns(void **state) {
    (void)state;
    char buf[512];
    assert_string_equal(
        fs_bound_pattern(buf, sizeof(buf), "08:30", 1),
        "^(?:08:30|[1-9][\\s\\S]{4}|0[9-9][\\s\\S]{3}|08:[4-9][\\s\\S]{1}|08:3[1-9])");
    assert_string_equal(fs_bound_pattern(buf, sizeof(buf), "10:00", 0),
                        "^(?:10:00|[0-0][\\s\\S]{4})");
    assert_null(fs_bound_pattern(buf, 20, "2026-01-01", 1));
}

/* The bounds' shapes, checked by hand, are exactly the answers' formats. */
static void bound_shapes_match_formats(void **state) {
    apr_pool_t *p = *state;
    const fs_pattern *date = fs_builtin_pattern(FS_RE_DATE),
                     *dt = fs_builtin_pattern(FS_RE_DATETIME);
    int years[] = {0, 1, 4, 100, 1900, 2000, 2024, 2026, 2100, 2400, 9999};
    for (size_t y = 0; y < sizeof(years) / sizeof(*years); y++)
        for (int m = 0; m <= 13; m++)
            for (int d = 0; d <= 32; d++) {
                const char *s = apr_psprintf(p, "%04d-%02d-%02d", years[y], m, d);
                assert_int_equal(fs_bound_valid(FS_BOUND_DATE, s, strlen(s)),
                                 fs_pattern_search(date, s, strlen(s)) == 1);
            }
    const char *odd[] = {"2026-1-01",  "2026-01-1",  "2026/01/01", "20260101", "2026-01-01 ",
                         "a026-01-01", "2026-0a-01", "-026-01-01", ""};
    for (size_t i = 0; i < sizeof(odd) / sizeof(*odd); i++)
        assert_int_equal(fs_bound_valid(FS_BOUND_DATE, odd[i], strlen(odd[i])),
                         fs_pattern_search(date, odd[i], strlen(odd[i])) == 1);
    const char *dts[] = {
        "2026-11-21T23:25:28Z",      "2026-11-21T23:25:28.123Z",    "2026-11-21T23:25:28+05:30",
        "2026-11-21T23:25:28-00:00", "2026-11-21T23:25:60Z",        "2026-11-21T24:00:00Z",
        "2026-11-21T23:25Z",         "2026-11-21 23:25:28Z",        "2026-11-21T23:25:28",
        "2026-11-21t23:25:28z",      "2026-02-30T00:00:00Z",        "2026-11-21T23:25:28.Z",
        "2026-11-21T23:25:28+5:30",  "2026-11-21T23:25:28+24:00",   "2026-11-21T23:25:28+23:59",
        "2026-11-21T23:25:28Zx",     "2026-11-21T23:25:28.5+01:00x"};
    for (size_t i = 0; i < sizeof(dts) / sizeof(*dts); i++)
        assert_int_equal(fs_bound_valid(FS_BOUND_DATETIME, dts[i], strlen(dts[i])),
                         fs_pattern_search(dt, dts[i], strlen(dts[i])) == 1);
}

static void html_post_pairs(void **state) {
    apr_pool_t *p = *state;
    apr_array_header_t *pairs = apr_array_make(p, 8, sizeof(fs_pair));
    const char *in[][2] = {{"a.line1", "1 Main St"}, {"a.line2", ""},    {"a.city", "Springfield"},
                           {"a.country", "US"},      {"r3.start", ""},   {"r3.end", ""},
                           {"s.name", "Ada"},        {"t", "09:15"},     {"x.name", "A"},
                           {"x.name", "B"},          {"nokey.part", "v"}};
    for (size_t i = 0; i < sizeof(in) / sizeof(*in); i++)
        *(fs_pair *)apr_array_push(pairs) = (fs_pair){in[i][0], in[i][1]};
    json_object *o;
    int hp;
    assert_null(fs_coerce(p, fieldset(p), pairs, 0, &o, &hp));
    assert_string_equal(fs_json_str(p, o),
                        "{\"a\":{\"line1\":\"1 Main St\",\"city\":\"Springfield\",\"country\":"
                        "\"US\"},\"s\":{\"name\":\"Ada\"},\"t\":\"09:15\",\"x\":{\"name\":[\"A\","
                        "\"B\"]},\"nokey.part\":\"v\"}");
}

static void page_inputs(void **state) {
    apr_pool_t *p = *state;
    fs_locales *ls;
    assert_null(fs_locales_load(p, "share/locales", &ls));
    fs_page pg = {0};
    pg.title = "T";
    pg.fields = fieldset(p);
    pg.action = "https://x.test/f/1";
    pg.loc = fs_locales_get(ls, "de");
    pg.values =
        fs_json_parse_trusted(p, "{\"a\":{\"line1\":\"Hauptstr. <1>\",\"country\":\"DE\"}}");
    const char *h = fs_html_form(p, &pg);
    if (getenv("SHOW_HTML"))
        fputs(h, stderr);
    assert_non_null(strstr(h, "<fieldset class=\"q\" id=\"q-a\"><legend>A"));
    assert_non_null(strstr(h, "name=\"a.line1\" value=\"Hauptstr. &lt;1&gt;\" required"));
    assert_non_null(strstr(h, "autocomplete=\"address-line1\""));
    assert_non_null(strstr(h, "autocomplete=\"postal-code\""));
    assert_non_null(strstr(h, "<option value=\"DE\" selected>Deutschland</option>"));
    assert_non_null(strstr(h, "<label for=\"f-a-0\">Adresszeile 1</label>"));
    assert_non_null(
        strstr(h, "type=\"date\" id=\"f-r-0\" name=\"r.start\" value=\"\" "
                  "aria-describedby=\"f-r-bounds\" min=\"2026-06-01\" max=\"2026-06-30\""));
    assert_non_null(strstr(h, "type=\"time\" id=\"f-t\" name=\"t\" value=\"\" "
                              "aria-describedby=\"f-t-bounds\" min=\"08:00\""));
    assert_non_null(strstr(h, "name=\"dt\" value=\"\" aria-describedby=\"f-dt-bounds\" step=\"1\" "
                              "min=\"2025-12-31T23:00:00\""));
    assert_non_null(strstr(h, "Von 2026-06-01 bis 2026-06-30."));
    assert_non_null(strstr(h, "name=\"s.name\" value=\"\" required aria-describedby=\"f-s-sign\" "
                              "maxlength=\"200\" autocomplete=\"name\""));
    assert_non_null(strstr(h, "<p class=\"help\" id=\"f-s-sign\">"));
}

/* Which parts an answer's errors are about: the part at fault, every part
 * for an error about the whole answer, none for another question's. */
static void parts_in_error(void **state) {
    apr_pool_t *p = *state;
    const fs_fieldset *fs = fieldset(p);
    const fs_field *a = fs_fieldset_find(fs, "a"), *r = fs_fieldset_find(fs, "r"),
                   *s = fs_fieldset_find(fs, "s");
    /* the address without its city and country (parts 2 and 5), the range's end before its start
     * (part 1), the signature missing (the whole answer) */
    fs_error *e = check(p, "{\"a\":{\"line1\":\"1 Main St\"},"
                           "\"r\":{\"start\":\"2026-06-05\",\"end\":\"2026-06-04\"}}");
    assert_non_null(e);
    assert_int_equal(fs_html_parts_in_error(p, e, a), (1u << 2) | (1u << 5));
    assert_int_equal(fs_html_parts_in_error(p, e, r), 1u << 1);
    assert_int_equal(fs_html_parts_in_error(p, e, s), ~0u);
    assert_int_equal(fs_html_parts_in_error(p, e, fs_fieldset_find(fs, "a2")), 0);
    assert_int_equal(fs_html_parts_in_error(p, NULL, a), 0);
}

static const struct CMUnitTest tests[] = {
    FS_TEST(good_answers),    FS_TEST(english_file_says_api_details),
    FS_TEST(definitions),     FS_TEST(bound_patterns),
    FS_TEST(html_post_pairs), FS_TEST(bound_shapes_match_formats),
    FS_TEST(page_inputs),     FS_TEST(parts_in_error),
};
FS_TEST_MAIN(tests)
