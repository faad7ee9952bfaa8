/* fs_store: the one storage interface. Every SQL statement lives in
 * mod_formsvc/store, registered at configuration time by label
 * (fs_store_statements) and executed by label through fs_db_query; the
 * request path never builds SQL text. Nothing here includes httpd headers:
 * the glue hands in the apr_dbd connection it acquired from mod_dbd.
 *
 * Most statements return JSON text built by PostgreSQL (fs_*_json in sql/),
 * which the glue sends on or parses. */
#ifndef FS_STORE_H
#define FS_STORE_H

#include <apr_dbd.h>
#include <apr_hash.h>
#include <apr_pools.h>

#include "fs_error.h"

typedef struct fs_stmt {
    const char *label; /* SQL identifier, also the prepared statement name */
    const char *sql;   /* apr_dbd syntax: %s markers, casts in SQL */
} fs_stmt;

/* Every statement of the store, for registration at config time. */
const fs_stmt *fs_store_statements(int *count);

/* A pooled connection as mod_dbd hands it out. Not owned: the glue's pool
 * cleanup gives it back. */
typedef struct fs_db {
    const apr_dbd_driver_t *driver;
    apr_dbd_t *handle;
    apr_hash_t *prepared; /* label -> apr_dbd_prepared_t* */
    apr_pool_t *conn_pool;/* lives as long as the connection */
} fs_db;

/* The result of a query: rows x cols of strings (NULL = SQL NULL), in p. */
typedef struct fs_rows {
    int nrows, ncols;
    const char **cell; /* cell[r * ncols + c] */
} fs_rows;

#define FS_CELL(rs, r, c) ((rs)->cell[(r) * (rs)->ncols + (c)])

/* Runs the prepared statement label with nargs text arguments (NULL is SQL
 * NULL) and reads every row. When the connection was reset under us (a
 * PostgreSQL restart), the statements are prepared again on the same
 * handle and the query runs once more. A connection failure is a 503
 * problem; any other database error a 500. */
fs_error *fs_db_query(apr_pool_t *p, fs_db *db, const char *label, int nargs,
                      const char *const *args, fs_rows **out);

/* Logging callback for the store, set by the glue (ap_log_perror). */
typedef void fs_log_fn(int level, const char *msg);
void fs_store_set_logger(fs_log_fn *fn);

#endif
