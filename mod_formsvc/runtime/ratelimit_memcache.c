/* ratelimit_memcache: the memcache store. memcached's incr, and add when
 * the counter does not exist yet (both atomic in memcached, so exact for
 * every machine using that memcached), with the window as expiry. Not
 * mod_socache_memcache: the socache interface has only get and set, and
 * two machines that read n both write n + 1. Keys are SHA-256 of bucket
 * and window (no raw address).
 *
 * The client is our own (the text protocol: two commands) rather than
 * APR's apr_memcache, whose sockets have no time limit once connected: a
 * memcached that stops answering (frozen, a network cut without a reset)
 * held every rate-limited request forever, a public submission with its
 * thread. Here connecting, sending and each answer are bounded by
 * MC_TIMEOUT; a failure drops that connection, allows the hit (as for any
 * store failure) and lets the child's requests skip memcached for
 * MC_BACKOFF, so a silent memcached costs one request of a child one
 * MC_TIMEOUT at a time, not every request. */
#include "runtime/config.h"
#include "runtime/config_accounts.h"
#include "runtime/log.h"
#include "runtime/ratelimit_store.h"

#include "fs_ratelimit.h"

#include <apr_atomic.h>
#include <apr_hash.h>
#include <apr_network_io.h>
#include <apr_reslist.h>
#include <apr_strings.h>

#include <stdlib.h>
#include <string.h>

APLOG_USE_MODULE(formsvc);

#define MC_TIMEOUT apr_time_from_msec(500)
#define MC_BACKOFF apr_time_from_sec(2)

/* One connection to memcached; lives in its own pool (reslist resource). */
typedef struct mc_conn {
    apr_pool_t *pool;
    apr_socket_t *sock;
} mc_conn;

/* Per child: a client per memcached address that a server names
 * (FormsvcRateLimitStore memcache host:port is per server: two virtual
 * hosts may count in two memcacheds), keyed by that argument: its
 * address, its connections, and until when to skip it. */
typedef struct mc_client {
    apr_sockaddr_t *addr;
    apr_reslist_t *conns;
    volatile apr_uint64_t skip_until; /* apr_time_t */
} mc_client;
static apr_hash_t *clients;
/* The child's pool is being destroyed: its subpools, the connections'
 * among them, are gone before the reslist's own cleanup destroys the
 * resources (as mod_dbd's dbd_setup explains), so they are not destroyed
 * twice. */
static int mc_exiting;

static apr_status_t mc_exit(void *data) {
    (void)data;
    mc_exiting = 1;
    return APR_SUCCESS;
}

static apr_status_t mc_construct(void **out, void *params, apr_pool_t *pool) {
    const apr_sockaddr_t *addr = ((const mc_client *)params)->addr;
    apr_pool_t *p;
    apr_status_t rv = apr_pool_create(&p, pool);
    if (rv != APR_SUCCESS)
        return rv;
    mc_conn *c = apr_pcalloc(p, sizeof(*c));
    c->pool = p;
    if ((rv = apr_socket_create(&c->sock, addr->family, SOCK_STREAM, APR_PROTO_TCP, p)) ||
        (rv = apr_socket_timeout_set(c->sock, MC_TIMEOUT)) ||
        (rv = apr_socket_connect(c->sock, (apr_sockaddr_t *)addr))) {
        apr_pool_destroy(p);
        return rv;
    }
    apr_socket_opt_set(c->sock, APR_TCP_NODELAY, 1);
    *out = c;
    return APR_SUCCESS;
}

static apr_status_t mc_destruct(void *resource, void *params, apr_pool_t *pool) {
    (void)params;
    (void)pool;
    if (!mc_exiting)
        apr_pool_destroy(((mc_conn *)resource)->pool); /* closes the socket */
    return APR_SUCCESS;
}

/* A client per address the servers name, each with up to 64 connections. */
static void memcache_child_init(apr_pool_t *p, server_rec *s) {
    int any = 0;
    clients = apr_hash_make(p);
    for (server_rec *sp = s; sp; sp = sp->next) {
        formsvc_acct *a = formsvc_conf(sp)->acct;
        if (a->store != &formsvc_rl_store_memcache || !a->store_arg ||
            apr_hash_get(clients, a->store_arg, APR_HASH_KEY_STRING))
            continue;
        mc_client *mc = apr_pcalloc(p, sizeof(*mc));
        char *host, *scope;
        apr_port_t port;
        if (apr_parse_addr_port(&host, &scope, &port, a->store_arg, p) != APR_SUCCESS || !host ||
            !port ||
            apr_sockaddr_info_get(&mc->addr, host, APR_UNSPEC, port, 0, p) != APR_SUCCESS ||
            apr_reslist_create(&mc->conns, 0, 1, 64, apr_time_from_sec(60), mc_construct,
                               mc_destruct, mc, p) != APR_SUCCESS) {
            FORMSVC_SLOG(sp, APLOG_ERR, 0, 00604,
                         "FormsvcRateLimitStore memcache %s: cannot set up the "
                         "client; rate limits are not enforced",
                         a->store_arg);
            continue;
        }
        /* a thread waits at most that long for one of the 64 connections */
        apr_reslist_timeout_set(mc->conns, MC_TIMEOUT);
        apr_hash_set(clients, a->store_arg, APR_HASH_KEY_STRING, mc);
        any = 1;
    }
    /* registered after the reslists': runs before their cleanups */
    if (any)
        apr_pool_cleanup_register(p, NULL, mc_exit, apr_pool_cleanup_null);
}

/* Sends cmd and reads memcached's one-line answer (without CRLF) into
 * line; each step within MC_TIMEOUT (the socket's). */
static apr_status_t mc_call(mc_conn *c, const char *cmd, char *line, apr_size_t cap) {
    apr_size_t len = strlen(cmd), off = 0;
    while (off < len) {
        apr_size_t n = len - off;
        apr_status_t rv = apr_socket_send(c->sock, cmd + off, &n);
        if (rv != APR_SUCCESS)
            return rv;
        off += n;
    }
    apr_size_t have = 0;
    for (;;) {
        apr_size_t n = cap - 1 - have;
        if (!n)
            return APR_EGENERAL; /* no answer of ours is that long */
        apr_status_t rv = apr_socket_recv(c->sock, line + have, &n);
        if (rv != APR_SUCCESS && !(rv == APR_EOF && n))
            return rv == APR_EOF ? APR_ECONNRESET : rv;
        have += n;
        line[have] = '\0';
        char *end = strstr(line, "\r\n");
        if (end) {
            if (end + 2 != line + have)
                return APR_EGENERAL; /* more than one answer: out of step */
            *end = '\0';
            return APR_SUCCESS;
        }
    }
}

/* incr, then add when there is no counter yet: 0 with *count, or -1. */
static int mc_count(apr_pool_t *p, mc_conn *c, const char *key, int window, int64_t *count) {
    char line[64];
    for (int attempt = 0; attempt < 3; attempt++) {
        if (mc_call(c, apr_psprintf(p, "incr %s 1\r\n", key), line, sizeof(line)))
            return -1;
        if (line[0] >= '0' && line[0] <= '9') {
            *count = (int64_t)apr_atoi64(line);
            return 0;
        }
        if (strcmp(line, "NOT_FOUND"))
            return -1;
        /* add is atomic: one process creates the counter; the others get
         * NOT_STORED and increment it */
        if (mc_call(c, apr_psprintf(p, "add %s 0 %d 1\r\n1\r\n", key, window + 5), line,
                    sizeof(line)))
            return -1;
        if (!strcmp(line, "STORED")) {
            *count = 1;
            return 0;
        }
        if (strcmp(line, "NOT_STORED"))
            return -1;
    }
    return -1;
}

static int memcache_hit(request_rec *r, const char *arg, const formsvc_rl_hit *h, int64_t *count) {
    mc_client *mc = clients && arg ? apr_hash_get(clients, arg, APR_HASH_KEY_STRING) : NULL;
    if (!mc)
        return -1;
    apr_time_t now = apr_time_now();
    if ((apr_time_t)apr_atomic_read64(&mc->skip_until) > now)
        return -1; /* failed a moment ago: not waited for again yet */
    const char *hex = fs_rl_store_key(r->pool, apr_psprintf(r->pool, "%s|%d", h->bucket, h->window),
                                      h->window_start);
    if (!hex)
        return -1;
    const char *key = apr_pstrcat(r->pool, "formsvc:rl:", hex, NULL);
    void *res = NULL;
    int rc = -1;
    if (apr_reslist_acquire(mc->conns, &res) == APR_SUCCESS) {
        rc = mc_count(r->pool, res, key, h->window, count);
        if (rc == 0)
            apr_reslist_release(mc->conns, res);
        else
            apr_reslist_invalidate(mc->conns, res); /* its state is unknown */
    }
    if (rc != 0) {
        apr_atomic_set64(&mc->skip_until, (apr_uint64_t)(apr_time_now() + MC_BACKOFF));
        FORMSVC_LOG(r, APLOG_WARNING, 00606, "memcached rate-limit store unreachable");
    }
    return rc;
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
