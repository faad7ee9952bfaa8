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

    /* 1-3 start of the first interval, until, step ('1 day'); 4 unit
     * ('day' or 'hour'), 5 form id, 6 start, 7 until; 8 unit, 9 form id,
     * 10 start, 11 until: start, views, submissions, spam per interval.
     * Intervals in UTC (timestamp without time zone: no daylight saving);
     * the ranges are plain parameters so that submissions are read through
     * submissions_form_created and views through form_views' key. */
    {"fs_form_stats", 11,
     "WITH b AS (SELECT g AS t FROM generate_series(%s::timestamptz AT TIME ZONE 'UTC', "
     "  (%s::timestamptz AT TIME ZONE 'UTC') - interval '1 microsecond', %s::interval) g), "
     "s AS (SELECT date_trunc(%s, s.created_at AT TIME ZONE 'UTC') AS t, "
     "  count(*) FILTER (WHERE NOT s.spam) AS n, count(*) FILTER (WHERE s.spam) AS sp "
     "  FROM submissions s WHERE s.form_id = %s AND s.created_at >= %s::timestamptz "
     "  AND s.created_at < %s::timestamptz GROUP BY 1), "
     "v AS (SELECT date_trunc(%s, v.hour AT TIME ZONE 'UTC') AS t, sum(v.views) AS n "
     "  FROM form_views v WHERE v.form_id = %s AND v.hour >= %s::timestamptz "
     "  AND v.hour < %s::timestamptz GROUP BY 1) "
     "SELECT to_char(b.t, 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), COALESCE(v.n, 0)::text, "
     "  COALESCE(s.n, 0)::text, COALESCE(s.sp, 0)::text "
     "FROM b LEFT JOIN v ON v.t = b.t LEFT JOIN s ON s.t = b.t ORDER BY b.t"},

    /* 1 form id, 2 first day, 3 day after the last (YYYY-MM-DD): key, kind,
     * value, count (sql/0050) */
    {"fs_insights", 3, "SELECT key, kind, value, n::text FROM fs_insights(%s, %s::date, %s::date)"},

    /* 1 most rows to move: rows moved, or -1 (another session at it) */
    {"fs_insight_rollup", 1, "SELECT fs_insight_rollup(%s::integer)::text"},

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
    const char *args[] = {start, until, step,    unit,  form_id, start,
                          until, unit,  form_id, start, until};
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
