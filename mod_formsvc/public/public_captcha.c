/* public_captcha: the bot checks of a public submission (public_post.h):
 * the captcha token checked with its provider when the form asks for one
 * (settings.captcha), and the submission's spamScore, which flags it as
 * spam at or above settings.spamThreshold. The provider is asked with no
 * pooled database connection held (formsvc_db_release), within
 * FormsvcCaptchaTimeout; FormsvcCaptchaFailOpen says what a check that
 * cannot be made means. A passed check is remembered in the post, so a
 * submission resolved again is not checked twice (a provider takes a
 * token once). The secret is never logged. Memory: r->pool. */
#include "fs_captcha.h"
#include "fs_idempotency.h"
#include "fs_spam.h"
#include "fs_urlencoded.h"
#include "http/i18n.h"
#include "public/public_post.h"
#include "runtime/config_captcha.h"

#include <apr_strings.h>
#include <apr_time.h>

APLOG_USE_MODULE(formsvc);

/* The token the request carries for provider pv: the JSON body's in the
 * FS_CAPTCHA_HEADER header, an HTML post's in the widget's input. */
static const char *token_of(request_rec *r, const post *s, const fs_captcha_provider *pv) {
    if (s->kind == BODY_JSON)
        return apr_table_get(r->headers_in, FS_CAPTCHA_HEADER);
    for (int i = 0; s->pairs && i < s->pairs->nelts; i++) {
        const fs_pair *pr = &APR_ARRAY_IDX(s->pairs, i, fs_pair);
        if (!strcmp(pr->name, pv->token_name))
            return pr->value;
    }
    return NULL;
}

static int failed(request_rec *r, post *s, const responder *out) {
    fs_error *e = fs_error_make(r->pool, "captcha-failed",
                                "The form's bot check (captcha) was not passed: send the answers "
                                "again with a new token.");
    return out->later(r, s, e, fs_tr(formsvc_pub_locale(r, &s->pb), "captcha.failed"));
}

static int unavailable(request_rec *r, post *s, const responder *out) {
    fs_error *e =
        fs_error_make(r->pool, "service-unavailable",
                      "The form's bot check (captcha) cannot be made at the moment; nothing was "
                      "stored. Send the answers again in a minute.");
    e->retry_after = 5;
    return out->later(r, s, e, fs_tr(formsvc_pub_locale(r, &s->pb), "captcha.unavailable"));
}

static int check_captcha(request_rec *r, post *s, const responder *out, int *rc) {
    const char *site_key;
    const fs_captcha_provider *pv = fs_captcha_of(s->pb.settings, &site_key);
    if (!pv || s->captcha_passed)
        return 0;
    const char *secret = formsvc_captcha_secret(r->server, pv->name);
    if (!secret) {
        FORMSVC_LOG(r, APLOG_ERR, 00420,
                    "captcha: form %s asks for %s but this host has no FormsvcCaptchaSecret for "
                    "it; its submissions are refused with 503",
                    s->pb.f.id, pv->name);
        *rc = unavailable(r, s, out);
        return 1;
    }
    const char *token = token_of(r, s, pv);
    if (!fs_captcha_token_ok(token)) {
        FORMSVC_LOG(r, APLOG_INFO, 00421, "captcha: form %s: no %s token in the submission",
                    s->pb.f.id, pv->name);
        *rc = failed(r, s, out);
        return 1;
    }
    formsvc_db_release(r); /* nothing held while the provider answers */
    const char *why = NULL;
    formsvc_captcha_conf *cc = formsvc_conf(r->server)->captcha;
    fs_captcha_outcome o =
        fs_captcha_verify(r->pool, formsvc_captcha_verify_url(r->server, pv->name, pv->verify_url),
                          secret, token, r->useragent_ip, cc->timeout_ms, &why);
    if (o == FS_CAPTCHA_PASSED) {
        s->captcha_passed = 1;
        return 0;
    }
    if (o == FS_CAPTCHA_FAILED) {
        FORMSVC_LOG(r, APLOG_INFO, 00422, "captcha: form %s: %s refused the token: %s", s->pb.f.id,
                    pv->name, why);
        *rc = failed(r, s, out);
        return 1;
    }
    /* an edit after sending is never taken unchecked: captchaUnchecked is
     * the first answers' flag, and an edit cannot say it (public_edit.c) */
    int open = cc->fail_open && !formsvc_edit_asked(r);
    FORMSVC_LOG(r, APLOG_WARNING, 00423,
                "captcha: form %s: the check with %s could not be made (%s); %s", s->pb.f.id,
                pv->name, why ? why : "no answer",
                open ? "taken unchecked (FormsvcCaptchaFailOpen On)" : "refused with 503");
    if (open) {
        s->captcha_passed = 1;
        s->captcha_unchecked = 1; /* said on the submission (sql/0068) */
        return 0;
    }
    *rc = unavailable(r, s, out);
    return 1;
}

int formsvc_post_bots(request_rec *r, post *s, const responder *out, int *rc) {
    if (check_captcha(r, s, out, rc))
        return 1;
    /* time to fill: from the page's submission token (an HTML post); not
     * for an edit, whose page comes filled in (public_edit.c) */
    long fill = s->pb.token && !formsvc_edit_asked(r)
                    ? fs_idem_form_token_age(s->pb.token, apr_time_sec(apr_time_now()))
                    : -1;
    s->spam_score = fs_spam_score(s->pb.fs, s->obj, s->spam, fill);
    int th = fs_spam_threshold(s->pb.settings);
    if (th && s->spam_score >= th)
        s->spam = 1; /* stored flagged: left out of lists, counts and mail */
    return 0;
}
