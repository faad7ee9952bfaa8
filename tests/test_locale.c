/* fs_locale: the language files (every file has exactly en.json's keys and
 * each text its placeholders), the English file saying what the API says,
 * choosing a language from a tag or an Accept-Language header. */
#include "fs_field_more.h"
#include "fs_fieldset.h"
#include "fs_json.h"
#include "fs_locale.h"
#include "fs_pages.h"
#include "fs_test.h"
#include "fs_validate.h"

#include <apr_file_io.h>
#include <apr_strings.h>
#include <stdlib.h>

#define DIR "share/locales"

static apr_hash_t *flat(apr_pool_t *p, const char *json) {
    json_object *o = fs_json_parse_trusted(p, json);
    apr_hash_t *h = apr_hash_make(p);
    json_object_object_foreach(o, k, v) {
        apr_hash_set(h, apr_pstrdup(p, k), APR_HASH_KEY_STRING,
                     apr_pstrdup(p, json_object_get_string(v)));
    }
    return h;
}

/* Every shipped file, each compared with en.json on its own (the loader
 * stops at the first bad one). */
static void files_match_english(void **state) {
    apr_pool_t *p = *state;
    fs_locales *ls;
    const char *why = fs_locales_load(p, DIR, &ls);
    if (why)
        fail_msg("%s", why);
    const fs_locale *en = fs_locales_get(ls, "en");
    int n = 0;
    for (const char *const *c = fs_locale_codes; *c; c++, n++) {
        const fs_locale *l = fs_locales_get(ls, *c);
        assert_string_equal(l->code, *c);
        assert_int_equal(apr_hash_count(l->msgs), apr_hash_count(en->msgs));
        why = fs_locale_compare(p, en->msgs, l->msgs);
        if (why)
            fail_msg("%s.json: %s", *c, why);
        /* no text left in English by mistake (a few are the same on purpose) */
        if (strcmp(*c, "en")) {
            int same = 0;
            for (apr_hash_index_t *hi = apr_hash_first(p, en->msgs); hi; hi = apr_hash_next(hi))
                same += /* country names: many are the same in other languages */
                    strncmp(apr_hash_this_key(hi), "country.", 8) &&
                    !strcmp(apr_hash_this_val(hi), fs_tr(l, (const char *)apr_hash_this_key(hi)));
            if (same > 4)
                fail_msg("%s.json: %d texts equal to English", *c, same);
        }
    }
    assert_true(n >= 12);
    assert_true(apr_hash_count(en->msgs) >= 40);
    assert_int_equal(fs_locales_get(ls, "he")->rtl, 1);
    assert_int_equal(fs_locales_get(ls, "ar")->rtl, 1);
    assert_int_equal(fs_locales_get(ls, "de")->rtl, 0);
    assert_string_equal(fs_locales_get(ls, "zh")->lang, "zh-Hans");
    assert_string_equal(fs_locales_get(ls, "xx")->code, "en");
    assert_string_equal(fs_locales_get(ls, NULL)->code, "en");
}

/* The comparison catches a missing key, an extra key and a placeholder
 * dropped or renamed. */
static void compare_finds_differences(void **state) {
    apr_pool_t *p = *state;
    apr_hash_t *en = flat(p, "{\"a\":\"{label} x {n}\",\"b\":\"y\"}");
    assert_null(fs_locale_compare(p, en, flat(p, "{\"a\":\"{n} X {label}\",\"b\":\"Y\"}")));
    assert_non_null(fs_locale_compare(p, en, flat(p, "{\"a\":\"{label} x {n}\"}")));
    assert_non_null(
        fs_locale_compare(p, en, flat(p, "{\"a\":\"{label} x {n}\",\"b\":\"y\",\"c\":\"z\"}")));
    assert_non_null(fs_locale_compare(p, en, flat(p, "{\"a\":\"{label} x\",\"b\":\"y\"}")));
    assert_non_null(fs_locale_compare(p, en, flat(p, "{\"a\":\"{label} x {m}\",\"b\":\"y\"}")));
    assert_non_null(
        fs_locale_compare(p, en, flat(p, "{\"a\":\"{label} {label} {n}\",\"b\":\"y\"}")));
}

/* A directory with a broken or missing file is refused, naming the file. */
static void broken_files(void **state) {
    apr_pool_t *p = *state;
    fs_locales *ls;
    const char *why = fs_locales_load(p, "/nonexistent", &ls);
    assert_non_null(why);
    assert_non_null(strstr(why, "/nonexistent/en.json"));
    char tmpl[] = "/tmp/fs_locale_XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    for (const char *const *c = fs_locale_codes; *c; c++) {
        const char *src = apr_pstrcat(p, DIR "/", *c, ".json", NULL);
        const char *dst = apr_pstrcat(p, tmpl, "/", *c, ".json", NULL);
        assert_int_equal(apr_file_copy(src, dst, APR_FPROT_FILE_SOURCE_PERMS, p), APR_SUCCESS);
    }
    assert_null(fs_locales_load(p, tmpl, &ls));
    const char *pl = apr_pstrcat(p, tmpl, "/pl.json", NULL);
    apr_file_t *f;
    assert_int_equal(apr_file_open(&f, pl, APR_FOPEN_WRITE | APR_FOPEN_TRUNCATE, 0, p),
                     APR_SUCCESS);
    apr_file_puts("{\"page.submit\": \"Wy", f);
    apr_file_close(f);
    why = fs_locales_load(p, tmpl, &ls);
    assert_non_null(why);
    assert_non_null(strstr(why, "pl.json"));
    for (const char *const *c = fs_locale_codes; *c; c++)
        apr_file_remove(apr_pstrcat(p, tmpl, "/", *c, ".json", NULL), p);
    apr_dir_remove(tmpl, p);
}

/* en.json says every field error exactly as the API's English detail. */
static void english_file_says_api_details(void **state) {
    apr_pool_t *p = *state;
    fs_locales *ls;
    assert_null(fs_locales_load(p, DIR, &ls));
    const fs_locale *en = fs_locales_get(ls, "en");
    const char *fields =
        "[{\"key\":\"a\",\"type\":\"text\",\"label\":\"A\",\"required\":true},"
        "{\"key\":\"b\",\"type\":\"text\",\"label\":\"B\",\"validation\":{\"minLength\":3,"
        "\"maxLength\":4}},"
        "{\"key\":\"b2\",\"type\":\"text\",\"label\":\"B2\",\"validation\":{\"maxLength\":1}},"
        "{\"key\":\"c\",\"type\":\"email\",\"label\":\"C\"},"
        "{\"key\":\"c2\",\"type\":\"url\",\"label\":\"C2\"},"
        "{\"key\":\"c3\",\"type\":\"tel\",\"label\":\"C3\"},"
        "{\"key\":\"c4\",\"type\":\"date\",\"label\":\"C4\"},"
        "{\"key\":\"c5\",\"type\":\"datetime\",\"label\":\"C5\"},"
        "{\"key\":\"d\",\"type\":\"number\",\"label\":\"D\",\"validation\":{\"minimum\":1.5,"
        "\"maximum\":2}},"
        "{\"key\":\"d2\",\"type\":\"number\",\"label\":\"D2\",\"validation\":{\"maximum\":2}},"
        "{\"key\":\"d3\",\"type\":\"number\",\"label\":\"D3\"},"
        "{\"key\":\"e\",\"type\":\"integer\",\"label\":\"E\"},"
        "{\"key\":\"f\",\"type\":\"boolean\",\"label\":\"F\",\"required\":true},"
        "{\"key\":\"f2\",\"type\":\"boolean\",\"label\":\"F2\"},"
        "{\"key\":\"g\",\"type\":\"select\",\"label\":\"G\",\"options\":[{\"value\":\"x\"}]},"
        "{\"key\":\"h\",\"type\":\"multiselect\",\"label\":\"H\",\"validation\":{\"minItems\":4,"
        "\"maxItems\":4},"
        "\"options\":[{\"value\":\"x\"},{\"value\":\"y\"}]},"
        "{\"key\":\"h2\",\"type\":\"multiselect\",\"label\":\"H2\",\"validation\":{\"maxItems\":1},"
        "\"options\":[{\"value\":\"x\"},{\"value\":\"y\"}]},"
        "{\"key\":\"h3\",\"type\":\"multiselect\",\"label\":\"H3\","
        "\"options\":[{\"value\":\"x\"}]},"
        "{\"key\":\"i\",\"type\":\"text\",\"label\":\"I\",\"validation\":{\"pattern\":\"^[0-9]+$\"}"
        "},"
        "{\"key\":\"j\",\"type\":\"text\",\"label\":\"J\","
        "\"visibleIf\":{\"field\":\"f2\",\"equals\":true}},"
        "{\"key\":\"k\",\"type\":\"text\",\"label\":\"K\"},"
        "{\"key\":\"sc\",\"type\":\"scale\",\"label\":\"SC\",\"from\":0,\"to\":10},"
        "{\"key\":\"mx\",\"type\":\"matrix\",\"label\":\"MX\",\"required\":true,"
        "\"rows\":[{\"key\":\"a\",\"label\":\"RA\"},{\"key\":\"b\",\"label\":\"RB\"}],"
        "\"columns\":[{\"value\":\"x\",\"label\":\"X\"}],\"multiple\":false},"
        "{\"key\":\"mx2\",\"type\":\"matrix\",\"label\":\"MX2\","
        "\"rows\":[{\"key\":\"a\",\"label\":\"RA\"}],\"columns\":[{\"value\":\"x\"}]},"
        "{\"key\":\"rk\",\"type\":\"ranking\",\"label\":\"RK\","
        "\"options\":[{\"value\":\"x\"},{\"value\":\"y\"}]},"
        "{\"key\":\"so\",\"type\":\"select\",\"label\":\"SO\",\"allowOther\":true,"
        "\"options\":[{\"value\":\"x\"}]},"
        "{\"key\":\"mo\",\"type\":\"multiselect\",\"label\":\"MO\",\"allowOther\":true,"
        "\"options\":[{\"value\":\"x\"}]}]";
    const fs_fieldset *fs = fs_fieldset_from_json(p, fs_json_parse_trusted(p, fields));
    assert_non_null(fs);
    const char *body =
        "{\"b\":\"xy\",\"b2\":\"xy\",\"c\":\"no\",\"c2\":\"no\",\"c3\":\"no\",\"c4\":\"no\","
        "\"c5\":\"no\",\"d\":1,\"d2\":3,\"d3\":\"x\",\"e\":1.5,\"f\":false,\"f2\":\"x\","
        "\"g\":\"z\",\"h\":[\"x\",\"x\",\"q\"],\"h2\":[\"x\",\"y\"],\"h3\":\"x\",\"i\":\"ab\","
        "\"j\":\"x\",\"k\":7,\"zz\":1,\"sc\":11,\"mx\":{\"a\":\"z\"},\"mx2\":\"x\","
        "\"rk\":[\"x\"],\"so\":{\"other\":\"\"},\"mo\":[{\"other\":\"a\"},{\"other\":\"b\"}]}";
    json_object *v;
    assert_null(fs_json_parse_object(p, body, strlen(body), &v));
    fs_error *e = fs_validate(p, fs, v);
    assert_non_null(e);
    apr_hash_t *seen = apr_hash_make(p);
    for (int i = 0; i < e->errors->nelts; i++) {
        const fs_field_error *fe = &APR_ARRAY_IDX(e->errors, i, fs_field_error);
        assert_non_null(fe->msg);
        const char *key = apr_pstrcat(p, "error.", fe->msg, NULL);
        assert_true(apr_hash_get(en->msgs, key, APR_HASH_KEY_STRING) != NULL);
        assert_string_equal(fs_trf(p, en, key, "label", fe->label, "n", fe->n, NULL), fe->detail);
        apr_hash_set(seen, key, APR_HASH_KEY_STRING, "");
    }
    /* the step's error for answers too long to carry between pages */
    const fs_fieldset *two = fs_fieldset_from_json(
        p, fs_json_parse_trusted(p, "[{\"key\":\"a\",\"type\":\"textarea\",\"label\":\"A\"},"
                                    "{\"key\":\"p\",\"type\":\"page\",\"label\":\"P\"},"
                                    "{\"key\":\"b\",\"type\":\"text\",\"label\":\"B\"}]"));
    assert_non_null(two);
    fs_error *ce =
        fs_pages_carry_error(p, two, 0, fs_json_parse_trusted(p, "{\"a\":\"abcdef\"}"), 2);
    assert_non_null(ce);
    const fs_field_error *cfe = &APR_ARRAY_IDX(ce->errors, 0, fs_field_error);
    assert_string_equal(cfe->n, "4");
    assert_string_equal(cfe->pointer, "/a");
    assert_string_equal(fs_trf(p, en, "error.carry", "label", cfe->label, "n", cfe->n, NULL),
                        cfe->detail);
    apr_hash_set(seen, "error.carry", APR_HASH_KEY_STRING, "");
    /* every error message of the file was checked, but format.other and
     * type.none (no field type reaches them: kept for safety) */
    for (apr_hash_index_t *hi = apr_hash_first(p, en->msgs); hi; hi = apr_hash_next(hi)) {
        const char *k = apr_hash_this_key(hi);
        if (!strncmp(k, "error.", 6) && strcmp(k, "error.format.other") &&
            strncmp(k, "error.file.", 11) && /* uploads: t/84, t/87 */
            strcmp(k, "error.type.none") && !apr_hash_get(seen, k, APR_HASH_KEY_STRING) &&
            !fs_field_more_message(k)) /* tests/test_field_more.c */
            fail_msg("%s was not produced", k);
    }
}

static void match_tags(void **state) {
    (void)state;
    assert_string_equal(fs_locale_match("de"), "de");
    assert_string_equal(fs_locale_match("DE-at"), "de");
    assert_string_equal(fs_locale_match("pt-BR"), "pt");
    assert_string_equal(fs_locale_match("zh"), "zh");
    assert_string_equal(fs_locale_match("zh-Hant-TW"), "zh");
    assert_string_equal(fs_locale_match("zh_CN"), "zh");
    assert_string_equal(fs_locale_match("iw"), "he");
    assert_null(fs_locale_match("sv"));
    assert_null(fs_locale_match("d"));
    assert_null(fs_locale_match("deu1"));
    assert_null(fs_locale_match("*"));
    assert_null(fs_locale_match(""));
    assert_null(fs_locale_match(NULL));
}

static void negotiate(void **state) {
    apr_pool_t *p = *state;
    assert_null(fs_locale_negotiate(p, NULL));
    assert_null(fs_locale_negotiate(p, ""));
    assert_null(fs_locale_negotiate(p, "sv, *;q=0.5"));
    assert_string_equal(fs_locale_negotiate(p, "fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7"), "fr");
    assert_string_equal(fs_locale_negotiate(p, "sv, de;q=0.5, ja;q=0.7"), "ja");
    assert_string_equal(fs_locale_negotiate(p, "en;q=0.2,nl;q=0.900 , pl;q=0.8"), "nl");
    assert_string_equal(fs_locale_negotiate(p, "de;q=0, it"), "it");
    assert_string_equal(fs_locale_negotiate(p, "he ; q=1.0, ar;q=1"), "he");
    assert_string_equal(fs_locale_negotiate(p, "zh-TW;q=0.5,sv;q=0.9"), "zh");
    assert_string_equal(fs_locale_negotiate(p, "es;Q=0.001,de;q=junk"), "es");
    assert_null(fs_locale_negotiate(p, "de;q=0,fr;q=0.0"));
}

static void tags(void **state) {
    (void)state;
    assert_true(fs_locale_tag_valid("auto"));
    assert_true(fs_locale_tag_valid("de"));
    assert_true(fs_locale_tag_valid("pt-BR"));
    assert_true(fs_locale_tag_valid("zh-Hans-CN"));
    assert_true(fs_locale_tag_valid("sv"));
    assert_false(fs_locale_tag_valid(""));
    assert_false(fs_locale_tag_valid("d"));
    assert_false(fs_locale_tag_valid("de-"));
    assert_false(fs_locale_tag_valid("de--AT"));
    assert_false(fs_locale_tag_valid("de_AT"));
    assert_false(fs_locale_tag_valid("1de"));
    assert_false(fs_locale_tag_valid("de-abcdefghi"));
    assert_false(fs_locale_tag_valid("Auto "));
    assert_false(fs_locale_tag_valid(NULL));
}

static void fill(void **state) {
    apr_pool_t *p = *state;
    fs_locales *ls;
    assert_null(fs_locales_load(p, DIR, &ls));
    const fs_locale *de = fs_locales_get(ls, "de");
    assert_string_equal(fs_trf(p, de, "page.rating", "n", "2", "max", "5", NULL), "2 von 5");
    assert_string_equal(fs_trf(p, de, "page.rating", "n", "{max}", "max", "5", NULL),
                        "{max} von 5"); /* values are not filled again */
    assert_string_equal(fs_trf(p, de, "page.rating", NULL), "{n} von {max}");
    assert_string_equal(fs_tr(de, "no.such.key"), "no.such.key");
    assert_string_equal(fs_tr(NULL, "page.submit"), "page.submit");
}

static const struct CMUnitTest tests[] = {
    FS_TEST(files_match_english),
    FS_TEST(compare_finds_differences),
    FS_TEST(broken_files),
    FS_TEST(english_file_says_api_details),
    FS_TEST(match_tags),
    FS_TEST(negotiate),
    FS_TEST(tags),
    FS_TEST(fill),
};
FS_TEST_MAIN(tests)
