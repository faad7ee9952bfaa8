/* worker: the one shape of the background threads of an httpd child.
 *
 * A worker is a thread that runs a fixed list of tasks, each about every
 * so many seconds, until the child exits: the mail worker drains the
 * outbox and sweeps old mail, the webhook worker feeds sender threads of
 * its own (a task that runs for the life of the child, webhooks_worker.c)
 * and sweeps old events, the rate-limit worker sweeps ended windows. A
 * queue that is drained (claim a batch under a lease, deliver each item
 * with no database connection held, record the outcomes) is a
 * formsvc_queue run by formsvc_task_drain.
 *
 * Memory: each run of a task gets its own pool, destroyed when it returns;
 * formsvc_task_drain gives each item its own subpool of that, destroyed
 * once the item's outcome is recorded. Nothing outlives a run.
 *
 * Stopping is ordered deliberately: the stop is a pre-cleanup of the child
 * pool, which APR runs before it destroys any subpool, so the thread is
 * told to stop (an atomic flag, plus a condition variable that cuts its
 * sleep short) and joined while mod_dbd's connection pool (a subpool of
 * the child pool) still exists. A task must give back every connection it
 * took before it returns, and should not keep one while it waits on the
 * network: use formsvc_worker_db() around database work only. */
#ifndef FORMSVC_WORKER_H
#define FORMSVC_WORKER_H

#include <httpd.h>

#include "fs_store.h"

typedef struct formsvc_worker formsvc_worker;

/* One run of a task. p is destroyed when it returns; data is the task's. */
typedef void formsvc_task_fn(formsvc_worker *w, apr_pool_t *p, server_rec *s, const void *data);

typedef struct formsvc_task {
    const char *name; /* for log lines */
    int first;        /* seconds after the worker starts before the first run */
    int every;        /* seconds from one run to the next (at least 1) */
    formsvc_task_fn *run;
    const void *data; /* passed to run; lives as long as the process */
} formsvc_task;

/* A queue for formsvc_task_drain. items is the queue's own (claim makes
 * it in p, the pool of the run); outcomes are what deliver returns. */
typedef struct formsvc_queue {
    /* With a connection (st): claims (and leases) up to a batch of due
     * items. Returns how many (0 when none or on failure), sets *items. */
    int (*claim)(apr_pool_t *p, server_rec *s, fs_store *st, void **items);
    /* With no connection held: delivers item i. ip is the item's pool,
     * kept until its outcome is recorded; the outcome (NULL is allowed)
     * lives there. */
    const void *(*deliver)(apr_pool_t *ip, server_rec *s, void *items, int i);
    /* With a connection (st): records the outcome of item i. */
    void (*record)(apr_pool_t *ip, server_rec *s, fs_store *st, void *items, int i,
                   const void *outcome);
} formsvc_queue;

/* A task that drains the formsvc_queue in data: one claim, the deliveries
 * (stopping early when the child exits: the items not tried yet stay
 * leased and go again after the lease, from this child or another), then
 * the outcomes. When the outcomes cannot be recorded the leases run out
 * and the items go again. */
formsvc_task_fn formsvc_task_drain;

/* A sweep of old rows: one store function, run on a pooled connection.
 * A failure is logged by the store (fs_store_on); the next run tries
 * again. */
typedef struct formsvc_sweep {
    fs_error *(*run)(fs_store *st);
} formsvc_sweep;

/* A task that runs the formsvc_sweep in data. */
formsvc_task_fn formsvc_task_sweep;

/* child_init, before any worker starts: what the workers' libraries need
 * once per process (libcurl's global state; released after every worker
 * has been joined). formsvc_worker_start refuses to start a thread before
 * it ran (FS02185). */
void formsvc_worker_child_init(apr_pool_t *pchild, server_rec *s);

/* child_init, after formsvc_worker_child_init: starts a worker thread named
 * name (for log lines) that runs the n tasks (the array lives as long as
 * the process). Returns NULL (and logs) when the thread cannot be started
 * or formsvc_worker_child_init has not run in this child. */
formsvc_worker *formsvc_worker_start(apr_pool_t *pchild, server_rec *s, const char *name,
                                     const formsvc_task *tasks, int n);

/* formsvc_worker_start with the number of tasks taken from the array
 * itself (tasks must be an array, not a pointer), so that adding a task
 * cannot leave a stale count behind. */
#define FORMSVC_WORKER_START(pchild, s, name, tasks)                                               \
    formsvc_worker_start((pchild), (s), (name), (tasks), (int)(sizeof(tasks) / sizeof((tasks)[0])))

/* 1 once the child is exiting: finish the item at hand and return. */
int formsvc_worker_stopping(formsvc_worker *w);
/* The flag formsvc_worker_stopping reads, for a long call (a delivery)
 * that can give up early once it is set. */
volatile apr_uint32_t *formsvc_worker_stop_flag(formsvc_worker *w);

/* A pooled connection for a worker: fills *db and returns the mod_dbd
 * handle to give back with formsvc_worker_db_close, or NULL when the
 * database cannot be reached. */
void *formsvc_worker_db(formsvc_worker *w, apr_pool_t *p, fs_db *db);
/* Gives the connection back. No operation when handle is NULL. */
void formsvc_worker_db_close(formsvc_worker *w, void *handle);

#endif
