/* fs_form: slugs, titles, settings. */
#include "fs_form.h"
#include "fs_json.h"
#include "fs_test.h"

#include <apr_strings.h>

static const char *code_at(fs_error *e, const char *ptr) {
    for (int i = 0; e->errors && i < e->errors->nelts; i++) {
        fs_field_error *fe = &APR_ARRAY_IDX(e->errors, i, fs_field_error);
        if (!strcmp(fe->pointer, ptr))
            return fe->code;
    }
    return "";
}

static void slugs(void **state) {
    (void)state;
    assert_true(fs_slug_valid("a"));
    assert_true(fs_slug_valid("contact-us-2"));
    assert_true(fs_slug_valid("0"));
    assert_false(fs_slug_valid(""));
    assert_false(fs_slug_valid("-a"));
    assert_false(fs_slug_valid("a-"));
    assert_false(fs_slug_valid("A"));
    assert_false(fs_slug_valid("a_b"));
    assert_false(fs_slug_valid("frm_abc"));
    assert_false(fs_slug_valid("caf\xc3\xa9"));
    char s[66];
    memset(s, 'a', 65);
    s[65] = '\0';
    assert_false(fs_slug_valid(s));
    s[64] = '\0';
    assert_true(fs_slug_valid(s));
}

/* nothing in redirectUrl can change the page's CSP */
static void redirect_urls(void **state) {
    apr_pool_t *p = *state;
    assert_string_equal(fs_url_origin(p, "https://x.example/ok?a=1"), "https://x.example");
    assert_string_equal(fs_url_origin(p, "HTTP://X.Example:8080"), "http://x.example:8080");
    assert_string_equal(fs_url_origin(p, "https://x.example?q=%3B%2C"), "https://x.example");
    assert_string_equal(fs_url_origin(p, "https://192.0.2.1/p"), "https://192.0.2.1");
    assert_string_equal(fs_url_origin(p, "https://a-b.c.example#frag"), "https://a-b.c.example");
    const char *bad[] = {"https://x.example;script-src *",
                         "https://x.example/;script-src 'unsafe-inline'",
                         "https://x.example,https://evil.example",
                         "https://x.example/a,b",
                         "https://x.example/ 'unsafe-eval'",
                         "https://x.example/\"",
                         "https://x.example/'",
                         "https://x.example/`",
                         "https://x.example/<",
                         "https://x.example\\@evil.example/",
                         "https://x.example/\r\nSet-Cookie:a=b",
                         "https://x.example/\t",
                         "https://x.example/\x7f",
                         "https://x.example/caf\xc3\xa9",
                         "https://u:p@x.example/",
                         "https://u@x.example/",
                         "https://[::1]/",
                         "https://x..example/",
                         "https://x.example./",
                         "https://x_y.example/",
                         "https://x.example:0/",
                         "https://x.example:99999/",
                         "https://x.example:/",
                         "https:///path",
                         "javascript:alert(1)",
                         "data:text/html,x",
                         "ftp://x.example/",
                         "//x.example/",
                         "/relative",
                         "",
                         NULL};
    for (int i = 0; bad[i]; i++) {
        if (fs_url_origin(p, bad[i]))
            fail_msg("accepted: %s", bad[i]);
        assert_false(fs_redirect_url_valid(p, bad[i]));
    }
    assert_null(fs_url_origin(p, NULL));
    fs_error *e = fs_error_validation(p);
    assert_null(fs_settings_parse(
        p, fs_json_parse_trusted(p, "{\"redirectUrl\":\"https://x.example;script-src *\"}"),
        "/settings", e));
    assert_string_equal(code_at(e, "/settings/redirectUrl"), "format");
}

/* settings.locale: auto or a supported language's tag, kept as given. */
static void settings_locale(void **state) {
    apr_pool_t *p = *state;
    const char *ok[] = {"auto", "de", "pt-BR", "zh-Hant-TW", "HE", NULL};
    for (const char **t = ok; *t; t++) {
        fs_error *e = fs_error_validation(p);
        json_object *in = fs_json_own(p, json_object_new_object());
        json_object_object_add(in, "locale", json_object_new_string(*t));
        json_object *s = fs_json_own(p, fs_settings_parse(p, in, "/settings", e));
        assert_non_null(s);
        assert_string_equal(json_object_get_string(fs_json_get(s, "locale")), *t);
    }
    const char *bad[][2] = {{"\"sv\"", "enum"},      {"\"de_DE\"", "format"}, {"\"\"", "format"},
                            {"\"auto \"", "format"}, {"7", "type"},           {NULL, NULL}};
    for (int i = 0; bad[i][0]; i++) {
        fs_error *e = fs_error_validation(p);
        json_object *in =
            fs_json_parse_trusted(p, apr_pstrcat(p, "{\"locale\":", bad[i][0], "}", NULL));
        assert_null(fs_settings_parse(p, in, "/settings", e));
        assert_string_equal(code_at(e, "/settings/locale"), bad[i][1]);
    }
    fs_error *e = fs_error_validation(p);
    json_object *s = fs_json_own(
        p, fs_settings_parse(p, fs_json_parse_trusted(p, "{\"locale\":null}"), "/settings", e));
    assert_null(fs_json_get(s, "locale"));
}

static void settings(void **state) {
    apr_pool_t *p = *state;
    fs_error *e = fs_error_validation(p);
    json_object *s = fs_json_own(p, fs_settings_parse(p, NULL, "/settings", e));
    assert_string_equal(fs_json_str(p, s),
                        "{\"closesAt\":null,\"maxSubmissions\":null,\"confirmationMessage\":null,"
                        "\"redirectUrl\":null,\"honeypot\":true,\"uniqueBy\":null,\"notify\":null,"
                        "\"confirmation\":null}");
    s = fs_json_own(p,
                    fs_settings_parse(
                        p,
                        fs_json_parse_trusted(
                            p, "{\"closesAt\":\"2027-01-01T01:00:00.5+01:00\","
                               "\"maxSubmissions\":10,\"redirectUrl\":\"https://x.example/ok?a=1\","
                               "\"confirmationMessage\":\"Thanks\\nagain\",\"honeypot\":false}"),
                        "/settings", e));
    assert_null(e->errors);
    assert_string_equal(json_object_get_string(fs_json_get(s, "closesAt")),
                        "2027-01-01T00:00:00.500Z");
    assert_false(json_object_get_boolean(fs_json_get(s, "honeypot")));
    assert_null(fs_settings_parse(
        p,
        fs_json_parse_trusted(p, "{\"closesAt\":\"tomorrow\",\"maxSubmissions\":0,"
                                 "\"redirectUrl\":\"javascript:alert(1)\",\"honeypot\":1,"
                                 "\"confirmationMessage\":\"\",\"x\":1,\"a/b~\":2}"),
        "/settings", e));
    assert_string_equal(code_at(e, "/settings/closesAt"), "format");
    assert_string_equal(code_at(e, "/settings/maxSubmissions"), "minimum");
    assert_string_equal(code_at(e, "/settings/redirectUrl"), "format");
    assert_string_equal(code_at(e, "/settings/honeypot"), "type");
    assert_string_equal(code_at(e, "/settings/confirmationMessage"), "minLength");
    assert_string_equal(code_at(e, "/settings/x"), "unknown");
    assert_string_equal(code_at(e, "/settings/a~1b~0"), "unknown");
    e = fs_error_validation(p);
    assert_null(fs_settings_parse(p, fs_json_parse_trusted(p, "[1]"), "/settings", e));
    assert_string_equal(code_at(e, "/settings"), "type");
}

/* linkRequired: kept when true, absent when false or null, a boolean only. */
static void settings_link_required(void **state) {
    apr_pool_t *p = *state;
    fs_error *e = fs_error_validation(p);
    json_object *s =
        fs_json_own(p, fs_settings_parse(p, fs_json_parse_trusted(p, "{\"linkRequired\":true}"),
                                         "/settings", e));
    assert_null(e->errors);
    assert_true(json_object_get_boolean(fs_json_get(s, "linkRequired")));
    const char *off[] = {"{\"linkRequired\":false}", "{\"linkRequired\":null}", "{}", NULL};
    for (int i = 0; off[i]; i++) {
        s = fs_json_own(p, fs_settings_parse(p, fs_json_parse_trusted(p, off[i]), "/settings", e));
        assert_null(e->errors);
        assert_null(fs_json_get(s, "linkRequired"));
    }
    assert_null(
        fs_settings_parse(p, fs_json_parse_trusted(p, "{\"linkRequired\":1}"), "/settings", e));
    assert_string_equal(code_at(e, "/settings/linkRequired"), "type");
}

static void settings_retention_days(void **state) {
    apr_pool_t *p = *state;
    fs_error *e = fs_error_validation(p);
    json_object *s =
        fs_json_own(p, fs_settings_parse(p, fs_json_parse_trusted(p, "{\"retentionDays\":30}"),
                                         "/settings", e));
    assert_null(e->errors);
    assert_int_equal(json_object_get_int(fs_json_get(s, "retentionDays")), 30);
    s = fs_json_own(p, fs_settings_parse(p, fs_json_parse_trusted(p, "{\"retentionDays\":null}"),
                                         "/settings", e));
    assert_null(e->errors);
    assert_null(fs_json_get(s, "retentionDays"));
    s = fs_json_own(p, fs_settings_parse(p, fs_json_parse_trusted(p, "{\"retentionDays\":3650}"),
                                         "/settings", e));
    assert_int_equal(json_object_get_int(fs_json_get(s, "retentionDays")), 3650);
    assert_null(
        fs_settings_parse(p, fs_json_parse_trusted(p, "{\"retentionDays\":0}"), "/settings", e));
    assert_string_equal(code_at(e, "/settings/retentionDays"), "minimum");
    e = fs_error_validation(p);
    assert_null(
        fs_settings_parse(p, fs_json_parse_trusted(p, "{\"retentionDays\":3651}"), "/settings", e));
    assert_string_equal(code_at(e, "/settings/retentionDays"), "maximum");
    e = fs_error_validation(p);
    assert_null(fs_settings_parse(p, fs_json_parse_trusted(p, "{\"retentionDays\":\"30\"}"),
                                  "/settings", e));
    assert_string_equal(code_at(e, "/settings/retentionDays"), "type");
    e = fs_error_validation(p);
    assert_null(
        fs_settings_parse(p, fs_json_parse_trusted(p, "{\"retentionDays\":1.5}"), "/settings", e));
    assert_string_equal(code_at(e, "/settings/retentionDays"), "type");
}

/* settings.partial (absent when false) and partialExpiresDays (1..365,
 * present only when set) */
static void settings_partial(void **state) {
    apr_pool_t *p = *state;
    fs_error *e = fs_error_validation(p);
    json_object *s = fs_json_own(
        p, fs_settings_parse(
               p, fs_json_parse_trusted(p, "{\"partial\":true,\"partialExpiresDays\":7}"),
               "/settings", e));
    assert_null(e->errors);
    assert_true(json_object_get_boolean(fs_json_get(s, "partial")));
    assert_int_equal(json_object_get_int(fs_json_get(s, "partialExpiresDays")), 7);
    s = fs_json_own(
        p, fs_settings_parse(p, fs_json_parse_trusted(p, "{\"partial\":false}"), "/settings", e));
    assert_null(e->errors);
    assert_null(fs_json_get(s, "partial"));
    assert_null(fs_json_get(s, "partialExpiresDays"));
    const char *bad[][2] = {{"{\"partial\":1}", "type"},
                            {"{\"partialExpiresDays\":0}", "minimum"},
                            {"{\"partialExpiresDays\":366}", "maximum"},
                            {"{\"partialExpiresDays\":\"7\"}", "type"}};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        e = fs_error_validation(p);
        assert_null(fs_settings_parse(p, fs_json_parse_trusted(p, bad[i][0]), "/settings", e));
        assert_string_equal(code_at(e, i ? "/settings/partialExpiresDays" : "/settings/partial"),
                            bad[i][1]);
    }
}

static void titles(void **state) {
    apr_pool_t *p = *state;
    fs_error *e = fs_error_validation(p);
    assert_null(fs_form_title(p, NULL, "/title", e));
    assert_string_equal(code_at(e, "/title"), "required");
    e = fs_error_validation(p);
    assert_null(fs_form_title(p, fs_json_own(p, json_object_new_string("")), "/title", e));
    assert_string_equal(code_at(e, "/title"), "minLength");
    e = fs_error_validation(p);
    assert_null(fs_form_title(p, fs_json_own(p, json_object_new_string("a\nb")), "/title", e));
    assert_string_equal(code_at(e, "/title"), "pattern");
    int ok;
    e = fs_error_validation(p);
    assert_string_equal(
        fs_form_description(p, fs_json_own(p, json_object_new_string("a\nb")), "/d", e, &ok),
        "a\nb");
    assert_true(ok);
    assert_null(fs_form_slug(p, NULL, "/slug", e, &ok));
    assert_true(ok);
    assert_null(fs_form_slug(p, fs_json_own(p, json_object_new_string("Nope")), "/slug", e, &ok));
    assert_false(ok);
}

/* submitLabel, closedMessage, opensAt */
static void page_settings(void **state) {
    apr_pool_t *p = *state;
    fs_error *e = fs_error_validation(p);
    json_object *s = fs_json_own(
        p,
        fs_settings_parse(p,
                          fs_json_parse_trusted(
                              p, "{\"submitLabel\":\"Send <b>\",\"closedMessage\":\"Gone\\nbye\","
                                 "\"opensAt\":\"2027-01-01T01:00:00+01:00\","
                                 "\"closesAt\":\"2027-01-02T00:00:00Z\"}"),
                          "/settings", e));
    assert_null(e->errors);
    assert_string_equal(json_object_get_string(fs_json_get(s, "submitLabel")), "Send <b>");
    assert_string_equal(json_object_get_string(fs_json_get(s, "closedMessage")), "Gone\nbye");
    assert_string_equal(json_object_get_string(fs_json_get(s, "opensAt")),
                        "2027-01-01T00:00:00.000Z");
    /* absent when not set */
    s = fs_json_own(
        p, fs_settings_parse(p, fs_json_parse_trusted(p, "{\"opensAt\":null}"), "/settings", e));
    assert_null(e->errors);
    assert_false(json_object_object_get_ex(s, "opensAt", NULL));
    assert_false(json_object_object_get_ex(s, "submitLabel", NULL));
    /* opensAt alone is fine */
    assert_non_null(fs_json_own(
        p, fs_settings_parse(p, fs_json_parse_trusted(p, "{\"opensAt\":\"2027-01-01T00:00:00Z\"}"),
                             "/settings", e)));
    assert_null(e->errors);
    /* opensAt not before closesAt */
    assert_null(
        fs_settings_parse(p,
                          fs_json_parse_trusted(p, "{\"opensAt\":\"2027-01-02T00:00:00Z\","
                                                   "\"closesAt\":\"2027-01-02T01:00:00+01:00\"}"),
                          "/settings", e));
    assert_string_equal(code_at(e, "/settings/opensAt"), "maximum");
    assert_int_equal(e->errors->nelts, 1);
    e = fs_error_validation(p);
    assert_null(fs_settings_parse(
        p,
        fs_json_parse_trusted(p, "{\"opensAt\":\"soon\",\"submitLabel\":\"a\\nb\","
                                 "\"closedMessage\":\"\",\"closesAt\":\"2020-01-01T00:00:00Z\"}"),
        "/settings", e));
    assert_string_equal(code_at(e, "/settings/opensAt"), "format");
    assert_string_equal(code_at(e, "/settings/submitLabel"), "pattern");
    assert_string_equal(code_at(e, "/settings/closedMessage"), "minLength");
    e = fs_error_validation(p);
    assert_null(fs_settings_parse(p, fs_json_parse_trusted(p, "{\"submitLabel\":1,\"opensAt\":5}"),
                                  "/settings", e));
    assert_string_equal(code_at(e, "/settings/submitLabel"), "type");
    assert_string_equal(code_at(e, "/settings/opensAt"), "type");
}

static const struct CMUnitTest tests[] = {FS_TEST(slugs),
                                          FS_TEST(redirect_urls),
                                          FS_TEST(settings),
                                          FS_TEST(settings_locale),
                                          FS_TEST(page_settings),
                                          FS_TEST(titles),
                                          FS_TEST(settings_link_required),
                                          FS_TEST(settings_retention_days),
                                          FS_TEST(settings_partial)};
FS_TEST_MAIN(tests)
