/* views: per-child view counters, flushed by a worker (see views.h). */
#include "runtime/views.h"

#include "fs_store_stats.h"
#include "runtime/log.h"
#include "runtime/worker.h"

#include <apr_strings.h>
#include <apr_thread_mutex.h>

APLOG_USE_MODULE(formsvc);

/* Distinct (form, hour) pairs one child can hold between two flushes;
 * past it (or after PROBES collisions) a view is not counted, and the
 * next flush logs how many were missed (FS03651). */
#define SLOTS 4096
#define PROBES 32
#define ID_MAX 48

typedef struct slot {
    char id[ID_MAX]; /* "" when free */
    long long hour;  /* UTC hour: seconds since the epoch / 3600 */
    long long n;
} slot;

/* The child's table, made in child_init from the child's pool; guarded
 * by mu. NULL: counting is off in this child (it could not be made). */
static slot *table;
static apr_thread_mutex_t *mu;
static long long missed; /* under mu */

static unsigned hash_of(const char *id, long long hour) {
    unsigned h = 2166136261u;
    for (const char *c = id; *c; c++)
        h = (h ^ (unsigned char)*c) * 16777619u;
    return (h ^ (unsigned)hour) * 16777619u;
}

/* Adds n to (id, hour); under mu. 0 when there is no room. */
static int add_locked(const char *id, long long hour, long long n) {
    unsigned h = hash_of(id, hour);
    for (int i = 0; i < PROBES; i++) {
        slot *sl = &table[(h + (unsigned)i) % SLOTS];
        if (!sl->id[0]) {
            apr_cpystrn(sl->id, id, ID_MAX);
            sl->hour = hour;
            sl->n = n;
            return 1;
        }
        if (sl->hour == hour && !strcmp(sl->id, id)) {
            sl->n += n;
            return 1;
        }
    }
    return 0;
}

void formsvc_views_count(request_rec *r, const char *form_id) {
    if (!table || !form_id || strlen(form_id) >= ID_MAX)
        return;
    long long hour = (long long)(apr_time_sec(r->request_time) / 3600);
    if (apr_thread_mutex_lock(mu) != APR_SUCCESS)
        return;
    if (!add_locked(form_id, hour, 1))
        missed++;
    apr_thread_mutex_unlock(mu);
}

/* Takes the counts out of the table (into p) and writes them; on failure
 * they go back in for the next run. */
static void flush(formsvc_worker *w, apr_pool_t *p, server_rec *s, const void *data) {
    (void)data;
    if (!table)
        return;
    const char **ids = apr_palloc(p, sizeof(char *) * SLOTS);
    long long *hours = apr_palloc(p, sizeof(long long) * SLOTS);
    long long *counts = apr_palloc(p, sizeof(long long) * SLOTS);
    int n = 0;
    long long lost;
    if (apr_thread_mutex_lock(mu) != APR_SUCCESS)
        return;
    for (int i = 0; i < SLOTS; i++) {
        if (!table[i].id[0])
            continue;
        ids[n] = apr_pstrdup(p, table[i].id);
        hours[n] = table[i].hour * 3600;
        counts[n] = table[i].n;
        n++;
        table[i].id[0] = '\0';
    }
    lost = missed;
    missed = 0;
    apr_thread_mutex_unlock(mu);
    if (lost)
        FORMSVC_SLOG(s, APLOG_WARNING, 0, 03651,
                     "views: %" APR_INT64_T_FMT " page views were not counted (more than %d "
                     "form-hours viewed between two flushes in this child)",
                     (apr_int64_t)lost, SLOTS);
    if (!n)
        return;
    fs_db db;
    void *d = formsvc_worker_db(w, p, &db); /* NULL: the database is away (logged there) */
    fs_error *e = d ? fs_store_views_add(fs_store_on(p, &db), n, ids, hours, counts) : NULL;
    formsvc_worker_db_close(w, d);
    if (d && !e)
        return;
    if (e) /* an outage is not news here; the counts wait for the next run */
        FORMSVC_SLOG(s, APLOG_INFO, 0, 03652,
                     "views: %d counts could not be written (%s); kept for the next try", n,
                     e->detail ? e->detail : e->slug);
    if (apr_thread_mutex_lock(mu) != APR_SUCCESS)
        return;
    for (int i = 0; i < n; i++)
        if (!add_locked(ids[i], hours[i] / 3600, counts[i]))
            missed += counts[i];
    apr_thread_mutex_unlock(mu);
}

static const formsvc_task tasks[] = {
    {"views flush", FORMSVC_VIEWS_FLUSH_SECONDS, FORMSVC_VIEWS_FLUSH_SECONDS, flush, NULL}};

void formsvc_views_child_init(apr_pool_t *pchild, server_rec *s) {
    if (apr_thread_mutex_create(&mu, APR_THREAD_MUTEX_DEFAULT, pchild) != APR_SUCCESS)
        return;
    table = apr_pcalloc(pchild, sizeof(slot) * SLOTS);
    if (!FORMSVC_WORKER_START(pchild, s, "views", tasks))
        table = NULL; /* nobody would flush: do not count */
}
