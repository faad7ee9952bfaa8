/* config: mod_formsvc's directives and their getters. Every directive
 * lives in formsvc_srv, one per server (main server and each virtual
 * host), made by formsvc_create_srv and merged by formsvc_merge_srv as
 * httpd's own modules do; the directive handlers are in runtime/config*.c.
 * Per-server settings are read with formsvc_conf(r->server); the
 * server-wide ones (directives allowed outside <VirtualHost> only) with
 * formsvc_global_conf() (config_global.h). Nothing else keeps a copy, so
 * a graceful restart gives every directive it no longer finds its
 * default. */
#ifndef FORMSVC_CONFIG_H
#define FORMSVC_CONFIG_H

#include <httpd.h>
#include <http_config.h>

#include "runtime/config_global.h"

extern module AP_MODULE_DECLARE_DATA formsvc_module;

/* Count quotas and rates of one tier. */
typedef struct formsvc_tier {
    int forms, fields, submissions_month, keys, clients, webhooks, requests_minute;
    int links;          /* respondent links per form (not deleted) */
    int notifications;  /* notification and confirmation mails per UTC day */
    int retention_days; /* days the account's submissions are kept at most; 0: no limit */
    int asks;           /* asks pending at once per account (POST /v1/asks) */
    int grants;         /* active OAuth grants (apps a person authorized) */
} formsvc_tier;

typedef struct formsvc_srv {
    int enabled;           /* Formsvc On|Off: whether this host serves our paths */
    const char *base_url;  /* absolute, no trailing slash; NULL: from request */
    const char *base_path; /* path part of base_url, "" for the root */
    const char *pepper_file;
    unsigned char *pepper; /* read with the directive; NULL: plain SHA-256 */
    apr_size_t pepper_len;
    const char *key_prefix, *client_prefix;
    apr_off_t max_body_api, max_body_submission;
    int token_lifetime;
    formsvc_tier tier[2]; /* 0 unverified, 1 verified */
    unsigned int base_url_set : 1, pepper_file_set : 1, key_prefix_set : 1, client_prefix_set : 1,
        max_body_api_set : 1, max_body_submission_set : 1, token_lifetime_set : 1, enabled_set : 1;
    /* base_url comes from the main server, not from this virtual host's
     * own FormsvcBaseURL: it is not used for a TLS request when it is http
     * (formsvc_base_url) */
    unsigned int base_url_inherited : 1;
    apr_uint32_t tls_warned;   /* per child: that case was logged once */
    unsigned int tier_set[2];  /* bit per quota: which were set */
    struct formsvc_acct *acct; /* rate limits, mail: config_accounts.h */
    /* the server-wide settings: the main server's, shared by every virtual
     * host (which cannot set them); config_global.h */
    formsvc_global *global;
    struct formsvc_captcha_conf *captcha; /* bot checks: config_captcha.h */
} formsvc_srv;

extern const command_rec formsvc_cmds[];
void *formsvc_create_srv(apr_pool_t *p, server_rec *s);
void *formsvc_merge_srv(apr_pool_t *p, void *base, void *add);

static inline formsvc_srv *formsvc_conf(const server_rec *s) {
    return ap_get_module_config(s->module_config, &formsvc_module);
}

/* The number of a directive allowed in the main server only (outside
 * <VirtualHost>): a whole number from lo to hi into *out (fs_int_parse);
 * NULL, or httpd's context message, or usage for anything else. */
const char *formsvc_set_global_int(cmd_parms *cmd, const char *arg, long lo, long hi, int *out,
                                   const char *usage);

/* Reads a secret file named by a directive (pepper, SMTP password) when the
 * directive is read; NULL, or a message saying what is wrong and what to do. */
const char *formsvc_read_secret_file(apr_pool_t *p, const char *directive, const char *path,
                                     apr_size_t min, apr_size_t max, const char *hint, char **buf,
                                     apr_size_t *len);

#endif
