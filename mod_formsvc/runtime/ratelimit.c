/* ratelimit: the backends of fs_ratelimit.
 *  - local: a table of counters (fs_rl_slot) in anonymous shared memory made
 *    in post_config and inherited by every child, updated with atomic
 *    compare-and-swap (fs_rl_table_hit): no lock on the request path.
 *  - pgsql: an UNLOGGED table, one atomic INSERT ... ON CONFLICT DO UPDATE
 *    ... RETURNING per hit, through the request's pooled connection; a
 *    worker (worker.h) of each child sweeps ended windows away.
 *  - memcache: apr_memcache_incr, and apr_memcache_add when the counter does
 *    not exist yet (both atomic in memcached), with the window as expiry.
 * Keys of shared stores are SHA-256 of bucket and window (no raw address). */
#include "runtime/ratelimit.h"
#include "fs_store_ops.h"
#include "runtime/metrics.h"
#include "runtime/worker.h"

#include <apr_memcache.h>
#include <apr_shm.h>
#include <apr_strings.h>
#include <unistd.h>

APLOG_USE_MODULE(formsvc);

static apr_shm_t *shm;
static fs_rl_slot *slots;
static uint32_t nslots;
static apr_memcache_t *mc; /* per child, for FormsvcRateLimitStore memcache */

int formsvc_ratelimit_post_config(apr_pool_t *pconf, server_rec *s) {
    formsvc_acct *a = formsvc_conf(s)->acct;
    nslots = (uint32_t)a->slots;
    apr_size_t size = (apr_size_t)nslots * sizeof(fs_rl_slot);
    apr_status_t rv = apr_shm_create(&shm, size, NULL, pconf);
    if (rv != APR_SUCCESS) {
        FORMSVC_SLOG(s, APLOG_CRIT, rv, 00601,
                     "cannot create %" APR_SIZE_T_FMT " bytes of shared memory "
                     "for rate-limit counters",
                     size);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    slots = apr_shm_baseaddr_get(shm);
    memset(slots, 0, size);
    return OK;
}

/* The PostgreSQL store's counters of ended windows go about every minute
 * (from every child: the statement is cheap, and one that finds nothing to
 * delete costs an index probe). */
static const formsvc_sweep ratelimit_sweep = {fs_store_ratelimit_sweep};
static const formsvc_task ratelimit_tasks[] = {
    {"rate-limit sweep", 7, 60, formsvc_task_sweep, &ratelimit_sweep},
};

void formsvc_ratelimit_child_init(apr_pool_t *p, server_rec *s) {
    for (server_rec *sp = s; sp; sp = sp->next)
        if (formsvc_conf(sp)->acct->store == FORMSVC_STORE_PGSQL) {
            formsvc_worker_start(p, s, "rate-limit", ratelimit_tasks, 1);
            break;
        }
    /* One memcached client per child for the first server that names one. */
    for (server_rec *sp = s; sp && !mc; sp = sp->next) {
        formsvc_acct *a = formsvc_conf(sp)->acct;
        if (a->store != FORMSVC_STORE_MEMCACHE)
            continue;
        char *host, *scope;
        apr_port_t port;
        apr_memcache_server_t *ms;
        if (apr_parse_addr_port(&host, &scope, &port, a->memcache, p) != APR_SUCCESS || !host ||
            !port || apr_memcache_create(p, 1, 0, &mc) != APR_SUCCESS ||
            apr_memcache_server_create(p, host, port, 0, 1, 64, 60 * 1000000, &ms) != APR_SUCCESS ||
            apr_memcache_add_server(mc, ms) != APR_SUCCESS) {
            FORMSVC_SLOG(sp, APLOG_ERR, 0, 00604,
                         "FormsvcRateLimitStore memcache %s: cannot set up the "
                         "client; rate limits are not enforced",
                         a->memcache);
            mc = NULL;
            return;
        }
    }
}

/* Counts the hit; 0 on success with *count set, -1 when the store failed. */
static int count_local(request_rec *r, const char *bucket, int window, int64_t wstart, int64_t now,
                       int64_t *count) {
    if (!slots)
        return -1;
    int evicted = 0;
    *count =
        fs_rl_table_hit(slots, nslots, fs_rl_hash(bucket), window, wstart + window, now, &evicted);
    if (evicted)
        FORMSVC_LOG(r, APLOG_WARNING, 00605,
                    "rate-limit table full: a live counter was dropped; raise "
                    "FormsvcRateLimitSlots");
    return 0;
}

static int count_pgsql(request_rec *r, const char *key, int64_t wend, int64_t *count) {
    apr_int64_t n;
    if (fs_store_ratelimit_hit(formsvc_store(r), key, wend, &n))
        return -1;
    *count = n;
    return 0; /* counters of ended windows: the sweep task (ratelimit_tasks) */
}

static int count_memcache(request_rec *r, const char *key, int window, int64_t *count) {
    if (!mc)
        return -1;
    apr_uint32_t v = 0;
    for (int attempt = 0; attempt < 3; attempt++) {
        apr_status_t rv = apr_memcache_incr(mc, key, 1, &v);
        if (rv == APR_SUCCESS) {
            *count = v;
            return 0;
        }
        if (rv != APR_NOTFOUND)
            break;
        /* add is atomic: only one process creates the counter; the others
         * get APR_EEXIST and increment it. */
        rv = apr_memcache_add(mc, key, (char *)"1", 1, (apr_uint32_t)window + 5, 0);
        if (rv == APR_SUCCESS) {
            *count = 1;
            return 0;
        }
    }
    FORMSVC_LOG(r, APLOG_WARNING, 00606, "memcached rate-limit store unreachable");
    return -1;
}

void formsvc_ratelimit_headers(request_rec *r, const fs_rl_result *res) {
    apr_table_setn(r->err_headers_out, "RateLimit-Limit", apr_itoa(r->pool, res->limit));
    apr_table_setn(r->err_headers_out, "RateLimit-Remaining", apr_itoa(r->pool, res->remaining));
    apr_table_setn(r->err_headers_out, "RateLimit-Reset", apr_itoa(r->pool, res->reset));
}

fs_error *formsvc_ratelimit_check(request_rec *r, const char *bucket, int limit, int window,
                                  fs_rl_result *res) {
    memset(res, 0, sizeof(*res));
    res->allowed = 1;
    res->limit = limit;
    if (limit < 0)
        return NULL;
    if (window < 1)
        window = 1;
    formsvc_acct *a = formsvc_conf(r->server)->acct;
    int64_t now = (int64_t)apr_time_sec(apr_time_now());
    int64_t wstart = fs_rl_window_start(now, window), count = 0;
    int rc;
    if (a->store == FORMSVC_STORE_LOCAL) {
        rc = count_local(r, bucket, window, wstart, now, &count);
    } else {
        const char *key =
            fs_rl_store_key(r->pool, apr_psprintf(r->pool, "%s|%d", bucket, window), wstart);
        rc =
            a->store == FORMSVC_STORE_PGSQL
                ? count_pgsql(r, apr_pstrcat(r->pool, "rl:", key, NULL), wstart + window, &count)
                : count_memcache(r, apr_pstrcat(r->pool, "formsvc:rl:", key, NULL), window, &count);
    }
    if (rc != 0) {
        FORMSVC_LOG(r, APLOG_WARNING, 00607, "rate-limit store failed; hit allowed");
        fs_rl_decide(limit, window, now, 0, res);
        res->allowed = 1;
        return NULL;
    }
    fs_rl_decide(limit, window, now, count, res);
    if (res->allowed)
        return NULL;
    fs_error *e = fs_error_make(r->pool, "rate-limited",
                                "Too many requests; at most %d every %d seconds. Retry "
                                "after %d seconds.",
                                limit, window, res->retry_after);
    e->retry_after = res->retry_after;
    return e;
}

fs_error *formsvc_ratelimit_hit(request_rec *r, const char *bucket, int limit, int window) {
    fs_rl_result res;
    return formsvc_ratelimit_check(r, bucket, limit, window, &res);
}

fs_error *formsvc_ratelimit_address(request_rec *r, int rule, const char *suffix) {
    formsvc_acct *a = formsvc_conf(r->server)->acct;
    if (rule < 0 || rule >= FORMSVC_RL_N)
        return NULL;
    const formsvc_rl_rule *ru = &a->rule[rule];
    /* useragent_ip: the connection's address, or the client's as mod_remoteip
     * established it from a trusted proxy. Never a header read here. */
    const char *bucket = apr_pstrcat(r->pool, formsvc_rl_names[rule], ":",
                                     fs_rl_client_key(r->pool, r->useragent_ip), suffix ? ":" : "",
                                     suffix ? suffix : "", NULL);
    fs_rl_result res;
    fs_error *e = formsvc_ratelimit_check(r, bucket, ru->limit, ru->window, &res);
    /* public /v1 operations (signup, recover) show their limit too */
    const char *path = formsvc_req_get(r)->path;
    if (ru->limit >= 0 && path && !strncmp(path, "/v1/", 4))
        formsvc_ratelimit_headers(r, &res);
    if (e && e->status == 429)
        formsvc_metric_inc(FORMSVC_M_LIMITED_RATE);
    return e;
}

fs_error *formsvc_ratelimit_account(request_rec *r) {
    formsvc_principal *who = formsvc_req_get(r)->who;
    if (!who)
        return NULL;
    const formsvc_tier *t = &formsvc_conf(r->server)->tier[who->verified ? 1 : 0];
    fs_rl_result res;
    fs_error *e = formsvc_ratelimit_check(r, apr_pstrcat(r->pool, "api:", who->user_id, NULL),
                                          t->requests_minute, 60, &res);
    formsvc_ratelimit_headers(r, &res);
    /* for GET /v1/me */
    apr_table_setn(r->notes, "formsvc-api-used",
                   apr_itoa(r->pool, res.limit < 0 ? 0 : res.limit - res.remaining));
    apr_table_setn(r->notes, "formsvc-api-reset", apr_itoa(r->pool, res.reset));
    if (e && e->status == 429)
        formsvc_metric_inc(FORMSVC_M_LIMITED_QUOTA);
    return e;
}
