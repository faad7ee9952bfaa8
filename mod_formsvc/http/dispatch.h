/* dispatch: runs a route handler inside the current request, with a
 * synthetic method, path, query and body, and captures its answer instead
 * of sending it. The MCP tools (handle_mcp.c) use it so that every tool goes
 * through exactly the code, scope checks and problems of its REST route.
 *
 * While q->capture is set, request.c reads the body from the capture
 * instead of the client, and every answer (response.h) is stored in the
 * capture instead of being written to the client. Nothing else in the
 * handlers knows about it. */
#ifndef FORMSVC_DISPATCH_H
#define FORMSVC_DISPATCH_H

#include <httpd.h>

#include "http/capture.h"

/* Runs method + path (relative to the base path, e.g. "/v1/forms/frm_x")
 * with query (without '?', may be NULL) and body (may be NULL) for the
 * authenticated caller of r. headers (may be NULL) are the only request
 * headers the handler sees besides Accept: application/json when they
 * name no Accept of their own (e.g. If-Match; Accept: text/csv). The route's scope is checked as
 * the router does; the request's rate limit is not counted again. The answer is in *cap. */
void formsvc_dispatch(request_rec *r, int method, const char *path, const char *query,
                      const char *body, apr_table_t *headers, formsvc_capture *cap);

#endif
