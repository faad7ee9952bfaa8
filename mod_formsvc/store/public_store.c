/* The store of the public form side, /f/{id}: the statements (all
 * arguments are text, cast in SQL) and the typed functions of
 * fs_store_public.h that run them. */
#include "fs_store_public.h"
#include "store_int.h"

#include <apr_strings.h>
#include <string.h>

/* A submission through a link (sql/0027): its state, decided with the
 * link row locked until commit (fs_link_admit_locked), so that a link's
 * maxUses is exact; 'ok' without a link. Evaluated after CLOSED in the
 * same row, so every submission takes the form's lock (if any) before
 * the link's. */
#define LINK_STATE                                                                                 \
    "CASE WHEN a.link_id IS NULL THEN 'ok' "                                                       \
    "ELSE fs_link_admit_locked(a.link_id, a.form_id, a.ikey) END"
/* The link's metadata, and a submission's linkId and metadata as a jsonb
 * to append (nothing without a link): from the stored row (s), for the
 * owner's event. The respondent's answer (and so its Idempotency-Key
 * replay) gains the linkId only: the metadata is the owner's, never
 * shown to the person who holds the link (from the arguments, a). */
#define LINK_META_A "(SELECT l.metadata FROM links l WHERE l.id = a.link_id)"
#define LINK_ID_A                                                                                  \
    "CASE WHEN a.link_id IS NULL THEN '{}'::jsonb "                                                \
    "ELSE jsonb_build_object('linkId', a.link_id) END"
#define LINK_ID_S                                                                                  \
    "CASE WHEN s.link_id IS NULL THEN '{}'::jsonb "                                                \
    "ELSE jsonb_build_object('linkId', s.link_id) END"
#define LINK_MEMBERS_S                                                                             \
    "CASE WHEN s.link_id IS NULL THEN '{}'::jsonb "                                                \
    "ELSE jsonb_build_object('linkId', s.link_id, 'metadata', s.link_metadata) END"

/* Completing a partial (sql/0059): the 18th argument is its id; the
 * submission is stored (under the partial's id, unless files chose
 * another) only when no submission has that id yet, so a second
 * completion stores nothing ('replay'); the partial row goes in the same
 * statement, and a submission.completed event follows its
 * submission.created. */
#define PARTIAL_PID "%s::text AS pid, "
/* fs_erasure_gate (sql/0075): the account's erasure lock, shared, held to
 * the commit, so that an erasure (POST /v1/erasures, which takes it
 * before its statement) sees this completion or comes before it. */
#define PARTIAL_GUARD                                                                              \
    "AND NOT EXISTS (SELECT 1 FROM submissions x WHERE x.id = a.sid) "                             \
    "AND fs_erasure_gate(go.user_id)"
#define PARTIAL_MORE                                                                               \
    ", pd AS (DELETE FROM submission_partials p USING a, s WHERE p.id = a.pid "                    \
    "  AND p.form_id = s.form_id RETURNING 1), "                                                   \
    "ce AS (INSERT INTO events (id, user_id, type, form_id, submission_id, payload) "              \
    "  SELECT fs_new_id('evt_'), s.user_id, 'submission.completed', s.form_id, s.id, "             \
    "  " EVENT_PAYLOAD " || " LINK_MEMBERS_S " || " ENDING_S " || " CALC_S " || " SPAM_SCORE_S     \
    " || " UNCHECKED_S " FROM s WHERE NOT s.spam RETURNING 1) "

/* What the single and the batch statements say alike about a stored
 * submission s: its UTC month, its event's payload, the answer's body,
 * and the seconds to the end of the month (the quota's Retry-After). */
#define MONTH_NOW "(date_trunc('month', now() AT TIME ZONE 'UTC'))::date"
#define EVENT_PAYLOAD                                                                              \
    "jsonb_build_object('id', s.id, 'formId', s.form_id, 'formVersion', s.form_version, "          \
    "'data', s.data, 'spam', s.spam, 'createdAt', fs_ts(s.created_at))"
#define ANSWER_JSON                                                                                \
    "jsonb_build_object('id', s.id, 'formId', s.form_id, 'createdAt', fs_ts(s.created_at), "       \
    "'data', s.data)"
/* The ending a submission reached (settings.endings), appended only when
 * it has one: from the stored row (s), or the arguments (a). */
#define ENDING_S                                                                                   \
    "CASE WHEN s.ending IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('ending', s.ending) END"
#define ENDING_A                                                                                   \
    "CASE WHEN a.ending IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('ending', a.ending) END"
/* What the server calculated from the answers (scores and variables,
 * sql/0062), appended only when it did: the owner's, from s; the
 * respondent's answer gets what the form shows them (a.shown: the score
 * with settings.showScore, never the variables). */
#define CALC_S                                                                                     \
    "CASE WHEN s.calculated IS NULL THEN '{}'::jsonb "                                             \
    "ELSE jsonb_build_object('calculated', s.calculated) END"
/* the same from the batch statement's item (r.shown) */
#define SHOWN_R                                                                                    \
    "CASE WHEN r.shown IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('calculated', r.shown) "   \
    "END"
#define SHOWN_A                                                                                    \
    "CASE WHEN a.shown IS NULL THEN '{}'::jsonb ELSE jsonb_build_object('calculated', a.shown) "   \
    "END"
/* The spam score of a stored submission (sql/0066) for its event,
 * appended only when it has one. */
#define SPAM_SCORE_S                                                                               \
    "CASE WHEN s.spam_score IS NULL THEN '{}'::jsonb "                                             \
    "ELSE jsonb_build_object('spamScore', s.spam_score) END"
/* A submission stored although its bot check could not be made
 * (FormsvcCaptchaFailOpen; sql/0068), for its events. */
#define UNCHECKED_S                                                                                \
    "CASE WHEN s.captcha_unchecked IS NOT TRUE THEN '{}'::jsonb ELSE "                             \
    "jsonb_build_object('captchaUnchecked', true) END"
#define MONTH_LEFT                                                                                 \
    "GREATEST(1, extract(epoch FROM (date_trunc('month', now() AT TIME ZONE 'UTC') "               \
    "  + interval '1 month') - (now() AT TIME ZONE 'UTC'))::bigint)::text"

/* The statement of fs_public_submit(_locked), with CLOSED the expression
 * that decides whether the form f takes no more submissions and LEFT how
 * many it still takes before this one (NULL: no maxSubmissions, or not
 * counted): a non-spam submission stored when LEFT is 1 fills the form,
 * and the statement writes its form.closed event (reason maxSubmissions,
 * sql/0050). */
#define SUBMIT_SQL(CLOSED, LEFT) SUBMIT_SQL_OF(CLOSED, LEFT, "", "", "")
/* The same with PID a 20th argument of the CTE a (the partial it
 * completes), S_GUARD a condition on the submission's insert and MORE
 * further CTEs (each beginning with a comma). */
#define SUBMIT_SQL_OF(CLOSED, LEFT, PID, S_GUARD, MORE)                                            \
    "WITH a AS (SELECT %s::text AS form_id, %s::text AS sid, %s::jsonb AS data, "                  \
    "  %s::boolean AS spam, %s::integer AS qu, %s::integer AS qv, %s::text AS ikey, "              \
    "  %s::text AS ihash, %s::integer AS istatus, %s::text AS iloc, %s::text AS link_id, "         \
    "  %s::text AS uhash, %s::integer AS ver, %s::text AS evid, %s::text AS ending, "              \
    "  %s::jsonb AS calc, %s::jsonb AS shown, %s::smallint AS spam_score, "                        \
    "  %s::boolean AS unchecked, " PID "  " MONTH_NOW " AS month), "                               \
    "f AS (SELECT f.id, f.user_id, f.version, " CLOSED " AS closed, " LEFT " AS left_n, "          \
    "  CASE WHEN u.verified THEN a.qv ELSE a.qu END AS quota, " LINK_STATE " AS link "             \
    "  FROM forms f JOIN users u ON u.id = f.user_id, a "                                          \
    "  WHERE f.id = a.form_id AND f.status IN ('published', 'closed') "                            \
    "    AND f.deleted_at IS NULL), "                                                              \
    "ok AS (SELECT f.* FROM f, a WHERE NOT f.closed AND f.link = 'ok' "                            \
    "  AND (a.ver IS NULL OR f.version = a.ver) "                                                  \
    "  AND (a.uhash IS NULL OR fs_submission_unique(f.id, a.uhash))), "                            \
    "go AS (SELECT ok.* FROM ok, a WHERE a.spam "                                                  \
    "  OR fs_month_under(ok.user_id, a.month, ok.quota)), "                                        \
    "i AS (INSERT INTO idempotency (scope, key, request_hash, status, location, body) "            \
    "  SELECT go.id, a.ikey, a.ihash, a.istatus, a.iloc, (jsonb_build_object('id', a.sid, "        \
    "    'formId', go.id, 'createdAt', fs_ts(now()), 'data', a.data) || " LINK_ID_A                \
    "    || " ENDING_A " || " SHOWN_A ")::text "                                                   \
    "  FROM go, a WHERE a.ikey IS NOT NULL "                                                       \
    "  ON CONFLICT (scope, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, "              \
    "    status = EXCLUDED.status, location = EXCLUDED.location, body = EXCLUDED.body, "           \
    "    created_at = now() WHERE idempotency.created_at < now() - interval '24 hours' "           \
    "  RETURNING 1), "                                                                             \
    "s AS (INSERT INTO submissions (id, form_id, user_id, form_version, data, spam, created_at, "  \
    "  link_id, link_metadata, uniq_hash, ending, calculated, spam_score, captcha_unchecked) "     \
    "  SELECT a.sid, go.id, go.user_id, go.version, a.data, a.spam, now(), a.link_id, "            \
    "  " LINK_META_A ", a.uhash, a.ending, a.calc, a.spam_score, a.unchecked FROM go, a "          \
    "  WHERE (a.ikey IS NULL OR EXISTS (SELECT 1 FROM i)) " S_GUARD " RETURNING *), "              \
    "lu AS (UPDATE links l SET uses = l.uses + 1 FROM s WHERE l.id = s.link_id RETURNING 1), "     \
    "t AS (INSERT INTO submission_tally (form_id, user_id, month, n) "                             \
    "  SELECT s.form_id, s.user_id, a.month, 1 FROM s, a WHERE NOT s.spam RETURNING 1), "          \
    "ev AS (INSERT INTO events (id, user_id, type, form_id, submission_id, payload) "              \
    "  SELECT a.evid, s.user_id, 'submission.created', s.form_id, s.id, "                          \
    "  " EVENT_PAYLOAD " || " LINK_MEMBERS_S " || " ENDING_S " || " CALC_S " || " SPAM_SCORE_S     \
    " || " UNCHECKED_S "  FROM s, a WHERE NOT s.spam RETURNING 1), "                               \
    "fc AS (INSERT INTO events (id, user_id, type, form_id, payload) "                             \
    "  SELECT fs_new_id('evt_'), s.user_id, 'form.closed', s.form_id, "                            \
    "  fs_form_closed_json(fo, 'maxSubmissions', fs_public_max_submissions(fo.settings)::bigint) " \
    "  FROM s JOIN f ON f.id = s.form_id JOIN forms fo ON fo.id = s.form_id "                      \
    "  WHERE NOT s.spam AND f.left_n = 1 RETURNING 1) " MORE                                       \
    "SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM f) THEN 'gone' "                                   \
    "  WHEN (SELECT version FROM f) <> (SELECT ver FROM a) THEN 'stale' "                          \
    "  WHEN (SELECT closed FROM f) THEN 'closed' "                                                 \
    "  WHEN (SELECT link FROM f) <> 'ok' THEN 'link-' || (SELECT link FROM f) "                    \
    "  WHEN NOT EXISTS (SELECT 1 FROM ok) THEN 'duplicate' "                                       \
    "  WHEN NOT EXISTS (SELECT 1 FROM go) THEN 'quota' "                                           \
    "  WHEN NOT EXISTS (SELECT 1 FROM s) THEN 'replay' ELSE 'ok' END, "                            \
    "  (SELECT (" ANSWER_JSON " || " LINK_ID_S " || " ENDING_S " || " SHOWN_A ")::text "           \
    "  FROM s, a), "                                                                               \
    "  " MONTH_LEFT ", "                                                                           \
    "  (SELECT count(*) FROM t)::text"

const fs_stmt fs_stmts_public[] = {
    /* 1 id or slug. A published or closed form: id, slug, title,
     * description, public status ('deleted' when its account is being
     * erased, sql/0042), version, fields, settings. */
    {"fs_public_form", 2,
     "SELECT f.id, f.slug, f.title, f.description, "
     "  CASE WHEN f.deleted_at IS NULL THEN fs_public_status(f) ELSE 'deleted' END, "
     "  f.version::text, "
     "  f.fields::text, f.settings::text "
     "FROM forms f WHERE (f.id = %s OR f.slug = %s) AND f.status IN ('published', 'closed')"},

    /* 1 scope (form id), 2 key: an Idempotency-Key record of the last 24 h:
     * request hash, status, location, body. */
    {"fs_public_idem_get", 2,
     "SELECT request_hash, status::text, location, body FROM idempotency "
     "WHERE scope = %s AND key = %s AND created_at > now() - interval '24 hours'"},

    /* Stores one public submission, atomically with everything it implies:
     * 1 form id, 2 submission id, 3 data (json), 4 spam ('t'/'f'),
     * 5 monthly quota unverified, 6 verified, 7 Idempotency-Key (or NULL),
     * 8 request hash, 9 status to replay, 10 location to replay, 11 link id
     * (or NULL: not through a link), 12 the uniqueBy hash (or NULL:
     * fs_submission_unique, sql/0026), 13 the form version the answers
     * were checked against (or NULL: not compared), 14 the event's id
     * (made in C: fs_new_id in plpgsql cost a tenth of the statement),
     * 15 the key of the ending reached (or NULL: settings.endings, sql/0058),
     * 16 what the server calculated (json, or NULL: fs_scores.h, sql/0062),
     * 17 what of it the respondent's answer shows (json, or NULL),
     * 18 the spam score (0..100, or NULL: not computed; sql/0066),
     * 19 true when its bot check could not be made (else NULL; sql/0068).
     * Only appends (submission, event, a +1 in submission_tally for
     * non-spam): no row that concurrent submissions share is written, so
     * none waits for another's commit (sql/0024). The monthly quota reads
     * fs_month_under (sql/0029) without a lock, so concurrent submissions of
     * one account may pass it by at most the number in flight; the form's
     * maxSubmissions is exact (see the locked variant).
     * A submission through a link queues on the link's row and raises its
     * uses (sql/0027): a link's maxUses is exact.
     * Returns: outcome (ok | gone | stale | closed | link-used | link-expired |
     * duplicate | quota | replay), the
     * submission json, seconds to the end of the month (UTC), and whether
     * the form's count grew. */
    {"fs_public_submit", 19, SUBMIT_SQL("fs_public_status(f) <> 'published'", "NULL::bigint")},
    /* the same for forms with maxSubmissions: fs_public_closed_locked
     * (sql/0020) locks the form row until commit and only then counts, in
     * a fresh snapshot, so concurrent submissions cannot pass the limit
     * (a count read in this statement's own snapshot would miss the
     * submissions that commit while it waits for the lock). */
    {"fs_public_submit_locked", 19,
     SUBMIT_SQL("fs_public_closed_locked(f.id, a.ikey)", "fs_public_left_locked(f.id)")},

    /* the same two, completing the partial named by a 20th argument
     * (PARTIAL_MORE) */
    {"fs_public_submit_partial", 20,
     SUBMIT_SQL_OF("fs_public_status(f) <> 'published'", "NULL::bigint", PARTIAL_PID, PARTIAL_GUARD,
                   PARTIAL_MORE)},
    {"fs_public_submit_partial_locked", 20,
     SUBMIT_SQL_OF("fs_public_closed_locked(f.id, a.ikey)", "fs_public_left_locked(f.id)",
                   PARTIAL_PID, PARTIAL_GUARD, PARTIAL_MORE)},

    /* Stores a batch of plain submissions (no maxSubmissions,
     * Idempotency-Key, link or uniqueBy: fs_store_public_submit_batch) in
     * one statement and one commit: 1 a JSON array of {sid, evid, form,
     * data, spam, score, ver, qu, qv} (see the single statement for what each
     * is). Each row as it would be alone: checked against its form's
     * state and version and its owner's quota (in this statement's one
     * snapshot: a batch passes the quota by at most its size, as
     * concurrent single statements do), then the submission, its event
     * and the tally (one row per form of the batch). Returns per item, in
     * order: position (1-based), outcome (ok | gone | stale | closed |
     * quota), the submission json, seconds to the end of the month. */
    {"fs_public_submit_batch", 1,
     "WITH r AS (SELECT x.ord::integer AS ord, x.e ->> 'sid' AS sid, x.e ->> 'evid' AS evid, "
     "  x.e ->> 'form' AS form_id, x.e -> 'data' AS data, (x.e ->> 'spam')::boolean AS spam, "
     "  (x.e ->> 'ver')::integer AS ver, (x.e ->> 'qu')::integer AS qu, "
     "  (x.e ->> 'qv')::integer AS qv, (x.e ->> 'score')::smallint AS spam_score, "
     "  x.e ->> 'ending' AS ending, x.e -> 'calc' AS calc, x.e -> 'shown' AS shown, "
     "  (x.e ->> 'unchecked')::boolean AS unchecked "
     "  FROM jsonb_array_elements(%s::jsonb) WITH ORDINALITY AS x(e, ord)), "
     "m AS (SELECT " MONTH_NOW " AS month), "
     "f AS (SELECT r.*, f.user_id, f.version, fs_public_status(f) <> 'published' AS closed, "
     "  CASE WHEN u.verified THEN r.qv ELSE r.qu END AS quota "
     "  FROM r JOIN forms f ON f.id = r.form_id AND f.status IN ('published', 'closed') "
     "    AND f.deleted_at IS NULL "
     "  JOIN users u ON u.id = f.user_id), "
     "go AS (SELECT f.* FROM f, m WHERE NOT f.closed AND (f.ver IS NULL OR f.version = f.ver) "
     "  AND (f.spam OR fs_month_under(f.user_id, m.month, f.quota))), "
     "s AS (INSERT INTO submissions (id, form_id, user_id, form_version, data, spam, created_at, "
     "  spam_score, ending, calculated, captcha_unchecked) "
     "  SELECT go.sid, go.form_id, go.user_id, go.version, go.data, go.spam, now(), go.spam_score, "
     "  go.ending, go.calc, go.unchecked "
     "  FROM go RETURNING id, form_id, user_id, form_version, data, spam, created_at, spam_score, "
     "  ending, calculated, captcha_unchecked), "
     "t AS (INSERT INTO submission_tally (form_id, user_id, month, n) "
     "  SELECT s.form_id, s.user_id, m.month, count(*) FROM s, m WHERE NOT s.spam "
     "  GROUP BY s.form_id, s.user_id, m.month RETURNING 1), "
     "ev AS (INSERT INTO events (id, user_id, type, form_id, submission_id, payload) "
     "  SELECT go.evid, s.user_id, 'submission.created', s.form_id, s.id, " EVENT_PAYLOAD
     "  || " ENDING_S " || " CALC_S " || " SPAM_SCORE_S " || " UNCHECKED_S
     "  FROM s JOIN go ON go.sid = s.id WHERE NOT s.spam RETURNING 1) "
     "SELECT r.ord::text, CASE WHEN f.sid IS NULL THEN 'gone' "
     "  WHEN f.ver IS NOT NULL AND f.version <> f.ver THEN 'stale' "
     "  WHEN f.closed THEN 'closed' WHEN s.id IS NULL THEN 'quota' ELSE 'ok' END, "
     "  CASE WHEN s.id IS NOT NULL THEN (" ANSWER_JSON " || " ENDING_S " || " SHOWN_R
     ")::text END, " MONTH_LEFT " "
     "FROM r LEFT JOIN f ON f.sid = r.sid LEFT JOIN s ON s.id = r.sid ORDER BY r.ord"},

    /* 1 most rows to move. Rolls the submission tally into the counters
     * (sql/0024): rows moved, or -1 when another session is rolling up. */
    {"fs_tally_rollup", 1, "SELECT fs_tally_rollup(%s::integer)::text"},

    /* 1 most forms: form.closed events written for forms whose closesAt
     * passed (sql/0050; once per cluster) */
    {"fs_form_closings_emit", 1, "SELECT fs_form_closings_emit(%s::integer)::text"},
    /* 1 seconds ahead: milliseconds to the next closesAt within them, or
     * -1 (fs_store_int reads SQL NULL as 0, which the worker took for a
     * moment due now: it asked again every few milliseconds) */
    {"fs_form_closings_next", 1,
     "SELECT COALESCE(ceil(fs_form_closings_next(%s::float8) * 1000)::integer, -1)::text"},

    {NULL, 0, NULL}};

fs_error *fs_store_public_form(fs_store *st, const char *ref, fs_public_form **out) {
    const char *args[] = {ref, ref};
    fs_rows *rs;
    *out = NULL;
    fs_error *e = FS_RUN(st, "fs_public_form", args, 8, &rs);
    if (e || rs->nrows != 1)
        return e;
    fs_public_form *f = apr_pcalloc(st->pool, sizeof(*f));
    f->id = FS_CELL(rs, 0, 0);
    f->slug = FS_CELL(rs, 0, 1);
    f->title = FS_CELL(rs, 0, 2);
    f->description = FS_CELL(rs, 0, 3);
    f->status = FS_CELL(rs, 0, 4);
    f->version = FS_CELL(rs, 0, 5);
    f->fields = FS_CELL(rs, 0, 6);
    f->settings = FS_CELL(rs, 0, 7);
    *out = f;
    return NULL;
}

fs_error *fs_store_public_idem_get(fs_store *st, const char *form_id, const char *key,
                                   fs_idem_record **out) {
    const char *args[] = {form_id, key};
    fs_rows *rs;
    *out = NULL;
    fs_error *e = FS_RUN(st, "fs_public_idem_get", args, 4, &rs);
    if (!e && rs->nrows == 1)
        *out = fs_store_idem_row(st->pool, rs);
    return e;
}

/* The outcome a submission statement names; 0 for a name it never gives. */
static int outcome_of(const char *name, fs_submit_outcome *out) {
    static const struct {
        const char *name;
        fs_submit_outcome outcome;
    } outcomes[] = {{"ok", FS_SUBMIT_OK},
                    {"gone", FS_SUBMIT_GONE},
                    {"stale", FS_SUBMIT_STALE},
                    {"closed", FS_SUBMIT_CLOSED},
                    {"duplicate", FS_SUBMIT_DUPLICATE},
                    {"quota", FS_SUBMIT_QUOTA},
                    {"replay", FS_SUBMIT_REPLAY},
                    {"link-used", FS_SUBMIT_LINK_USED},
                    {"link-expired", FS_SUBMIT_LINK_EXPIRED}};
    for (size_t i = 0; name && i < sizeof(outcomes) / sizeof(outcomes[0]); i++)
        if (!strcmp(name, outcomes[i].name)) {
            *out = outcomes[i].outcome;
            return 1;
        }
    return 0;
}

fs_error *fs_store_public_submit(fs_store *st, const fs_new_submission *s, int exact,
                                 fs_submit_result *out) {
    const char *args[] = {s->form_id,
                          s->sub_id,
                          s->data_json,
                          FS_ARG_BOOL(s->spam),
                          FS_ARG_INT(st->pool, s->quota_unverified),
                          FS_ARG_INT(st->pool, s->quota_verified),
                          s->idem_key,
                          s->request_hash,
                          FS_ARG_INT(st->pool, s->replay_status),
                          s->replay_location,
                          s->link_id,
                          s->uniq_hash,
                          s->form_version,
                          s->event_id,
                          s->ending,
                          s->calculated,
                          s->calculated_shown,
                          s->spam_score >= 0 ? FS_ARG_INT(st->pool, s->spam_score) : NULL,
                          s->captcha_unchecked ? "true" : NULL,
                          s->partial_id};
    fs_rows *rs;
    const char *label =
        s->partial_id ? (exact ? "fs_public_submit_partial_locked" : "fs_public_submit_partial")
        : exact       ? "fs_public_submit_locked"
                      : "fs_public_submit";
    memset(out, 0, sizeof(*out));
    out->outcome = FS_SUBMIT_GONE;
    fs_error *e = fs_store_run(st, label, FS_NARGS(args) - !s->partial_id, args, 4, &rs);
    if (e || rs->nrows != 1)
        return e;
    const char *o = FS_CELL(rs, 0, 0);
    if (!outcome_of(o, &out->outcome))
        return fs_error_internal(st->pool, "%s answered the outcome %s", label, o ? o : "NULL");
    out->json = FS_CELL(rs, 0, 1);
    out->month_left = fs_cell_int(FS_CELL(rs, 0, 2));
    return NULL;
}

/* Appends s to b as a JSON string. */
static void json_string(apr_array_header_t *b, const char *s) {
    static const char hex[] = "0123456789abcdef";
    *(char *)apr_array_push(b) = '"';
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            *(char *)apr_array_push(b) = '\\';
            *(char *)apr_array_push(b) = (char)c;
        } else if (c < 0x20) {
            const char esc[] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            for (size_t i = 0; i < sizeof(esc); i++)
                *(char *)apr_array_push(b) = esc[i];
        } else {
            *(char *)apr_array_push(b) = (char)c;
        }
    }
    *(char *)apr_array_push(b) = '"';
}

static void text(apr_array_header_t *b, const char *s) {
    for (; *s; s++)
        *(char *)apr_array_push(b) = *s;
}

int fs_store_public_batchable(const fs_new_submission *s, int exact) {
    return !exact && !s->idem_key && !s->link_id && !s->uniq_hash && s->data_json &&
           s->form_version && !s->partial_id;
}

fs_error *fs_store_public_submit_batch(fs_store *st, const fs_new_submission *const *subs, int n,
                                       fs_submit_result *out) {
    apr_array_header_t *b = apr_array_make(st->pool, 1024 * n, 1);
    text(b, "[");
    for (int i = 0; i < n; i++) {
        const fs_new_submission *s = subs[i];
        memset(&out[i], 0, sizeof(out[i]));
        out[i].outcome = FS_SUBMIT_GONE;
        text(b, i ? ",{\"sid\":" : "{\"sid\":");
        json_string(b, s->sub_id);
        text(b, ",\"evid\":");
        json_string(b, s->event_id);
        text(b, ",\"form\":");
        json_string(b, s->form_id);
        text(b, ",\"ver\":");
        json_string(b, s->form_version);
        text(b, ",\"spam\":");
        text(b, s->spam ? "true" : "false");
        if (s->spam_score >= 0)
            text(b, apr_psprintf(st->pool, ",\"score\":%d", s->spam_score));
        text(b, apr_psprintf(st->pool, ",\"qu\":%d,\"qv\":%d,\"data\":", s->quota_unverified,
                             s->quota_verified));
        text(b, s->data_json); /* JSON as the caller serialised it */
        if (s->ending) {
            text(b, ",\"ending\":");
            json_string(b, s->ending);
        }
        if (s->calculated) { /* JSON as fs_json_str wrote it */
            text(b, ",\"calc\":");
            text(b, s->calculated);
        }
        if (s->calculated_shown) {
            text(b, ",\"shown\":");
            text(b, s->calculated_shown);
        }
        if (s->captcha_unchecked)
            text(b, ",\"unchecked\":true");
        text(b, "}");
    }
    text(b, "]");
    *(char *)apr_array_push(b) = '\0';
    const char *args[] = {b->elts};
    fs_rows *rs;
    fs_error *e = FS_RUN(st, "fs_public_submit_batch", args, 4, &rs);
    if (e)
        return e;
    if (rs->nrows != n)
        return fs_error_internal(st->pool, "fs_public_submit_batch answered %d rows for %d",
                                 rs->nrows, n);
    for (int i = 0; i < n; i++) {
        const char *o = FS_CELL(rs, i, 1);
        if (fs_cell_int(FS_CELL(rs, i, 0)) != i + 1 || !outcome_of(o, &out[i].outcome))
            return fs_error_internal(st->pool, "fs_public_submit_batch answered %s for item %d",
                                     o ? o : "NULL", i + 1);
        out[i].json = FS_CELL(rs, i, 2);
        out[i].month_left = fs_cell_int(FS_CELL(rs, i, 3));
    }
    return NULL;
}

fs_error *fs_store_tally_rollup(fs_store *st, int limit, int *moved) {
    const char *args[] = {FS_ARG_INT(st->pool, limit)};
    return FS_INT(st, "fs_tally_rollup", args, -1, moved);
}

fs_error *fs_store_form_closings_emit(fs_store *st, int limit, int *emitted) {
    const char *args[] = {FS_ARG_INT(st->pool, limit)};
    return FS_INT(st, "fs_form_closings_emit", args, 0, emitted);
}

fs_error *fs_store_form_closings_next(fs_store *st, int ahead_s, int *ms) {
    const char *args[] = {FS_ARG_INT(st->pool, ahead_s)};
    return FS_INT(st, "fs_form_closings_next", args, -1, ms);
}
