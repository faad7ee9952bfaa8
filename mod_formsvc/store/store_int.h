/* store_int: what the files of mod_formsvc/store share and nothing outside
 * sees: result rows by position, running a statement by label, and the
 * per-resource statement lists (each ending with {NULL}). Column numbers
 * and labels stay behind this header; the glue has the typed functions of
 * include/fs_store_*.h only. */
#ifndef FS_STORE_INT_H
#define FS_STORE_INT_H

#include "fs_store.h"

#include <stdlib.h>

/* The result of a query: rows x cols of strings (NULL = SQL NULL), in p. */
typedef struct fs_rows {
    int nrows, ncols;
    const char **cell; /* cell[r * ncols + c] */
} fs_rows;

#define FS_CELL(rs, r, c) ((rs)->cell[(r) * (rs)->ncols + (c)])

struct fs_store {
    apr_pool_t *pool;             /* results and problems */
    fs_store_connect_fn *connect; /* NULL: db is fixed */
    void *baton;
    fs_db *db;        /* the fixed connection when connect is NULL */
    int log_failures; /* 1: no request logs the cause, fs_store_run does */
};

/* Runs the prepared statement label with nargs text arguments (NULL is SQL
 * NULL) and reads every row. An idle connection the server has ended is
 * renewed (and its statements prepared again) before the statement is
 * sent; a connection lost while the statement ran is renewed and the
 * statement run once more only when it cannot have taken effect (see
 * fs_db.c); never either inside a transaction (db->in_tx, or one the
 * session reports): the statement fails and the transaction with it.
 * writes: outside a transaction, the statement's commit is held back
 * until its result arrived in time, so that a 503 means "not stored"; a
 * commit sent and never answered is 504 outcome-unknown. A database that cannot be reached, does
 * not answer within the time limit (fs_store_set_timeout), or cancels the statement for its own
 * statement_timeout or lock_timeout is a 503 problem (with Retry-After);
 * any other database error a 500 whose cause names the statement, the
 * SQLSTATE and the server's primary message. */
fs_error *fs_db_query(apr_pool_t *p, fs_db *db, const char *label, int nargs,
                      const char *const *args, int writes, fs_rows **out);
/* 1 when the session behind db has every statement of the table prepared
 * (prepared again here when it lacks some): for a caller about to open a
 * transaction, in which a missing statement cannot be recovered. */
int fs_db_statements_ready(apr_pool_t *p, fs_db *db);

/* Awaits, within ms, the result of what was just sent on c in non-blocking
 * mode (ok: the send worked); past the limit the socket is shut so that
 * libpq calls the connection bad and mod_dbd replaces it: NULL with
 * *timed_out set. The caller PQclears the result. Every statement of the
 * store is bounded so: a database that stops answering costs a request
 * FormsvcDBTimeout, never a thread for ever. */
typedef struct pg_conn PGconn;
typedef struct pg_result PGresult;
PGresult *fs_db_await(PGconn *c, int ok, int ms, int *timed_out);
/* A statement without parameters (SET, BEGIN, ROLLBACK...) within ms (0:
 * no limit). */
PGresult *fs_db_exec_bounded(PGconn *c, const char *sql, int ms, int *timed_out);

/* Logs through the glue's logger (fs_store_set_logger); level as syslog. */
void fs_store_log(int level, const char *msg);

/* What every typed function runs through: checks nargs against the
 * statement table and the result's width against ncols (a statement
 * edited out of step with its reader fails loudly, as a 500 with a
 * cause), takes a connection from the store and runs the statement. */
fs_error *fs_store_run(fs_store *st, const char *label, int nargs, const char *const *args,
                       int ncols, fs_rows **out);
/* The same with args an array whose length the compiler knows. */
#define FS_RUN(st, label, args, ncols, out)                                                        \
    fs_store_run(st, label, FS_NARGS(args), args, ncols, out)

/* The first (id, json) columns of up to limit + 1 rows as a page. */
void fs_store_page(apr_pool_t *p, const fs_rows *rs, int limit, fs_list_page *out);

/* The shapes most typed functions share, each run through fs_store_run
 * (so nargs and the result's width are checked the same way); the typed
 * functions keep their names and parameters and become one call.
 *
 * fs_store_one: a statement of one column; *out is the first row's cell,
 * NULL when no row came back (or on error). Results live in st->pool. */
fs_error *fs_store_one(fs_store *st, const char *label, int nargs, const char *const *args,
                       const char **out);
/* fs_store_int: a statement of one numeric column; *out is the first
 * row's number (0 for SQL NULL), none when no row came back (or on
 * error). */
fs_error *fs_store_int(fs_store *st, const char *label, int nargs, const char *const *args,
                       int none, int *out);
/* fs_store_count: a statement of ncols columns whose rows only count;
 * *nrows is how many came back (0 on error). */
fs_error *fs_store_count(fs_store *st, const char *label, int nargs, const char *const *args,
                         int ncols, int *nrows);
/* fs_store_list: a statement of (id, json) rows asked for limit + 1 rows,
 * as a page of at most limit; out is left alone on error. */
fs_error *fs_store_list(fs_store *st, const char *label, int nargs, const char *const *args,
                        int limit, fs_list_page *out);

/* The same with args an array whose length the compiler knows. */
#define FS_NARGS(args) ((int)(sizeof(args) / sizeof((args)[0])))
#define FS_ONE(st, label, args, out) fs_store_one(st, label, FS_NARGS(args), args, out)
#define FS_INT(st, label, args, none, out) fs_store_int(st, label, FS_NARGS(args), args, none, out)
#define FS_COUNT(st, label, args, ncols, nrows)                                                    \
    fs_store_count(st, label, FS_NARGS(args), args, ncols, nrows)
#define FS_LIST(st, label, args, limit, out)                                                       \
    fs_store_list(st, label, FS_NARGS(args), args, limit, out)

/* The first row of rs (request hash, status, location, body) as an
 * Idempotency-Key record (forms_store.c; public_store.c reads the same). */
struct fs_idem_record *fs_store_idem_row(apr_pool_t *p, const fs_rows *rs);

/* Text of a number or flag as statements take them. */
/* The delegation-tree rule of every route that shows or changes what a
 * credential made: an owner key (the two arguments, its key id twice, are
 * NULL) sees everything; a delegate only what col names as made inside its
 * own tree (fs_key_tree, sql/0034). Takes two %s arguments. */
#define FS_SQL_IN_TREE(col) "(%s::text IS NULL OR " col " IN (SELECT fs_key_tree(%s::text)))"
#define FS_ARG_INT(p, v) apr_itoa(p, v)
#define FS_ARG_BOOL(v) ((v) ? "t" : "f")

/* A cell read as a number or as a PostgreSQL boolean ('t'); NULL is 0. */
static inline int fs_cell_int(const char *s) {
    return s ? atoi(s) : 0;
}
static inline long long fs_cell_i64(const char *s) {
    return s ? atoll(s) : 0;
}
static inline int fs_cell_bool(const char *s) {
    return s && s[0] == 't';
}

extern const fs_stmt fs_stmts_account[];
extern const fs_stmt fs_stmts_oauth[];
extern const fs_stmt fs_stmts_grants[]; /* authorization code flow */
extern const fs_stmt fs_stmts_ops[];
extern const fs_stmt fs_stmts_verify[];
extern const fs_stmt fs_stmts_forms[];
extern const fs_stmt fs_stmts_public[];
extern const fs_stmt fs_stmts_webhooks[];
extern const fs_stmt fs_stmts_stats[];
extern const fs_stmt fs_stmts_mcp[];
extern const fs_stmt fs_stmts_links[];
extern const fs_stmt fs_stmts_files[]; /* uploaded files */
extern const fs_stmt fs_stmts_mail[];  /* mail of submissions */
extern const fs_stmt fs_stmts_retention[];
extern const fs_stmt fs_stmts_asks[];     /* asks, sql/0049 */
extern const fs_stmt fs_stmts_partials[]; /* partial answers, sql/0059 */
extern const fs_stmt fs_stmts_edits[];    /* edits after sending, sql/0065 */

#endif
