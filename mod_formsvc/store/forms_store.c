/* The store of forms, submissions (the owner's side) and Idempotency-Key
 * records: the statements (argument order documented above each; all
 * arguments are text, cast in SQL) and the typed functions of
 * fs_store_forms.h that run them. The writes call the PL/pgSQL functions
 * of sql/0013_forms_api.sql and return (outcome, body). */
#include "fs_store_forms.h"
#include "store_int.h"

#include <apr_strings.h>
#include <string.h>

const fs_stmt fs_stmts_forms[] = {
    /* 1 form id, 2 user id, 3 slug, 4 title, 5 description, 6 fields json,
     * 7 settings json, 8 forms quota, 9 base URL */
    {"fs_form_create", 9,
     "SELECT outcome, body FROM fs_form_create(%s, %s, %s, %s, %s, %s::jsonb, %s::jsonb, "
     "  %s::integer, %s)"},

    /* 1 base URL, 2 form id, 3 user id: form json, version, fields,
     * settings, slug, title, description, effective status */
    {"fs_form_get", 3,
     "SELECT fs_form_json(f, %s)::text, f.version::text, f.fields::text, f.settings::text, "
     "  f.slug, f.title, f.description, fs_form_status(f) "
     "FROM forms f WHERE f.id = %s AND f.user_id = %s"},

    /* 1 base URL, 2 user id, 3-4 status (or NULL), 5-6 allowed form ids as
     * a JSON array (NULL: any), 7-8 after id (or NULL), 9 limit + 1 */
    {"fs_form_list", 9,
     "SELECT f.id, fs_form_json(f, %s)::text FROM forms f WHERE f.user_id = %s "
     "  AND (%s::text IS NULL OR fs_form_status(f) = %s::text) "
     "  AND (%s::jsonb IS NULL OR f.id IN (SELECT jsonb_array_elements_text(%s::jsonb))) "
     "  AND (%s::text IS NULL OR f.id < %s::text) "
     "ORDER BY f.id DESC LIMIT %s::integer"},

    /* 1 user id, 2 form id, 3 expected version, 4 slug, 5 title,
     * 6 description, 7 fields json, 8 settings json, 9 base URL */
    {"fs_form_save", 9,
     "SELECT outcome, body FROM fs_form_save(%s, %s, %s::integer, %s, %s, %s, %s::jsonb, "
     "  %s::jsonb, %s)"},

    /* 1 user id, 2 form id, 3 'publish' or 'close', 4 If-Match version (or
     * NULL), 5 base URL. The event's data is the form as the answer shows
     * it; form.closed adds reason "owner" (the form closed by itself says
     * closesAt or maxSubmissions, sql/0050). */
    {"fs_form_transition", 5,
     "WITH t AS (SELECT outcome, body FROM fs_form_transition(%s, %s, %s, %s::integer, %s)), "
     "ok AS MATERIALIZED (SELECT t.body::jsonb AS b FROM t WHERE t.outcome = 'ok'), "
     "ev AS (INSERT INTO events (id, user_id, type, form_id, payload) SELECT fs_new_id('evt_'), "
     "  f.user_id, 'form.' || (ok.b->>'status'), f.id, ok.b || CASE WHEN ok.b->>'status' = "
     "  'closed' THEN '{\"reason\": \"owner\"}'::jsonb ELSE '{}'::jsonb END FROM ok JOIN forms f "
     "  ON f.id = ok.b->>'id' RETURNING 1) "
     "SELECT outcome, body FROM t"},

    /* 1 form id, 2 user id, 3 If-Match version (or NULL), 4 the same:
     * (forms found, forms deleted) */
    {"fs_form_delete", 4,
     "WITH f AS (SELECT id, version FROM forms WHERE id = %s AND user_id = %s), "
     "d AS (DELETE FROM forms WHERE id = (SELECT id FROM f) "
     "  AND (%s::integer IS NULL OR version = %s::integer) RETURNING id), "
     /* its mail, waiting or sent (sql/0074): a resume URL, an ask, a
      * request to confirm notifications is not sent for a form that is gone */
     "o AS (DELETE FROM outbox WHERE form_id IN (SELECT id FROM d) RETURNING 1) "
     "SELECT (SELECT count(*) FROM f)::text, (SELECT count(*) FROM d)::text"},

    /* 1 form id, 2 user id, 3 include spam ('t'/'f'), 4-5 since (or NULL),
     * 6-7 until (or NULL), 8 after id (or NULL), 9-10 a respondent link's
     * id (or NULL: any), 11-12 the owner's status (or NULL), 13-14 a tag
     * (or NULL), 15-16 an ask's id (or NULL: any; the submission through
     * its link), 17 limit + 1. The window
     * is also an id range (ids begin with their time, sql/0044), always
     * given, so that every plan seeks submissions_form_id to the page.
     * Each bound is a scalar subquery: computed once per execution of the
     * generic plan (our sessions keep generic plans, fs_db.c), not once
     * per partition's index scan, each call of the SQL function being
     * planned anew (docs/performance.md, "Generic plans"). */
    {"fs_sub_list", 17,
     "SELECT s.id, fs_submission_json(s)::text FROM submissions s "
     "WHERE s.form_id = %s AND s.user_id = %s AND (%s = 't' OR NOT s.spam) "
     "  AND s.created_at >= COALESCE(%s::timestamptz, '-infinity') "
     "  AND s.id >= (SELECT fs_id_since('sub_', %s::timestamptz)) "
     "  AND s.created_at < COALESCE(%s::timestamptz, 'infinity') "
     "  AND s.id < (SELECT fs_id_before('sub_', %s::timestamptz, %s::text)) "
     "  AND (%s::text IS NULL OR s.link_id = %s::text) "
     "  AND (%s::text IS NULL OR s.owner_status = %s::text) "
     "  AND (%s::text IS NULL OR %s::text = ANY (s.tags)) "
     "  AND (%s::text IS NULL OR s.link_id = (SELECT a.link_id FROM asks a WHERE a.id = %s::text)) "
     "ORDER BY s.id DESC LIMIT %s::integer"},

    /* Custom plans for the next statement on this session, and back (the
     * first gives the setting it replaced to the second): fs_sub_export
     * runs once per batch of an export, on a prepared statement, and
     * every session forces generic plans (fs_db.c's session settings).
     * Once the table's statistics put few rows per form, that plan cannot
     * use the cursor
     * (its bounds are parameters): every batch then read and sorted all
     * the form's submissions before it (550 ms a batch at 460,000, an
     * export quadratic in its rows); a custom plan reads 500 rows by
     * the index (0.5 ms). */
    {"fs_plan_custom", 0,
     "SELECT current_setting('plan_cache_mode'), "
     "  set_config('plan_cache_mode', 'force_custom_plan', false)"},
    {"fs_plan_set", 1, "SELECT set_config('plan_cache_mode', %s, false)"},

    /* Same arguments as fs_sub_list; for the CSV export, in batches:
     * id, createdAt, formVersion, spam, data, link id and metadata, the
     * owner's status, tags (separated by spaces) and note, the ask whose
     * link it came through, the ending reached (sql/0058), what the server
     * calculated (sql/0062), the spam score (sql/0066) */
    {"fs_sub_export", 17,
     "SELECT s.id, fs_ts(s.created_at), s.form_version::text, s.spam::text, s.data::text, "
     "  s.link_id, s.link_metadata::text, s.owner_status, array_to_string(s.tags, ' '), s.note, "
     "  (SELECT a.id FROM asks a WHERE a.link_id = s.link_id), s.ending, s.calculated::text, "
     "  s.spam_score::text "
     "FROM submissions s "
     "WHERE s.form_id = %s AND s.user_id = %s AND (%s = 't' OR NOT s.spam) "
     "  AND s.created_at >= COALESCE(%s::timestamptz, '-infinity') "
     "  AND s.id >= (SELECT fs_id_since('sub_', %s::timestamptz)) "
     "  AND s.created_at < COALESCE(%s::timestamptz, 'infinity') "
     "  AND s.id < (SELECT fs_id_before('sub_', %s::timestamptz, %s::text)) "
     "  AND (%s::text IS NULL OR s.link_id = %s::text) "
     "  AND (%s::text IS NULL OR s.owner_status = %s::text) "
     "  AND (%s::text IS NULL OR %s::text = ANY (s.tags)) "
     "  AND (%s::text IS NULL OR s.link_id = (SELECT a.link_id FROM asks a WHERE a.id = %s::text)) "
     "ORDER BY s.id DESC LIMIT %s::integer"},

    /* 1 submission id, 2 form id, 3 user id */
    {"fs_sub_get", 3,
     "SELECT fs_submission_json(s)::text FROM submissions s "
     "WHERE s.id = %s AND s.form_id = %s AND s.user_id = %s"},

    /* 1 submission id, 2 form id, 3 user id: rows deleted. The form's
     * submissionCount drops when the submission was not spam (a -1 in
     * submission_tally, sql/0024; the month's count keeps it). */
    {"fs_sub_delete", 3,
     "WITH d AS (DELETE FROM submissions WHERE id = %s AND form_id = %s AND user_id = %s "
     "  RETURNING form_id, user_id, spam), "
     "u AS (INSERT INTO submission_tally (form_id, user_id, month, n) "
     "  SELECT d.form_id, d.user_id, NULL, -1 FROM d WHERE NOT d.spam RETURNING 1) "
     "SELECT (SELECT count(*) FROM d)::text, (SELECT count(*) FROM u)::text"},

    /* The owner's change of a submission's state (sql/0050): 1 submission
     * id, 2 form id, 3 user id, 4 the version it must have, 5 status (or
     * NULL: unchanged), 6-7 tags as a JSON array (or NULL), 8 change the
     * note ('t'/'f'), 9 the note (NULL clears), 10-12 submission, form and
     * user id again. Writes the submission.updated event in the same
     * statement. Returns the version before (NULL: no such submission) and
     * the changed submission's JSON (NULL: the version did not match). */
    {"fs_sub_update", 12,
     "WITH u AS (UPDATE submissions s SET owner_status = COALESCE(%s::text, s.owner_status), "
     "  tags = CASE WHEN %s::jsonb IS NULL THEN s.tags "
     "    ELSE ARRAY(SELECT jsonb_array_elements_text(%s::jsonb)) END, "
     "  note = CASE WHEN %s::boolean THEN %s::text ELSE s.note END, "
     "  owner_version = s.owner_version + 1, owner_updated_at = clock_timestamp() "
     "  WHERE s.id = %s AND s.form_id = %s AND s.user_id = %s AND s.owner_version = %s::integer "
     "  RETURNING s.*), "
     "ev AS (INSERT INTO events (id, user_id, type, form_id, submission_id, payload) "
     "  SELECT fs_new_id('evt_'), u.user_id, 'submission.updated', u.form_id, u.id, "
     "  fs_submission_json(u)::jsonb FROM u RETURNING 1), "
     "m AS (INSERT INTO submission_state_forms (form_id) SELECT u.form_id FROM u "
     "  ON CONFLICT DO NOTHING RETURNING 1) "
     "SELECT (SELECT s.owner_version::text FROM submissions s WHERE s.id = %s AND s.form_id = %s "
     "  AND s.user_id = %s), (SELECT fs_submission_json(u)::text FROM u)"},

    /* 1 form id: one row when the owner ever changed a submission of it */
    {"fs_sub_state_any", 1, "SELECT 1 FROM submission_state_forms WHERE form_id = %s"},

    /* 1 scope, 2 key, 3 request fingerprint, 4 scope, 5 key. Run inside
     * the request's transaction (http/idempotency.c): the claim commits
     * with the work and its answer, or not at all. One row when the key is
     * ours to use now (new, expired after 24 h, or left in progress for a
     * minute by a module that claimed in a statement of its own); zero rows
     * when a live record holds it, or when another transaction holds the
     * key's advisory lock (a request with this key in progress: answered
     * 409 at once rather than waiting for its row). */
    {"fs_idem_claim", 5,
     "INSERT INTO idempotency AS i (scope, key, request_hash, status, body) "
     "SELECT %s, %s, %s, 0, '' "
     "WHERE pg_try_advisory_xact_lock(hashtextextended('idempotency' || chr(10) || %s "
     "  || chr(10) || %s, 0)) "
     "ON CONFLICT (scope, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, "
     "  status = 0, location = NULL, body = '', created_at = now() "
     "  WHERE i.created_at < now() - interval '24 hours' "
     "     OR (i.status = 0 AND i.created_at < now() - interval '1 minute') "
     "RETURNING 'claimed'"},

    /* 1 scope, 2 key: fingerprint, status (0: in progress), location, body */
    {"fs_idem_get", 2,
     "SELECT request_hash, status::text, location, body FROM idempotency "
     "WHERE scope = %s AND key = %s AND created_at >= now() - interval '24 hours'"},

    /* 1 status, 2 location, 3 sealed body, 4 scope, 5 key: the answer of
     * a claim, in the transaction that claimed it */
    {"fs_idem_store", 5,
     "UPDATE idempotency SET status = %s::integer, location = %s, body = %s "
     "WHERE scope = %s AND key = %s AND status = 0 RETURNING 1"},

    /* no arguments: removes a batch of records older than 24 hours */
    {"fs_idem_purge", 0,
     "DELETE FROM idempotency WHERE ctid IN (SELECT ctid FROM idempotency "
     "  WHERE created_at < now() - interval '24 hours' LIMIT 100) RETURNING 1"},

    {NULL, 0, NULL}};

fs_error *fs_store_form_get(fs_store *st, const char *base_url, const char *form_id,
                            const char *user_id, fs_form_row **out) {
    const char *args[] = {base_url, form_id, user_id};
    fs_rows *rs;
    *out = NULL;
    fs_error *e = FS_RUN(st, "fs_form_get", args, 8, &rs);
    if (e || rs->nrows != 1)
        return e;
    fs_form_row *f = apr_pcalloc(st->pool, sizeof(*f));
    f->json = FS_CELL(rs, 0, 0);
    f->version = fs_cell_int(FS_CELL(rs, 0, 1));
    f->fields = FS_CELL(rs, 0, 2);
    f->settings = FS_CELL(rs, 0, 3);
    f->slug = FS_CELL(rs, 0, 4);
    f->title = FS_CELL(rs, 0, 5);
    f->description = FS_CELL(rs, 0, 6);
    f->status = FS_CELL(rs, 0, 7);
    *out = f;
    return NULL;
}

fs_error *fs_store_form_list(fs_store *st, const char *base_url, const char *user_id,
                             const char *status, const char *forms_json, const char *after,
                             int limit, fs_list_page *out) {
    const char *args[] = {base_url, user_id,    status,
                          status,   forms_json, forms_json,
                          after,    after,      FS_ARG_INT(st->pool, limit + 1)};
    return FS_LIST(st, "fs_form_list", args, limit, out);
}

/* (outcome, body) of the form writes, as fs_form_write; e (the run's
 * error, passed through) or no row leaves FS_FORM_MISSING. */
static fs_error *form_write(fs_error *e, const fs_rows *rs, fs_form_write *out) {
    memset(out, 0, sizeof(*out));
    out->outcome = FS_FORM_MISSING;
    if (e || rs->nrows != 1 || !FS_CELL(rs, 0, 0))
        return e;
    const char *o = FS_CELL(rs, 0, 0), *body = FS_CELL(rs, 0, 1);
    if (!strcmp(o, "ok")) {
        out->outcome = FS_FORM_OK;
        out->json = body;
    } else if (!strcmp(o, "stale")) {
        out->outcome = FS_FORM_STALE;
        out->version = fs_cell_int(body);
    } else if (!strcmp(o, "slug-taken")) {
        out->outcome = FS_FORM_SLUG_TAKEN;
    } else if (!strcmp(o, "quota")) {
        out->outcome = FS_FORM_QUOTA;
        out->used = fs_cell_int(body);
    } else if (!strcmp(o, "invalid-state")) {
        out->outcome = FS_FORM_INVALID_STATE;
        out->detail = body;
    }
    return NULL;
}

fs_error *fs_store_form_create(fs_store *st, const char *base_url, const char *form_id,
                               const char *user_id, const fs_form_state *s, int quota,
                               fs_form_write *out) {
    const char *args[] = {
        form_id,        user_id,        s->slug,          s->title,
        s->description, s->fields_json, s->settings_json, FS_ARG_INT(st->pool, quota),
        base_url};
    fs_rows *rs;
    fs_error *e = FS_RUN(st, "fs_form_create", args, 2, &rs);
    return form_write(e, rs, out);
}

fs_error *fs_store_form_save(fs_store *st, const char *base_url, const char *user_id,
                             const char *form_id, int version, const fs_form_state *s,
                             fs_form_write *out) {
    const char *args[] = {user_id,        form_id,          FS_ARG_INT(st->pool, version),
                          s->slug,        s->title,         s->description,
                          s->fields_json, s->settings_json, base_url};
    fs_rows *rs;
    fs_error *e = FS_RUN(st, "fs_form_save", args, 2, &rs);
    return form_write(e, rs, out);
}

fs_error *fs_store_form_transition(fs_store *st, const char *base_url, const char *user_id,
                                   const char *form_id, const char *action, int if_match,
                                   fs_form_write *out) {
    const char *args[] = {user_id, form_id, action,
                          if_match ? FS_ARG_INT(st->pool, if_match) : NULL, base_url};
    fs_rows *rs;
    fs_error *e = FS_RUN(st, "fs_form_transition", args, 2, &rs);
    return form_write(e, rs, out);
}

fs_error *fs_store_form_delete(fs_store *st, const char *user_id, const char *form_id, int if_match,
                               int *found, int *deleted) {
    const char *v = if_match ? FS_ARG_INT(st->pool, if_match) : NULL;
    const char *args[] = {form_id, user_id, v, v};
    fs_rows *rs;
    *found = *deleted = 0;
    fs_error *e = FS_RUN(st, "fs_form_delete", args, 2, &rs);
    if (e || rs->nrows != 1)
        return e;
    *found = fs_cell_int(FS_CELL(rs, 0, 0)) > 0;
    *deleted = fs_cell_int(FS_CELL(rs, 0, 1)) > 0;
    return NULL;
}

fs_error *fs_store_sub_list(fs_store *st, const fs_sub_filter *f, const char *after, int limit,
                            fs_list_page *out) {
    const char *args[] = {f->form_id,
                          f->user_id,
                          FS_ARG_BOOL(f->spam),
                          f->since,
                          f->since,
                          f->until,
                          f->until,
                          after,
                          f->link_id,
                          f->link_id,
                          f->status,
                          f->status,
                          f->tag,
                          f->tag,
                          f->ask_id,
                          f->ask_id,
                          FS_ARG_INT(st->pool, limit + 1)};
    return FS_LIST(st, "fs_sub_list", args, limit, out);
}

fs_error *fs_store_sub_export(fs_store *st, const fs_sub_filter *f, const char *after, int batch,
                              fs_sub_batch *out) {
    const char *args[] = {f->form_id,
                          f->user_id,
                          FS_ARG_BOOL(f->spam),
                          f->since,
                          f->since,
                          f->until,
                          f->until,
                          after,
                          f->link_id,
                          f->link_id,
                          f->status,
                          f->status,
                          f->tag,
                          f->tag,
                          f->ask_id,
                          f->ask_id,
                          FS_ARG_INT(st->pool, batch)};
    fs_rows *rs, *plan;
    out->n = 0;
    out->rows = NULL;
    fs_error *e = fs_store_run(st, "fs_plan_custom", 0, NULL, 2, &plan);
    if (e)
        return e;
    const char *was = plan->nrows == 1 ? FS_CELL(plan, 0, 0) : NULL;
    e = FS_RUN(st, "fs_sub_export", args, 14, &rs);
    if (was) { /* the session as it was for what it serves next */
        const char *back[] = {was};
        fs_rows *ignored;
        fs_error *e2 = FS_RUN(st, "fs_plan_set", back, 1, &ignored);
        if (!e)
            e = e2;
    }
    if (e)
        return e;
    out->rows = apr_pcalloc(st->pool, sizeof(fs_sub_export_row) * (apr_size_t)(rs->nrows + 1));
    for (int i = 0; i < rs->nrows; i++) {
        fs_sub_export_row *x = &out->rows[i];
        x->id = FS_CELL(rs, i, 0);
        x->created_at = FS_CELL(rs, i, 1);
        x->form_version = FS_CELL(rs, i, 2);
        x->spam = fs_cell_bool(FS_CELL(rs, i, 3));
        x->data = FS_CELL(rs, i, 4);
        x->link_id = FS_CELL(rs, i, 5);
        x->link_metadata = FS_CELL(rs, i, 6);
        x->status = FS_CELL(rs, i, 7);
        x->tags = FS_CELL(rs, i, 8);
        x->note = FS_CELL(rs, i, 9);
        x->ask_id = FS_CELL(rs, i, 10);
        x->ending = FS_CELL(rs, i, 11);
        x->calculated = FS_CELL(rs, i, 12);
        x->spam_score = FS_CELL(rs, i, 13);
    }
    out->n = rs->nrows;
    return NULL;
}

fs_error *fs_store_sub_get(fs_store *st, const char *user_id, const char *form_id,
                           const char *sub_id, const char **json) {
    const char *args[] = {sub_id, form_id, user_id};
    return FS_ONE(st, "fs_sub_get", args, json);
}

fs_error *fs_store_sub_delete(fs_store *st, const char *user_id, const char *form_id,
                              const char *sub_id, int *deleted) {
    const char *args[] = {sub_id, form_id, user_id};
    fs_rows *rs;
    *deleted = 0;
    fs_error *e = FS_RUN(st, "fs_sub_delete", args, 2, &rs);
    if (!e && rs->nrows == 1)
        *deleted = fs_cell_int(FS_CELL(rs, 0, 0)) > 0;
    return e;
}

fs_error *fs_store_idem_claim(fs_store *st, const char *scope, const char *key,
                              const char *fingerprint, int *claimed) {
    const char *args[] = {scope, key, fingerprint, scope, key};
    int n;
    fs_error *e = FS_COUNT(st, "fs_idem_claim", args, 1, &n);
    *claimed = n == 1;
    return e;
}

/* The four columns of an Idempotency-Key record. */
fs_idem_record *fs_store_idem_row(apr_pool_t *p, const fs_rows *rs) {
    fs_idem_record *x = apr_pcalloc(p, sizeof(*x));
    x->request_hash = FS_CELL(rs, 0, 0);
    x->status = fs_cell_int(FS_CELL(rs, 0, 1));
    x->location = FS_CELL(rs, 0, 2);
    x->body = FS_CELL(rs, 0, 3);
    return x;
}

fs_error *fs_store_idem_get(fs_store *st, const char *scope, const char *key,
                            fs_idem_record **out) {
    const char *args[] = {scope, key};
    fs_rows *rs;
    *out = NULL;
    fs_error *e = FS_RUN(st, "fs_idem_get", args, 4, &rs);
    if (!e && rs->nrows == 1)
        *out = fs_store_idem_row(st->pool, rs);
    return e;
}

fs_error *fs_store_idem_store(fs_store *st, const char *scope, const char *key, int status,
                              const char *location, const char *sealed_body, int *stored) {
    const char *args[] = {FS_ARG_INT(st->pool, status), location, sealed_body, scope, key};
    int n;
    fs_error *e = FS_COUNT(st, "fs_idem_store", args, 1, &n);
    *stored = n == 1;
    return e;
}

fs_error *fs_store_idem_purge(fs_store *st) {
    fs_rows *rs;
    return fs_store_run(st, "fs_idem_purge", 0, NULL, 1, &rs);
}

fs_error *fs_store_sub_update(fs_store *st, const char *user_id, const char *form_id,
                              const char *sub_id, int version, const fs_owner_change *c,
                              int *before, const char **json) {
    const char *ver = FS_ARG_INT(st->pool, version);
    /* the UPDATE's arguments come in the order of its SET and WHERE */
    const char *args[] = {c->status, c->tags_json, c->tags_json, FS_ARG_BOOL(c->note_set),
                          c->note,   sub_id,       form_id,      user_id,
                          ver,       sub_id,       form_id,      user_id};
    fs_rows *rs;
    *before = 0;
    *json = NULL;
    fs_error *e = FS_RUN(st, "fs_sub_update", args, 2, &rs);
    if (e || rs->nrows != 1)
        return e;
    const char *b = FS_CELL(rs, 0, 0);
    *before = b ? fs_cell_int(b) : 0;
    *json = FS_CELL(rs, 0, 1);
    return NULL;
}

fs_error *fs_store_sub_state_any(fs_store *st, const char *form_id, int *any) {
    const char *args[] = {form_id};
    int n = 0;
    fs_error *e = FS_COUNT(st, "fs_sub_state_any", args, 1, &n);
    *any = n > 0;
    return e;
}
