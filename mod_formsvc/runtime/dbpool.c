/* dbpool: the wait for a pooled connection and for a statement, bounded
 * (see dbpool.h). */
#include "runtime/dbpool.h"
#include "fs_gate.h"
#include "runtime/config.h"
#include "runtime/log.h"
#include "runtime/metrics.h"

#include <apr_optional.h>
#include <apr_strings.h>
#include <http_request.h>
#include <mod_dbd.h>

APLOG_USE_MODULE(formsvc);

/* While another thread probes a database suspected down: how long a
 * request waits for the verdict. */
#define PROBE_WAIT_MS 1000

/* FormsvcDBTimeout (config_global.h) */
static int timeout_sec(void) {
    return formsvc_global_conf()->db_timeout;
}
/* DBDMax of the main server; 0: DBDPersist Off, no pool to wait for */
static int pool_max(void) {
    return formsvc_global_conf()->db_pool_max;
}

/* per child */
static fs_gate *gate; /* NULL: waits are not bounded */

static apr_time_t last_ok(void *ctx) {
    (void)ctx;
    return fs_db_last_ok();
}

static apr_time_t last_unavailable(void *ctx) {
    (void)ctx;
    return fs_db_last_unavailable();
}

/* The probe pings first: a failed pooled open costs two error-log lines
 * of mod_dbd's, and while the database is down every request could be the
 * one that tries. */
static int ping(void *ctx) {
    (void)ctx;
    return fs_db_ping(formsvc_global_conf()->db_ping_conninfo);
}

static void waiting(void *ctx) {
    (void)ctx;
    formsvc_metric_inc(FORMSVC_M_DB_WAITS);
}

void formsvc_dbpool_child_init(apr_pool_t *pchild, server_rec *s) {
    fs_store_set_timeout(timeout_sec() * 1000);
    formsvc_gauge_set(FORMSVC_G_DB_MAX, pool_max());
    fs_gate_conf conf = {pool_max(),
                         apr_time_from_sec(timeout_sec()),
                         apr_time_from_msec(PROBE_WAIT_MS),
                         last_ok,
                         last_unavailable,
                         formsvc_global_conf()->db_ping_conninfo ? ping : NULL,
                         waiting,
                         NULL};
    gate = fs_gate_create(pchild, &conf);
    if (!gate)
        FORMSVC_SLOG(s, APLOG_ERR, 0, 02152,
                     "cannot make the database connection gate; waits for a pooled "
                     "connection are not bounded");
}

_Static_assert((int)FORMSVC_DBPOOL_OK == (int)FS_GATE_OK &&
                   (int)FORMSVC_DBPOOL_BUSY == (int)FS_GATE_BUSY &&
                   (int)FORMSVC_DBPOOL_DOWN == (int)FS_GATE_DOWN,
               "the gate's answers are the pool's");

int formsvc_dbpool_enter(int *probe) {
    return fs_gate_enter(gate, probe);
}

void formsvc_dbpool_leave(int probe) {
    fs_gate_leave(gate, probe);
}

/* The connection's own pool goes when mod_dbd closes it. */
static apr_status_t conn_closed(void *data) {
    (void)data;
    formsvc_gauge_add(FORMSVC_G_DB_OPEN, -1);
    return APR_SUCCESS;
}

void formsvc_dbpool_note_open(ap_dbd_t *d) {
    formsvc_gauge_add(FORMSVC_G_DB_HELD, 1);
    void *seen = NULL;
    if (!d->pool || (apr_pool_userdata_get(&seen, "formsvc-counted", d->pool), seen))
        return;
    apr_pool_userdata_setn("", "formsvc-counted", NULL, d->pool);
    formsvc_gauge_add(FORMSVC_G_DB_OPEN, 1);
    apr_pool_cleanup_register(d->pool, NULL, conn_closed, apr_pool_cleanup_null);
}

/* mod_dbd failing to open a connection while PostgreSQL answers pings (it
 * refuses sessions: "too many clients", a role's connection limit, a
 * failed login): the gate counts the database as down for a back-off after
 * each such failure, so that a child tries again (and mod_dbd logs its two
 * lines) a few times a minute rather than for every request. */
void formsvc_dbpool_unreachable(void) {
    fs_gate_unreachable(gate, apr_time_now());
}

/* The connection an initial request holds: taken through the gate on first
 * use and given back (connection first, then the gate's place) when the
 * request's pool goes, or earlier by formsvc_dbpool_release. ap_dbd_open
 * and ap_dbd_close rather than ap_dbd_acquire, which ties the connection to
 * the request for its whole life: a long poll must not hold one while it
 * sleeps. Not ap_dbd_cacquire either: under the event MPM a connection
 * must not be held across keep-alive idle time. Lives in the initial
 * request's pool; internal redirects and subrequests share it. */
typedef struct held_db {
    server_rec *s;
    ap_dbd_t *d; /* NULL: no connection now */
    int entered; /* a place of the gate is taken */
    int probe;   /* ... as the thread finding out whether the database is back */
} held_db;

static APR_OPTIONAL_FN_TYPE(ap_dbd_open) * dbd_open;
static APR_OPTIONAL_FN_TYPE(ap_dbd_close) * dbd_close;

static apr_status_t give_back(void *data) {
    held_db *h = data;
    if (h->d) {
        dbd_close(h->s, h->d);
        h->d = NULL;
        formsvc_gauge_add(FORMSVC_G_DB_HELD, -1);
    }
    if (h->entered) {
        formsvc_dbpool_leave(h->probe);
        h->entered = h->probe = 0;
    }
    return APR_SUCCESS;
}

static request_rec *initial_request(request_rec *r) {
    while (!ap_is_initial_req(r))
        r = r->prev ? r->prev : r->main;
    return r;
}

ap_dbd_t *formsvc_dbpool_acquire(request_rec *r) {
    if (!dbd_open) {
        dbd_open = APR_RETRIEVE_OPTIONAL_FN(ap_dbd_open);
        dbd_close = APR_RETRIEVE_OPTIONAL_FN(ap_dbd_close);
    }
    if (!dbd_open || !dbd_close)
        return NULL;
    request_rec *ir = initial_request(r);
    held_db *h = NULL;
    apr_pool_userdata_get((void **)&h, "formsvc-dbpool", ir->pool);
    if (!h) {
        h = apr_pcalloc(ir->pool, sizeof(*h));
        h->s = ir->server;
        apr_pool_cleanup_register(ir->pool, h, give_back, apr_pool_cleanup_null);
        apr_pool_userdata_setn(h, "formsvc-dbpool", NULL, ir->pool);
    }
    if (h->d)
        return h->d;
    if (!h->entered) {
        int rc = formsvc_dbpool_enter(&h->probe);
        if (rc != FORMSVC_DBPOOL_OK)
            formsvc_metric_inc(rc == FORMSVC_DBPOOL_BUSY ? FORMSVC_M_DB_WAIT_TIMEOUTS
                                                         : FORMSVC_M_DB_DOWN_FAST);
        if (rc == FORMSVC_DBPOOL_BUSY) {
            FORMSVC_LOG(r, APLOG_WARNING, 02153,
                        "no pooled database connection came free within %d s", timeout_sec());
            return NULL;
        }
        if (rc == FORMSVC_DBPOOL_DOWN) {
            FORMSVC_LOG(r, APLOG_INFO, 02154,
                        "database unreachable a moment ago and being retried by another "
                        "request: answering 503 at once");
            return NULL;
        }
        h->entered = 1;
    }
    h->d = dbd_open(ir->pool, ir->server);
    if (h->d)
        formsvc_dbpool_note_open(h->d);
    else {
        formsvc_metric_inc(FORMSVC_M_DB_OPEN_FAILED);
        formsvc_dbpool_unreachable();
        give_back(h);
    }
    return h->d;
}

int formsvc_dbpool_release(request_rec *r) {
    held_db *h = NULL;
    apr_pool_userdata_get((void **)&h, "formsvc-dbpool", initial_request(r)->pool);
    if (!h)
        return 1;
    if (h->d && fs_db_in_transaction(h->d->driver, h->d->handle))
        return 0; /* it goes back when the transaction's owner is done */
    give_back(h);
    return 1;
}
