/* partitions: the partitions task (partitions.h). One statement
 * (fs_partitions_ahead): a few catalog lookups when every month exists,
 * an empty table made and attached per missing month otherwise; then
 * fs_partitions_drop, a partition retention emptied detached and dropped
 * per statement. Their locks wait at most 200 ms (lock_timeout in the
 * functions), so a long reader of a parent makes the run fail and the
 * next one try again. */
#include "runtime/partitions.h"

#include "fs_store_retention.h"
#include "runtime/config_global.h"
#include "runtime/log.h"

#include <string.h>

APLOG_USE_MODULE(formsvc);

/* When this child's next run is due (only the tally worker's thread reads
 * and writes it). */
static apr_time_t next_run;

#define MAX_PER_RUN 64

void formsvc_partitions_task(formsvc_worker *w, apr_pool_t *p, server_rec *s, const void *data) {
    (void)data;
    apr_time_t now = apr_time_now();
    if (now < next_run)
        return;
    next_run = now + apr_time_from_sec(formsvc_global_conf()->retention_interval);
    fs_db db;
    void *d = formsvc_worker_db(w, p, &db);
    if (!d)
        return;
    fs_store *st = fs_store_on(p, &db);
    int made = 0, one = 1;
    fs_error *e = NULL;
    /* a partition per statement (per transaction): MAX_PER_RUN bounds a
     * run that finds a year missing */
    for (int i = 0; i < MAX_PER_RUN && one == 1 && !formsvc_worker_stopping(w); i++) {
        e = fs_store_partitions_ahead(st, FORMSVC_PARTITION_MONTHS, &one);
        if (e)
            break;
        made += one == 1;
    }
    if (e && (!strcmp(e->slug, "outcome-unknown") || !strcmp(e->slug, "service-unavailable")))
        /* a lock not granted within 200 ms (requests hold the tables it
         * needs), or the database busy or away: the next run tries again */
        FORMSVC_SLOG(s, APLOG_INFO, 0, 02252,
                     "making the partitions ahead did not finish (%s); next run", e->slug);
    else if (e)
        /* the next run tries again; FORMSVC_PARTITION_MONTHS months of
         * room make a failure harmless unless it lasts for months */
        FORMSVC_SLOG(s, APLOG_WARNING, 0, 02250, "making the partitions ahead failed: %s",
                     e->detail ? e->detail : e->slug);
    if (made > 0)
        FORMSVC_SLOG(s, APLOG_INFO, 0, 02251, "made %d partitions ahead (%d months)", made,
                     FORMSVC_PARTITION_MONTHS);

    /* the months retention emptied: a partition per statement, children
     * first (sql/0054); one line per partition dropped */
    const char *dropped = "";
    e = NULL;
    for (int i = 0; i < MAX_PER_RUN && !formsvc_worker_stopping(w); i++) {
        e = fs_store_partitions_drop(st, FORMSVC_PARTITION_KEEP_MONTHS, &dropped);
        if (e || !dropped || !*dropped)
            break;
        if (!strcmp(dropped, "-")) {
            /* a lock not granted within 200 ms (requests hold a table it
             * needs): caught in the function, the next run tries again */
            FORMSVC_SLOG(s, APLOG_INFO, 0, 02187,
                         "dropping the emptied partitions did not finish (a lock not granted "
                         "within 200 ms); next run");
            break;
        }
        FORMSVC_SLOG(s, APLOG_INFO, 0, 02186,
                     "dropped the partition %s: empty, its range ended at least %d month ago",
                     dropped, FORMSVC_PARTITION_KEEP_MONTHS);
    }
    if (e && (!strcmp(e->slug, "outcome-unknown") || !strcmp(e->slug, "service-unavailable")))
        /* the database busy or away: the next run tries again */
        FORMSVC_SLOG(s, APLOG_INFO, 0, 02189,
                     "dropping the emptied partitions did not finish (%s); next run", e->slug);
    else if (e)
        FORMSVC_SLOG(s, APLOG_WARNING, 0, 02188, "dropping the emptied partitions failed: %s",
                     e->detail ? e->detail : e->slug);
    formsvc_worker_db_close(w, d);
}
