/* ratelimit: rate limits for handlers, over the store FormsvcRateLimitStore
 * names (ratelimit_store.h: local, pgsql, memcache, each in its own file).
 * Here: the window, the decision, the headers, and the stores' hooks. */
#include "runtime/ratelimit.h"
#include "fs_store_ops.h"
#include "runtime/config.h"
#include "runtime/config_accounts.h"
#include "runtime/log.h"
#include "runtime/metrics.h"
#include "runtime/ratelimit_store.h"
#include "runtime/request_ctx.h"
#include "runtime/worker.h"

#include <ap_provider.h>
#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

static const formsvc_rl_store *const stores[] = {&formsvc_rl_store_local, &formsvc_rl_store_pgsql,
                                                 &formsvc_rl_store_memcache};
#define N_STORES (sizeof(stores) / sizeof(stores[0]))

void formsvc_rl_stores_register(apr_pool_t *p) {
    for (size_t i = 0; i < N_STORES; i++)
        ap_register_provider(p, FORMSVC_RL_STORE_GROUP, stores[i]->name, FORMSVC_RL_STORE_VERSION,
                             stores[i]);
}

const formsvc_rl_store *formsvc_rl_store_lookup(const char *name) {
    return ap_lookup_provider(FORMSVC_RL_STORE_GROUP, name, FORMSVC_RL_STORE_VERSION);
}

/* 1 when some server counts in st. */
static int store_used(server_rec *s, const formsvc_rl_store *st) {
    for (server_rec *sp = s; sp; sp = sp->next)
        if (formsvc_conf(sp)->acct->store == st)
            return 1;
    return 0;
}

/* The hooks of each store that some server uses, once, with the main server. */
int formsvc_ratelimit_post_config(apr_pool_t *pconf, server_rec *s) {
    for (size_t i = 0; i < N_STORES; i++) {
        int rc = stores[i]->post_config && store_used(s, stores[i])
                     ? stores[i]->post_config(pconf, s)
                     : OK;
        if (rc != OK)
            return rc;
    }
    return OK;
}

void formsvc_ratelimit_child_init(apr_pool_t *p, server_rec *s) {
    for (size_t i = 0; i < N_STORES; i++)
        if (stores[i]->child_init && store_used(s, stores[i]))
            stores[i]->child_init(p, s);
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
    int64_t count = 0;
    formsvc_rl_hit hit = {bucket, window, fs_rl_window_start(now, window), now};
    int rc = a->store->hit(r, a->store_arg, &hit, &count);
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
