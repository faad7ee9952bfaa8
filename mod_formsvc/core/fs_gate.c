/* fs_gate: places handed over in arrival order with a bounded wait, and
 * one thread at a time finding out whether the resource is back (see
 * fs_gate.h). */
#include "fs_gate.h"

#include <apr_thread_cond.h>
#include <apr_thread_mutex.h>
#include <stdatomic.h>

/* While another thread probes: how often a waiter re-checks the verdict. */
#define PROBE_RECHECK apr_time_from_msec(20)
/* After a failure reported by fs_gate_unreachable the resource counts as
 * down for a while, doubling from BACKOFF_MIN to BACKOFF_MAX, so that
 * opening is tried a few times a minute rather than for every caller. */
#define BACKOFF_MIN apr_time_from_msec(250)
#define BACKOFF_MAX apr_time_from_sec(5)

/* A thread waiting for a place, in the queue oldest first. It lives in
 * its thread's stack frame (wait_turn) and is in the queue only while
 * that thread waits there. */
typedef struct waiter {
    apr_thread_cond_t *cv;
    struct waiter *next;
    int granted; /* the place of a thread that left is now this one's */
} waiter;

struct fs_gate {
    fs_gate_conf conf;
    unsigned long id; /* tells this gate's thread condition variables from another's */
    apr_thread_mutex_t *mutex;
    apr_thread_cond_t *freed; /* a probe's verdict may be in */
    apr_pool_t *cv_pool;      /* the waiters' condition variables, under the mutex */
    /* the rest under the mutex, except acquire_failed */
    int in_use, nwaiting;
    waiter *q_head, *q_tail;
    int probing; /* a thread is finding out while the resource is suspected down */
    _Atomic apr_time_t acquire_failed; /* the last fs_gate_unreachable or failed ping */
    apr_time_t open_failed;      /* the last fs_gate_unreachable, 0 once an answer came since */
    apr_interval_time_t backoff; /* how long it counts as down after it */
};

static atomic_ulong next_id = 1;
/* This thread's condition variable, made for the gate numbered cv_gate. */
static _Thread_local unsigned long cv_gate;
static _Thread_local apr_thread_cond_t *cv_mine;

fs_gate *fs_gate_create(apr_pool_t *p, const fs_gate_conf *conf) {
    fs_gate *g = apr_pcalloc(p, sizeof(*g));
    g->conf = *conf;
    g->id = atomic_fetch_add(&next_id, 1);
    atomic_init(&g->acquire_failed, 0);
    if (apr_thread_mutex_create(&g->mutex, APR_THREAD_MUTEX_DEFAULT, p) != APR_SUCCESS ||
        apr_thread_cond_create(&g->freed, p) != APR_SUCCESS ||
        apr_pool_create(&g->cv_pool, p) != APR_SUCCESS)
        return NULL;
    return g;
}

static apr_time_t clock_of(apr_time_t (*fn)(void *), void *ctx) {
    return fn ? fn(ctx) : 0;
}

/* Suspected down: the last sign of trouble is newer than the last answer. */
static int suspected(fs_gate *g) {
    apr_time_t bad = atomic_load(&g->acquire_failed), ok = clock_of(g->conf.last_ok, g->conf.ctx),
               unavail = clock_of(g->conf.last_unavailable, g->conf.ctx);
    if (unavail > bad)
        bad = unavail;
    return bad > ok;
}

/* With the mutex held: gives a place back, to the oldest waiter if any. */
static void release_place(fs_gate *g) {
    waiter *w = g->q_head;
    if (!w) {
        g->in_use--;
        return;
    }
    g->q_head = w->next;
    if (!g->q_head)
        g->q_tail = NULL;
    w->granted = 1;
    if (w->cv == g->freed)
        apr_thread_cond_broadcast(g->freed);
    else
        apr_thread_cond_signal(w->cv);
}

/* With the mutex held: queues this thread and waits until a leaving
 * thread hands it a place (1), or until deadline (0, out of the queue).
 * Without a condition variable of its own (no memory) it waits on freed,
 * which a hand-over to it broadcasts. */
static int wait_turn(fs_gate *g, apr_time_t deadline) {
    if (cv_gate != g->id) {
        if (apr_thread_cond_create(&cv_mine, g->cv_pool) != APR_SUCCESS)
            cv_mine = NULL;
        cv_gate = cv_mine ? g->id : 0;
    }
    waiter self = {cv_mine ? cv_mine : g->freed, NULL, 0}, *w = &self;
    if (g->q_tail)
        g->q_tail->next = w;
    else
        g->q_head = w;
    g->q_tail = w;
    g->nwaiting++;
    while (!w->granted) {
        if (!g->conf.timeout) {
            apr_thread_cond_wait(w->cv, g->mutex);
            continue;
        }
        apr_time_t left = deadline - apr_time_now();
        if (left <= 0)
            break;
        apr_thread_cond_timedwait(w->cv, g->mutex, left);
    }
    g->nwaiting--;
    if (w->granted)
        return 1;
    waiter **pp = &g->q_head, *prev = NULL;
    for (; *pp && *pp != w; pp = &(*pp)->next)
        prev = *pp;
    if (*pp)
        *pp = w->next;
    if (g->q_tail == w)
        g->q_tail = prev;
    return 0;
}

int fs_gate_enter(fs_gate *g, int *probe) {
    *probe = 0;
    if (!g)
        return FS_GATE_OK;
    apr_time_t now = apr_time_now();
    apr_time_t deadline = now + g->conf.timeout;
    apr_time_t down_deadline = now + g->conf.probe_wait;
    int rc = FS_GATE_OK, waited = 0, placed = 0;
    apr_thread_mutex_lock(g->mutex);
    for (;;) {
        if (!*probe && suspected(g)) {
            if (g->probing) {
                /* Another thread is finding out. Its first answer ends
                 * the suspicion (suspected() turns false) long before it
                 * gives its place back, so wait a moment for that,
                 * re-checking; a resource that stays silent costs each
                 * waiter at most probe_wait, not a connect timeout each
                 * in turn. */
                apr_time_t left = down_deadline - apr_time_now();
                if (left <= 0) {
                    rc = FS_GATE_DOWN;
                    break;
                }
                apr_thread_cond_timedwait(g->freed, g->mutex,
                                          left < PROBE_RECHECK ? left : PROBE_RECHECK);
                continue;
            }
            if (g->open_failed && clock_of(g->conf.last_ok, g->conf.ctx) > g->open_failed)
                g->open_failed = 0, g->backoff = 0; /* an answer came since */
            if (g->open_failed && apr_time_now() < g->open_failed + g->backoff) {
                rc = FS_GATE_DOWN;
                break;
            }
            g->probing = *probe = 1;
            if (g->conf.ping) {
                apr_thread_mutex_unlock(g->mutex);
                int up = g->conf.ping(g->conf.ctx);
                apr_thread_mutex_lock(g->mutex);
                if (!up) {
                    atomic_store(&g->acquire_failed, apr_time_now());
                    rc = FS_GATE_DOWN;
                    break;
                }
            }
        }
        if (placed)
            break; /* handed a place, and the resource is not suspected */
        if (!g->conf.max || (g->in_use < g->conf.max && !g->q_head)) {
            g->in_use++;
            break;
        }
        if (!waited++ && g->conf.waiting)
            g->conf.waiting(g->conf.ctx);
        if (!wait_turn(g, deadline)) {
            rc = FS_GATE_BUSY;
            break;
        }
        placed = 1; /* look at the resource's state again before going on */
    }
    if (rc != FS_GATE_OK && placed)
        release_place(g);
    if (rc != FS_GATE_OK && *probe)
        g->probing = *probe = 0;
    apr_thread_mutex_unlock(g->mutex);
    return rc;
}

void fs_gate_leave(fs_gate *g, int probe) {
    if (!g)
        return;
    apr_thread_mutex_lock(g->mutex);
    release_place(g);
    if (probe) {
        g->probing = 0;
        apr_thread_cond_broadcast(g->freed);
    }
    apr_thread_mutex_unlock(g->mutex);
}

void fs_gate_unreachable(fs_gate *g, apr_time_t now) {
    if (!g)
        return;
    atomic_store(&g->acquire_failed, now);
    apr_thread_mutex_lock(g->mutex);
    g->backoff = !g->backoff                    ? BACKOFF_MIN
                 : g->backoff * 2 > BACKOFF_MAX ? BACKOFF_MAX
                                                : g->backoff * 2;
    g->open_failed = now;
    apr_thread_mutex_unlock(g->mutex);
}

int fs_gate_in_use(fs_gate *g) {
    if (!g)
        return 0;
    apr_thread_mutex_lock(g->mutex);
    int n = g->in_use;
    apr_thread_mutex_unlock(g->mutex);
    return n;
}

int fs_gate_waiting(fs_gate *g) {
    if (!g)
        return 0;
    apr_thread_mutex_lock(g->mutex);
    int n = g->nwaiting;
    apr_thread_mutex_unlock(g->mutex);
    return n;
}
