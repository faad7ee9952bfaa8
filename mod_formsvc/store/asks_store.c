/* The store of asks (sql/0049): the statements (all arguments are text,
 * cast in SQL) and the typed functions of fs_store_asks.h. */
#include "fs_store_asks.h"
#include "store_int.h"

#include <apr_strings.h>
#include <string.h>

#define ASK_COLS                                                                                   \
    "a.id, fs_ask_json(a)::text, fs_ask_status(a), " ASK_SEALED ", COALESCE(f.slug, f.id) "
/* The link's sealed token (so the url) only for a caller that may see the
 * link: an owner key (tree NULL) or a delegate in whose tree the link was
 * made, as GET /v1/forms/{id}/links/{lid} decides (links_store.c); the
 * two parameters before the others: the calling delegate's key id twice */
#define ASK_SEALED "CASE WHEN " FS_SQL_IN_TREE("l.created_by") " THEN l.token_sealed END"
#define ASK_FROM "FROM asks a JOIN links l ON l.id = a.link_id JOIN forms f ON f.id = a.form_id "

const fs_stmt fs_stmts_asks[] = {
    /* 1 ask id, 2 user id, 3 form id, 4 title, 5 fields (JSON), 6 link id,
     * 7 token hash, 8 sealed token, 9 expires at, 10 message, 11 to (or
     * NULL), 12 metadata (JSON or NULL), 13 creating key id, 14 forms
     * quota, 15 asks quota, 16 recipient id, 17 mailbox, 18 outbox id, 19
     * message, 20 notifications cap, 21 per-address cap (16-21 NULL
     * without to): outcome (ok | quota-* | refused), body (the ask json |
     * how many in use) */
    {"fs_ask_create", 21,
     "SELECT c.outcome, c.body FROM fs_ask_create(%s, %s, %s, %s, %s::jsonb, %s, %s, %s, "
     "  %s::timestamptz, %s, %s, %s::jsonb, %s, %s::integer, %s::integer, %s, %s, %s, %s, "
     "  %s::integer, %s::integer) c"},

    /* 1 ask id, 2 user id */
    /* 1-2 tree (ASK_SEALED), 3 ask id, 4 user id */
    {"fs_ask_get", 4, "SELECT " ASK_COLS ASK_FROM "WHERE a.id = %s AND a.user_id = %s"},

    /* 1-2 tree (ASK_SEALED), 3 user id, 4-5 status (or NULL), 6-7 after
     * ask id (or NULL), 8 limit + 1 */
    {"fs_ask_list", 8,
     "SELECT " ASK_COLS ASK_FROM "WHERE a.user_id = %s "
     "  AND (%s::text IS NULL OR fs_ask_status(a) = %s::text) "
     "  AND (%s::text IS NULL OR a.id < %s::text) "
     "ORDER BY a.id DESC LIMIT %s::integer"},

    /* 1 form id, 2 token hash: the status after declining, or NULL */
    {"fs_ask_decline", 2, "SELECT fs_ask_decline(%s, %s)"},

    /* 1 form id: one row when the form is an ask's */
    {"fs_ask_form_has", 1, "SELECT 1 FROM asks WHERE form_id = %s LIMIT 1"},

    /* 1 most asks: ask.expired events written for asks whose expiresAt
     * passed (sql/0052; once per cluster) */
    {"fs_asks_expire_emit", 1, "SELECT fs_asks_expire_emit(%s::integer)::text"},

    {NULL, 0, NULL}};

static void row_at(const fs_rows *rs, int i, fs_ask_row *a) {
    a->id = FS_CELL(rs, i, 0);
    a->json = FS_CELL(rs, i, 1);
    a->status = FS_CELL(rs, i, 2);
    a->sealed = FS_CELL(rs, i, 3);
    a->ref = FS_CELL(rs, i, 4);
}

fs_error *fs_store_ask_create(fs_store *st, const fs_new_ask *a, int forms, int asks,
                              const char **json, const char **quota, const char **used) {
    const char *args[] = {a->id,
                          a->user_id,
                          a->form_id,
                          a->title,
                          a->fields_json,
                          a->link_id,
                          a->token_hash,
                          a->token_sealed,
                          a->expires_at,
                          a->message,
                          a->to,
                          a->metadata_json,
                          a->created_by,
                          FS_ARG_INT(st->pool, forms),
                          FS_ARG_INT(st->pool, asks),
                          a->to ? a->recipient_id : NULL,
                          a->to ? a->mailbox : NULL,
                          a->to ? a->mail_id : NULL,
                          a->to ? a->mail : NULL,
                          a->to ? FS_ARG_INT(st->pool, a->cap) : NULL,
                          a->to ? FS_ARG_INT(st->pool, a->per_address) : NULL};
    fs_rows *rs;
    *json = *quota = *used = NULL;
    fs_error *e = FS_RUN(st, "fs_ask_create", args, 2, &rs);
    if (e || rs->nrows != 1)
        return e;
    const char *o = FS_CELL(rs, 0, 0);
    if (o && !strcmp(o, "ok"))
        *json = FS_CELL(rs, 0, 1);
    else if (o && !strncmp(o, "quota-", 6)) {
        *quota = o + 6;
        *used = FS_CELL(rs, 0, 1);
    } else if (o && !strcmp(o, "refused"))
        *quota = "refused";
    return NULL;
}

fs_error *fs_store_ask_get(fs_store *st, const char *user_id, const char *tree, const char *ask_id,
                           fs_ask_row **out) {
    const char *args[] = {tree, tree, ask_id, user_id};
    fs_rows *rs;
    *out = NULL;
    fs_error *e = FS_RUN(st, "fs_ask_get", args, 5, &rs);
    if (!e && rs->nrows == 1) {
        *out = apr_pcalloc(st->pool, sizeof(**out));
        row_at(rs, 0, *out);
    }
    return e;
}

fs_error *fs_store_ask_list(fs_store *st, const char *user_id, const char *tree, const char *status,
                            const char *after, int limit, fs_ask_page *out) {
    const char *args[] = {tree,   tree,  user_id, status,
                          status, after, after,   FS_ARG_INT(st->pool, limit + 1)};
    fs_rows *rs;
    fs_error *e = FS_RUN(st, "fs_ask_list", args, 5, &rs);
    if (e)
        return e;
    out->more = rs->nrows > limit;
    out->n = out->more ? limit : rs->nrows;
    out->rows = apr_pcalloc(st->pool, sizeof(fs_ask_row) * (apr_size_t)(out->n + 1));
    for (int i = 0; i < out->n; i++)
        row_at(rs, i, &out->rows[i]);
    return NULL;
}

fs_error *fs_store_ask_decline(fs_store *st, const char *form_id, const char *token_hash,
                               const char **status) {
    const char *args[] = {form_id, token_hash};
    return FS_ONE(st, "fs_ask_decline", args, status);
}

fs_error *fs_store_asks_expire_emit(fs_store *st, int limit, int *emitted) {
    const char *args[] = {FS_ARG_INT(st->pool, limit)};
    return FS_INT(st, "fs_asks_expire_emit", args, 0, emitted);
}

fs_error *fs_store_ask_form_has(fs_store *st, const char *form_id, int *has) {
    const char *args[] = {form_id};
    fs_rows *rs;
    *has = 0;
    fs_error *e = FS_RUN(st, "fs_ask_form_has", args, 1, &rs);
    if (!e)
        *has = rs->nrows > 0;
    return e;
}
