/* closings: each child runs a worker thread (worker.h) that writes the
 * form.closed event (reason closesAt) of every published form whose
 * closesAt passes, within a second of that moment. A round runs every
 * second: it writes the events of the moments that passed, then asks for
 * the next moment within the coming seconds and, holding no database
 * connection, sleeps until it and writes its events. Every child of every
 * machine does this; the database writes each (form, closesAt) once
 * (form_closings' primary key), so the others' rounds find it done. The
 * form.closed of maxSubmissions is written by the submission that fills
 * the form (store/public_store.c), not here. The same rounds write the
 * ask.expired event of each ask whose expiresAt passed unanswered
 * (sql/0052 fs_asks_expire_emit: once per ask, the links withdrawn). */
#include "runtime/closings.h"

#include "fs_store_asks.h"
#include "fs_store_public.h"
#include "runtime/log.h"
#include "runtime/worker.h"

#include <apr_time.h>
#include <string.h>

APLOG_USE_MODULE(formsvc);

/* forms handled per statement; a round repeats while a batch is full */
#define BATCH 200
#define BATCHES_PER_ROUND 8
/* how far a round looks ahead (s): more than the round's period, so that
 * every moment falls into some round's sleep */
#define AHEAD_S 2
/* the sleep toward a moment, in slices (ms) that look at the stop flag */
#define SLICE_MS 100

static int busy_db(const fs_error *e) {
    return !strcmp(e->slug, "outcome-unknown") || !strcmp(e->slug, "service-unavailable");
}

static void say(server_rec *s, const fs_error *e, const char *what) {
    if (busy_db(e))
        FORMSVC_SLOG(s, APLOG_INFO, 0, 02179, "form closings: %s did not finish (%s); next round",
                     what, e->slug);
    else
        FORMSVC_SLOG(s, APLOG_WARNING, 0, 02180, "form closings: %s failed: %s", what,
                     e->detail ? e->detail : e->slug);
}

/* Writes the events of the moments that passed; 0 on a database failure
 * (logged). */
static int emit(formsvc_worker *w, apr_pool_t *p, server_rec *s) {
    fs_db db;
    void *d = formsvc_worker_db(w, p, &db);
    if (!d)
        return 0;
    fs_store *st = fs_store_on(p, &db);
    int ok = 1;
    for (int i = 0; i < BATCHES_PER_ROUND && !formsvc_worker_stopping(w); i++) {
        int n;
        fs_error *e = fs_store_form_closings_emit(st, BATCH, &n);
        if (e) {
            say(s, e, "writing form.closed events");
            ok = 0;
            break;
        }
        if (n < BATCH)
            break;
    }
    /* the asks whose expiresAt passed: ask.expired (sql/0052), in the
     * same rounds, so within about a second too */
    for (int i = 0; ok && i < BATCHES_PER_ROUND && !formsvc_worker_stopping(w); i++) {
        int n;
        fs_error *e = fs_store_asks_expire_emit(st, BATCH, &n);
        if (e) {
            say(s, e, "writing ask.expired events");
            ok = 0;
            break;
        }
        if (n < BATCH)
            break;
    }
    formsvc_worker_db_close(w, d);
    return ok;
}

/* Milliseconds to the next moment within AHEAD_S, or -1. */
static int next_ms(formsvc_worker *w, apr_pool_t *p, server_rec *s) {
    fs_db db;
    int ms = -1;
    void *d = formsvc_worker_db(w, p, &db);
    if (!d)
        return -1;
    fs_error *e = fs_store_form_closings_next(fs_store_on(p, &db), AHEAD_S, &ms);
    formsvc_worker_db_close(w, d);
    if (e) {
        say(s, e, "looking for the next closesAt");
        return -1;
    }
    return ms;
}

static void round_(formsvc_worker *w, apr_pool_t *p, server_rec *s, const void *data) {
    (void)data;
    if (!emit(w, p, s))
        return;
    /* the moments of the coming seconds: sleep to each (no connection
     * held), then write its events; the next round looks further */
    apr_time_t end = apr_time_now() + apr_time_from_sec(AHEAD_S);
    while (!formsvc_worker_stopping(w) && apr_time_now() < end) {
        int ms = next_ms(w, p, s);
        if (ms < 0)
            break;
        for (int left = ms + 5; left > 0 && !formsvc_worker_stopping(w); left -= SLICE_MS)
            apr_sleep(apr_time_from_msec(left < SLICE_MS ? left : SLICE_MS));
        if (!emit(w, p, s))
            break;
    }
}

static const formsvc_task tasks[] = {{"form closings", 0, 1, round_, NULL}};

void formsvc_closings_child_init(apr_pool_t *pchild, server_rec *s) {
    FORMSVC_WORKER_START(pchild, s, "closings", tasks);
}
