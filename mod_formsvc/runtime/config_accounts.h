/* config_accounts: directives of rate limits, the shared rate-limit store,
 * mail transport and verification. Kept apart from config.c; formsvc_srv
 * holds a pointer to this struct (acct). */
#ifndef FORMSVC_CONFIG_ACCOUNTS_H
#define FORMSVC_CONFIG_ACCOUNTS_H

#include <httpd.h>
#include <http_config.h>

#include "runtime/ratelimit_store.h"

/* Per-client-address limits (the per-account API limit is the tier's
 * "requests" quota, FormsvcQuota ... requests N, per minute). */
enum {
    FORMSVC_RL_SIGNUP,
    FORMSVC_RL_TOKEN,
    FORMSVC_RL_RECOVER,
    FORMSVC_RL_SUBMIT,
    FORMSVC_RL_REGISTER,
    FORMSVC_RL_N
};

typedef struct formsvc_rl_rule {
    int limit;  /* hits per window; -1: no limit */
    int window; /* seconds */
} formsvc_rl_rule;

enum { FORMSVC_MAIL_FILE, FORMSVC_MAIL_SENDMAIL, FORMSVC_MAIL_SMTP };

typedef struct formsvc_acct {
    formsvc_rl_rule rule[FORMSVC_RL_N];
    const formsvc_rl_store *store; /* FormsvcRateLimitStore (ratelimit_store.h) */
    const char *store_arg;         /* its argument (memcache: host:port); NULL: none */
    int slots;                     /* shared-memory counters (local store) */
    int mail;                      /* FORMSVC_MAIL_* */
    const char *mail_target;       /* directory, command, or smtp(s):// URL */
    const char *mail_from;
    const char *smtp_user, *smtp_password_file;
    const char *smtp_password;     /* read with its directive from smtp_password_file */
    int resend_interval;           /* seconds between two verification mails */
    int mails_per_day;             /* account mails per account and per address, 24 h */
    int confirmations_per_address; /* unasked mails per address per UTC day */
    unsigned rule_set;             /* bit per rule */
    unsigned int store_set : 1, slots_set : 1, mail_set : 1, mail_from_set : 1, smtp_user_set : 1,
        smtp_password_file_set : 1, resend_interval_set : 1, mails_per_day_set : 1,
        confirmations_per_address_set : 1;
} formsvc_acct;

extern const char *const formsvc_rl_names[FORMSVC_RL_N];

formsvc_acct *formsvc_acct_create(apr_pool_t *p);
formsvc_acct *formsvc_acct_merge(apr_pool_t *p, const formsvc_acct *base, const formsvc_acct *add);

const char *formsvc_set_rate_limit(cmd_parms *cmd, void *d, const char *args);
const char *formsvc_set_rl_store(cmd_parms *cmd, void *d, const char *kind, const char *arg);
const char *formsvc_set_rl_slots(cmd_parms *cmd, void *d, const char *arg);
const char *formsvc_set_mail(cmd_parms *cmd, void *d, const char *kind, const char *arg);
const char *formsvc_set_acct_str(cmd_parms *cmd, void *d, const char *arg);
const char *formsvc_set_resend(cmd_parms *cmd, void *d, const char *arg);
const char *formsvc_set_mails_per_day(cmd_parms *cmd, void *d, const char *arg);
const char *formsvc_set_confirmations(cmd_parms *cmd, void *d, const char *arg);

/* The directives of this file, spliced into formsvc_cmds in config.c. */
#define FORMSVC_ACCOUNT_CMDS                                                                       \
    AP_INIT_RAW_ARGS("FormsvcRateLimit", formsvc_set_rate_limit, NULL, RSRC_CONF,                  \
                     "FormsvcRateLimit signup|token|recover|submit|register <count>|off "          \
                     "[<seconds>]: hits per client address per window"),                           \
        AP_INIT_TAKE12("FormsvcRateLimitStore", formsvc_set_rl_store, NULL, RSRC_CONF,             \
                       "Where rate-limit counters live: local (shared memory of this "             \
                       "machine, kept across graceful restarts), pgsql (the DBD database, "        \
                       "shared by every machine), or memcache host:port"),                         \
        AP_INIT_TAKE1("FormsvcRateLimitSlots", formsvc_set_rl_slots, NULL, RSRC_CONF,              \
                      "Counters in the local shared-memory table (default 65536)"),                \
        AP_INIT_TAKE2("FormsvcMailTransport", formsvc_set_mail, NULL, RSRC_CONF,                   \
                      "file <directory> | sendmail <command> | smtp <smtp://host:port or "         \
                      "smtps://...>"),                                                             \
        AP_INIT_TAKE1("FormsvcMailFrom", formsvc_set_acct_str, (void *)0, RSRC_CONF,               \
                      "From address of the mail the service sends"),                               \
        AP_INIT_TAKE1("FormsvcMailSMTPUser", formsvc_set_acct_str, (void *)1, RSRC_CONF,           \
                      "SMTP AUTH user name"),                                                      \
        AP_INIT_TAKE1("FormsvcMailSMTPPasswordFile", formsvc_set_acct_str, (void *)2, RSRC_CONF,   \
                      "File holding the SMTP AUTH password"),                                      \
        AP_INIT_TAKE1("FormsvcVerifyResendInterval", formsvc_set_resend, NULL, RSRC_CONF,          \
                      "Seconds before another verification mail may be sent (default 60)"),        \
        AP_INIT_TAKE1("FormsvcAccountMailsPerDay", formsvc_set_mails_per_day, NULL, RSRC_CONF,     \
                      "Verification and recovery mails per account and per address in any "        \
                      "24 hours (default 5)"),                                                     \
        AP_INIT_TAKE1("FormsvcConfirmationMailsPerAddress", formsvc_set_confirmations, NULL,       \
                      RSRC_CONF,                                                                   \
                      "Mails one address receives per UTC day without having agreed to them "      \
                      "(respondent copies, requests to confirm notifications), from every form "   \
                      "and account together (default 3)")

#endif
