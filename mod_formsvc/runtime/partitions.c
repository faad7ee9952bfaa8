/* partitions: the partitions-ahead task (partitions.h). One statement
 * (fs_partitions_ahead): a few catalog lookups when every month exists,
 * an empty table made and attached per missing month otherwise; its locks
 * wait at most two seconds (lock_timeout in the function), so a long
 * reader of a parent makes the run fail and the next one try again. */
#include "runtime/partitions.h"

#include "fs_store_retention.h"
#include "runtime/config_global.h"
#include "runtime/log.h"

APLOG_USE_MODULE(formsvc);

/* When this child's next run is due (only the tally worker's thread reads
 * and writes it). */
static apr_time_t next_run;

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
    int made = 0;
    fs_error *e = fs_store_partitions_ahead(fs_store_on(p, &db), FORMSVC_PARTITION_MONTHS, &made);
    if (e)
        /* the next run tries again; FORMSVC_PARTITION_MONTHS months of
         * room make a failure harmless unless it lasts for months */
        FORMSVC_SLOG(s, APLOG_WARNING, 0, 02250, "making the partitions ahead failed: %s",
                     e->detail ? e->detail : e->slug);
    else if (made > 0)
        FORMSVC_SLOG(s, APLOG_INFO, 0, 02251, "made %d partitions ahead (%d months)", made,
                     FORMSVC_PARTITION_MONTHS);
    formsvc_worker_db_close(w, d);
}
