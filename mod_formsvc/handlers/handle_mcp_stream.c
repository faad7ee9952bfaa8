/* handle_mcp_stream: GET /mcp, the server-to-client stream of the MCP
 * Streamable HTTP transport (text/event-stream), and DELETE /mcp, the end
 * of a session. A stream sends notifications/resources/updated for the
 * session's subscriptions (resources/subscribe, handle_mcp.c) when an
 * event of the account touches a subscribed resource: the stream reads
 * the account's event feed after its cursor every half second, taking a
 * pooled connection for each read and giving it back before it waits (as
 * GET /v1/events?wait= does). So a stream costs one thread and no
 * connection while it waits, and any machine can serve any stream of a
 * session: the session, its subscriptions and the leases that count an
 * account's streams are in PostgreSQL (sql/0051). The SSE event id is the
 * feed's event id, so a client that reconnects with Last-Event-ID is told
 * of what happened while it was away. */
#include "fs_json.h"
#include "fs_mcp.h"
#include "fs_mcp_res.h"
#include "fs_negotiate.h"
#include "fs_secret.h"
#include "fs_store_mcp.h"
#include "fs_store_webhooks.h"
#include "http/auth.h"
#include "http/mcp_session.h"
#include "http/response.h"
#include "http/router.h"
#include "runtime/config_global.h"
#include "runtime/log.h"
#include "runtime/mcp_streams.h"
#include "runtime/request_ctx.h"
#include "runtime/webhooks.h"

#include <apr_strings.h>
#include <http_core.h>

APLOG_USE_MODULE(formsvc);

#define POLL_MS 500
#define UPDATES_PAGE 100
/* the client's wait before it reconnects after the server closed a stream */
#define RETRY_MS 1000

/* The pooled connection goes back before each write: a slow reader never
 * holds one (the loop takes it again for its next read). */
static void send_text(request_rec *r, const char *s) {
    formsvc_db_release(r);
    formsvc_send_more(r, s, strlen(s), 1);
}

static int accepts_sse(const char *accept) {
    return accept && ap_strcasestr(accept, "text/event-stream") != NULL;
}

static int too_many(request_rec *r, const char *slug, const char *detail) {
    fs_error *e = fs_error_make(r->pool, slug, "%s", detail);
    e->retry_after = 5;
    return formsvc_send_problem(r, e);
}

static int formsvc_h_mcp_stream(request_rec *r, const char *const *caps) {
    (void)caps;
    const char *pv = apr_table_get(r->headers_in, "MCP-Protocol-Version");
    if (pv && !fs_mcp_version_supported(pv))
        return formsvc_send_problem(
            r, fs_error_make(r->pool, "malformed-request",
                             "MCP-Protocol-Version %s is not supported; this server speaks "
                             "2025-06-18, 2025-03-26 and 2024-11-05.",
                             pv));
    if (!accepts_sse(apr_table_get(r->headers_in, "Accept")))
        return formsvc_send_problem(
            r, fs_error_make(r->pool, "not-acceptable",
                             "GET /mcp answers a stream of server messages: send Accept: "
                             "text/event-stream."));
    const char *sid;
    fs_error *e = formsvc_mcp_session_of(r, &sid);
    if (e)
        return formsvc_send_problem(r, e);
    if (!sid)
        return formsvc_send_problem(
            r, fs_error_make(r->pool, "malformed-request",
                             "A stream belongs to a session: send the Mcp-Session-Id that "
                             "initialize answered."));
    formsvc_principal *who = formsvc_req_get(r)->who;
    const formsvc_global *g = formsvc_global_conf();
    /* the account's streams on every machine first (429: the account's
     * doing), then this child's threads (503: the server's) */
    const char *stream_id = fs_id_new(r->pool, "mst_");
    if (!stream_id)
        return formsvc_send_problem(r, fs_error_internal(r->pool, "no random bytes for a stream"));
    int lease = 3 * g->mcp_stream_keepalive + 5;
    fs_mcp_outcome out;
    if ((e = fs_store_mcp_stream_open(formsvc_store(r), stream_id, who->user_id, sid,
                                      g->mcp_streams_account, lease, &out)))
        return formsvc_send_problem(r, e);
    if (out == FS_MCP_FULL)
        return too_many(r, "rate-limited",
                        apr_psprintf(r->pool,
                                     "The account has %d MCP streams open, as many as it may; "
                                     "close one first.",
                                     g->mcp_streams_account));
    if (out == FS_MCP_NO_SESSION)
        return formsvc_send_problem(
            r, fs_error_make(r->pool, "not-found", "The MCP session ended meanwhile."));
    formsvc_mcp_place *place = formsvc_mcp_place_begin(r);
    if (!place) {
        fs_store_mcp_stream_close(formsvc_store(r), stream_id);
        return too_many(r, "service-unavailable",
                        "This server has as many MCP streams open as it takes; try again in a "
                        "few seconds (or another machine).");
    }

    /* where the stream starts: after the event the client saw last, or
     * where the session began (so an update between a subscription and
     * the stream's opening is told too) */
    const char *cursor = NULL, *last = apr_table_get(r->headers_in, "Last-Event-ID");
    int resumed = 0;
    if (last && fs_id_valid(last, "evt_")) {
        if ((e = fs_store_event_exists(formsvc_store(r), who->user_id, last, &resumed)))
            goto failed;
        if (resumed)
            cursor = last;
    }
    if (!cursor &&
        (e = fs_store_mcp_session_start_event(formsvc_store(r), sid, who->user_id, &cursor)))
        goto failed;

    apr_table_setn(r->headers_out, "Cache-Control", "no-store");
    apr_table_setn(r->headers_out, "X-Accel-Buffering", "no");
    apr_table_setn(r->subprocess_env, "no-gzip", "1");
    formsvc_send_start(r, 200, "text/event-stream");
    if (r->header_only) {
        fs_store_mcp_stream_close(formsvc_store(r), stream_id);
        formsvc_db_release(r);
        return OK;
    }
    /* the priming event: the reconnect delay and, when there is one, the
     * cursor as the event id the client sends back when it reconnects */
    send_text(r, apr_psprintf(r->pool, "retry: %d\n%s%s%s\n", RETRY_MS, cursor ? "id: " : "",
                              cursor ? cursor : "", cursor ? "\n" : ""));
    /* the cursor and the id the client saw last, in buffers of their own:
     * a long stream allocates nothing per event from the request pool */
    char cur_buf[64], sent_buf[64];
    apr_cpystrn(cur_buf, cursor ? cursor : "", sizeof(cur_buf));
    apr_cpystrn(sent_buf, cur_buf, sizeof(sent_buf));
    apr_time_t now = apr_time_now();
    apr_time_t end = now + apr_time_from_sec(g->mcp_stream_max_age);
    if (who->expires > 0 && apr_time_from_sec(who->expires) < end)
        end = apr_time_from_sec(who->expires); /* never outlives its credential */
    apr_time_t next_keepalive = now + apr_time_from_sec(g->mcp_stream_keepalive);
    apr_pool_t *lp;
    apr_pool_create(&lp, r->pool);
    const char *why = "its time is up";
    int full = 0; /* the last read filled a page: read on at once */
    for (;;) {
        formsvc_db_release(r);
        if (formsvc_event_wait_stopping()) {
            why = "the server is stopping or restarting";
            break;
        }
        if (r->connection->aborted ||
            formsvc_mcp_client_gone_within(r, full ? 0 : apr_time_from_msec(POLL_MS))) {
            why = "the client went away";
            break;
        }
        now = apr_time_now();
        if (now >= end)
            break;
        apr_pool_clear(lp);
        fs_store *st = fs_store_sub(formsvc_store(r), lp); /* results cleared each round */
        fs_mcp_update *up;
        int n;
        if ((e = fs_store_mcp_updates(st, sid, who->user_id, cursor, UPDATES_PAGE, &up, &n))) {
            why = "the database did not answer";
            break;
        }
        full = n == UPDATES_PAGE;
        for (int i = 0; i < n; i++) {
            apr_cpystrn(cur_buf, up[i].event_id, sizeof(cur_buf));
            cursor = cur_buf;
            /* only what this stream's own credential may read: the
             * session is the account's, its subscriptions may have been
             * made by a broader credential */
            if (!up[i].uri || !fs_mcp_res_readable(lp, who->scopes, up[i].uri))
                continue;
            json_object *note = json_object_new_object(), *params = json_object_new_object();
            json_object_object_add(note, "jsonrpc", json_object_new_string("2.0"));
            json_object_object_add(note, "method",
                                   json_object_new_string("notifications/resources/updated"));
            json_object_object_add(params, "uri", json_object_new_string(up[i].uri));
            json_object_object_add(note, "params", params);
            send_text(r, apr_psprintf(lp, "id: %s\ndata: %s\n\n", cursor,
                                      fs_json_str(lp, fs_json_own(lp, note))));
            apr_cpystrn(sent_buf, cur_buf, sizeof(sent_buf));
        }
        if (now >= next_keepalive) {
            int alive = 0;
            if ((e = fs_store_mcp_stream_renew(st, stream_id, who->user_id, sid, who->key_id, lease,
                                               &alive))) {
                why = "the database did not answer";
                break;
            }
            if (!alive) {
                why = "the session or the credential ended";
                break;
            }
            /* a comment keeps proxies from closing an idle stream; the
             * cursor, when it moved past events of no subscription, as an
             * event id without data, so a reconnect starts from there */
            int moved = strcmp(cur_buf, sent_buf) != 0;
            send_text(r, moved ? apr_pstrcat(lp, ": keep-alive\nid: ", cursor, "\n\n", NULL)
                               : ": keep-alive\n\n");
            apr_cpystrn(sent_buf, cur_buf, sizeof(sent_buf));
            next_keepalive = now + apr_time_from_sec(g->mcp_stream_keepalive);
        }
    }
    FORMSVC_LOG(r, APLOG_DEBUG, 01284, "MCP stream %s of session %s ends: %s", stream_id, sid, why);
    if (e)
        FORMSVC_LOG(r, APLOG_INFO, 01285, "MCP stream %s ends early: %s", stream_id,
                    e->cause ? e->cause : e->detail);
    apr_pool_destroy(lp); /* e is in it */
    /* the lease goes back now (else it runs out by itself) */
    fs_store_mcp_stream_close(formsvc_store(r), stream_id);
    formsvc_db_release(r);
    formsvc_mcp_place_end(r, place);
    return OK;

failed:
    fs_store_mcp_stream_close(formsvc_store(r), stream_id);
    return formsvc_send_problem(r, e);
}

/* DELETE /mcp: ends the session of Mcp-Session-Id, with its
 * subscriptions; its streams end at their next keep-alive. */
static int formsvc_h_mcp_delete(request_rec *r, const char *const *caps) {
    (void)caps;
    const char *sid;
    fs_error *e = formsvc_mcp_session_of(r, &sid);
    if (e)
        return formsvc_send_problem(r, e);
    if (!sid)
        return formsvc_send_problem(r, fs_error_make(r->pool, "malformed-request",
                                                     "Name the session to end in Mcp-Session-Id."));
    int deleted;
    if ((e = fs_store_mcp_session_delete(formsvc_store(r), sid, formsvc_req_get(r)->who->user_id,
                                         &deleted)))
        return formsvc_send_problem(r, e);
    return formsvc_send_empty(r, HTTP_NO_CONTENT);
}

const formsvc_route formsvc_routes_mcp_stream[] = {{M_GET, "/mcp", formsvc_h_mcp_stream, 0, 1},
                                                   {M_DELETE, "/mcp", formsvc_h_mcp_delete, 0, 1},
                                                   {0, NULL, NULL, 0, 0}};
