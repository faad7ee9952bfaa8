/* fs_captcha: the bot checks a form may ask for (settings.captcha): the
 * providers (Cloudflare Turnstile, hCaptcha, Google reCAPTCHA v2), what a
 * page needs to show a provider's widget (its script, the sources its
 * Content-Security-Policy must allow, its noscript fallback), the settings
 * members captcha and spamThreshold, and the server-side check of a token
 * against the provider's siteverify API (libcurl). Plain C over APR; the
 * check blocks for at most its timeout and is made by the glue with no
 * database connection held. */
#ifndef FS_CAPTCHA_H
#define FS_CAPTCHA_H

#include <apr_pools.h>
#include <json.h>

#include "fs_error.h"
#include "fs_locale.h"

/* settings.captcha.siteKey: 1..200 of [A-Za-z0-9_-] */
#define FS_CAPTCHA_SITE_KEY_MAX 200
/* A token longer than this is refused without asking the provider. */
#define FS_CAPTCHA_TOKEN_MAX 8192
/* The JSON body that answers a submission to a form with a captcha
 * carries its token in this request header (an HTML form post carries it
 * in the provider's own input, fs_captcha_provider.token_name). */
#define FS_CAPTCHA_HEADER "Formsvc-Captcha-Token"

typedef struct fs_captcha_provider {
    const char *name;       /* settings.captcha.provider */
    const char *token_name; /* the input the provider's widget fills in the form */
    const char *script;     /* the provider's script (https URL) */
    const char *css_class;  /* of the element the script turns into the widget */
    const char *verify_url; /* its siteverify API */
    /* the Content-Security-Policy sources the widget needs, each a list
     * of sources separated by spaces; "" for none */
    const char *script_src, *frame_src, *connect_src, *style_src;
    int noscript; /* 1: the provider has a fallback without script (reCAPTCHA) */
} fs_captcha_provider;

/* The provider called name, or NULL. */
const fs_captcha_provider *fs_captcha_provider_named(const char *name);
/* The provider of settings (normalised by fs_settings_parse) and its site
 * key in *site_key; NULL when the form asks for no captcha. */
const fs_captcha_provider *fs_captcha_of(json_object *settings, const char **site_key);
/* 1 when name is the token input of any provider: such a pair of an HTML
 * post is never an answer (fs_coerce leaves it out). */
int fs_captcha_is_token_name(const char *name);

/* settings.captcha ({provider, siteKey}, or null) and settings.spamThreshold
 * (1..100, or null) of s, added to out when set; errors to verr under ptr. */
void fs_captcha_settings_parse(apr_pool_t *p, json_object *s, const char *ptr, json_object *out,
                               fs_error *verr);
/* settings.spamThreshold, or 0 when there is none. */
int fs_spam_threshold(json_object *settings);

/* The widget's HTML for the form page (in p): the element the provider's
 * script fills, the script, and without script the provider's fallback
 * (reCAPTCHA) or the locale's "captcha.needs_script"; texts escaped here. */
char *fs_captcha_widget(apr_pool_t *p, const fs_captcha_provider *pv, const char *site_key,
                        const fs_locale *loc);

/* A token as posted: 1 when it is 1..FS_CAPTCHA_TOKEN_MAX printable ASCII
 * characters without spaces. */
int fs_captcha_token_ok(const char *token);

typedef enum fs_captcha_outcome {
    FS_CAPTCHA_PASSED,    /* the provider said success: true */
    FS_CAPTCHA_FAILED,    /* the provider said success: false (why: its error codes) */
    FS_CAPTCHA_UNREACHED, /* no answer in time, not 200, or not its JSON (why says which) */
} fs_captcha_outcome;

/* The outcome a siteverify answer states: FS_CAPTCHA_PASSED for a JSON
 * object with "success": true, FS_CAPTCHA_FAILED with false (*why: its
 * "error-codes" joined, or "refused"), FS_CAPTCHA_UNREACHED for anything
 * else. */
fs_captcha_outcome fs_captcha_answer(apr_pool_t *p, const char *body, apr_size_t len,
                                     const char **why);

/* Asks url (the provider's siteverify, or the FormsvcCaptchaVerifyURL
 * override) whether token is good: a form-encoded POST of secret, response
 * and remoteip (NULL: not sent), answered within timeout_ms. *why says
 * what went wrong (never the secret or the token). Blocks the caller. */
fs_captcha_outcome fs_captcha_verify(apr_pool_t *p, const char *url, const char *secret,
                                     const char *token, const char *remote_ip, long timeout_ms,
                                     const char **why);

#endif
