/* Statements for forms, fields, submissions (the owner's side) and
 * Idempotency-Key records. Argument order is documented above each
 * statement; all arguments are text, cast in SQL. The writes call the
 * PL/pgSQL functions of sql/0013_forms_api.sql and return (outcome, body). */
#include "stmts.h"

const fs_stmt fs_stmts_forms[] = {
    /* 1 form id, 2 user id, 3 slug, 4 title, 5 description, 6 fields json,
     * 7 settings json, 8 forms quota, 9 base URL */
    {"fs_form_create",
     "SELECT outcome, body FROM fs_form_create(%s, %s, %s, %s, %s, %s::jsonb, %s::jsonb, "
     "  %s::integer, %s)"},

    /* 1 base URL, 2 form id, 3 user id: form json, version, fields,
     * settings, slug, title, description, effective status */
    {"fs_form_get",
     "SELECT fs_form_json(f, %s)::text, f.version::text, f.fields::text, f.settings::text, "
     "  f.slug, f.title, f.description, fs_form_status(f) "
     "FROM forms f WHERE f.id = %s AND f.user_id = %s"},

    /* 1 base URL, 2 user id, 3-4 status (or NULL), 5-6 allowed form ids as
     * a JSON array (NULL: any), 7-8 after id (or NULL), 9 limit + 1 */
    {"fs_form_list",
     "SELECT f.id, fs_form_json(f, %s)::text FROM forms f WHERE f.user_id = %s "
     "  AND (%s::text IS NULL OR fs_form_status(f) = %s::text) "
     "  AND (%s::jsonb IS NULL OR f.id IN (SELECT jsonb_array_elements_text(%s::jsonb))) "
     "  AND (%s::text IS NULL OR f.id < %s::text) "
     "ORDER BY f.id DESC LIMIT %s::integer"},

    /* 1 user id, 2 form id, 3 expected version, 4 slug, 5 title,
     * 6 description, 7 fields json, 8 settings json, 9 base URL */
    {"fs_form_save",
     "SELECT outcome, body FROM fs_form_save(%s, %s, %s::integer, %s, %s, %s, %s::jsonb, "
     "  %s::jsonb, %s)"},

    /* 1 user id, 2 form id, 3 'publish' or 'close', 4 If-Match version (or
     * NULL), 5 base URL */
    {"fs_form_transition",
     "WITH t AS (SELECT outcome, body FROM fs_form_transition(%s, %s, %s, %s::integer, %s)), "
     "ok AS MATERIALIZED (SELECT t.body::jsonb AS b FROM t WHERE t.outcome = 'ok'), "
     "ev AS (INSERT INTO events (id, user_id, type, form_id, payload) SELECT fs_new_id('evt_'), "
     "  f.user_id, 'form.' || (ok.b->>'status'), f.id, ok.b FROM ok JOIN forms f "
     "  ON f.id = ok.b->>'id' RETURNING 1) "
     "SELECT outcome, body FROM t"},

    /* 1 form id, 2 user id, 3 If-Match version (or NULL), 4 the same:
     * (forms found, forms deleted) */
    {"fs_form_delete", "WITH f AS (SELECT id, version FROM forms WHERE id = %s AND user_id = %s), "
                       "d AS (DELETE FROM forms WHERE id = (SELECT id FROM f) "
                       "  AND (%s::integer IS NULL OR version = %s::integer) RETURNING id) "
                       "SELECT (SELECT count(*) FROM f)::text, (SELECT count(*) FROM d)::text"},

    /* 1 user id: number of forms */

    /* 1 form id, 2 user id, 3 include spam ('t'/'f'), 4-5 since (or NULL),
     * 6-7 until (or NULL), 8-9 after id (or NULL), 10 limit + 1 */
    {"fs_sub_list", "SELECT s.id, fs_submission_json(s)::text FROM submissions s "
                    "WHERE s.form_id = %s AND s.user_id = %s AND (%s = 't' OR NOT s.spam) "
                    "  AND (%s::timestamptz IS NULL OR s.created_at >= %s::timestamptz) "
                    "  AND (%s::timestamptz IS NULL OR s.created_at < %s::timestamptz) "
                    "  AND (%s::text IS NULL OR s.id < %s::text) "
                    "ORDER BY s.id DESC LIMIT %s::integer"},

    /* Same arguments as fs_sub_list; for the CSV export, in batches:
     * id, createdAt, formVersion, spam, data */
    {"fs_sub_export",
     "SELECT s.id, fs_ts(s.created_at), s.form_version::text, s.spam::text, s.data::text "
     "FROM submissions s "
     "WHERE s.form_id = %s AND s.user_id = %s AND (%s = 't' OR NOT s.spam) "
     "  AND (%s::timestamptz IS NULL OR s.created_at >= %s::timestamptz) "
     "  AND (%s::timestamptz IS NULL OR s.created_at < %s::timestamptz) "
     "  AND (%s::text IS NULL OR s.id < %s::text) "
     "ORDER BY s.id DESC LIMIT %s::integer"},

    /* 1 submission id, 2 form id, 3 user id */
    {"fs_sub_get", "SELECT fs_submission_json(s)::text FROM submissions s "
                   "WHERE s.id = %s AND s.form_id = %s AND s.user_id = %s"},

    /* 1 submission id, 2 form id, 3 user id: rows deleted. The form's
     * submissionCount drops when the submission was not spam (a -1 in
     * submission_tally, sql/0024; the month's count keeps it). */
    {"fs_sub_delete",
     "WITH d AS (DELETE FROM submissions WHERE id = %s AND form_id = %s AND user_id = %s "
     "  RETURNING form_id, user_id, spam), "
     "u AS (INSERT INTO submission_tally (form_id, user_id, month, n) "
     "  SELECT d.form_id, d.user_id, NULL, -1 FROM d WHERE NOT d.spam RETURNING 1) "
     "SELECT (SELECT count(*) FROM d)::text, (SELECT count(*) FROM u)::text"},

    /* 1 scope, 2 key, 3 request fingerprint. One row when the key is ours
     * to use now (new, expired after 24 h, or abandoned in progress for a
     * minute); zero rows when a live record holds it. */
    {"fs_idem_claim",
     "INSERT INTO idempotency AS i (scope, key, request_hash, status, body) "
     "VALUES (%s, %s, %s, 0, '') "
     "ON CONFLICT (scope, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, "
     "  status = 0, location = NULL, body = '', created_at = now() "
     "  WHERE i.created_at < now() - interval '24 hours' "
     "     OR (i.status = 0 AND i.created_at < now() - interval '1 minute') "
     "RETURNING 'claimed'"},

    /* 1 scope, 2 key: fingerprint, status (0: in progress), location, body */
    {"fs_idem_get", "SELECT request_hash, status::text, location, body FROM idempotency "
                    "WHERE scope = %s AND key = %s AND created_at >= now() - interval '24 hours'"},

    /* 1 status, 2 location, 3 sealed body, 4 scope, 5 key */
    {"fs_idem_store", "UPDATE idempotency SET status = %s::integer, location = %s, body = %s "
                      "WHERE scope = %s AND key = %s AND status = 0 RETURNING 1"},

    /* 1 scope, 2 key: gives up a claim (the request failed: a retry with
     * the same key may run again) */
    {"fs_idem_release",
     "DELETE FROM idempotency WHERE scope = %s AND key = %s AND status = 0 RETURNING 1"},

    /* no arguments: removes a batch of records older than 24 hours */
    {"fs_idem_purge", "DELETE FROM idempotency WHERE ctid IN (SELECT ctid FROM idempotency "
                      "  WHERE created_at < now() - interval '24 hours' LIMIT 100) RETURNING 1"},

    {NULL, NULL}};
