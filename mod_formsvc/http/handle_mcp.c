/* handle_mcp: POST /mcp, the Model Context Protocol over the Streamable HTTP
 * transport (JSON answers only, no SSE stream, no session). JSON-RPC 2.0
 * requests: initialize, ping, tools/list, tools/call; notifications are
 * accepted with 202. The tools (mcp_tools.c) run their REST routes through
 * dispatch.c. The route needs a bearer credential but no scope: each tool
 * checks the scope of its route. */
#include "dispatch.h"
#include "fs_json.h"
#include "glue.h"
#include "mcp_tools.h"

#include <apr_lib.h>
#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

/* Newest first: an unknown version asked for in initialize gets the first. */
static const char *const versions[] = {"2025-06-18", "2025-03-26", "2024-11-05", NULL};

#define RPC_PARSE_ERROR -32700
#define RPC_INVALID_REQUEST -32600
#define RPC_METHOD_NOT_FOUND -32601
#define RPC_INVALID_PARAMS -32602

static int version_known(const char *v) {
    for (int i = 0; versions[i]; i++)
        if (!strcmp(v, versions[i]))
            return 1;
    return 0;
}

static json_object *rpc_new(request_rec *r, json_object *id) {
    json_object *o = fs_json_own(r->pool, json_object_new_object());
    json_object_object_add(o, "jsonrpc", json_object_new_string("2.0"));
    json_object_object_add(o, "id", id ? json_object_get(id) : NULL);
    return o;
}

/* A JSON-RPC error answer. HTTP 400 when the message itself is broken
 * (no usable id), 200 otherwise, as the MCP TypeScript SDK answers. */
static int rpc_error(request_rec *r, int http, json_object *id, int code, const char *msg) {
    json_object *o = rpc_new(r, id);
    json_object *e = json_object_new_object();
    json_object_object_add(e, "code", json_object_new_int(code));
    json_object_object_add(e, "message", json_object_new_string(msg));
    json_object_object_add(o, "error", e);
    return formsvc_send_obj(r, http, o);
}

static int rpc_result(request_rec *r, json_object *id, json_object *result) {
    json_object *o = rpc_new(r, id);
    json_object_object_add(o, "result", result);
    return formsvc_send_obj(r, 200, o);
}

/* ---- methods ---------------------------------------------------------- */

static int m_initialize(request_rec *r, json_object *id, json_object *params) {
    json_object *pv = fs_json_get(params, "protocolVersion");
    if (!pv || !json_object_is_type(pv, json_type_string))
        return rpc_error(r, 200, id, RPC_INVALID_PARAMS, "params.protocolVersion is required.");
    const char *want = json_object_get_string(pv);
    json_object *res = json_object_new_object();
    json_object_object_add(res, "protocolVersion",
                           json_object_new_string(version_known(want) ? want : versions[0]));
    json_object *capa = json_object_new_object(), *tools = json_object_new_object();
    json_object_object_add(tools, "listChanged", json_object_new_boolean(0));
    json_object_object_add(capa, "tools", tools);
    json_object_object_add(res, "capabilities", capa);
    json_object *info = json_object_new_object();
    json_object_object_add(info, "name", json_object_new_string("formsvc"));
    json_object_object_add(info, "title", json_object_new_string("formsvc forms"));
    json_object_object_add(info, "version", json_object_new_string("1.0"));
    json_object_object_add(res, "serverInfo", info);
    json_object_object_add(
        res, "instructions",
        json_object_new_string(
            "Create forms (create_form, add_field), publish them (publish_form) and share "
            "their publicUrl; read what people submitted with list_submissions. Each tool "
            "runs the REST operation named in its description with the same scopes; a "
            "failed operation is a result with isError and an RFC 9457 problem."));
    return rpc_result(r, id, res);
}

static int m_tools_list(request_rec *r, json_object *id) {
    json_object *arr = json_object_new_array();
    for (const formsvc_mcp_tool *t = formsvc_mcp_tools; t->name; t++) {
        json_object *o = json_object_new_object();
        json_object_object_add(o, "name", json_object_new_string(t->name));
        json_object_object_add(o, "title", json_object_new_string(t->title));
        json_object_object_add(o, "description", json_object_new_string(t->description));
        json_object *schema = json_tokener_parse(t->input_schema);
        if (!schema) { /* a typo in mcp_tools.c; the test suite catches it */
            FORMSVC_LOG(r, APLOG_ERR, 11201, "MCP tool %s has an invalid input schema", t->name);
            schema = json_object_new_object();
        }
        json_object_object_add(o, "inputSchema", schema);
        json_object *ann = json_object_new_object();
        json_object_object_add(ann, "title", json_object_new_string(t->title));
        json_object_object_add(ann, "readOnlyHint", json_object_new_boolean(t->read_only));
        if (!t->read_only) {
            json_object_object_add(ann, "destructiveHint", json_object_new_boolean(t->destructive));
            json_object_object_add(ann, "idempotentHint", json_object_new_boolean(t->idempotent));
        }
        json_object_object_add(ann, "openWorldHint", json_object_new_boolean(0));
        json_object_object_add(o, "annotations", ann);
        json_object_array_add(arr, o);
    }
    json_object *res = json_object_new_object();
    json_object_object_add(res, "tools", arr);
    return rpc_result(r, id, res);
}

/* An identifier that can stand in a path segment as it is. */
static int id_ok(const char *s) {
    apr_size_t n = strlen(s);
    if (n == 0 || n > 200)
        return 0;
    for (; *s; s++)
        if (!apr_isalnum(*s) && *s != '_' && *s != '-')
            return 0;
    return 1;
}

/* Is name one of the query arguments in spec ("a:s b:i")? Its type or 0. */
static char query_type(const char *spec, const char *name) {
    apr_size_t n = strlen(name);
    for (const char *p = spec; p && *p;) {
        const char *colon = strchr(p, ':');
        if (!colon)
            break;
        if ((apr_size_t)(colon - p) == n && !strncmp(p, name, n))
            return colon[1];
        p = strchr(colon, ' ');
        p = p ? p + 1 : NULL;
    }
    return 0;
}

/* Builds the REST request of tool t from args. NULL, or a message for
 * -32602 invalid params. */
static const char *build_call(request_rec *r, const formsvc_mcp_tool *t, json_object *args,
                              const char **path, const char **query, const char **body,
                              apr_table_t **headers) {
    /* path: every {arg} filled from a string argument */
    const char *p = "";
    apr_hash_t *used = apr_hash_make(r->pool);
    for (const char *s = t->path; *s;) {
        const char *open = strchr(s, '{');
        if (!open) {
            p = apr_pstrcat(r->pool, p, s, NULL);
            break;
        }
        const char *close = strchr(open, '}');
        const char *name = apr_pstrndup(r->pool, open + 1, (apr_size_t)(close - open - 1));
        json_object *v = fs_json_get(args, name);
        if (!v || !json_object_is_type(v, json_type_string))
            return apr_psprintf(r->pool, "Argument %s is required and must be a string.", name);
        if (!id_ok(json_object_get_string(v)))
            return apr_psprintf(r->pool, "Argument %s is not an identifier.", name);
        p = apr_pstrcat(r->pool, p, apr_pstrndup(r->pool, s, (apr_size_t)(open - s)),
                        json_object_get_string(v), NULL);
        apr_hash_set(used, name, APR_HASH_KEY_STRING, "");
        s = close + 1;
    }
    *path = p;
    *query = NULL;
    *body = NULL;
    *headers = apr_table_make(r->pool, 2);
    json_object *rest = fs_json_own(r->pool, json_object_new_object());
    json_object_object_foreach(args, k, v) {
        if (apr_hash_get(used, k, APR_HASH_KEY_STRING))
            continue;
        char qt = t->query ? query_type(t->query, k) : 0;
        if (qt) {
            const char *val;
            if (qt == 'i' && json_object_is_type(v, json_type_int))
                val = apr_psprintf(r->pool, "%" APR_INT64_T_FMT, json_object_get_int64(v));
            else if (qt == 'b' && json_object_is_type(v, json_type_boolean))
                val = json_object_get_boolean(v) ? "true" : "false";
            else if (qt == 's' && json_object_is_type(v, json_type_string))
                val = json_object_get_string(v);
            else
                return apr_psprintf(r->pool, "Argument %s must be %s.", k,
                                    qt == 'i'   ? "an integer"
                                    : qt == 'b' ? "a boolean"
                                                : "a string");
            const char *kv = apr_pstrcat(r->pool, k, "=", ap_escape_urlencoded(r->pool, val), NULL);
            *query = *query ? apr_pstrcat(r->pool, *query, "&", kv, NULL) : kv;
        } else if (t->if_match && !strcmp(k, "ifMatchVersion")) {
            if (!json_object_is_type(v, json_type_int))
                return "Argument ifMatchVersion must be an integer.";
            apr_table_setn(
                *headers, "If-Match",
                apr_psprintf(r->pool, "\"%" APR_INT64_T_FMT "\"", json_object_get_int64(v)));
        } else if (t->body) {
            json_object_object_add(rest, k, json_object_get(v));
        } else {
            return apr_psprintf(r->pool, "Unknown argument %s.", k);
        }
    }
    if (t->body)
        *body = fs_json_str(r->pool, rest);
    return NULL;
}

static int m_tools_call(request_rec *r, json_object *id, json_object *params) {
    json_object *name = fs_json_get(params, "name");
    if (!name || !json_object_is_type(name, json_type_string))
        return rpc_error(r, 200, id, RPC_INVALID_PARAMS, "params.name is required.");
    const formsvc_mcp_tool *t = formsvc_mcp_tools;
    while (t->name && strcmp(t->name, json_object_get_string(name)))
        t++;
    if (!t->name)
        return rpc_error(r, 200, id, RPC_INVALID_PARAMS,
                         apr_psprintf(r->pool, "Unknown tool: %s.", json_object_get_string(name)));
    json_object *args = fs_json_get(params, "arguments");
    if (!args)
        args = fs_json_own(r->pool, json_object_new_object());
    else if (!json_object_is_type(args, json_type_object))
        return rpc_error(r, 200, id, RPC_INVALID_PARAMS, "params.arguments must be an object.");
    const char *path = NULL, *query = NULL, *body = NULL;
    apr_table_t *headers = NULL;
    const char *bad = build_call(r, t, args, &path, &query, &body, &headers);
    if (bad)
        return rpc_error(r, 200, id, RPC_INVALID_PARAMS, bad);

    formsvc_capture cap;
    formsvc_dispatch(r, t->method, path, query, body, headers, &cap);

    json_object *res = json_object_new_object();
    json_object *structured = cap.body ? fs_json_parse_trusted(r->pool, cap.body) : NULL;
    const char *text = cap.body;
    if (!structured || !json_object_is_type(structured, json_type_object)) {
        /* 204 (a deletion) has no body: say what happened */
        structured = fs_json_own(r->pool, json_object_new_object());
        json_object_object_add(structured, "status", json_object_new_int(cap.status));
        if (cap.status == 204)
            json_object_object_add(structured, "deleted", json_object_new_boolean(1));
        text = fs_json_str(r->pool, structured);
    }
    json_object *content = json_object_new_array(), *item = json_object_new_object();
    json_object_object_add(item, "type", json_object_new_string("text"));
    json_object_object_add(item, "text", json_object_new_string(text));
    json_object_array_add(content, item);
    json_object_object_add(res, "content", content);
    json_object_object_add(res, "structuredContent", json_object_get(structured));
    json_object_object_add(res, "isError", json_object_new_boolean(cap.status >= 400));
    return rpc_result(r, id, res);
}

/* ---- transport -------------------------------------------------------- */

static int accepts_json(const char *accept) {
    if (!accept || !*accept)
        return 1;
    return ap_strcasestr(accept, "application/json") || strstr(accept, "*/*") ||
           ap_strcasestr(accept, "application/*");
}

static int formsvc_h_mcp(request_rec *r, const char *const *caps) {
    (void)caps;
    const char *pv = apr_table_get(r->headers_in, "MCP-Protocol-Version");
    if (pv && !version_known(pv))
        return formsvc_send_problem(
            r, fs_error_make(r->pool, "malformed-request",
                             "MCP-Protocol-Version %s is not supported; this server speaks "
                             "2025-06-18, 2025-03-26 and 2024-11-05.",
                             pv));
    if (!accepts_json(apr_table_get(r->headers_in, "Accept")))
        return formsvc_send_problem(
            r, fs_error_make(r->pool, "not-acceptable",
                             "This server answers MCP requests with application/json."));
    const char *ct = apr_table_get(r->headers_in, "Content-Type");
    if (!ct || strncasecmp(ct, "application/json", 16) ||
        (ct[16] && ct[16] != ';' && ct[16] != ' '))
        return formsvc_send_problem(r,
                                    fs_error_make(r->pool, "unsupported-media-type",
                                                  "Send JSON-RPC messages as application/json."));
    char *buf;
    apr_size_t len;
    fs_error *e = formsvc_read_body(r, formsvc_conf(r->server)->max_body_api, &buf, &len);
    if (e)
        return formsvc_send_problem(r, e);
    if (!buf || len == 0)
        return rpc_error(r, 400, NULL, RPC_INVALID_REQUEST, "A JSON-RPC message is required.");
    if (fs_json_check(r->pool, buf, len))
        return rpc_error(r, 400, NULL, RPC_PARSE_ERROR, "Parse error: the body is not valid JSON.");
    json_object *msg = fs_json_parse_trusted(r->pool, buf);
    if (json_object_is_type(msg, json_type_array))
        return rpc_error(r, 400, NULL, RPC_INVALID_REQUEST,
                         "JSON-RPC batches are not supported; send one message per request.");
    if (!json_object_is_type(msg, json_type_object))
        return rpc_error(r, 400, NULL, RPC_INVALID_REQUEST, "A JSON-RPC message is an object.");
    json_object *jv = fs_json_get(msg, "jsonrpc"), *method = fs_json_get(msg, "method");
    json_object *id = NULL;
    int has_id = json_object_object_get_ex(msg, "id", &id);
    int id_valid = has_id && (json_object_is_type(id, json_type_string) ||
                              json_object_is_type(id, json_type_int));
    if (!jv || !json_object_is_type(jv, json_type_string) ||
        strcmp(json_object_get_string(jv), "2.0"))
        return rpc_error(r, 400, id_valid ? id : NULL, RPC_INVALID_REQUEST,
                         "jsonrpc must be \"2.0\".");
    if (!method) {
        /* a response to a request of ours: we send none, so accept and drop */
        if (has_id && (fs_json_get(msg, "result") || fs_json_get(msg, "error")))
            return formsvc_send_empty(r, HTTP_ACCEPTED);
        return rpc_error(r, 400, id_valid ? id : NULL, RPC_INVALID_REQUEST,
                         "A JSON-RPC request has a method.");
    }
    if (!json_object_is_type(method, json_type_string))
        return rpc_error(r, 400, id_valid ? id : NULL, RPC_INVALID_REQUEST,
                         "method must be a string.");
    if (has_id && !id_valid)
        return rpc_error(r, 400, NULL, RPC_INVALID_REQUEST, "id must be a string or an integer.");
    if (!has_id) /* a notification (notifications/initialized, cancelled, ...) */
        return formsvc_send_empty(r, HTTP_ACCEPTED);
    json_object *params = fs_json_get(msg, "params");
    if (params && !json_object_is_type(params, json_type_object))
        return rpc_error(r, 200, id, RPC_INVALID_PARAMS, "params must be an object.");
    if (!params)
        params = fs_json_own(r->pool, json_object_new_object());

    const char *m = json_object_get_string(method);
    if (!strcmp(m, "initialize"))
        return m_initialize(r, id, params);
    if (!strcmp(m, "ping"))
        return rpc_result(r, id, json_object_new_object());
    if (!strcmp(m, "tools/list"))
        return m_tools_list(r, id);
    if (!strcmp(m, "tools/call"))
        return m_tools_call(r, id, params);
    return rpc_error(r, 200, id, RPC_METHOD_NOT_FOUND,
                     apr_psprintf(r->pool, "Method not found: %s.", m));
}

/* Only POST: GET (an SSE stream) and DELETE (ending a session) are 405 with
 * Allow: POST, from the router, as the transport allows. */
const formsvc_route formsvc_routes_mcp[] = {{M_POST, "/mcp", formsvc_h_mcp, 0, 1},
                                            {0, NULL, NULL, 0, 0}};
