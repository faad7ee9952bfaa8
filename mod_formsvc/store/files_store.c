/* The store of uploaded files (fs_store_files.h, sql/0032). Text
 * statements go through fs_store_run like every other; the chunk
 * statements talk to libpq directly, so that content travels as binary
 * bytea (a parameter in binary format going in, a binary result coming
 * out) rather than twice its size in hex text, and never passes through a
 * NUL-terminated string. The transaction is plain BEGIN / COMMIT on the
 * request's connection. */
#include "fs_log.h"
#include "fs_store_files.h"
#include "store_int.h"

#include <apr_strings.h>
#include <errno.h>
#include <libpq-fe.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>

const fs_stmt fs_stmts_files[] = {
    /* a whole file's row and its first chunk in one statement: 1 file id,
     * 2 submission id, 3 field key, 4 name, 5 media type, 6 size, 7 sha256,
     * 8 chunks, 9 form id (whose owner the file counts against), 10 the
     * first chunk (bytea, binary; NULL: an empty file). The count of rows
     * made: 0 when there is no such form */
    {"fs_file_put", 10,
     "WITH f AS (INSERT INTO submission_files (id, submission_id, user_id, field_key, name, "
     "  content_type, size, sha256, chunks) "
     "  SELECT %s, %s, f.user_id, %s, %s, %s, %s::bigint, %s, %s::integer FROM forms f "
     "  WHERE f.id = %s RETURNING id), "
     "c AS (INSERT INTO submission_file_chunks (file_id, seq, data) "
     "  SELECT f.id, 0, d.data FROM f, (SELECT %pDb AS data) d WHERE d.data IS NOT NULL) "
     "SELECT count(*)::text FROM f"},
    /* the chunks after the first: 1 file id, 2 seq, 3 content (bytea, binary) */
    {"fs_file_chunk", 3,
     "INSERT INTO submission_file_chunks (file_id, seq, data) VALUES (%s, %s::integer, %pDb)"},
    /* 1 quota verified, 2 quota unverified, 3 form id: used, quota */
    {"fs_files_usage", 3,
     "SELECT COALESCE((SELECT sum(fu.bytes) FROM file_usage fu WHERE fu.user_id = f.user_id), "
     "  0)::text, (CASE WHEN u.verified THEN %s::bigint ELSE %s::bigint END)::text "
     "FROM forms f JOIN users u ON u.id = f.user_id WHERE f.id = %s"},
    /* 1 quota verified, 2 quota unverified, 3 user id: bytes stored, quota */
    {"fs_files_used", 3,
     "SELECT COALESCE((SELECT sum(fu.bytes) FROM file_usage fu WHERE fu.user_id = u.id), "
     "  0)::text, (CASE WHEN u.verified THEN %s::bigint ELSE %s::bigint END)::text "
     "FROM users u WHERE u.id = %s"},
    /* 1 form id, 2 submission id, 3 file id */
    {"fs_file_get", 3,
     "SELECT sf.id, sf.name, sf.content_type, sf.size::text, sf.sha256, sf.chunks::text "
     "FROM submission_files sf JOIN submissions s ON s.id = sf.submission_id "
     "WHERE s.form_id = %s AND s.id = %s AND sf.id = %s"},
    /* 1 file id, 2 seq: the content (read as binary) */
    {"fs_file_chunk_get", 2,
     "SELECT data FROM submission_file_chunks WHERE file_id = %s AND seq = %s::integer"},
    {NULL, 0, NULL}};

struct fs_tx {
    fs_store *st;
    fs_db *db; /* its in_tx is set while the transaction is open */
    PGconn *c;
    int open;
};

static fs_error *conn_of(fs_store *st, PGconn **c, fs_db **dbp) {
    fs_db *db = st->db;
    if (st->connect) {
        fs_error *e = st->connect(st->baton, &db);
        if (e)
            return e;
    }
    if (strcmp(apr_dbd_name(db->driver), "pgsql"))
        return fs_error_internal(
            st->pool, "transactions (file uploads, Idempotency-Key) need the pgsql driver");
    *c = apr_dbd_native_handle(db->driver, db->handle);
    if (dbp)
        *dbp = db;
    return NULL;
}

/* PQexecPrepared within the store's time limit (fs_store_timeout), as
 * fs_db.c bounds every other statement: sent in non-blocking mode (a 256 KB
 * parameter to a server that reads nothing would block in send), the
 * answer awaited with poll (await_bounded). */
static PGresult *exec_bounded(PGconn *c, const char *label, int n, const char *const *vals,
                              const int *lens, const int *fmts, int result_format, int *timed_out) {
    *timed_out = 0;
    int ms = fs_store_timeout();
    if (!ms)
        return PQexecPrepared(c, label, n, vals, lens, fmts, result_format);
    PQsetnonblocking(c, 1);
    int ok = PQsendQueryPrepared(c, label, n, vals, lens, fmts, result_format);
    return fs_db_await(c, ok, ms, timed_out);
}

static fs_error *pq_failed(fs_store *st, const char *what, PGconn *c, PGresult *res) {
    const char *code = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    const char *msg = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    fs_error *e;
    fs_db_failure f = fs_db_classify(code, PQstatus(c) != CONNECTION_OK);
    /* gone, or timed out, locked, out of resources, taking no writes */
    if (f == FS_DB_LOST || f == FS_DB_BUSY || f == FS_DB_READ_ONLY)
        e = fs_error_make(st->pool, "service-unavailable", "The database cannot be reached.");
    else
        e = fs_error_internal(st->pool, "%s failed (%s): %s", what, code ? code : "-",
                              msg ? msg : PQerrorMessage(c));
    return e;
}

static void rollback(fs_tx *tx) {
    if (!tx->open)
        return;
    tx->open = 0;
    tx->db->in_tx = 0;
    if (PQstatus(tx->c) == CONNECTION_OK && PQtransactionStatus(tx->c) != PQTRANS_IDLE) {
        int timed_out;
        PQclear(fs_db_exec_bounded(tx->c, "ROLLBACK", fs_store_timeout(), &timed_out));
    }
}

static apr_status_t tx_cleanup(void *d) {
    rollback(d);
    return APR_SUCCESS;
}

fs_error *fs_store_tx_begin(fs_store *st, apr_pool_t *p, fs_tx **out) {
    *out = NULL;
    PGconn *c;
    fs_db *db;
    fs_error *e = conn_of(st, &c, &db);
    if (e)
        return e;
    if (!fs_db_statements_ready(p, db))
        return fs_error_make(st->pool, "service-unavailable", "The database cannot be reached.");
    fs_tx *tx = apr_pcalloc(p, sizeof(*tx));
    tx->st = st;
    tx->db = db;
    tx->c = c;
    int timed_out;
    PGresult *res = fs_db_exec_bounded(c, "BEGIN", fs_store_timeout(), &timed_out);
    int ok = res && PQresultStatus(res) == PGRES_COMMAND_OK;
    if (timed_out) {
        e = fs_error_make(st->pool, "service-unavailable", "The database cannot be reached.");
        return e;
    }
    if (!ok) {
        e = pq_failed(st, "BEGIN", c, res);
        PQclear(res);
        return e;
    }
    PQclear(res);
    tx->open = 1;
    db->in_tx = 1; /* from here on the session is never renewed under it (fs_db.c) */
    apr_pool_cleanup_register(p, tx, tx_cleanup, apr_pool_cleanup_null);
    *out = tx;
    return NULL;
}

int fs_store_tx_alive(fs_tx *tx) {
    return tx && tx->open && PQstatus(tx->c) == CONNECTION_OK &&
           PQtransactionStatus(tx->c) == PQTRANS_INTRANS;
}

fs_error *fs_store_tx_commit(fs_tx *tx) {
    if (!fs_store_tx_alive(tx)) {
        rollback(tx);
        return fs_error_make(tx->st->pool, "service-unavailable",
                             "The database connection was lost before the commit.");
    }
    int timed_out;
    /* awaited as long as fs_db.c awaits a statement's commit */
    PGresult *res = fs_db_exec_bounded(tx->c, "COMMIT", fs_store_commit_timeout(), &timed_out);
    /* a failed transaction answers COMMIT with the tag ROLLBACK */
    int ok = res && PQresultStatus(res) == PGRES_COMMAND_OK && !strcmp(PQcmdStatus(res), "COMMIT");
    fs_error *e = NULL;
    if (!ok && (timed_out || !res ||
                (PQresultStatus(res) != PGRES_COMMAND_OK &&
                 fs_db_classify(PQresultErrorField(res, PG_DIAG_SQLSTATE),
                                PQstatus(tx->c) != CONNECTION_OK) == FS_DB_LOST))) {
        /* sent, and no refusal came back: it may have committed */
        fs_store_log(3, apr_psprintf(tx->st->pool,
                                     FS_LOGNO(00370) "COMMIT of a transaction was sent and no "
                                                     "outcome came back (waited up to %d ms: "
                                                     "%s); whether it was stored is unknown",
                                     fs_store_commit_timeout(),
                                     timed_out ? "no answer in time" : PQerrorMessage(tx->c)));
        e = fs_error_make(tx->st->pool, "outcome-unknown",
                          "The database did not confirm whether this was stored.");
    } else if (!ok)
        e = pq_failed(tx->st, "COMMIT", tx->c, res);
    PQclear(res);
    tx->open = 0;
    tx->db->in_tx = 0;
    return e;
}

void fs_store_tx_rollback(fs_tx *tx) {
    if (tx)
        rollback(tx);
}

fs_error *fs_store_file_put(fs_store *st, const fs_new_file *f, long long size, const char *sha256,
                            int chunks, const void *first, apr_size_t first_len) {
    PGconn *c;
    fs_error *e = conn_of(st, &c, NULL);
    if (e)
        return e;
    const char *vals[] = {
        f->id,        f->sub_id,
        f->field_key, f->name,
        f->type,      apr_psprintf(st->pool, "%" APR_INT64_T_FMT, (apr_int64_t)size),
        sha256,       apr_itoa(st->pool, chunks),
        f->form_id,   first};
    int lens[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, (int)first_len},
        fmts[] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    int timed_out;
    PGresult *res = exec_bounded(c, "fs_file_put", 10, vals, lens, fmts, 0, &timed_out);
    if (timed_out)
        e = fs_error_make(st->pool, "service-unavailable", "The database cannot be reached.");
    else if (!res || PQresultStatus(res) != PGRES_TUPLES_OK)
        e = pq_failed(st, "statement fs_file_put", c, res);
    else if (PQntuples(res) != 1 || strcmp(PQgetvalue(res, 0, 0), "1"))
        e = fs_error_make(st->pool, "not-found", "No such form.");
    PQclear(res);
    return e;
}

fs_error *fs_store_file_chunk(fs_store *st, const char *file_id, int seq, const void *data,
                              apr_size_t len) {
    PGconn *c;
    fs_error *e = conn_of(st, &c, NULL);
    if (e)
        return e;
    char seqs[16];
    apr_snprintf(seqs, sizeof(seqs), "%d", seq);
    const char *vals[] = {file_id, seqs, data};
    int lens[] = {0, 0, (int)len}, fmts[] = {0, 0, 1};
    int timed_out;
    PGresult *res = exec_bounded(c, "fs_file_chunk", 3, vals, lens, fmts, 0, &timed_out);
    if (timed_out)
        e = fs_error_make(st->pool, "service-unavailable", "The database cannot be reached.");
    else if (!res || PQresultStatus(res) != PGRES_COMMAND_OK)
        e = pq_failed(st, "statement fs_file_chunk", c, res);
    PQclear(res);
    return e;
}

fs_error *fs_store_files_usage(fs_store *st, const char *form_id, long long quota_unverified,
                               long long quota_verified, long long *used, long long *quota) {
    const char *args[] = {
        apr_psprintf(st->pool, "%" APR_INT64_T_FMT, (apr_int64_t)quota_verified),
        apr_psprintf(st->pool, "%" APR_INT64_T_FMT, (apr_int64_t)quota_unverified), form_id};
    fs_rows *rs;
    *used = *quota = 0;
    fs_error *e = FS_RUN(st, "fs_files_usage", args, 2, &rs);
    if (e || rs->nrows != 1)
        return e;
    *used = apr_atoi64(FS_CELL(rs, 0, 0));
    *quota = apr_atoi64(FS_CELL(rs, 0, 1));
    return NULL;
}

fs_error *fs_store_files_used(fs_store *st, const char *user_id, long long quota_unverified,
                              long long quota_verified, long long *used, long long *quota) {
    const char *args[] = {
        apr_psprintf(st->pool, "%" APR_INT64_T_FMT, (apr_int64_t)quota_verified),
        apr_psprintf(st->pool, "%" APR_INT64_T_FMT, (apr_int64_t)quota_unverified), user_id};
    fs_rows *rs;
    *used = *quota = 0;
    fs_error *e = FS_RUN(st, "fs_files_used", args, 2, &rs);
    if (e || rs->nrows != 1)
        return e;
    *used = apr_atoi64(FS_CELL(rs, 0, 0));
    *quota = apr_atoi64(FS_CELL(rs, 0, 1));
    return NULL;
}

fs_error *fs_store_file_get(fs_store *st, const char *form_id, const char *sub_id,
                            const char *file_id, fs_file_meta **out) {
    const char *args[] = {form_id, sub_id, file_id};
    fs_rows *rs;
    *out = NULL;
    fs_error *e = FS_RUN(st, "fs_file_get", args, 6, &rs);
    if (e || rs->nrows != 1)
        return e;
    fs_file_meta *m = apr_pcalloc(st->pool, sizeof(*m));
    m->id = FS_CELL(rs, 0, 0);
    m->name = FS_CELL(rs, 0, 1);
    m->type = FS_CELL(rs, 0, 2);
    m->size = apr_atoi64(FS_CELL(rs, 0, 3));
    m->sha256 = FS_CELL(rs, 0, 4);
    m->chunks = fs_cell_int(FS_CELL(rs, 0, 5));
    *out = m;
    return NULL;
}

fs_error *fs_store_file_read_chunk(fs_store *st, apr_pool_t *p, const char *file_id, int seq,
                                   const char **data, apr_size_t *len) {
    *data = NULL;
    *len = 0;
    PGconn *c;
    fs_error *e = conn_of(st, &c, NULL);
    if (e)
        return e;
    char seqs[16];
    apr_snprintf(seqs, sizeof(seqs), "%d", seq);
    const char *vals[] = {file_id, seqs};
    int timed_out;
    PGresult *res = exec_bounded(c, "fs_file_chunk_get", 2, vals, NULL, NULL, 1, &timed_out);
    if (timed_out)
        e = fs_error_make(st->pool, "service-unavailable", "The database cannot be reached.");
    else if (!res || PQresultStatus(res) != PGRES_TUPLES_OK)
        e = pq_failed(st, "statement fs_file_chunk_get", c, res);
    else if (PQntuples(res) == 1 && PQnfields(res) == 1) {
        *len = (apr_size_t)PQgetlength(res, 0, 0);
        *data = apr_pmemdup(p, PQgetvalue(res, 0, 0), *len ? *len : 1);
    }
    PQclear(res);
    return e;
}
