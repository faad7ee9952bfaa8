/* fs_mcp: the pure parts of the MCP server: JSON-RPC 2.0 messages,
 * protocol versions, and the tool table with the mapping of a tool's
 * arguments onto its REST request. The httpd glue (handle_mcp.c) runs the
 * request through dispatch.c. */
#ifndef FS_MCP_H
#define FS_MCP_H

#include <apr_pools.h>
#include <json.h>

/* JSON-RPC 2.0 error codes */
#define FS_RPC_PARSE_ERROR -32700
#define FS_RPC_INVALID_REQUEST -32600
#define FS_RPC_METHOD_NOT_FOUND -32601
#define FS_RPC_INVALID_PARAMS -32602
#define FS_RPC_INTERNAL_ERROR -32603
/* MCP: resources/read of a resource that does not exist */
#define FS_RPC_RESOURCE_NOT_FOUND -32002

typedef enum {
    FS_RPC_REQUEST,      /* method and id: answer it */
    FS_RPC_NOTIFICATION, /* method, no id: nothing to answer */
    FS_RPC_RESPONSE,     /* result or error with an id: a reply to us */
    FS_RPC_BAD           /* answer the error in code/message */
} fs_rpc_kind;

typedef struct fs_rpc_msg {
    fs_rpc_kind kind;
    json_object *id;     /* REQUEST: string or integer; BAD: the id when usable, else NULL */
    const char *method;  /* REQUEST, NOTIFICATION */
    json_object *params; /* REQUEST: an object ({} when absent) */
    int code;            /* BAD: FS_RPC_* */
    const char *message; /* BAD */
    json_object *result; /* RESPONSE: its result, or NULL (then error is set) */
    json_object *error;  /* RESPONSE: its error, or NULL */
} fs_rpc_msg;

/* Classifies one message (the whole HTTP body). JSON that fs_json_check
 * refuses is a parse error; a batch (array) is an invalid request: batches
 * are not supported (MCP 2025-06-18 removed them). Objects are owned by p. */
void fs_rpc_parse(apr_pool_t *p, const char *buf, apr_size_t len, fs_rpc_msg *m);

/* {"jsonrpc":"2.0","id":id,"result":result}; takes result's reference.
 * Owned by p. */
json_object *fs_rpc_result(apr_pool_t *p, json_object *id, json_object *result);
/* {"jsonrpc":"2.0","id":id|null,"error":{code,message}}. Owned by p. */
json_object *fs_rpc_error(apr_pool_t *p, json_object *id, int code, const char *message);

/* The requestedSchema of an elicitation/create request (MCP 2025-06-18)
 * asking what schema asks: schema is the flat JSON Schema of an ask that
 * POST /v1/asks took (fs_schema_to_fields accepted it). Elicitation asks
 * only flat primitive properties, so each property is copied with the
 * keywords elicitation knows (title, description; minLength, maxLength
 * and format of a string; minimum and maximum of a number or integer; a
 * string enum) and required is kept. NULL when a property does not fit
 * (an array: a multiple choice), with *why saying which; the ask is then
 * given by its link alone. Owned by p. */
json_object *fs_mcp_elicit_schema(apr_pool_t *p, json_object *schema, const char **why);

/* The protocol versions this server speaks, newest first, NULL-ended. */
extern const char *const fs_mcp_versions[];
int fs_mcp_version_supported(const char *v);
/* What initialize answers: requested when supported, else the newest. */
const char *fs_mcp_negotiate(const char *requested);

typedef struct fs_mcp_tool {
    const char *name, *title, *description;
    const char *method; /* "GET", "POST", "PATCH", "PUT", "DELETE" */
    const char *path;   /* "/v1/forms/{formId}": {arg} placeholders */
    const char *query;  /* "status:s limit:i cursor:s": query arguments and their
                         * types (s string, i integer, b boolean; a trailing !
                         * makes one required: "formId:s!"), or NULL */
    int body;           /* 1: the other arguments are the JSON body */
    int if_match;       /* 1: accepts ifMatchVersion, sent as If-Match */
    int read_only, destructive, idempotent;
    const char *input_schema;  /* JSON Schema of the arguments */
    const char *output_schema; /* JSON Schema of structuredContent on success */
} fs_mcp_tool;

/* The tools, ending with a row whose name is NULL. */
extern const fs_mcp_tool fs_mcp_tools[];
const fs_mcp_tool *fs_mcp_tool_find(const char *name);

/* What a few tools need beyond fs_mcp_tool, by tool name. A table of its
 * own so that fs_mcp_tool and the initialisers of its rows stay as they
 * are. In fs_mcp_tools.c, ending with a row whose name is NULL. */
typedef struct fs_mcp_tool_extra {
    const char *name;
    /* the REST request's Accept (NULL: application/json); a successful
     * answer of another type is returned as an embedded resource, with
     * metadata as structuredContent (handle_mcp.c) */
    const char *accept;
    /* urlencoded query members sent on every call ("type=a.b"), or NULL */
    const char *fixed_query;
    /* 1: a successful result carries respondents' answers, which are
     * untrusted input to a model: structuredContent gets
     * "untrustedRespondentData": true (FS_MCP_UNTRUSTED) */
    int untrusted;
    /* an argument that is not sent with the REST request but kept for the
     * result (fs_mcp_call.local): get_file_url's fileId, the file looked
     * up in the submission the route answers. NULL: none */
    const char *local_arg;
} fs_mcp_tool_extra;

extern const fs_mcp_tool_extra fs_mcp_tool_extras[];
/* t's extras; a row of zeros (NULL name) for a tool without any. Never NULL. */
const fs_mcp_tool_extra *fs_mcp_tool_extra_of(const fs_mcp_tool *t);

/* The member that marks a result carrying respondents' answers. */
#define FS_MCP_UNTRUSTED "untrustedRespondentData"

/* The REST request of a tool call. */
typedef struct fs_mcp_call {
    const char *path;     /* relative to the base path */
    const char *query;    /* urlencoded, or NULL */
    const char *if_match; /* header value, or NULL */
    const char *body;     /* JSON text, or NULL */
    const char *accept;   /* Accept header value, or NULL (application/json) */
    const char *local;    /* the value of the extras' local_arg (an id), or NULL */
} fs_mcp_call;

/* Maps args (an object) onto t's REST request. NULL when fine, else the
 * message of an invalid-params error: a missing or non-identifier path
 * argument (ids must match ^[A-Za-z0-9_-]{1,200}$, so that no argument can
 * change the path), a query argument of the wrong type, a missing required
 * query argument, or an unknown argument of a tool without a body. The
 * tool's extras add their fixed query and Accept. */
const char *fs_mcp_build_call(apr_pool_t *p, const fs_mcp_tool *t, json_object *args,
                              fs_mcp_call *out);

#endif
