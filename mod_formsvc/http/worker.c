/* worker: background threads of an httpd child, stopped and joined before
 * mod_dbd's pool goes (see worker.h for why the order matters). */
#include "worker.h"
#include "dbpool.h"

#include <apr_atomic.h>
#include <apr_optional.h>
#include <apr_thread_cond.h>
#include <apr_thread_mutex.h>
#include <apr_thread_proc.h>
#include <mod_dbd.h>

APLOG_USE_MODULE(formsvc);

struct formsvc_worker {
    const char *name;
    server_rec *s;
    formsvc_worker_round *fn;
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
    db->driver = d->driver;
    db->handle = d->handle;
    db->prepared = d->prepared;
    db->conn_pool = d->pool;
    return d;
}

void formsvc_worker_db_close(formsvc_worker *w, void *handle) {
    if (!handle)
        return;
    w->close(w->s, handle);
    formsvc_dbpool_leave(w->probe);
    apr_atomic_dec32(&w->held);
}

static void *APR_THREAD_FUNC run(apr_thread_t *thd, void *data) {
    formsvc_worker *w = data;
    apr_pool_t *wp;
    /* unmanaged: the thread's memory is its own, whatever the child pool's
     * state while it finishes */
    apr_pool_create_unmanaged_ex(&wp, NULL, NULL);
    for (unsigned long round = 0; !formsvc_worker_stopping(w); round++) {
        apr_pool_t *p;
        apr_pool_create(&p, wp);
        w->fn(w, p, w->s, round);
        apr_pool_destroy(p);
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

formsvc_worker *formsvc_worker_start(apr_pool_t *pchild, server_rec *s, const char *name,
                                     formsvc_worker_round *fn) {
    formsvc_worker *w = apr_pcalloc(pchild, sizeof(*w));
    w->name = name;
    w->s = s;
    w->fn = fn;
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
        FORMSVC_SLOG(s, APLOG_ERR, rv, 02151,
                     "cannot start the %s worker thread; its queue waits", name);
        return NULL;
    }
    apr_pool_pre_cleanup_register(pchild, w, stop);
    return w;
}
