/* mcp_tools: the table of MCP tools. Each tool names the REST route it
 * runs (method and path template), which arguments fill the path, the
 * query and the If-Match header, and whether the remaining arguments are
 * the JSON body. handle_mcp.c turns a tools/call into that REST request
 * and runs it through dispatch.c, so a tool can do exactly what its route
 * does, with the same scope checks and problems. */
#ifndef FORMSVC_MCP_TOOLS_H
#define FORMSVC_MCP_TOOLS_H

typedef struct formsvc_mcp_tool {
    const char *name, *title, *description;
    int method;        /* M_GET, ... */
    const char *path;  /* "/v1/forms/{formId}": {arg} placeholders */
    const char *query; /* "status:s limit:i cursor:s": query arguments and types
                        * (s string, i integer, b boolean), or NULL */
    int body;          /* 1: the other arguments are the JSON body */
    int if_match;      /* 1: accepts ifMatchVersion (sent as If-Match) */
    int read_only, destructive, idempotent;
    const char *input_schema; /* JSON Schema of arguments */
} formsvc_mcp_tool;

extern const formsvc_mcp_tool formsvc_mcp_tools[];

#endif
