/* The store of form analytics (fs_store_stats.h, sql/0031). */
#include "fs_store_stats.h"
#include "store_int.h"

#include <apr_strings.h>
#include <string.h>

const fs_stmt fs_stmts_stats[] = {
    /* 1 form ids, 2 hours (seconds), 3 counts: PostgreSQL array literals.
     * Sorted, so that children adding to the same rows take their locks
     * in one order. Returns how many rows it wrote. */
    {"fs_views_add", 3,
     "WITH i AS (INSERT INTO form_views (form_id, hour, views) "
     "SELECT u.f, to_timestamp(u.h), u.n FROM unnest(%s::text[], %s::bigint[], %s::bigint[]) "
     "  AS u(f, h, n) WHERE EXISTS (SELECT 1 FROM forms WHERE id = u.f) ORDER BY u.f, u.h "
     "ON CONFLICT (form_id, hour) DO UPDATE SET views = form_views.views + EXCLUDED.views "
     "RETURNING 1) SELECT count(*)::text FROM i"},

    /* 1 form id, 2 start of the first interval, 3 until, 4 unit ('day' or
     * 'hour'), 5 step ('1 day'): start, views, submissions, spam per
     * interval. Intervals in UTC (timestamp without time zone: no daylight
     * saving). Submissions come from the form's counters (sql/0047,
     * sql/0060): by day, the whole UTC days before until's day from the
     * day counters (dh: where they end), its whole hours before until's
     * hour from the hour counters; by hour (or from a start not on a day)
     * every whole hour from the hour counters; and the tally not rolled up
     * yet for all those hours. Views likewise: the days before dh from
     * form_view_days, the hours from dh on (until's hour too) from
     * form_views. The hour until falls in is counted from the
     * submissions themselves (until need not be on an hour), and so is the
     * whole window of a form whose history the worker has not counted yet
     * (submission_hours_backlog). The bounds are InitPlans (p, lo): index
     * conditions in custom and generic plans alike, so the rows read are
     * the days asked, at most 23 hours, the tally, and one hour of
     * submissions (its id range, sql/0044, keeps the partitions of other
     * months out of the plan). */
    {"fs_form_stats", 5,
     "WITH p AS MATERIALIZED (SELECT x.*, CASE WHEN x.unit = 'day' AND x.lo = fs_utc_day(x.lo) "
     "  THEN greatest(x.lo, fs_utc_day(x.hi)) ELSE x.lo END AS dh "
     "  FROM (SELECT %s::text AS form, %s::timestamptz AS lo, "
     "  %s::timestamptz AS hi, %s::text AS unit, %s::interval AS step) x), "
     "o AS MATERIALIZED (SELECT EXISTS (SELECT 1 FROM submission_hours_backlog "
     "  WHERE form_id = (SELECT form FROM p)) AS old), "
     "b AS (SELECT g AS t FROM p, generate_series(p.lo AT TIME ZONE 'UTC', "
     "  (p.hi AT TIME ZONE 'UTC') - interval '1 microsecond', p.step) g), "
     "h AS (SELECT fs_utc_hour(s.created_at) AS hour, count(*) FILTER (WHERE NOT s.spam) AS n, "
     "    count(*) FILTER (WHERE s.spam) AS sp "
     "  FROM submissions s WHERE s.form_id = (SELECT form FROM p) "
     "  AND s.created_at >= (SELECT CASE WHEN o.old THEN p.lo "
     "    ELSE greatest(p.lo, fs_utc_hour(p.hi)) END FROM p, o) "
     "  AND s.created_at < (SELECT hi FROM p) "
     "  AND s.id >= (SELECT fs_id_since('sub_', CASE WHEN o.old THEN p.lo "
     "    ELSE greatest(p.lo, fs_utc_hour(p.hi)) END) FROM p, o) "
     "  AND s.id < (SELECT fs_id_before('sub_', hi, NULL) FROM p) GROUP BY 1 "
     "  UNION ALL SELECT y.day, y.submissions, y.spam FROM submission_days y "
     "  WHERE NOT (SELECT old FROM o) AND y.form_id = (SELECT form FROM p) "
     "  AND y.day >= (SELECT lo FROM p) AND y.day < (SELECT dh FROM p) "
     "  UNION ALL SELECT c.hour, c.submissions, c.spam FROM submission_hours c "
     "  WHERE NOT (SELECT old FROM o) AND c.form_id = (SELECT form FROM p) "
     "  AND c.hour >= (SELECT dh FROM p) AND c.hour < (SELECT fs_utc_hour(hi) FROM p) "
     "  UNION ALL SELECT d.hour, d.submissions, d.spam FROM submission_hour_tally d "
     "  WHERE NOT (SELECT old FROM o) AND d.form_id = (SELECT form FROM p) "
     "  AND d.hour >= (SELECT lo FROM p) AND d.hour < (SELECT fs_utc_hour(hi) FROM p)), "
     "s AS (SELECT date_trunc((SELECT unit FROM p), h.hour AT TIME ZONE 'UTC') AS t, "
     "  sum(h.n)::bigint AS n, sum(h.sp)::bigint AS sp FROM h GROUP BY 1), "
     "v AS (SELECT date_trunc((SELECT unit FROM p), w.hour AT TIME ZONE 'UTC') AS t, "
     "  sum(w.views) AS n FROM (SELECT y.day AS hour, y.views FROM form_view_days y "
     "  WHERE y.form_id = (SELECT form FROM p) "
     "  AND y.day >= (SELECT lo FROM p) AND y.day < (SELECT dh FROM p) "
     "  UNION ALL SELECT v.hour, v.views FROM form_views v WHERE v.form_id = (SELECT form FROM p) "
     "  AND v.hour >= (SELECT dh FROM p) AND v.hour < (SELECT hi FROM p)) w GROUP BY 1) "
     "SELECT to_char(b.t, 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), COALESCE(v.n, 0)::text, "
     "  COALESCE(s.n, 0)::text, COALESCE(s.sp, 0)::text "
     "FROM b LEFT JOIN v ON v.t = b.t LEFT JOIN s ON s.t = b.t ORDER BY b.t"},

    /* 1 form id, 2 first day, 3 day after the last (YYYY-MM-DD): key, kind,
     * value, count (sql/0050) */
    {"fs_insights", 3, "SELECT key, kind, value, n::text FROM fs_insights(%s, %s::date, %s::date)"},

    /* 1 most rows to move: rows moved, or -1 (another session at it) */
    {"fs_insight_rollup", 1, "SELECT fs_insight_rollup(%s::integer)::text"},

    /* 1 most tally rows to move: rows moved, or -1 when another session
     * holds the counters (sql/0047) */
    {"fs_hours_rollup", 1, "SELECT fs_submission_hours_rollup(%s::integer)::text"},

    /* the backlog's form tried least recently, marked tried (no row: the
     * backlog is empty); then 1 its id: the hours written, or -1 when
     * another session holds the counters (sql/0047) */
    {"fs_hours_next", 0, "SELECT fs_submission_hours_next()"},
    {"fs_hours_recount", 1, "SELECT fs_submission_hours_recount(%s)::text"},

    {NULL, 0, NULL}};

/* A PostgreSQL array literal of n items; items are ids or numbers (no
 * quoting needed: ids are [A-Za-z0-9_]). */
static const char *array_of(apr_pool_t *p, int n, const char *const *items) {
    const char *s = "{";
    for (int i = 0; i < n; i++)
        s = apr_pstrcat(p, s, i ? "," : "", items[i], NULL);
    return apr_pstrcat(p, s, "}", NULL);
}

fs_error *fs_store_views_add(fs_store *st, int n, const char *const *form_ids,
                             const long long *hours, const long long *counts) {
    if (n <= 0)
        return NULL;
    apr_pool_t *p = st->pool;
    const char **h = apr_palloc(p, sizeof(char *) * (size_t)n);
    const char **c = apr_palloc(p, sizeof(char *) * (size_t)n);
    for (int i = 0; i < n; i++) {
        for (const char *q = form_ids[i]; *q; q++)
            if (!((*q >= 'A' && *q <= 'Z') || (*q >= 'a' && *q <= 'z') ||
                  (*q >= '0' && *q <= '9') || *q == '_'))
                return fs_error_internal(p, "fs_views_add: a form id with '%c'", *q);
        h[i] = apr_psprintf(p, "%" APR_INT64_T_FMT, (apr_int64_t)hours[i]);
        c[i] = apr_psprintf(p, "%" APR_INT64_T_FMT, (apr_int64_t)counts[i]);
    }
    const char *args[] = {array_of(p, n, form_ids), array_of(p, n, h), array_of(p, n, c)};
    fs_rows *rs;
    return FS_RUN(st, "fs_views_add", args, 1, &rs);
}

fs_error *fs_store_form_stats(fs_store *st, const char *form_id, const char *start,
                              const char *until, const char *unit, fs_stats_row **rows, int *n) {
    const char *step = !strcmp(unit, "hour") ? "1 hour" : "1 day";
    const char *args[] = {form_id, start, until, unit, step};
    fs_rows *rs;
    *rows = NULL;
    *n = 0;
    fs_error *e = FS_RUN(st, "fs_form_stats", args, 4, &rs);
    if (e)
        return e;
    fs_stats_row *out = apr_pcalloc(st->pool, sizeof(*out) * (size_t)(rs->nrows + 1));
    for (int i = 0; i < rs->nrows; i++) {
        out[i].start = FS_CELL(rs, i, 0);
        out[i].views = apr_atoi64(FS_CELL(rs, i, 1));
        out[i].submissions = apr_atoi64(FS_CELL(rs, i, 2));
        out[i].spam = apr_atoi64(FS_CELL(rs, i, 3));
    }
    *rows = out;
    *n = rs->nrows;
    return NULL;
}

fs_error *fs_store_insights(fs_store *st, const char *form_id, const char *since, const char *until,
                            fs_insight_row **rows, int *n) {
    const char *args[] = {form_id, since, until};
    fs_rows *rs;
    *rows = NULL;
    *n = 0;
    fs_error *e = FS_RUN(st, "fs_insights", args, 4, &rs);
    if (e)
        return e;
    *rows = apr_pcalloc(st->pool, sizeof(fs_insight_row) * (apr_size_t)(rs->nrows + 1));
    for (int i = 0; i < rs->nrows; i++) {
        (*rows)[i].key = FS_CELL(rs, i, 0);
        (*rows)[i].kind = FS_CELL(rs, i, 1);
        (*rows)[i].value = FS_CELL(rs, i, 2);
        (*rows)[i].n = apr_atoi64(FS_CELL(rs, i, 3));
    }
    *n = rs->nrows;
    return NULL;
}

fs_error *fs_store_insight_rollup(fs_store *st, int limit, int *moved) {
    const char *args[] = {FS_ARG_INT(st->pool, limit)};
    return FS_INT(st, "fs_insight_rollup", args, -1, moved);
}

fs_error *fs_store_hours_rollup(fs_store *st, int limit, int *moved) {
    const char *args[] = {FS_ARG_INT(st->pool, limit)};
    return FS_INT(st, "fs_hours_rollup", args, -1, moved);
}

fs_error *fs_store_hours_backfill(fs_store *st, int *counted) {
    const char *form = NULL;
    *counted = -1;
    fs_error *e = fs_store_one(st, "fs_hours_next", 0, NULL, &form);
    if (e)
        return e;
    if (!form) {
        *counted = 0;
        return NULL;
    }
    const char *args[] = {form};
    int hours;
    e = FS_INT(st, "fs_hours_recount", args, -1, &hours);
    if (!e)
        *counted = hours < 0 ? -1 : 1;
    return e;
}
