/* mail: the outbox worker. Each httpd child runs one worker thread
 * (worker.h) that, about once a second, claims due messages (UPDATE ... WHERE id IN (SELECT ...
 * FOR UPDATE SKIP LOCKED), which also leases them for five minutes), so any
 * number of children and machines drain one outbox without sending a
 * message twice at once. Delivery is bounded by a time-out; a failure is
 * retried with exponential backoff (30 s doubling, at most an hour) up to
 * 8 attempts, then the message is marked failed. GET /readyz/outbox shows
 * a stuck outbox. */
#include "runtime/mail.h"
#include "fs_secret.h"
#include "fs_store_account.h"
#include "fs_store_grants.h"
#include "fs_store_ops.h"
#include "fs_store_verify.h"
#include "fs_util.h"
#include "runtime/config.h"
#include "runtime/config_accounts.h"
#include "runtime/log.h"
#include "runtime/metrics.h"
#include "runtime/notify.h"
#include "runtime/worker.h"

#include <apr_file_info.h>
#include <apr_file_io.h>
#include <apr_optional.h>
#include <apr_strings.h>
#include <http_core.h>
#include <unistd.h>
#include <unixd.h>

APLOG_USE_MODULE(formsvc);

/* A claimed batch must be delivered within the lease, or another worker
 * could claim a message again: BATCH x (10 s connect + 30 s) < LEASE. */
#define LEASE_SECONDS 300
#define MAX_ATTEMPTS 8
#define BATCH 5

char *formsvc_mail_compose(apr_pool_t *p, server_rec *s, const char *to, const char *subject,
                           const char *body, const char *unsubscribe, const char **id) {
    formsvc_acct *a = formsvc_conf(s)->acct;
    fs_mail_msg m = {a->mail_from, to, subject, body, apr_time_now(), NULL, unsubscribe};
    *id = fs_id_new(p, "msg_");
    return *id ? fs_mail_build(p, &m) : NULL;
}

char *formsvc_mail_message(request_rec *r, const char *to, const char *subject, const char *body,
                           const char **id) {
    return formsvc_mail_compose(r->pool, r->server, to, subject, body, NULL, id);
}

/* Without FormsvcMailTransport, mail is written to files here, under /var
 * (not under ServerRoot, which is /etc/apache2 on Debian); the Debian
 * package makes it, owned by www-data. */
#define DEFAULT_SPOOL "/var/spool/formsvc/mail"

static const char *mail_dir(apr_pool_t *p, formsvc_acct *a) {
    (void)p;
    return a->mail_target ? a->mail_target : DEFAULT_SPOOL;
}

/* NULL when the directory dir exists, or the nearest part of its path that
 * exists is a directory this process may create entries in; else why not. */
static const char *dir_makeable(apr_pool_t *p, const char *dir) {
    char *up = apr_pstrdup(p, dir);
    apr_finfo_t fi;
    while (apr_stat(&fi, up, APR_FINFO_TYPE, p) != APR_SUCCESS) {
        char *slash = strrchr(up, '/');
        if (!slash)
            return "no part of its path exists";
        if (slash == up) {
            up = "/";
            break;
        }
        *slash = '\0';
    }
    if (apr_stat(&fi, up, APR_FINFO_TYPE, p) != APR_SUCCESS || fi.filetype != APR_DIR)
        return apr_psprintf(p, "%s is not a directory", up);
    if (strcmp(up, dir) && access(up, W_OK | X_OK) != 0)
        return apr_psprintf(p,
                            "%s cannot be written by the user httpd starts as, so the rest "
                            "of the path cannot be made",
                            up);
    if (strcmp(up, dir)) {
        /* the write bit says nothing on a file system that refuses (sysfs,
         * a read-only mount): make a directory there and remove it, so
         * that post_config is not the first to find out (leaving nothing
         * behind under configtest) */
        const char *probe =
            apr_psprintf(p, "%s/.formsvc-probe-%ld", strcmp(up, "/") ? up : "", (long)getpid());
        char err[120];
        apr_status_t rv = apr_dir_make(probe, APR_FPROT_UREAD | APR_FPROT_UWRITE, p);
        if (rv != APR_SUCCESS && !APR_STATUS_IS_EEXIST(rv))
            return apr_psprintf(p, "nothing can be made in %s (%s)", up,
                                apr_strerror(rv, err, sizeof err));
        apr_dir_remove(probe, p);
    }
    return NULL;
}

int formsvc_mail_check_config(apr_pool_t *ptemp, server_rec *s) {
    for (server_rec *sp = s; sp; sp = sp->next) {
        formsvc_acct *a = formsvc_conf(sp)->acct;
        if (a->mail != FORMSVC_MAIL_FILE)
            continue;
        const char *dir = mail_dir(ptemp, a), *why = dir_makeable(ptemp, dir);
        if (why) {
            FORMSVC_SLOG(sp, APLOG_CRIT, 0, 00690,
                         "the mail directory %s cannot be made: %s (FormsvcMailTransport file "
                         "names it; default " DEFAULT_SPOOL ")",
                         dir, why);
            return HTTP_INTERNAL_SERVER_ERROR;
        }
    }
    return OK;
}

int formsvc_mail_post_config(apr_pool_t *pconf, server_rec *s) {
    /* once per start (not in the first of Debian's two configuration
     * passes); vhosts without a transport of their own inherit this one */
    if (!formsvc_conf(s)->acct->mail_set &&
        ap_state_query(AP_SQ_MAIN_STATE) != AP_SQ_MS_CREATE_PRE_CONFIG)
        FORMSVC_SLOG(s, APLOG_WARNING, 0, 00615,
                     "no FormsvcMailTransport: verification and recovery mail is "
                     "only written to files in " DEFAULT_SPOOL ", not sent; set "
                     "FormsvcMailTransport smtp smtp://your-relay:25 (or sendmail "
                     "\"/usr/sbin/sendmail -i -t\") in formsvc.conf");
    for (server_rec *sp = s; sp; sp = sp->next) {
        formsvc_acct *a = formsvc_conf(sp)->acct;
        if (a->mail == FORMSVC_MAIL_FILE) {
            const char *dir = mail_dir(pconf, a);
            apr_status_t rv = apr_dir_make_recursive(dir, APR_FPROT_OS_DEFAULT, pconf);
            if (rv != APR_SUCCESS && !APR_STATUS_IS_EEXIST(rv)) {
                /* check_config found it could be made: not so now. Not a reason to stop
                 * the server (a graceful restart would): mail waits in
                 * the outbox, the worker logs each failed write */
                FORMSVC_SLOG(sp, APLOG_CRIT, rv, 00612, "the mail directory %s cannot be made",
                             dir);
                continue;
            }
            /* children run as User: let them write there */
            if (geteuid() == 0 && chown(dir, ap_unixd_config.user_id, -1) != 0)
                FORMSVC_SLOG(sp, APLOG_WARNING, 0, 00613,
                             "cannot give the mail directory %s to the child user", dir);
        }
    }
    return OK;
}

/* This child's mail worker (formsvc_mail_child_init): a delivery gives up
 * once it stops, rather than hold the child's exit for up to its time-out
 * (httpd kills a child that takes longer than a few seconds to stop). */
static formsvc_worker *mail_worker;

/* Delivers claimed message i; returns NULL or the error. No database
 * connection is held meanwhile. */
static const char *deliver_one(apr_pool_t *p, server_rec *s, const fs_outbox_msg *m) {
    formsvc_acct *a = formsvc_conf(s)->acct;
    const char *id = m->id, *rcpt = m->recipient, *msg = m->message;
    fs_mail_transport t = {a->mail == FORMSVC_MAIL_SMTP       ? FS_MAIL_SMTP
                           : a->mail == FORMSVC_MAIL_SENDMAIL ? FS_MAIL_SENDMAIL
                                                              : FS_MAIL_FILE,
                           a->mail == FORMSVC_MAIL_FILE ? mail_dir(p, a) : a->mail_target,
                           a->smtp_user,
                           a->smtp_password,
                           30,
                           mail_worker ? formsvc_worker_stop_flag(mail_worker) : NULL};
    const char *from = fs_mail_addr(p, a->mail_from);
    return fs_mail_deliver(p, &t, id, from ? from : "", rcpt, msg);
}

static void record_one(apr_pool_t *p, server_rec *s, fs_store *st, const fs_outbox_msg *m,
                       const char *err) {
    (void)p;
    const char *id = m->id;
    int attempts = m->attempts;
    if (err == FS_MAIL_CANCELLED)
        return; /* stays leased: tried again after the lease, as if not tried */
    formsvc_metric_inc(err ? FORMSVC_M_MAIL_FAILED : FORMSVC_M_MAIL_SENT);
    if (!err) {
        fs_store_outbox_sent(st, id);
        return;
    }
    int backoff = 30;
    for (int k = 1; k < attempts && backoff < 3600; k++)
        backoff *= 2;
    if (backoff > 3600)
        backoff = 3600;
    fs_store_outbox_failed(st, id, err, backoff, MAX_ATTEMPTS);
    FORMSVC_SLOG(s, attempts >= MAX_ATTEMPTS ? APLOG_ERR : APLOG_WARNING, 0, 00614,
                 "mail %s not delivered (attempt %d of %d): %s", id, attempts, MAX_ATTEMPTS, err);
}

/* The outbox as a queue of the worker skeleton (formsvc_task_drain): items
 * are the fs_outbox_msg array of the claimed batch. When the child is
 * exiting, the messages not tried yet stay leased and go out after the
 * lease, from this machine or another. */
static int claim(apr_pool_t *p, server_rec *s, fs_store *st, void **items) {
    (void)s;
    fs_outbox_batch *b = apr_pcalloc(p, sizeof(*b));
    if (fs_store_outbox_claim(st, LEASE_SECONDS, BATCH, b))
        return 0;
    *items = b->msgs;
    return b->n;
}

static const void *deliver(apr_pool_t *ip, server_rec *s, void *items, int i) {
    return deliver_one(ip, s, (const fs_outbox_msg *)items + i);
}

static void record(apr_pool_t *ip, server_rec *s, fs_store *st, void *items, int i,
                   const void *outcome) {
    record_one(ip, s, st, (const fs_outbox_msg *)items + i, outcome);
}

static const formsvc_queue outbox = {claim, deliver, record};
static const formsvc_sweep outbox_sweep = {fs_store_outbox_sweep};
/* Erased accounts' rows, in batches (DELETE /v1/me, sql/0042). */
static const formsvc_sweep erasure_sweep = {fs_store_account_purge};
/* OAuth registrations never authorized in 24 hours, spent codes, sessions
 * and refresh tokens (fs_store_grants.h). */
static const formsvc_sweep oauth_sweep = {fs_store_oauth_sweep};

/* About every second a batch of the outbox and one of the mail that
 * submissions owe (notify.c); about every ten minutes, mail sent or failed
 * a week ago and the per-recipient and daily counts of the days before;
 * the OAuth sweep every ten minutes too, the first time seconds after the
 * child starts (one indexed statement; t/49_register_sweep.t waits for
 * it). */
static const formsvc_task tasks[] = {
    {"outbox", 0, 1, formsvc_task_drain, &outbox},
    {"notify", 0, 1, formsvc_task_drain, &formsvc_notify_queue},
    {"outbox sweep", 17, 600, formsvc_task_sweep, &outbox_sweep},
    {"notify sweep", 23, 600, formsvc_task_sweep, &formsvc_notify_sweep},
    {"account erasure", 3, 2, formsvc_task_sweep, &erasure_sweep},
    {"oauth sweep", 5, 600, formsvc_task_sweep, &oauth_sweep},
};

void formsvc_mail_child_init(apr_pool_t *pchild, server_rec *s) {
    mail_worker = FORMSVC_WORKER_START(pchild, s, "mail", tasks);
}
