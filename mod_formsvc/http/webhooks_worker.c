/* webhooks_worker: the delivery worker. Each httpd child runs one worker
 * thread (worker.h) that, about once a second, claims due deliveries
 * (UPDATE ... WHERE id IN (SELECT ... FOR UPDATE SKIP LOCKED), which also
 * moves them a lease ahead), so any number of children and machines drain one queue without
 * sending a delivery twice at once. Each claimed delivery is POSTed with
 * the Standard Webhooks headers (fs_webhook_post); a 2xx completes it,
 * anything else is retried with exponential backoff (fs_webhook_backoff)
 * until about a day after the event. Every attempt is recorded. */
#include "fs_json.h"
#include "fs_store_webhooks.h"
#include "fs_util.h"
#include "fs_webhook.h"
#include "metrics.h"
#include "webhooks.h"
#include "worker.h"

#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

/* A claimed batch must be sent within the lease, or another worker could
 * claim a delivery again: BATCH x (name resolution, at most about 30 s with
 * the resolver's defaults, + TIMEOUT, which includes connecting) < LEASE. */
#define LEASE_SECONDS 300
#define TIMEOUT_SECONDS 15
#define BATCH 4

static int allow_private;

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

/* The outcome of one delivery, recorded once the batch has been sent. */
typedef struct outcome {
    const char *attempt_json; /* the attempt record */
    const char *error;        /* NULL when delivered */
} outcome;

/* POSTs claimed delivery i. No database connection is held meanwhile. */
static outcome deliver_one(apr_pool_t *p, server_rec *s, const fs_delivery *dl) {
    formsvc_srv *c = formsvc_conf(s);
    const char *id = dl->id, *url = dl->url, *sealed = dl->sealed_secret;
    const char *whk = dl->webhook_id, *body = dl->event_json;
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
    outcome o = {fs_json_str(p, a), res.error ? apr_pstrdup(p, res.error) : NULL};
    return o;
}

static void record_one(apr_pool_t *p, server_rec *s, fs_store *st, const fs_delivery *dl,
                       const outcome *o) {
    (void)p;
    const char *id = dl->id;
    int attempt = dl->attempt;
    fs_error *e;
    formsvc_metric_inc(o->error ? FORMSVC_M_WEBHOOK_FAILED : FORMSVC_M_WEBHOOK_DELIVERED);
    if (!o->error) {
        e = fs_store_delivery_succeeded(st, id, o->attempt_json);
    } else {
        e = fs_store_delivery_failed(st, id, o->attempt_json, fs_webhook_backoff(attempt));
        FORMSVC_SLOG(s, APLOG_INFO, 0, 00861, "webhook delivery %s (attempt %d) failed: %s", id,
                     attempt, o->error);
    }
    if (e)
        FORMSVC_SLOG(s, APLOG_WARNING, 0, 00862,
                     "the outcome of webhook delivery %s was not recorded; it will "
                     "be sent again after its lease",
                     id);
}

void formsvc_webhook_send_now(request_rec *r, const fs_delivery *dl) {
    formsvc_db_release(r); /* no connection held while the target answers */
    outcome o = deliver_one(r->pool, r->server, dl);
    record_one(r->pool, r->server, formsvc_store(r), dl, &o);
}

int formsvc_webhook_lease(void) {
    return LEASE_SECONDS;
}

/* The delivery queue as a queue of the worker skeleton
 * (formsvc_task_drain): items are the fs_delivery array of the claimed
 * batch; each POST has its own pool (curl and json-c scratch, and the
 * outcome) until the outcome is recorded. When the child is exiting, the
 * deliveries not tried yet stay leased and go out after the lease. */
static int claim(apr_pool_t *p, server_rec *s, fs_store *st, void **items) {
    (void)s;
    fs_delivery_batch *b = apr_pcalloc(p, sizeof(*b));
    if (fs_store_delivery_claim(st, LEASE_SECONDS, BATCH, b))
        return 0;
    *items = b->items;
    return b->n;
}

static const void *deliver(apr_pool_t *ip, server_rec *s, void *items, int i) {
    outcome *o = apr_palloc(ip, sizeof(*o));
    *o = deliver_one(ip, s, (const fs_delivery *)items + i);
    return o;
}

static void record(apr_pool_t *ip, server_rec *s, fs_store *st, void *items, int i, const void *o) {
    record_one(ip, s, st, (const fs_delivery *)items + i, o);
}

static const formsvc_queue deliveries = {claim, deliver, record};
static const formsvc_sweep event_sweep = {fs_store_event_sweep};

/* About every second a batch of deliveries; about every ten minutes,
 * events older than 30 days. */
static const formsvc_task tasks[] = {
    {"webhook deliveries", 0, 1, formsvc_task_drain, &deliveries},
    {"event sweep", 29, 600, formsvc_task_sweep, &event_sweep},
};

void formsvc_webhook_child_init(apr_pool_t *pchild, server_rec *s) {
    formsvc_worker_start(pchild, s, "webhook", tasks, (int)(sizeof(tasks) / sizeof(tasks[0])));
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
    ap_hook_pre_config(pre_config, NULL, NULL, APR_HOOK_MIDDLE);
}
