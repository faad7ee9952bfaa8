/* config: directives, defaults, merging, and startup validation. */
#include "runtime/config.h"
#include "fs_secret.h"
#include "fs_util.h"
#include "runtime/config_accounts.h"
#include "runtime/config_captcha.h"
#include "runtime/config_check.h"
#include "runtime/log.h"

#include <apr_file_io.h>
#include <apr_lib.h>
#include <apr_strings.h>
#include <apr_uri.h>
#include <http_log.h>

APLOG_USE_MODULE(formsvc);

/* The default quotas of each tier (docs/configuration.md, "Default quotas"). */
static const formsvc_tier default_tier[2] = {
    {3, 20, 100, 5, 1, 0, 60, 100, 0, 0, 10, 0},
    {1000, 100, 100000, 100, 50, 20, 1200, 10000, 500, 0, 1000, 20},
};

void *formsvc_create_srv(apr_pool_t *p, server_rec *s) {
    (void)s;
    formsvc_srv *c = apr_pcalloc(p, sizeof(*c));
    c->enabled = 0; /* opt in: a host serves the service only with Formsvc On */
    c->base_path = "";
    c->key_prefix = "svc_live_";
    c->client_prefix = "svcc_";
    c->max_body_api = 1024 * 1024;
    c->max_body_submission = 64 * 1024;
    c->token_lifetime = 3600;
    c->tier[0] = default_tier[0];
    c->tier[1] = default_tier[1];
    c->acct = formsvc_acct_create(p);
    c->global = formsvc_global_create(p);
    c->captcha = formsvc_captcha_conf_create(p);
    return c;
}

#define MERGE(f)                                                                                   \
    c->f = add->f##_set ? add->f : base->f;                                                        \
    c->f##_set = add->f##_set | base->f##_set

void *formsvc_merge_srv(apr_pool_t *p, void *basev, void *addv) {
    formsvc_srv *base = basev, *add = addv, *c = apr_pcalloc(p, sizeof(*c));
    MERGE(enabled);
    MERGE(base_url);
    c->base_path = add->base_url_set ? add->base_path : base->base_path;
    c->base_url_inherited = !add->base_url_set && base->base_url_set;
    MERGE(pepper_file);
    c->pepper = add->pepper_file_set ? add->pepper : base->pepper;
    c->pepper_len = add->pepper_file_set ? add->pepper_len : base->pepper_len;
    MERGE(key_prefix);
    MERGE(client_prefix);
    MERGE(max_body_api);
    MERGE(max_body_submission);
    MERGE(token_lifetime);
    c->acct = formsvc_acct_merge(p, base->acct, add->acct);
    c->captcha = formsvc_captcha_conf_merge(p, base->captcha, add->captcha);
    /* GLOBAL_ONLY directives: a virtual host (add) never sets them, it has
     * the main server's (base) */
    c->global = base->global;
    for (int t = 0; t < 2; t++) {
        int *ct = (int *)&c->tier[t], *bt = (int *)&base->tier[t], *at = (int *)&add->tier[t];
        for (unsigned i = 0; i < sizeof(formsvc_tier) / sizeof(int); i++)
            ct[i] = (add->tier_set[t] & (1u << i)) ? at[i] : bt[i];
        c->tier_set[t] = add->tier_set[t] | base->tier_set[t];
    }
    return c;
}

static formsvc_srv *srv(cmd_parms *cmd) {
    return formsvc_conf(cmd->server);
}

static const char *set_base_url(cmd_parms *cmd, void *d, const char *arg) {
    (void)d;
    apr_uri_t u;
    if (apr_uri_parse(cmd->pool, arg, &u) != APR_SUCCESS || !u.scheme || !u.hostname ||
        (strcmp(u.scheme, "http") && strcmp(u.scheme, "https")) || u.query || u.fragment)
        return "FormsvcBaseURL must be an absolute http(s) URL such as "
               "https://forms.example.com or https://example.com/forms";
    const char *why = formsvc_base_url_why(cmd->pool, arg, &u);
    if (why)
        return apr_pstrcat(cmd->pool, "FormsvcBaseURL ", arg, ": ", why, NULL);
    formsvc_srv *c = srv(cmd);
    char *b = apr_pstrdup(cmd->pool, arg);
    apr_size_t n = strlen(b);
    while (n > 0 && b[n - 1] == '/')
        b[--n] = '\0';
    c->base_url = b;
    char *path = apr_pstrdup(cmd->pool, u.path ? u.path : "");
    n = strlen(path);
    while (n > 0 && path[n - 1] == '/')
        path[--n] = '\0';
    c->base_path = path;
    c->base_url_set = 1;
    return NULL;
}

const char *formsvc_set_global_int(cmd_parms *cmd, const char *arg, long lo, long hi, int *out,
                                   const char *usage) {
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);
    if (err)
        return err;
    return fs_int_parse(arg, lo, hi, out) ? NULL : usage;
}

static const char *set_enabled(cmd_parms *cmd, void *d, int on) {
    (void)d;
    srv(cmd)->enabled = on;
    srv(cmd)->enabled_set = 1;
    return NULL;
}

static const char *set_prefix(cmd_parms *cmd, void *d, const char *arg) {
    (void)d;
    apr_size_t n = strlen(arg);
    if (n < 2 || n > 12)
        return apr_psprintf(cmd->pool, "%s takes 2 to 12 characters", cmd->cmd->name);
    for (const char *q = arg; *q; q++)
        if (!apr_isalnum(*q) && *q != '_')
            return apr_psprintf(cmd->pool, "%s takes letters, digits and '_' only", cmd->cmd->name);
    formsvc_srv *c = srv(cmd);
    if (cmd->info == (void *)0) {
        c->key_prefix = arg;
        c->key_prefix_set = 1;
    } else {
        c->client_prefix = arg;
        c->client_prefix_set = 1;
    }
    return NULL;
}

/* Reads a small secret file whole into memory of pool p (*len bytes, NUL
 * added after them). Runs when the directive is read, so `apachectl
 * configtest` fails on a missing or wrong-sized file instead of a later
 * graceful restart taking the server down. hint says how to fix it. */
const char *formsvc_read_secret_file(apr_pool_t *p, const char *directive, const char *path,
                                     apr_size_t min, apr_size_t max, const char *hint, char **buf,
                                     apr_size_t *len) {
    apr_file_t *f;
    apr_finfo_t fi;
    char err[120];
    apr_status_t rv = apr_file_open(&f, path, APR_READ | APR_BINARY, 0, p);
    if (rv == APR_SUCCESS)
        rv = apr_file_info_get(&fi, APR_FINFO_SIZE | APR_FINFO_TYPE, f);
    if (rv != APR_SUCCESS)
        return apr_psprintf(p, "%s %s cannot be read (%s): %s", directive, path,
                            apr_strerror(rv, err, sizeof err), hint);
    if (fi.filetype != APR_REG) {
        apr_file_close(f);
        return apr_psprintf(p, "%s %s is not a regular file: %s", directive, path, hint);
    }
    if ((apr_size_t)fi.size < min || (apr_size_t)fi.size > max) {
        apr_file_close(f);
        return apr_psprintf(p, "%s %s must hold %lu to %lu bytes, it has %ld: %s", directive, path,
                            (unsigned long)min, (unsigned long)max, (long)fi.size, hint);
    }
    *buf = apr_palloc(p, (apr_size_t)fi.size + 1);
    *len = (apr_size_t)fi.size;
    rv = apr_file_read_full(f, *buf, *len, len);
    apr_file_close(f);
    if (rv != APR_SUCCESS)
        return apr_psprintf(p, "%s %s cannot be read (%s): %s", directive, path,
                            apr_strerror(rv, err, sizeof err), hint);
    (*buf)[*len] = '\0';
    return NULL;
}

static const char *set_pepper(cmd_parms *cmd, void *d, const char *arg) {
    (void)d;
    formsvc_srv *c = srv(cmd);
    c->pepper_file = ap_server_root_relative(cmd->pool, arg);
    if (!c->pepper_file)
        return "FormsvcSecretPepperFile: bad path";
    apr_size_t len;
    char *buf;
    const char *err = formsvc_read_secret_file(
        cmd->pool, "FormsvcSecretPepperFile", c->pepper_file, 16, 4096,
        apr_psprintf(cmd->pool,
                     "make one with `head -c 32 /dev/urandom > %s && chmod 600 %s` (keep it: "
                     "every stored key hash depends on it)",
                     c->pepper_file, c->pepper_file),
        &buf, &len);
    if (err)
        return err;
    c->pepper = (unsigned char *)buf;
    c->pepper_len = len;
    c->pepper_file_set = 1;
    return NULL;
}

static const char *set_size(cmd_parms *cmd, void *d, const char *arg) {
    (void)d;
    char *end;
    apr_int64_t v = apr_strtoi64(arg, &end, 10);
    if (*end || v < 1024 || v > 1024LL * 1024 * 1024)
        return apr_psprintf(cmd->pool, "%s takes a byte count from 1024 to 1073741824",
                            cmd->cmd->name);
    formsvc_srv *c = srv(cmd);
    if (cmd->info == (void *)0) {
        c->max_body_api = v;
        c->max_body_api_set = 1;
    } else {
        c->max_body_submission = v;
        c->max_body_submission_set = 1;
    }
    return NULL;
}

static const char *set_token_lifetime(cmd_parms *cmd, void *d, const char *arg) {
    (void)d;
    if (!fs_int_parse(arg, 60, 86400, &srv(cmd)->token_lifetime))
        return "FormsvcTokenLifetime takes seconds from 60 to 86400";
    srv(cmd)->token_lifetime_set = 1;
    return NULL;
}

/* FormsvcQuota unverified|verified
 *     forms|fields|submissions|keys|clients|webhooks|requests|links|notifications|retentionDays|asks|grants
 * N (retentionDays: 0 is no limit, up to 3650) */
static const char *set_quota(cmd_parms *cmd, void *d, const char *tier, const char *what,
                             const char *num) {
    (void)d;
    static const char *const names[] = {"forms",         "fields",        "submissions", "keys",
                                        "clients",       "webhooks",      "requests",    "links",
                                        "notifications", "retentionDays", "asks",        "grants"};
    int t = !strcasecmp(tier, "unverified") ? 0 : !strcasecmp(tier, "verified") ? 1 : -1;
    if (t < 0)
        return "FormsvcQuota: the first argument is unverified or verified";
    int idx = -1;
    for (int i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++)
        if (!strcasecmp(what, names[i]))
            idx = i;
    if (idx < 0)
        return "FormsvcQuota: the second argument is one of forms, fields, submissions, "
               "keys, clients, webhooks, requests, links, notifications, retentionDays, asks, "
               "grants";
    int v;
    if (!fs_int_parse(num, 0, 100000000, &v))
        return "FormsvcQuota: the third argument is a count from 0 to 100000000";
    if (!strcasecmp(what, "retentionDays") && v > 3650)
        return "FormsvcQuota: retentionDays takes days from 0 (no limit) to 3650";
    formsvc_srv *c = srv(cmd);
    ((int *)&c->tier[t])[idx] = v;
    c->tier_set[t] |= 1u << idx;
    return NULL;
}

const command_rec formsvc_cmds[] = {
    AP_INIT_FLAG("Formsvc", set_enabled, NULL, RSRC_CONF,
                 "On: this server or virtual host serves the service under its base path "
                 "(inherited by virtual hosts); Off: it does not (default)"),
    AP_INIT_TAKE1("FormsvcBaseURL", set_base_url, NULL, RSRC_CONF,
                  "Absolute URL the service is reached at, optionally with a path "
                  "prefix (https://example.com/forms)"),
    AP_INIT_TAKE1("FormsvcSecretPepperFile", set_pepper, NULL, RSRC_CONF,
                  "File whose bytes key the HMAC-SHA-256 of every stored secret"),
    AP_INIT_TAKE1("FormsvcKeyPrefix", set_prefix, (void *)0, RSRC_CONF,
                  "Prefix of API keys and access tokens (default svc_live_)"),
    AP_INIT_TAKE1("FormsvcClientSecretPrefix", set_prefix, (void *)1, RSRC_CONF,
                  "Prefix of OAuth client secrets (default svcc_)"),
    AP_INIT_TAKE1("FormsvcMaxBodyAPI", set_size, (void *)0, RSRC_CONF,
                  "Largest /v1 request body in bytes (default 1048576)"),
    AP_INIT_TAKE1("FormsvcMaxBodySubmission", set_size, (void *)1, RSRC_CONF,
                  "Largest public submission body in bytes (default 65536)"),
    AP_INIT_TAKE1("FormsvcTokenLifetime", set_token_lifetime, NULL, RSRC_CONF,
                  "Lifetime of client_credentials access tokens in seconds (default 3600)"),
    AP_INIT_TAKE3("FormsvcQuota", set_quota, NULL, RSRC_CONF,
                  "FormsvcQuota unverified|verified forms|fields|submissions|keys|clients|"
                  "webhooks|requests|links|notifications|retentionDays|asks|grants <count>"),
    FORMSVC_ACCOUNT_CMDS,
    FORMSVC_GLOBAL_CMDS,
    FORMSVC_CAPTCHA_CMDS,
    {NULL}};
