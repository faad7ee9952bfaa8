/* ratelimit: rate limits for handlers. One call per limit; the counters
 * are shared by every httpd child (shared memory) or, with
 * FormsvcRateLimitStore pgsql|memcache, by every machine. */
#ifndef FORMSVC_RATELIMIT_H
#define FORMSVC_RATELIMIT_H

#include "fs_ratelimit.h"
#include "http/auth.h"
#include "http/request.h"
#include "http/response.h"
#include "http/router.h"
#include "runtime/config_accounts.h"

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
/* The per-account /v1 limit of the caller's tier (requests a minute), with
 * RateLimit-Limit, -Remaining and -Reset headers. Called by the router
 * after authentication. */
fs_error *formsvc_ratelimit_account(request_rec *r);
/* Sets the RateLimit-* headers (kept on error responses too). */
void formsvc_ratelimit_headers(request_rec *r, const fs_rl_result *res);

/* Hooks: the shared memory is made in post_config (children inherit it);
 * child_init sets up a memcached client when that store is configured. */
int formsvc_ratelimit_post_config(apr_pool_t *pconf, server_rec *s);
void formsvc_ratelimit_child_init(apr_pool_t *p, server_rec *s);

#endif
