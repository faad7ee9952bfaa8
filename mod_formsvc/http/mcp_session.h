/* mcp_session: the Mcp-Session-Id of the MCP transport (docs/mcp.md,
 * "Streams and sessions"), shared by POST /mcp (handle_mcp.c) and the
 * stream and session end of GET and DELETE /mcp (handle_mcp_stream.c).
 * Sessions live in PostgreSQL (fs_store_mcp.h), so any machine serves
 * any request of a session. */
#ifndef FORMSVC_MCP_SESSION_H
#define FORMSVC_MCP_SESSION_H

#include <httpd.h>

#include "fs_error.h"

/* The request's Mcp-Session-Id when it names a live session of the
 * caller's account: *sid (NULL when the request has none). A problem for
 * a malformed one (400) and for one that is unknown, ended or another
 * account's (404 not-found: the client starts a new session, as the
 * transport says). */
fs_error *formsvc_mcp_session_of(request_rec *r, const char **sid);

/* Starts a session for the caller and sets the Mcp-Session-Id header of
 * the answer; *sid gets its id. elicitation: the client declared the
 * elicitation capability in initialize. */
fs_error *formsvc_mcp_session_start(request_rec *r, int elicitation, const char **sid);

/* Waits up to t for the client of an HTTP/1 connection to go away (its
 * socket turns readable: end of file, a reset, or bytes it should not
 * send while it reads a stream). 1 when it went. Over HTTP/2 the socket
 * is shared by other requests: a plain sleep. The waits of the streams
 * (GET /mcp, an ask_human answered as a stream). */
int formsvc_mcp_client_gone_within(request_rec *r, apr_interval_time_t t);

#endif
