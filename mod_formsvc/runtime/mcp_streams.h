/* mcp_streams: how many MCP streams (GET /mcp) may be open at once in this
 * httpd child (FormsvcMCPStreams, its first argument). A stream holds a
 * worker thread for its life (never a database connection while it
 * waits), so the bound keeps most of ThreadsPerChild for everything else.
 * The per-account bound is counted in PostgreSQL across machines
 * (fs_store_mcp_stream_open), not here. */
#ifndef FORMSVC_MCP_STREAMS_H
#define FORMSVC_MCP_STREAMS_H

#include <httpd.h>

typedef struct formsvc_mcp_place formsvc_mcp_place;

/* Takes one of the child's places for a stream, held until
 * formsvc_mcp_place_end or the end of r; NULL when every place is taken
 * (exact under concurrent requests: atomics, no lock). */
formsvc_mcp_place *formsvc_mcp_place_begin(request_rec *r);
/* Gives the place back at once; NULL is fine. */
void formsvc_mcp_place_end(request_rec *r, formsvc_mcp_place *p);

#endif
