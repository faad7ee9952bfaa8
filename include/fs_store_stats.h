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

/* Moves at most limit rows of the submissions' hour tally into the form's
 * hours (sql/0047); *moved is how many, -1 when another session holds the
 * counters (not an error: try again later). One transaction. */
fs_error *fs_store_hours_rollup(fs_store *st, int limit, int *moved);

/* Counts the hours of the next form whose history is not counted yet
 * (sql/0047, one form's submissions read in one transaction); *counted is
 * 1, 0 when none is left, -1 when another session holds the counters. */
fs_error *fs_store_hours_backfill(fs_store *st, int *counted);

#endif
