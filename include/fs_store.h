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
 * NULL) and reads every row. An idle connection the server has ended is
 * renewed (and its statements prepared again) before the statement is
 * sent; a connection lost while the statement ran is renewed and the
 * statement run once more only when it cannot have taken effect (see
 * fs_db.c). A database that cannot be reached, does not answer within the
 * time limit (fs_store_set_timeout), or cancels the statement for its own
 * statement_timeout or lock_timeout is a 503 problem (with Retry-After);
 * any other database error a 500. */
fs_error *fs_db_query(apr_pool_t *p, fs_db *db, const char *label, int nargs,
                      const char *const *args, fs_rows **out);

/* The longest fs_db_query waits for the server's answer to one statement,
 * in milliseconds; 0 (the default) waits as long as it takes. Set once, at
 * child start. */
void fs_store_set_timeout(int ms);

/* When a statement was last answered, and when the database was last
 * found unreachable or silent (apr_time_t; 0 = never). For the glue's
 * choice between trying the database and answering 503 at once. */
apr_time_t fs_db_last_ok(void);
apr_time_t fs_db_last_unavailable(void);

/* Counters the store adds to (atomically) when set: c[FS_DB_COUNT_*],
 * memory that outlives every query (the glue's shared metrics). NULL:
 * nothing is counted. */
enum {
    FS_DB_COUNT_UNAVAILABLE, /* unreachable or silent: 503 */
    FS_DB_COUNT_BUSY,        /* cancelled by statement_timeout or lock_timeout: 503 */
    FS_DB_COUNT_ERROR,       /* any other failure: 500 */
    FS_DB_COUNT_RENEWED,     /* a session renewed and its statements prepared again */
    FS_DB_COUNT_N
};
void fs_store_set_counters(volatile apr_uint64_t *c);

/* 1 when a PostgreSQL server accepts connections at conninfo (libpq's
 * PQping: nothing is logged, no session is opened; connect_timeout in
 * conninfo bounds it), 0 when none answers or it refuses connections. */
int fs_db_ping(const char *conninfo);

/* How a failed statement failed, from its SQLSTATE (NULL when libpq gave
 * none) and whether libpq now calls the connection bad. */
typedef enum fs_db_failure {
    FS_DB_ERROR,        /* a real error: 500 */
    FS_DB_LOST,         /* the connection or session is gone: 08xxx, 57P01-57P03 */
    FS_DB_NO_STATEMENT, /* 26000: the session lost its prepared statements */
    FS_DB_BUSY          /* 57014 statement_timeout, 55P03 lock_timeout, 53xxx: 503 */
} fs_db_failure;
fs_db_failure fs_db_classify(const char *sqlstate, int conn_bad);
/* 1 when running the statement again on a renewed session cannot make it
 * take effect twice: result_seen says whether any result of it arrived. */
int fs_db_retry_safe(fs_db_failure f, int result_seen);

/* Logging callback for the store, set by the glue. level is syslog's
 * (3 error, 4 warning, 5 notice); msg starts with its own number,
 * FS_LOGNO (fs_log.h), and is in a pool that lives until the call returns. */
typedef void fs_log_fn(int level, const char *msg);
void fs_store_set_logger(fs_log_fn *fn);

#endif
