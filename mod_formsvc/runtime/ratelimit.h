/* ratelimit: rate limits for handlers. One call per limit; the counters
 * are shared by every httpd child (shared memory) or, with
 * FormsvcRateLimitStore pgsql|memcache, by every machine
 * (ratelimit_store.h). */
#ifndef FORMSVC_RATELIMIT_H
#define FORMSVC_RATELIMIT_H

#include <httpd.h>

#include "fs_error.h"
#include "fs_ratelimit.h"
#include "runtime/config_accounts.h" /* FORMSVC_RL_* */

/* Counts one hit on bucket (any string; it is hashed) against limit hits
 * per window_seconds. NULL when allowed; a 429 rate-limited problem with
 * retryAfter otherwise. limit < 0 means no limit. When the store cannot be
 * reached the hit is allowed (logged): a limit never takes the service down. */
fs_error *formsvc_ratelimit_hit(request_rec *r, const char *bucket, int limit, int window_seconds);
/* The same, filling *res for RateLimit-* headers. */
fs_error *formsvc_ratelimit_check(request_rec *r, const char *bucket, int limit, int window_seconds,
                                  fs_rl_result *res);
/* A configured per-client-address limit (FORMSVC_RL_*): the bucket is the
 * rule, r->useragent_ip (what mod_remoteip sets behind a trusted proxy) and
 * the optional suffix (a form id for submissions). */
fs_error *formsvc_ratelimit_address(request_rec *r, int rule, const char *suffix);
/* Sets the RateLimit-* headers (kept on error responses too). */
void formsvc_ratelimit_headers(request_rec *r, const fs_rl_result *res);

/* Hooks: post_config and child_init of each store some server uses
 * (ratelimit_store.h): the local table in post_config (kept across graceful
 * restarts), the memcached client and the pgsql sweep in child_init. */
int formsvc_ratelimit_post_config(apr_pool_t *pconf, server_rec *s);
void formsvc_ratelimit_child_init(apr_pool_t *p, server_rec *s);

#endif
