/* fs_gate: a bounded wait for one of a limited number of places (the
 * pooled database connections of an httpd child), and one thread at a
 * time finding out whether the resource behind them is back when it is
 * suspected down. Plain APR: the module's gate (runtime/dbpool.c) is this
 * with the store's clocks and ping plugged in.
 *
 * Places: at most max threads hold one at a time (0: no limit). A thread
 * that finds none free queues and waits, at most timeout; a thread that
 * leaves hands its place to the oldest waiter and wakes that one only, so
 * no newcomer overtakes a waiter and a release does not wake every waiter.
 *
 * Suspicion: the resource is suspected down when the last sign of trouble
 * (fs_gate_unreachable, or the last_unavailable clock) is newer than its
 * last answer (the last_ok clock). Then one thread at a time goes on to
 * find out (fs_gate_enter sets *probe), pinging first when there is a
 * ping; the others wait at most probe_wait for its verdict (the last_ok
 * clock moving past the trouble) and are answered FS_GATE_DOWN. After a
 * failure reported by fs_gate_unreachable the resource counts as down for
 * a back-off (250 ms, doubling to 5 s) unless an answer came since.
 *
 * Threads: every function may be called from any thread. One mutex per
 * gate; the clocks and waiting are called with it held (keep them short
 * and off the gate), ping without it. Each waiting
 * thread sleeps on a condition variable of its own, made once per thread
 * from the gate's pool (a thread switching between gates makes one anew:
 * the module has one gate per process). */
#ifndef FS_GATE_H
#define FS_GATE_H

#include <apr_pools.h>
#include <apr_time.h>

typedef struct fs_gate fs_gate;

typedef struct fs_gate_conf {
    int max;                        /* places; 0: no limit */
    apr_interval_time_t timeout;    /* longest wait for a place; 0: no limit */
    apr_interval_time_t probe_wait; /* longest wait for a probe's verdict */
    /* When the resource last answered, and when something other than the
     * gate last found it unreachable; NULL: never. */
    apr_time_t (*last_ok)(void *ctx);
    apr_time_t (*last_unavailable)(void *ctx);
    /* 1 when the resource answers now; called without the gate's lock by
     * the probing thread. NULL: no ping, the probe goes on to use it. */
    int (*ping)(void *ctx);
    /* A thread starts waiting for a place (once per fs_gate_enter, under
     * the gate's lock: keep it short). NULL: nothing. */
    void (*waiting)(void *ctx);
    void *ctx;
} fs_gate_conf;

/* A gate in p (it lives as long as p; conf is copied). NULL when a mutex,
 * condition variable or pool could not be made. */
fs_gate *fs_gate_create(apr_pool_t *p, const fs_gate_conf *conf);

enum { FS_GATE_OK, FS_GATE_BUSY, FS_GATE_DOWN };
/* Takes a place: FS_GATE_OK (give it back with fs_gate_leave, passing
 * *probe), FS_GATE_BUSY when none came free within the timeout,
 * FS_GATE_DOWN when the resource is suspected down and another thread is
 * finding out, or the probe's ping failed, or it is in its back-off. *probe
 * is 1 when this thread is the one finding out. FS_GATE_OK at once when g
 * is NULL. */
int fs_gate_enter(fs_gate *g, int *probe);
/* Gives a place back (to the oldest waiter if any); probe as fs_gate_enter
 * set it. No operation when g is NULL. */
void fs_gate_leave(fs_gate *g, int probe);
/* The resource could not be reached at now (an open failed): suspected
 * down from now on, and down for the back-off. No operation when g is
 * NULL. */
void fs_gate_unreachable(fs_gate *g, apr_time_t now);

/* Places held and threads waiting now (for tests and gauges). */
int fs_gate_in_use(fs_gate *g);
int fs_gate_waiting(fs_gate *g);

#endif
