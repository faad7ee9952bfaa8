/* worker: background threads of an httpd child, their tasks, and the drain
 * of a queue; stopped and joined before mod_dbd's pool goes (see worker.h
 * for why the order matters). */
#include "runtime/worker.h"
#include "runtime/dbpool.h"
#include "runtime/log.h"
#include "runtime/metrics.h"

#include <apr_allocator.h>
#include <apr_atomic.h>
#include <apr_optional.h>
#include <apr_thread_cond.h>
#include <apr_thread_mutex.h>
#include <apr_thread_proc.h>
#include <curl/curl.h>
#include <mod_dbd.h>

APLOG_USE_MODULE(formsvc);

/* Bytes of freed memory a worker thread keeps for its next runs. */
#define WORKER_KEEP_FREE (4 * 1024 * 1024)

struct formsvc_worker {
    const char *name;
    server_rec *s;
    const formsvc_task *tasks;
    int ntasks;
    apr_time_t *next; /* per task: when it runs next; the thread's own */
    apr_thread_t *thread;
    apr_thread_mutex_t *mutex; /* with cond: cuts the sleep between rounds short */
    apr_thread_cond_t *cond;
    apr_uint32_t stop; /* set once, by the pre-cleanup */
    apr_uint32_t held; /* connections taken and not given back */
    int probe;         /* the connection held is the dbpool probe */
    APR_OPTIONAL_FN_TYPE(ap_dbd_open) * open;
    APR_OPTIONAL_FN_TYPE(ap_dbd_close) * close;
};

int formsvc_worker_stopping(formsvc_worker *w) {
    return apr_atomic_read32(&w->stop) != 0;
}

volatile apr_uint32_t *formsvc_worker_stop_flag(formsvc_worker *w) {
    return &w->stop;
}

void *formsvc_worker_db(formsvc_worker *w, apr_pool_t *p, fs_db *db) {
    if (!w->open || !w->close || formsvc_dbpool_enter(&w->probe) != FORMSVC_DBPOOL_OK)
        return NULL;
    ap_dbd_t *d = w->open(p, w->s);
    if (!d) {
        formsvc_dbpool_unreachable();
        formsvc_dbpool_leave(w->probe);
        return NULL;
    }
    apr_atomic_inc32(&w->held);
    formsvc_dbpool_note_open(d);
    db->driver = d->driver;
    db->handle = d->handle;
    db->prepared = d->prepared;
    db->conn_pool = d->pool;
    db->in_tx = 0;
    db->pinned = 0;
    return d;
}

void formsvc_worker_db_close(formsvc_worker *w, void *handle) {
    if (!handle)
        return;
    w->close(w->s, handle);
    formsvc_gauge_add(FORMSVC_G_DB_HELD, -1);
    formsvc_dbpool_leave(w->probe);
    apr_atomic_dec32(&w->held);
}

void formsvc_task_drain(formsvc_worker *w, apr_pool_t *p, server_rec *s, const void *data) {
    const formsvc_queue *q = data;
    fs_db db;
    void *items = NULL;
    void *d = formsvc_worker_db(w, p, &db);
    if (!d)
        return;
    int n = q->claim(p, s, fs_store_on(p, &db), &items);
    formsvc_worker_db_close(w, d);
    if (n <= 0)
        return;
    apr_pool_t **ip = apr_pcalloc(p, sizeof(*ip) * (apr_size_t)n);
    const void **out = apr_pcalloc(p, sizeof(*out) * (apr_size_t)n);
    int tried = 0;
    for (; tried < n && !formsvc_worker_stopping(w); tried++) {
        apr_pool_create(&ip[tried], p);
        out[tried] = q->deliver(ip[tried], s, items, tried);
    }
    if (!tried || !(d = formsvc_worker_db(w, p, &db)))
        return; /* the leases run out and the items go again */
    fs_store *st = fs_store_on(p, &db);
    for (int i = 0; i < tried; i++) {
        q->record(ip[i], s, st, items, i, out[i]);
        apr_pool_destroy(ip[i]);
    }
    formsvc_worker_db_close(w, d);
}

void formsvc_task_sweep(formsvc_worker *w, apr_pool_t *p, server_rec *s, const void *data) {
    (void)s;
    const formsvc_sweep *sw = data;
    fs_db db;
    void *d = formsvc_worker_db(w, p, &db);
    if (!d)
        return;
    sw->run(fs_store_on(p, &db));
    formsvc_worker_db_close(w, d);
}

static void *APR_THREAD_FUNC run(apr_thread_t *thd, void *data) {
    formsvc_worker *w = data;
    apr_pool_t *wp;
    /* unmanaged: the thread's memory is its own, whatever the child pool's
     * state while it finishes */
    apr_pool_create_unmanaged_ex(&wp, NULL, NULL);
    /* what a large run took goes back to the system after it (the allocator
     * keeps everything freed otherwise) */
    apr_allocator_max_free_set(apr_pool_allocator_get(wp), WORKER_KEEP_FREE);
    while (!formsvc_worker_stopping(w)) {
        for (int i = 0; i < w->ntasks && !formsvc_worker_stopping(w); i++) {
            const formsvc_task *t = &w->tasks[i];
            if (apr_time_now() < w->next[i])
                continue;
            apr_pool_t *p;
            apr_pool_create(&p, wp);
            t->run(w, p, w->s, t->data);
            apr_pool_destroy(p);
            w->next[i] = apr_time_now() + apr_time_from_sec(t->every > 0 ? t->every : 1);
        }
        apr_thread_mutex_lock(w->mutex);
        if (!formsvc_worker_stopping(w))
            apr_thread_cond_timedwait(w->cond, w->mutex, apr_time_from_sec(1));
        apr_thread_mutex_unlock(w->mutex);
    }
    apr_pool_destroy(wp);
    (void)thd; /* a plain return: apr_thread_join still works */
    return NULL;
}

/* A pre-cleanup of the child pool: runs before its subpools (mod_dbd's
 * among them) are destroyed. */
static apr_status_t stop(void *data) {
    formsvc_worker *w = data;
    apr_status_t rv;
    apr_thread_mutex_lock(w->mutex);
    apr_atomic_set32(&w->stop, 1);
    apr_thread_cond_broadcast(w->cond);
    apr_thread_mutex_unlock(w->mutex);
    apr_thread_join(&rv, w->thread);
    if (apr_atomic_read32(&w->held) != 0)
        FORMSVC_SLOG(w->s, APLOG_ERR, 0, 02150,
                     "the %s worker kept %u database connections at exit", w->name,
                     apr_atomic_read32(&w->held));
    return APR_SUCCESS;
}

/* Set by formsvc_worker_child_init in this child: what the workers'
 * libraries need once per process is ready, so threads may start. */
static int child_ready;

formsvc_worker *formsvc_worker_start(apr_pool_t *pchild, server_rec *s, const char *name,
                                     const formsvc_task *tasks, int n) {
    if (!child_ready) {
        /* a thread started now could race libcurl's global set-up */
        FORMSVC_SLOG(s, APLOG_ERR, 0, 02185,
                     "the %s worker was started before formsvc_worker_child_init; not started",
                     name);
        return NULL;
    }
    formsvc_worker *w = apr_pcalloc(pchild, sizeof(*w));
    w->name = name;
    w->s = s;
    w->tasks = tasks;
    w->ntasks = n;
    w->next = apr_pcalloc(pchild, sizeof(*w->next) * (apr_size_t)(n > 0 ? n : 1));
    apr_time_t now = apr_time_now();
    for (int i = 0; i < n; i++)
        w->next[i] = now + apr_time_from_sec(tasks[i].first);
    w->open = APR_RETRIEVE_OPTIONAL_FN(ap_dbd_open);
    w->close = APR_RETRIEVE_OPTIONAL_FN(ap_dbd_close);
    apr_threadattr_t *ta;
    apr_status_t rv = apr_thread_mutex_create(&w->mutex, APR_THREAD_MUTEX_DEFAULT, pchild);
    if (rv == APR_SUCCESS)
        rv = apr_thread_cond_create(&w->cond, pchild);
    if (rv == APR_SUCCESS)
        rv = apr_threadattr_create(&ta, pchild);
    if (rv == APR_SUCCESS)
        rv = apr_thread_create(&w->thread, ta, run, w, pchild);
    if (rv != APR_SUCCESS) {
        FORMSVC_SLOG(s, APLOG_ERR, rv, 02151, "cannot start the %s worker thread; its queue waits",
                     name);
        return NULL;
    }
    apr_pool_pre_cleanup_register(pchild, w, stop);
    return w;
}

/* A plain cleanup of the child pool: runs after the pre-cleanups, so after
 * every worker has been joined (the users of curl with the request
 * threads, whose webhook tests and retries have ended by then). */
static apr_status_t curl_done(void *data) {
    (void)data;
    curl_global_cleanup();
    return APR_SUCCESS;
}

void formsvc_worker_child_init(apr_pool_t *pchild, server_rec *s) {
    /* curl_global_init is not thread-safe in every libcurl: once, here,
     * while the child has no thread of ours yet (formsvc_worker_start
     * refuses to start one before this ran) */
    child_ready = 1;
    CURLcode rc = curl_global_init(CURL_GLOBAL_DEFAULT);
    if (rc != CURLE_OK) {
        FORMSVC_SLOG(s, APLOG_ERR, 0, 02161,
                     "libcurl cannot be initialised (%s): mail over SMTP and webhooks will fail",
                     curl_easy_strerror(rc));
        return;
    }
    apr_pool_cleanup_register(pchild, NULL, curl_done, apr_pool_cleanup_null);
}
