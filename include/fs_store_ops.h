/* fs_store_ops: the schema version, an account's usage, rate-limit
 * counters (mod_formsvc/store/ops_store.c). Conventions: fs_store.h. */
#ifndef FS_STORE_OPS_H
#define FS_STORE_OPS_H

#include "fs_store.h"

/* *ok is 1 when the database's schema is at least at version wanted;
 * *version is the version it is at (-1 when unknown). */
fs_error *fs_store_schema_version(fs_store *st, int wanted, int *ok, int *version);

/* The session's plan_cache_mode and jit settings (fs_db.c gives every
 * session force_generic_plan and off); NULL when unknown. */
fs_error *fs_store_session_planning(fs_store *st, const char **plan_cache_mode, const char **jit);

/* The account's usage as JSON (fs_account_usage in sql/: forms, fields,
 * submissions, monthResetsAt, keys, clients, webhooks); NULL when the
 * database gave none. */
fs_error *fs_store_account_usage(fs_store *st, const char *user_id, const char **json);

/* Counts one hit on the counter key (a hash of bucket and window) that
 * lives until window_end (epoch seconds); *count includes this hit. */
fs_error *fs_store_ratelimit_hit(fs_store *st, const char *key, apr_int64_t window_end,
                                 apr_int64_t *count);
/* Drops the counters of ended windows. */
fs_error *fs_store_ratelimit_sweep(fs_store *st);

#endif
