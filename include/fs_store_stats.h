/* fs_store_stats: form analytics (mod_formsvc/store/stats_store.c,
 * sql/0031, sql/0047). Conventions: fs_store.h. */
#ifndef FS_STORE_STATS_H
#define FS_STORE_STATS_H

#include "fs_store.h"

/* Adds view counts: n entries of (form id, UTC hour as seconds since the
 * epoch, count), each (form, hour) at most once. Forms that no longer
 * exist are skipped. One statement. */
fs_error *fs_store_views_add(fs_store *st, int n, const char *const *form_ids,
                             const long long *hours, const long long *counts);

/* One interval of a form's figures. */
typedef struct fs_stats_row {
    const char *start; /* RFC 3339, UTC */
    long long views, submissions, spam;
} fs_stats_row;

/* The figures of form_id per interval ("hour" or "day", UTC) from start
 * (the start of an interval) up to until (exclusive; both RFC 3339), every
 * interval present (zeros included), oldest first. *rows lives in the
 * store's pool. One statement. */
fs_error *fs_store_form_stats(fs_store *st, const char *form_id, const char *start,
                              const char *until, const char *unit, fs_stats_row **rows, int *n);

/* One count of a form's insights (sql/0050, fs_insight_items): kind
 * "sub" (key ""), "ans" (a question answered), "opt" (an option, true or
 * false), "num" (a number's value). */
typedef struct fs_insight_row {
    const char *key, *kind, *value;
    long long n;
} fs_insight_row;

/* The counts of form_id for the UTC days since..until (YYYY-MM-DD, until
 * exclusive), rolled up or not yet: sorted by key, kind, then numbers by
 * value. *rows in the store's pool. One statement. */
fs_error *fs_store_insights(fs_store *st, const char *form_id, const char *since, const char *until,
                            fs_insight_row **rows, int *n);

/* Rolls at most limit insight tally rows into the counts (sql/0050); *moved
 * is how many, or -1 when another session is at it. */
fs_error *fs_store_insight_rollup(fs_store *st, int limit, int *moved);

/* Moves at most limit rows of the submissions' hour tally into the form's
 * hours (sql/0047); *moved is how many, -1 when another session holds the
 * counters (not an error: try again later). One transaction. */
fs_error *fs_store_hours_rollup(fs_store *st, int limit, int *moved);

/* Counts the hours of the next form whose history is not counted yet
 * (sql/0047, one form's submissions read in one transaction); *counted is
 * 1, 0 when none is left, -1 when another session holds the counters. */
fs_error *fs_store_hours_backfill(fs_store *st, int *counted);

#endif
