/* config_captcha: the directives of bot checks (settings.captcha): the
 * providers' secrets of a server or virtual host, where their siteverify
 * API is reached, how long a check may take and what a check that cannot
 * be made means. Kept apart from config.c; formsvc_srv holds a pointer to
 * this struct (captcha). Secrets never leave it: not logged, not in any
 * answer. */
#ifndef FORMSVC_CONFIG_CAPTCHA_H
#define FORMSVC_CONFIG_CAPTCHA_H

#include <httpd.h>
#include <http_config.h>

typedef struct formsvc_captcha_conf {
    /* provider name -> its secret (FormsvcCaptchaSecret); a virtual host's
     * entries over the main server's, provider by provider */
    apr_table_t *secrets;
    /* provider name -> siteverify URL (FormsvcCaptchaVerifyURL); none: the
     * provider's own (fs_captcha.h) */
    apr_table_t *verify_urls;
    int timeout_ms; /* FormsvcCaptchaTimeout, default 5 s */
    int fail_open;  /* FormsvcCaptchaFailOpen: a check that cannot be made lets the answers in */
    unsigned int timeout_set : 1, fail_open_set : 1;
} formsvc_captcha_conf;

formsvc_captcha_conf *formsvc_captcha_conf_create(apr_pool_t *p);
formsvc_captcha_conf *formsvc_captcha_conf_merge(apr_pool_t *p, const formsvc_captcha_conf *base,
                                                 const formsvc_captcha_conf *add);

/* The secret of provider on server s, or NULL when none is configured. */
const char *formsvc_captcha_secret(const server_rec *s, const char *provider);
/* Where provider's tokens are checked from server s: the directive's URL,
 * else dflt. */
const char *formsvc_captcha_verify_url(const server_rec *s, const char *provider, const char *dflt);

const char *formsvc_set_captcha_secret(cmd_parms *cmd, void *d, const char *prov,
                                       const char *secret);
const char *formsvc_set_captcha_url(cmd_parms *cmd, void *d, const char *prov, const char *url);
const char *formsvc_set_captcha_timeout(cmd_parms *cmd, void *d, const char *arg);
const char *formsvc_set_captcha_fail_open(cmd_parms *cmd, void *d, int on);

/* The directives of this file, spliced into formsvc_cmds in config.c. */
#define FORMSVC_CAPTCHA_CMDS                                                                       \
    AP_INIT_TAKE2("FormsvcCaptchaSecret", formsvc_set_captcha_secret, NULL, RSRC_CONF,             \
                  "FormsvcCaptchaSecret turnstile|hcaptcha|recaptcha <secret>|file:<path>: "       \
                  "the provider's secret for forms with settings.captcha served by this host"),    \
        AP_INIT_TAKE2("FormsvcCaptchaVerifyURL", formsvc_set_captcha_url, NULL, RSRC_CONF,         \
                      "FormsvcCaptchaVerifyURL turnstile|hcaptcha|recaptcha <http(s) URL>: "       \
                      "where tokens are checked instead of the provider's siteverify API"),        \
        AP_INIT_TAKE1("FormsvcCaptchaTimeout", formsvc_set_captcha_timeout, NULL, RSRC_CONF,       \
                      "Seconds a captcha check may take, 1 to 60 (default 5)"),                    \
        AP_INIT_FLAG("FormsvcCaptchaFailOpen", formsvc_set_captcha_fail_open, NULL, RSRC_CONF,     \
                     "On: a submission whose captcha cannot be checked (the provider does not "    \
                     "answer in time) is taken; Off: it is refused with 503 (default)")

#endif
