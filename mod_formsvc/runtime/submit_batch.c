/* submit_batch: the public submissions of one httpd child stored together
 * (see submit_batch.h). */
#include "runtime/submit_batch.h"
#include "runtime/log.h"
#include "runtime/metrics.h"
#include "runtime/request_ctx.h"

#include <apr_strings.h>
#include <apr_thread_cond.h>
#include <apr_thread_mutex.h>

APLOG_USE_MODULE(formsvc);

#define BATCH_MAX 64

enum { ITEM_QUEUED, ITEM_LEAD, ITEM_DONE };

typedef struct item {
    request_rec *r;
    const fs_new_submission *ns;
    fs_submit_result res; /* ITEM_DONE: in r's pool */
    fs_error *err;        /* ITEM_DONE: in r's pool, or NULL */
    apr_thread_cond_t *cv;
    int state;
    struct item *next;
} item;

/* per child */
static apr_thread_mutex_t *mutex;
static apr_pool_t *cv_pool; /* the threads' condition variables, under the mutex */
static item *q_head, *q_tail;
static int storing; /* a thread has a batch in hand; q_head is non-NULL only then */
static _Thread_local apr_thread_cond_t *thread_cv;

void formsvc_submit_batch_child_init(apr_pool_t *pchild, server_rec *s) {
    q_head = q_tail = NULL;
    storing = 0;
    if (apr_thread_mutex_create(&mutex, APR_THREAD_MUTEX_DEFAULT, pchild) != APR_SUCCESS ||
        apr_pool_create(&cv_pool, pchild) != APR_SUCCESS) {
        mutex = NULL;
        FORMSVC_SLOG(s, APLOG_WARNING, 0, 03750,
                     "cannot make the submission queue; submissions are stored one by one");
    }
}

/* A copy of e in p: what a waiter answers when its batch failed. */
static fs_error *error_copy(apr_pool_t *p, const fs_error *e) {
    fs_error *c = apr_pmemdup(p, e, sizeof(*e));
    c->slug = e->slug ? apr_pstrdup(p, e->slug) : NULL;
    c->detail = e->detail ? apr_pstrdup(p, e->detail) : NULL;
    c->cause = e->cause ? apr_pstrdup(p, e->cause) : NULL;
    c->errors = NULL; /* a database failure has neither */
    c->extra = NULL;
    c->www_authenticate = NULL;
    return c;
}

/* Stores the batch that starts at self (the head of the queue) with
 * self's connection; with the mutex held on entry and on return. */
static void store_batch(item *self) {
    const fs_new_submission *subs[BATCH_MAX];
    item *taken[BATCH_MAX];
    int n = 0;
    while (q_head && n < BATCH_MAX) {
        taken[n] = q_head;
        subs[n] = q_head->ns;
        n++;
        q_head = q_head->next;
    }
    if (!q_head)
        q_tail = NULL;
    apr_thread_mutex_unlock(mutex);

    request_rec *r = self->r;
    fs_store *st = formsvc_store(r);
    fs_submit_result *res = apr_pcalloc(r->pool, sizeof(*res) * (apr_size_t)n);
    fs_error **errs = apr_pcalloc(r->pool, sizeof(*errs) * (apr_size_t)n);
    fs_error *e = fs_store_public_submit_batch(st, subs, n, res);
    formsvc_metric_inc(FORMSVC_M_SUBMIT_BATCHES);
    formsvc_metric_batch(n);
    for (int i = 0; i < n; i++)
        errs[i] = e;
    /* Refused for something else than the database being away: for what
     * one member holds, perhaps. Each alone then, so that only that one
     * fails (nothing of the batch was stored). Never after a 504: the
     * batch may have been stored. */
    if (e && e->status != 503 && e->status != 504 && n > 1)
        for (int i = 0; i < n; i++)
            errs[i] = fs_store_public_submit(st, subs[i], 0, &res[i]);

    apr_thread_mutex_lock(mutex);
    for (int i = 0; i < n; i++) {
        item *it = taken[i];
        apr_pool_t *p = it->r->pool;
        it->err = !errs[i] ? NULL : it == self ? errs[i] : error_copy(p, errs[i]);
        it->res = res[i];
        if (it != self && res[i].json)
            it->res.json = apr_pstrdup(p, res[i].json);
        it->state = ITEM_DONE;
        if (it != self)
            apr_thread_cond_signal(it->cv);
    }
    if (q_head) { /* the next batch is the oldest waiter's to store */
        q_head->state = ITEM_LEAD;
        apr_thread_cond_signal(q_head->cv);
    } else {
        storing = 0;
    }
}

fs_error *formsvc_submit(request_rec *r, const fs_new_submission *ns, int exact,
                         fs_submit_result *out) {
    if (!mutex || !fs_store_public_batchable(ns, exact))
        return fs_store_public_submit(formsvc_store(r), ns, exact, out);
    /* a waiter needs no connection: one it holds (the rate limit may have
     * taken one) goes back, so the storing thread can always get its own */
    formsvc_db_release(r);
    item self = {r, ns, {0}, NULL, NULL, ITEM_QUEUED, NULL};
    apr_thread_mutex_lock(mutex);
    if (!thread_cv && apr_thread_cond_create(&thread_cv, cv_pool) != APR_SUCCESS)
        thread_cv = NULL;
    if (!thread_cv) {
        apr_thread_mutex_unlock(mutex);
        return fs_store_public_submit(formsvc_store(r), ns, exact, out);
    }
    self.cv = thread_cv;
    if (q_tail)
        q_tail->next = &self;
    else
        q_head = &self;
    q_tail = &self;
    if (!storing) {
        storing = 1;
        self.state = ITEM_LEAD;
    }
    while (self.state == ITEM_QUEUED)
        apr_thread_cond_wait(self.cv, mutex);
    if (self.state == ITEM_LEAD)
        store_batch(&self);
    apr_thread_mutex_unlock(mutex);
    *out = self.res;
    return self.err;
}
