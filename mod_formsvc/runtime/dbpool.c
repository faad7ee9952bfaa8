/* dbpool: the wait for a pooled connection and for a statement, bounded
 * (see dbpool.h). */
#include "runtime/dbpool.h"
#include "runtime/config.h"
#include "runtime/log.h"
#include "runtime/metrics.h"

#include <apr_atomic.h>
#include <apr_optional.h>
#include <apr_strings.h>
#include <apr_thread_cond.h>
#include <apr_thread_mutex.h>
#include <http_request.h>
#include <mod_dbd.h>

APLOG_USE_MODULE(formsvc);

/* While another thread probes a database suspected down: how long a
 * request waits for the verdict, re-checking this often. */
#define PROBE_WAIT_MS 1000
#define PROBE_RECHECK apr_time_from_msec(20)

/* FormsvcDBTimeout (config_global.h) */
static int timeout_sec(void) {
    return formsvc_global_conf()->db_timeout;
}
/* DBDMax of the main server; 0: DBDPersist Off, no pool to wait for */
static int pool_max(void) {
    return formsvc_global_conf()->db_pool_max;
}

/* per child */
static apr_thread_mutex_t *mutex;
static apr_thread_cond_t *freed; /* the probe's verdict may be in */
static int in_use;
/* Threads waiting for a place, oldest first. A thread that leaves hands
 * its place to the oldest waiter and wakes that one only: no newcomer
 * overtakes a waiter (under load, barging let some requests wait many
 * times longer than others), and a release does not wake every waiter.
 * A node is its waiter thread's own (a thread waits for one place at a
 * time), as is its condition variable, made once from gate_pool (a
 * subpool of the child's, used only under the mutex). */
typedef struct waiter {
    apr_thread_cond_t *cv;
    struct waiter *next;
    int granted; /* the place of a thread that left is now this one's */
} waiter;
static waiter *q_head, *q_tail;
static apr_pool_t *gate_pool;
static _Thread_local apr_thread_cond_t *thread_cv;
static _Thread_local waiter self;
static int probing; /* a thread is trying the database while it is suspected down */
static volatile apr_uint64_t acquire_failed; /* apr_time_t of the last failed acquire */
/* mod_dbd failing to open a connection while PostgreSQL answers pings (it
 * refuses sessions: "too many clients", a role's connection limit, a
 * failed login): the gate counts the database as down for a while after
 * each such failure, doubling from OPEN_BACKOFF_MIN to OPEN_BACKOFF_MAX,
 * so that a child tries again (and mod_dbd logs its two lines) a few
 * times a minute rather than for every request. Under the mutex. */
#define OPEN_BACKOFF_MIN apr_time_from_msec(250)
#define OPEN_BACKOFF_MAX apr_time_from_sec(5)
static apr_time_t open_failed;      /* the last failed open, 0 once one succeeded */
static apr_interval_time_t backoff; /* how long it counts as down after it */

void formsvc_dbpool_child_init(apr_pool_t *pchild, server_rec *s) {
    fs_store_set_timeout(timeout_sec() * 1000);
    formsvc_gauge_set(FORMSVC_G_DB_MAX, pool_max());
    in_use = 0;
    q_head = q_tail = NULL;
    open_failed = 0;
    backoff = 0;
    if (apr_thread_mutex_create(&mutex, APR_THREAD_MUTEX_DEFAULT, pchild) != APR_SUCCESS ||
        apr_thread_cond_create(&freed, pchild) != APR_SUCCESS ||
        apr_pool_create(&gate_pool, pchild) != APR_SUCCESS) {
        FORMSVC_SLOG(s, APLOG_ERR, 0, 02152,
                     "cannot make the database connection gate; waits for a pooled "
                     "connection are not bounded");
        mutex = NULL;
    }
}

/* The database is suspected down when the last sign of trouble (a
 * connection that could not be had here, or the store finding it
 * unreachable or silent) is newer than the last answered statement. */
static int suspected(void) {
    apr_time_t bad = (apr_time_t)apr_atomic_read64(&acquire_failed), ok = fs_db_last_ok();
    apr_time_t unavail = fs_db_last_unavailable();
    if (unavail > bad)
        bad = unavail;
    return bad > ok;
}

/* With the mutex held: gives a place back, to the oldest waiter if any. */
static void release_place(void) {
    waiter *w = q_head;
    if (!w) {
        in_use--;
        return;
    }
    q_head = w->next;
    if (!q_head)
        q_tail = NULL;
    w->granted = 1;
    if (w->cv == freed)
        apr_thread_cond_broadcast(freed);
    else
        apr_thread_cond_signal(w->cv);
}

/* With the mutex held: queues this thread and waits until a leaving
 * thread hands it a place (1), or until deadline (0, out of the queue).
 * Without a condition variable of its own (no memory) it waits on freed,
 * which a hand-over to it broadcasts. */
static int wait_turn(apr_time_t deadline) {
    if (!thread_cv && apr_thread_cond_create(&thread_cv, gate_pool) != APR_SUCCESS)
        thread_cv = NULL;
    waiter *w = &self;
    w->cv = thread_cv ? thread_cv : freed;
    w->next = NULL;
    w->granted = 0;
    if (q_tail)
        q_tail->next = w;
    else
        q_head = w;
    q_tail = w;
    while (!w->granted) {
        if (!timeout_sec()) {
            apr_thread_cond_wait(w->cv, mutex);
            continue;
        }
        apr_time_t left = deadline - apr_time_now();
        if (left <= 0)
            break;
        apr_thread_cond_timedwait(w->cv, mutex, left);
    }
    if (w->granted)
        return 1;
    waiter **pp = &q_head, *prev = NULL;
    for (; *pp && *pp != w; pp = &(*pp)->next)
        prev = *pp;
    if (*pp)
        *pp = w->next;
    if (q_tail == w)
        q_tail = prev;
    return 0;
}

int formsvc_dbpool_enter(int *probe) {
    *probe = 0;
    if (!mutex)
        return FORMSVC_DBPOOL_OK;
    apr_time_t now = apr_time_now();
    apr_time_t deadline = now + apr_time_from_sec(timeout_sec());
    apr_time_t down_deadline = now + apr_time_from_msec(PROBE_WAIT_MS);
    int rc = FORMSVC_DBPOOL_OK, waited = 0, placed = 0;
    apr_thread_mutex_lock(mutex);
    for (;;) {
        if (!*probe && suspected()) {
            if (probing) {
                /* Another thread is finding out. Its first answered
                 * statement ends the suspicion (suspected() turns false)
                 * long before it gives its place back, so wait a moment
                 * for that, re-checking; a database that stays silent
                 * costs each waiter at most PROBE_WAIT_MS, not a connect
                 * timeout each in turn. */
                apr_time_t left = down_deadline - apr_time_now();
                if (left <= 0) {
                    rc = FORMSVC_DBPOOL_DOWN;
                    break;
                }
                apr_thread_cond_timedwait(freed, mutex,
                                          left < PROBE_RECHECK ? left : PROBE_RECHECK);
                continue;
            }
            if (open_failed && fs_db_last_ok() > open_failed)
                open_failed = 0, backoff = 0; /* a statement was answered since */
            if (open_failed && apr_time_now() < open_failed + backoff) {
                rc = FORMSVC_DBPOOL_DOWN;
                break;
            }
            probing = *probe = 1;
            /* Find out with a ping first: a failed pooled open costs two
             * error-log lines of mod_dbd's, and while the database is down
             * every request could be the one that tries. */
            /* NULL: no ping, the probe opens a pooled connection */
            const char *ping_conninfo = formsvc_global_conf()->db_ping_conninfo;
            if (ping_conninfo) {
                apr_thread_mutex_unlock(mutex);
                int up = fs_db_ping(ping_conninfo);
                apr_thread_mutex_lock(mutex);
                if (!up) {
                    apr_atomic_set64(&acquire_failed, (apr_uint64_t)apr_time_now());
                    rc = FORMSVC_DBPOOL_DOWN;
                    break;
                }
            }
        }
        if (placed)
            break; /* handed a place, and the database is not suspected */
        if (!pool_max() || (in_use < pool_max() && !q_head)) {
            in_use++;
            break;
        }
        if (!waited++)
            formsvc_metric_inc(FORMSVC_M_DB_WAITS);
        if (!wait_turn(deadline)) {
            rc = FORMSVC_DBPOOL_BUSY;
            break;
        }
        placed = 1; /* look at the database's state again before going on */
    }
    if (rc != FORMSVC_DBPOOL_OK && placed)
        release_place();
    if (rc != FORMSVC_DBPOOL_OK && *probe)
        probing = *probe = 0;
    apr_thread_mutex_unlock(mutex);
    return rc;
}

void formsvc_dbpool_leave(int probe) {
    if (!mutex)
        return;
    apr_thread_mutex_lock(mutex);
    release_place();
    if (probe) {
        probing = 0;
        apr_thread_cond_broadcast(freed);
    }
    apr_thread_mutex_unlock(mutex);
}

/* The connection's own pool goes when mod_dbd closes it. */
static apr_status_t conn_closed(void *data) {
    (void)data;
    formsvc_gauge_add(FORMSVC_G_DB_OPEN, -1);
    return APR_SUCCESS;
}

void formsvc_dbpool_note_open(ap_dbd_t *d) {
    formsvc_gauge_add(FORMSVC_G_DB_HELD, 1);
    void *seen = NULL;
    if (!d->pool || (apr_pool_userdata_get(&seen, "formsvc-counted", d->pool), seen))
        return;
    apr_pool_userdata_setn("", "formsvc-counted", NULL, d->pool);
    formsvc_gauge_add(FORMSVC_G_DB_OPEN, 1);
    apr_pool_cleanup_register(d->pool, NULL, conn_closed, apr_pool_cleanup_null);
}

void formsvc_dbpool_unreachable(void) {
    apr_time_t now = apr_time_now();
    apr_atomic_set64(&acquire_failed, (apr_uint64_t)now);
    if (!mutex)
        return;
    apr_thread_mutex_lock(mutex);
    backoff = !backoff                         ? OPEN_BACKOFF_MIN
              : backoff * 2 > OPEN_BACKOFF_MAX ? OPEN_BACKOFF_MAX
                                               : backoff * 2;
    open_failed = now;
    apr_thread_mutex_unlock(mutex);
}

/* The connection an initial request holds: taken through the gate on first
 * use and given back (connection first, then the gate's place) when the
 * request's pool goes, or earlier by formsvc_dbpool_release. ap_dbd_open
 * and ap_dbd_close rather than ap_dbd_acquire, which ties the connection to
 * the request for its whole life: a long poll must not hold one while it
 * sleeps. Not ap_dbd_cacquire either: under the event MPM a connection
 * must not be held across keep-alive idle time. Lives in the initial
 * request's pool; internal redirects and subrequests share it. */
typedef struct held_db {
    server_rec *s;
    ap_dbd_t *d; /* NULL: no connection now */
    int entered; /* a place of the gate is taken */
    int probe;   /* ... as the thread finding out whether the database is back */
} held_db;

static APR_OPTIONAL_FN_TYPE(ap_dbd_open) * dbd_open;
static APR_OPTIONAL_FN_TYPE(ap_dbd_close) * dbd_close;

static apr_status_t give_back(void *data) {
    held_db *h = data;
    if (h->d) {
        dbd_close(h->s, h->d);
        h->d = NULL;
        formsvc_gauge_add(FORMSVC_G_DB_HELD, -1);
    }
    if (h->entered) {
        formsvc_dbpool_leave(h->probe);
        h->entered = h->probe = 0;
    }
    return APR_SUCCESS;
}

static request_rec *initial_request(request_rec *r) {
    while (!ap_is_initial_req(r))
        r = r->prev ? r->prev : r->main;
    return r;
}

ap_dbd_t *formsvc_dbpool_acquire(request_rec *r) {
    if (!dbd_open) {
        dbd_open = APR_RETRIEVE_OPTIONAL_FN(ap_dbd_open);
        dbd_close = APR_RETRIEVE_OPTIONAL_FN(ap_dbd_close);
    }
    if (!dbd_open || !dbd_close)
        return NULL;
    request_rec *ir = initial_request(r);
    held_db *h = NULL;
    apr_pool_userdata_get((void **)&h, "formsvc-dbpool", ir->pool);
    if (!h) {
        h = apr_pcalloc(ir->pool, sizeof(*h));
        h->s = ir->server;
        apr_pool_cleanup_register(ir->pool, h, give_back, apr_pool_cleanup_null);
        apr_pool_userdata_setn(h, "formsvc-dbpool", NULL, ir->pool);
    }
    if (h->d)
        return h->d;
    if (!h->entered) {
        int rc = formsvc_dbpool_enter(&h->probe);
        if (rc != FORMSVC_DBPOOL_OK)
            formsvc_metric_inc(rc == FORMSVC_DBPOOL_BUSY ? FORMSVC_M_DB_WAIT_TIMEOUTS
                                                         : FORMSVC_M_DB_DOWN_FAST);
        if (rc == FORMSVC_DBPOOL_BUSY) {
            FORMSVC_LOG(r, APLOG_WARNING, 02153,
                        "no pooled database connection came free within %d s", timeout_sec());
            return NULL;
        }
        if (rc == FORMSVC_DBPOOL_DOWN) {
            FORMSVC_LOG(r, APLOG_INFO, 02154,
                        "database unreachable a moment ago and being retried by another "
                        "request: answering 503 at once");
            return NULL;
        }
        h->entered = 1;
    }
    h->d = dbd_open(ir->pool, ir->server);
    if (h->d)
        formsvc_dbpool_note_open(h->d);
    else {
        formsvc_metric_inc(FORMSVC_M_DB_OPEN_FAILED);
        formsvc_dbpool_unreachable();
        give_back(h);
    }
    return h->d;
}

int formsvc_dbpool_release(request_rec *r) {
    held_db *h = NULL;
    apr_pool_userdata_get((void **)&h, "formsvc-dbpool", initial_request(r)->pool);
    if (!h)
        return 1;
    if (h->d && fs_db_in_transaction(h->d->driver, h->d->handle))
        return 0; /* it goes back when the transaction's owner is done */
    give_back(h);
    return 1;
}
