/* The store of MCP sessions, subscriptions and stream leases (sql/0051):
 * the statements (all arguments are text, cast in SQL) and the typed
 * functions of fs_store_mcp.h that run them. */
#include "fs_store_mcp.h"
#include "store_int.h"

#include <apr_strings.h>
#include <string.h>

const fs_stmt fs_stmts_mcp[] = {
    /* 1 user id, 2 session id, 3-4 user id, 5 whether the client elicits */
    {"fs_mcp_session_create", 5,
     "WITH gone AS (DELETE FROM mcp_sessions WHERE user_id = %s "
     "  AND seen_at < now() - interval '1 day') "
     "INSERT INTO mcp_sessions (id, user_id, start_event, elicitation) VALUES (%s, %s, "
     "  (SELECT e.id FROM events e WHERE e.user_id = %s "
     "     AND e.xid < pg_snapshot_xmin(pg_current_snapshot()) "
     "   ORDER BY e.xid DESC, e.id DESC LIMIT 1), %s::boolean) RETURNING id"},

    /* 1 session id, 2 user id */
    {"fs_mcp_session_elicits", 2,
     "SELECT 1 FROM mcp_sessions WHERE id = %s AND user_id = %s AND elicitation"},

    /* 1 request id, 2 session id, 3 user id, 4 ask id (the caller's) */
    {"fs_mcp_request_create", 4,
     "INSERT INTO mcp_requests (id, session_id, user_id, ask_id) VALUES (%s, %s, %s, %s) "
     "RETURNING id"},

    /* 1 request id: its state */
    {"fs_mcp_request_state", 1, "SELECT state FROM mcp_requests WHERE id = %s"},

    /* 1 request id, 2 session id, 3 user id: claimed for one response
     * (the first wins), with its ask */
    {"fs_mcp_request_claim", 3,
     "UPDATE mcp_requests SET state = 'answering' WHERE id = %s AND session_id = %s "
     "  AND user_id = %s AND state IN ('pending', 'ended') RETURNING ask_id"},

    /* 1 request id, 2 session id, 3 user id: whether the session has it */
    {"fs_mcp_request_exists", 3,
     "SELECT 1 FROM mcp_requests WHERE id = %s AND session_id = %s AND user_id = %s"},

    /* 1 state, 2 request id, 3 the state it must be in */
    {"fs_mcp_request_finish", 3,
     "UPDATE mcp_requests SET state = %s, answered_at = clock_timestamp() "
     "WHERE id = %s AND state = %s RETURNING 1"},

    /* 1-2 session id, user id (marked used), 3-4 session id, user id */
    {"fs_mcp_session_exists", 4,
     "WITH used AS (UPDATE mcp_sessions SET seen_at = now() WHERE id = %s AND user_id = %s "
     "  AND seen_at < now() - interval '10 minutes' RETURNING 1) "
     "SELECT 1 FROM mcp_sessions WHERE id = %s AND user_id = %s"},

    /* 1 session id, 2 user id */
    {"fs_mcp_session_delete", 2,
     "DELETE FROM mcp_sessions WHERE id = %s AND user_id = %s RETURNING 1"},

    /* 1 session id, 2 user id, 3 uri, 4 form id, 5 most per session */
    {"fs_mcp_subscribe", 5, "SELECT fs_mcp_subscribe(%s, %s, %s, %s, %s::integer)"},

    /* 1 session id, 2 user id, 3 uri */
    {"fs_mcp_unsubscribe", 3,
     "DELETE FROM mcp_subscriptions s USING mcp_sessions m "
     "WHERE s.session_id = m.id AND m.id = %s AND m.user_id = %s AND s.uri = %s RETURNING 1"},

    /* 1 stream id, 2 user id, 3 session id, 4 most per account, 5 lease seconds */
    {"fs_mcp_stream_open", 5, "SELECT fs_mcp_stream_open(%s, %s, %s, %s::integer, %s::integer)"},

    /* 1 session id, 2 user id, 3 lease seconds, 4 stream id, 5 the
     * stream's credential (key id): none when it was revoked or expired */
    {"fs_mcp_stream_renew", 5,
     "WITH s AS (UPDATE mcp_sessions SET seen_at = now() WHERE id = %s AND user_id = %s "
     "  RETURNING id) "
     "UPDATE mcp_streams SET lease_until = now() + make_interval(secs => %s::integer) "
     "WHERE id = %s AND EXISTS (SELECT 1 FROM s) "
     "  AND EXISTS (SELECT 1 FROM keys k WHERE k.id = %s AND fs_key_active(k)) RETURNING 1"},

    /* 1 stream id */
    {"fs_mcp_stream_close", 1, "DELETE FROM mcp_streams WHERE id = %s RETURNING 1"},

    /* 1 session id, 2 user id */
    {"fs_mcp_session_start_event", 2,
     "SELECT start_event FROM mcp_sessions WHERE id = %s AND user_id = %s"},

    /* 1 session id, 2 user id, 3-4 after event id (or NULL) twice, 5 limit */
    {"fs_mcp_updates", 5,
     "SELECT e.id, s.uri FROM events e "
     "LEFT JOIN mcp_subscriptions s ON s.session_id = %s AND s.form_id = e.form_id "
     "  AND s.uri = 'formsvc://forms/' || e.form_id "
     "    || CASE WHEN e.type LIKE 'submission%%' THEN '/submissions' ELSE '' END "
     "WHERE e.user_id = %s AND e.xid < pg_snapshot_xmin(pg_current_snapshot()) "
     "  AND e.type <> 'webhook.test' "
     "  AND (e.xid, e.id) > (COALESCE((SELECT c.xid FROM events c WHERE c.id = %s::text), "
     "    '0'::xid8), COALESCE(%s::text, '')) "
     "ORDER BY e.xid, e.id LIMIT %s::integer"},

    /* 1-2 days, 3 limit, 4-5 days: sessions unused for days days deleted
     * (with their subscriptions), and leases that ran out and elicitation
     * requests made days days ago */
    {"fs_mcp_expire", 5,
     "WITH d AS (DELETE FROM mcp_sessions WHERE seen_at < now() - make_interval(days => "
     "%s::integer) "
     "  AND id IN (SELECT id FROM mcp_sessions "
     "    WHERE seen_at < now() - make_interval(days => %s::integer) LIMIT %s::integer) "
     "  RETURNING 1), "
     "l AS (DELETE FROM mcp_streams WHERE lease_until < now() - make_interval(days => "
     "%s::integer)), "
     "q AS (DELETE FROM mcp_requests WHERE created_at < now() - make_interval(days => "
     "%s::integer)) "
     "SELECT count(*)::text FROM d"},

    {NULL, 0, NULL}};

fs_error *fs_store_mcp_session_create(fs_store *st, const char *session_id, const char *user_id,
                                      int elicitation) {
    const char *args[] = {user_id, session_id, user_id, user_id, elicitation ? "true" : "false"},
               *id;
    return FS_ONE(st, "fs_mcp_session_create", args, &id);
}

fs_error *fs_store_mcp_session_elicits(fs_store *st, const char *session_id, const char *user_id,
                                       int *yes) {
    const char *args[] = {session_id, user_id};
    return FS_COUNT(st, "fs_mcp_session_elicits", args, 1, yes);
}

fs_error *fs_store_mcp_request_create(fs_store *st, const char *request_id, const char *session_id,
                                      const char *user_id, const char *ask_id) {
    const char *args[] = {request_id, session_id, user_id, ask_id}, *id;
    return FS_ONE(st, "fs_mcp_request_create", args, &id);
}

fs_error *fs_store_mcp_request_state(fs_store *st, const char *request_id, const char **state) {
    const char *args[] = {request_id};
    return FS_ONE(st, "fs_mcp_request_state", args, state);
}

fs_error *fs_store_mcp_request_claim(fs_store *st, const char *request_id, const char *session_id,
                                     const char *user_id, const char **ask_id, int *known) {
    const char *args[] = {request_id, session_id, user_id};
    *known = 0;
    fs_error *e = FS_ONE(st, "fs_mcp_request_claim", args, ask_id);
    if (e || *ask_id) {
        *known = !e;
        return e;
    }
    return FS_COUNT(st, "fs_mcp_request_exists", args, 1, known);
}

fs_error *fs_store_mcp_request_finish(fs_store *st, const char *request_id, const char *from,
                                      const char *to, int *done) {
    const char *args[] = {to, request_id, from};
    return FS_COUNT(st, "fs_mcp_request_finish", args, 1, done);
}

fs_error *fs_store_mcp_session_exists(fs_store *st, const char *session_id, const char *user_id,
                                      int *exists) {
    const char *args[] = {session_id, user_id, session_id, user_id};
    return FS_COUNT(st, "fs_mcp_session_exists", args, 1, exists);
}

fs_error *fs_store_mcp_session_delete(fs_store *st, const char *session_id, const char *user_id,
                                      int *deleted) {
    const char *args[] = {session_id, user_id};
    return FS_COUNT(st, "fs_mcp_session_delete", args, 1, deleted);
}

static fs_mcp_outcome outcome_of(const char *s) {
    return !s                   ? FS_MCP_NO_SESSION
           : !strcmp(s, "ok")   ? FS_MCP_OK
           : !strcmp(s, "full") ? FS_MCP_FULL
                                : FS_MCP_NO_SESSION;
}

fs_error *fs_store_mcp_subscribe(fs_store *st, const char *session_id, const char *user_id,
                                 const char *uri, const char *form_id, int max,
                                 fs_mcp_outcome *out) {
    const char *args[] = {session_id, user_id, uri, form_id, FS_ARG_INT(st->pool, max)}, *res;
    fs_error *e = FS_ONE(st, "fs_mcp_subscribe", args, &res);
    *out = outcome_of(res);
    return e;
}

fs_error *fs_store_mcp_unsubscribe(fs_store *st, const char *session_id, const char *user_id,
                                   const char *uri) {
    const char *args[] = {session_id, user_id, uri};
    int n;
    return FS_COUNT(st, "fs_mcp_unsubscribe", args, 1, &n);
}

fs_error *fs_store_mcp_stream_open(fs_store *st, const char *stream_id, const char *user_id,
                                   const char *session_id, int max, int lease,
                                   fs_mcp_outcome *out) {
    const char *args[] = {stream_id, user_id, session_id, FS_ARG_INT(st->pool, max),
                          FS_ARG_INT(st->pool, lease)},
               *res;
    fs_error *e = FS_ONE(st, "fs_mcp_stream_open", args, &res);
    *out = outcome_of(res);
    return e;
}

fs_error *fs_store_mcp_stream_renew(fs_store *st, const char *stream_id, const char *user_id,
                                    const char *session_id, const char *key_id, int lease,
                                    int *alive) {
    const char *args[] = {session_id, user_id, FS_ARG_INT(st->pool, lease), stream_id, key_id};
    return FS_COUNT(st, "fs_mcp_stream_renew", args, 1, alive);
}

fs_error *fs_store_mcp_stream_close(fs_store *st, const char *stream_id) {
    const char *args[] = {stream_id};
    int n;
    return FS_COUNT(st, "fs_mcp_stream_close", args, 1, &n);
}

fs_error *fs_store_mcp_session_start_event(fs_store *st, const char *session_id,
                                           const char *user_id, const char **event_id) {
    const char *args[] = {session_id, user_id};
    return FS_ONE(st, "fs_mcp_session_start_event", args, event_id);
}

fs_error *fs_store_mcp_updates(fs_store *st, const char *session_id, const char *user_id,
                               const char *after, int limit, fs_mcp_update **out, int *n) {
    const char *args[] = {session_id, user_id, after, after, FS_ARG_INT(st->pool, limit)};
    fs_rows *rs;
    *n = 0;
    *out = NULL;
    fs_error *e = FS_RUN(st, "fs_mcp_updates", args, 2, &rs);
    if (e)
        return e;
    *out = apr_pcalloc(st->pool, sizeof(**out) * (rs->nrows ? rs->nrows : 1));
    for (int i = 0; i < rs->nrows; i++) {
        (*out)[i].event_id = FS_CELL(rs, i, 0);
        (*out)[i].uri = FS_CELL(rs, i, 1);
    }
    *n = rs->nrows;
    return NULL;
}

fs_error *fs_store_mcp_expire(fs_store *st, int days, int lim, int *deleted) {
    const char *d = FS_ARG_INT(st->pool, days);
    const char *args[] = {d, d, FS_ARG_INT(st->pool, lim), d, d};
    return FS_INT(st, "fs_mcp_expire", args, 0, deleted);
}
