/* The store of respondent links (sql/0027): the statements (all arguments
 * are text, cast in SQL) and the typed functions of fs_store_links.h that
 * run them. */
#include "fs_store_links.h"
#include "store_int.h"

#include <apr_strings.h>
#include <string.h>

/* the columns of an fs_link_row */
#define LINK_COLS "l.id, fs_link_json(l)::text, l.token_sealed, COALESCE(f.slug, f.id) "
/* The link l was made by a delegate that has ended (revoked or expired):
 * it died with it (sql/0034). Inlined by PostgreSQL, unlike
 * fs_creator_alive, which cost a function call per link. */
#define LINK_CREATOR_ENDED                                                                         \
    "EXISTS (SELECT 1 FROM keys k WHERE k.id = l.created_by AND fs_key_ended_delegate(k)) "
/* A link is visible to the owner's API while it is not deleted and its
 * creator lives; to a delegate (the two arguments: its key id, NULL for an
 * owner key) only when it was made inside the delegate's tree. */
#define LINK_VISIBLE                                                                               \
    "l.deleted_at IS NULL AND NOT " LINK_CREATOR_ENDED "AND " FS_SQL_IN_TREE("l.created_by") " "

const fs_stmt fs_stmts_links[] = {
    /* 1 id, 2 form id, 3 user id, 4 token hash, 5 sealed token, 6 prefill
     * (JSON object), 7 metadata (JSON or NULL), 8 expires at (or NULL),
     * 9 max uses (or NULL), 10 quota, 11 creating key id: outcome (ok |
     * quota | gone), body (the link json | links in use) */
    {"fs_link_create", 11,
     "SELECT c.outcome, c.body "
     "FROM fs_link_create(%s, %s, %s, %s, %s, %s::jsonb, %s::jsonb, %s::timestamptz, "
     "  %s::integer, %s::integer, %s) c"},

    /* 1 form id, 2 user id, 3-4 the calling delegate's key id twice (NULL
     * for an owner key), 5-6 after link id (or NULL), 7 limit + 1 */
    {"fs_link_list", 7,
     "SELECT " LINK_COLS "FROM links l JOIN forms f ON f.id = l.form_id "
     "WHERE l.form_id = %s AND f.user_id = %s AND " LINK_VISIBLE
     "  AND (%s::text IS NULL OR l.id < %s::text) "
     "ORDER BY l.id DESC LIMIT %s::integer"},

    /* 1 link id, 2 form id, 3 user id, 4-5 the calling delegate's key id
     * twice (NULL for an owner key) */
    {"fs_link_get", 5,
     "SELECT " LINK_COLS "FROM links l JOIN forms f ON f.id = l.form_id "
     "WHERE l.id = %s AND l.form_id = %s AND f.user_id = %s AND " LINK_VISIBLE},

    /* 1 link id, 2 form id, 3 user id, 4-5 the calling delegate's key id
     * twice (NULL for an owner key): rows deleted */
    {"fs_link_delete", 5,
     "WITH d AS (UPDATE links l SET deleted_at = now() FROM forms f "
     "  WHERE l.id = %s AND l.form_id = %s AND f.id = l.form_id AND f.user_id = %s "
     "  AND " LINK_VISIBLE "RETURNING 1) "
     "SELECT count(*)::text FROM d"},

    /* 1 form id: one row when it has or had a link */
    {"fs_link_any", 1, "SELECT 1 FROM links WHERE form_id = %s LIMIT 1"},

    /* 1 link id, 2 user id: the form of the account's link, deleted or not
     * (its submissions stay after the link is withdrawn) */
    {"fs_link_form", 2, "SELECT form_id FROM links WHERE id = %s AND user_id = %s"},

    /* 1 form id, 2 token hash: id, state (expired too when its creator has
     * ended), prefill, the ask it was made for (or NULL) */
    {"fs_link_find", 2,
     "SELECT l.id, CASE WHEN " LINK_CREATOR_ENDED "THEN 'expired' ELSE fs_link_state(l) END, "
     "  l.prefill::text, (SELECT a.id FROM asks a WHERE a.link_id = l.id) FROM links l "
     "WHERE l.form_id = %s AND l.token_hash = %s"},

    {NULL, 0, NULL}};

static fs_link_row *row_at(apr_pool_t *p, const fs_rows *rs, int i) {
    fs_link_row *l = apr_pcalloc(p, sizeof(*l));
    l->id = FS_CELL(rs, i, 0);
    l->json = FS_CELL(rs, i, 1);
    l->sealed = FS_CELL(rs, i, 2);
    l->ref = FS_CELL(rs, i, 3);
    return l;
}

fs_error *fs_store_link_create(fs_store *st, const fs_new_link *l, int quota, const char **json,
                               const char **used) {
    const char *args[] = {l->id,
                          l->form_id,
                          l->user_id,
                          l->token_hash,
                          l->token_sealed,
                          l->prefill_json,
                          l->metadata_json,
                          l->expires_at,
                          l->max_uses > 0 ? FS_ARG_INT(st->pool, l->max_uses) : NULL,
                          FS_ARG_INT(st->pool, quota),
                          l->created_by};
    fs_rows *rs;
    *json = NULL;
    *used = NULL;
    fs_error *e = FS_RUN(st, "fs_link_create", args, 2, &rs);
    if (e || rs->nrows != 1)
        return e;
    const char *o = FS_CELL(rs, 0, 0);
    if (o && !strcmp(o, "ok"))
        *json = FS_CELL(rs, 0, 1);
    else if (o && !strcmp(o, "quota"))
        *used = FS_CELL(rs, 0, 1);
    return NULL;
}

fs_error *fs_store_link_list(fs_store *st, const char *user_id, const char *tree,
                             const char *form_id, const char *after, int limit, fs_link_page *out) {
    const char *args[] = {
        form_id, user_id, tree, tree, after, after, FS_ARG_INT(st->pool, limit + 1)};
    fs_rows *rs;
    fs_error *e = FS_RUN(st, "fs_link_list", args, 4, &rs);
    if (e)
        return e;
    out->more = rs->nrows > limit;
    out->n = out->more ? limit : rs->nrows;
    out->rows = apr_pcalloc(st->pool, sizeof(fs_link_row) * (apr_size_t)(out->n + 1));
    for (int i = 0; i < out->n; i++)
        out->rows[i] = *row_at(st->pool, rs, i);
    return NULL;
}

fs_error *fs_store_link_get(fs_store *st, const char *user_id, const char *tree,
                            const char *form_id, const char *link_id, fs_link_row **out) {
    const char *args[] = {link_id, form_id, user_id, tree, tree};
    fs_rows *rs;
    *out = NULL;
    fs_error *e = FS_RUN(st, "fs_link_get", args, 4, &rs);
    if (!e && rs->nrows == 1)
        *out = row_at(st->pool, rs, 0);
    return e;
}

fs_error *fs_store_link_delete(fs_store *st, const char *user_id, const char *tree,
                               const char *form_id, const char *link_id, int *deleted) {
    const char *args[] = {link_id, form_id, user_id, tree, tree};
    return FS_INT(st, "fs_link_delete", args, 0, deleted);
}

fs_error *fs_store_link_any(fs_store *st, const char *form_id, int *any) {
    const char *args[] = {form_id};
    int n = 0;
    fs_error *e = FS_COUNT(st, "fs_link_any", args, 1, &n);
    *any = n > 0;
    return e;
}

fs_error *fs_store_link_form(fs_store *st, const char *user_id, const char *link_id,
                             const char **form_id) {
    const char *args[] = {link_id, user_id};
    return FS_ONE(st, "fs_link_form", args, form_id);
}

fs_error *fs_store_link_find(fs_store *st, const char *form_id, const char *token_hash,
                             fs_link_public **out) {
    const char *args[] = {form_id, token_hash};
    fs_rows *rs;
    *out = NULL;
    fs_error *e = FS_RUN(st, "fs_link_find", args, 4, &rs);
    if (e || rs->nrows != 1)
        return e;
    fs_link_public *l = apr_pcalloc(st->pool, sizeof(*l));
    l->id = FS_CELL(rs, 0, 0);
    l->state = FS_CELL(rs, 0, 1);
    l->prefill = FS_CELL(rs, 0, 2);
    l->ask_id = FS_CELL(rs, 0, 3);
    *out = l;
    return NULL;
}
