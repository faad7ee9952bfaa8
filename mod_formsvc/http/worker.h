/* worker: the one shape of the background threads of an httpd child (the
 * mail outbox and webhook delivery workers).
 *
 * A worker thread runs its round function about once a second until the
 * child exits. Stopping is ordered deliberately: the stop is a pre-cleanup
 * of the child pool, which APR runs before it destroys any subpool, so the
 * thread is told to stop (an atomic flag, plus a condition variable that
 * cuts its sleep short) and joined while mod_dbd's connection pool (a
 * subpool of the child pool) still exists. A round must give back every
 * connection it took before it returns, and should not keep one while it
 * waits on the network: use formsvc_worker_db() around database work
 * only. */
#ifndef FORMSVC_WORKER_H
#define FORMSVC_WORKER_H

#include "glue.h"

typedef struct formsvc_worker formsvc_worker;

/* One round of work. p is cleared after the round. round counts from 0. */
typedef void formsvc_worker_round(formsvc_worker *w, apr_pool_t *p, server_rec *s,
                                  unsigned long round);

/* child_init: starts a worker thread named name (for log lines). Returns
 * NULL (and logs) when the thread cannot be started. */
formsvc_worker *formsvc_worker_start(apr_pool_t *pchild, server_rec *s, const char *name,
                                     formsvc_worker_round *fn);

/* 1 once the child is exiting: finish the item at hand and return. */
int formsvc_worker_stopping(formsvc_worker *w);

/* A pooled connection for a worker: fills *db and returns the mod_dbd
 * handle to give back with formsvc_worker_db_close, or NULL when the
 * database cannot be reached (or the worker is stopping). */
void *formsvc_worker_db(formsvc_worker *w, apr_pool_t *p, fs_db *db);
void formsvc_worker_db_close(formsvc_worker *w, void *handle);

#endif
