/* fs_store: the one storage interface. Callers say what they want done
 * through typed functions, one header per resource (fs_store_account.h,
 * fs_store_oauth.h, fs_store_forms.h, fs_store_public.h, fs_store_verify.h,
 * fs_store_webhooks.h, fs_store_limits.h): named parameters in, small row
 * structs with named members out. Statement labels, argument order and
 * column positions never leave mod_formsvc/store, where each resource's
 * file holds its SQL next to the functions that run it. Nothing here
 * includes httpd headers: the glue hands in the apr_dbd connection it
 * acquired from mod_dbd.
 *
 * Every function returns NULL on success or a problem: 503
 * service-unavailable when the database cannot be reached or does not
 * answer in time, 500 internal (with fs_error.cause saying which statement
 * failed and why) for anything else. Results are allocated from the
 * store's pool. "Not found" is not an error: the out pointer is set to
 * NULL (or a count to 0), as each function says.
 *
 * Many statements return JSON text built by PostgreSQL (fs_*_json in sql/),
 * which the glue sends on or parses. */
#ifndef FS_STORE_H
#define FS_STORE_H

#include <apr_dbd.h>
#include <apr_hash.h>
#include <apr_pools.h>

#include "fs_error.h"

/* ---- Statements (registered at configuration time) ---- */

typedef struct fs_stmt {
    const char *label; /* SQL identifier, also the prepared statement name */
    int nargs;         /* arguments it takes: equal to its %s markers (fs_store_check) */
    const char *sql;   /* apr_dbd syntax: %s markers, casts in SQL */
} fs_stmt;

/* Every statement of the store, for registration at config time. The
 * table holds at most FS_STORE_MAX_STMTS; fs_store_check reports more. */
#ifndef FS_STORE_MAX_STMTS
#define FS_STORE_MAX_STMTS 256
#endif
const fs_stmt *fs_store_statements(int *count);

/* NULL when the statement table is sound, else why not (in p), for a
 * startup error: more statements than the table holds, a label that is no
 * SQL identifier or is used twice, or a statement whose declared nargs
 * differs from its %s markers. */
const char *fs_store_check(apr_pool_t *p);

/* The pieces of fs_store_check, for the unit tests. */
/* Parameter markers in apr_dbd SQL: every % that is not part of %%. */
int fs_stmt_markers(const char *sql);
/* Appends the {NULL}-ended list to table (n entries of cap in use).
 * 0 when all fit; -1 when the table is full (the rest are not added). */
int fs_stmt_append(fs_stmt *table, int cap, int *n, const fs_stmt *list);
/* NULL when every statement of the n in st is sound, else why not. */
const char *fs_stmt_list_check(apr_pool_t *p, const fs_stmt *st, int n);
/* 1 when the statement writes (its SQL says INSERT, UPDATE or DELETE, or
 * it calls a function of the store's that writes): run with its commit
 * held back (fs_db.c). */
int fs_stmt_writes(const fs_stmt *st);

/* ---- Connections ---- */

/* A pooled connection as mod_dbd hands it out. Not owned: the glue's pool
 * cleanup gives it back. */
typedef struct fs_db {
    const apr_dbd_driver_t *driver;
    apr_dbd_t *handle;
    apr_hash_t *prepared;  /* label -> apr_dbd_prepared_t* */
    apr_pool_t *conn_pool; /* lives as long as the connection */
    int in_tx;             /* a transaction of ours (fs_store_tx_begin) is open on it: the
                            * session is never renewed nor a statement retried under it */
    int pinned;            /* the session holds something of the caller's (a session-level
                            * advisory lock): if it is lost, the statements fail (503)
                            * rather than run on a renewed session that lacks it */
} fs_db;

/* Where the typed functions run their statements (opaque). */
typedef struct fs_store fs_store;

/* Gives the connection to run the next statement on, or a problem (503).
 * Called before every statement, so a caller may give its connection back
 * between two statements (a long poll) and get another one. */
typedef fs_error *fs_store_connect_fn(void *baton, fs_db **db);

/* A store for a request: connections from connect(baton), results and
 * problems in p. Failures are not logged here: the caller logs the
 * problem's cause once, with the request's context. */
fs_store *fs_store_make(apr_pool_t *p, fs_store_connect_fn *connect, void *baton);
/* A store on one fixed connection (background workers, startup checks).
 * A failed statement's cause is logged here (fs_store_set_logger), as no
 * request will log it. */
fs_store *fs_store_on(apr_pool_t *p, fs_db *db);
/* The same connections as st, with results in p (a sub-pool that a loop
 * clears between rounds). */
fs_store *fs_store_sub(const fs_store *st, apr_pool_t *p);

/* ---- Shapes shared by several resources ---- */

/* One page of a list: each item's id (the cursor when it is the last
 * item of a page) and its JSON representation. */
typedef struct fs_list_item {
    const char *id, *json;
} fs_list_item;
typedef struct fs_list_page {
    int n;               /* items, at most the limit asked for */
    fs_list_item *items; /* n of them, newest first unless a list says otherwise */
    int more;            /* 1 when more items follow items[n - 1] */
} fs_list_page;

/* A new credential (key, access token or client) as stored: its id, the
 * prefix of its secret shown in listings, the peppered hash of the secret.
 * The secret itself never reaches the store. */
typedef struct fs_new_secret {
    const char *id, *prefix, *hash;
} fs_new_secret;

/* ---- Behaviour of the database layer ---- */

/* The longest a statement waits for the server's answer, in milliseconds;
 * 0 (the default) waits as long as it takes. Set once, at child start. */
void fs_store_set_timeout(int ms);
/* The limit set (0: none), for statements run outside fs_db_query. */
int fs_store_timeout(void);
/* How long a commit that was sent is awaited (ms; 0: as long as it takes):
 * six times the limit, at least 30 s. Past it whether it committed is
 * unknown (504 outcome-unknown). */
int fs_store_commit_timeout(void);

/* When a statement was last answered, and when the database was last
 * found unreachable or silent (apr_time_t; 0 = never). For the glue's
 * choice between trying the database and answering 503 at once. */
apr_time_t fs_db_last_ok(void);
apr_time_t fs_db_last_unavailable(void);

/* Counters the store adds to (atomically) when set: c[FS_DB_COUNT_*],
 * memory that outlives every query (the glue's shared metrics). NULL:
 * nothing is counted. */
enum {
    FS_DB_COUNT_UNAVAILABLE, /* unreachable or silent: 503 (504 when a commit went unanswered) */
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

/* 1 when the session of a pooled connection (mod_dbd's driver and handle)
 * is inside a transaction block (or a statement is running on it): it must
 * not go back to the pool now. 0 for a session that is idle or broken, and
 * for drivers other than pgsql. */
int fs_db_in_transaction(const apr_dbd_driver_t *driver, apr_dbd_t *handle);

/* How a failed statement failed, from its SQLSTATE (NULL when libpq gave
 * none) and whether libpq now calls the connection bad. */
typedef enum fs_db_failure {
    FS_DB_ERROR,        /* a real error: 500 */
    FS_DB_LOST,         /* the connection or session is gone: 08xxx, 57P01-57P03 */
    FS_DB_NO_STATEMENT, /* 26000: the session lost its prepared statements */
    FS_DB_BUSY,         /* 57014 statement_timeout, 55P03 lock_timeout, 53xxx: 503 */
    FS_DB_READ_ONLY     /* 25006: the server takes no writes now (a standby not yet
                           promoted, default_transaction_read_only): 503 */
} fs_db_failure;
fs_db_failure fs_db_classify(const char *sqlstate, int conn_bad);
/* 1 when running the statement again on a renewed session cannot make it
 * take effect twice: result_seen says whether any result of it arrived. */
int fs_db_retry_safe(fs_db_failure f, int result_seen);

/* Logging callback for the store, set by the glue: outages, renewed
 * sessions, and the failures of fs_store_on stores. level is syslog's (3
 * error, 4 warning, 5 notice); msg starts with its own number, FS_LOGNO
 * (fs_log.h), and is in a pool that lives until the call returns. */
typedef void fs_log_fn(int level, const char *msg);
void fs_store_set_logger(fs_log_fn *fn);

#endif
