/* fs_ratelimit: the arithmetic of fixed-window rate limits, shared by every
 * backend (per-machine shared memory, PostgreSQL, memcached).
 *
 * A limit is "limit hits per window_seconds" for one bucket (a string such
 * as "signup:203.0.113.7"). Windows are aligned to multiples of
 * window_seconds since the epoch, so every process and every machine agrees
 * on which window a moment belongs to without talking to each other; a
 * backend only has to count hits atomically per (bucket, window). Every hit
 * counts, refused ones too, so a client that keeps hammering stays refused
 * until the window ends. Nothing here includes httpd headers or takes a
 * lock. */
#ifndef FS_RATELIMIT_H
#define FS_RATELIMIT_H

#include <apr_pools.h>
#include <stdatomic.h>
#include <stdint.h>

typedef struct fs_rl_result {
    int allowed;     /* 1: under the limit */
    int limit;       /* the limit (RateLimit-Limit) */
    int remaining;   /* hits left in this window (RateLimit-Remaining), >= 0 */
    int reset;       /* seconds until the window ends (RateLimit-Reset), >= 1 */
    int retry_after; /* seconds to wait when refused (== reset), 0 when allowed */
} fs_rl_result;

/* Start of the window that contains now (epoch seconds). */
int64_t fs_rl_window_start(int64_t now, int window_seconds);

/* The decision once the backend counted this hit: count is the number of
 * hits in the window including this one. */
void fs_rl_decide(int limit, int window_seconds, int64_t now, int64_t count, fs_rl_result *out);

/* A stable 64-bit hash of a bucket name (FNV-1a); never 0. */
uint64_t fs_rl_hash(const char *bucket);
/* The key a shared store keeps for (bucket, window): hex of a SHA-256 of
 * both, so raw client addresses are never stored. 64 characters, in p. */
char *fs_rl_store_key(apr_pool_t *p, const char *bucket, int64_t window_start);

/* The part of a client address that a per-address limit counts: an IPv4
 * address as it is, an IPv6 address by its /64 network (one subscriber
 * usually holds a whole /64 and could rotate through it), an IPv4-mapped
 * IPv6 address as its IPv4 address. Anything unparsable as it is. In p. */
const char *fs_rl_client_key(apr_pool_t *p, const char *ip);

/* The key under which a counter of one client address is stored in a table
 * that outlives the request (the token endpoint's failure counter): lower-case
 * hex HMAC-SHA-256 under the pepper (plain SHA-256 when pepper_len is 0) of
 * purpose and fs_rl_client_key(ip), so an IPv6 client counts by its /64 and
 * no raw address is ever stored. 64 characters, in p; NULL on failure. */
char *fs_rl_address_key(apr_pool_t *p, const unsigned char *pepper, apr_size_t pepper_len,
                        const char *purpose, const char *ip);

/* A counter table in memory shared by processes (open addressing),
 * updated with atomic compare-and-swap only: no lock, so no process-wide
 * mutex on the request path. The 64-bit atomics are lock-free on every
 * platform httpd runs this on, hence valid across processes in shared
 * memory. */
typedef struct fs_rl_slot {
    _Atomic uint64_t key;   /* fs_rl_slot_key of (bucket hash, window); 0: empty */
    _Atomic uint64_t state; /* window end (epoch seconds) << 32 | count */
} fs_rl_slot;

#define FS_RL_PROBES 16

/* The identity of a counter: the bucket's hash mixed with the window
 * length (the same bucket under two window lengths is two counters). */
uint64_t fs_rl_slot_key(uint64_t key, int window);

/* Counts one hit for key in the window [window_end - window, window_end) and
 * returns the count including it. A slot of an ended window is reused; when
 * every probed slot holds a live window of another key, the one that ends
 * soonest is taken over (its count is lost: the table is too small, see
 * FormsvcRateLimitSlots) and *evicted is set. Safe to call from many
 * processes and threads at once on the same table. */
uint32_t fs_rl_table_hit(fs_rl_slot *slots, uint32_t nslots, uint64_t key, int window,
                         int64_t window_end, int64_t now, int *evicted);

#endif
