/* mail: the outbox worker. Each httpd child runs one thread that, about
 * once a second, claims due messages (UPDATE ... WHERE id IN (SELECT ...
 * FOR UPDATE SKIP LOCKED), which also leases them for five minutes), so any
 * number of children and machines drain one outbox without sending a
 * message twice at once. Delivery is bounded by a time-out; a failure is
 * retried with exponential backoff (30 s doubling, at most an hour) up to
 * 8 attempts, then the message is marked failed. GET /readyz/outbox shows
 * a stuck outbox. */
#include "mail.h"
#include "config_accounts.h"
#include "fs_secret.h"
#include "fs_util.h"

#include <apr_file_info.h>
#include <apr_file_io.h>
#include <apr_optional.h>
#include <apr_strings.h>
#include <apr_thread_proc.h>
#include <mod_dbd.h>
#include <unistd.h>
#include <unixd.h>

APLOG_USE_MODULE(formsvc);

/* A claimed batch must be delivered within the lease, or another worker
 * could claim a message again: BATCH x (10 s connect + 30 s) < LEASE. */
#define LEASE_SECONDS 300
#define MAX_ATTEMPTS 8
#define BATCH 5

static volatile int worker_stop;
static apr_thread_t *worker_thread;

char *formsvc_mail_message(request_rec *r, const char *to, const char *subject, const char *body,
                           const char **id) {
    formsvc_acct *a = formsvc_conf(r->server)->acct;
    fs_mail_msg m = {a->mail_from, to, subject, body, apr_time_now(), NULL};
    *id = fs_id_new(r->pool, "msg_");
    return *id ? fs_mail_build(r->pool, &m) : NULL;
}

static const char *mail_dir(apr_pool_t *p, formsvc_acct *a) {
    return a->mail_target ? a->mail_target : ap_server_root_relative(p, "formsvc-mail");
}

int formsvc_mail_post_config(apr_pool_t *pconf, server_rec *s) {
    for (server_rec *sp = s; sp; sp = sp->next) {
        formsvc_acct *a = formsvc_conf(sp)->acct;
        if (a->smtp_password_file && !a->smtp_password) {
            char *buf = NULL;
            apr_file_t *f;
            apr_finfo_t fi;
            if (apr_file_open(&f, a->smtp_password_file, APR_READ, 0, pconf) != APR_SUCCESS ||
                apr_file_info_get(&fi, APR_FINFO_SIZE, f) != APR_SUCCESS || fi.size > 4096) {
                ap_log_error(APLOG_MARK, APLOG_CRIT, 0, sp,
                             "AH10611: FormsvcMailSMTPPasswordFile %s cannot be read",
                             a->smtp_password_file);
                return HTTP_INTERNAL_SERVER_ERROR;
            }
            apr_size_t n = (apr_size_t)fi.size;
            buf = apr_pcalloc(pconf, n + 1);
            apr_file_read_full(f, buf, n, &n);
            apr_file_close(f);
            while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
                buf[--n] = '\0';
            a->smtp_password = buf;
        }
        if (a->mail == FORMSVC_MAIL_FILE) {
            const char *dir = mail_dir(pconf, a);
            apr_status_t rv = apr_dir_make_recursive(dir, APR_FPROT_OS_DEFAULT, pconf);
            if (rv != APR_SUCCESS && !APR_STATUS_IS_EEXIST(rv)) {
                ap_log_error(APLOG_MARK, APLOG_CRIT, rv, sp,
                             "AH10612: the mail directory %s cannot be made", dir);
                return HTTP_INTERNAL_SERVER_ERROR;
            }
            /* children run as User: let them write there */
            if (geteuid() == 0 && chown(dir, ap_unixd_config.user_id, -1) != 0)
                ap_log_error(APLOG_MARK, APLOG_WARNING, 0, sp,
                             "AH10613: cannot give the mail directory %s to the child user", dir);
        }
    }
    return OK;
}

static void deliver_one(apr_pool_t *p, server_rec *s, fs_db *db, fs_rows *rs, int i) {
    formsvc_acct *a = formsvc_conf(s)->acct;
    const char *id = FS_CELL(rs, i, 0), *rcpt = FS_CELL(rs, i, 1), *msg = FS_CELL(rs, i, 2);
    int attempts = atoi(FS_CELL(rs, i, 3));
    fs_mail_transport t = {a->mail == FORMSVC_MAIL_SMTP       ? FS_MAIL_SMTP
                           : a->mail == FORMSVC_MAIL_SENDMAIL ? FS_MAIL_SENDMAIL
                                                              : FS_MAIL_FILE,
                           a->mail == FORMSVC_MAIL_FILE ? mail_dir(p, a) : a->mail_target,
                           a->smtp_user, a->smtp_password, 30};
    const char *from = fs_mail_addr(p, a->mail_from);
    const char *err = fs_mail_deliver(p, &t, id, from ? from : "", rcpt, msg);
    fs_rows *out;
    if (!err) {
        const char *args[] = {id};
        fs_db_query(p, db, "fs_outbox_sent", 1, args, &out);
        return;
    }
    int backoff = 30;
    for (int k = 1; k < attempts && backoff < 3600; k++)
        backoff *= 2;
    if (backoff > 3600)
        backoff = 3600;
    const char *args[] = {err, apr_itoa(p, backoff), apr_itoa(p, MAX_ATTEMPTS), id};
    fs_db_query(p, db, "fs_outbox_failed", 4, args, &out);
    ap_log_error(APLOG_MARK, attempts >= MAX_ATTEMPTS ? APLOG_ERR : APLOG_WARNING, 0, s,
                 "AH10614: mail %s not delivered (attempt %d of %d): %s", id, attempts,
                 MAX_ATTEMPTS, err);
}

static void *APR_THREAD_FUNC worker(apr_thread_t *thd, void *data) {
    server_rec *s = data;
    APR_OPTIONAL_FN_TYPE(ap_dbd_open) *open = APR_RETRIEVE_OPTIONAL_FN(ap_dbd_open);
    APR_OPTIONAL_FN_TYPE(ap_dbd_close) *close = APR_RETRIEVE_OPTIONAL_FN(ap_dbd_close);
    apr_pool_t *wp;
    apr_pool_create_unmanaged_ex(&wp, NULL, NULL);
    unsigned long round = 0;
    while (!worker_stop) {
        apr_pool_t *p;
        apr_pool_create(&p, wp);
        ap_dbd_t *d = open && close ? open(p, s) : NULL;
        if (d) {
            fs_db db = {d->driver, d->handle, d->prepared, d->pool};
            fs_rows *rs;
            const char *args[] = {apr_itoa(p, LEASE_SECONDS), apr_itoa(p, BATCH)};
            if (!fs_db_query(p, &db, "fs_outbox_claim", 2, args, &rs))
                for (int i = 0; i < rs->nrows && !worker_stop; i++)
                    deliver_one(p, s, &db, rs, i);
            if (round % 600 == 17) { /* about every ten minutes */
                fs_db_query(p, &db, "fs_outbox_sweep", 0, NULL, &rs);
                fs_db_query(p, &db, "fs_ratelimit_sweep", 0, NULL, &rs);
            }
            close(s, d);
        }
        apr_pool_destroy(p);
        round++;
        for (int i = 0; i < 10 && !worker_stop; i++)
            apr_sleep(apr_time_from_msec(100));
    }
    apr_pool_destroy(wp);
    (void)thd; /* a plain return: apr_thread_join still works */
    return NULL;
}

static apr_status_t stop_worker(void *data) {
    (void)data;
    if (worker_thread) {
        apr_status_t rv;
        worker_stop = 1;
        apr_thread_join(&rv, worker_thread);
        worker_thread = NULL;
    }
    return APR_SUCCESS;
}

void formsvc_mail_child_init(apr_pool_t *pchild, server_rec *s) {
    worker_stop = 0;
    apr_threadattr_t *ta;
    if (apr_threadattr_create(&ta, pchild) != APR_SUCCESS ||
        apr_thread_create(&worker_thread, ta, worker, s, pchild) != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_ERR, 0, s,
                     "AH10615: cannot start the mail worker thread; mail waits in the outbox");
        worker_thread = NULL;
        return;
    }
    apr_pool_cleanup_register(pchild, NULL, stop_worker, apr_pool_cleanup_null);
}
