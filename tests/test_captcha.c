/* fs_captcha and fs_spam: the providers, settings.captcha and
 * settings.spamThreshold, the widget, tokens, siteverify answers, the spam
 * score. */
#include "fs_test.h"

#include "fs_captcha.h"
#include "fs_idempotency.h"
#include "fs_json.h"
#include "fs_spam.h"

#include <apr_strings.h>
#include <apr_time.h>

static json_object *J(apr_pool_t *p, const char *t) {
    return fs_json_parse_trusted(p, t);
}

static const char *code_at(fs_error *e, const char *ptr) {
    for (int i = 0; e->errors && i < e->errors->nelts; i++) {
        fs_field_error *fe = &APR_ARRAY_IDX(e->errors, i, fs_field_error);
        if (!strcmp(fe->pointer, ptr))
            return fe->code;
    }
    return "";
}

static const char *parsed(apr_pool_t *p, const char *settings, fs_error *e) {
    json_object *out = fs_json_own(p, json_object_new_object());
    fs_captcha_settings_parse(p, J(p, settings), "/settings", out, e);
    return fs_json_str(p, out);
}

static void settings(void **state) {
    apr_pool_t *p = *state;
    fs_error *e = fs_error_validation(p);
    assert_string_equal(parsed(p, "{}", e), "{}");
    assert_string_equal(parsed(p, "{\"captcha\":null,\"spamThreshold\":null}", e), "{}");
    assert_string_equal(
        parsed(p, "{\"captcha\":{\"siteKey\":\"0x4AAA-_z\",\"provider\":\"turnstile\"}}", e),
        "{\"captcha\":{\"provider\":\"turnstile\",\"siteKey\":\"0x4AAA-_z\"}}");
    assert_string_equal(parsed(p, "{\"spamThreshold\":100}", e), "{\"spamThreshold\":100}");
    assert_null(e->errors);
    parsed(p, "{\"captcha\":{\"provider\":\"other\",\"siteKey\":\"k\"}}", e);
    assert_string_equal(code_at(e, "/settings/captcha/provider"), "enum");
    e = fs_error_validation(p);
    parsed(p, "{\"captcha\":{\"provider\":\"hcaptcha\"}}", e);
    assert_string_equal(code_at(e, "/settings/captcha/siteKey"), "required");
    e = fs_error_validation(p);
    parsed(p, "{\"captcha\":{\"provider\":\"hcaptcha\",\"siteKey\":\"a\\\"><script>\"}}", e);
    assert_string_equal(code_at(e, "/settings/captcha/siteKey"), "pattern");
    e = fs_error_validation(p);
    parsed(p, "{\"captcha\":{\"provider\":\"hcaptcha\",\"siteKey\":\"k\",\"secret\":\"s\"}}", e);
    assert_string_equal(code_at(e, "/settings/captcha/secret"), "unknown");
    e = fs_error_validation(p);
    parsed(p, "{\"captcha\":\"turnstile\"}", e);
    assert_string_equal(code_at(e, "/settings/captcha"), "type");
    e = fs_error_validation(p);
    parsed(p, "{\"spamThreshold\":0}", e);
    assert_string_equal(code_at(e, "/settings/spamThreshold"), "minimum");
    e = fs_error_validation(p);
    parsed(p, "{\"spamThreshold\":101}", e);
    assert_string_equal(code_at(e, "/settings/spamThreshold"), "maximum");
    e = fs_error_validation(p);
    parsed(p, "{\"spamThreshold\":\"50\"}", e);
    assert_string_equal(code_at(e, "/settings/spamThreshold"), "type");
    assert_int_equal(fs_spam_threshold(J(p, "{\"spamThreshold\":40}")), 40);
    assert_int_equal(fs_spam_threshold(J(p, "{}")), 0);
}

static void providers(void **state) {
    apr_pool_t *p = *state;
    const char *k = NULL;
    const fs_captcha_provider *pv =
        fs_captcha_of(J(p, "{\"captcha\":{\"provider\":\"recaptcha\",\"siteKey\":\"6Le\"}}"), &k);
    assert_non_null(pv);
    assert_string_equal(pv->token_name, "g-recaptcha-response");
    assert_string_equal(k, "6Le");
    assert_null(fs_captcha_of(J(p, "{}"), &k));
    assert_null(fs_captcha_provider_named("nope"));
    assert_true(fs_captcha_is_token_name("cf-turnstile-response"));
    assert_true(fs_captcha_is_token_name("h-captcha-response"));
    assert_false(fs_captcha_is_token_name("email"));
    /* the widget: the provider's element, script and fallback */
    char *w = fs_captcha_widget(p, fs_captcha_provider_named("turnstile"), "1x00", NULL);
    assert_non_null(strstr(w, "<div class=\"cf-turnstile\" data-sitekey=\"1x00\"></div>"));
    assert_non_null(strstr(w, "challenges.cloudflare.com/turnstile/v0/api.js"));
    assert_non_null(strstr(w, "<noscript><p class=\"desc\">captcha.needs_script</p></noscript>"));
    w = fs_captcha_widget(p, fs_captcha_provider_named("recaptcha"), "6Le", NULL);
    assert_non_null(strstr(w, "api/fallback?k=6Le\""));
    assert_non_null(strstr(w, "name=\"g-recaptcha-response\""));
    /* tokens */
    assert_true(fs_captcha_token_ok("XXXX.DUMMY.TOKEN.XXXX"));
    assert_false(fs_captcha_token_ok(NULL));
    assert_false(fs_captcha_token_ok(""));
    assert_false(fs_captcha_token_ok("a b"));
    char *big = apr_palloc(p, FS_CAPTCHA_TOKEN_MAX + 2);
    memset(big, 'a', FS_CAPTCHA_TOKEN_MAX + 1);
    big[FS_CAPTCHA_TOKEN_MAX + 1] = '\0';
    assert_false(fs_captcha_token_ok(big));
    big[FS_CAPTCHA_TOKEN_MAX] = '\0';
    assert_true(fs_captcha_token_ok(big));
}

static fs_captcha_outcome A(apr_pool_t *p, const char *body, const char **why) {
    return fs_captcha_answer(p, body, strlen(body), why);
}

static void answers(void **state) {
    apr_pool_t *p = *state;
    const char *why;
    assert_int_equal(A(p, "{\"success\":true,\"hostname\":\"x\"}", &why), FS_CAPTCHA_PASSED);
    assert_int_equal(A(p, "{\"success\":false,\"error-codes\":[\"invalid-input-response\"]}", &why),
                     FS_CAPTCHA_FAILED);
    assert_string_equal(why, "invalid-input-response");
    assert_int_equal(A(p, "{\"success\":false}", &why), FS_CAPTCHA_FAILED);
    assert_string_equal(why, "refused");
    assert_int_equal(A(p, "{\"success\":false,\"error-codes\":[\"a\\nb\",\"c\"]}", &why),
                     FS_CAPTCHA_FAILED);
    assert_string_equal(why, "a?b c");
    assert_int_equal(A(p, "{\"success\":\"true\"}", &why), FS_CAPTCHA_UNREACHED);
    assert_int_equal(A(p, "<html>", &why), FS_CAPTCHA_UNREACHED);
    assert_int_equal(A(p, "[true]", &why), FS_CAPTCHA_UNREACHED);
}

static int S(apr_pool_t *p, const char *answers, int hp, long secs) {
    return fs_spam_score(NULL, J(p, answers), hp, secs);
}

static void spam(void **state) {
    apr_pool_t *p = *state;
    assert_int_equal(S(p, "{\"a\":\"hello\",\"b\":\"world\",\"n\":3}", 0, -1), 0);
    assert_int_equal(S(p, "{}", 1, -1), 100);
    assert_int_equal(S(p, "{\"a\":\"see https://x.example\"}", 0, -1), 15);
    assert_int_equal(S(p, "{\"a\":\"http://x https://y\"}", 0, -1), 30);
    assert_int_equal(S(p, "{\"a\":\"http://x\",\"b\":[\"www.y\",\"WWW.z\"]}", 0, -1), 50);
    assert_int_equal(fs_spam_links("https://www.x.example"), 1); /* one link, not two */
    assert_int_equal(fs_spam_links("no links here"), 0);
    assert_int_equal(S(p, "{\"a\":\"same\",\"b\":\"same\"}", 0, -1), 25);
    assert_int_equal(S(p, "{\"a\":\"x\",\"b\":\"x\"}", 0, -1), 0); /* one letter is no repeat */
    assert_int_equal(S(p, "{\"a\":\"aaaaaaaa\"}", 0, -1), 15);
    assert_int_equal(S(p, "{\"a\":\"aaaaaaa\"}", 0, -1), 0);
    assert_int_equal(S(p, "{}", 0, 2), 50);
    assert_int_equal(S(p, "{}", 0, 5), 25);
    assert_int_equal(S(p, "{}", 0, 60), 0);
    assert_int_equal(S(p,
                       "{\"a\":\"http://x http://y http://z\",\"b\":\"http://x http://y http://z\","
                       "\"c\":\"zzzzzzzzz\"}",
                       0, 1),
                     100); /* capped */
    assert_int_equal(fs_spam_score(NULL, NULL, 0, -1), 0);
    /* with the form's fields: only text and textarea answers are read */
    fs_fieldset *fs = fs_fieldset_from_json(
        p,
        J(p, "[{\"key\":\"t\",\"type\":\"text\",\"label\":\"T\"},"
             "{\"key\":\"u\",\"type\":\"url\",\"label\":\"U\"},"
             "{\"key\":\"s1\",\"type\":\"select\",\"label\":\"S\",\"options\":[\"yes\",\"no\"]},"
             "{\"key\":\"s2\",\"type\":\"select\",\"label\":\"S\",\"options\":[\"yes\",\"no\"]}]"));
    assert_non_null(fs);
    assert_int_equal(
        fs_spam_score(fs, J(p, "{\"u\":\"https://x.example\",\"s1\":\"yes\",\"s2\":\"yes\"}"), 0,
                      -1),
        0);
    assert_int_equal(fs_spam_score(fs, J(p, "{\"t\":\"https://x.example\"}"), 0, -1), 15);
    assert_int_equal(fs_spam_score(fs, J(p, "{\"zz\":\"https://x.example\"}"), 0, -1), 0);
}

/* time to fill: the page's submission token says when it was made */
static void token_age(void **state) {
    apr_pool_t *p = *state;
    static const unsigned char pepper[20] = "0123456789abcdefghi";
    /* the token is made between before and now (seconds apart under
     * valgrind), so its age at now is between 0 and their difference */
    apr_int64_t before = apr_time_sec(apr_time_now());
    char *t = fs_idem_form_token(p, pepper, 20, "frm_A", "");
    apr_int64_t now = apr_time_sec(apr_time_now());
    assert_true(fs_idem_form_token_valid(pepper, 20, "frm_A", "", t));
    long a = fs_idem_form_token_age(t, now);
    assert_true(a >= 0 && a <= now - before);
    assert_int_equal(fs_idem_form_token_age(t, now + 5), a + 5);
    assert_int_equal(fs_idem_form_token_age(t, now - 10), -1); /* made in the future */
    assert_int_equal(fs_idem_form_token_age(t, now + FS_FORM_TOKEN_AGE_MAX + 2), -1);
    assert_int_equal(fs_idem_form_token_age(NULL, now), -1);
    assert_int_equal(fs_idem_form_token_age("fst_short", now), -1);
    char *bad = apr_pstrdup(p, t);
    bad[5] = '*';
    assert_int_equal(fs_idem_form_token_age(bad, now), -1);
    /* two tokens of the same second still differ */
    assert_string_not_equal(t, fs_idem_form_token(p, pepper, 20, "frm_A", ""));
}

static const struct CMUnitTest tests[] = {FS_TEST(settings), FS_TEST(providers), FS_TEST(answers),
                                          FS_TEST(spam), FS_TEST(token_age)};
FS_TEST_MAIN(tests)
