/* fs_batchq: items stored a batch at a time by one of the threads that
 * handed them in (see fs_batchq.h). */
#include "fs_batchq.h"

#include <apr_thread_mutex.h>
#include <stdatomic.h>

enum { ITEM_QUEUED, ITEM_LEAD, ITEM_DONE };

struct fs_batchq {
    int max;
    fs_batchq_store_fn *store;
    unsigned long id; /* tells this queue's thread condition variables from another's */
    apr_thread_mutex_t *mutex;
    apr_pool_t *cv_pool; /* the threads' condition variables, under the mutex */
    /* under the mutex */
    fs_batchq_item *q_head, *q_tail;
    int storing; /* a thread has a batch in hand; q_head is non-NULL only then */
    /* the batch in hand: the leader's alone (one at a time) */
    fs_batchq_item **taken;
};

static atomic_ulong next_id = 1;
/* This thread's condition variable, made for the queue numbered cv_queue. */
static _Thread_local unsigned long cv_queue;
static _Thread_local apr_thread_cond_t *cv_mine;

fs_batchq *fs_batchq_create(apr_pool_t *p, int max, fs_batchq_store_fn *store) {
    fs_batchq *q = apr_pcalloc(p, sizeof(*q));
    q->max = max < 1 ? 1 : max;
    q->store = store;
    q->id = atomic_fetch_add(&next_id, 1);
    q->taken = apr_pcalloc(p, sizeof(*q->taken) * (apr_size_t)q->max);
    if (apr_thread_mutex_create(&q->mutex, APR_THREAD_MUTEX_DEFAULT, p) != APR_SUCCESS ||
        apr_pool_create(&q->cv_pool, p) != APR_SUCCESS)
        return NULL;
    return q;
}

/* Stores the batch that starts at self (the head of the queue); with the
 * mutex held on entry and on return. */
static void store_batch(fs_batchq *q, fs_batchq_item *self) {
    int n = 0;
    while (q->q_head && n < q->max) {
        q->taken[n++] = q->q_head;
        q->q_head = q->q_head->next;
    }
    if (!q->q_head)
        q->q_tail = NULL;
    apr_thread_mutex_unlock(q->mutex);

    q->store(q->taken, n);

    apr_thread_mutex_lock(q->mutex);
    for (int i = 0; i < n; i++) {
        fs_batchq_item *it = q->taken[i];
        it->state = ITEM_DONE;
        if (it != self)
            apr_thread_cond_signal(it->cv);
    }
    if (q->q_head) { /* the next batch is the oldest waiter's to store */
        q->q_head->state = ITEM_LEAD;
        apr_thread_cond_signal(q->q_head->cv);
    } else {
        q->storing = 0;
    }
}

int fs_batchq_submit(fs_batchq *q, fs_batchq_item *it) {
    apr_thread_mutex_lock(q->mutex);
    if (cv_queue != q->id) {
        if (apr_thread_cond_create(&cv_mine, q->cv_pool) != APR_SUCCESS)
            cv_mine = NULL;
        cv_queue = cv_mine ? q->id : 0;
    }
    if (!cv_mine) {
        apr_thread_mutex_unlock(q->mutex);
        return -1;
    }
    it->cv = cv_mine;
    it->next = NULL;
    it->state = ITEM_QUEUED;
    if (q->q_tail)
        q->q_tail->next = it;
    else
        q->q_head = it;
    q->q_tail = it;
    if (!q->storing) {
        q->storing = 1;
        it->state = ITEM_LEAD;
    }
    while (it->state == ITEM_QUEUED)
        apr_thread_cond_wait(it->cv, q->mutex);
    if (it->state == ITEM_LEAD)
        store_batch(q, it);
    apr_thread_mutex_unlock(q->mutex);
    return 0;
}

int fs_batchq_queued(fs_batchq *q) {
    int n = 0;
    apr_thread_mutex_lock(q->mutex);
    for (fs_batchq_item *it = q->q_head; it; it = it->next)
        n++;
    apr_thread_mutex_unlock(q->mutex);
    return n;
}
