/* The store of retention and bulk deletes of submissions: the statements
 * (argument order documented above each; all arguments are text, cast in
 * SQL) and the typed functions of fs_store_retention.h. The deletes are
 * the functions of sql/0043_retention.sql; each statement deletes one
 * batch by id (DELETE ... WHERE id IN (SELECT ... LIMIT n)), which works
 * the same on a partitioned table. */
#include "fs_store_retention.h"
#include "store_int.h"

#include <apr_strings.h>
#include <string.h>

const fs_stmt fs_stmts_retention[] = {
    /* no arguments: 't' when this session now holds the lock */
    {"fs_retention_lock", 0, "SELECT pg_try_advisory_lock(hashtext('formsvc.retention'))::text"},
    {"fs_retention_unlock", 0, "SELECT pg_advisory_unlock(hashtext('formsvc.retention'))::text"},

    /* 1 ceiling (days, 0: none), 2 unverified accounts' days (0: none),
     * 3 verified accounts' days (0: none), 4-5 after id (or NULL), 6 limit:
     * form id, user id, days (the smallest of the form's, the ceiling and
     * its account's tier, where set) */
    {"fs_retention_forms", 6,
     "WITH c AS (SELECT NULLIF(%s::integer, 0) AS ceiling, NULLIF(%s::integer, 0) AS unverified, "
     "  NULLIF(%s::integer, 0) AS verified), "
     "d AS (SELECT f.id, f.user_id, LEAST(CASE WHEN jsonb_typeof(f.settings->'retentionDays') = "
     "  'number' THEN (f.settings->>'retentionDays')::integer END, c.ceiling, "
     "  CASE WHEN u.verified THEN c.verified ELSE c.unverified END) AS days "
     "  FROM forms f JOIN users u ON u.id = f.user_id, c "
     "  WHERE (%s::text IS NULL OR f.id > %s::text) "
     "    AND (jsonb_typeof(f.settings->'retentionDays') = 'number' OR c.ceiling IS NOT NULL "
     "         OR c.unverified IS NOT NULL OR c.verified IS NOT NULL)) "
     "SELECT id, user_id, days::text FROM d WHERE days IS NOT NULL ORDER BY id LIMIT %s::integer"},

    /* 1 form id, 2 days, 3 limit: rows deleted */
    {"fs_retention_batch", 3,
     "SELECT fs_submissions_delete_batch(%s, now() - make_interval(days => %s::integer), "
     "  %s::integer)::text"},

    /* 1 user id, 2 action, 3 form id, 4 count */
    {"fs_audit_count", 4, "SELECT fs_audit_count(%s, %s, %s, %s::bigint)"},

    /* 1 days, 2 days, 3 limit: events deleted (their deliveries go with
     * them) */
    {"fs_event_expire", 3,
     "WITH d AS (DELETE FROM events WHERE created_at < now() - make_interval(days => %s::integer) "
     "  AND id IN (SELECT id FROM events "
     "    WHERE created_at < now() - make_interval(days => %s::integer) LIMIT %s::integer) "
     "  RETURNING 1) "
     "SELECT count(*)::text FROM d"},

    /* 1 days, 2 days, 3 limit: audit entries deleted */
    {"fs_audit_expire", 3,
     "WITH d AS (DELETE FROM audit WHERE created_at < now() - make_interval(days => %s::integer) "
     "  AND id IN (SELECT id FROM audit "
     "    WHERE created_at < now() - make_interval(days => %s::integer) LIMIT %s::integer) "
     "  RETURNING 1) "
     "SELECT count(*)::text FROM d"},

    /* 1 purge id, 2 user id, 3 form id, 4 before, 5 limit: outcome,
     * deleted */
    {"fs_purge_request", 5,
     "SELECT outcome, deleted::text FROM fs_submissions_purge(%s, %s, %s, %s::timestamptz, "
     "  %s::integer)"},

    /* 1 limit: ids of queued purges, oldest first */
    {"fs_purge_pending", 1,
     "SELECT id FROM submission_purges WHERE finished_at IS NULL ORDER BY created_at "
     "LIMIT %s::integer"},

    /* 1 months ahead: partitions made, or -1 (another session is at it) */
    {"fs_partitions_ahead", 1, "SELECT fs_partitions_ahead(%s::integer)::text"},

    /* 1 months kept: the name of the empty old partition dropped, '' when
     * none is left, '-' when a lock was not granted in 200 ms, NULL when
     * another session is at it */
    {"fs_partitions_drop", 1, "SELECT fs_partitions_drop(%s::integer)"},

    /* 1 purge id, 2 limit: deleted, done */
    {"fs_purge_step", 2, "SELECT deleted::text, done::text FROM fs_purge_step(%s, %s::integer)"},

    /* For /metrics, whether the background jobs keep up: accounts being
     * erased and the age of the oldest (s), bulk deletes queued and the
     * age of the oldest (s), and the seconds until the upper bound of the
     * last partition of submissions (its id's time, sql/0046 fs_id_at; 0
     * when unknown). */
    {"fs_jobs_status", 0,
     "SELECT (SELECT count(*) FROM users WHERE deleted_at IS NOT NULL)::text, "
     "  (SELECT COALESCE(floor(extract(epoch FROM now() - min(deleted_at))), 0)::bigint "
     "     FROM users WHERE deleted_at IS NOT NULL)::text, "
     "  (SELECT count(*) FROM submission_purges WHERE finished_at IS NULL)::text, "
     "  (SELECT COALESCE(floor(extract(epoch FROM now() - min(created_at))), 0)::bigint "
     "     FROM submission_purges WHERE finished_at IS NULL)::text, "
     "  (SELECT COALESCE(floor(extract(epoch FROM max(fs_id_at(b[1])) - now())), 0)::bigint "
     "     FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid, "
     "     LATERAL regexp_match(pg_get_expr(c.relpartbound, c.oid), 'TO \\(''([^'']+)''\\)') b "
     "    WHERE i.inhparent = 'submissions'::regclass)::text"},

    {NULL, 0, NULL}};

fs_error *fs_store_retention_lock(fs_store *st, int *got) {
    fs_rows *rs;
    fs_error *e = fs_store_run(st, "fs_retention_lock", 0, NULL, 1, &rs);
    *got = !e && rs->nrows == 1 && fs_cell_bool(FS_CELL(rs, 0, 0));
    return e;
}

fs_error *fs_store_retention_unlock(fs_store *st) {
    fs_rows *rs;
    return fs_store_run(st, "fs_retention_unlock", 0, NULL, 1, &rs);
}

fs_error *fs_store_retention_forms(fs_store *st, int ceiling, const int tier_days[2],
                                   const char *after, int lim, fs_retention_form **forms, int *n) {
    const char *args[] = {FS_ARG_INT(st->pool, ceiling),
                          FS_ARG_INT(st->pool, tier_days[0]),
                          FS_ARG_INT(st->pool, tier_days[1]),
                          after,
                          after,
                          FS_ARG_INT(st->pool, lim)};
    fs_rows *rs;
    *forms = NULL;
    *n = 0;
    fs_error *e = FS_RUN(st, "fs_retention_forms", args, 3, &rs);
    if (e)
        return e;
    *forms = apr_pcalloc(st->pool, sizeof(**forms) * (rs->nrows ? rs->nrows : 1));
    for (int i = 0; i < rs->nrows; i++) {
        (*forms)[i].form_id = FS_CELL(rs, i, 0);
        (*forms)[i].user_id = FS_CELL(rs, i, 1);
        (*forms)[i].days = fs_cell_int(FS_CELL(rs, i, 2));
    }
    *n = rs->nrows;
    return NULL;
}

fs_error *fs_store_retention_batch(fs_store *st, const char *form_id, int days, int lim,
                                   int *deleted) {
    const char *args[] = {form_id, FS_ARG_INT(st->pool, days), FS_ARG_INT(st->pool, lim)};
    return FS_INT(st, "fs_retention_batch", args, 0, deleted);
}

fs_error *fs_store_audit_count(fs_store *st, const char *user_id, const char *action,
                               const char *form_id, long long count) {
    const char *args[] = {user_id, action, form_id,
                          apr_psprintf(st->pool, "%" APR_INT64_T_FMT, (apr_int64_t)count)};
    fs_rows *rs;
    return FS_RUN(st, "fs_audit_count", args, 1, &rs);
}

static fs_error *expire(fs_store *st, const char *label, int days, int lim, int *deleted) {
    const char *d = FS_ARG_INT(st->pool, days);
    const char *args[] = {d, d, FS_ARG_INT(st->pool, lim)};
    return fs_store_int(st, label, FS_NARGS(args), args, 0, deleted);
}

fs_error *fs_store_event_expire(fs_store *st, int days, int lim, int *deleted) {
    return expire(st, "fs_event_expire", days, lim, deleted);
}

fs_error *fs_store_audit_expire(fs_store *st, int days, int lim, int *deleted) {
    return expire(st, "fs_audit_expire", days, lim, deleted);
}

fs_error *fs_store_purge_request(fs_store *st, const char *purge_id, const char *user_id,
                                 const char *form_id, const char *before, int lim,
                                 const char **outcome, int *deleted) {
    const char *args[] = {purge_id, user_id, form_id, before, FS_ARG_INT(st->pool, lim)};
    fs_rows *rs;
    *outcome = NULL;
    *deleted = 0;
    fs_error *e = FS_RUN(st, "fs_purge_request", args, 2, &rs);
    if (e || rs->nrows != 1)
        return e;
    *outcome = FS_CELL(rs, 0, 0);
    *deleted = fs_cell_int(FS_CELL(rs, 0, 1));
    return NULL;
}

fs_error *fs_store_purge_pending(fs_store *st, int lim, const char ***ids, int *n) {
    const char *args[] = {FS_ARG_INT(st->pool, lim)};
    fs_rows *rs;
    *ids = NULL;
    *n = 0;
    fs_error *e = FS_RUN(st, "fs_purge_pending", args, 1, &rs);
    if (e)
        return e;
    *ids = apr_pcalloc(st->pool, sizeof(**ids) * (rs->nrows ? rs->nrows : 1));
    for (int i = 0; i < rs->nrows; i++)
        (*ids)[i] = FS_CELL(rs, i, 0);
    *n = rs->nrows;
    return NULL;
}

fs_error *fs_store_purge_step(fs_store *st, const char *purge_id, int lim, int *deleted,
                              int *done) {
    const char *args[] = {purge_id, FS_ARG_INT(st->pool, lim)};
    fs_rows *rs;
    *deleted = 0;
    *done = 0;
    fs_error *e = FS_RUN(st, "fs_purge_step", args, 2, &rs);
    if (e || rs->nrows != 1)
        return e;
    *deleted = fs_cell_int(FS_CELL(rs, 0, 0));
    *done = fs_cell_bool(FS_CELL(rs, 0, 1));
    return NULL;
}

fs_error *fs_store_partitions_ahead(fs_store *st, int months, int *made) {
    const char *args[] = {FS_ARG_INT(st->pool, months)};
    return FS_INT(st, "fs_partitions_ahead", args, 0, made);
}

fs_error *fs_store_partitions_drop(fs_store *st, int keep_months, const char **dropped) {
    const char *args[] = {FS_ARG_INT(st->pool, keep_months)};
    fs_rows *rs;
    *dropped = NULL;
    fs_error *e = FS_RUN(st, "fs_partitions_drop", args, 1, &rs);
    if (!e && rs->nrows == 1)
        *dropped = FS_CELL(rs, 0, 0) ? FS_CELL(rs, 0, 0) : "";
    return e;
}

fs_error *fs_store_jobs_status(fs_store *st, fs_jobs_status *out) {
    fs_rows *rs;
    memset(out, 0, sizeof(*out));
    fs_error *e = fs_store_run(st, "fs_jobs_status", 0, NULL, 5, &rs);
    if (e || rs->nrows != 1)
        return e;
    out->erasures = fs_cell_i64(FS_CELL(rs, 0, 0));
    out->erasure_oldest_seconds = fs_cell_i64(FS_CELL(rs, 0, 1));
    out->purges = fs_cell_i64(FS_CELL(rs, 0, 2));
    out->purge_oldest_seconds = fs_cell_i64(FS_CELL(rs, 0, 3));
    out->partitions_ahead_seconds = fs_cell_i64(FS_CELL(rs, 0, 4));
    return NULL;
}
