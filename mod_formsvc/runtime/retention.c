/* retention: the retention pass (retention.h). Each delete is one batch
 * of at most FORMSVC_RETENTION_BATCH rows in a statement of its own, so
 * no lock is held longer than one batch; the pass holds one pooled
 * connection (the session's advisory lock lives on it) and gives it back
 * when done. */
#include "runtime/retention.h"

#include "fs_store_mcp.h"
#include "fs_store_partials.h"
#include "fs_store_retention.h"
#include "runtime/config.h"
#include "runtime/config_global.h"
#include "runtime/log.h"

#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

/* Bounds of one pass, so that a backlog (a ceiling lowered on a large
 * database) is worked off over several passes rather than in one that
 * never ends: batches per form, forms per page, purges per pass. */
#define FORM_BATCHES 200
#define FORMS_PAGE 200
#define PURGES 20
#define EXPIRE_BATCHES 200

/* When this child's next pass is due (only the tally worker's thread
 * reads and writes it). */
static apr_time_t next_pass;

static int failed(server_rec *s, fs_error *e, const char *what) {
    if (!e)
        return 0;
    FORMSVC_SLOG(s, APLOG_WARNING, 0, 02155, "retention: %s failed: %s", what,
                 e->detail ? e->detail : e->slug);
    return 1;
}

/* The queued bulk deletes, oldest first, each to its end. Each batch's
 * results live in a subpool cleared after it, so a purge of millions of
 * rows runs in constant memory. */
static int purges(formsvc_worker *w, apr_pool_t *p, server_rec *s, fs_store *st) {
    const char **ids;
    int n, bad = 0;
    if (failed(s, fs_store_purge_pending(st, PURGES, &ids, &n), "listing bulk deletes"))
        return 1;
    apr_pool_t *bp;
    apr_pool_create(&bp, p);
    for (int i = 0; i < n && !bad && !formsvc_worker_stopping(w); i++) {
        int deleted, done = 0;
        while (!done && !bad && !formsvc_worker_stopping(w)) {
            apr_pool_clear(bp);
            bad = failed(s,
                         fs_store_purge_step(fs_store_sub(st, bp), ids[i], FORMSVC_RETENTION_BATCH,
                                             &deleted, &done),
                         "a bulk delete");
        }
    }
    apr_pool_destroy(bp);
    return bad;
}

/* One form's rows past its retention, in batches (at most FORM_BATCHES),
 * each batch's results in bp, cleared after it; *count adds what went,
 * also when a batch fails (1: the pass ends, the next one tries again). */
static int form_batches(formsvc_worker *w, server_rec *s, fs_store *st, apr_pool_t *bp,
                        fs_error *(*run)(fs_store *, const char *, int, int, int *),
                        const fs_retention_form *f, const char *what, long long *count) {
    int deleted = FORMSVC_RETENTION_BATCH;
    for (int b = 0;
         b < FORM_BATCHES && deleted == FORMSVC_RETENTION_BATCH && !formsvc_worker_stopping(w);
         b++) {
        apr_pool_clear(bp);
        if (failed(
                s,
                run(fs_store_sub(st, bp), f->form_id, f->days, FORMSVC_RETENTION_BATCH, &deleted),
                what))
            return 1;
        *count += deleted;
    }
    return 0;
}

/* Submissions past their form's retention; one audit entry per form with
 * the count when any went. */
static int expire_submissions(formsvc_worker *w, apr_pool_t *p, server_rec *s, fs_store *st,
                              int ceiling, const int tier_days[2], long long *total,
                              int *forms_touched) {
    const char *after = NULL;
    for (;;) {
        fs_retention_form *f;
        int n;
        if (failed(s, fs_store_retention_forms(st, ceiling, tier_days, after, FORMS_PAGE, &f, &n),
                   "listing forms"))
            return 1;
        int bad = 0;
        for (int i = 0; i < n && !bad && !formsvc_worker_stopping(w); i++) {
            apr_pool_t *bp; /* each batch's results, cleared after it */
            apr_pool_create(&bp, p);
            long long count = 0;
            bad = form_batches(w, s, st, bp, fs_store_retention_batch, &f[i],
                               "deleting old submissions", &count);
            /* unfinished partial answers are bounded by the same retention
             * (not counted: the audit entry counts submissions) */
            long long partials = 0;
            if (!bad)
                bad = form_batches(w, s, st, bp, fs_store_partial_retention, &f[i],
                                   "deleting old partial answers", &partials);
            apr_pool_destroy(bp);
            if (count > 0) {
                failed(s,
                       fs_store_audit_count(st, f[i].user_id, "submissions.expired", f[i].form_id,
                                            count),
                       "recording an audit entry");
                *total += count;
                (*forms_touched)++;
            }
        }
        if (bad || n < FORMS_PAGE || formsvc_worker_stopping(w))
            return bad;
        after = apr_pstrdup(p, f[n - 1].form_id);
    }
}

static long long expire_rows(formsvc_worker *w, server_rec *s, fs_store *st,
                             fs_error *(*run)(fs_store *, int, int, int *), int days,
                             const char *what) {
    long long total = 0;
    int deleted = FORMSVC_RETENTION_BATCH;
    for (int b = 0;
         b < EXPIRE_BATCHES && deleted == FORMSVC_RETENTION_BATCH && !formsvc_worker_stopping(w);
         b++) {
        if (failed(s, run(st, days, FORMSVC_RETENTION_BATCH, &deleted), what))
            break;
        total += deleted;
    }
    return total;
}

void formsvc_retention_task(formsvc_worker *w, apr_pool_t *p, server_rec *s, const void *data) {
    (void)data;
    const formsvc_global *g = formsvc_global_conf();
    apr_time_t now = apr_time_now();
    if (now < next_pass)
        return;
    next_pass = now + apr_time_from_sec(g->retention_interval);
    fs_db db;
    void *d = formsvc_worker_db(w, p, &db);
    if (!d)
        return;
    fs_store *st = fs_store_on(p, &db);
    int got = 0;
    if (!failed(s, fs_store_retention_lock(st, &got), "taking the lock") && got) {
        /* the lock lives on this session: one renewed under the pass would
         * go on without it, beside a pass another child or machine starts */
        db.pinned = 1;
        long long subs = 0, events, audit;
        int forms = 0;
        purges(w, p, s, st);
        /* the tiers' retentionDays of the main server's configuration (the
         * task serves every virtual host) */
        const formsvc_srv *c = formsvc_conf(s);
        const int tier_days[2] = {c->tier[0].retention_days, c->tier[1].retention_days};
        expire_submissions(w, p, s, st, g->retention_max_days, tier_days, &subs, &forms);
        events = expire_rows(w, s, st, fs_store_event_expire, g->event_retention_days,
                             "expiring events");
        audit = expire_rows(w, s, st, fs_store_audit_expire, g->audit_retention_days,
                            "expiring audit entries");
        /* partial answers past their form's partialExpiresDays (each row
         * has its own expiry) */
        expire_rows(w, s, st, fs_store_partial_expire, 0, "expiring partial answers");
        /* MCP sessions unused for a day (an account's are also forgotten
         * when it starts a new one) */
        expire_rows(w, s, st, fs_store_mcp_expire, 1, "expiring MCP sessions");
        if (subs || events || audit)
            FORMSVC_SLOG(s, APLOG_INFO, 0, 02156,
                         "retention: deleted %" APR_INT64_T_FMT
                         " submissions of %d forms, %" APR_INT64_T_FMT " events, %" APR_INT64_T_FMT
                         " audit entries",
                         (apr_int64_t)subs, forms, (apr_int64_t)events, (apr_int64_t)audit);
        fs_store_retention_unlock(st);
    }
    formsvc_worker_db_close(w, d);
}
