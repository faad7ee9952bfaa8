/* webhooks_worker: the delivery worker. Each httpd child runs one
 * dispatcher thread (a worker of worker.h) and SENDERS sender threads.
 * The dispatcher claims due deliveries (UPDATE ... WHERE id IN (SELECT ...
 * FOR UPDATE SKIP LOCKED), which also moves them a lease ahead), so any
 * number of children and machines drain one queue without sending a
 * delivery twice at once; it claims only as many as there are idle
 * senders, fairly (at most PER_WEBHOOK in flight per webhook and
 * PER_ACCOUNT per account over every worker, the fewest in flight first:
 * fs_store_delivery_claim), and hands them to the senders. Each sender
 * POSTs one delivery at a time with the Standard Webhooks headers
 * (fs_webhook_post), holding no database connection, and hands the
 * outcome back; the dispatcher records it (a 2xx completes the delivery,
 * anything else is retried with exponential backoff, fs_webhook_backoff,
 * until about a day after the event) and claims again at once. So a
 * receiver that hangs holds at most PER_WEBHOOK senders, not the queue. A
 * webhook whose attempts keep failing (PAUSE_FAILURES in a row over at
 * least PAUSE_SECONDS) is paused by the statement that records the
 * failure. Every attempt is recorded. */
#include "fs_json.h"
#include "fs_store_webhooks.h"
#include "fs_util.h"
#include "fs_webhook.h"
#include "runtime/config.h"
#include "runtime/config_global.h"
#include "runtime/log.h"
#include "runtime/metrics.h"
#include "runtime/request_ctx.h"
#include "runtime/webhooks.h"
#include "runtime/worker.h"

#include <ap_mpm.h>
#include <apr_atomic.h>
#include <apr_strings.h>
#include <apr_thread_cond.h>
#include <apr_thread_mutex.h>
#include <apr_thread_proc.h>

APLOG_USE_MODULE(formsvc);

/* A claimed delivery must be sent within the lease, or another worker could
 * claim it again: the dispatcher claims only for idle senders, so a
 * delivery waits for name resolution (at most about 30 s with the
 * resolver's defaults) and TIMEOUT (which includes connecting) < LEASE. */
#define LEASE_SECONDS 300
#define TIMEOUT_SECONDS 15
/* Deliveries in flight at once in one child; in a child of one thread
 * (prefork: many children), SENDERS_PREFORK. */
#define SENDERS 16
#define SENDERS_PREFORK 2
/* In flight at once over every child and machine: per webhook, per
 * account (below SENDERS, so that one account's receivers never hold all
 * of a child's senders). */
#define PER_WEBHOOK 4
#define PER_ACCOUNT 8
/* A webhook is paused after PAUSE_FAILURES failed attempts in a row, the
 * first at least PAUSE_SECONDS before the last. */
#define PAUSE_FAILURES 20
#define PAUSE_SECONDS (12 * 3600)
/* With an idle sender, the dispatcher looks for due deliveries this often
 * (and at once after each outcome). */
#define CLAIM_EVERY_MS 500
/* Events older than 30 days are swept about this often. */
#define SWEEP_SECONDS 600

static const fs_delivery_limits limits = {PER_WEBHOOK, PER_ACCOUNT, PAUSE_FAILURES, PAUSE_SECONDS};

int formsvc_webhook_allow_private(void) {
    return formsvc_global_conf()->webhook_allow_private;
}

/* The outcome of one delivery, recorded once the batch has been sent. */
typedef struct outcome {
    const char *attempt_json; /* the attempt record */
    const char *error;        /* NULL when delivered */
} outcome;

/* POSTs a claimed delivery, allocating in p. No database connection is
 * held meanwhile; cancel (NULL: none) ends the attempt early. */
static outcome deliver_one(apr_pool_t *p, server_rec *s, const fs_delivery *dl,
                           apr_uint32_t *cancel) {
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
        fs_webhook_post(p, url, formsvc_webhook_allow_private(), id, ts, sig, body, TIMEOUT_SECONDS,
                        cancel, &res);
    json_object *a = fs_json_own(p, json_object_new_object());
    json_object_object_add(a, "at", json_object_new_string(fs_time_format(p, now)));
    json_object_object_add(a, "status", res.status ? json_object_new_int((int)res.status) : NULL);
    json_object_object_add(a, "error", res.error ? json_object_new_string(res.error) : NULL);
    json_object_object_add(a, "durationMs", json_object_new_int((int)res.ms));
    outcome o = {fs_json_str(p, a), res.error ? apr_pstrdup(p, res.error) : NULL};
    return o;
}

static void record_one(server_rec *s, fs_store *st, const fs_delivery *dl, const outcome *o) {
    const char *id = dl->id;
    int attempt = dl->attempt, paused = 0;
    fs_error *e;
    formsvc_metric_inc(o->error ? FORMSVC_M_WEBHOOK_FAILED : FORMSVC_M_WEBHOOK_DELIVERED);
    if (!o->error) {
        e = fs_store_delivery_succeeded(st, id, o->attempt_json);
    } else {
        e = fs_store_delivery_failed(st, id, o->attempt_json, fs_webhook_backoff(attempt), &limits,
                                     &paused);
        FORMSVC_SLOG(s, APLOG_INFO, 0, 00861, "webhook delivery %s (attempt %d) failed: %s", id,
                     attempt, o->error);
    }
    if (e)
        FORMSVC_SLOG(s, APLOG_WARNING, 0, 00862,
                     "the outcome of webhook delivery %s was not recorded; it will "
                     "be sent again after its lease",
                     id);
    else if (paused)
        FORMSVC_SLOG(s, APLOG_NOTICE, 0, 00885,
                     "webhook %s paused: %d or more attempts in a row failed over %d hours; "
                     "its deliveries wait until its owner resumes it",
                     dl->webhook_id, PAUSE_FAILURES, PAUSE_SECONDS / 3600);
}

void formsvc_webhook_send_now(request_rec *r, const fs_delivery *dl) {
    formsvc_db_release(r); /* no connection held while the target answers */
    outcome o = deliver_one(r->pool, r->server, dl, NULL);
    record_one(r->server, formsvc_store(r), dl, &o);
}

int formsvc_webhook_lease(void) {
    return LEASE_SECONDS;
}

/* One claimed delivery on its way: made by the dispatcher, sent by a
 * sender, recorded (and destroyed) by the dispatcher. Its pool is
 * unmanaged (an allocator of its own), so the thread that holds the job
 * may allocate in it while the others allocate elsewhere; the job moves
 * between threads only under the mutex. */
typedef struct job {
    apr_pool_t *p;
    fs_delivery d; /* copied into p */
    outcome o;     /* set by the sender, in p */
    apr_time_t at; /* when the sender finished */
    int cut;       /* the attempt was cut short by the child's exit: not recorded */
    struct job *next;
} job;

/* The senders of this child and the lists they share with the
 * dispatcher, all under mu. */
typedef struct senders {
    server_rec *s;
    apr_thread_mutex_t *mu;
    apr_thread_cond_t *queued; /* a job is in todo, or stop */
    apr_thread_cond_t *sent;   /* a job is in done, or stop */
    job *todo, *todo_tail;     /* claimed, waiting for a sender */
    job *done;                 /* sent, waiting to be recorded */
    job *unrecorded;           /* the dispatcher's own: taken from done, not
                                * recorded yet (for want of a connection) */
    int busy;                  /* claimed and not recorded yet */
    int n;                     /* sender threads running */
    apr_uint32_t stop;         /* set once, by stop_senders */
    apr_thread_t *thread[SENDERS];
} senders;

static void job_free(job *j) {
    while (j) {
        job *next = j->next;
        apr_pool_destroy(j->p);
        j = next;
    }
}

static job *job_new(const fs_delivery *d) {
    apr_pool_t *p;
    if (apr_pool_create_unmanaged_ex(&p, NULL, NULL) != APR_SUCCESS)
        return NULL;
    job *j = apr_pcalloc(p, sizeof(*j));
    j->p = p;
    j->d.id = apr_pstrdup(p, d->id);
    j->d.url = apr_pstrdup(p, d->url);
    j->d.sealed_secret = apr_pstrdup(p, d->sealed_secret);
    j->d.webhook_id = apr_pstrdup(p, d->webhook_id);
    j->d.event_json = apr_pstrdup(p, d->event_json);
    j->d.attempt = d->attempt;
    j->d.event_id = apr_pstrdup(p, d->event_id);
    return j;
}

static void *APR_THREAD_FUNC send_loop(apr_thread_t *thd, void *data) {
    senders *ss = data;
    apr_thread_mutex_lock(ss->mu);
    for (;;) {
        while (!ss->todo && !apr_atomic_read32(&ss->stop))
            apr_thread_cond_wait(ss->queued, ss->mu);
        if (apr_atomic_read32(&ss->stop))
            break;
        job *j = ss->todo;
        ss->todo = j->next;
        if (!ss->todo)
            ss->todo_tail = NULL;
        apr_thread_mutex_unlock(ss->mu);
        j->o = deliver_one(j->p, ss->s, &j->d, &ss->stop);
        j->cut = j->o.error && apr_atomic_read32(&ss->stop);
        j->at = apr_time_now();
        apr_thread_mutex_lock(ss->mu);
        j->next = ss->done;
        ss->done = j;
        apr_thread_cond_signal(ss->sent);
    }
    apr_thread_mutex_unlock(ss->mu);
    (void)thd;
    return NULL;
}

/* With a connection: records the outcomes of the jobs done (and frees
 * them; an attempt cut short is not an outcome: it goes again after its
 * lease), and claims up to idle deliveries into jobs (*claimed). */
static void record_and_claim(server_rec *s, fs_store *st, job *done, int idle, job **claimed) {
    for (job *j = done; j; j = j->next)
        if (!j->cut)
            record_one(s, st, &j->d, &j->o);
    job_free(done);
    *claimed = NULL;
    fs_delivery_batch b;
    if (idle <= 0 || fs_store_delivery_claim(st, &limits, LEASE_SECONDS, idle, &b))
        return;
    for (int i = b.n - 1; i >= 0; i--) {
        job *j = job_new(&b.items[i]);
        if (!j)
            continue; /* its lease runs out and it goes again */
        j->next = *claimed;
        *claimed = j;
    }
}

/* The dispatcher: the one task of the webhook worker, which runs until
 * the child exits. It claims when a sender is idle, every CLAIM_EVERY_MS
 * and at once after each outcome; records outcomes as they come (keeping
 * them while no connection can be had, up to a minute: then their leases
 * run out and they go again); and sweeps old events every SWEEP_SECONDS. */
static void dispatch(formsvc_worker *w, apr_pool_t *p, server_rec *s, const void *data) {
    senders *ss = (senders *)data;
    apr_time_t last_claim = 0, last_try = 0, next_sweep = apr_time_now() + apr_time_from_sec(29);
    while (!formsvc_worker_stopping(w) && !apr_atomic_read32(&ss->stop)) {
        apr_thread_mutex_lock(ss->mu);
        int fresh = ss->done != NULL;
        while (ss->done) { /* done -> unrecorded, freeing their senders' places */
            job *j = ss->done;
            ss->done = j->next;
            j->next = ss->unrecorded;
            ss->unrecorded = j;
            ss->busy--;
        }
        int idle = ss->n - ss->busy;
        apr_thread_mutex_unlock(ss->mu);
        apr_time_t now = apr_time_now();
        /* outcomes kept for want of a connection are tried again with the
         * claims, and given up after a minute (the lease sends them again) */
        int tick = now - last_claim >= apr_time_from_msec(CLAIM_EVERY_MS);
        int record =
            ss->unrecorded && (fresh || now - last_try >= apr_time_from_msec(CLAIM_EVERY_MS));
        int claim = idle > 0 && (fresh || tick);
        int sweep = now >= next_sweep;
        job *claimed = NULL;
        if (record || claim || sweep) {
            apr_pool_t *rp;
            apr_pool_create(&rp, p);
            fs_db db;
            void *d = formsvc_worker_db(w, rp, &db);
            last_try = now;
            if (d) {
                fs_store *st = fs_store_on(rp, &db);
                job *done = ss->unrecorded;
                ss->unrecorded = NULL;
                record_and_claim(s, st, done, claim ? idle : 0, &claimed);
                if (sweep)
                    fs_store_event_sweep(st, formsvc_global_conf()->event_retention_days);
                formsvc_worker_db_close(w, d);
            } else {
                job **pj = &ss->unrecorded;
                while (*pj) {
                    job *j = *pj;
                    if (now - j->at > apr_time_from_sec(60)) {
                        *pj = j->next;
                        j->next = NULL;
                        job_free(j);
                    } else {
                        pj = &j->next;
                    }
                }
            }
            apr_pool_destroy(rp);
            if (claim)
                last_claim = now;
            if (sweep)
                next_sweep = now + apr_time_from_sec(SWEEP_SECONDS);
        }
        apr_thread_mutex_lock(ss->mu);
        for (job *j = claimed, *next; j; j = next) {
            next = j->next;
            j->next = NULL;
            if (ss->todo_tail)
                ss->todo_tail->next = j;
            else
                ss->todo = j;
            ss->todo_tail = j;
            ss->busy++;
            apr_thread_cond_signal(ss->queued);
        }
        if (!ss->done && !apr_atomic_read32(&ss->stop))
            apr_thread_cond_timedwait(ss->sent, ss->mu, apr_time_from_msec(CLAIM_EVERY_MS));
        apr_thread_mutex_unlock(ss->mu);
    }
}

/* A pre-cleanup of the child pool, registered after the dispatcher's
 * worker so that it runs first: tells the senders to stop (an attempt
 * under way is cut short: its delivery goes again after its lease) and
 * joins them; the dispatcher sees the flag and returns. */
static apr_status_t stop_senders(void *data) {
    senders *ss = data;
    apr_status_t rv;
    apr_thread_mutex_lock(ss->mu);
    apr_atomic_set32(&ss->stop, 1);
    apr_thread_cond_broadcast(ss->queued);
    apr_thread_cond_broadcast(ss->sent);
    apr_thread_mutex_unlock(ss->mu);
    for (int i = 0; i < ss->n; i++)
        apr_thread_join(&rv, ss->thread[i]);
    return APR_SUCCESS;
}

/* A plain cleanup: after every pre-cleanup, so after the dispatcher and
 * the senders have been joined, the jobs nobody recorded are freed. */
static apr_status_t free_jobs(void *data) {
    senders *ss = data;
    job_free(ss->todo);
    job_free(ss->done);
    job_free(ss->unrecorded);
    ss->todo = ss->todo_tail = ss->done = ss->unrecorded = NULL;
    return APR_SUCCESS;
}

static formsvc_task tasks[] = {
    {"webhook deliveries", 0, 1, dispatch, NULL},
};

void formsvc_webhook_child_init(apr_pool_t *pchild, server_rec *s) {
    senders *ss = apr_pcalloc(pchild, sizeof(*ss));
    ss->s = s;
    apr_threadattr_t *ta;
    if (apr_thread_mutex_create(&ss->mu, APR_THREAD_MUTEX_DEFAULT, pchild) != APR_SUCCESS ||
        apr_thread_cond_create(&ss->queued, pchild) != APR_SUCCESS ||
        apr_thread_cond_create(&ss->sent, pchild) != APR_SUCCESS ||
        apr_threadattr_create(&ta, pchild) != APR_SUCCESS) {
        FORMSVC_SLOG(s, APLOG_ERR, 0, 00886, "cannot start the webhook senders; webhooks wait");
        return;
    }
    int threads = 1, want = SENDERS;
    if (ap_mpm_query(AP_MPMQ_MAX_THREADS, &threads) == APR_SUCCESS && threads <= 1)
        want = SENDERS_PREFORK;
    for (; ss->n < want; ss->n++)
        if (apr_thread_create(&ss->thread[ss->n], ta, send_loop, ss, pchild) != APR_SUCCESS)
            break;
    if (ss->n < want)
        FORMSVC_SLOG(s, APLOG_ERR, 0, 00887,
                     "only %d of %d webhook sender threads could be started", ss->n, want);
    tasks[0].data = ss;
    apr_pool_cleanup_register(pchild, ss, free_jobs, apr_pool_cleanup_null);
    FORMSVC_WORKER_START(pchild, s, "webhook", tasks);
    if (ss->n) /* after the dispatcher's: runs before it */
        apr_pool_pre_cleanup_register(pchild, ss, stop_senders);
}
