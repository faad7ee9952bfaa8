/* The store of operations: the schema version, an account's usage for its
 * quotas, and the counters of the PostgreSQL rate-limit store
 * (FormsvcRateLimitStore pgsql). */
#include "fs_store_ops.h"
#include "store_int.h"

#include <apr_strings.h>

const fs_stmt fs_stmts_ops[] = {
    /* 1 schema version wanted: 't' when the database is at least there,
     * and the version it is at */
    {"fs_schema_ok", 1,
     "SELECT (COALESCE(max(version), 0) >= %s::integer)::text, COALESCE(max(version), 0)::text "
     "FROM schema_migrations"},

    /* how this session plans: plan_cache_mode, jit (fs_db.c sets them) */
    {"fs_session_planning", 0, "SELECT current_setting('plan_cache_mode'), current_setting('jit')"},

    /* 1 user id: usage json (fs_account_usage) */
    {"fs_account_usage", 1, "SELECT fs_account_usage(%s)::text"},

    /* 1 key (hash of bucket and window), 2 window end (epoch seconds).
     * Counts one hit atomically; returns the count including it. */
    {"fs_ratelimit_hit", 2,
     "INSERT INTO ratelimit AS r (key, count, expires_at) "
     "VALUES (%s, 1, to_timestamp(%s::bigint)) "
     "ON CONFLICT (key) DO UPDATE SET count = r.count + 1 RETURNING r.count::text"},

    /* Drops counters of ended windows. */
    {"fs_ratelimit_sweep", 0,
     "DELETE FROM ratelimit WHERE expires_at < now() - interval '1 minute'"},

    {NULL, 0, NULL}};

fs_error *fs_store_schema_version(fs_store *st, int wanted, int *ok, int *version) {
    const char *args[] = {FS_ARG_INT(st->pool, wanted)};
    fs_rows *rs;
    *ok = 0;
    *version = -1;
    fs_error *e = FS_RUN(st, "fs_schema_ok", args, 2, &rs);
    if (e || rs->nrows != 1)
        return e;
    *ok = fs_cell_bool(FS_CELL(rs, 0, 0));
    *version = fs_cell_int(FS_CELL(rs, 0, 1));
    return NULL;
}

fs_error *fs_store_session_planning(fs_store *st, const char **plan_cache_mode, const char **jit) {
    fs_rows *rs;
    *plan_cache_mode = *jit = NULL;
    fs_error *e = fs_store_run(st, "fs_session_planning", 0, NULL, 2, &rs);
    if (e || rs->nrows != 1)
        return e;
    *plan_cache_mode = FS_CELL(rs, 0, 0);
    *jit = FS_CELL(rs, 0, 1);
    return NULL;
}

fs_error *fs_store_account_usage(fs_store *st, const char *user_id, const char **json) {
    const char *args[] = {user_id};
    return FS_ONE(st, "fs_account_usage", args, json);
}

fs_error *fs_store_ratelimit_hit(fs_store *st, const char *key, apr_int64_t window_end,
                                 apr_int64_t *count) {
    const char *args[] = {key, apr_psprintf(st->pool, "%" APR_INT64_T_FMT, window_end)};
    fs_rows *rs;
    *count = 0;
    fs_error *e = FS_RUN(st, "fs_ratelimit_hit", args, 1, &rs);
    if (e)
        return e;
    if (rs->nrows != 1)
        return fs_error_internal(st->pool, "fs_ratelimit_hit answered %d rows", rs->nrows);
    *count = fs_cell_i64(FS_CELL(rs, 0, 0));
    return NULL;
}

fs_error *fs_store_ratelimit_sweep(fs_store *st) {
    fs_rows *rs;
    return fs_store_run(st, "fs_ratelimit_sweep", 0, NULL, 0, &rs);
}
