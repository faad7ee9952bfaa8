/* config_captcha: the directives of bot checks (config_captcha.h).
 * Memory: the struct and its tables are in the configuration pool. */
#include "runtime/config_captcha.h"
#include "fs_captcha.h"
#include "fs_util.h"
#include "runtime/config.h"
#include "runtime/config_check.h"

#include <apr_strings.h>
#include <apr_uri.h>

formsvc_captcha_conf *formsvc_captcha_conf_create(apr_pool_t *p) {
    formsvc_captcha_conf *c = apr_pcalloc(p, sizeof(*c));
    c->secrets = apr_table_make(p, 3);
    c->verify_urls = apr_table_make(p, 3);
    c->timeout_ms = 5000;
    return c;
}

formsvc_captcha_conf *formsvc_captcha_conf_merge(apr_pool_t *p, const formsvc_captcha_conf *base,
                                                 const formsvc_captcha_conf *add) {
    formsvc_captcha_conf *c = apr_pcalloc(p, sizeof(*c));
    c->secrets = apr_table_overlay(p, add->secrets, base->secrets);
    c->verify_urls = apr_table_overlay(p, add->verify_urls, base->verify_urls);
    c->timeout_ms = add->timeout_set ? add->timeout_ms : base->timeout_ms;
    c->timeout_set = add->timeout_set | base->timeout_set;
    c->fail_open = add->fail_open_set ? add->fail_open : base->fail_open;
    c->fail_open_set = add->fail_open_set | base->fail_open_set;
    return c;
}

/* apr_table_get gives the first entry: overlay put the virtual host's first */
const char *formsvc_captcha_secret(const server_rec *s, const char *provider) {
    return apr_table_get(formsvc_conf(s)->captcha->secrets, provider);
}

const char *formsvc_captcha_verify_url(const server_rec *s, const char *provider,
                                       const char *dflt) {
    const char *u = apr_table_get(formsvc_conf(s)->captcha->verify_urls, provider);
    return u ? u : dflt;
}

static formsvc_captcha_conf *conf_of(cmd_parms *cmd) {
    return formsvc_conf(cmd->server)->captcha;
}

static const char *provider_check(cmd_parms *cmd, const char *prov) {
    return fs_captcha_provider_named(prov)
               ? NULL
               : apr_psprintf(cmd->pool, "%s: the provider is turnstile, hcaptcha or recaptcha",
                              cmd->cmd->name);
}

const char *formsvc_set_captcha_secret(cmd_parms *cmd, void *d, const char *prov,
                                       const char *secret) {
    (void)d;
    const char *err = provider_check(cmd, prov);
    if (err)
        return err;
    if (!strncmp(secret, "file:", 5)) { /* read now, so configtest sees a missing file */
        const char *path = ap_server_root_relative(cmd->pool, secret + 5);
        char *buf;
        apr_size_t n;
        if (!path)
            return "FormsvcCaptchaSecret: bad path";
        err = formsvc_read_secret_file(cmd->pool, "FormsvcCaptchaSecret", path, 1, 1024,
                                       "write the provider's secret into it, readable by root "
                                       "only (chmod 600)",
                                       &buf, &n);
        if (err)
            return err;
        while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
            buf[--n] = '\0'; /* a trailing line break is not part of it */
        secret = buf;
    }
    if (!*secret || strlen(secret) > 1024)
        return "FormsvcCaptchaSecret: the secret is 1 to 1024 characters";
    apr_table_setn(conf_of(cmd)->secrets, prov, secret);
    return NULL;
}

const char *formsvc_set_captcha_url(cmd_parms *cmd, void *d, const char *prov, const char *url) {
    (void)d;
    const char *err = provider_check(cmd, prov);
    if (err)
        return err;
    apr_uri_t u;
    /* a host, and nothing libcurl would refuse at the first check (a
     * space, a control character): configtest says so, not a 503 later */
    for (const char *c = url; *c; c++)
        if ((unsigned char)*c <= 0x20 || *c == 0x7f)
            return "FormsvcCaptchaVerifyURL takes an absolute http(s) URL (no space in it)";
    if (apr_uri_parse(cmd->pool, url, &u) != APR_SUCCESS || !u.scheme || !u.hostname ||
        !*u.hostname || (strcmp(u.scheme, "http") && strcmp(u.scheme, "https")))
        return "FormsvcCaptchaVerifyURL takes an absolute http(s) URL";
    const char *why = formsvc_url_host_why(cmd->pool, url, &u);
    if (why)
        return apr_pstrcat(cmd->pool, "FormsvcCaptchaVerifyURL ", url, ": ", why, NULL);
    apr_table_setn(conf_of(cmd)->verify_urls, prov, url);
    return NULL;
}

const char *formsvc_set_captcha_timeout(cmd_parms *cmd, void *d, const char *arg) {
    (void)d;
    int n;
    if (!fs_int_parse(arg, 1, 60, &n))
        return "FormsvcCaptchaTimeout takes a number of seconds from 1 to 60";
    conf_of(cmd)->timeout_ms = n * 1000;
    conf_of(cmd)->timeout_set = 1;
    return NULL;
}

const char *formsvc_set_captcha_fail_open(cmd_parms *cmd, void *d, int on) {
    (void)d;
    conf_of(cmd)->fail_open = on;
    conf_of(cmd)->fail_open_set = 1;
    return NULL;
}
