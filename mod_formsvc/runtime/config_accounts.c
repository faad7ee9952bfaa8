/* config_accounts: rate-limit, shared-store and mail directives. */
#include "runtime/config_accounts.h"
#include "fs_mail.h"
#include "fs_util.h"
#include "runtime/config.h"
#include "runtime/config_check.h"

#include <apr_file_info.h>
#include <apr_network_io.h>
#include <apr_strings.h>
#include <http_core.h>
#include <unistd.h>

const char *const formsvc_rl_names[FORMSVC_RL_N] = {"signup", "token", "recover", "submit",
                                                    "register"};

/* Defaults: the product specification's figures where it gives one
 * (signup 10 an hour, submissions 30 a minute), our choice elsewhere; all
 * listed in docs/configuration-limits.md. */
static const formsvc_rl_rule default_rules[FORMSVC_RL_N] = {
    {10, 3600}, /* signup */
    {30, 60},   /* token */
    {10, 3600}, /* recover */
    {30, 60},   /* submit (per address per form) */
    {10, 3600}, /* register (OAuth dynamic client registration) */
};

formsvc_acct *formsvc_acct_create(apr_pool_t *p) {
    formsvc_acct *a = apr_pcalloc(p, sizeof(*a));
    memcpy(a->rule, default_rules, sizeof(default_rules));
    a->store = &formsvc_rl_store_local;
    a->slots = 65536;
    a->mail = FORMSVC_MAIL_FILE;
    a->mail_target = NULL; /* default: files in /var/spool/formsvc/mail (mail.c) */
    a->mail_from = "formsvc <no-reply@localhost>";
    a->resend_interval = 60;
    a->mails_per_day = 5;
    a->confirmations_per_address = 3;
    return a;
}

#define AMERGE(f)                                                                                  \
    c->f = add->f##_set ? add->f : base->f;                                                        \
    c->f##_set = add->f##_set | base->f##_set

formsvc_acct *formsvc_acct_merge(apr_pool_t *p, const formsvc_acct *base, const formsvc_acct *add) {
    formsvc_acct *c = apr_pcalloc(p, sizeof(*c));
    for (int i = 0; i < FORMSVC_RL_N; i++)
        c->rule[i] = (add->rule_set & (1u << i)) ? add->rule[i] : base->rule[i];
    c->rule_set = add->rule_set | base->rule_set;
    AMERGE(store);
    c->store_arg = add->store_set ? add->store_arg : base->store_arg;
    AMERGE(slots);
    AMERGE(mail);
    c->mail_target = add->mail_set ? add->mail_target : base->mail_target;
    AMERGE(mail_from);
    AMERGE(smtp_user);
    AMERGE(smtp_password_file);
    c->smtp_password = add->smtp_password_file_set ? add->smtp_password : base->smtp_password;
    AMERGE(resend_interval);
    AMERGE(mails_per_day);
    AMERGE(confirmations_per_address);
    return c;
}

static formsvc_acct *acct_of(cmd_parms *cmd) {
    return formsvc_conf(cmd->server)->acct;
}

const char *formsvc_set_rate_limit(cmd_parms *cmd, void *d, const char *args) {
    (void)d;
    const char *usage = "FormsvcRateLimit signup|token|recover|submit <count>|off [<seconds>]";
    char *name = ap_getword_conf(cmd->pool, &args);
    char *count = ap_getword_conf(cmd->pool, &args);
    char *secs = ap_getword_conf(cmd->pool, &args);
    if (!*name || !*count || *args)
        return usage;
    int idx = -1;
    for (int i = 0; i < FORMSVC_RL_N; i++)
        if (!strcasecmp(name, formsvc_rl_names[i]))
            idx = i;
    if (idx < 0)
        return usage;
    formsvc_rl_rule rule = acct_of(cmd)->rule[idx];
    if (!strcasecmp(count, "off")) {
        rule.limit = -1;
    } else if (!fs_int_parse(count, 0, 100000000, &rule.limit)) {
        return "FormsvcRateLimit: the count is 0 to 100000000, or off";
    }
    if (*secs && !fs_int_parse(secs, 1, 86400, &rule.window))
        return "FormsvcRateLimit: the window is 1 to 86400 seconds";
    acct_of(cmd)->rule[idx] = rule;
    acct_of(cmd)->rule_set |= 1u << idx;
    return NULL;
}

/* httpd's socache providers: named here only to say why they are not stores. */
static const char *const socache_names[] = {"shmcb", "redis", "dbm", "dc", "default"};

const char *formsvc_set_rl_store(cmd_parms *cmd, void *d, const char *name, const char *arg) {
    (void)d;
    formsvc_acct *a = acct_of(cmd);
    char *lower = apr_pstrdup(cmd->pool, name); /* names are case-insensitive */
    ap_str_tolower(lower);
    const formsvc_rl_store *st = formsvc_rl_store_lookup(lower);
    if (!st) {
        for (size_t i = 0; i < sizeof(socache_names) / sizeof(socache_names[0]); i++)
            if (!strcasecmp(name, socache_names[i]))
                return apr_psprintf(cmd->pool,
                                    "FormsvcRateLimitStore %s: httpd's socache providers cannot "
                                    "hold rate-limit counters (no atomic increment; shmcb drops "
                                    "live entries when busy). Use local, pgsql or memcache "
                                    "<host:port>",
                                    name);
        return apr_psprintf(cmd->pool,
                            "FormsvcRateLimitStore: no store named \"%s\"; local | pgsql | "
                            "memcache <host:port>",
                            name);
    }
    const char *why = st->check ? st->check(cmd->pool, arg) : NULL;
    if (why)
        return why;
    a->store = st;
    a->store_arg = arg;
    a->store_set = 1;
    return NULL;
}

const char *formsvc_set_rl_slots(cmd_parms *cmd, void *d, const char *arg) {
    (void)d;
    if (!fs_int_parse(arg, 1024, 16777216, &acct_of(cmd)->slots))
        return "FormsvcRateLimitSlots takes a count from 1024 to 16777216";
    acct_of(cmd)->slots_set = 1;
    return NULL;
}

const char *formsvc_set_mail(cmd_parms *cmd, void *d, const char *kind, const char *arg) {
    (void)d;
    formsvc_acct *a = acct_of(cmd);
    if (!strcasecmp(kind, "file")) {
        a->mail = FORMSVC_MAIL_FILE;
        a->mail_target = ap_server_root_relative(cmd->pool, arg);
        if (!a->mail_target)
            return "FormsvcMailTransport file: bad directory";
        /* checked now so configtest fails: the directory, or the nearest
         * part of its path that exists, must be a directory (post_config
         * makes what is missing) */
        char *up = apr_pstrdup(cmd->pool, a->mail_target);
        apr_finfo_t fi;
        while (apr_stat(&fi, up, APR_FINFO_TYPE, cmd->pool) != APR_SUCCESS) {
            char *slash = strrchr(up, '/');
            if (!slash || slash == up)
                break;
            *slash = '\0';
        }
        if (apr_stat(&fi, up, APR_FINFO_TYPE, cmd->pool) == APR_SUCCESS && fi.filetype != APR_DIR)
            return apr_psprintf(cmd->pool,
                                "FormsvcMailTransport file %s: %s is not a directory; name a "
                                "directory that httpd's User may write, e.g. /var/spool/formsvc",
                                a->mail_target, up);
    } else if (!strcasecmp(kind, "sendmail")) {
        /* the program is run by its path (no shell, no PATH search): it
         * must exist now, or configtest would pass and every mail fail */
        char **argv;
        apr_finfo_t fi;
        if (!arg || apr_tokenize_to_argv(arg, &argv, cmd->pool) != APR_SUCCESS || !argv[0] ||
            argv[0][0] != '/')
            return "FormsvcMailTransport sendmail takes a command whose first word is the "
                   "program's absolute path, e.g. \"/usr/sbin/sendmail -i -t\"";
        if (apr_stat(&fi, argv[0], APR_FINFO_TYPE, cmd->pool) != APR_SUCCESS ||
            fi.filetype != APR_REG || access(argv[0], X_OK) != 0)
            return apr_psprintf(cmd->pool,
                                "FormsvcMailTransport sendmail: %s is not an executable file; "
                                "install an MTA (e.g. apt install postfix) or use "
                                "FormsvcMailTransport smtp smtp://relay:25",
                                argv[0]);
        a->mail = FORMSVC_MAIL_SENDMAIL;
        a->mail_target = arg;
    } else if (!strcasecmp(kind, "smtp")) {
        if (strncasecmp(arg, "smtp://", 7) && strncasecmp(arg, "smtps://", 8))
            return "FormsvcMailTransport smtp takes smtp://host[:port] (STARTTLS when "
                   "offered) or smtps://host[:port]";
        const char *why = formsvc_smtp_url_why(cmd->pool, arg);
        if (why)
            return apr_pstrcat(cmd->pool, "FormsvcMailTransport smtp ", arg, ": ", why, NULL);
        a->mail = FORMSVC_MAIL_SMTP;
        a->mail_target = arg;
    } else
        return "FormsvcMailTransport file <directory> | sendmail <command> | smtp <URL>";
    a->mail_set = 1;
    return NULL;
}

const char *formsvc_set_acct_str(cmd_parms *cmd, void *d, const char *arg) {
    (void)d;
    formsvc_acct *a = acct_of(cmd);
    switch ((int)(apr_uintptr_t)cmd->info) {
    case 0:
        if (!fs_mail_addr(cmd->pool, arg))
            return "FormsvcMailFrom takes an address such as \"Forms <no-reply@example.com>\"";
        /* what every relay takes (RFC 5321 4.5.3.1: a local part of 64
         * octets, a path of 256; RFC 5322: a header line of 998) */
        const char *addr = fs_mail_addr(cmd->pool, arg);
        if (strlen(addr) > 254 || strchr(addr, '@') - addr > 64 || strlen(arg) > 900)
            return "FormsvcMailFrom is too long for mail relays: at most 64 characters before "
                   "the @, 254 in the address, 900 in all";
        a->mail_from = arg;
        a->mail_from_set = 1;
        break;
    case 1:
        a->smtp_user = arg;
        a->smtp_user_set = 1;
        break;
    default:
        a->smtp_password_file = ap_server_root_relative(cmd->pool, arg);
        if (!a->smtp_password_file)
            return "FormsvcMailSMTPPasswordFile: bad path";
        /* read now, so configtest catches a missing file (see
         * formsvc_read_secret_file); one trailing line break is not part
         * of the password */
        char *pw;
        apr_size_t n;
        const char *err = formsvc_read_secret_file(
            cmd->pool, "FormsvcMailSMTPPasswordFile", a->smtp_password_file, 1, 4096,
            "write the SMTP password into it, readable by root only (chmod 600)", &pw, &n);
        if (err)
            return err;
        while (n > 0 && (pw[n - 1] == '\n' || pw[n - 1] == '\r'))
            pw[--n] = '\0';
        a->smtp_password = pw;
        a->smtp_password_file_set = 1;
    }
    return NULL;
}

const char *formsvc_set_resend(cmd_parms *cmd, void *d, const char *arg) {
    (void)d;
    if (!fs_int_parse(arg, 0, 86400, &acct_of(cmd)->resend_interval))
        return "FormsvcVerifyResendInterval takes seconds from 0 to 86400";
    acct_of(cmd)->resend_interval_set = 1;
    return NULL;
}

const char *formsvc_set_mails_per_day(cmd_parms *cmd, void *d, const char *arg) {
    (void)d;
    if (!fs_int_parse(arg, 1, 1000, &acct_of(cmd)->mails_per_day))
        return "FormsvcAccountMailsPerDay takes a count from 1 to 1000";
    acct_of(cmd)->mails_per_day_set = 1;
    return NULL;
}

const char *formsvc_set_confirmations(cmd_parms *cmd, void *d, const char *arg) {
    (void)d;
    if (!fs_int_parse(arg, 0, 1000, &acct_of(cmd)->confirmations_per_address))
        return "FormsvcConfirmationMailsPerAddress takes a count from 0 to 1000";
    acct_of(cmd)->confirmations_per_address_set = 1;
    return NULL;
}
