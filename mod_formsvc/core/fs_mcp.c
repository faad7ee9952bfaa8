/* fs_mcp: JSON-RPC 2.0 messages, MCP protocol versions, and tool calls
 * mapped onto REST requests (fs_mcp.h). */
#include "fs_mcp.h"
#include "fs_json.h"

#include <apr_escape.h>
#include <apr_hash.h>
#include <apr_lib.h>
#include <apr_strings.h>
#include <stdint.h>

const char *const fs_mcp_versions[] = {"2025-06-18", "2025-03-26", "2024-11-05", NULL};

int fs_mcp_version_supported(const char *v) {
    for (int i = 0; v && fs_mcp_versions[i]; i++)
        if (!strcmp(v, fs_mcp_versions[i]))
            return 1;
    return 0;
}

const char *fs_mcp_negotiate(const char *requested) {
    return fs_mcp_version_supported(requested) ? requested : fs_mcp_versions[0];
}

static void bad(fs_rpc_msg *m, json_object *id, int code, const char *message) {
    m->kind = FS_RPC_BAD;
    m->id = id;
    m->code = code;
    m->message = message;
}

/* An id is echoed in the answer, so it must come back exactly as sent: a
 * string, or an integer from -(2^63-1) to 2^63-1. json-c holds a larger
 * one clamped (-2^63, or up to 2^64-1 as unsigned), and the answer would
 * carry another id than the request's, one the client matches to nothing. */
static int id_usable(json_object *id) {
    if (!id)
        return 0;
    if (json_object_is_type(id, json_type_string))
        return 1;
    return json_object_is_type(id, json_type_int) && json_object_get_int64(id) > INT64_MIN &&
           json_object_get_uint64(id) <= (uint64_t)INT64_MAX;
}

void fs_rpc_parse(apr_pool_t *p, const char *buf, apr_size_t len, fs_rpc_msg *m) {
    memset(m, 0, sizeof(*m));
    if (!buf || len == 0)
        return bad(m, NULL, FS_RPC_INVALID_REQUEST, "A JSON-RPC message is required.");
    if (fs_json_check(p, buf, len))
        return bad(m, NULL, FS_RPC_PARSE_ERROR, "Parse error: the body is not valid JSON.");
    json_object *msg = fs_json_parse_trusted(p, buf);
    if (json_object_is_type(msg, json_type_array))
        return bad(m, NULL, FS_RPC_INVALID_REQUEST,
                   "JSON-RPC batches are not supported; send one message per request.");
    if (!json_object_is_type(msg, json_type_object))
        return bad(m, NULL, FS_RPC_INVALID_REQUEST, "A JSON-RPC message is an object.");
    json_object *jv = fs_json_get(msg, "jsonrpc"), *method = fs_json_get(msg, "method");
    json_object *id = NULL;
    int has_id = json_object_object_get_ex(msg, "id", &id);
    json_object *good_id = id_usable(id) ? id : NULL;
    if (!jv || !json_object_is_type(jv, json_type_string) ||
        strcmp(json_object_get_string(jv), "2.0"))
        return bad(m, good_id, FS_RPC_INVALID_REQUEST, "jsonrpc must be \"2.0\".");
    if (!method) {
        json_object *tmp;
        if (good_id && (json_object_object_get_ex(msg, "result", &tmp) ||
                        json_object_object_get_ex(msg, "error", &tmp))) {
            m->kind = FS_RPC_RESPONSE;
            m->id = good_id;
            json_object_object_get_ex(msg, "result", &m->result);
            json_object_object_get_ex(msg, "error", &m->error);
            if (!m->result && !m->error) /* "result": null */
                m->error = fs_json_own(p, json_object_new_object());
            return;
        }
        return bad(m, good_id, FS_RPC_INVALID_REQUEST, "A JSON-RPC request has a method.");
    }
    if (!json_object_is_type(method, json_type_string))
        return bad(m, good_id, FS_RPC_INVALID_REQUEST, "method must be a string.");
    if (has_id && !good_id)
        return bad(m, NULL, FS_RPC_INVALID_REQUEST, "id must be a string or an integer.");
    m->method = json_object_get_string(method);
    if (!has_id) {
        m->kind = FS_RPC_NOTIFICATION;
        return;
    }
    json_object *params = NULL;
    int has_params = json_object_object_get_ex(msg, "params", &params);
    if (has_params && !json_object_is_type(params, json_type_object)) /* null too */
        return bad(m, good_id, FS_RPC_INVALID_PARAMS, "params must be an object.");
    m->kind = FS_RPC_REQUEST;
    m->id = good_id;
    m->params = params ? params : fs_json_own(p, json_object_new_object());
}

/* Copies the members of from named in names into to. */
static void copy_members(json_object *from, json_object *to, const char *const *names) {
    for (int i = 0; names[i]; i++) {
        json_object *v;
        if (json_object_object_get_ex(from, names[i], &v))
            json_object_object_add(to, names[i], json_object_get(v));
    }
}

json_object *fs_mcp_elicit_schema(apr_pool_t *p, json_object *schema, const char **why) {
    static const char *const COMMON[] = {"title", "description", NULL};
    static const char *const STRING[] = {"minLength", "maxLength", "format", NULL};
    static const char *const NUMBER[] = {"minimum", "maximum", NULL};
    *why = NULL;
    json_object *props = fs_json_get(schema, "properties");
    if (!props || !json_object_is_type(props, json_type_object)) {
        *why = "The schema has no properties.";
        return NULL;
    }
    json_object *out = fs_json_own(p, json_object_new_object()), *oprops = json_object_new_object();
    json_object_object_add(out, "type", json_object_new_string("object"));
    json_object_object_add(out, "properties", oprops);
    json_object_object_foreach(props, key, s) {
        json_object *tv = fs_json_get(s, "type"), *en = fs_json_get(s, "enum");
        const char *type =
            tv && json_object_is_type(tv, json_type_string) ? json_object_get_string(tv) : NULL;
        json_object *o = json_object_new_object();
        copy_members(s, o, COMMON);
        if (en && (!type || !strcmp(type, "string"))) {
            json_object_object_add(o, "type", json_object_new_string("string"));
            json_object_object_add(o, "enum", json_object_get(en));
        } else if (type && !strcmp(type, "string")) {
            json_object_object_add(o, "type", json_object_new_string("string"));
            copy_members(s, o, STRING);
        } else if (type && (!strcmp(type, "number") || !strcmp(type, "integer"))) {
            json_object_object_add(o, "type", json_object_new_string(type));
            copy_members(s, o, NUMBER);
        } else if (type && !strcmp(type, "boolean")) {
            json_object_object_add(o, "type", json_object_new_string("boolean"));
        } else {
            json_object_put(o);
            *why = apr_psprintf(p,
                                "The question %s (%s) cannot be asked in the client: elicitation "
                                "asks only strings, numbers, booleans and single choices.",
                                key, type ? type : "no type");
            return NULL;
        }
        json_object_object_add(oprops, key, o);
    }
    json_object *req = fs_json_get(schema, "required");
    if (req && json_object_is_type(req, json_type_array) && json_object_array_length(req) > 0)
        json_object_object_add(out, "required", json_object_get(req));
    return out;
}

static json_object *envelope(apr_pool_t *p, json_object *id) {
    json_object *o = fs_json_own(p, json_object_new_object());
    json_object_object_add(o, "jsonrpc", json_object_new_string("2.0"));
    json_object_object_add(o, "id", id ? json_object_get(id) : NULL);
    return o;
}

json_object *fs_rpc_result(apr_pool_t *p, json_object *id, json_object *result) {
    json_object *o = envelope(p, id);
    json_object_object_add(o, "result", result);
    return o;
}

json_object *fs_rpc_error(apr_pool_t *p, json_object *id, int code, const char *message) {
    json_object *o = envelope(p, id);
    json_object *e = json_object_new_object();
    json_object_object_add(e, "code", json_object_new_int(code));
    json_object_object_add(e, "message", json_object_new_string(message));
    json_object_object_add(o, "error", e);
    return o;
}

const fs_mcp_tool *fs_mcp_tool_find(const char *name) {
    for (const fs_mcp_tool *t = fs_mcp_tools; name && t->name; t++)
        if (!strcmp(t->name, name))
            return t;
    return NULL;
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

/* The type letter of query argument name in spec ("a:s b:i c:s!"), or 0;
 * *required is set when the letter is followed by '!'. */
static char query_type(const char *spec, const char *name, int *required) {
    apr_size_t n = strlen(name);
    for (const char *s = spec; s && *s;) {
        const char *end = strchr(s, ' ');
        apr_size_t len = end ? (apr_size_t)(end - s) : strlen(s);
        if (len > n + 1 && !strncmp(s, name, n) && s[n] == ':') {
            if (required)
                *required = len > n + 2 && s[n + 2] == '!';
            return s[n + 1];
        }
        s = end ? end + 1 : NULL;
    }
    return 0;
}

const fs_mcp_tool_extra *fs_mcp_tool_extra_of(const fs_mcp_tool *t) {
    static const fs_mcp_tool_extra none = {NULL, NULL, NULL, 0, NULL};
    for (const fs_mcp_tool_extra *x = fs_mcp_tool_extras; t && x->name; x++)
        if (!strcmp(x->name, t->name))
            return x;
    return &none;
}

const char *fs_mcp_build_call(apr_pool_t *p, const fs_mcp_tool *t, json_object *args,
                              fs_mcp_call *out) {
    memset(out, 0, sizeof(*out));
    /* the path: every {arg} filled from a string argument */
    const char *path = "";
    apr_hash_t *used = apr_hash_make(p);
    for (const char *s = t->path; *s;) {
        const char *open = strchr(s, '{'), *close = open ? strchr(open, '}') : NULL;
        if (!close) {
            path = apr_pstrcat(p, path, s, NULL);
            break;
        }
        const char *name = apr_pstrndup(p, open + 1, (apr_size_t)(close - open - 1));
        json_object *v = fs_json_get(args, name);
        if (!v || !json_object_is_type(v, json_type_string))
            return apr_psprintf(p, "Argument %s is required and must be a string.", name);
        if (!id_ok(json_object_get_string(v)))
            return apr_psprintf(p, "Argument %s is not an identifier.", name);
        path = apr_pstrcat(p, path, apr_pstrndup(p, s, (apr_size_t)(open - s)),
                           json_object_get_string(v), NULL);
        apr_hash_set(used, name, APR_HASH_KEY_STRING, "");
        s = close + 1;
    }
    out->path = path;
    const fs_mcp_tool_extra *x = fs_mcp_tool_extra_of(t);
    json_object *rest = fs_json_own(p, json_object_new_object());
    json_object_object_foreach(args, k, v) {
        if (apr_hash_get(used, k, APR_HASH_KEY_STRING))
            continue;
        if (x->local_arg && !strcmp(k, x->local_arg)) {
            if (!json_object_is_type(v, json_type_string) || !id_ok(json_object_get_string(v)))
                return apr_psprintf(p, "Argument %s is not an identifier.", k);
            out->local = json_object_get_string(v);
            continue;
        }
        char qt = t->query ? query_type(t->query, k, NULL) : 0;
        if (qt) {
            const char *val;
            if (qt == 'i' && json_object_is_type(v, json_type_int))
                val = apr_psprintf(p, "%" APR_INT64_T_FMT, json_object_get_int64(v));
            else if (qt == 'b' && json_object_is_type(v, json_type_boolean))
                val = json_object_get_boolean(v) ? "true" : "false";
            else if (qt == 's' && json_object_is_type(v, json_type_string))
                val = json_object_get_string(v);
            else
                return apr_psprintf(p, "Argument %s must be %s.", k,
                                    qt == 'i'   ? "an integer"
                                    : qt == 'b' ? "a boolean"
                                                : "a string");
            const char *kv = apr_pstrcat(p, k, "=", apr_pescape_urlencoded(p, val), NULL);
            out->query = out->query ? apr_pstrcat(p, out->query, "&", kv, NULL) : kv;
        } else if (t->if_match && !strcmp(k, "ifMatchVersion")) {
            if (!json_object_is_type(v, json_type_int))
                return "Argument ifMatchVersion must be an integer.";
            out->if_match = apr_psprintf(p, "\"%" APR_INT64_T_FMT "\"", json_object_get_int64(v));
        } else if (t->body) {
            json_object_object_add(rest, k, json_object_get(v));
        } else {
            return apr_psprintf(p, "Unknown argument %s.", k);
        }
    }
    /* required query arguments: each name in the spec marked with '!' */
    for (const char *s = t->query; s && *s;) {
        const char *colon = strchr(s, ':'), *end = strchr(s, ' ');
        if (!colon)
            break;
        const char *name = apr_pstrndup(p, s, (apr_size_t)(colon - s));
        int required = 0;
        query_type(t->query, name, &required);
        if (required && !fs_json_get(args, name))
            return apr_psprintf(p, "Argument %s is required.", name);
        s = end ? end + 1 : NULL;
    }
    if (x->local_arg && !out->local)
        return apr_psprintf(p, "Argument %s is required and must be a string.", x->local_arg);
    if (x->fixed_query)
        out->query =
            out->query ? apr_pstrcat(p, x->fixed_query, "&", out->query, NULL) : x->fixed_query;
    out->accept = x->accept;
    if (t->body)
        out->body = fs_json_str(p, rest);
    return NULL;
}
