/* fs_db: executing prepared statements on the connections mod_dbd hands
 * out, bounding how long one may take, and recovering when PostgreSQL
 * restarts or ends sessions.
 *
 * The statements are prepared through apr_dbd (mod_dbd does it on every
 * new pooled connection, under their labels); they are run here with libpq
 * itself (apr_dbd_native_handle), for three things apr_dbd cannot give:
 *
 * - A bound on the wait (fs_store_set_timeout): the answer is awaited with
 *   poll() against a deadline. A server that does not answer in time (for
 *   example a stopped or unreachable one, where its own statement_timeout
 *   cannot fire) has the connection shut: the request gets a 503 problem
 *   and the next user of the connection has mod_dbd reconnect it.
 * - SQLSTATE, to tell a lost connection (class 08, 57P01-57P03), a missing
 *   prepared statement (26000), a statement_timeout, lock_timeout, deadlock
 *   or serialization failure (57014, 55P03, 40P01, 40001: 503, the database
 *   is busy) and a real error (500) apart,
 *   rather than reading message text.
 * - Knowing whether the statement can have run. libpq reports a connection
 *   the server closed while it sat in the pool as good until it is used,
 *   so apr_dbd_check_conn does not reconnect it. Before sending, an idle
 *   connection with something to read is probed: a server that ended the
 *   session has said so (or closed the socket) by then, and the connection
 *   is reset and its statements prepared again before the statement is
 *   sent, so nothing is retried at all. When the connection breaks after
 *   sending, the statement is retried once on a fresh session only if no
 *   result of it came back: PostgreSQL sends a statement's result together
 *   with the commit's ReadyForQuery, so without a result the statement was
 *   rolled back, except in the instant between a commit reaching the disk
 *   and the answer leaving the server. Writes that must not happen twice
 *   carry an Idempotency-Key (docs/deploy.md).
 *
 * Never inside a transaction. A session renewed under an open transaction
 * (fs_store_tx_begin, or any the session reports) would run the statement
 * outside it, alone and committed at once, while the caller's COMMIT
 * later fails: half of the work stored. So when the transaction's
 * connection is lost, ended by the server or found broken, the statement
 * fails (503) and the transaction with it; the caller starts over.
 *
 * A write's outcome is known whenever it answers 503. A statement that
 * writes (fs_store.c decides from its SQL) runs in libpq's pipeline mode
 * with its commit held back: the statement and a Flush are sent, its
 * result awaited within the time limit, and only then the Sync that
 * commits it. A statement that does not answer in time has its socket
 * shut before the Sync left: PostgreSQL rolls it back (it reads the end of
 * the connection where the Sync would be), so the 503 means "not stored",
 * even when a stopped server runs the statement later. Once the Sync has
 * left, the outcome is the server's to tell: the wait goes on, up to
 * COMMIT_WAIT times the limit (at least COMMIT_WAIT_MIN); a server still
 * silent then leaves it unknown, and the answer says so (504
 * outcome-unknown, never 503). PQcancel is not used for the first: it
 * waits for the server without a limit, and a stopped server never
 * answers; the shut socket is what makes the outcome known.
 *
 * A reset session has none of the prepared statements (mod_dbd prepares
 * them only when it opens a connection), so every reset is followed by
 * preparing them all again on that handle.
 *
 * - How a session plans (SESSION_SETTINGS): before its first statement of
 *   ours, and again after every reset, a session is set to keep one
 *   generic plan per prepared statement (plan_cache_mode =
 *   force_generic_plan) and never to JIT-compile (jit = off). The store's
 *   statements are written for generic plans (their partition bounds prune
 *   at execution); with PostgreSQL's default the plan cache keeps planning
 *   custom plans over every partition of a table for each execution
 *   (docs/performance.md, "Generic plans"), and a generic plan estimated
 *   above jit_above_cost was compiled for seconds. The setting holds for
 *   the statements of the SQL functions the store calls too. Set by the
 *   module, so no configuration can leave it out. */
#include "fs_log.h"
#include "store_int.h"

#include <apr_atomic.h>
#include <apr_strings.h>
#include <errno.h>
#include <libpq-fe.h>
#include <limits.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>

static fs_log_fn *logger;
static int timeout_ms; /* 0: wait as long as the server takes */
/* The wait for the outcome of a commit that was sent: COMMIT_WAIT times
 * timeout_ms, at least COMMIT_WAIT_MIN_MS. */
#define COMMIT_WAIT 6
#define COMMIT_WAIT_MIN_MS 30000
/* apr_time_t of the last answered statement, and of the last time the
 * database was found unreachable or silent; shared by the threads */
static volatile apr_uint64_t last_ok, last_unavailable;

apr_time_t fs_db_last_ok(void) {
    return (apr_time_t)apr_atomic_read64(&last_ok);
}

apr_time_t fs_db_last_unavailable(void) {
    return (apr_time_t)apr_atomic_read64(&last_unavailable);
}

static volatile apr_uint64_t *counters;

void fs_store_set_counters(volatile apr_uint64_t *c) {
    counters = c;
}

static void count(int which) {
    if (counters)
        apr_atomic_inc64(&counters[which]);
}

int fs_db_ping(const char *conninfo) {
    PGPing st = PQping(conninfo);
    return st == PQPING_OK || st == PQPING_NO_ATTEMPT; /* NO_ATTEMPT: bad conninfo, let
                                                        * mod_dbd say what is wrong */
}

void fs_store_set_logger(fs_log_fn *fn) {
    logger = fn;
}

void fs_store_set_timeout(int ms) {
    timeout_ms = ms > 0 ? ms : 0;
}

int fs_store_timeout(void) {
    return timeout_ms;
}

int fs_store_commit_timeout(void) {
    if (!timeout_ms)
        return 0;
    int ms = timeout_ms > INT_MAX / COMMIT_WAIT ? INT_MAX : timeout_ms * COMMIT_WAIT;
    return ms < COMMIT_WAIT_MIN_MS ? COMMIT_WAIT_MIN_MS : ms;
}

void fs_store_log(int level, const char *msg) {
    if (logger)
        logger(level, msg);
}

fs_db_failure fs_db_classify(const char *sqlstate, int conn_bad) {
    if (sqlstate && strlen(sqlstate) == 5) {
        if (!strcmp(sqlstate, "26000"))
            return FS_DB_NO_STATEMENT;
        if (!strncmp(sqlstate, "08", 2) || !strcmp(sqlstate, "57P01") ||
            !strcmp(sqlstate, "57P02") || !strcmp(sqlstate, "57P03"))
            return FS_DB_LOST;
        if (!strcmp(sqlstate, "57014") || !strcmp(sqlstate, "55P03"))
            return FS_DB_BUSY;
        /* a deadlock or a serialization failure: the statement (or its
         * transaction) was undone whole, and the same request succeeds
         * when sent again; 503 with Retry-After, not a 500 */
        if (!strcmp(sqlstate, "40P01") || !strcmp(sqlstate, "40001"))
            return FS_DB_BUSY;
        if (!strncmp(sqlstate, "53", 2)) /* insufficient resources */
            return FS_DB_BUSY;
        if (!strcmp(sqlstate, "25006")) /* read_only_sql_transaction */
            return FS_DB_READ_ONLY;
    }
    /* libpq's own errors (no SQLSTATE) on a connection it now calls bad */
    return conn_bad ? FS_DB_LOST : FS_DB_ERROR;
}

int fs_db_retry_safe(fs_db_failure f, int result_seen) {
    if (f == FS_DB_NO_STATEMENT)
        return 1; /* refused before it ran */
    if (f == FS_DB_LOST)
        return !result_seen;
    return 0;
}

/* What one attempt gave. */
typedef struct attempt {
    fs_rows *rows;        /* set on success */
    const char *err;      /* message, on failure */
    const char *primary;  /* the server's primary message alone (no DETAIL,
                             which may quote values), or NULL */
    const char *sqlstate; /* NULL when libpq gave none */
    int result_seen;      /* a result of the statement arrived */
    int timed_out;        /* the deadline passed; the connection was shut */
    int not_sent;         /* the statement did not leave */
    int commit_sent;      /* with the commit held back: the Sync that commits left */
    int commit_unknown;   /* ... and whether it committed cannot be known */
} attempt;

static fs_rows *copy_rows(apr_pool_t *p, PGresult *res) {
    fs_rows *rs = apr_pcalloc(p, sizeof(*rs));
    rs->nrows = PQntuples(res);
    rs->ncols = PQnfields(res);
    int n = rs->nrows * rs->ncols;
    rs->cell = apr_palloc(p, sizeof(const char *) * (apr_size_t)(n > 0 ? n : 1));
    for (int r = 0; r < rs->nrows; r++)
        for (int c = 0; c < rs->ncols; c++)
            rs->cell[r * rs->ncols + c] =
                PQgetisnull(res, r, c)
                    ? NULL
                    : apr_pstrmemdup(p, PQgetvalue(res, r, c), (apr_size_t)PQgetlength(res, r, c));
    return rs;
}

/* Shuts the socket so that libpq sees the connection as broken: used when
 * the server does not answer in time. PQcancel is no help here: it waits
 * for the server to close the cancel connection, without a time limit. */
static void break_connection(PGconn *c) {
    int fd = PQsocket(c);
    if (fd >= 0)
        shutdown(fd, SHUT_RDWR);
    PQconsumeInput(c); /* reads EOF: libpq marks the connection bad */
}

/* Sends what libpq has queued and waits until it has a whole result (or
 * knows there is none left), or the deadline passes. 1 when PQgetResult
 * will not block; 0 on timeout (*timed_out set) or a broken connection. */
static int await(PGconn *c, apr_time_t deadline, int *timed_out) {
    for (;;) {
        int pending = PQflush(c); /* non-blocking mode: 1 while output remains */
        if (pending < 0)
            return 0;
        if (!pending && !PQisBusy(c))
            return 1;
        int wait = -1;
        if (deadline) {
            apr_time_t left = deadline - apr_time_now();
            if (left <= 0) {
                *timed_out = 1;
                return 0;
            }
            wait = (int)apr_time_as_msec(left) + 1;
        }
        struct pollfd pfd = {PQsocket(c), (short)(POLLIN | (pending ? POLLOUT : 0)), 0};
        if (pfd.fd < 0)
            return 0;
        int n = poll(&pfd, 1, wait);
        if (n < 0 && errno != EINTR)
            return 0;
        if (n > 0 && (pfd.revents & (POLLIN | POLLHUP | POLLERR)) && !PQconsumeInput(c))
            return 0;
    }
}

/* A result of the statement (or of the commit) into a. */
static void take(apr_pool_t *p, PGresult *res, attempt *a) {
    ExecStatusType st = PQresultStatus(res);
    if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK) {
        a->result_seen = 1;
        if (!a->err)
            a->rows = copy_rows(p, res);
    } else if (!a->err) {
        const char *code = PQresultErrorField(res, PG_DIAG_SQLSTATE);
        const char *primary = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
        a->sqlstate = code ? apr_pstrdup(p, code) : NULL;
        a->primary = primary ? apr_pstrdup(p, primary) : NULL;
        a->err = apr_pstrdup(p, PQresultErrorMessage(res));
    }
}

/* One attempt, in non-blocking mode so that sending is bounded too (a big
 * argument to a server that reads nothing would otherwise block in send). */
static void run(apr_pool_t *p, PGconn *c, const char *label, int nargs, const char *const *args,
                attempt *a) {
    memset(a, 0, sizeof(*a));
    PQsetnonblocking(c, 1);
    if (!PQsendQueryPrepared(c, label, nargs, args, NULL, NULL, 0)) {
        a->not_sent = 1;
        a->err = apr_pstrdup(p, PQerrorMessage(c));
        PQsetnonblocking(c, 0);
        return;
    }
    apr_time_t deadline = timeout_ms ? apr_time_now() + apr_time_from_msec(timeout_ms) : 0;
    for (;;) {
        if (!a->timed_out && !await(c, deadline, &a->timed_out))
            break_connection(c); /* so that PQgetResult cannot block */
        PGresult *res = PQgetResult(c);
        if (!res)
            break;
        take(p, res, a);
        PQclear(res);
    }
    PQsetnonblocking(c, 0); /* apr_dbd's own calls (PREPARE) expect blocking */
    if (a->err || a->timed_out)
        a->rows = NULL;
    if (a->timed_out && !a->err)
        a->err = "no answer within the time limit";
    if (!a->rows && !a->err)
        a->err = "no result";
}

/* In pipeline mode: reads results into a until the end of the statement's
 * (the NULL libpq gives after them) or, when sync, until the Sync's
 * PGRES_PIPELINE_SYNC. 1 when that end came; 0 when the deadline passed
 * (a->timed_out) or the connection broke: the connection is then shut. */
static int collect(apr_pool_t *p, PGconn *c, apr_time_t deadline, int sync, attempt *a) {
    /* a Sync after an error gives that error, a NULL, then the Sync: a
     * few results at most, each awaited within the deadline */
    for (int n = 0; n < 16; n++) {
        int timed_out = 0;
        if (!await(c, deadline, &timed_out)) {
            a->timed_out = timed_out;
            break_connection(c);
            return 0;
        }
        PGresult *res = PQgetResult(c);
        if (!res) {
            if (!sync)
                return 1;
            continue;
        }
        int end = PQresultStatus(res) == PGRES_PIPELINE_SYNC;
        if (!end)
            take(p, res, a);
        PQclear(res);
        if (end)
            return 1;
        if (PQstatus(c) != CONNECTION_OK)
            return 0;
    }
    break_connection(c);
    return 0;
}

/* One attempt of a statement that writes, with its commit held back (see
 * the top of the file): the statement in pipeline mode with a Flush, its
 * result within the time limit, then the Sync that commits it, awaited up
 * to fs_store_commit_timeout. */
static void run_deferred(apr_pool_t *p, PGconn *c, const char *label, int nargs,
                         const char *const *args, attempt *a) {
    memset(a, 0, sizeof(*a));
    PQsetnonblocking(c, 1);
    if (!PQenterPipelineMode(c)) {
        a->not_sent = 1;
        a->err = apr_pstrdup(p, PQerrorMessage(c));
        PQsetnonblocking(c, 0);
        return;
    }
    if (!PQsendQueryPrepared(c, label, nargs, args, NULL, NULL, 0) || !PQsendFlushRequest(c)) {
        /* perhaps part of it left, never a Sync: nothing can commit */
        a->not_sent = 1;
        a->err = apr_pstrdup(p, PQerrorMessage(c));
        break_connection(c);
        PQsetnonblocking(c, 0);
        return;
    }
    apr_time_t now = apr_time_now();
    apr_time_t deadline = timeout_ms ? now + apr_time_from_msec(timeout_ms) : 0;
    if (collect(p, c, deadline, 0, a)) {
        /* the statement answered: commit it (after an error the Sync only
         * ends the failed transaction) */
        int commit = !a->err;
        if (commit) {
            int ms = fs_store_commit_timeout();
            deadline = ms ? apr_time_now() + apr_time_from_msec(ms) : 0;
            a->commit_sent = 1; /* from here on, the server may commit it */
        }
        if (!PQpipelineSync(c)) {
            a->commit_unknown = commit;
            if (!a->err)
                a->err = apr_pstrdup(p, PQerrorMessage(c));
            break_connection(c);
        } else if (!collect(p, c, deadline, 1, a)) {
            /* no answer to the commit in time, or the connection broke: a
             * refusal that arrived (other than the session ending) says
             * it did not commit; anything else leaves it unknown */
            a->commit_unknown = commit && (!a->err || fs_db_classify(a->sqlstate, 1) == FS_DB_LOST);
        }
    }
    /* idle again (results and Sync all read); a connection that cannot
     * leave pipeline mode is of no use to anyone after us: shut */
    if (PQstatus(c) == CONNECTION_OK && !PQexitPipelineMode(c))
        break_connection(c);
    PQsetnonblocking(c, 0);
    if (a->err || a->timed_out || a->commit_unknown)
        a->rows = NULL;
    if (a->timed_out && !a->err)
        a->err = "no answer within the time limit";
    if (!a->rows && !a->err)
        a->err = "no result";
}

/* Awaits the result of what was just sent (ok: it was) within ms, in
 * non-blocking mode (set by the caller; reset here). Past the limit the socket is
 * shut, so that libpq calls the connection bad (and mod_dbd replaces it):
 * NULL with *timed_out set. */
PGresult *fs_db_await(PGconn *c, int ok, int ms, int *timed_out) {
    *timed_out = 0;
    apr_time_t deadline = apr_time_now() + apr_time_from_msec(ms);
    while (ok) {
        int pending = PQflush(c);
        if (pending < 0)
            break;
        if (!pending && !PQisBusy(c))
            break;
        apr_time_t left = deadline - apr_time_now();
        if (left <= 0) {
            *timed_out = 1;
            int fd = PQsocket(c);
            if (fd >= 0)
                shutdown(fd, SHUT_RDWR);
            PQconsumeInput(c);
            break;
        }
        struct pollfd pfd = {PQsocket(c), (short)(POLLIN | (pending ? POLLOUT : 0)), 0};
        int got = poll(&pfd, 1, (int)apr_time_as_msec(left) + 1);
        if (got < 0 && errno != EINTR)
            break;
        if (got > 0 && (pfd.revents & (POLLIN | POLLHUP | POLLERR)) && !PQconsumeInput(c))
            break;
    }
    PGresult *res = NULL, *r;
    while (ok && (r = PQgetResult(c))) { /* the last result is the statement's */
        PQclear(res);
        res = r;
    }
    PQsetnonblocking(c, 0);
    if (*timed_out) {
        PQclear(res);
        return NULL;
    }
    return res;
}

/* A statement without parameters (SET, BEGIN, ROLLBACK...) within ms (0:
 * no limit), as fs_db_await says. */
PGresult *fs_db_exec_bounded(PGconn *c, const char *sql, int ms, int *timed_out) {
    *timed_out = 0;
    if (ms <= 0)
        return PQexec(c, sql);
    PQsetnonblocking(c, 1);
    return fs_db_await(c, PQsendQuery(c, sql), ms, timed_out);
}

/* How every session of ours plans its statements (the top of the file). */
static const char SESSION_SETTINGS[] = "SET plan_cache_mode = force_generic_plan; SET jit = off";
/* The key, in the pool of a connection (fs_db.conn_pool), noting that its
 * session has SESSION_SETTINGS. */
#define SESSION_SET_KEY "fs_db:session-settings"

static int session_in_tx(PGconn *c);

/* Applies SESSION_SETTINGS once per session, outside a transaction (where
 * a rollback would undo them): 1 when the session has them. */
static int session_set(apr_pool_t *p, fs_db *db, PGconn *c) {
    void *done = NULL;
    if (db->conn_pool)
        apr_pool_userdata_get(&done, SESSION_SET_KEY, db->conn_pool);
    if (done)
        return 1;
    if (db->in_tx || session_in_tx(c))
        return 0;
    int timed_out;
    PGresult *res = fs_db_exec_bounded(c, SESSION_SETTINGS, fs_store_timeout(), &timed_out);
    int ok = res && PQresultStatus(res) == PGRES_COMMAND_OK;
    if (!ok)
        fs_store_log(4, apr_psprintf(p,
                                     FS_LOGNO(02190) "the session's planner settings (%s) "
                                                     "failed: %s; its statements are planned "
                                                     "at every execution",
                                     SESSION_SETTINGS, PQerrorMessage(c)));
    PQclear(res);
    if (ok && db->conn_pool)
        apr_pool_userdata_setn((void *)1, SESSION_SET_KEY, NULL, db->conn_pool);
    return ok;
}

/* Prepares every statement again on this handle, after DEALLOCATE ALL (a
 * session that lost some statements may still hold others), and gives a
 * new session its settings. */
static int reprepare_all(apr_pool_t *p, fs_db *db, PGconn *c) {
    int timed_out;
    PGresult *res = fs_db_exec_bounded(c, "DEALLOCATE ALL", fs_store_timeout(), &timed_out);
    int ok = res && PQresultStatus(res) == PGRES_COMMAND_OK;
    PQclear(res);
    if (!ok)
        return 0;
    if (db->conn_pool) /* a reset session lost them */
        apr_pool_userdata_setn(NULL, SESSION_SET_KEY, NULL, db->conn_pool);
    session_set(p, db, c);
    int n;
    const fs_stmt *st = fs_store_statements(&n);
    for (int i = 0; i < n; i++) {
        apr_dbd_prepared_t *stmt = NULL;
        /* the apr_dbd_prepared_t in mod_dbd's hash names the same
         * server-side statement, so it works again; this one is scratch */
        if (apr_dbd_prepare(db->driver, p, db->handle, st[i].sql, st[i].label, &stmt) != 0)
            return 0;
    }
    return 1;
}

/* A new session on the same handle (PQreset, bounded by connect_timeout
 * in DBDParams) with every statement prepared. */
static int reconnect(apr_pool_t *p, fs_db *db, PGconn *c, const char *why) {
    if (PQstatus(c) != CONNECTION_OK) {
        PQreset(c);
        if (PQstatus(c) != CONNECTION_OK) {
            fs_store_log(4, apr_psprintf(p,
                                         FS_LOGNO(00311) "database connection lost (%s); "
                                                         "reconnecting failed: %s",
                                         why, PQerrorMessage(c)));
            return 0;
        }
    }
    if (!reprepare_all(p, db, c)) {
        fs_store_log(4, apr_psprintf(p, FS_LOGNO(00312) "preparing statements again failed: %s",
                                     PQerrorMessage(c)));
        return 0;
    }
    fs_store_log(5, apr_psprintf(p,
                                 FS_LOGNO(00313) "database session renewed and statements "
                                                 "prepared again (%s)",
                                 why));
    count(FS_DB_COUNT_RENEWED);
    return 1;
}

/* An idle pooled connection that has something to read has been told
 * something by the server: usually that the session is over. Reads it;
 * 1 when the connection is still good. */
static int idle_alive(PGconn *c) {
    if (PQstatus(c) != CONNECTION_OK)
        return 0;
    /* A server ending the session sends its FATAL message and closes the
     * socket: the first read takes the message (a notice to libpq), a
     * later one finds the end. A few rounds at most, never waiting. */
    for (int i = 0; i < 4; i++) {
        struct pollfd pfd = {PQsocket(c), POLLIN, 0};
        if (pfd.fd < 0)
            return 0;
        if (poll(&pfd, 1, 0) <= 0)
            return 1;
        if (!PQconsumeInput(c) || PQstatus(c) != CONNECTION_OK)
            return 0;
    }
    return 1;
}

/* The database cannot be reached or does not answer: noted for dbpool. */
static fs_error *unavailable(apr_pool_t *p) {
    count(FS_DB_COUNT_UNAVAILABLE);
    apr_atomic_set64(&last_unavailable, (apr_uint64_t)apr_time_now());
    return fs_error_make(p, "service-unavailable", "The database cannot be reached.");
}

/* The database answers, but cancelled the statement (statement_timeout,
 * lock_timeout, out of resources): 503 too, yet no sign that it is down. */
static fs_error *busy(apr_pool_t *p) {
    count(FS_DB_COUNT_BUSY);
    return fs_error_make(p, "service-unavailable", "The database cannot be reached.");
}

/* The database answers and reads, but takes no writes now (25006): 503
 * too, counted as busy; the detail says what a client can tell its user. */
static fs_error *read_only(apr_pool_t *p) {
    count(FS_DB_COUNT_BUSY);
    return fs_error_make(p, "service-unavailable",
                         "The database accepts no changes at the moment.");
}

static fs_error *answered(fs_rows **out, fs_rows *rows) {
    apr_atomic_set64(&last_ok, (apr_uint64_t)apr_time_now());
    *out = rows;
    return NULL;
}

/* A real error (500): the cause names the statement, the SQLSTATE and the
 * server's primary message, never the DETAIL, which may quote argument
 * values (addresses, hashes). Logged once, by whoever holds the request. */
static fs_error *failure(apr_pool_t *p, const char *label, const attempt *a, const char *when) {
    count(FS_DB_COUNT_ERROR);
    return fs_error_internal(p, "statement %s failed%s (%s): %s", label, when,
                             a->sqlstate ? a->sqlstate : "-", a->primary ? a->primary : a->err);
}

/* Drivers other than pgsql: apr_dbd alone, without the bound or retries. */
static fs_error *query_apr_dbd(apr_pool_t *p, fs_db *db, const char *label,
                               apr_dbd_prepared_t *stmt, int nargs, const char *const *args,
                               fs_rows **out) {
    apr_dbd_results_t *res = NULL;
    int rv = apr_dbd_pselect(db->driver, p, db->handle, &res, stmt, 1, nargs, (const char **)args);
    if (rv != 0) {
        const char *why = apr_dbd_error(db->driver, db->handle, rv);
        if (apr_dbd_check_conn(db->driver, p, db->handle) == APR_SUCCESS) {
            count(FS_DB_COUNT_ERROR);
            return fs_error_internal(p, "statement %s failed: %s", label, why ? why : "-");
        }
        fs_store_log(
            4, apr_psprintf(p, FS_LOGNO(00314) "statement %s failed: %s", label, why ? why : "-"));
        return unavailable(p);
    }
    fs_rows *rs = apr_pcalloc(p, sizeof(*rs));
    rs->ncols = apr_dbd_num_cols(db->driver, res);
    apr_array_header_t *cells = apr_array_make(p, 8, sizeof(const char *));
    apr_dbd_row_t *row = NULL;
    while (apr_dbd_get_row(db->driver, p, res, &row, -1) == 0) {
        for (int c = 0; c < rs->ncols; c++) {
            const char *v = NULL;
            apr_status_t st = apr_dbd_datum_get(db->driver, row, c, APR_DBD_TYPE_STRING, &v);
            if (st == APR_ENOENT)
                v = NULL;
            else if (st != APR_SUCCESS)
                v = apr_dbd_get_entry(db->driver, row, c);
            APR_ARRAY_PUSH(cells, const char *) = v ? apr_pstrdup(p, v) : NULL;
        }
        rs->nrows++;
    }
    rs->cell = (const char **)cells->elts;
    return answered(out, rs);
}

/* A live session inside a transaction block, or running a statement. */
static int session_in_tx(PGconn *c) {
    return c && PQstatus(c) == CONNECTION_OK && PQtransactionStatus(c) != PQTRANS_IDLE;
}

int fs_db_in_transaction(const apr_dbd_driver_t *driver, apr_dbd_t *handle) {
    if (!driver || !handle || strcmp(apr_dbd_name(driver), "pgsql") != 0)
        return 0;
    return session_in_tx(apr_dbd_native_handle(driver, handle));
}

int fs_db_statements_ready(apr_pool_t *p, fs_db *db) {
    if (strcmp(apr_dbd_name(db->driver), "pgsql") != 0)
        return 1;
    PGconn *c = apr_dbd_native_handle(db->driver, db->handle);
    int n;
    fs_store_statements(&n);
    int timed_out;
    PGresult *res = fs_db_exec_bounded(c, "SELECT count(*) FROM pg_prepared_statements",
                                       fs_store_timeout(), &timed_out);
    int have = res && PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1
                   ? atoi(PQgetvalue(res, 0, 0))
                   : -1;
    PQclear(res);
    if (have >= n)
        return 1;
    /* a session whose preparation failed part-way (say a table locked past
     * lock_timeout while it was opened) lacks some: prepared again here,
     * before a transaction, since inside one the first missing statement
     * would abort it */
    return have >= 0 && reconnect(p, db, c, "statements missing before a transaction");
}

/* The commit of a write was sent and the server said nothing more: it may
 * have committed. Not a 503, which promises that nothing was stored. */
static fs_error *unknown(apr_pool_t *p, const char *label, const attempt *a) {
    fs_store_log(3, apr_psprintf(p,
                                 FS_LOGNO(00396) "statement %s: its commit was sent and no "
                                                 "outcome came back (waited up to %d ms: %s); "
                                                 "whether it was stored is unknown",
                                 label, fs_store_commit_timeout(), a->err ? a->err : "no answer"));
    count(FS_DB_COUNT_UNAVAILABLE); /* the database was silent */
    apr_atomic_set64(&last_unavailable, (apr_uint64_t)apr_time_now());
    return fs_error_make(p, "outcome-unknown",
                         "The database did not confirm in time whether this was stored.");
}

/* The session of a pinned connection (fs_db.pinned) is gone or was ended
 * by the server, and with it what the caller held on it. */
static fs_error *lost_pinned(apr_pool_t *p, const char *label, const char *why) {
    fs_store_log(4, apr_psprintf(p,
                                 FS_LOGNO(00331) "statement %s: database session lost while it "
                                                 "held a lock of ours (%s); not renewed, the "
                                                 "statement fails",
                                 label, why));
    return unavailable(p);
}

/* The connection of an open transaction is gone or was ended by the
 * server: the transaction is lost with it, and nothing of it is stored. */
static fs_error *lost_in_tx(apr_pool_t *p, const char *label, const char *why) {
    fs_store_log(4, apr_psprintf(p,
                                 FS_LOGNO(00395) "statement %s: database connection lost inside "
                                                 "a transaction (%s); not renewed, the "
                                                 "transaction fails",
                                 label, why));
    return unavailable(p);
}

fs_error *fs_db_query(apr_pool_t *p, fs_db *db, const char *label, int nargs,
                      const char *const *args, int writes, fs_rows **out) {
    *out = NULL;
    apr_dbd_prepared_t *stmt = apr_hash_get(db->prepared, label, APR_HASH_KEY_STRING);
    if (!stmt) {
        count(FS_DB_COUNT_ERROR);
        return fs_error_internal(p, "statement %s was not prepared on this connection", label);
    }
    if (strcmp(apr_dbd_name(db->driver), "pgsql") != 0)
        return query_apr_dbd(p, db, label, stmt, nargs, args, out);
    PGconn *c = apr_dbd_native_handle(db->driver, db->handle);

    /* inside a transaction: ours (even on a connection now broken, whose
     * state libpq no longer knows), or one the session reports */
    int in_tx = db->in_tx || session_in_tx(c);
    if (!idle_alive(c)) {
        if (in_tx)
            return lost_in_tx(p, label, "the server ended the session");
        if (db->pinned)
            return lost_pinned(p, label, "the server ended the session");
        if (!reconnect(p, db, c, "the server ended the idle session"))
            return unavailable(p);
    }
    session_set(p, db, c);
    /* inside a transaction its COMMIT commits, not a Sync */
    int deferred = writes && !in_tx;
    attempt a;
    for (int round = 0;; round++) {
        if (deferred)
            run_deferred(p, c, label, nargs, args, &a);
        else
            run(p, c, label, nargs, args, &a);
        if (a.rows)
            return answered(out, a.rows);
        if (a.commit_unknown)
            return unknown(p, label, &a);
        if (a.timed_out) {
            fs_store_log(4, apr_psprintf(p,
                                         FS_LOGNO(00316) "statement %s: no answer from the "
                                                         "database within %d ms; connection "
                                                         "dropped%s",
                                         label, timeout_ms,
                                         deferred ? " before its commit (not stored)" : ""));
            return unavailable(p);
        }
        int bad = PQstatus(c) != CONNECTION_OK;
        fs_db_failure f =
            a.not_sent ? (bad ? FS_DB_LOST : FS_DB_ERROR) : fs_db_classify(a.sqlstate, bad);
        if (f == FS_DB_BUSY) {
            fs_store_log(4, apr_psprintf(p, FS_LOGNO(00317) "statement %s: database busy (%s): %s",
                                         label, a.sqlstate, a.err));
            return busy(p);
        }
        if (f == FS_DB_READ_ONLY) {
            /* a state of the server, not of this statement: nothing was
             * written, and the same write succeeds once the server takes
             * writes again (promoted, or the setting turned off) */
            fs_store_log(4, apr_psprintf(p,
                                         FS_LOGNO(00330) "statement %s: the database is read-only "
                                                         "(%s): %s",
                                         label, a.sqlstate, a.primary ? a.primary : a.err));
            return read_only(p);
        }
        if (f == FS_DB_ERROR)
            return failure(p, label, &a, round ? " after reconnecting" : "");
        if (in_tx)
            return lost_in_tx(p, label, a.err);
        if (db->pinned)
            return lost_pinned(p, label, a.err);
        if (round) {
            fs_store_log(4, apr_psprintf(p,
                                         FS_LOGNO(00320) "statement %s failed after "
                                                         "reconnecting (%s): %s",
                                         label, a.sqlstate ? a.sqlstate : "-", a.err));
            return unavailable(p);
        }
        /* with its commit held back, a statement whose Sync never left
         * cannot have been stored; otherwise only one that gave no result */
        int safe = a.not_sent || (deferred ? !a.commit_sent : fs_db_retry_safe(f, a.result_seen));
        if (!safe) {
            fs_store_log(4, apr_psprintf(p,
                                         FS_LOGNO(00319) "database connection lost after "
                                                         "statement %s ran; not retried: %s",
                                         label, a.err));
            return unavailable(p);
        }
        if (!reconnect(p, db, c, a.err))
            return unavailable(p);
    }
}
