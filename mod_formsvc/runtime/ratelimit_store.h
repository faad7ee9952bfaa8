/* ratelimit_store: where rate-limit counters live. Each store is a provider
 * in httpd's provider registry (ap_provider.h), group
 * FORMSVC_RL_STORE_GROUP, under the name FormsvcRateLimitStore takes; the
 * directive looks it up at configuration time, so a name nothing registered
 * fails configtest. A new store is a new file that registers itself here.
 *
 * A store only counts: it adds one hit to the counter of (bucket, window)
 * and says how many hits that window holds now, atomically for every
 * process (and machine) that shares it. The decision (fs_rl_decide) is the
 * caller's. httpd's socache providers (shmcb, memcache, redis) are not
 * stores: they have no atomic increment, and shmcb scrolls live entries out
 * (docs/architecture.md, "Rate-limit stores"). */
#ifndef FORMSVC_RATELIMIT_STORE_H
#define FORMSVC_RATELIMIT_STORE_H

#include <httpd.h>
#include <stdint.h>

#define FORMSVC_RL_STORE_GROUP "formsvc-ratelimit"
#define FORMSVC_RL_STORE_VERSION "0"

/* One hit to count: bucket (any string; stores hash it) in the window of
 * window seconds that starts at window_start; now is the request's time
 * (epoch seconds). */
typedef struct formsvc_rl_hit {
    const char *bucket;
    int window;
    int64_t window_start;
    int64_t now;
} formsvc_rl_hit;

typedef struct formsvc_rl_store {
    const char *name;
    /* Configuration time: checks the directive's argument (NULL when none
     * was given). NULL when fine, else the message configtest shows. */
    const char *(*check)(apr_pool_t *p, const char *arg);
    /* post_config and child_init, once each, with the main server, when at
     * least one server uses the store; NULL: nothing to do. post_config
     * returns OK or an HTTP status that stops the start. */
    int (*post_config)(apr_pool_t *pconf, server_rec *s);
    void (*child_init)(apr_pool_t *pchild, server_rec *s);
    /* Counts the hit: 0 with *count the hits in its window including this
     * one; -1 when the store failed (the caller logs and allows). arg is
     * the directive's argument of r's server. */
    int (*hit)(request_rec *r, const char *arg, const formsvc_rl_hit *h, int64_t *count);
} formsvc_rl_store;

/* The stores this module brings, each in its own file. */
extern const formsvc_rl_store formsvc_rl_store_local;    /* ratelimit_local.c */
extern const formsvc_rl_store formsvc_rl_store_pgsql;    /* ratelimit_pgsql.c */
extern const formsvc_rl_store formsvc_rl_store_memcache; /* ratelimit_memcache.c */

/* register_hooks: puts the stores above in httpd's provider registry. */
void formsvc_rl_stores_register(apr_pool_t *p);

/* The store registered under name, or NULL. */
const formsvc_rl_store *formsvc_rl_store_lookup(const char *name);

#endif
