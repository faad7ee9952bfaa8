/* fs_db: executing prepared statements through apr_dbd, and recovering
 * after PostgreSQL restarts.
 *
 * Why recovery is ours: apr_dbd_check_conn (called by mod_dbd when it hands
 * out a connection) runs PQreset() on a broken connection and reports
 * success, but the new session has no prepared statements, and mod_dbd
 * never prepares them again. So on a failure we ask the driver whether the
 * connection is alive (resetting it if not), prepare every statement again
 * on this handle, and retry once. */
#include "fs_store.h"

#include <apr_strings.h>
#include <string.h>

static fs_log_fn *logger;

void fs_store_set_logger(fs_log_fn *fn)
{
    logger = fn;
}

static void log_msg(int level, const char *msg)
{
    if (logger)
        logger(level, msg);
}

static int reprepare_all(fs_db *db)
{
    int n;
    const fs_stmt *st = fs_store_statements(&n);
    for (int i = 0; i < n; i++) {
        apr_dbd_prepared_t *stmt = NULL;
        if (apr_dbd_prepare(db->driver, db->conn_pool, db->handle, st[i].sql,
                            st[i].label, &stmt) != 0)
            return 0;
        /* The old apr_dbd_prepared_t in mod_dbd's hash names the same
         * server-side statement, so it works again; keep ours in the hash
         * too in case it was missing. */
        if (db->prepared && !apr_hash_get(db->prepared, st[i].label, APR_HASH_KEY_STRING))
            apr_hash_set(db->prepared, st[i].label, APR_HASH_KEY_STRING, stmt);
    }
    return 1;
}

static int run(apr_pool_t *p, fs_db *db, apr_dbd_prepared_t *stmt, int nargs,
               const char *const *args, fs_rows **out, const char **err)
{
    apr_dbd_results_t *res = NULL;
    int rv = apr_dbd_pselect(db->driver, p, db->handle, &res, stmt, 1, nargs,
                             (const char **)args);
    if (rv != 0) {
        *err = apr_dbd_error(db->driver, db->handle, rv);
        return 0;
    }
    fs_rows *rs = apr_pcalloc(p, sizeof(*rs));
    rs->ncols = apr_dbd_num_cols(db->driver, res);
    apr_array_header_t *cells = apr_array_make(p, 8, sizeof(const char *));
    apr_dbd_row_t *row = NULL;
    while (apr_dbd_get_row(db->driver, p, res, &row, -1) == 0) {
        for (int c = 0; c < rs->ncols; c++) {
            /* get_entry gives "" for SQL NULL; datum_get tells them apart */
            const char *v = NULL;
            apr_status_t st = apr_dbd_datum_get(db->driver, row, c, APR_DBD_TYPE_STRING, &v);
            if (st != APR_SUCCESS && st != APR_ENOENT)
                v = apr_dbd_get_entry(db->driver, row, c);
            else if (st == APR_ENOENT)
                v = NULL;
            APR_ARRAY_PUSH(cells, const char *) = v ? apr_pstrdup(p, v) : NULL;
        }
        rs->nrows++;
    }
    rs->cell = (const char **)cells->elts;
    *out = rs;
    return 1;
}

fs_error *fs_db_query(apr_pool_t *p, fs_db *db, const char *label, int nargs,
                      const char *const *args, fs_rows **out)
{
    *out = NULL;
    apr_dbd_prepared_t *stmt = apr_hash_get(db->prepared, label, APR_HASH_KEY_STRING);
    if (!stmt) {
        log_msg(3, apr_psprintf(p, "statement %s was not prepared", label));
        return fs_error_make(p, "internal", NULL);
    }
    const char *err = NULL;
    if (run(p, db, stmt, nargs, args, out, &err))
        return NULL;
    const char *first = err ? apr_pstrdup(p, err) : "unknown error";
    int lost = strstr(first, "does not exist") && strstr(first, "prepared statement");
    /* A connection that died under us: check_conn resets it when it can. */
    int alive_before = apr_dbd_check_conn(db->driver, p, db->handle) == APR_SUCCESS;
    if (!alive_before) {
        log_msg(4, apr_psprintf(p, "database connection lost: %s", first));
        return fs_error_make(p, "service-unavailable", "The database cannot be reached.");
    }
    if (!lost && !strstr(first, "terminat") && !strstr(first, "connection") &&
        !strstr(first, "server closed")) {
        log_msg(3, apr_psprintf(p, "statement %s failed: %s", label, first));
        return fs_error_make(p, "internal", NULL);
    }
    if (!reprepare_all(db)) {
        log_msg(4, apr_psprintf(p, "preparing statements again failed: %s",
                                apr_dbd_error(db->driver, db->handle, -1)));
        return fs_error_make(p, "service-unavailable", "The database cannot be reached.");
    }
    log_msg(5, apr_psprintf(p, "database connection was reset; statements prepared again (%s)", first));
    if (run(p, db, stmt, nargs, args, out, &err))
        return NULL;
    log_msg(3, apr_psprintf(p, "statement %s failed after reconnect: %s", label, err ? err : "?"));
    return fs_error_make(p, "service-unavailable", "The database cannot be reached.");
}
