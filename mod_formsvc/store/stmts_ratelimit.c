/* Statements of the PostgreSQL rate-limit store (FormsvcRateLimitStore pgsql). */
#include "stmts.h"

const fs_stmt fs_stmts_ratelimit[] = {
    /* 1 key (hash of bucket and window), 2 window end (epoch seconds).
     * Counts one hit atomically; returns the count including it. */
    {"fs_ratelimit_hit",
     "INSERT INTO ratelimit AS r (key, count, expires_at) "
     "VALUES (%s, 1, to_timestamp(%s::bigint)) "
     "ON CONFLICT (key) DO UPDATE SET count = r.count + 1 RETURNING r.count::text"},

    /* Drops counters of ended windows. */
    {"fs_ratelimit_sweep", "DELETE FROM ratelimit WHERE expires_at < now() - interval '1 minute'"},

    {NULL, NULL}};
