/* The store of verification, recovery and the mail outbox: the statements
 * (argument order documented above each; all arguments are text, cast in
 * SQL) and the typed functions of fs_store_verify.h that run them. Codes
 * and link tokens arrive hashed (HMAC under the pepper); the plain code
 * exists only in the outbox message. */
#include "fs_store_verify.h"
#include "store_int.h"

#include <apr_strings.h>
#include <string.h>

/* A code row that can still be tried. */
#define LIVE "c.used_at IS NULL AND c.expires_at > now() AND c.attempts < 5"

const fs_stmt fs_stmts_verify[] = {
    /* 1 user id: email, verified ('t'/'f') */
    {"fs_user_contact", 1, "SELECT email, verified::text FROM users WHERE id = %s"},

    /* 1 user id, 2 mails per day, 3 resend interval (s), 4 code hash,
     * 5 token hash, 6 outbox id, 7 message. Stores a new code (replacing the
     * old one) and queues its mail, unless the account is verified or
     * fs_mail_take (sql/0021) refuses: the account or its address had its
     * mails of the last 24 hours ('day'), or the last verification code is
     * younger than the interval ('gap'). Returns: state ('sent', 'verified', 'day',
     * 'gap'), seconds to wait, expiresAt, email. */
    {"fs_verify_send", 7,
     "WITH u AS (SELECT id, email, email_norm, verified FROM users WHERE id = %s FOR UPDATE), "
     "t AS (SELECT m.reason, m.wait FROM (SELECT * FROM u WHERE NOT u.verified) v "
     "  CROSS JOIN LATERAL fs_mail_take(v.id, v.email_norm, 'verify', %s::integer, %s::integer) "
     "m), "
     "ok AS (SELECT u.* FROM u, t WHERE t.reason = 'ok'), "
     "c AS (INSERT INTO account_codes AS a (user_id, purpose, code_hash, token_hash, created_at, "
     "  expires_at) SELECT ok.id, 'verify', %s, %s, now(), now() + interval '24 hours' FROM ok "
     "  ON CONFLICT (user_id, purpose) DO UPDATE SET code_hash = EXCLUDED.code_hash, "
     "  token_hash = EXCLUDED.token_hash, attempts = 0, created_at = now(), "
     "  expires_at = EXCLUDED.expires_at, used_at = NULL RETURNING a.expires_at), "
     "o AS (INSERT INTO outbox (id, recipient, message) SELECT %s, ok.email, %s FROM ok, c "
     "  RETURNING 1) "
     "SELECT CASE WHEN u.verified THEN 'verified' WHEN (SELECT count(*) FROM o) = 1 THEN 'sent' "
     "  ELSE COALESCE((SELECT reason FROM t), 'gap') END, "
     "  COALESCE((SELECT wait FROM t), 0)::text, "
     "  fs_ts((SELECT expires_at FROM c)), u.email FROM u"},

    /* 1 user id, 2 code hash. Returns: already verified ('t'/'f'), result
     * ('ok', 'wrong', 'none' when there is no live code), tries left,
     * user json. A wrong code counts a try; the fifth voids the code. */
    {"fs_verify_confirm", 2,
     "WITH u AS (SELECT * FROM users WHERE id = %s FOR UPDATE), "
     "c AS (SELECT c.* FROM account_codes c JOIN u ON c.user_id = u.id "
     "  WHERE c.purpose = 'verify' AND " LIVE " AND NOT u.verified FOR UPDATE OF c), "
     "ok AS (UPDATE account_codes a SET used_at = now() FROM c WHERE a.user_id = c.user_id "
     "  AND a.purpose = 'verify' AND c.code_hash = %s RETURNING a.user_id), "
     "bad AS (UPDATE account_codes a SET attempts = a.attempts + 1 FROM c "
     "  WHERE a.user_id = c.user_id AND a.purpose = 'verify' AND NOT EXISTS (SELECT 1 FROM ok) "
     "  RETURNING a.attempts), "
     "v AS (UPDATE users SET verified = true WHERE id IN (SELECT user_id FROM ok) RETURNING *) "
     "SELECT u.verified::text, CASE WHEN EXISTS (SELECT 1 FROM ok) THEN 'ok' "
     "  WHEN EXISTS (SELECT 1 FROM bad) THEN 'wrong' ELSE 'none' END, "
     "  (5 - COALESCE((SELECT attempts FROM bad), 5))::text, "
     "  (SELECT fs_user_json(v)::text FROM v) FROM u"},

    /* 1 token hash: verifies through the e-mailed link. Returns the
     * address when it worked; zero rows otherwise. */
    {"fs_verify_token", 1,
     "WITH c AS (SELECT c.* FROM account_codes c WHERE c.token_hash = %s "
     "  AND c.purpose = 'verify' AND " LIVE " FOR UPDATE), "
     "ok AS (UPDATE account_codes a SET used_at = now() FROM c WHERE a.user_id = c.user_id "
     "  AND a.purpose = 'verify' RETURNING a.user_id), "
     "v AS (UPDATE users SET verified = true WHERE id IN (SELECT user_id FROM ok) RETURNING *) "
     "SELECT email FROM v"},

    /* 1 email (as typed, trimmed), 2 mails per day, 3 resend interval,
     * 4 code hash, 5 outbox id, 6 message. For a verified account only, and
     * only when fs_mail_take allows (the same counts as verification mail);
     * says nothing about which happened. */
    {"fs_recover_send", 6,
     "WITH u AS (SELECT id, email, email_norm FROM users WHERE email_norm = lower(%s) AND "
     "verified), "
     "t AS (SELECT m.reason FROM u "
     "  CROSS JOIN LATERAL fs_mail_take(u.id, u.email_norm, 'recover', %s::integer, %s::integer) "
     "m), "
     "ok AS (SELECT u.* FROM u, t WHERE t.reason = 'ok'), "
     "c AS (INSERT INTO account_codes AS a (user_id, purpose, code_hash, created_at, expires_at) "
     "  SELECT ok.id, 'recover', %s, now(), now() + interval '24 hours' FROM ok "
     "  ON CONFLICT (user_id, purpose) DO UPDATE SET code_hash = EXCLUDED.code_hash, "
     "  attempts = 0, created_at = now(), expires_at = EXCLUDED.expires_at, used_at = NULL "
     "  RETURNING a.user_id), "
     "o AS (INSERT INTO outbox (id, recipient, message) SELECT %s, ok.email, %s FROM ok, c "
     "  RETURNING 1) "
     "SELECT (SELECT count(*) FROM o)::text"},

    /* 1 email, 2 code hash, 3 new key id, 4 prefix, 5 secret hash,
     * 6-9 revoke existing credentials ('t'/'f', four times): every key
     * and access token, every OAuth client, every webhook, every grant an
     * application holds (an attacker who held a key keeps nothing that can
     * act). Returns: result ('ok', 'wrong', 'none'), user json, key json,
     * keys revoked. */
    {"fs_recover_confirm", 9,
     "WITH u AS (SELECT * FROM users WHERE email_norm = lower(%s) AND verified), "
     "c AS (SELECT c.* FROM account_codes c JOIN u ON c.user_id = u.id "
     "  WHERE c.purpose = 'recover' AND " LIVE " FOR UPDATE OF c), "
     "ok AS (UPDATE account_codes a SET used_at = now() FROM c WHERE a.user_id = c.user_id "
     "  AND a.purpose = 'recover' AND c.code_hash = %s RETURNING a.user_id), "
     "bad AS (UPDATE account_codes a SET attempts = a.attempts + 1 FROM c "
     "  WHERE a.user_id = c.user_id AND a.purpose = 'recover' AND NOT EXISTS (SELECT 1 FROM ok) "
     "  RETURNING a.attempts), "
     "k AS (INSERT INTO keys (id, user_id, name, key_prefix, secret_hash) "
     "  SELECT %s, ok.user_id, 'recovered', %s, %s FROM ok RETURNING *), "
     "rv AS (UPDATE keys SET revoked_at = now() WHERE %s = 't' AND revoked_at IS NULL "
     "  AND user_id IN (SELECT user_id FROM ok) RETURNING 1), "
     "rc AS (UPDATE clients SET revoked_at = now() WHERE %s = 't' AND revoked_at IS NULL "
     "  AND user_id IN (SELECT user_id FROM ok) RETURNING 1), "
     "rw AS (DELETE FROM webhooks WHERE %s = 't' AND user_id IN (SELECT user_id FROM ok) "
     "  RETURNING 1), "
     "rg AS (UPDATE oauth_grants SET revoked_at = now() WHERE %s = 't' AND revoked_at IS NULL "
     "  AND user_id IN (SELECT user_id FROM ok) RETURNING 1) "
     "SELECT CASE WHEN EXISTS (SELECT 1 FROM ok) THEN 'ok' "
     "  WHEN EXISTS (SELECT 1 FROM bad) THEN 'wrong' ELSE 'none' END, "
     "  (SELECT fs_user_json(u)::text FROM u), (SELECT fs_key_json(k)::text FROM k), "
     "  (SELECT count(*) FROM rv)::text"},

    /* 1 user id, 2 the recovered key id, 3-4 user id. Run after
     * fs_recover_confirm with revocation has committed, before the new
     * secret is handed out: revokes what was minted or issued while that
     * statement ran (a token exchange or issue holds its parent key or
     * client, so it commits first, but after the statement's snapshot).
     * Only the recovered key is spared; nothing else can be legitimate yet. */
    {"fs_recover_sweep", 4,
     "WITH k AS (UPDATE keys SET revoked_at = now() WHERE user_id = %s AND id <> %s "
     "  AND revoked_at IS NULL RETURNING 1), "
     "c AS (UPDATE clients SET revoked_at = now() WHERE user_id = %s AND revoked_at IS NULL "
     "  RETURNING 1), "
     "w AS (DELETE FROM webhooks WHERE user_id = %s RETURNING 1) "
     "SELECT (SELECT count(*) FROM k)::text, (SELECT count(*) FROM c)::text, "
     "  (SELECT count(*) FROM w)::text"},

    /* Outbox. 1 lease (s), 2 batch size: claims due messages (each counts
     * an attempt and is hidden from other workers for the lease). */
    {"fs_outbox_claim", 2,
     "UPDATE outbox o SET attempts = o.attempts + 1, "
     "  next_attempt_at = now() + make_interval(secs => %s::integer) "
     "WHERE o.id IN (SELECT id FROM outbox WHERE sent_at IS NULL AND failed_at IS NULL "
     "  AND next_attempt_at <= now() ORDER BY next_attempt_at LIMIT %s::integer "
     "  FOR UPDATE SKIP LOCKED) "
     "RETURNING o.id, o.recipient, o.message, o.attempts::text"},

    /* 1 id */
    {"fs_outbox_sent", 1, "UPDATE outbox SET sent_at = now(), last_error = NULL WHERE id = %s"},

    /* 1 error, 2 retry in (s), 3 max attempts, 4 id */
    {"fs_outbox_failed", 4,
     "UPDATE outbox SET last_error = %s, next_attempt_at = now() + make_interval(secs => "
     "%s::integer), "
     "  failed_at = CASE WHEN attempts >= %s::integer THEN now() END WHERE id = %s"},

    /* Status: pending, age of the oldest pending (s), failed in the last day. */
    {"fs_outbox_status", 0,
     "SELECT count(*) FILTER (WHERE sent_at IS NULL AND failed_at IS NULL)::text, "
     "  COALESCE(floor(extract(epoch FROM now() - min(created_at) FILTER "
     "    (WHERE sent_at IS NULL AND failed_at IS NULL))), 0)::bigint::text, "
     "  count(*) FILTER (WHERE failed_at > now() - interval '1 day')::text "
     "FROM outbox"},

    /* Keeps the outbox small: sent and failed mail older than a week; and
     * mail_quota: keys without a mail for 25 hours. */
    {"fs_outbox_sweep", 0,
     "WITH q AS (DELETE FROM mail_quota WHERE key IN (SELECT key FROM mail_quota "
     "  WHERE COALESCE(sent[cardinality(sent)] < now() - interval '25 hours', true) "
     "  LIMIT 10000 FOR UPDATE SKIP LOCKED)) "
     "DELETE FROM outbox WHERE COALESCE(sent_at, failed_at) < now() - interval '7 days'"},

    {NULL, 0, NULL}};

fs_error *fs_store_user_contact(fs_store *st, const char *user_id, const char **email,
                                int *verified) {
    const char *args[] = {user_id};
    fs_rows *rs;
    *email = NULL;
    *verified = 0;
    fs_error *e = FS_RUN(st, "fs_user_contact", args, 2, &rs);
    if (e || rs->nrows != 1)
        return e;
    *email = FS_CELL(rs, 0, 0);
    *verified = fs_cell_bool(FS_CELL(rs, 0, 1));
    return NULL;
}

fs_error *fs_store_verify_send(fs_store *st, const char *user_id, const fs_mail_limits *lim,
                               const char *code_hash, const char *token_hash,
                               const fs_queued_mail *mail, fs_verify_sent **out) {
    const char *args[] = {user_id,
                          FS_ARG_INT(st->pool, lim->per_day),
                          FS_ARG_INT(st->pool, lim->resend_interval),
                          code_hash,
                          token_hash,
                          mail->outbox_id,
                          mail->message};
    fs_rows *rs;
    *out = NULL;
    fs_error *e = FS_RUN(st, "fs_verify_send", args, 4, &rs);
    if (e || rs->nrows != 1)
        return e;
    fs_verify_sent *v = apr_pcalloc(st->pool, sizeof(*v));
    v->state = FS_CELL(rs, 0, 0);
    v->wait = fs_cell_int(FS_CELL(rs, 0, 1));
    v->expires_at = FS_CELL(rs, 0, 2);
    v->email = FS_CELL(rs, 0, 3);
    *out = v;
    return NULL;
}

fs_error *fs_store_verify_confirm(fs_store *st, const char *user_id, const char *code_hash,
                                  fs_verify_result **out) {
    const char *args[] = {user_id, code_hash};
    fs_rows *rs;
    *out = NULL;
    fs_error *e = FS_RUN(st, "fs_verify_confirm", args, 4, &rs);
    if (e || rs->nrows != 1)
        return e;
    fs_verify_result *v = apr_pcalloc(st->pool, sizeof(*v));
    v->already = fs_cell_bool(FS_CELL(rs, 0, 0));
    v->result = FS_CELL(rs, 0, 1);
    v->tries_left = fs_cell_int(FS_CELL(rs, 0, 2));
    v->user_json = FS_CELL(rs, 0, 3);
    *out = v;
    return NULL;
}

fs_error *fs_store_verify_token(fs_store *st, const char *token_hash, const char **email) {
    const char *args[] = {token_hash};
    return FS_ONE(st, "fs_verify_token", args, email);
}

fs_error *fs_store_recover_send(fs_store *st, const char *email, const fs_mail_limits *lim,
                                const char *code_hash, const fs_queued_mail *mail) {
    const char *args[] = {email,
                          FS_ARG_INT(st->pool, lim->per_day),
                          FS_ARG_INT(st->pool, lim->resend_interval),
                          code_hash,
                          mail->outbox_id,
                          mail->message};
    fs_rows *rs;
    return FS_RUN(st, "fs_recover_send", args, 1, &rs);
}

fs_error *fs_store_recover_confirm(fs_store *st, const char *email, const char *code_hash,
                                   const fs_new_secret *key, int revoke, fs_recovered *out) {
    const char *rv = FS_ARG_BOOL(revoke);
    const char *args[] = {email, code_hash, key->id, key->prefix, key->hash, rv, rv, rv, rv};
    fs_rows *rs;
    memset(out, 0, sizeof(*out));
    out->result = "none";
    fs_error *e = FS_RUN(st, "fs_recover_confirm", args, 4, &rs);
    if (e || rs->nrows != 1)
        return e;
    out->result = FS_CELL(rs, 0, 0);
    out->user_json = FS_CELL(rs, 0, 1);
    out->key_json = FS_CELL(rs, 0, 2);
    out->revoked = fs_cell_int(FS_CELL(rs, 0, 3));
    return NULL;
}

fs_error *fs_store_recover_sweep(fs_store *st, const char *user_id, const char *keep_key_id) {
    const char *args[] = {user_id, keep_key_id, user_id, user_id};
    fs_rows *rs;
    return FS_RUN(st, "fs_recover_sweep", args, 3, &rs);
}

fs_error *fs_store_outbox_claim(fs_store *st, int lease, int batch, fs_outbox_batch *out) {
    const char *args[] = {FS_ARG_INT(st->pool, lease), FS_ARG_INT(st->pool, batch)};
    fs_rows *rs;
    out->n = 0;
    out->msgs = NULL;
    fs_error *e = FS_RUN(st, "fs_outbox_claim", args, 4, &rs);
    if (e)
        return e;
    out->msgs = apr_pcalloc(st->pool, sizeof(fs_outbox_msg) * (apr_size_t)(rs->nrows + 1));
    for (int i = 0; i < rs->nrows; i++) {
        fs_outbox_msg *m = &out->msgs[i];
        m->id = FS_CELL(rs, i, 0);
        m->recipient = FS_CELL(rs, i, 1);
        m->message = FS_CELL(rs, i, 2);
        m->attempts = fs_cell_int(FS_CELL(rs, i, 3));
    }
    out->n = rs->nrows;
    return NULL;
}

fs_error *fs_store_outbox_sent(fs_store *st, const char *id) {
    const char *args[] = {id};
    fs_rows *rs;
    return FS_RUN(st, "fs_outbox_sent", args, 0, &rs);
}

fs_error *fs_store_outbox_failed(fs_store *st, const char *id, const char *error, int retry_in,
                                 int max_attempts) {
    const char *args[] = {error, FS_ARG_INT(st->pool, retry_in), FS_ARG_INT(st->pool, max_attempts),
                          id};
    fs_rows *rs;
    return FS_RUN(st, "fs_outbox_failed", args, 0, &rs);
}

fs_error *fs_store_outbox_status(fs_store *st, fs_outbox_status *out) {
    fs_rows *rs;
    memset(out, 0, sizeof(*out));
    fs_error *e = fs_store_run(st, "fs_outbox_status", 0, NULL, 3, &rs);
    if (e || rs->nrows != 1)
        return e;
    out->pending = fs_cell_i64(FS_CELL(rs, 0, 0));
    out->oldest_seconds = fs_cell_i64(FS_CELL(rs, 0, 1));
    out->failed_day = fs_cell_i64(FS_CELL(rs, 0, 2));
    return NULL;
}

fs_error *fs_store_outbox_sweep(fs_store *st) {
    fs_rows *rs;
    return fs_store_run(st, "fs_outbox_sweep", 0, NULL, 0, &rs);
}
