/* The store of events, webhooks and the delivery queue (sql/0018): the
 * statements (argument order documented above each; all arguments are
 * text, cast in SQL) and the typed functions of fs_store_webhooks.h that
 * run them. */
#include "fs_store_webhooks.h"
#include "fs_webhook.h"
#include "store_int.h"

#include <apr_strings.h>

/* The event types that carry answers, from FS_EVENT_TYPES, as an SQL list
 * ending in '' (no type): 'submission.created', ..., '' */
#define ANSWERS_SQL(name, answers) ANSWERS_SQL_##answers(name)
#define ANSWERS_SQL_1(name) "'" name "', "
#define ANSWERS_SQL_0(name)
#define ANSWER_TYPES_SQL FS_EVENT_TYPES(ANSWERS_SQL, ) "''"

const fs_stmt fs_stmts_webhooks[] = {
    /* 1 event id, 2 user id: one row when the event exists and is the
     * account's (a valid cursor) */
    {"fs_event_cursor", 2, "SELECT 1 FROM events WHERE id = %s AND user_id = %s"},

    /* 1 user id, 2-3 allowed form ids as a JSON array (NULL: any), 4
     * the types that carry answers too ('t'/'f': the caller has
     * submissions:read; FS_EVENT_TYPES), 5-6 one event
     * type (or NULL), 7-8 a respondent link's id (or NULL: only events whose
     * payload names it), 9-11 one ask's events (or NULL: the ask's own and
     * the submission.created of its link), 12-13 after event id (or NULL),
     * 15 limit + 1. Oldest first, in (xid, id) order (from the start without a
     * cursor: a bound always given, so that every plan, generic ones too,
     * seeks events_feed to the cursor), and only events of
     * transactions older than every running one, so that a later page
     * never gains an event before the cursor. 14 after event id again:
     * events is partitioned by the time its ids begin with (sql/0046), and
     * an event after the cursor in (xid, id) order has an id at most as
     * much older than the cursor's as the cursor's transaction had lasted
     * (or machine clocks differ) when it made the cursor's event: the
     * bound fs_id_since puts a day before the cursor's time leaves out
     * every partition older than that (pruned in every plan). The bound is
     * a scalar subquery, computed once per execution of the generic plan
     * our sessions keep (fs_db.c), not in each partition's index scan. */
    {"fs_event_list", 15,
     "SELECT e.id, fs_event_json(e)::text FROM events e "
     "WHERE e.user_id = %s AND e.xid < pg_snapshot_xmin(pg_current_snapshot()) "
     "  AND (%s::jsonb IS NULL OR e.form_id IN (SELECT jsonb_array_elements_text(%s::jsonb))) "
     "  AND (%s::boolean OR e.type NOT IN (" ANSWER_TYPES_SQL ")) "
     "  AND e.type <> 'webhook.test' "
     "  AND (%s::text IS NULL OR e.type = %s::text) "
     "  AND (%s::text IS NULL OR e.payload ->> 'linkId' = %s::text) "
     "  AND (%s::text IS NULL OR e.payload->>'askId' = %s::text "
     "    OR (e.type = 'submission.created' AND e.payload->>'linkId' = "
     "      (SELECT k.link_id FROM asks k WHERE k.id = %s::text AND k.user_id = e.user_id))) "
     "  AND (e.xid, e.id) > (COALESCE((SELECT c.xid FROM events c WHERE c.id = %s::text), "
     "    '0'::xid8), COALESCE(%s::text, '')) "
     "  AND e.id >= (SELECT fs_id_since('evt_', fs_id_at(%s::text))) "
     "ORDER BY e.xid, e.id LIMIT %s::integer"},

    /* 1 user id: number of webhooks */
    {"fs_webhook_count", 1,
     "SELECT count(*)::text FROM webhooks WHERE user_id = %s "
     "AND fs_creator_alive(created_by)"},

    /* 1 id, 2 user id, 3 url, 4 events (JSON array of strings), 5 form id
     * (or NULL), 6 sealed secret, 7 creating key id, 8 user id again,
     * 9 quota. No row when the quota is reached (exact: fs_quota_admit). */
    {"fs_webhook_create", 9,
     "INSERT INTO webhooks (id, user_id, url, events, form_id, secret, created_by) "
     "SELECT %s, %s, %s, ARRAY(SELECT jsonb_array_elements_text(%s::jsonb)), %s, %s, %s "
     "WHERE fs_quota_admit(%s, 'webhooks', %s::integer) "
     "RETURNING fs_webhook_json(webhooks)::text"},

    /* 1 user id, 2-3 allowed form ids (NULL: any), 4-5 after id, 6 limit + 1.
     * A webhook whose registering delegate has ended is gone (sql/0019). */
    {"fs_webhook_list", 6,
     "SELECT w.id, fs_webhook_json(w)::text FROM webhooks w WHERE w.user_id = %s "
     "  AND fs_creator_alive(w.created_by) "
     "  AND (%s::jsonb IS NULL OR w.form_id IN (SELECT jsonb_array_elements_text(%s::jsonb))) "
     "  AND (%s::text IS NULL OR w.id < %s::text) "
     "ORDER BY w.id DESC LIMIT %s::integer"},

    /* 1 id, 2 user id: json, form id */
    {"fs_webhook_get", 2,
     "SELECT fs_webhook_json(w)::text, w.form_id FROM webhooks w WHERE w.id = %s "
     "AND w.user_id = %s AND fs_creator_alive(w.created_by)"},

    /* 1 id, 2 user id, 3-4 the calling delegate's key id twice (NULL for an
     * owner key: a delegate deletes only webhooks registered inside its own
     * tree): rows deleted (its deliveries go with it) */
    {"fs_webhook_delete", 4,
     "WITH d AS (DELETE FROM webhooks WHERE id = %s AND user_id = %s "
     "  AND " FS_SQL_IN_TREE("created_by") " RETURNING 1) "
                                           "SELECT count(*)::text FROM d"},

    /* 1 status ('active': resume, 'paused': pause, NULL: unchanged), 2 url
     * (NULL: unchanged), 3-4 events as a JSON array (NULL: unchanged), 5
     * enabled ('t'/'f', NULL: unchanged), 6 id, 7 user id, 8-9 the calling
     * delegate's key id (NULL for an owner key: a delegate changes only
     * webhooks registered inside its own tree): the webhook as changed.
     * Resuming a paused webhook clears its run of failures and makes its
     * pending deliveries due now (not those in flight). */
    {"fs_webhook_update", 9,
     "WITH s AS (SELECT %s::text AS st), "
     "u AS (UPDATE webhooks w SET url = COALESCE(%s::text, w.url), "
     "  events = CASE WHEN %s::jsonb IS NULL THEN w.events "
     "    ELSE ARRAY(SELECT jsonb_array_elements_text(%s::jsonb)) END, "
     "  enabled = COALESCE(%s::boolean, w.enabled), "
     "  paused_at = CASE s.st WHEN 'active' THEN NULL "
     "    WHEN 'paused' THEN COALESCE(w.paused_at, now()) ELSE w.paused_at END, "
     "  pause_reason = CASE s.st WHEN 'active' THEN NULL "
     "    WHEN 'paused' THEN COALESCE(w.pause_reason, 'paused by the owner') "
     "    ELSE w.pause_reason END, "
     "  consecutive_failures = CASE s.st WHEN 'active' THEN 0 ELSE w.consecutive_failures END, "
     "  failing_since = CASE s.st WHEN 'active' THEN NULL ELSE w.failing_since END "
     "FROM s WHERE w.id = %s AND w.user_id = %s AND fs_creator_alive(w.created_by) "
     "  AND " FS_SQL_IN_TREE(
         "w.created_by") " "
                         "RETURNING w.id, fs_webhook_json(w)::text AS j), "
                         "r AS (UPDATE deliveries d SET next_at = now() FROM u, s "
                         "  WHERE s.st = 'active' AND d.webhook_id = u.id AND d.status = 'pending' "
                         "  AND d.next_at > now() AND (d.leased_until IS NULL OR d.leased_until <= "
                         "now()) "
                         "  AND EXISTS (SELECT 1 FROM webhooks p WHERE p.id = u.id AND p.paused_at "
                         "IS NOT NULL)) "
                         "SELECT j FROM u"},

    /* 1 id, 2 user id, 3-4 the calling delegate's key id (as for update),
     * 5 lease seconds. Writes a webhook.test event (never fanned out, not
     * in the feed) and its delivery to this webhook alone, claimed for the
     * caller (attempt 1, leased): the columns of fs_delivery_claim. */
    {"fs_webhook_test", 5,
     "WITH w AS (SELECT w.id, w.user_id, w.form_id, w.url, w.secret FROM webhooks w "
     "  WHERE w.id = %s AND w.user_id = %s AND fs_creator_alive(w.created_by) "
     "  AND " FS_SQL_IN_TREE(
         "w.created_by") "), "
                         "e AS (INSERT INTO events (id, user_id, type, form_id, payload) "
                         "  SELECT fs_new_id('evt_'), w.user_id, 'webhook.test', w.form_id, "
                         "    jsonb_build_object('webhookId', w.id, 'test', true) FROM w "
                         "  RETURNING events.id, fs_event_json(events)::text AS body), "
                         "d AS (INSERT INTO deliveries (id, webhook_id, event_id, attempts, "
                         "next_at) "
                         "  SELECT fs_new_id('dlv_'), w.id, e.id, 1, now() + make_interval(secs => "
                         "%s::integer) "
                         "  FROM w, e RETURNING id, attempts) "
                         "SELECT d.id, w.url, w.secret, w.id, e.body, d.attempts::text, e.id FROM "
                         "d, w, e"},

    /* 1 delivery id, 2 webhook id, 3 user id, 4-5 the calling delegate's
     * key id (as for update), 6 lease seconds. Claims a delivery that is
     * not pending (succeeded or failed) for the caller to send again:
     * its status before (no row: no such delivery), then the columns of
     * fs_delivery_claim (NULL when it is pending, or was claimed by a
     * concurrent retry). */
    {"fs_delivery_retry", 6,
     "WITH d0 AS (SELECT d.id, d.status FROM deliveries d JOIN webhooks w ON w.id = d.webhook_id "
     "  WHERE d.id = %s AND d.webhook_id = %s AND w.user_id = %s "
     "  AND fs_creator_alive(w.created_by) "
     "  AND " FS_SQL_IN_TREE(
         "w.created_by") "), "
                         "u AS (UPDATE deliveries d SET status = 'pending', attempts = d.attempts "
                         "+ 1, done_at = NULL, "
                         "  next_at = now() + make_interval(secs => %s::integer) FROM webhooks w, "
                         "events e "
                         "  WHERE d.id IN (SELECT id FROM d0) AND d.status <> 'pending' AND w.id = "
                         "d.webhook_id "
                         "  AND e.id = d.event_id "
                         "  RETURNING d.id, w.url, w.secret, w.id AS wid, fs_event_json(e)::text "
                         "AS body, "
                         "    d.attempts::text AS n, e.id AS eid) "
                         "SELECT d0.status, u.id, u.url, u.secret, u.wid, u.body, u.n, u.eid "
                         "FROM d0 LEFT JOIN u ON true"},

    /* 1 delivery id, 2 webhook id: its representation */
    {"fs_delivery_get", 2,
     "SELECT fs_delivery_json(d, e)::text FROM deliveries d JOIN events e ON e.id = d.event_id "
     "WHERE d.id = %s AND d.webhook_id = %s"},

    /* 1 webhook id, 2 user id, 3-4 after delivery id, 5 limit + 1 */
    {"fs_delivery_list", 5,
     "SELECT d.id, fs_delivery_json(d, e)::text FROM deliveries d "
     "  JOIN events e ON e.id = d.event_id JOIN webhooks w ON w.id = d.webhook_id "
     "WHERE d.webhook_id = %s AND w.user_id = %s AND (%s::text IS NULL OR d.id < %s::text) "
     "ORDER BY d.id DESC LIMIT %s::integer"},

    /* The worker. 1 deliveries of one webhook in flight at most, 2 of one
     * account, 3 batch size, 4-5 lease seconds. Claims due deliveries
     * (SKIP LOCKED: concurrent workers take different rows) and moves them
     * a lease ahead, so no other worker sends them while this one does.
     * Fair: walks the webhooks that have pending deliveries (one index
     * probe each, whatever their backlog), skips disabled and paused ones,
     * takes at most (1) in flight of a webhook and (2) of an account, and
     * serves the accounts and webhooks with the fewest in flight first,
     * then the longest due. Columns: id, url, sealed secret, webhook id,
     * event json, attempt number, event id */
    {"fs_delivery_claim", 5,
     "WITH RECURSIVE h AS ("
     "  (SELECT webhook_id AS id FROM deliveries WHERE status = 'pending' "
     "   ORDER BY webhook_id LIMIT 1) "
     "  UNION ALL "
     "  SELECT (SELECT d.webhook_id FROM deliveries d WHERE d.status = 'pending' "
     "          AND d.webhook_id > h.id ORDER BY d.webhook_id LIMIT 1) "
     "  FROM h WHERE h.id IS NOT NULL), "
     "b AS (SELECT w.id, w.user_id, (SELECT count(*) FROM deliveries f "
     "    WHERE f.webhook_id = w.id AND f.leased_until > now() AND f.status = 'pending') AS busy "
     "  FROM h JOIN webhooks w ON w.id = h.id WHERE w.enabled AND w.paused_at IS NULL), "
     "a AS (SELECT b.*, sum(b.busy) OVER (PARTITION BY b.user_id) AS abusy FROM b), "
     "c AS (SELECT a.user_id, a.abusy, a.busy, x.id, x.next_at, "
     "    row_number() OVER (PARTITION BY a.id ORDER BY x.next_at) AS wr "
     "  FROM a, LATERAL (SELECT d.id, d.next_at FROM deliveries d WHERE d.webhook_id = a.id "
     "    AND d.status = 'pending' AND d.next_at <= now() ORDER BY d.next_at "
     "    LIMIT greatest(%s::integer - a.busy, 0)) x), "
     "r AS (SELECT c.id, c.next_at, c.abusy + row_number() OVER (PARTITION BY c.user_id "
     "    ORDER BY c.busy + c.wr, c.next_at) AS prio FROM c), "
     /* only the rows chosen are locked; a row another worker claimed
      * meanwhile fails the re-check of the status and next_at */
     "l AS (SELECT d.id FROM deliveries d WHERE d.id IN (SELECT r.id FROM r "
     "    WHERE r.prio <= %s::integer ORDER BY r.prio, r.next_at LIMIT %s::integer) "
     "  AND d.status = 'pending' AND d.next_at <= now() FOR UPDATE SKIP LOCKED) "
     "UPDATE deliveries d SET attempts = d.attempts + 1, "
     "  next_at = now() + make_interval(secs => %s::integer), "
     "  leased_until = now() + make_interval(secs => %s::integer) "
     "FROM webhooks w, events e "
     "WHERE w.id = d.webhook_id AND e.id = d.event_id AND d.id IN (SELECT l.id FROM l) "
     "RETURNING d.id, w.url, w.secret, w.id, fs_event_json(e)::text, d.attempts::text, e.id"},

    /* 1 attempt (JSON object), 2 delivery id: a 2xx; ends the webhook's
     * run of failures (writing its row only when there is one) */
    {"fs_delivery_succeeded", 2,
     "WITH d AS (UPDATE deliveries SET status = 'succeeded', done_at = now(), next_at = now(), "
     "  leased_until = NULL, attempts_log = attempts_log || jsonb_build_array(%s::jsonb) "
     "  WHERE id = %s RETURNING webhook_id) "
     "UPDATE webhooks w SET consecutive_failures = 0, failing_since = NULL FROM d "
     "WHERE w.id = d.webhook_id AND (w.consecutive_failures <> 0 OR w.failing_since IS NOT NULL)"},

    /* 1 attempt (JSON object), 2 backoff seconds, 3-4 the same, 5 delivery
     * id, 6 failures in a row that pause a webhook, 7 seconds the run must
     * have lasted: a failure; given up (failed) when the next attempt would
     * come more than a day after the delivery was queued. Counts the
     * failure in the webhook's run and pauses the webhook (writing a
     * webhook.paused event, which is fanned out like any) when the run has
     * reached both thresholds. One row: 't' when this failure paused it. */
    {"fs_delivery_failed", 7,
     "WITH d AS (UPDATE deliveries SET attempts_log = attempts_log || "
     "jsonb_build_array(%s::jsonb), "
     "  next_at = now() + make_interval(secs => %s::integer), "
     "  status = CASE WHEN now() + make_interval(secs => %s::integer) "
     "    > created_at + interval '24 hours' THEN 'failed' ELSE 'pending' END, "
     "  done_at = CASE WHEN now() + make_interval(secs => %s::integer) "
     "    > created_at + interval '24 hours' THEN now() END, "
     "  leased_until = NULL "
     "  WHERE id = %s RETURNING webhook_id, attempts_log -> -1 ->> 'error' AS error), "
     "t AS (SELECT %s::integer AS n, make_interval(secs => %s::integer) AS span), "
     "w AS (UPDATE webhooks w SET consecutive_failures = w.consecutive_failures + 1, "
     "  failing_since = COALESCE(w.failing_since, now()), "
     "  paused_at = CASE WHEN w.paused_at IS NULL AND w.consecutive_failures + 1 >= t.n "
     "    AND w.failing_since <= now() - t.span THEN now() ELSE w.paused_at END, "
     "  pause_reason = CASE WHEN w.paused_at IS NULL AND w.consecutive_failures + 1 >= t.n "
     "    AND w.failing_since <= now() - t.span "
     "    THEN format('%%s attempts in a row failed since %%s; the last: %%s', "
     "      w.consecutive_failures + 1, fs_ts(w.failing_since), COALESCE(d.error, 'unknown')) "
     "    ELSE w.pause_reason END "
     "  FROM d, t WHERE w.id = d.webhook_id RETURNING w AS hook, w.paused_at = now() AS paused), "
     "e AS (INSERT INTO events (id, user_id, type, form_id, payload) "
     "  SELECT fs_new_id('evt_'), (w.hook).user_id, 'webhook.paused', (w.hook).form_id, "
     "    fs_webhook_json(w.hook)::jsonb FROM w WHERE w.paused RETURNING 1) "
     "SELECT CASE WHEN EXISTS (SELECT 1 FROM e) THEN 't' ELSE 'f' END"},

    /* 1 days, 2 days: forgets events (and their deliveries) older than
     * that, a batch at a time */
    {"fs_event_sweep", 2,
     "DELETE FROM events WHERE created_at < now() - make_interval(days => %s::integer) "
     "  AND id IN (SELECT id FROM events "
     "  WHERE created_at < now() - make_interval(days => %s::integer) LIMIT 1000) RETURNING 1"},

    /* Deliveries waiting (due or retrying) and the age of the oldest (s), for
     * /metrics: the pending rows only (deliveries_due is on them). */
    {"fs_webhook_backlog", 0,
     "SELECT count(*)::text, COALESCE(floor(extract(epoch FROM now() - min(created_at))), "
     "  0)::bigint::text FROM deliveries WHERE status = 'pending'"},
    {NULL, 0, NULL}};

fs_error *fs_store_event_exists(fs_store *st, const char *user_id, const char *event_id,
                                int *exists) {
    const char *args[] = {event_id, user_id};
    int n;
    fs_error *e = FS_COUNT(st, "fs_event_cursor", args, 1, &n);
    *exists = n > 0;
    return e;
}

fs_error *fs_store_event_list(fs_store *st, const char *user_id, const char *forms_json,
                              int with_submissions, const char *type, const char *link_id,
                              const char *ask_id, const char *after, int limit, fs_list_page *out) {
    const char *args[] = {user_id,
                          forms_json,
                          forms_json,
                          FS_ARG_BOOL(with_submissions),
                          type,
                          type,
                          link_id,
                          link_id,
                          ask_id,
                          ask_id,
                          ask_id,
                          after,
                          after,
                          after,
                          FS_ARG_INT(st->pool, limit + 1)};
    return FS_LIST(st, "fs_event_list", args, limit, out);
}

fs_error *fs_store_event_sweep(fs_store *st, int days) {
    fs_rows *rs;
    const char *d = FS_ARG_INT(st->pool, days);
    const char *args[] = {d, d};
    return FS_RUN(st, "fs_event_sweep", args, 1, &rs);
}

fs_error *fs_store_webhook_create(fs_store *st, const fs_new_webhook *w, int quota,
                                  const char **json) {
    const char *args[] = {w->id,          w->user_id, w->url,
                          w->events_json, w->form_id, w->sealed_secret,
                          w->created_by,  w->user_id, FS_ARG_INT(st->pool, quota)};
    return FS_ONE(st, "fs_webhook_create", args, json);
}

fs_error *fs_store_webhook_count(fs_store *st, const char *user_id, int *n) {
    const char *args[] = {user_id};
    return FS_INT(st, "fs_webhook_count", args, 0, n);
}

fs_error *fs_store_webhook_list(fs_store *st, const char *user_id, const char *forms_json,
                                const char *after, int limit, fs_list_page *out) {
    const char *args[] = {user_id, forms_json, forms_json,
                          after,   after,      FS_ARG_INT(st->pool, limit + 1)};
    return FS_LIST(st, "fs_webhook_list", args, limit, out);
}

fs_error *fs_store_webhook_get(fs_store *st, const char *user_id, const char *webhook_id,
                               const char **json, const char **form_id) {
    const char *args[] = {webhook_id, user_id};
    fs_rows *rs;
    *json = *form_id = NULL;
    fs_error *e = FS_RUN(st, "fs_webhook_get", args, 2, &rs);
    if (e || rs->nrows != 1)
        return e;
    *json = FS_CELL(rs, 0, 0);
    *form_id = FS_CELL(rs, 0, 1);
    return NULL;
}

fs_error *fs_store_webhook_delete(fs_store *st, const char *user_id, const char *webhook_id,
                                  const char *tree_root, int *deleted) {
    const char *args[] = {webhook_id, user_id, tree_root, tree_root};
    fs_error *e = FS_INT(st, "fs_webhook_delete", args, 0, deleted);
    *deleted = *deleted > 0;
    return e;
}

fs_error *fs_store_delivery_list(fs_store *st, const char *user_id, const char *webhook_id,
                                 const char *after, int limit, fs_list_page *out) {
    const char *args[] = {webhook_id, user_id, after, after, FS_ARG_INT(st->pool, limit + 1)};
    return FS_LIST(st, "fs_delivery_list", args, limit, out);
}

fs_error *fs_store_delivery_claim(fs_store *st, const fs_delivery_limits *lim, int lease, int batch,
                                  fs_delivery_batch *out) {
    const char *l = FS_ARG_INT(st->pool, lease);
    const char *args[] = {FS_ARG_INT(st->pool, lim->per_webhook),
                          FS_ARG_INT(st->pool, lim->per_account), FS_ARG_INT(st->pool, batch), l,
                          l};
    fs_rows *rs;
    out->n = 0;
    out->items = NULL;
    fs_error *e = FS_RUN(st, "fs_delivery_claim", args, 7, &rs);
    if (e)
        return e;
    out->items = apr_pcalloc(st->pool, sizeof(fs_delivery) * (apr_size_t)(rs->nrows + 1));
    for (int i = 0; i < rs->nrows; i++) {
        fs_delivery *d = &out->items[i];
        d->id = FS_CELL(rs, i, 0);
        d->url = FS_CELL(rs, i, 1);
        d->sealed_secret = FS_CELL(rs, i, 2);
        d->webhook_id = FS_CELL(rs, i, 3);
        d->event_json = FS_CELL(rs, i, 4);
        d->attempt = fs_cell_int(FS_CELL(rs, i, 5));
        d->event_id = FS_CELL(rs, i, 6);
    }
    out->n = rs->nrows;
    return NULL;
}

fs_error *fs_store_delivery_succeeded(fs_store *st, const char *id, const char *attempt_json) {
    const char *args[] = {attempt_json, id};
    fs_rows *rs;
    return FS_RUN(st, "fs_delivery_succeeded", args, 0, &rs);
}

fs_error *fs_store_delivery_failed(fs_store *st, const char *id, const char *attempt_json,
                                   int backoff, const fs_delivery_limits *lim, int *paused) {
    const char *b = FS_ARG_INT(st->pool, backoff);
    const char *args[] = {attempt_json,
                          b,
                          b,
                          b,
                          id,
                          FS_ARG_INT(st->pool, lim->pause_failures),
                          FS_ARG_INT(st->pool, lim->pause_seconds)};
    fs_rows *rs;
    *paused = 0;
    fs_error *e = FS_RUN(st, "fs_delivery_failed", args, 1, &rs);
    if (!e && rs->nrows == 1 && FS_CELL(rs, 0, 0))
        *paused = !strcmp(FS_CELL(rs, 0, 0), "t");
    return e;
}

fs_error *fs_store_webhook_update(fs_store *st, const char *user_id, const char *webhook_id,
                                  const char *tree_root, const fs_webhook_change *c,
                                  const char **json) {
    const char *en = c->enabled < 0 ? NULL : FS_ARG_BOOL(c->enabled);
    const char *args[] = {c->status,  c->url,  c->events_json, c->events_json, en,
                          webhook_id, user_id, tree_root,      tree_root};
    return FS_ONE(st, "fs_webhook_update", args, json);
}

/* The claim columns of row i (fs_delivery_claim's order) from column c0. */
static void delivery_of(fs_rows *rs, int i, int c0, fs_delivery *d) {
    d->id = FS_CELL(rs, i, c0);
    d->url = FS_CELL(rs, i, c0 + 1);
    d->sealed_secret = FS_CELL(rs, i, c0 + 2);
    d->webhook_id = FS_CELL(rs, i, c0 + 3);
    d->event_json = FS_CELL(rs, i, c0 + 4);
    d->attempt = fs_cell_int(FS_CELL(rs, i, c0 + 5));
    d->event_id = FS_CELL(rs, i, c0 + 6);
}

fs_error *fs_store_webhook_test(fs_store *st, const char *user_id, const char *webhook_id,
                                const char *tree_root, int lease, fs_delivery **out) {
    const char *args[] = {webhook_id, user_id, tree_root, tree_root, FS_ARG_INT(st->pool, lease)};
    fs_rows *rs;
    *out = NULL;
    fs_error *e = FS_RUN(st, "fs_webhook_test", args, 7, &rs);
    if (e || rs->nrows != 1)
        return e;
    *out = apr_pcalloc(st->pool, sizeof(**out));
    delivery_of(rs, 0, 0, *out);
    return NULL;
}

fs_error *fs_store_delivery_retry(fs_store *st, const char *user_id, const char *webhook_id,
                                  const char *delivery_id, const char *tree_root, int lease,
                                  const char **status, fs_delivery **out) {
    const char *args[] = {delivery_id, webhook_id, user_id,
                          tree_root,   tree_root,  FS_ARG_INT(st->pool, lease)};
    fs_rows *rs;
    *status = NULL;
    *out = NULL;
    fs_error *e = FS_RUN(st, "fs_delivery_retry", args, 8, &rs);
    if (e || rs->nrows != 1)
        return e;
    *status = FS_CELL(rs, 0, 0);
    if (FS_CELL(rs, 0, 1) && *FS_CELL(rs, 0, 1)) {
        *out = apr_pcalloc(st->pool, sizeof(**out));
        delivery_of(rs, 0, 1, *out);
    }
    return NULL;
}

fs_error *fs_store_delivery_get(fs_store *st, const char *webhook_id, const char *delivery_id,
                                const char **json) {
    const char *args[] = {delivery_id, webhook_id};
    return FS_ONE(st, "fs_delivery_get", args, json);
}

fs_error *fs_store_webhook_backlog(fs_store *st, long long *pending, long long *oldest_seconds) {
    fs_rows *rs;
    *pending = *oldest_seconds = 0;
    fs_error *e = fs_store_run(st, "fs_webhook_backlog", 0, NULL, 2, &rs);
    if (e || rs->nrows != 1)
        return e;
    *pending = fs_cell_i64(FS_CELL(rs, 0, 0));
    *oldest_seconds = fs_cell_i64(FS_CELL(rs, 0, 1));
    return NULL;
}
