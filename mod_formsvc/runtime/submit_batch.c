/* submit_batch: the public submissions of one httpd child stored together
 * (see submit_batch.h). */
#include "runtime/submit_batch.h"
#include "fs_batchq.h"
#include "runtime/log.h"
#include "runtime/metrics.h"
#include "runtime/request_ctx.h"

#include <apr_strings.h>
#include <apr_thread_cond.h>
#include <apr_thread_mutex.h>

APLOG_USE_MODULE(formsvc);

#define BATCH_MAX 64

/* One thread's submission (the data of its fs_batchq_item). */
typedef struct item {
    request_rec *r;
    const fs_new_submission *ns;
    fs_submit_result res; /* once stored: in r's pool */
    fs_error *err;        /* once stored: in r's pool, or NULL */
} item;

/* per child */
static fs_batchq *queue; /* NULL: submissions are stored one by one */

static void store_batch(fs_batchq_item *const *items, int n);

void formsvc_submit_batch_child_init(apr_pool_t *pchild, server_rec *s) {
    queue = fs_batchq_create(pchild, BATCH_MAX, store_batch);
    if (!queue)
        FORMSVC_SLOG(s, APLOG_WARNING, 0, 03750,
                     "cannot make the submission queue; submissions are stored one by one");
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

/* Stores a batch (fs_batchq_store_fn) with the connection of the thread
 * leading it (items[0]), and writes each waiter's outcome into its
 * request's pool. */
static void store_batch(fs_batchq_item *const *items, int n) {
    const fs_new_submission *subs[BATCH_MAX];
    for (int i = 0; i < n; i++)
        subs[i] = ((item *)items[i]->data)->ns;
    item *self = items[0]->data;

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

    for (int i = 0; i < n; i++) {
        item *it = items[i]->data;
        apr_pool_t *p = it->r->pool;
        it->err = !errs[i] ? NULL : it == self ? errs[i] : error_copy(p, errs[i]);
        it->res = res[i];
        if (it != self && res[i].json)
            it->res.json = apr_pstrdup(p, res[i].json);
    }
}

fs_error *formsvc_submit(request_rec *r, const fs_new_submission *ns, int exact,
                         fs_submit_result *out) {
    if (!queue || !fs_store_public_batchable(ns, exact))
        return fs_store_public_submit(formsvc_store(r), ns, exact, out);
    /* a waiter needs no connection: one it holds (the rate limit may have
     * taken one) goes back, so the storing thread can always get its own */
    formsvc_db_release(r);
    item self = {r, ns, {0}, NULL};
    fs_batchq_item qi = {&self, NULL, 0, NULL};
    if (fs_batchq_submit(queue, &qi) != 0)
        return fs_store_public_submit(formsvc_store(r), ns, exact, out);
    *out = self.res;
    return self.err;
}
