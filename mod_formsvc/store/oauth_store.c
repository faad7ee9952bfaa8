/* The store of OAuth clients, the token endpoint, delegated keys and the
 * audit trail: the statements (argument order documented above each; all
 * arguments are text, cast in SQL) and the typed functions of
 * fs_store_oauth.h that run them. */
#include "fs_store_oauth.h"
#include "store_int.h"

#include <apr_strings.h>
#include <string.h>

const fs_stmt fs_stmts_oauth[] = {
    /* 1 client id, 2 user id, 3 name, 4 secret prefix, 5 secret hash,
     * 6 scopes json (NULL = full), 7 creating key id, 8 user id, 9 client
     * quota. Zero rows: the quota is reached (exact: fs_quota_admit). */
    {"fs_client_create", 9,
     "INSERT INTO clients (id, user_id, name, secret_prefix, secret_hash, scopes, created_by) "
     "SELECT %s, %s, %s, %s, %s, %s::jsonb, %s "
     "WHERE fs_quota_admit(%s, 'clients', %s::integer) "
     "RETURNING fs_client_json(clients)::text"},

    /* 1 user id: number of active clients */
    {"fs_client_count_active", 1,
     "SELECT count(*)::text FROM clients c WHERE c.user_id = %s AND c.revoked_at IS NULL "
     "  AND fs_creator_alive(c.created_by)"},

    /* 1 user id, 2 include revoked ('t'/'f'), 3 after id (or NULL), 4 limit+1.
     * A client whose registering delegate has ended counts as revoked. */
    {"fs_client_list", 5,
     "SELECT c.id, fs_client_json(c)::text FROM clients c WHERE c.user_id = %s "
     "  AND (%s = 't' OR (c.revoked_at IS NULL AND fs_creator_alive(c.created_by))) "
     "  AND (%s::text IS NULL OR c.id < %s::text) "
     "ORDER BY c.id DESC LIMIT %s::integer"},

    /* 1 user id, 2 client id: client json, scopes, active ('t'/'f') */
    {"fs_client_get", 2,
     "SELECT fs_client_json(c)::text, c.scopes::text, "
     "  (c.revoked_at IS NULL AND fs_creator_alive(c.created_by))::text "
     "FROM clients c WHERE c.user_id = %s AND c.id = %s"},

    /* 1 client id, 2 user id. Marks the client revoked (once) and returns
     * its json. Its tokens are revoked by fs_client_revoke_tokens, run
     * after this statement has committed: a token being issued at the same
     * moment holds the client row, so once this statement is through no
     * new token can appear, and the next statement's snapshot sees every
     * token that did. */
    /* 3-4 the calling delegate's key id twice (NULL for an owner key): a
     * delegate revokes only clients registered inside its own tree. */
    {"fs_client_revoke", 4,
     "UPDATE clients SET revoked_at = COALESCE(revoked_at, now()) "
     "WHERE id = %s AND user_id = %s "
     "  AND " FS_SQL_IN_TREE("created_by") " "
                                           "RETURNING fs_client_json(clients)::text"},

    /* 1 client id. Revokes every access token of the client and the
     * revocation tree of each (fs_key_tree); returns how many. */
    {"fs_client_revoke_tokens", 1,
     "WITH d AS (SELECT fs_key_tree(k.id) AS id FROM keys k WHERE k.client_id = %s "
     "    AND k.revoked_at IS NULL), "
     "u AS (UPDATE keys SET revoked_at = now() WHERE id IN (SELECT id FROM d) "
     "  AND revoked_at IS NULL RETURNING 1) "
     "SELECT count(*)::text FROM u"},

    /* 1 client address, 2 window number, 3 client id. Always one row:
     * user id, secret hash, scopes, active ('t'/'f'), verified ('t'/'f')
     * (all NULL for an unknown client), and the failures of this address
     * in this window (NULL: none). */
    {"fs_client_auth", 3,
     "SELECT c.user_id, c.secret_hash, c.scopes::text, "
     "  (c.revoked_at IS NULL AND fs_creator_alive(c.created_by))::text, "
     "  u.verified::text, (SELECT f.n FROM token_failures f WHERE f.addr = %s "
     "    AND f.win = %s::bigint)::text "
     "FROM (SELECT 1) one LEFT JOIN clients c ON c.id = %s "
     "LEFT JOIN users u ON u.id = c.user_id"},

    /* 1 client address, 2 window number: counts one failed client
     * authentication; returns the count in this window. */
    {"fs_token_fail", 2,
     "INSERT INTO token_failures (addr, win, n) VALUES (%s, %s::bigint, 1) "
     "ON CONFLICT (addr) DO UPDATE SET n = CASE WHEN token_failures.win = excluded.win "
     "  THEN token_failures.n + 1 ELSE 1 END, win = excluded.win "
     "RETURNING n::text"},

    /* 1 client id, 2 client id again, 3 token id, 4 prefix, 5 hash,
     * 6 scopes json (NULL = full), 7 lifetime in seconds. Issues a
     * client_credentials access token if the client is still active,
     * holding its row until commit. A client registered by a delegate
     * (sql/0019) issues only while that delegate is active (its key row is
     * held FOR SHARE, so a revocation in progress finishes first and its
     * sweep sees the token), and its tokens never outlive the delegate.
     * Zero rows: the client is gone. Returns the token id, user id and
     * the token's lifetime in seconds. */
    {"fs_token_issue", 7,
     "WITH b AS (SELECT k.revoked_at, k.expires_at, "
     "    (k.parent_key_id IS NULL AND k.client_id IS NULL AND k.scopes IS NULL) AS owner "
     "  FROM clients c0 JOIN keys k ON k.id = c0.created_by WHERE c0.id = %s FOR SHARE OF k), "
     "c AS (UPDATE clients SET last_used_at = now() WHERE id = %s AND revoked_at IS NULL "
     "  AND NOT EXISTS (SELECT 1 FROM b WHERE NOT b.owner AND (b.revoked_at IS NOT NULL "
     "    OR (b.expires_at IS NOT NULL AND b.expires_at <= now()))) RETURNING *) "
     "INSERT INTO keys (id, user_id, name, key_prefix, secret_hash, scopes, expires_at, "
     "  client_id, depth) "
     "SELECT %s, c.user_id, COALESCE(c.name, c.id), %s, %s, %s::jsonb, "
     "  LEAST(now() + make_interval(secs => %s::integer), "
     "    (SELECT b.expires_at FROM b WHERE NOT b.owner)), c.id, 0 FROM c "
     "RETURNING id, user_id, ceil(extract(epoch FROM expires_at - now()))::bigint::text"},

    /* 1 parent key id, 2 new key id, 3 name, 4 prefix, 5 hash, 6 scopes
     * json, 7 expires_at, 8 actor, 9 depth, 10 active-key quota. Mints a
     * delegated token under a parent that is still active (held FOR SHARE,
     * so a revocation in progress finishes first) while the account is
     * under its key quota (exact: fs_quota_admit, which locks the user row
     * after the parent). Zero rows: parent gone, or quota reached. */
    {"fs_token_exchange", 10,
     "WITH p AS (SELECT id, user_id FROM keys WHERE id = %s AND revoked_at IS NULL "
     "  AND (expires_at IS NULL OR expires_at > now()) FOR SHARE) "
     "INSERT INTO keys (id, user_id, name, key_prefix, secret_hash, scopes, expires_at, "
     "  parent_key_id, actor, depth) "
     "SELECT %s, p.user_id, %s, %s, %s, %s::jsonb, %s::timestamptz, p.id, %s, %s::integer "
     "FROM p WHERE fs_quota_admit(p.user_id, 'keys', %s::integer) "
     "RETURNING fs_key_json(keys)::text"},

    /* 1 audit id, 2 user id, 3 credential id, 4 client id, 5 actor,
     * 6 action, 7 target id, 8 form id (or NULL) */
    {"fs_audit_insert", 8, "SELECT fs_audit(%s, %s, %s, %s, %s, %s, %s, %s)"},

    /* 1 user id, 2-3 actor (or NULL), 4-6 credential or client id (or
     * NULL), 7-8 the caller's form: constraints as a JSON array (NULL: no
     * constraint; otherwise only records about those forms), 9-10 after id
     * (or NULL), 11 limit+1 */
    {"fs_audit_list", 11,
     "SELECT a.id, fs_audit_json(a)::text FROM audit a WHERE a.user_id = %s "
     "  AND (%s::text IS NULL OR a.actor = %s::text) "
     "  AND (%s::text IS NULL OR a.credential_id = %s::text OR a.client_id = %s::text) "
     "  AND (%s::jsonb IS NULL OR a.form_id IN (SELECT jsonb_array_elements_text(%s::jsonb))) "
     "  AND (%s::text IS NULL OR a.id < %s::text) "
     "ORDER BY a.id DESC LIMIT %s::integer"},

    {NULL, 0, NULL}};

fs_error *fs_store_client_create(fs_store *st, const fs_new_client *c, int quota,
                                 const char **json) {
    const char *args[] = {c->secret.id,     c->user_id,     c->name,
                          c->secret.prefix, c->secret.hash, c->scopes_json,
                          c->created_by,    c->user_id,     FS_ARG_INT(st->pool, quota)};
    return FS_ONE(st, "fs_client_create", args, json);
}

fs_error *fs_store_client_count_active(fs_store *st, const char *user_id, int *n) {
    const char *args[] = {user_id};
    return FS_INT(st, "fs_client_count_active", args, 0, n);
}

fs_error *fs_store_client_list(fs_store *st, const char *user_id, int include_revoked,
                               const char *after, int limit, fs_list_page *out) {
    const char *args[] = {user_id, FS_ARG_BOOL(include_revoked), after, after,
                          FS_ARG_INT(st->pool, limit + 1)};
    return FS_LIST(st, "fs_client_list", args, limit, out);
}

fs_error *fs_store_client_get(fs_store *st, const char *user_id, const char *client_id,
                              fs_client_row **out) {
    const char *args[] = {user_id, client_id};
    fs_rows *rs;
    *out = NULL;
    fs_error *e = FS_RUN(st, "fs_client_get", args, 3, &rs);
    if (e || rs->nrows != 1)
        return e;
    fs_client_row *c = apr_pcalloc(st->pool, sizeof(*c));
    c->json = FS_CELL(rs, 0, 0);
    c->scopes_json = FS_CELL(rs, 0, 1);
    c->active = fs_cell_bool(FS_CELL(rs, 0, 2));
    *out = c;
    return NULL;
}

fs_error *fs_store_client_revoke(fs_store *st, const char *user_id, const char *client_id,
                                 const char *tree_root, const char **json) {
    const char *args[] = {client_id, user_id, tree_root, tree_root};
    return FS_ONE(st, "fs_client_revoke", args, json);
}

fs_error *fs_store_client_revoke_tokens(fs_store *st, const char *client_id, int *n) {
    const char *args[] = {client_id};
    int count;
    fs_error *e = FS_INT(st, "fs_client_revoke_tokens", args, 0, &count);
    if (n)
        *n = count;
    return e;
}

fs_error *fs_store_client_auth(fs_store *st, const char *addr, apr_int64_t window,
                               const char *client_id, fs_client_auth *out) {
    const char *args[] = {addr, apr_psprintf(st->pool, "%" APR_INT64_T_FMT, window), client_id};
    fs_rows *rs;
    memset(out, 0, sizeof(*out));
    fs_error *e = FS_RUN(st, "fs_client_auth", args, 6, &rs);
    if (e)
        return e;
    if (rs->nrows != 1)
        return fs_error_internal(st->pool, "fs_client_auth answered %d rows", rs->nrows);
    out->user_id = FS_CELL(rs, 0, 0);
    out->secret_hash = FS_CELL(rs, 0, 1);
    out->scopes_json = FS_CELL(rs, 0, 2);
    out->active = fs_cell_bool(FS_CELL(rs, 0, 3));
    out->verified = fs_cell_bool(FS_CELL(rs, 0, 4));
    out->failures = fs_cell_int(FS_CELL(rs, 0, 5));
    return NULL;
}

fs_error *fs_store_token_fail(fs_store *st, const char *addr, apr_int64_t window, int *count) {
    const char *args[] = {addr, apr_psprintf(st->pool, "%" APR_INT64_T_FMT, window)};
    return FS_INT(st, "fs_token_fail", args, 0, count);
}

fs_error *fs_store_token_issue(fs_store *st, const fs_new_token *t, int *issued,
                               const char **user_id, apr_int64_t *expires_in) {
    const char *args[] = {t->client_id,
                          t->client_id,
                          t->secret.id,
                          t->secret.prefix,
                          t->secret.hash,
                          t->scopes_json,
                          FS_ARG_INT(st->pool, t->lifetime)};
    fs_rows *rs;
    *issued = 0;
    *user_id = NULL;
    *expires_in = 0;
    fs_error *e = FS_RUN(st, "fs_token_issue", args, 3, &rs);
    if (e || rs->nrows != 1)
        return e;
    *issued = 1;
    *user_id = FS_CELL(rs, 0, 1);
    *expires_in = fs_cell_i64(FS_CELL(rs, 0, 2));
    return NULL;
}

fs_error *fs_store_token_exchange(fs_store *st, const fs_new_delegate *d, int quota,
                                  const char **json) {
    const char *args[] = {d->parent_key_id,
                          d->secret.id,
                          d->name,
                          d->secret.prefix,
                          d->secret.hash,
                          d->scopes_json,
                          d->expires_at,
                          d->actor,
                          FS_ARG_INT(st->pool, d->depth),
                          FS_ARG_INT(st->pool, quota)};
    return FS_ONE(st, "fs_token_exchange", args, json);
}

fs_error *fs_store_audit_insert(fs_store *st, const fs_audit_record *a) {
    const char *args[] = {a->id,    a->user_id, a->credential_id, a->client_id,
                          a->actor, a->action,  a->target_id,     a->form_id};
    fs_rows *rs;
    return FS_RUN(st, "fs_audit_insert", args, 1, &rs);
}

fs_error *fs_store_audit_list(fs_store *st, const char *user_id, const char *actor,
                              const char *credential, const char *forms_json, const char *after,
                              int limit, fs_list_page *out) {
    const char *args[] = {user_id,
                          actor,
                          actor,
                          credential,
                          credential,
                          credential,
                          forms_json,
                          forms_json,
                          after,
                          after,
                          FS_ARG_INT(st->pool, limit + 1)};
    return FS_LIST(st, "fs_audit_list", args, limit, out);
}
