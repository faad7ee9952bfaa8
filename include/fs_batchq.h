/* fs_batchq: items that threads hand in to be stored together, a batch at
 * a time, by one of the threads that handed them in. Plain APR: the
 * module's queue of public submissions (runtime/submit_batch.c) is this
 * with the store's batch statement plugged in.
 *
 * A thread queues its item and, when no batch is in progress, leads: it
 * takes everything queued (at most max) and calls store for it, without
 * the queue's lock. Meanwhile others queue behind. When store returns, each
 * item of the batch is done and its thread wakes; when more queued
 * meanwhile, the oldest of those leads the next batch. Nobody waits on
 * purpose: a batch is what queued while the previous one was stored, a
 * single item when the queue is quiet. A store that fails still returns:
 * what it writes into its items is their outcome, and what queued behind
 * it goes on to the next leader.
 *
 * Memory and threads: an item lives in its thread's stack frame for the
 * length of fs_batchq_submit. store may write each item's outcome wherever
 * its data says (its thread's pool): every thread of the batch sleeps
 * until store has returned, and reads its outcome after waking. One mutex
 * per queue, held only to queue and hand out, never across store. Each
 * thread sleeps on a condition variable of its own, made once per thread
 * from the queue's pool (a thread switching between queues makes one anew:
 * the module has one queue per process). */
#ifndef FS_BATCHQ_H
#define FS_BATCHQ_H

#include <apr_pools.h>
#include <apr_thread_cond.h>

typedef struct fs_batchq fs_batchq;

/* One thread's item. data is the caller's; the rest is the queue's. */
typedef struct fs_batchq_item {
    void *data;
    apr_thread_cond_t *cv;
    int state;
    struct fs_batchq_item *next;
} fs_batchq_item;

/* Stores items[0..n-1] (1 <= n <= max) and writes each one's outcome
 * through its data. items[0] is the calling thread's own (the leader's:
 * its request's connection is the one to use). */
typedef void fs_batchq_store_fn(fs_batchq_item *const *items, int n);

/* A queue in p of batches of at most max items (at least 1). NULL when a
 * mutex or pool could not be made. */
fs_batchq *fs_batchq_create(apr_pool_t *p, int max, fs_batchq_store_fn *store);

/* Queues it (its data set by the caller) and returns once it is stored,
 * by this thread or another: 0. -1 when the queue cannot take it (no
 * condition variable for this thread): store it alone. */
int fs_batchq_submit(fs_batchq *q, fs_batchq_item *it);

/* Items queued and not yet taken into a batch (for tests). */
int fs_batchq_queued(fs_batchq *q);

#endif
