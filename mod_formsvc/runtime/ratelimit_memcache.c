/* ratelimit_memcache: the memcache store, through APR's memcached client:
 * apr_memcache_incr, and apr_memcache_add when the counter does not exist
 * yet (both atomic in memcached, so exact for every machine using that
 * memcached), with the window as expiry. Not mod_socache_memcache: the
 * socache interface has only get and set, and two machines that read n
 * both write n + 1. Keys are SHA-256 of bucket and window (no raw
 * address). */
#include "runtime/config.h"
#include "runtime/config_accounts.h"
#include "runtime/log.h"
#include "runtime/ratelimit_store.h"

#include "fs_ratelimit.h"

#include <apr_hash.h>
#include <apr_memcache.h>
#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

/* Per child: one memcached client per address that a server names
 * (FormsvcRateLimitStore memcache host:port is per server: two virtual
 * hosts may count in two memcacheds), keyed by that argument. */
static apr_hash_t *clients;

static void memcache_child_init(apr_pool_t *p, server_rec *s) {
    clients = apr_hash_make(p);
    for (server_rec *sp = s; sp; sp = sp->next) {
        formsvc_acct *a = formsvc_conf(sp)->acct;
        if (a->store != &formsvc_rl_store_memcache || !a->store_arg ||
            apr_hash_get(clients, a->store_arg, APR_HASH_KEY_STRING))
            continue;
        char *host, *scope;
        apr_port_t port;
        apr_memcache_server_t *ms;
        apr_memcache_t *mc;
        if (apr_parse_addr_port(&host, &scope, &port, a->store_arg, p) != APR_SUCCESS || !host ||
            !port || apr_memcache_create(p, 1, 0, &mc) != APR_SUCCESS ||
            apr_memcache_server_create(p, host, port, 0, 1, 64, 60 * 1000000, &ms) != APR_SUCCESS ||
            apr_memcache_add_server(mc, ms) != APR_SUCCESS) {
            FORMSVC_SLOG(sp, APLOG_ERR, 0, 00604,
                         "FormsvcRateLimitStore memcache %s: cannot set up the "
                         "client; rate limits are not enforced",
                         a->store_arg);
            continue;
        }
        apr_hash_set(clients, a->store_arg, APR_HASH_KEY_STRING, mc);
    }
}

static int memcache_hit(request_rec *r, const char *arg, const formsvc_rl_hit *h, int64_t *count) {
    apr_memcache_t *mc = clients && arg ? apr_hash_get(clients, arg, APR_HASH_KEY_STRING) : NULL;
    if (!mc)
        return -1;
    const char *hex = fs_rl_store_key(r->pool, apr_psprintf(r->pool, "%s|%d", h->bucket, h->window),
                                      h->window_start);
    if (!hex)
        return -1;
    const char *key = apr_pstrcat(r->pool, "formsvc:rl:", hex, NULL);
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
        rv = apr_memcache_add(mc, key, (char *)"1", 1, (apr_uint32_t)h->window + 5, 0);
        if (rv == APR_SUCCESS) {
            *count = 1;
            return 0;
        }
    }
    FORMSVC_LOG(r, APLOG_WARNING, 00606, "memcached rate-limit store unreachable");
    return -1;
}

static const char *memcache_check(apr_pool_t *p, const char *arg) {
    char *host, *scope;
    apr_port_t port;
    if (!arg || !strchr(arg, ':') ||
        apr_parse_addr_port(&host, &scope, &port, arg, p) != APR_SUCCESS || !host || !port)
        return "FormsvcRateLimitStore memcache takes host:port, e.g. 127.0.0.1:11211";
    return NULL;
}

const formsvc_rl_store formsvc_rl_store_memcache = {
    "memcache", memcache_check, NULL, memcache_child_init, memcache_hit,
};
