/* request_ctx: the per-request context and the request's database
 * connection (see request_ctx.h). */
#include "runtime/request_ctx.h"
#include "runtime/config.h"
#include "runtime/dbpool.h"
#include "runtime/log.h"

#include <mod_dbd.h>

APLOG_USE_MODULE(formsvc);

formsvc_req *formsvc_req_get(request_rec *r) {
    formsvc_req *q = ap_get_module_config(r->request_config, &formsvc_module);
    if (!q) {
        q = apr_pcalloc(r->pool, sizeof(*q));
        ap_set_module_config(r->request_config, &formsvc_module, q);
    }
    return q;
}

fs_error *formsvc_db(request_rec *r, fs_db **out) {
    formsvc_req *q = formsvc_req_get(r);
    if (!q->db) {
        /* through a gate that bounds the wait (dbpool.h); the connection
         * goes back with the request's pool, or at formsvc_db_release */
        ap_dbd_t *d = formsvc_dbpool_acquire(r);
        if (!d) {
            FORMSVC_LOG(r, APLOG_ERR, 00101, "no database connection available");
            return fs_error_make(r->pool, "service-unavailable", "The database cannot be reached.");
        }
        fs_db *db = apr_pcalloc(r->pool, sizeof(*db));
        db->driver = d->driver;
        db->handle = d->handle;
        db->prepared = d->prepared;
        db->conn_pool = d->pool;
        q->db = db;
    }
    *out = q->db;
    return NULL;
}

void formsvc_db_release(request_rec *r) {
    if (!formsvc_dbpool_release(r))
        return; /* inside a transaction: kept */
    /* every request sharing that connection forgets it */
    for (request_rec *x = r; x; x = x->prev ? x->prev : x->main)
        formsvc_req_get(x)->db = NULL;
}

static fs_error *request_db(void *baton, fs_db **db) {
    return formsvc_db(baton, db);
}

fs_store *formsvc_store(request_rec *r) {
    formsvc_req *q = formsvc_req_get(r);
    if (!q->store)
        q->store = fs_store_make(r->pool, request_db, r);
    return q->store;
}
