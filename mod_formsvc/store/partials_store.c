/* The store of partial answers (fs_store_partials.h, sql/0059). */
#include "fs_store_partials.h"
#include "store_int.h"

#include <apr_strings.h>
#include <string.h>

const fs_stmt fs_stmts_partials[] = {
    /* 1 id, 2 form id: resume hash, data, page (0-based), form version,
     * expiry */
    {"fs_partial_get", 2,
     "SELECT p.resume_hash, p.data::text, p.page::text, p.form_version::text, "
     "  fs_ts(p.expires_at) FROM submission_partials p "
     "WHERE p.id = %s AND p.form_id = %s AND p.expires_at > now()"},

    /* 1 id, 2 named ('t': the step's token named it), 3 form, 4 resume
     * hash, 5 data, 6 page, 7 form version (or NULL), 8 link id (or
     * NULL), 9 days, 10 event id: outcome (ok | gone | done | forbidden),
     * the row's id and its expiry */
    {"fs_partial_save", 10,
     "SELECT outcome, id, expires_at FROM fs_partial_save(%s, %s::boolean, %s, %s, %s::jsonb, "
     "  %s::integer, %s::integer, %s, %s::integer, %s)"},

    /* 1 id, 2 form id: 1 when the id is a submission of the form (a
     * completed partial), else 0 */
    {"fs_partial_done", 2,
     "SELECT count(*)::text FROM submissions s WHERE s.id = %s AND s.form_id = %s"},

    /* 1 form, 2 user, 3-4 after (or NULL), 5 limit + 1: (id, json) */
    {"fs_partial_list", 5,
     "SELECT p.id, fs_partial_json(p)::text FROM submission_partials p "
     "WHERE p.form_id = %s AND p.user_id = %s AND p.expires_at > now() "
     "  AND (%s::text IS NULL OR p.id < %s::text) "
     "ORDER BY p.id DESC LIMIT %s::integer"},

    /* 1 form, 2 user: (page, count) of the unfinished partials */
    {"fs_partial_pages", 2,
     "SELECT p.page::text, count(*)::text FROM submission_partials p "
     "WHERE p.form_id = %s AND p.user_id = %s AND p.expires_at > now() "
     "GROUP BY p.page ORDER BY p.page"},

    /* 1 form, 2 to, 3 mailbox, 4 message id, 5 message, 6 unverified cap,
     * 7 verified cap, 8 per address: queued | limited | gone */
    {"fs_partial_mail", 8,
     "SELECT fs_partial_mail(%s, %s, %s, %s, %s, %s::integer, %s::integer, %s::integer)"},

    /* 1 limit: expired partials deleted */
    {"fs_partials_expire", 1, "SELECT fs_partials_expire(%s::integer)::text"},

    /* 1 form id, 2 days, 3 limit: partials of the form whose answers were
     * last changed more than days ago deleted (the form's retention) */
    {"fs_partials_retention", 3,
     "WITH d AS (DELETE FROM submission_partials WHERE id IN (SELECT id FROM submission_partials "
     "  WHERE form_id = %s AND updated_at < now() - make_interval(days => %s::integer) "
     "  LIMIT %s::integer) RETURNING 1) "
     "SELECT count(*)::text FROM d"},

    {NULL, 0, NULL}};

fs_error *fs_store_partial_get(fs_store *st, const char *id, const char *form_id,
                               fs_partial **out) {
    const char *args[] = {id, form_id};
    fs_rows *rs;
    *out = NULL;
    fs_error *e = FS_RUN(st, "fs_partial_get", args, 5, &rs);
    if (e || rs->nrows != 1)
        return e;
    fs_partial *p = apr_pcalloc(st->pool, sizeof(*p));
    p->id = apr_pstrdup(st->pool, id);
    p->form_id = apr_pstrdup(st->pool, form_id);
    p->resume_hash = FS_CELL(rs, 0, 0);
    p->data = FS_CELL(rs, 0, 1);
    p->page = fs_cell_int(FS_CELL(rs, 0, 2));
    p->form_version = FS_CELL(rs, 0, 3);
    p->expires_at = FS_CELL(rs, 0, 4);
    *out = p;
    return NULL;
}

fs_error *fs_store_partial_save(fs_store *st, const fs_partial_save *in, fs_partial_outcome *out,
                                const char **id, const char **expires_at) {
    const char *args[] = {in->id,
                          FS_ARG_BOOL(in->named),
                          in->form_id,
                          in->resume_hash,
                          in->data_json,
                          FS_ARG_INT(st->pool, in->page),
                          in->form_version,
                          in->link_id,
                          FS_ARG_INT(st->pool, in->days),
                          in->event_id};
    fs_rows *rs;
    *out = FS_PARTIAL_GONE;
    *id = *expires_at = NULL;
    fs_error *e = FS_RUN(st, "fs_partial_save", args, 3, &rs);
    if (e || rs->nrows != 1)
        return e;
    const char *o = FS_CELL(rs, 0, 0);
    if (!o)
        return fs_error_internal(st->pool, "fs_partial_save answered NULL");
    if (!strcmp(o, "ok")) {
        *out = FS_PARTIAL_SAVED;
        *id = FS_CELL(rs, 0, 1);
        *expires_at = FS_CELL(rs, 0, 2);
    } else if (!strcmp(o, "done")) {
        *out = FS_PARTIAL_DONE;
    } else if (!strcmp(o, "forbidden")) {
        *out = FS_PARTIAL_FORBIDDEN;
    } else if (strcmp(o, "gone")) {
        return fs_error_internal(st->pool, "fs_partial_save answered %s", o);
    }
    return NULL;
}

fs_error *fs_store_partial_list(fs_store *st, const char *form_id, const char *user_id,
                                const char *after, int limit, fs_list_page *out) {
    const char *args[] = {form_id, user_id, after, after, FS_ARG_INT(st->pool, limit + 1)};
    return FS_LIST(st, "fs_partial_list", args, limit, out);
}

fs_error *fs_store_partial_pages(fs_store *st, const char *form_id, const char *user_id,
                                 long long **counts, int *n) {
    const char *args[] = {form_id, user_id};
    fs_rows *rs;
    *counts = NULL;
    *n = 0;
    fs_error *e = FS_RUN(st, "fs_partial_pages", args, 2, &rs);
    if (e || !rs->nrows)
        return e;
    int most = 0;
    for (int i = 0; i < rs->nrows; i++) {
        int pg = fs_cell_int(FS_CELL(rs, i, 0));
        if (pg >= 0 && pg + 1 > most)
            most = pg + 1;
    }
    *counts = apr_pcalloc(st->pool, sizeof(long long) * (apr_size_t)(most ? most : 1));
    for (int i = 0; i < rs->nrows; i++) {
        int pg = fs_cell_int(FS_CELL(rs, i, 0));
        if (pg >= 0 && pg < most)
            (*counts)[pg] = fs_cell_i64(FS_CELL(rs, i, 1));
    }
    *n = most;
    return NULL;
}

fs_error *fs_store_partial_expire(fs_store *st, int days, int lim, int *deleted) {
    (void)days;
    const char *args[] = {FS_ARG_INT(st->pool, lim)};
    return FS_INT(st, "fs_partials_expire", args, 0, deleted);
}

fs_error *fs_store_partial_done(fs_store *st, const char *id, const char *form_id, int *done) {
    const char *args[] = {id, form_id};
    return FS_INT(st, "fs_partial_done", args, 0, done);
}

fs_error *fs_store_partial_mail(fs_store *st, const char *form_id, const char *to,
                                const char *mailbox, const char *msg_id, const char *message,
                                const int caps[3], int *queued) {
    const char *args[] = {form_id,
                          to,
                          mailbox,
                          msg_id,
                          message,
                          FS_ARG_INT(st->pool, caps[0]),
                          FS_ARG_INT(st->pool, caps[1]),
                          FS_ARG_INT(st->pool, caps[2])};
    const char *o;
    *queued = 0;
    fs_error *e = FS_ONE(st, "fs_partial_mail", args, &o);
    if (!e)
        *queued = o && !strcmp(o, "queued");
    return e;
}

fs_error *fs_store_partial_retention(fs_store *st, const char *form_id, int days, int lim,
                                     int *deleted) {
    const char *args[] = {form_id, FS_ARG_INT(st->pool, days), FS_ARG_INT(st->pool, lim)};
    return FS_INT(st, "fs_partials_retention", args, 0, deleted);
}
