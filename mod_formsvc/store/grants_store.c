/* The store of the OAuth authorization code flow: apps, the authorize
 * page's sessions, grants, codes and refresh tokens (fs_store_grants.h).
 * Argument order is documented above each statement; all arguments are
 * text, cast in SQL. */
#include "fs_store_grants.h"
#include "store_int.h"

#include <apr_strings.h>
#include <string.h>

const fs_stmt fs_stmts_grants[] = {
    /* 1 id, 2 name, 3 redirect uris json, 4 client uri, 5 address key */
    {"fs_app_register", 5,
     "INSERT INTO oauth_apps (id, name, redirect_uris, client_uri, reg_addr) "
     "VALUES (%s, %s, %s::jsonb, %s, %s) RETURNING fs_ts(created_at)"},

    /* 1 id: name, redirect uris, client uri */
    {"fs_app_get", 1,
     "SELECT id, name, redirect_uris::text, client_uri FROM oauth_apps WHERE id = %s"},

    /* 1 session hash: the proven account, the pasting key (its scopes,
     * whether active, its expiry), verified, e-mail */
    {"fs_login_get", 1,
     "SELECT l.user_id, l.proven_by, k.scopes::text, "
     "  (k.id IS NULL OR fs_key_active(k))::text, "
     "  COALESCE(floor(extract(epoch FROM k.expires_at))::bigint, 0)::text, "
     "  u.verified::text, u.email "
     "FROM oauth_logins l JOIN users u ON u.id = l.user_id "
     "LEFT JOIN keys k ON k.id = l.proven_by "
     "WHERE l.session_hash = %s AND l.expires_at > now() AND l.proven_at IS NOT NULL "
     "  AND u.deleted_at IS NULL"},

    /* 1 email, 2 mails per day, 3 resend interval, 4 session hash, 5 code
     * hash, 6 outbox id, 7 message. The session's row is written whether
     * or not the address has a verified account (the answer is the same);
     * the code and the mail only when it has and the limits allow. */
    {"fs_login_send", 7,
     "WITH u AS (SELECT id, email, email_norm FROM users WHERE email_norm = lower(%s) "
     "  AND verified), "
     "t AS (SELECT m.reason FROM u "
     "  CROSS JOIN LATERAL fs_mail_take(u.id, u.email_norm, 'oauth', %s::integer, %s::integer) m), "
     "ok AS (SELECT u.* FROM u, t WHERE t.reason = 'ok'), "
     "l AS (INSERT INTO oauth_logins AS l (session_hash, code_hash, code_user, expires_at) "
     "  SELECT %s, (SELECT %s::text FROM ok), (SELECT id FROM ok), now() + interval '10 minutes' "
     "  ON CONFLICT (session_hash) DO UPDATE SET code_hash = EXCLUDED.code_hash, "
     "  code_user = EXCLUDED.code_user, attempts = 0, user_id = NULL, proven_by = NULL, "
     "  proven_at = NULL, expires_at = EXCLUDED.expires_at RETURNING 1), "
     "o AS (INSERT INTO outbox (id, recipient, message) SELECT %s, ok.email, %s FROM ok, l "
     "  RETURNING 1) "
     "SELECT (SELECT count(*) FROM o)::text"},

    /* 1 session hash, 2 code hash: 'ok', 'wrong' or 'none' */
    {"fs_login_confirm", 2,
     "WITH l AS (SELECT * FROM oauth_logins WHERE session_hash = %s AND expires_at > now() "
     "  AND code_hash IS NOT NULL AND attempts < 5 FOR UPDATE), "
     "ok AS (UPDATE oauth_logins o SET user_id = l.code_user, proven_at = now(), "
     "  proven_by = NULL, code_hash = NULL, expires_at = now() + interval '30 minutes' FROM l "
     "  WHERE o.session_hash = l.session_hash AND l.code_hash = %s RETURNING o.user_id), "
     "bad AS (UPDATE oauth_logins o SET attempts = o.attempts + 1 FROM l "
     "  WHERE o.session_hash = l.session_hash AND NOT EXISTS (SELECT 1 FROM ok) "
     "  RETURNING o.attempts) "
     "SELECT CASE WHEN EXISTS (SELECT 1 FROM ok) THEN 'ok' "
     "  WHEN EXISTS (SELECT 1 FROM bad) THEN 'wrong' ELSE 'none' END"},

    /* 1 session hash, 2 user id, 3 key id */
    {"fs_login_key", 3,
     "INSERT INTO oauth_logins (session_hash, user_id, proven_by, proven_at, expires_at) "
     "VALUES (%s, %s, %s, now(), now() + interval '30 minutes') "
     "ON CONFLICT (session_hash) DO UPDATE SET user_id = EXCLUDED.user_id, "
     "  proven_by = EXCLUDED.proven_by, proven_at = now(), code_hash = NULL, attempts = 0, "
     "  expires_at = EXCLUDED.expires_at RETURNING 1"},

    /* 1 new session hash, 2 old session hash */
    {"fs_login_rotate", 2,
     "UPDATE oauth_logins SET session_hash = %s WHERE session_hash = %s RETURNING 1"},

    /* 1 session hash */
    {"fs_login_end", 1, "DELETE FROM oauth_logins WHERE session_hash = %s RETURNING 1"},

    /* 1 grant id, 2 user id, 3 app id, 4 scopes json, 5 created by, 6 user
     * id, 7 grant quota, 8 code hash, 9 redirect uri, 10 challenge, 11 code
     * lifetime (s), 12 app id. Zero rows: the quota is reached. */
    {"fs_grant_create", 12,
     "WITH g AS (INSERT INTO oauth_grants (id, user_id, app_id, scopes, created_by) "
     "  SELECT %s, %s, %s, %s::jsonb, %s WHERE fs_quota_admit(%s, 'grants', %s::integer) "
     "  RETURNING id), "
     "c AS (INSERT INTO oauth_codes (code_hash, grant_id, redirect_uri, challenge, expires_at) "
     "  SELECT %s, g.id, %s, %s, now() + make_interval(secs => %s::integer) FROM g RETURNING 1), "
     "a AS (UPDATE oauth_apps SET authorized_at = COALESCE(authorized_at, now()) "
     "  WHERE id = %s AND EXISTS (SELECT 1 FROM c) RETURNING 1) "
     "SELECT g.id FROM g"},

    /* 1 code hash: grant id, app id, redirect uri, challenge, expired,
     * used before. Marks the code used. */
    {"fs_code_take", 1,
     "WITH c AS (SELECT * FROM oauth_codes WHERE code_hash = %s FOR UPDATE), "
     "u AS (UPDATE oauth_codes o SET used_at = now() FROM c WHERE o.code_hash = c.code_hash "
     "  AND o.used_at IS NULL RETURNING 1) "
     "SELECT c.grant_id, g.app_id, c.redirect_uri, c.challenge, "
     "  (c.expires_at <= now())::text, (c.used_at IS NOT NULL)::text "
     "FROM c JOIN oauth_grants g ON g.id = c.grant_id"},

    /* 1 refresh token hash: grant id, app id, expired, used before. Marks
     * it used. */
    {"fs_refresh_take", 1,
     "WITH r AS (SELECT * FROM oauth_refresh WHERE token_hash = %s FOR UPDATE), "
     "u AS (UPDATE oauth_refresh o SET used_at = now() FROM r WHERE o.token_hash = r.token_hash "
     "  AND o.used_at IS NULL RETURNING 1) "
     "SELECT r.grant_id, g.app_id, (r.expires_at <= now())::text, "
     "  (r.used_at IS NOT NULL)::text "
     "FROM r JOIN oauth_grants g ON g.id = r.grant_id"},

    /* 1 grant id, 2 key id, 3 prefix, 4 hash, 5 lifetime, 6 refresh hash,
     * 7 refresh lifetime: user id, scopes, expires_in. Zero rows: the
     * grant is revoked, or the key that approved it ended. */
    {"fs_grant_issue", 7,
     "WITH g AS (UPDATE oauth_grants SET last_used_at = now() WHERE id = %s "
     "  AND revoked_at IS NULL AND fs_creator_alive(created_by) RETURNING *), "
     "k AS (INSERT INTO keys (id, user_id, name, key_prefix, secret_hash, scopes, expires_at, "
     "    grant_id, depth) "
     "  SELECT %s, g.user_id, a.name, %s, %s, g.scopes, "
     "    LEAST(now() + make_interval(secs => %s::integer), fs_creator_end(g.created_by)), "
     "    g.id, 0 FROM g JOIN oauth_apps a ON a.id = g.app_id RETURNING *), "
     "r AS (INSERT INTO oauth_refresh (token_hash, grant_id, expires_at) "
     "  SELECT %s, k.grant_id, now() + make_interval(secs => %s::integer) FROM k RETURNING 1) "
     "SELECT k.user_id, k.scopes::text, "
     "  ceil(extract(epoch FROM k.expires_at - now()))::bigint::text FROM k"},

    /* 1 grant id, 2-3 user id (NULL: any), 4-5 the calling delegate's key
     * id (NULL: an owner key) */
    {"fs_grant_revoke", 5,
     "WITH g AS (UPDATE oauth_grants SET revoked_at = COALESCE(revoked_at, now()) "
     "  WHERE id = %s AND (%s::text IS NULL OR user_id = %s::text) "
     "  AND " FS_SQL_IN_TREE("created_by") " RETURNING *) "
                                           "SELECT fs_grant_json(g, a)::text FROM g JOIN "
                                           "oauth_apps a ON a.id = g.app_id"},

    /* 1 grant id: revokes its access tokens and the tree of each. The
     * trees of tokens revoked in the last minute are walked again, so that
     * a second run finds a child minted under one of them while the first
     * ran (grant tokens are many over a grant's life: older revoked ones
     * are not walked) */
    {"fs_grant_revoke_tokens", 1,
     "WITH d AS (SELECT fs_key_tree(k.id) AS id FROM keys k WHERE k.grant_id = %s "
     "    AND (k.revoked_at IS NULL OR k.revoked_at > now() - interval '1 minute')), "
     "u AS (UPDATE keys SET revoked_at = now() WHERE id IN (SELECT id FROM d) "
     "  AND revoked_at IS NULL RETURNING 1) "
     "SELECT count(*)::text FROM u"},

    /* 1 user id, 2 include revoked, 3-4 tree root, 5-6 after, 7 limit+1 */
    {"fs_grant_list", 7,
     "SELECT g.id, fs_grant_json(g, a)::text FROM oauth_grants g "
     "JOIN oauth_apps a ON a.id = g.app_id WHERE g.user_id = %s "
     "  AND (%s = 't' OR (g.revoked_at IS NULL AND fs_creator_alive(g.created_by))) "
     "  AND " FS_SQL_IN_TREE("g.created_by") " "
                                             "  AND (%s::text IS NULL OR g.id < %s::text) "
                                             "ORDER BY g.id DESC LIMIT %s::integer"},

    /* 1 user id, 2 form ids json: {id: title} */
    {"fs_form_titles", 2,
     "SELECT COALESCE(jsonb_object_agg(f.id, f.title), '{}'::jsonb)::text FROM forms f "
     "WHERE f.user_id = %s AND f.id IN (SELECT jsonb_array_elements_text(%s::jsonb))"},

    /* no arguments: an app may stay unauthorized 24 hours */
    {"fs_oauth_sweep", 0,
     "WITH a AS (DELETE FROM oauth_apps WHERE authorized_at IS NULL "
     "  AND created_at < now() - interval '24 hours' RETURNING 1), "
     "c AS (DELETE FROM oauth_codes WHERE expires_at < now() - interval '1 hour' RETURNING 1), "
     "l AS (DELETE FROM oauth_logins WHERE expires_at < now() - interval '1 hour' RETURNING 1), "
     "r AS (DELETE FROM oauth_refresh WHERE expires_at < now() - interval '1 day' "
     "  OR used_at < now() - interval '1 day' RETURNING 1) "
     "SELECT ((SELECT count(*) FROM a) + (SELECT count(*) FROM c) + (SELECT count(*) FROM l) "
     "  + (SELECT count(*) FROM r))::text"},

    {NULL, 0, NULL}};

fs_error *fs_store_app_register(fs_store *st, const fs_new_app *a, const char **created_at) {
    const char *args[] = {a->id, a->name, a->redirect_uris_json, a->client_uri, a->reg_addr};
    return FS_ONE(st, "fs_app_register", args, created_at);
}

fs_error *fs_store_app_get(fs_store *st, const char *id, fs_app_row **out) {
    const char *args[] = {id};
    fs_rows *rs;
    *out = NULL;
    fs_error *e = FS_RUN(st, "fs_app_get", args, 4, &rs);
    if (e || rs->nrows != 1)
        return e;
    fs_app_row *a = apr_pcalloc(st->pool, sizeof(*a));
    a->id = FS_CELL(rs, 0, 0);
    a->name = FS_CELL(rs, 0, 1);
    a->redirect_uris_json = FS_CELL(rs, 0, 2);
    a->client_uri = FS_CELL(rs, 0, 3);
    *out = a;
    return NULL;
}

fs_error *fs_store_login_get(fs_store *st, const char *session_hash, fs_login_row **out) {
    const char *args[] = {session_hash};
    fs_rows *rs;
    *out = NULL;
    fs_error *e = FS_RUN(st, "fs_login_get", args, 7, &rs);
    if (e || rs->nrows != 1)
        return e;
    fs_login_row *l = apr_pcalloc(st->pool, sizeof(*l));
    l->user_id = FS_CELL(rs, 0, 0);
    l->proven_by = FS_CELL(rs, 0, 1);
    l->key_scopes = FS_CELL(rs, 0, 2);
    l->key_active = fs_cell_bool(FS_CELL(rs, 0, 3));
    l->key_expires = fs_cell_i64(FS_CELL(rs, 0, 4));
    l->verified = fs_cell_bool(FS_CELL(rs, 0, 5));
    l->email = FS_CELL(rs, 0, 6);
    *out = l;
    return NULL;
}

fs_error *fs_store_login_send(fs_store *st, const char *session_hash, const char *email,
                              const fs_mail_limits *lim, const char *code_hash,
                              const fs_queued_mail *mail) {
    const char *args[] = {email,
                          FS_ARG_INT(st->pool, lim->per_day),
                          FS_ARG_INT(st->pool, lim->resend_interval),
                          session_hash,
                          code_hash,
                          mail ? mail->outbox_id : NULL,
                          mail ? mail->message : NULL};
    fs_rows *rs;
    return FS_RUN(st, "fs_login_send", args, 1, &rs);
}

fs_error *fs_store_login_confirm(fs_store *st, const char *session_hash, const char *code_hash,
                                 const char **result) {
    const char *args[] = {session_hash, code_hash};
    fs_error *e = FS_ONE(st, "fs_login_confirm", args, result);
    if (!e && !*result)
        *result = "none";
    return e;
}

fs_error *fs_store_login_key(fs_store *st, const char *session_hash, const char *user_id,
                             const char *key_id) {
    const char *args[] = {session_hash, user_id, key_id};
    fs_rows *rs;
    return FS_RUN(st, "fs_login_key", args, 1, &rs);
}

fs_error *fs_store_login_rotate(fs_store *st, const char *old_hash, const char *new_hash) {
    const char *args[] = {new_hash, old_hash};
    fs_rows *rs;
    return FS_RUN(st, "fs_login_rotate", args, 1, &rs);
}

fs_error *fs_store_login_end(fs_store *st, const char *session_hash) {
    const char *args[] = {session_hash};
    fs_rows *rs;
    return FS_RUN(st, "fs_login_end", args, 1, &rs);
}

fs_error *fs_store_grant_create(fs_store *st, const fs_new_grant *g, int quota, int *made) {
    const char *args[] = {g->id,
                          g->user_id,
                          g->app_id,
                          g->scopes_json,
                          g->created_by,
                          g->user_id,
                          FS_ARG_INT(st->pool, quota),
                          g->code_hash,
                          g->redirect_uri,
                          g->challenge,
                          FS_ARG_INT(st->pool, g->code_lifetime),
                          g->app_id};
    fs_rows *rs;
    *made = 0;
    fs_error *e = FS_RUN(st, "fs_grant_create", args, 1, &rs);
    if (!e)
        *made = rs->nrows == 1;
    return e;
}

fs_error *fs_store_code_take(fs_store *st, const char *code_hash, fs_taken **out) {
    const char *args[] = {code_hash};
    fs_rows *rs;
    *out = NULL;
    fs_error *e = FS_RUN(st, "fs_code_take", args, 6, &rs);
    if (e || rs->nrows != 1)
        return e;
    fs_taken *t = apr_pcalloc(st->pool, sizeof(*t));
    t->grant_id = FS_CELL(rs, 0, 0);
    t->app_id = FS_CELL(rs, 0, 1);
    t->redirect_uri = FS_CELL(rs, 0, 2);
    t->challenge = FS_CELL(rs, 0, 3);
    t->expired = fs_cell_bool(FS_CELL(rs, 0, 4));
    t->reused = fs_cell_bool(FS_CELL(rs, 0, 5));
    *out = t;
    return NULL;
}

fs_error *fs_store_refresh_take(fs_store *st, const char *token_hash, fs_taken **out) {
    const char *args[] = {token_hash};
    fs_rows *rs;
    *out = NULL;
    fs_error *e = FS_RUN(st, "fs_refresh_take", args, 4, &rs);
    if (e || rs->nrows != 1)
        return e;
    fs_taken *t = apr_pcalloc(st->pool, sizeof(*t));
    t->grant_id = FS_CELL(rs, 0, 0);
    t->app_id = FS_CELL(rs, 0, 1);
    t->expired = fs_cell_bool(FS_CELL(rs, 0, 2));
    t->reused = fs_cell_bool(FS_CELL(rs, 0, 3));
    *out = t;
    return NULL;
}

fs_error *fs_store_grant_issue(fs_store *st, const char *grant_id, const fs_grant_tokens *t,
                               const char **user_id, const char **scopes_json,
                               apr_int64_t *expires_in) {
    const char *args[] = {grant_id,
                          t->access.id,
                          t->access.prefix,
                          t->access.hash,
                          FS_ARG_INT(st->pool, t->lifetime),
                          t->refresh_hash,
                          FS_ARG_INT(st->pool, t->refresh_lifetime)};
    fs_rows *rs;
    *user_id = *scopes_json = NULL;
    *expires_in = 0;
    fs_error *e = FS_RUN(st, "fs_grant_issue", args, 3, &rs);
    if (e || rs->nrows != 1)
        return e;
    *user_id = FS_CELL(rs, 0, 0);
    *scopes_json = FS_CELL(rs, 0, 1);
    *expires_in = fs_cell_i64(FS_CELL(rs, 0, 2));
    return NULL;
}

fs_error *fs_store_grant_revoke(fs_store *st, const char *user_id, const char *grant_id,
                                const char *tree_root, const char **json) {
    const char *args[] = {grant_id, user_id, user_id, tree_root, tree_root};
    return FS_ONE(st, "fs_grant_revoke", args, json);
}

fs_error *fs_store_grant_revoke_tokens(fs_store *st, const char *grant_id, int *n) {
    const char *args[] = {grant_id};
    int count;
    fs_error *e = FS_INT(st, "fs_grant_revoke_tokens", args, 0, &count);
    if (n)
        *n = count;
    return e;
}

fs_error *fs_store_grant_list(fs_store *st, const char *user_id, int include_revoked,
                              const char *tree_root, const char *after, int limit,
                              fs_list_page *out) {
    const char *args[] = {user_id, FS_ARG_BOOL(include_revoked),   tree_root, tree_root, after,
                          after,   FS_ARG_INT(st->pool, limit + 1)};
    return FS_LIST(st, "fs_grant_list", args, limit, out);
}

fs_error *fs_store_form_titles(fs_store *st, const char *user_id, const char *ids_json,
                               const char **json) {
    const char *args[] = {user_id, ids_json};
    return FS_ONE(st, "fs_form_titles", args, json);
}

fs_error *fs_store_oauth_sweep(fs_store *st) {
    int n;
    return fs_store_int(st, "fs_oauth_sweep", 0, NULL, 0, &n);
}
