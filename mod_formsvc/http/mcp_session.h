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
 * the answer; *sid gets its id. */
fs_error *formsvc_mcp_session_start(request_rec *r, const char **sid);

#endif
