/* The store of accounts, authentication and API keys: the statements
 * (argument order documented above each; all arguments are text, cast in
 * SQL) and the typed functions of fs_store_account.h that run them.
 * Access tokens of OAuth clients (keys.client_id set) are not listed as
 * keys and do not count against the active-key quota (docs/oauth.md). */
#include "fs_store_account.h"
#include "fs_store_files.h"
#include "store_int.h"

#include <apr_strings.h>
#include <string.h>

const fs_stmt fs_stmts_account[] = {
    /* 1 user id, 2-3 email, 4 key id, 5 key prefix, 6 secret hash.
     * Zero rows: the address is taken. */
    {"fs_signup", 6,
     "WITH u AS (INSERT INTO users (id, email, email_norm) VALUES (%s, %s, lower(%s)) "
     "  ON CONFLICT (email_norm) DO NOTHING RETURNING *), "
     "k AS (INSERT INTO keys (id, user_id, name, key_prefix, secret_hash) "
     "  SELECT %s, u.id, 'default', %s, %s FROM u RETURNING *) "
     "SELECT fs_user_json(u)::text, fs_key_json(k)::text FROM u, k"},

    /* 1 secret hash. One row when the credential is active:
     * key id, user id, scopes, depth, actor, client id, verified, hash,
     * expires (epoch seconds or NULL), and 't' when last_used_at is older
     * than a minute (the caller then runs fs_touch_key: at most one write a
     * minute per key, not one per request), parent key id. */
    {"fs_authenticate", 1,
     "SELECT k.id, k.user_id, k.scopes::text, k.depth::text, k.actor, k.client_id, "
     "  u.verified::text, k.secret_hash, extract(epoch FROM k.expires_at)::bigint::text, "
     "  (k.last_used_at IS NULL OR k.last_used_at < now() - interval '1 minute')::text, "
     "  k.parent_key_id "
     "FROM keys k JOIN users u ON u.id = k.user_id "
     "WHERE k.secret_hash = %s AND k.revoked_at IS NULL AND u.deleted_at IS NULL "
     "  AND (k.expires_at IS NULL OR k.expires_at > now())"},

    /* 1 key id. Refreshes last_used_at unless another request just did. */
    {"fs_touch_key", 1,
     "UPDATE keys SET last_used_at = now() WHERE id = %s "
     "  AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute') RETURNING 1"},

    /* 1 user id, 2 key id */
    {"fs_me", 2,
     "SELECT fs_user_json(u)::text, fs_key_json(k)::text, "
     "  (SELECT count(*) FROM keys a WHERE a.user_id = u.id AND a.client_id IS NULL "
     "    AND fs_key_active(a))::text "
     "FROM users u JOIN keys k ON k.user_id = u.id WHERE u.id = %s AND k.id = %s"},

    /* 1 user id, 2 include revoked ('t'/'f'), 3 after id (or NULL), 4 limit+1,
     * 5-6 the calling delegate's key id (NULL for an owner key: every key);
     * a delegate lists only its own revocation tree (sql/0019). */
    {"fs_key_list", 7,
     "SELECT k.id, fs_key_json(k)::text FROM keys k WHERE k.user_id = %s AND k.client_id IS NULL "
     "  AND k.grant_id IS NULL "
     "  AND (%s = 't' OR fs_key_active(k)) AND (%s::text IS NULL OR k.id < %s::text) "
     "  AND " FS_SQL_IN_TREE("k.id") " "
                                     "ORDER BY k.id DESC LIMIT %s::integer"},

    /* 1 user id, 2 key id, 3-4 the calling delegate's key id (NULL for an
     * owner key): key json, scopes, active ('t'/'f'), depth, expired,
     * already rolled ('t'/'f'). No row for a key outside the caller's
     * revocation tree. */
    {"fs_key_get", 4,
     "SELECT fs_key_json(k)::text, k.scopes::text, fs_key_active(k)::text, k.depth::text, "
     "  k.expires_at IS NOT NULL AND k.expires_at <= now(), (k.rolled_to IS NOT NULL)::text "
     "FROM keys k WHERE k.user_id = %s AND k.id = %s "
     "  AND " FS_SQL_IN_TREE("k.id")},

    /* 1 key id, 2 user id, 3 name, 4 prefix, 5 hash, 6 scopes json (NULL =
     * full), 7 expires_at (RFC 3339 or NULL), 8 parent key id, 9 actor,
     * 10 depth, 11 user id, 12 active-key quota. Zero rows: the quota is reached
     * (exact under concurrency: fs_quota_admit, sql/0020). */
    {"fs_key_create", 12,
     "INSERT INTO keys (id, user_id, name, key_prefix, secret_hash, scopes, expires_at, "
     "  parent_key_id, actor, depth) "
     "SELECT %s, %s, %s, %s, %s, %s::jsonb, %s::timestamptz, %s, %s, %s::integer "
     "WHERE fs_quota_admit(%s, 'keys', %s::integer) "
     "RETURNING fs_key_json(keys)::text"},

    /* 1 user id: number of active keys */
    {"fs_key_count_active", 1,
     "SELECT count(*)::text FROM keys a WHERE a.user_id = %s AND a.client_id IS NULL "
     "  AND fs_key_active(a)"},

    /* 1 key id, 2 user id, 3 key id. Revokes the key and its revocation
     * tree (fs_key_tree: every token delegated from it, at any depth, and
     * the access tokens of clients a delegate in it registered); returns
     * the key's json. */
    {"fs_key_revoke", 3,
     "WITH t AS (SELECT fs_key_tree(id) AS id FROM keys WHERE id = %s AND user_id = %s), "
     "u AS (UPDATE keys SET revoked_at = COALESCE(revoked_at, now()) "
     "  WHERE id IN (SELECT id FROM t) RETURNING *) "
     "SELECT fs_key_json(u)::text FROM u WHERE u.id = %s"},

    /* 1 key id. Run after fs_key_revoke has committed: revokes whatever
     * was delegated from the key while that statement ran (a token
     * exchange holds its parent FOR SHARE, so it commits before the
     * revocation can, but after the revocation's snapshot was taken).
     * Returns how many. */
    {"fs_key_revoke_sweep", 1,
     "WITH d AS (SELECT fs_key_tree(%s) AS id), "
     "u AS (UPDATE keys SET revoked_at = now() WHERE id IN (SELECT id FROM d) "
     "  AND revoked_at IS NULL RETURNING 1) "
     "SELECT count(*)::text FROM u"},

    /* 1 old key id, 2 user id, 3 new key id, 4 seconds of grace, 5 the
     * calling key's id (the new key never outlives it), 6 new id again, 7 new prefix,
     * 8 new hash, 9-10 new id again. Marks the old key rolled (once: a
     * parallel roll of the same key finds rolled_to set and makes nothing)
     * and ends it, and its revocation tree, after the grace. The new key
     * takes the old one's place: same name, scopes, parent, client and
     * actor; its expiry is the earlier of the old key's and the caller's;
     * the clients, webhooks and respondent links a delegate made move to it (so that
     * rotation does not end them). The parent (or the client) is held FOR
     * SHARE, so a revocation in progress finishes first and its sweep sees
     * the new key. Zero rows: the key is not active, was already rolled,
     * or its parent or client is gone. */
    {"fs_key_roll", 10,
     "WITH p AS (SELECT * FROM keys WHERE id = %s AND user_id = %s), "
     "pp AS (SELECT 1 FROM keys WHERE id = (SELECT parent_key_id FROM p) AND fs_key_active(keys) "
     "  FOR SHARE), "
     "pc AS (SELECT 1 FROM clients WHERE id = (SELECT client_id FROM p) AND revoked_at IS NULL "
     "  AND fs_creator_alive(created_by) FOR SHARE), "
     "o AS (UPDATE keys SET rolled_to = %s, expires_at = LEAST(COALESCE(keys.expires_at, "
     "    'infinity'), now() + make_interval(secs => %s::integer)) FROM p "
     "  WHERE keys.id = p.id AND keys.rolled_to IS NULL AND fs_key_active(keys) "
     "    AND (p.parent_key_id IS NULL OR EXISTS (SELECT 1 FROM pp)) "
     "    AND (p.client_id IS NULL OR EXISTS (SELECT 1 FROM pc)) "
     "  RETURNING keys.id, keys.expires_at AS ends, p.user_id, p.name, p.scopes, "
     "    p.expires_at AS old_expires, p.parent_key_id, p.client_id, p.actor, p.depth, "
     "    (SELECT c.expires_at FROM keys c WHERE c.id = %s) AS cap), "
     "n AS (INSERT INTO keys (id, user_id, name, key_prefix, secret_hash, scopes, expires_at, "
     "  parent_key_id, client_id, actor, depth) SELECT %s, o.user_id, o.name, %s, %s, o.scopes, "
     "  LEAST(o.old_expires, o.cap), o.parent_key_id, o.client_id, o.actor, o.depth FROM o "
     "  RETURNING *), "
     "x AS (UPDATE keys SET expires_at = LEAST(COALESCE(keys.expires_at, 'infinity'), o.ends) "
     "  FROM o WHERE keys.id IN (SELECT fs_key_tree(o.id)) AND keys.id <> o.id RETURNING 1), "
     "mc AS (UPDATE clients SET created_by = %s FROM o WHERE clients.created_by = o.id "
     "  AND (o.parent_key_id IS NOT NULL OR o.client_id IS NOT NULL OR o.scopes IS NOT NULL) "
     "  RETURNING 1), "
     "mw AS (UPDATE webhooks SET created_by = %s FROM o WHERE webhooks.created_by = o.id "
     "  AND (o.parent_key_id IS NOT NULL OR o.client_id IS NOT NULL OR o.scopes IS NOT NULL) "
     "  RETURNING 1), "
     "ml AS (UPDATE links SET created_by = n.id FROM o, n WHERE links.created_by = o.id "
     "  AND (o.parent_key_id IS NOT NULL OR o.client_id IS NOT NULL OR o.scopes IS NOT NULL) "
     "  RETURNING 1) "
     "SELECT fs_key_json(n)::text, (SELECT count(*) FROM x)::text FROM n"},

    /* 1 user id, 2 the confirmation (the account's address). One row:
     * 'ok' (the account is now being erased: every key, access token,
     * client and OAuth grant revoked, forms marked deleted, webhooks disabled, pending mail
     * jobs and unsent account mail deleted, the mail its forms queued for
     * others (sql/0074: respondents' copies, resume URLs, notifications),
     * sent or not, deleted, the address freed), 'mismatch'
     * or 'gone' (no such account, or already being erased). sql/0042. */
    {"fs_account_erase", 2,
     "WITH a AS (SELECT %s::text AS uid, %s::text AS confirm), "
     "u0 AS (SELECT u.* FROM users u, a WHERE u.id = a.uid AND u.deleted_at IS NULL FOR UPDATE OF "
     "u), "
     "u AS (UPDATE users x SET deleted_at = now(), email_norm = 'deleted:' || x.id FROM u0, a "
     "  WHERE x.id = u0.id AND u0.email_norm = lower(a.confirm) RETURNING x.id, x.email), "
     "k AS (UPDATE keys SET revoked_at = now() WHERE user_id IN (SELECT id FROM u) "
     "  AND revoked_at IS NULL RETURNING 1), "
     "c AS (UPDATE clients SET revoked_at = now() WHERE user_id IN (SELECT id FROM u) "
     "  AND revoked_at IS NULL RETURNING 1), "
     "g AS (UPDATE oauth_grants SET revoked_at = now() WHERE user_id IN (SELECT id FROM u) "
     "  AND revoked_at IS NULL RETURNING 1), "
     "f AS (UPDATE forms SET deleted_at = now() WHERE user_id IN (SELECT id FROM u) RETURNING id), "
     "w AS (UPDATE webhooks SET enabled = false WHERE user_id IN (SELECT id FROM u) "
     "  AND enabled RETURNING 1), "
     "m AS (DELETE FROM mail_jobs WHERE form_id IN (SELECT id FROM f) RETURNING 1), "
     "o AS (DELETE FROM outbox WHERE (lower(recipient) IN (SELECT lower(email) FROM u) "
     "  AND sent_at IS NULL) OR user_id IN (SELECT id FROM u) RETURNING sent_at) "
     "SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM u0) THEN 'gone' "
     "  WHEN NOT EXISTS (SELECT 1 FROM u) THEN 'mismatch' ELSE 'ok' END, "
     "  (SELECT count(*) FROM k)::text, (SELECT count(*) FROM c)::text, "
     "  (SELECT count(*) FROM f)::text, (SELECT count(*) FROM w)::text, "
     "  (SELECT count(*) FROM m)::text, (SELECT count(*) FROM o WHERE o.sent_at IS NULL)::text"},

    /* 1 rows per step. One step of the background erasure of accounts
     * (sql/0042): rows deleted, 0 when no account is being erased, or
     * when another session is taking a step now. Every child runs the
     * erasure, and two steps at once on the same account deleted the
     * same rows in different orders (their tallies' triggers too):
     * deadlocks, lock and statement timeouts. The transaction advisory
     * lock lets one step run at a time across every child and machine,
     * and goes with the statement's transaction. */
    {"fs_account_purge", 1,
     "SELECT CASE WHEN pg_try_advisory_xact_lock(hashtext('formsvc.erasure')) "
     "  THEN fs_account_purge(%s::integer) ELSE 0 END::text"},

    /* GET /v1/me/export: pages of the account's data as (id, line) rows,
     * in id order after the id after (NULL: from the start), asked for
     * limit + 1; each line a JSON object with its kind. Args: 1 user id,
     * 2-3 after, 4 limit + 1 (forms: 1 base URL first). Keys list every
     * key and access token (no secret, no hash: fs_key_json). */
    {"fs_export_account", 4,
     "SELECT u.id, (jsonb_build_object('kind', 'account') || fs_user_json(u)::jsonb)::text "
     "FROM users u WHERE u.id = %s AND (%s::text IS NULL OR u.id > %s::text) "
     "LIMIT %s::integer"},
    {"fs_export_forms", 5,
     "SELECT f.id, (jsonb_build_object('kind', 'form') || fs_form_json(f, %s)::jsonb)::text "
     "FROM forms f WHERE f.user_id = %s AND (%s::text IS NULL OR f.id > %s::text) "
     "ORDER BY f.id LIMIT %s::integer"},
    {"fs_export_links", 4,
     "SELECT l.id, (jsonb_build_object('kind', 'link') || fs_link_json(l)::jsonb)::text "
     "FROM links l WHERE l.user_id = %s AND (%s::text IS NULL OR l.id > %s::text) "
     "ORDER BY l.id LIMIT %s::integer"},
    {"fs_export_webhooks", 4,
     "SELECT w.id, (jsonb_build_object('kind', 'webhook') || fs_webhook_json(w)::jsonb)::text "
     "FROM webhooks w WHERE w.user_id = %s AND (%s::text IS NULL OR w.id > %s::text) "
     "ORDER BY w.id LIMIT %s::integer"},
    {"fs_export_keys", 4,
     "SELECT k.id, (jsonb_build_object('kind', 'key') || fs_key_json(k)::jsonb)::text "
     "FROM keys k WHERE k.user_id = %s AND (%s::text IS NULL OR k.id > %s::text) "
     "ORDER BY k.id LIMIT %s::integer"},
    {"fs_export_clients", 4,
     "SELECT c.id, (jsonb_build_object('kind', 'client') || fs_client_json(c)::jsonb)::text "
     "FROM clients c WHERE c.user_id = %s AND (%s::text IS NULL OR c.id > %s::text) "
     "ORDER BY c.id LIMIT %s::integer"},
    {"fs_export_grants", 4,
     "SELECT g.id, (jsonb_build_object('kind', 'grant') || fs_grant_json(g, a))::text "
     "FROM oauth_grants g JOIN oauth_apps a ON a.id = g.app_id WHERE g.user_id = %s "
     "  AND (%s::text IS NULL OR g.id > %s::text) ORDER BY g.id LIMIT %s::integer"},
    /* the versions of edited submissions' answers (sql/0065), by
     * submission and version (the id: "<submission id>.<version in 10
     * digits>") */
    {"fs_export_versions", 4,
     "SELECT v.submission_id || '.' || lpad(v.version::text, 10, '0'), "
     "  (jsonb_build_object('kind', 'submissionVersion', 'submissionId', v.submission_id, "
     "    'formId', v.form_id, 'version', v.version, 'formVersion', v.form_version, "
     "    'data', v.data, 'createdAt', fs_ts(v.created_at)) "
     "  || CASE WHEN v.ending IS NULL THEN '{}'::jsonb "
     "     ELSE jsonb_build_object('ending', v.ending) END)::text "
     "FROM submission_versions v WHERE v.user_id = %s "
     "  AND (%s::text IS NULL OR (v.submission_id, v.version) > (SELECT split_part(a.x, '.', 1), "
     "    split_part(a.x, '.', 2)::integer FROM (SELECT %s::text AS x) a)) "
     "ORDER BY v.submission_id, v.version LIMIT %s::integer"},
    /* the unfinished partial answers of the account's forms (sql/0059),
     * as GET .../submissions?completed=false shows them */
    {"fs_export_partials", 4,
     "SELECT p.id, (jsonb_build_object('kind', 'partial') || fs_partial_json(p))::text "
     "FROM forms f JOIN submission_partials p ON p.form_id = f.id "
     "WHERE f.user_id = %s AND (%s::text IS NULL OR p.id > %s::text) "
     "ORDER BY p.id LIMIT %s::integer"},
    /* the asks (sql/0049): the message, the address asked, the metadata,
     * the status and the answer, as GET /v1/asks/{id} shows them */
    {"fs_export_asks", 4,
     "SELECT a.id, (jsonb_build_object('kind', 'ask') || fs_ask_json(a)::jsonb)::text "
     "FROM asks a WHERE a.user_id = %s AND (%s::text IS NULL OR a.id > %s::text) "
     "ORDER BY a.id LIMIT %s::integer"},
    {"fs_export_audit", 4,
     "SELECT a.id, (jsonb_build_object('kind', 'audit', 'formId', a.form_id) "
     "  || fs_audit_json(a)::jsonb)::text "
     "FROM audit a WHERE a.user_id = %s AND (%s::text IS NULL OR a.id > %s::text) "
     "ORDER BY a.id LIMIT %s::integer"},

    /* POST /v1/erasures: 1 user id, 2 the address, 3 the event's id.
     * Deletes every submission of the account's forms whose answer to one
     * of the form's email fields is the address (compared lower-cased and
     * trimmed, as the module normalises addresses), with their files and
     * mail jobs (cascade), their events scrubbed of the answers (the
     * trigger of sql/0018), counts them off the totals, and writes one
     * submissions.erased event (count and form ids, never the address)
     * when any went; the partial answers (sql/0059) that answer it go
     * too, not counted. A submission edited after sending (sql/0065)
     * goes when any version of its answers held the address. The rows
     * are chosen first (c) and deleted by id: an edit committed while the
     * delete waited for its row (the address changed away) makes
     * PostgreSQL re-check that row alone, against the statement's
     * snapshot of everything else, where the versions that held the
     * address did not exist yet; a re-check of the address there let the
     * submission stay. The mail
     * the account's forms queued (sql/0074), sent or not, to the address
     * (its copy, its resume URL) goes too, as does the mail about a
     * deleted submission (the recipients' notifications: the delete
     * trigger fs_submission_forget, sql/0074), and so do the Idempotency-Key
     * records of the deleted submissions (by the form's scope and the
     * Location they answered): a retry no longer replays the erased
     * answers as a 201. An ask put to the address (POST /v1/asks with
     * "to") is that person's too: its answer goes whatever the form's
     * fields, the ask forgets the address (recipient NULL, as an ask
     * mailed to nobody) and so does its form's unlisted recipient row,
     * unless the person unsubscribed there (their wish not to be asked
     * again is kept, docs/privacy.md). Returns the
     * count and the form ids (JSON array). */
    /* 1 user id: the account's erasure lock (sql/0075 fs_erasure_gate),
     * taken in the erasure's transaction before its statement, so that a
     * partial being completed at that moment is seen by the statement */
    {"fs_erasure_lock", 1,
     "SELECT 'locked' FROM (SELECT pg_advisory_xact_lock(hashtextextended('fs_erasure:' || %s, "
     "  0))) x"},

    {"fs_erasure", 3,
     "WITH a AS (SELECT %s::text AS uid, lower(btrim(%s::text)) AS email, %s::text AS evid), "
     "ef AS (SELECT f.id AS form_id, fl ->> 'key' AS key FROM forms f, a, "
     "  jsonb_array_elements(f.fields) fl "
     "  WHERE f.user_id = a.uid AND f.deleted_at IS NULL AND fl ->> 'type' = 'email'), "
     "c AS (SELECT DISTINCT s.id FROM submissions s, ef, a WHERE s.form_id = ef.form_id "
     "  AND s.user_id = a.uid AND (lower(btrim(s.data ->> ef.key)) = a.email "
     "    OR EXISTS (SELECT 1 FROM submission_versions v WHERE v.submission_id = s.id "
     "      AND lower(btrim(v.data ->> ef.key)) = a.email)) "
     "  UNION SELECT k.submission_id FROM asks k, a WHERE k.user_id = a.uid "
     "  AND k.submission_id IS NOT NULL AND lower(btrim(k.recipient)) = a.email), "
     "d AS (DELETE FROM submissions s USING c WHERE s.id = c.id "
     "  RETURNING s.id, s.form_id, s.spam), "
     "dp AS (DELETE FROM submission_partials p USING ef, a WHERE p.form_id = ef.form_id "
     "  AND p.user_id = a.uid AND lower(btrim(p.data ->> ef.key)) = a.email RETURNING 1), "
     "di AS (DELETE FROM idempotency i USING d WHERE i.scope = d.form_id "
     "  AND right(i.location, length(d.id) + 13) = '/submissions/' || d.id RETURNING 1), "
     "ob AS (DELETE FROM outbox o USING a WHERE o.user_id = a.uid "
     "  AND lower(btrim(o.recipient)) = a.email RETURNING 1), "
     "nr AS (DELETE FROM notify_recipients n USING asks k, a WHERE k.user_id = a.uid "
     "  AND lower(btrim(k.recipient)) = a.email AND n.form_id = k.form_id AND NOT n.listed "
     "  AND n.status <> 'unsubscribed' RETURNING 1), "
     "ak AS (UPDATE asks k SET recipient = NULL FROM a WHERE k.user_id = a.uid "
     "  AND lower(btrim(k.recipient)) = a.email RETURNING 1), "
     "t AS (INSERT INTO submission_tally (form_id, user_id, month, n) "
     "  SELECT d.form_id, a.uid, NULL, -count(*) FROM d, a WHERE NOT d.spam "
     "  GROUP BY d.form_id, a.uid RETURNING 1), "
     "n AS (SELECT count(*) AS n, COALESCE(jsonb_agg(DISTINCT d.form_id), '[]') AS forms FROM d), "
     "ev AS (INSERT INTO events (id, user_id, type, payload) "
     "  SELECT a.evid, a.uid, 'submissions.erased', "
     "  jsonb_build_object('count', n.n, 'formIds', n.forms) FROM a, n WHERE n.n > 0 "
     "  RETURNING 1) "
     "SELECT n.n::text, n.forms::text, '0', "
     "  (SELECT count(*) FROM ev)::text FROM n"},

    {NULL, 0, NULL}};

fs_error *fs_store_signup(fs_store *st, const char *user_id, const char *email,
                          const fs_new_secret *key, const char **user_json, const char **key_json) {
    const char *args[] = {user_id, email, email, key->id, key->prefix, key->hash};
    fs_rows *rs;
    *user_json = *key_json = NULL;
    fs_error *e = FS_RUN(st, "fs_signup", args, 2, &rs);
    if (!e && rs->nrows == 1) {
        *user_json = FS_CELL(rs, 0, 0);
        *key_json = FS_CELL(rs, 0, 1);
    }
    return e;
}

fs_error *fs_store_authenticate(fs_store *st, const char *secret_hash, fs_credential **out) {
    const char *args[] = {secret_hash};
    fs_rows *rs;
    *out = NULL;
    fs_error *e = FS_RUN(st, "fs_authenticate", args, 11, &rs);
    if (e || rs->nrows != 1)
        return e;
    fs_credential *c = apr_pcalloc(st->pool, sizeof(*c));
    c->key_id = FS_CELL(rs, 0, 0);
    c->user_id = FS_CELL(rs, 0, 1);
    c->scopes_json = FS_CELL(rs, 0, 2);
    c->depth = fs_cell_int(FS_CELL(rs, 0, 3));
    c->actor = FS_CELL(rs, 0, 4);
    c->client_id = FS_CELL(rs, 0, 5);
    c->verified = fs_cell_bool(FS_CELL(rs, 0, 6));
    c->secret_hash = FS_CELL(rs, 0, 7);
    c->expires = fs_cell_i64(FS_CELL(rs, 0, 8));
    c->touch_due = fs_cell_bool(FS_CELL(rs, 0, 9));
    c->parent_key_id = FS_CELL(rs, 0, 10);
    *out = c;
    return NULL;
}

fs_error *fs_store_key_touch(fs_store *st, const char *key_id) {
    const char *args[] = {key_id};
    fs_rows *rs;
    return FS_RUN(st, "fs_touch_key", args, 1, &rs);
}

fs_error *fs_store_me(fs_store *st, const char *user_id, const char *key_id, const char **user_json,
                      const char **key_json, int *active_keys) {
    const char *args[] = {user_id, key_id};
    fs_rows *rs;
    *user_json = *key_json = NULL;
    *active_keys = 0;
    fs_error *e = FS_RUN(st, "fs_me", args, 3, &rs);
    if (e || rs->nrows != 1)
        return e;
    *user_json = FS_CELL(rs, 0, 0);
    *key_json = FS_CELL(rs, 0, 1);
    *active_keys = fs_cell_int(FS_CELL(rs, 0, 2));
    return NULL;
}

fs_error *fs_store_key_list(fs_store *st, const char *user_id, int include_revoked,
                            const char *after, const char *tree_root, int limit,
                            fs_list_page *out) {
    const char *args[] = {user_id,   FS_ARG_BOOL(include_revoked),   after, after, tree_root,
                          tree_root, FS_ARG_INT(st->pool, limit + 1)};
    return FS_LIST(st, "fs_key_list", args, limit, out);
}

fs_error *fs_store_key_get(fs_store *st, const char *user_id, const char *key_id,
                           const char *tree_root, fs_key_row **out) {
    const char *args[] = {user_id, key_id, tree_root, tree_root};
    fs_rows *rs;
    *out = NULL;
    fs_error *e = FS_RUN(st, "fs_key_get", args, 6, &rs);
    if (e || rs->nrows != 1)
        return e;
    fs_key_row *k = apr_pcalloc(st->pool, sizeof(*k));
    k->json = FS_CELL(rs, 0, 0);
    k->scopes_json = FS_CELL(rs, 0, 1);
    k->active = fs_cell_bool(FS_CELL(rs, 0, 2));
    k->depth = fs_cell_int(FS_CELL(rs, 0, 3));
    k->expired = fs_cell_bool(FS_CELL(rs, 0, 4));
    k->rolled = fs_cell_bool(FS_CELL(rs, 0, 5));
    *out = k;
    return NULL;
}

fs_error *fs_store_key_create(fs_store *st, const fs_new_key *k, int quota, const char **json) {
    const char *args[] = {k->secret.id,     k->user_id,        k->name,
                          k->secret.prefix, k->secret.hash,    k->scopes_json,
                          k->expires_at,    NULL /* parent */, NULL /* actor */,
                          "0" /* depth */,  k->user_id,        FS_ARG_INT(st->pool, quota)};
    return FS_ONE(st, "fs_key_create", args, json);
}

fs_error *fs_store_key_count_active(fs_store *st, const char *user_id, int *n) {
    const char *args[] = {user_id};
    return FS_INT(st, "fs_key_count_active", args, 0, n);
}

fs_error *fs_store_key_revoke(fs_store *st, const char *user_id, const char *key_id,
                              const char **json) {
    const char *args[] = {key_id, user_id, key_id};
    return FS_ONE(st, "fs_key_revoke", args, json);
}

fs_error *fs_store_key_revoke_sweep(fs_store *st, const char *key_id, int *n) {
    const char *args[] = {key_id};
    int count;
    fs_error *e = FS_INT(st, "fs_key_revoke_sweep", args, 0, &count);
    if (n)
        *n = count;
    return e;
}

fs_error *fs_store_key_roll(fs_store *st, const char *user_id, const char *key_id,
                            const char *caller_key_id, long long grace_seconds,
                            const fs_new_secret *next, const char **json) {
    const char *args[] = {
        key_id,        user_id,
        next->id,      apr_psprintf(st->pool, "%" APR_INT64_T_FMT, (apr_int64_t)grace_seconds),
        caller_key_id, next->id,
        next->prefix,  next->hash,
        next->id,      next->id};
    fs_rows *rs;
    *json = NULL;
    fs_error *e = FS_RUN(st, "fs_key_roll", args, 2, &rs);
    if (!e && rs->nrows == 1)
        *json = FS_CELL(rs, 0, 0);
    return e;
}

fs_error *fs_store_account_erase(fs_store *st, const char *user_id, const char *confirm,
                                 fs_account_erase_result *out) {
    const char *args[] = {user_id, confirm};
    fs_rows *rs;
    memset(out, 0, sizeof(*out));
    out->outcome = FS_ERASE_GONE;
    fs_error *e = FS_RUN(st, "fs_account_erase", args, 7, &rs);
    if (e || rs->nrows != 1)
        return e;
    const char *o = FS_CELL(rs, 0, 0);
    out->outcome = !strcmp(o, "ok")         ? FS_ERASE_OK
                   : !strcmp(o, "mismatch") ? FS_ERASE_MISMATCH
                                            : FS_ERASE_GONE;
    out->credentials = fs_cell_int(FS_CELL(rs, 0, 1));
    out->clients = fs_cell_int(FS_CELL(rs, 0, 2));
    out->forms = fs_cell_int(FS_CELL(rs, 0, 3));
    out->webhooks = fs_cell_int(FS_CELL(rs, 0, 4));
    out->mail_jobs = fs_cell_int(FS_CELL(rs, 0, 5));
    out->mails = fs_cell_int(FS_CELL(rs, 0, 6));
    return NULL;
}

fs_error *fs_store_account_purge_step(fs_store *st, int batch, int *deleted) {
    const char *args[] = {FS_ARG_INT(st->pool, batch)};
    return FS_INT(st, "fs_account_purge", args, 0, deleted);
}

/* The background erasure's sweep: steps of PURGE_BATCH rows, each its own
 * statement (no lock held long), for at most about a second a run, so that
 * the worker's other tasks are not kept waiting. */
#define PURGE_BATCH 500
fs_error *fs_store_account_purge(fs_store *st) {
    apr_time_t until = apr_time_now() + apr_time_from_sec(1);
    int n = 0;
    fs_error *e;
    do
        e = fs_store_account_purge_step(st, PURGE_BATCH, &n);
    while (!e && n > 0 && apr_time_now() < until);
    return e;
}

fs_error *fs_store_export_page(fs_store *st, fs_export_kind kind, const char *user_id,
                               const char *base, const char *after, int limit, fs_list_page *out) {
    static const char *const labels[] = {
        "fs_export_account",  "fs_export_forms",    "fs_export_links", "fs_export_webhooks",
        "fs_export_keys",     "fs_export_clients",  "fs_export_audit", "fs_export_grants",
        "fs_export_versions", "fs_export_partials", "fs_export_asks"};
    const char *n = FS_ARG_INT(st->pool, limit + 1);
    if (kind == FS_EXPORT_FORMS) {
        const char *args[] = {base, user_id, after, after, n};
        return FS_LIST(st, labels[kind], args, limit, out);
    }
    const char *args[] = {user_id, after, after, n};
    return FS_LIST(st, labels[kind], args, limit, out);
}

fs_error *fs_store_erasure(fs_store *st, const char *user_id, const char *email,
                           const char *event_id, int *count, const char **form_ids) {
    const char *args[] = {user_id, email, event_id};
    const char *lock_args[] = {user_id};
    fs_rows *rs;
    fs_tx *tx;
    *count = 0;
    *form_ids = "[]";
    fs_error *e = fs_store_tx_begin(st, st->pool, &tx);
    if (!e)
        e = FS_RUN(st, "fs_erasure_lock", lock_args, 1, &rs);
    if (!e)
        e = FS_RUN(st, "fs_erasure", args, 4, &rs);
    if (!e && rs->nrows == 1) {
        *count = fs_cell_int(FS_CELL(rs, 0, 0));
        *form_ids = FS_CELL(rs, 0, 1);
    }
    if (!e)
        e = fs_store_tx_commit(tx);
    else
        fs_store_tx_rollback(tx);
    if (e) {
        *count = 0;
        *form_ids = "[]";
    }
    return e;
}
