/* fs_store: the table of every statement, gathered from the per-resource
 * *_store.c files and checked at startup; the store handle the typed
 * functions run on. The table is built once at configuration time
 * (single-threaded) and only read afterwards. */
#include "fs_log.h"
#include "store_int.h"

#include <apr_lib.h>
#include <apr_strings.h>
#include <string.h>

static fs_stmt all[FS_STORE_MAX_STMTS];
static unsigned char writes_of[FS_STORE_MAX_STMTS]; /* fs_stmt_writes of all[i] */
static int n_all = -1;
static int overflow; /* statements that did not fit */

int fs_stmt_append(fs_stmt *table, int cap, int *n, const fs_stmt *list) {
    for (; list->label; list++) {
        if (*n >= cap)
            return -1;
        table[(*n)++] = *list;
    }
    return 0;
}

static void gather(const fs_stmt *list) {
    int before = n_all, len = 0;
    for (const fs_stmt *s = list; s->label; s++)
        len++;
    fs_stmt_append(all, FS_STORE_MAX_STMTS, &n_all, list);
    overflow += len - (n_all - before); /* reported by fs_store_check, never run */
}

/* Statements that write only through a function of sql/ they call; those
 * whose SQL says INSERT, UPDATE or DELETE are found by reading it. */
static const char *const writing_functions[] = {
    "fs_audit_insert", "fs_tally_rollup",    "fs_mail_done",       "fs_mail_claim",
    "fs_form_create",  "fs_form_save",       "fs_link_create",     "fs_retention_batch",
    "fs_audit_count",  "fs_purge_request",   "fs_purge_step",      "fs_ask_create",
    "fs_ask_decline",  "fs_mcp_subscribe",   "fs_mcp_stream_open", "fs_asks_expire_emit",
    "fs_partial_save", "fs_partials_expire", "fs_partial_mail"};

int fs_stmt_writes(const fs_stmt *st) {
    if (strstr(st->sql, "INSERT ") || strstr(st->sql, "UPDATE ") || strstr(st->sql, "DELETE "))
        return 1;
    for (size_t i = 0; i < sizeof(writing_functions) / sizeof(writing_functions[0]); i++)
        if (!strcmp(st->label, writing_functions[i]))
            return 1;
    return 0;
}

const fs_stmt *fs_store_statements(int *count) {
    if (n_all < 0) {
        n_all = 0;
        gather(fs_stmts_account);
        gather(fs_stmts_oauth);
        gather(fs_stmts_grants);
        gather(fs_stmts_ops);
        gather(fs_stmts_verify);
        gather(fs_stmts_forms);
        gather(fs_stmts_public);
        gather(fs_stmts_webhooks);
        gather(fs_stmts_stats);
        gather(fs_stmts_links);
        gather(fs_stmts_files);
        gather(fs_stmts_mail);
        gather(fs_stmts_retention);
        gather(fs_stmts_asks);
        gather(fs_stmts_mcp);
        gather(fs_stmts_partials);
        gather(fs_stmts_edits);
        for (int i = 0; i < n_all; i++)
            writes_of[i] = (unsigned char)fs_stmt_writes(&all[i]);
    }
    *count = n_all;
    return all;
}

int fs_stmt_markers(const char *sql) {
    int n = 0;
    for (const char *c = sql; *c; c++) {
        if (*c != '%')
            continue;
        if (c[1] == '%')
            c++; /* a literal % */
        else
            n++;
    }
    return n;
}

static int is_identifier(const char *s) {
    if (!*s || strlen(s) > 63 || !(apr_islower(*s) || *s == '_'))
        return 0;
    for (; *s; s++)
        if (!apr_islower(*s) && !apr_isdigit(*s) && *s != '_')
            return 0;
    return 1;
}

const char *fs_stmt_list_check(apr_pool_t *p, const fs_stmt *st, int n) {
    for (int i = 0; i < n; i++) {
        if (!st[i].label || !is_identifier(st[i].label))
            return apr_psprintf(p, "statement %d: label %s is not a lower-case SQL identifier", i,
                                st[i].label ? st[i].label : "(null)");
        if (!st[i].sql)
            return apr_psprintf(p, "statement %s has no SQL", st[i].label);
        int m = fs_stmt_markers(st[i].sql);
        if (m != st[i].nargs)
            return apr_psprintf(p, "statement %s declares %d arguments but its SQL has %d markers",
                                st[i].label, st[i].nargs, m);
        for (int j = 0; j < i; j++)
            if (!strcmp(st[i].label, st[j].label))
                return apr_psprintf(p, "statement label %s is used twice", st[i].label);
    }
    return NULL;
}

const char *fs_store_check(apr_pool_t *p) {
    int n;
    const fs_stmt *st = fs_store_statements(&n);
    if (overflow)
        return apr_psprintf(p,
                            "the statement table holds %d statements; %d more do not fit "
                            "(raise FS_STORE_MAX_STMTS)",
                            FS_STORE_MAX_STMTS, overflow);
    return fs_stmt_list_check(p, st, n);
}

/* The declared nargs of label (-1 for a label not in the table) and
 * whether it writes (fs_stmt_writes, read once per statement). */
static int declared_nargs(const char *label, int *writes) {
    int n;
    const fs_stmt *st = fs_store_statements(&n);
    for (int i = 0; i < n; i++)
        if (!strcmp(st[i].label, label)) {
            *writes = writes_of[i];
            return st[i].nargs;
        }
    *writes = 0;
    return -1;
}

fs_store *fs_store_make(apr_pool_t *p, fs_store_connect_fn *connect, void *baton) {
    fs_store *st = apr_pcalloc(p, sizeof(*st));
    st->pool = p;
    st->connect = connect;
    st->baton = baton;
    return st;
}

fs_store *fs_store_on(apr_pool_t *p, fs_db *db) {
    fs_store *st = apr_pcalloc(p, sizeof(*st));
    st->pool = p;
    st->db = db;
    st->log_failures = 1;
    return st;
}

fs_store *fs_store_sub(const fs_store *st, apr_pool_t *p) {
    fs_store *s = apr_palloc(p, sizeof(*s));
    *s = *st;
    s->pool = p;
    return s;
}

static fs_error *failed(fs_store *st, fs_error *e) {
    if (st->log_failures && e->cause)
        fs_store_log(3, apr_pstrcat(st->pool, FS_LOGNO(00318), e->cause, NULL));
    return e;
}

fs_error *fs_store_run(fs_store *st, const char *label, int nargs, const char *const *args,
                       int ncols, fs_rows **out) {
    *out = NULL;
    int writes;
    int want = declared_nargs(label, &writes);
    if (want != nargs)
        return failed(st, fs_error_internal(st->pool,
                                            want < 0 ? "statement %s is not in the table"
                                                     : "statement %s given %d arguments, takes %d",
                                            label, nargs, want));
    fs_db *db = st->db;
    if (st->connect) {
        fs_error *e = st->connect(st->baton, &db);
        if (e)
            return e;
    }
    fs_rows *rs;
    fs_error *e = fs_db_query(st->pool, db, label, nargs, args, writes, &rs);
    if (e)
        return failed(st, e);
    if (rs->ncols != ncols)
        return failed(st,
                      fs_error_internal(st->pool, "statement %s answered %d columns, expected %d",
                                        label, rs->ncols, ncols));
    *out = rs;
    return NULL;
}

void fs_store_page(apr_pool_t *p, const fs_rows *rs, int limit, fs_list_page *out) {
    out->n = rs->nrows > limit ? limit : rs->nrows;
    out->more = rs->nrows > limit;
    out->items = apr_pcalloc(p, sizeof(fs_list_item) * (apr_size_t)(out->n > 0 ? out->n : 1));
    for (int i = 0; i < out->n; i++) {
        out->items[i].id = FS_CELL(rs, i, 0);
        out->items[i].json = FS_CELL(rs, i, 1);
    }
}

fs_error *fs_store_one(fs_store *st, const char *label, int nargs, const char *const *args,
                       const char **out) {
    fs_rows *rs;
    *out = NULL;
    fs_error *e = fs_store_run(st, label, nargs, args, 1, &rs);
    if (!e && rs->nrows == 1)
        *out = FS_CELL(rs, 0, 0);
    return e;
}

fs_error *fs_store_int(fs_store *st, const char *label, int nargs, const char *const *args,
                       int none, int *out) {
    fs_rows *rs;
    fs_error *e = fs_store_run(st, label, nargs, args, 1, &rs);
    *out = !e && rs->nrows == 1 ? fs_cell_int(FS_CELL(rs, 0, 0)) : none;
    return e;
}

fs_error *fs_store_count(fs_store *st, const char *label, int nargs, const char *const *args,
                         int ncols, int *nrows) {
    fs_rows *rs;
    fs_error *e = fs_store_run(st, label, nargs, args, ncols, &rs);
    *nrows = e ? 0 : rs->nrows;
    return e;
}

fs_error *fs_store_list(fs_store *st, const char *label, int nargs, const char *const *args,
                        int limit, fs_list_page *out) {
    fs_rows *rs;
    fs_error *e = fs_store_run(st, label, nargs, args, 2, &rs);
    if (!e)
        fs_store_page(st->pool, rs, limit, out);
    return e;
}
