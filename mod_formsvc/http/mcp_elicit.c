/* mcp_elicit: ask_human asked in the MCP client (mcp_elicit.h). The wait is
 * a stream's: one worker thread, counted with the MCP streams of the
 * account and of the child, a read of one row every half second on a
 * pooled connection taken for that read only, keep-alive comments, and an
 * end at the tool's wait, when the client goes away or when the child
 * stops. */
#include "http/mcp_elicit.h"
#include "fs_json.h"
#include "fs_scope.h"
#include "fs_secret.h"
#include "fs_store_asks.h"
#include "fs_store_mcp.h"
#include "http/asks.h"
#include "http/auth.h"
#include "http/dispatch.h"
#include "http/links.h"
#include "http/mcp_session.h"
#include "http/request.h"
#include "http/response.h"
#include "runtime/config_global.h"
#include "runtime/log.h"
#include "runtime/mcp_streams.h"
#include "runtime/request_ctx.h"
#include "runtime/webhooks.h"

#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

#define POLL_MS 500

/* Everything this file writes to the client goes through here: the pooled
 * connection goes back first, so a slow reader never holds one. */
static void send_text(request_rec *r, const char *s, apr_size_t len) {
    formsvc_db_release(r);
    formsvc_send_more(r, s, len, 1);
}

static void send_event(request_rec *r, apr_pool_t *p, json_object *msg) {
    const char *s = apr_pstrcat(p, "data: ", fs_json_str(p, msg), "\n\n", NULL);
    send_text(r, s, strlen(s));
}

/* The ask as GET /v1/asks/{id}?wait= answers it, as a capture. */
static void ask_by_route(request_rec *r, const char *ask_id, int wait, formsvc_capture *cap) {
    formsvc_dispatch(r, M_GET, apr_pstrcat(r->pool, "/v1/asks/", ask_id, NULL),
                     wait > 0 ? apr_psprintf(r->pool, "wait=%d", wait) : NULL, NULL, NULL, cap);
}

/* What the tool's result says of the elicitation, by the request's state. */
static const char *outcome_of(const char *state) {
    return !state                      ? "unanswered"
           : !strcmp(state, "accept")  ? "accepted"
           : !strcmp(state, "decline") ? "declined"
           : !strcmp(state, "cancel")  ? "cancelled"
           : !strcmp(state, "invalid") ? "invalid"
                                       : "unanswered";
}

static int done_state(const char *s) {
    return s && (!strcmp(s, "accept") || !strcmp(s, "decline") || !strcmp(s, "cancel") ||
                 !strcmp(s, "invalid"));
}

formsvc_elicit_how formsvc_mcp_elicit(request_rec *r, const char *sid, json_object *args, int wait,
                                      formsvc_capture *cap) {
    const char *accept = apr_table_get(r->headers_in, "Accept");
    if (!sid || wait <= 0 || fs_json_get(args, "to") || !accept ||
        !ap_strcasestr(accept, "text/event-stream") ||
        formsvc_need_scope(r, FS_SC_SUBMISSIONS_READ))
        return FORMSVC_ELICIT_NO; /* the route says what it says of these */
    formsvc_principal *who = formsvc_req_get(r)->who;
    int elicits = 0;
    const char *why;
    if (fs_store_mcp_session_elicits(formsvc_store(r), sid, who->user_id, &elicits) || !elicits)
        return FORMSVC_ELICIT_NO;
    json_object *schema = fs_mcp_elicit_schema(r->pool, fs_json_get(args, "schema"), &why);
    if (!schema)
        return FORMSVC_ELICIT_NO; /* the link alone; an invalid schema is the route's 422 */

    /* the ask, made by its route without waiting */
    json_object *body = fs_json_own(r->pool, json_object_new_object());
    json_object_object_foreach(args, k, v) {
        if (strcmp(k, "wait"))
            json_object_object_add(body, k, json_object_get(v));
    }
    formsvc_dispatch(r, M_POST, "/v1/asks", NULL, fs_json_str(r->pool, body), NULL, cap);
    if (cap->status != 201 || !cap->body)
        return FORMSVC_ELICIT_JSON;
    json_object *made = fs_json_parse_trusted(r->pool, cap->body);
    const char *ask_id = json_object_get_string(fs_json_get(made, "id"));
    json_object *message = fs_json_get(args, "message");
    if (!ask_id || !message)
        return FORMSVC_ELICIT_JSON;

    /* a stream's place: the account's streams on every machine, then this
     * child's; none to spare: the ordinary wait on the link */
    const formsvc_global *g = formsvc_global_conf();
    const char *stream_id = fs_id_new(r->pool, "mst_"), *req_id = fs_id_new(r->pool, "mrq_");
    int lease = 3 * g->mcp_stream_keepalive + 5;
    fs_mcp_outcome out = FS_MCP_FULL;
    formsvc_mcp_place *place = NULL;
    if (!stream_id || !req_id ||
        fs_store_mcp_stream_open(formsvc_store(r), stream_id, who->user_id, sid,
                                 g->mcp_streams_account, lease, &out) ||
        out != FS_MCP_OK || !(place = formsvc_mcp_place_begin(r)) ||
        fs_store_mcp_request_create(formsvc_store(r), req_id, sid, who->user_id, ask_id)) {
        if (out == FS_MCP_OK)
            fs_store_mcp_stream_close(formsvc_store(r), stream_id);
        formsvc_mcp_place_end(r, place);
        FORMSVC_LOG(r, APLOG_DEBUG, 02262,
                    "MCP elicitation for ask %s not sent: no stream to spare or the database "
                    "did not answer; the ask waits on its link",
                    ask_id);
        ask_by_route(r, ask_id, wait, cap);
        return FORMSVC_ELICIT_JSON;
    }

    apr_table_setn(r->headers_out, "Cache-Control", "no-store");
    apr_table_setn(r->headers_out, "X-Accel-Buffering", "no");
    apr_table_setn(r->subprocess_env, "no-gzip", "1");
    formsvc_send_start(r, 200, "text/event-stream");
    json_object *req = fs_json_own(r->pool, json_object_new_object()),
                *params = json_object_new_object();
    json_object_object_add(req, "jsonrpc", json_object_new_string("2.0"));
    json_object_object_add(req, "id", json_object_new_string(req_id));
    json_object_object_add(req, "method", json_object_new_string("elicitation/create"));
    json_object_object_add(params, "message", json_object_get(message));
    json_object_object_add(params, "requestedSchema", json_object_get(schema));
    json_object_object_add(req, "params", params);
    send_event(r, r->pool, req);

    apr_time_t now = apr_time_now(), end = now + apr_time_from_sec(wait);
    apr_time_t next_keepalive = now + apr_time_from_sec(g->mcp_stream_keepalive);
    apr_pool_t *lp;
    apr_pool_create(&lp, r->pool);
    const char *state = "pending", *why_end = "its wait is over";
    char state_buf[16] = "pending";
    int gone = 0;
    fs_error *e = NULL;
    for (;;) {
        formsvc_db_release(r);
        if (formsvc_event_wait_stopping()) {
            why_end = "the server is stopping or restarting";
            break;
        }
        if (r->connection->aborted ||
            formsvc_mcp_client_gone_within(r, apr_time_from_msec(POLL_MS))) {
            why_end = "the client went away";
            gone = 1;
            break;
        }
        apr_pool_clear(lp);
        fs_store *st = fs_store_sub(formsvc_store(r), lp);
        const char *s;
        if ((e = fs_store_mcp_request_state(st, req_id, &s))) {
            why_end = "the database did not answer";
            break;
        }
        if (!s) {
            why_end = "the session ended";
            break;
        }
        apr_cpystrn(state_buf, s, sizeof(state_buf));
        state = state_buf;
        if (done_state(state)) {
            why_end = "the client answered";
            break;
        }
        now = apr_time_now();
        /* a response being stored as the wait ends is waited for a little */
        if (now >= end && (strcmp(state, "answering") || now >= end + apr_time_from_sec(5)))
            break;
        if (now >= next_keepalive) {
            int alive = 0;
            if ((e = fs_store_mcp_stream_renew(st, stream_id, who->user_id, sid, who->key_id, lease,
                                               &alive))) {
                why_end = "the database did not answer";
                break;
            }
            if (!alive) {
                why_end = "the session or the credential ended";
                break;
            }
            send_text(r, ": keep-alive\n\n", 14);
            next_keepalive = now + apr_time_from_sec(g->mcp_stream_keepalive);
        }
    }
    FORMSVC_LOG(r, APLOG_DEBUG, 02260, "MCP elicitation %s of ask %s ends (%s): %s", req_id, ask_id,
                state, why_end);
    if (e)
        FORMSVC_LOG(r, APLOG_INFO, 02261, "MCP elicitation %s ends early: %s", req_id,
                    e->cause ? e->cause : e->detail);
    apr_pool_destroy(lp); /* e is in it */
    if (!done_state(state)) {
        /* no answer in time: the request is withdrawn (a client that
         * answers still may, while the ask is pending) and the ask stays
         * with its link */
        int moved;
        fs_store_mcp_request_finish(formsvc_store(r), req_id, "pending", "ended", &moved);
        if (!gone) {
            json_object *n = fs_json_own(r->pool, json_object_new_object()),
                        *np = json_object_new_object();
            json_object_object_add(n, "jsonrpc", json_object_new_string("2.0"));
            json_object_object_add(n, "method", json_object_new_string("notifications/cancelled"));
            json_object_object_add(np, "requestId", json_object_new_string(req_id));
            json_object_object_add(
                np, "reason",
                json_object_new_string("The tool's wait is over; the person can still answer "
                                       "through the ask's link."));
            json_object_object_add(n, "params", np);
            send_event(r, r->pool, n);
        }
    }
    fs_store_mcp_stream_close(formsvc_store(r), stream_id);
    formsvc_mcp_place_end(r, place);

    /* the tool's answer: the ask as it is now */
    fs_ask_row *a = NULL;
    e = fs_store_ask_get(formsvc_store(r), who->user_id, formsvc_tree_root(r), ask_id, &a);
    formsvc_db_release(r);
    if (e || !a) {
        cap->status = e ? e->status : 404;
        cap->type = "application/problem+json";
        cap->body =
            fs_problem_render(r->pool, e ? e : fs_error_make(r->pool, "not-found", "No such ask."),
                              formsvc_base_url(r), "/v1/asks");
        return FORMSVC_ELICIT_SSE;
    }
    json_object *o = formsvc_ask_obj(r, a);
    json_object_object_add(o, "elicitation", json_object_new_string(outcome_of(state)));
    cap->status = 200;
    cap->type = "application/json";
    cap->body = fs_json_str(r->pool, o);
    cap->headers = NULL;
    return FORMSVC_ELICIT_SSE;
}

int formsvc_mcp_elicit_end(request_rec *r, json_object *msg) {
    send_event(r, r->pool, msg);
    formsvc_db_release(r);
    return OK;
}

/* Settles the claimed request as to and answers: the problem e (NULL: 202). */
static int settle(request_rec *r, const char *req_id, const char *to, fs_error *e) {
    int moved;
    fs_error *fe = fs_store_mcp_request_finish(formsvc_store(r), req_id, "answering", to, &moved);
    if (e)
        return formsvc_send_problem(r, e);
    if (fe)
        return formsvc_send_problem(r, fe);
    return formsvc_send_empty(r, HTTP_ACCEPTED);
}

static fs_error *invalid_result(request_rec *r, const char *pointer, const char *detail) {
    fs_error *e = fs_error_validation(r->pool);
    fs_error_add(r->pool, e, pointer, "type", "%s", detail);
    return e;
}

int formsvc_mcp_elicit_answer(request_rec *r, const char *sid, const fs_rpc_msg *m) {
    const char *req_id = json_object_is_type(m->id, json_type_string)
                             ? json_object_get_string(m->id)
                             : json_object_to_json_string(m->id);
    formsvc_principal *who = formsvc_req_get(r)->who;
    const char *ask_id = NULL;
    int known = 0;
    fs_error *e;
    if (sid && fs_id_valid(req_id, "mrq_") &&
        (e = fs_store_mcp_request_claim(formsvc_store(r), req_id, sid, who->user_id, &ask_id,
                                        &known)))
        return formsvc_send_problem(r, e);
    if (!ask_id && known) /* answered before: the first response won */
        return formsvc_send_empty(r, HTTP_ACCEPTED);
    if (!ask_id)
        return formsvc_send_problem(
            r, fs_error_make(r->pool, "not-found",
                             "No request of this server in this MCP session has the id %s: a "
                             "response answers a request the server sent on the session's "
                             "stream, with the session's Mcp-Session-Id.",
                             req_id));
    fs_ask_row *a = NULL;
    /* the server's own use of the link: whoever answers */
    if ((e = fs_store_ask_get(formsvc_store(r), who->user_id, NULL, ask_id, &a)) || !a)
        return settle(r, req_id, "invalid",
                      e ? e : fs_error_make(r->pool, "not-found", "The ask is gone."));
    json_object *ask = fs_json_parse_trusted(r->pool, a->json);
    const char *link_id = json_object_get_string(fs_json_get(ask, "linkId"));
    const char *form_id = json_object_get_string(fs_json_get(ask, "formId"));
    const char *token = link_id ? formsvc_link_open(r, link_id, a->sealed) : NULL;
    if (!token || !form_id)
        return settle(r, req_id, "invalid",
                      fs_error_internal(r->pool, "the link of ask %s cannot be opened", ask_id));

    /* an error response: the client could not ask; the link remains */
    if (m->error || !m->result)
        return settle(r, req_id, "cancel", NULL);
    json_object *action = fs_json_get(m->result, "action");
    const char *act = action && json_object_is_type(action, json_type_string)
                          ? json_object_get_string(action)
                          : "";
    if (!strcmp(act, "cancel"))
        return settle(r, req_id, "cancel", NULL);
    if (!strcmp(act, "decline")) {
        const char *status;
        if ((e = fs_store_ask_decline(formsvc_store(r), form_id, formsvc_link_token_hash(r, token),
                                      &status)))
            return settle(r, req_id, "pending", e); /* may be sent again */
        if (status && !strcmp(status, "declined"))
            return settle(r, req_id, "decline", NULL);
        return settle(r, req_id, "invalid",
                      fs_error_make(r->pool, "invalid-state", "The ask is %s: nothing changed.",
                                    status ? status : "gone"));
    }
    if (strcmp(act, "accept"))
        return settle(
            r, req_id, "invalid",
            invalid_result(r, "/result/action", "result.action is accept, decline or cancel."));
    json_object *content = fs_json_get(m->result, "content");
    if (!content)
        content = fs_json_own(r->pool, json_object_new_object());
    if (!json_object_is_type(content, json_type_object))
        return settle(
            r, req_id, "invalid",
            invalid_result(r, "/result/content", "result.content is an object of the answers."));

    /* the answer goes where the person's form post goes: the public
     * submission through the ask's link, with the form's validation */
    apr_table_t *h = apr_table_make(r->pool, 2);
    apr_table_setn(h, "Content-Type", "application/json");
    formsvc_capture cap;
    formsvc_dispatch(r, M_POST, apr_pstrcat(r->pool, "/f/", a->ref, NULL),
                     apr_pstrcat(r->pool, "l=", token, NULL), fs_json_str(r->pool, content), h,
                     &cap);
    if (cap.status >= 200 && cap.status < 300)
        return settle(r, req_id, "accept", NULL);
    int moved;
    /* passing (503, 429): the client may send it again; else refused */
    fs_store_mcp_request_finish(formsvc_store(r), req_id, "answering",
                                cap.status >= 500 || cap.status == 429 ? "pending" : "invalid",
                                &moved);
    if (cap.headers && apr_table_get(cap.headers, "Retry-After"))
        apr_table_setn(r->headers_out, "Retry-After", apr_table_get(cap.headers, "Retry-After"));
    return formsvc_send_body(r, cap.status, cap.type, cap.body, cap.body ? strlen(cap.body) : 0);
}
