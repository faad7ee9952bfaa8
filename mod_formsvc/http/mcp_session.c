/* mcp_session: MCP sessions on the httpd side (mcp_session.h). */
#include "http/mcp_session.h"
#include "fs_secret.h"
#include "fs_store_mcp.h"
#include "http/auth.h"
#include "runtime/request_ctx.h"

#include <apr_poll.h>
#include <http_core.h>

fs_error *formsvc_mcp_session_of(request_rec *r, const char **sid) {
    *sid = NULL;
    const char *h = apr_table_get(r->headers_in, "Mcp-Session-Id");
    if (!h)
        return NULL;
    if (!fs_id_valid(h, "mcs_"))
        return fs_error_make(r->pool, "malformed-request",
                             "Mcp-Session-Id is not a session id of this server.");
    int exists = 0;
    fs_error *e =
        fs_store_mcp_session_exists(formsvc_store(r), h, formsvc_req_get(r)->who->user_id, &exists);
    if (e)
        return e;
    if (!exists)
        return fs_error_make(r->pool, "not-found",
                             "No such MCP session (it ended or expired): send initialize to start "
                             "a new one.");
    *sid = h;
    return NULL;
}

fs_error *formsvc_mcp_session_start(request_rec *r, int elicitation, const char **sid) {
    const char *id = fs_id_new(r->pool, "mcs_");
    if (!id)
        return fs_error_internal(r->pool, "no random bytes for an MCP session id");
    fs_error *e = fs_store_mcp_session_create(formsvc_store(r), id,
                                              formsvc_req_get(r)->who->user_id, elicitation);
    if (e)
        return e;
    apr_table_setn(r->headers_out, "Mcp-Session-Id", id);
    *sid = id;
    return NULL;
}

int formsvc_mcp_client_gone_within(request_rec *r, apr_interval_time_t t) {
    apr_socket_t *sock = r->connection->master ? NULL : ap_get_conn_socket(r->connection);
    if (!sock) {
        apr_sleep(t);
        return r->connection->aborted;
    }
    apr_pollfd_t pfd = {0};
    pfd.p = r->pool;
    pfd.desc_type = APR_POLL_SOCKET;
    pfd.reqevents = APR_POLLIN;
    pfd.desc.s = sock;
    apr_int32_t n = 0;
    apr_status_t rv = apr_poll(&pfd, 1, &n, t);
    if (rv == APR_SUCCESS && n > 0)
        return 1;
    if (rv != APR_SUCCESS && !APR_STATUS_IS_TIMEUP(rv) && !APR_STATUS_IS_EINTR(rv))
        apr_sleep(t); /* cannot tell: wait as a sleep would */
    return r->connection->aborted;
}
