/* webhooks_worker: the delivery worker. Each httpd child runs one thread
 * that, about once a second, claims due deliveries (UPDATE ... WHERE id IN
 * (SELECT ... FOR UPDATE SKIP LOCKED), which also moves them a lease
 * ahead), so any number of children and machines drain one queue without
 * sending a delivery twice at once. Each claimed delivery is POSTed with
 * the Standard Webhooks headers (fs_webhook_post); a 2xx completes it,
 * anything else is retried with exponential backoff (fs_webhook_backoff)
 * until about a day after the event. Every attempt is recorded. */
#include "fs_json.h"
#include "fs_util.h"
#include "fs_webhook.h"
#include "webhooks.h"

#include <apr_optional.h>
#include <apr_strings.h>
#include <apr_thread_proc.h>
#include <mod_dbd.h>

APLOG_USE_MODULE(formsvc);

/* A claimed batch must be sent within the lease, or another worker could
 * claim a delivery again: BATCH x (name resolution, at most about 30 s with
 * the resolver's defaults, + TIMEOUT, which includes connecting) < LEASE. */
#define LEASE_SECONDS 300
#define TIMEOUT_SECONDS 15
#define BATCH 4

static int allow_private;
static volatile int worker_stop;
static apr_thread_t *worker_thread;

const char *formsvc_set_webhook_private(cmd_parms *cmd, void *d, int on) {
    (void)d;
    const char *err = ap_check_cmd_context(cmd, GLOBAL_ONLY);
    if (err)
        return err;
    allow_private = on;
    return NULL;
}

int formsvc_webhook_allow_private(void) {
    return allow_private;
}

static void deliver_one(apr_pool_t *p, server_rec *s, fs_db *db, fs_rows *rs, int i) {
    formsvc_srv *c = formsvc_conf(s);
    const char *id = FS_CELL(rs, i, 0), *url = FS_CELL(rs, i, 1), *sealed = FS_CELL(rs, i, 2);
    const char *whk = FS_CELL(rs, i, 3), *body = FS_CELL(rs, i, 4);
    int attempt = atoi(FS_CELL(rs, i, 5));
    apr_time_t now = apr_time_now();
    apr_int64_t ts = (apr_int64_t)apr_time_sec(now);
    fs_webhook_result res = {0, NULL, 0};
    const char *secret = fs_webhook_open(p, c->pepper, c->pepper_len, whk, sealed);
    const char *sig = secret ? fs_webhook_sign(p, secret, id, ts, body, strlen(body)) : NULL;
    if (!sig)
        res.error = "the signing secret cannot be opened (was the pepper changed?)";
    else
        fs_webhook_post(p, url, allow_private, id, ts, sig, body, TIMEOUT_SECONDS, &res);
    json_object *a = fs_json_own(p, json_object_new_object());
    json_object_object_add(a, "at", json_object_new_string(fs_time_format(p, now)));
    json_object_object_add(a, "status", res.status ? json_object_new_int((int)res.status) : NULL);
    json_object_object_add(a, "error", res.error ? json_object_new_string(res.error) : NULL);
    json_object_object_add(a, "durationMs", json_object_new_int((int)res.ms));
    const char *aj = fs_json_str(p, a);
    fs_rows *out;
    fs_error *e;
    if (!res.error) {
        const char *args[] = {aj, id};
        e = fs_db_query(p, db, "fs_delivery_succeeded", 2, args, &out);
    } else {
        const char *b = apr_itoa(p, fs_webhook_backoff(attempt));
        const char *args[] = {aj, b, b, b, id};
        e = fs_db_query(p, db, "fs_delivery_failed", 5, args, &out);
        ap_log_error(APLOG_MARK, APLOG_INFO, 0, s,
                     "AH10861: webhook delivery %s (attempt %d) failed: %s", id, attempt,
                     res.error);
    }
    if (e)
        ap_log_error(APLOG_MARK, APLOG_WARNING, 0, s,
                     "AH10862: the outcome of webhook delivery %s was not recorded; it will "
                     "be sent again after its lease",
                     id);
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
            if (!fs_db_query(p, &db, "fs_delivery_claim", 2, args, &rs))
                for (int i = 0; i < rs->nrows && !worker_stop; i++) {
                    apr_pool_t *ip;
                    apr_pool_create(&ip, p);
                    deliver_one(ip, s, &db, rs, i);
                    apr_pool_destroy(ip);
                }
            if (round % 600 == 29) /* about every ten minutes */
                fs_db_query(p, &db, "fs_event_sweep", 0, NULL, &rs);
            close(s, d);
        }
        apr_pool_destroy(p);
        round++;
        for (int i = 0; i < 10 && !worker_stop; i++)
            apr_sleep(apr_time_from_msec(100));
    }
    apr_pool_destroy(wp);
    (void)thd;
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

static void child_init(apr_pool_t *pchild, server_rec *s) {
    worker_stop = 0;
    apr_threadattr_t *ta;
    if (apr_threadattr_create(&ta, pchild) != APR_SUCCESS ||
        apr_thread_create(&worker_thread, ta, worker, s, pchild) != APR_SUCCESS) {
        ap_log_error(APLOG_MARK, APLOG_ERR, 0, s,
                     "AH10863: cannot start the webhook worker thread; deliveries wait in "
                     "the queue");
        worker_thread = NULL;
        return;
    }
    apr_pool_cleanup_register(pchild, NULL, stop_worker, apr_pool_cleanup_null);
}

static int pre_config(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp) {
    (void)pconf;
    (void)plog;
    (void)ptemp;
    allow_private = 0; /* a restart reads the directives again */
    formsvc_event_waits_reset();
    return OK;
}

void formsvc_webhook_hooks(apr_pool_t *p) {
    (void)p;
    static const char *const after_dbd[] = {"mod_dbd.c", NULL};
    ap_hook_pre_config(pre_config, NULL, NULL, APR_HOOK_MIDDLE);
    ap_hook_child_init(child_init, after_dbd, NULL, APR_HOOK_LAST);
}
