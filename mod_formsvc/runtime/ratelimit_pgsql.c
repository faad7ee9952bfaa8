/* ratelimit_pgsql: the pgsql store, an UNLOGGED table, one atomic
 * INSERT ... ON CONFLICT DO UPDATE ... RETURNING per hit through the
 * request's pooled connection (exact for every machine on the database);
 * a worker (worker.h) of each child sweeps ended windows away. Keys are
 * SHA-256 of bucket and window (no raw address). */
#include "runtime/config.h"
#include "runtime/ratelimit_store.h"
#include "runtime/worker.h"

#include "fs_ratelimit.h"
#include "fs_store_ops.h"
#include "runtime/request_ctx.h"

#include <apr_strings.h>

/* The counters of ended windows go about every minute (from every child:
 * the statement is cheap, and one that finds nothing to delete costs an
 * index probe). */
static const formsvc_sweep ratelimit_sweep = {fs_store_ratelimit_sweep};
static const formsvc_task ratelimit_tasks[] = {
    {"rate-limit sweep", 7, 60, formsvc_task_sweep, &ratelimit_sweep},
};

static void pgsql_child_init(apr_pool_t *p, server_rec *s) {
    FORMSVC_WORKER_START(p, s, "rate-limit", ratelimit_tasks);
}

static int pgsql_hit(request_rec *r, const char *arg, const formsvc_rl_hit *h, int64_t *count) {
    (void)arg;
    const char *key = fs_rl_store_key(r->pool, apr_psprintf(r->pool, "%s|%d", h->bucket, h->window),
                                      h->window_start);
    apr_int64_t n;
    if (!key || fs_store_ratelimit_hit(formsvc_store(r), apr_pstrcat(r->pool, "rl:", key, NULL),
                                       h->window_start + h->window, &n))
        return -1;
    *count = n;
    return 0;
}

static const char *pgsql_check(apr_pool_t *p, const char *arg) {
    (void)p;
    return arg ? "FormsvcRateLimitStore pgsql takes no argument (it uses DBDParams)" : NULL;
}

const formsvc_rl_store formsvc_rl_store_pgsql = {
    "pgsql", pgsql_check, NULL, pgsql_child_init, pgsql_hit,
};
