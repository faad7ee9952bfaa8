/* tally: each child runs a worker thread (worker.h) that, about once a
 * second, moves the submission tally (one appended row per stored or
 * deleted submission) into the per-form and per-account counters.
 * Submissions therefore never write a row that other submissions write too
 * (sql/0024). Readers add what is not rolled up yet, so nothing depends on
 * how soon this runs; it only keeps the tally short. The database lets one session roll up
 * at a time (an advisory lock): the others' rounds return at once. */
#include "runtime/tally.h"

#include "fs_store_public.h"
#include "fs_store_stats.h"
#include "runtime/log.h"
#include "runtime/partitions.h"
#include "runtime/retention.h"
#include "runtime/worker.h"

#include <string.h>

APLOG_USE_MODULE(formsvc);

/* Rows moved per transaction: short transactions, and several of them in
 * one round when a burst left many. */
#define BATCH 5000
#define BATCHES_PER_ROUND 8

static void rollup(formsvc_worker *w, apr_pool_t *p, server_rec *s, const void *data) {
    (void)data;
    fs_db db;
    void *d = formsvc_worker_db(w, p, &db);
    if (!d)
        return;
    fs_store *st = fs_store_on(p, &db);
    for (int i = 0; i < BATCHES_PER_ROUND && !formsvc_worker_stopping(w); i++) {
        int moved;
        fs_error *e = fs_store_tally_rollup(st, BATCH, &moved);
        if (e && (!strcmp(e->slug, "outcome-unknown") || !strcmp(e->slug, "service-unavailable"))) {
            /* a database too busy to answer in time (or away): the next
             * round tries again, and a rollup that did commit left nothing
             * to do twice; the tally is only longer meanwhile. Requests
             * answer 503 for the same cause and say it there. */
            FORMSVC_SLOG(s, APLOG_INFO, 0, 02162,
                         "rolling up submission counts did not finish (%s); next round", e->slug);
            break;
        }
        if (e) {
            /* the next round tries again; the tally is only longer meanwhile */
            FORMSVC_SLOG(s, APLOG_WARNING, 0, 02160, "rolling up submission counts failed: %s",
                         e->detail ? e->detail : e->slug);
            break;
        }
        if (moved < BATCH)
            break; /* done, or another session is at it */
    }
    /* the answer counts of insights (sql/0050), the same way */
    for (int i = 0; i < BATCHES_PER_ROUND && !formsvc_worker_stopping(w); i++) {
        int moved;
        fs_error *e = fs_store_insight_rollup(st, BATCH, &moved);
        if (e && (!strcmp(e->slug, "outcome-unknown") || !strcmp(e->slug, "service-unavailable"))) {
            FORMSVC_SLOG(s, APLOG_INFO, 0, 02181,
                         "rolling up answer counts did not finish (%s); next round", e->slug);
            break;
        }
        if (e) {
            FORMSVC_SLOG(s, APLOG_WARNING, 0, 02182, "rolling up answer counts failed: %s",
                         e->detail ? e->detail : e->slug);
            break;
        }
        if (moved < BATCH)
            break;
    }
    formsvc_worker_db_close(w, d);
}

/* A failed round of the submissions' hours: said once, and the next round
 * tries again (the stats stay exact meanwhile: they add the tally, and
 * read the submissions of a form not counted yet). */
static int hours_failed(server_rec *s, const fs_error *e, const char *what) {
    if (!e)
        return 0;
    if (!strcmp(e->slug, "outcome-unknown") || !strcmp(e->slug, "service-unavailable"))
        FORMSVC_SLOG(s, APLOG_INFO, 0, 02158, "%s did not finish (%s); next round", what, e->slug);
    else
        FORMSVC_SLOG(s, APLOG_WARNING, 0, 02157, "%s failed: %s", what,
                     e->detail ? e->detail : e->slug);
    return 1;
}

/* Most forms counted in one round, and the time after which a round starts
 * no other (one form's count may take seconds for millions of rows). */
#define BACKFILL_FORMS 64
#define BACKFILL_BUDGET apr_time_from_sec(1)

/* The submissions per form and hour (sql/0047): the tally moved into the
 * hours, then a few forms of the history not counted yet. */
static void hours(formsvc_worker *w, apr_pool_t *p, server_rec *s, const void *data) {
    (void)data;
    fs_db db;
    void *d = formsvc_worker_db(w, p, &db);
    if (!d)
        return;
    fs_store *st = fs_store_on(p, &db);
    for (int i = 0; i < BATCHES_PER_ROUND && !formsvc_worker_stopping(w); i++) {
        int moved;
        if (hours_failed(s, fs_store_hours_rollup(st, BATCH, &moved),
                         "rolling up submissions per hour"))
            goto done;
        if (moved < BATCH)
            break;
    }
    apr_time_t end = apr_time_now() + BACKFILL_BUDGET;
    for (int i = 0; i < BACKFILL_FORMS && !formsvc_worker_stopping(w) && apr_time_now() < end;
         i++) {
        int counted;
        if (hours_failed(s, fs_store_hours_backfill(st, &counted),
                         "counting a form's submissions per hour"))
            break;
        if (counted <= 0) {
            if (counted == 0 && i > 0)
                FORMSVC_SLOG(s, APLOG_INFO, 0, 02159,
                             "every form's submissions before the hourly counters are counted");
            break;
        }
    }
done:
    formsvc_worker_db_close(w, d);
}

/* The retention pass and the partitions ahead tick every second and run
 * when their interval (FormsvcRetentionInterval) has passed (retention.c,
 * partitions.c). */
static const formsvc_task tasks[] = {{"tally rollup", 0, 1, rollup, NULL},
                                     {"submission hours", 0, 1, hours, NULL},
                                     {"partitions", 1, 1, formsvc_partitions_task, NULL},
                                     {"retention", 1, 1, formsvc_retention_task, NULL}};

void formsvc_tally_child_init(apr_pool_t *pchild, server_rec *s) {
    FORMSVC_WORKER_START(pchild, s, "tally", tasks);
}
