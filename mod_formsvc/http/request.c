/* request: per-request context, database access, body and query reading.
 * The answers are in response.c. */
#include "request.h"
#include "capture.h"
#include "dbpool.h"
#include "fs_json.h"
#include "fs_negotiate.h"
#include "fs_util.h"

#include <apr_optional.h>
#include <http_core.h>
#include <apr_strings.h>
#include <mod_dbd.h>

APLOG_USE_MODULE(formsvc);

formsvc_req *formsvc_req_get(request_rec *r)
{
    formsvc_req *q = ap_get_module_config(r->request_config, &formsvc_module);
    if (!q) {
        q = apr_pcalloc(r->pool, sizeof(*q));
        ap_set_module_config(r->request_config, &formsvc_module, q);
    }
    return q;
}

const char *formsvc_base_url(request_rec *r)
{
    formsvc_srv *c = formsvc_conf(r->server);
    if (c->base_url)
        return c->base_url;
    /* Without FormsvcBaseURL: the server's own name and port, as
     * UseCanonicalName decides; set the directive in production. */
    return ap_construct_url(r->pool, c->base_path, r);
}

fs_error *formsvc_db(request_rec *r, fs_db **out)
{
    formsvc_req *q = formsvc_req_get(r);
    if (!q->db) {
        /* through a gate that bounds the wait (dbpool.h); the connection
         * goes back with the request's pool, or at formsvc_db_release */
        ap_dbd_t *d = formsvc_dbpool_acquire(r);
        if (!d) {
            FORMSVC_LOG(r, APLOG_ERR, 10101, "no database connection available");
            return fs_error_make(r->pool, "service-unavailable",
                                 "The database cannot be reached.");
        }
        fs_db *db = apr_pcalloc(r->pool, sizeof(*db));
        db->driver = d->driver;
        db->handle = d->handle;
        db->prepared = d->prepared;
        db->conn_pool = d->pool;
        q->db = db;
    }
    *out = q->db;
    return NULL;
}

void formsvc_db_release(request_rec *r)
{
    formsvc_dbpool_release(r);
    /* every request sharing that connection forgets it */
    for (request_rec *x = r; x; x = x->prev ? x->prev : x->main)
        formsvc_req_get(x)->db = NULL;
}

fs_error *formsvc_query(request_rec *r, const char *label, int nargs,
                        const char *const *args, fs_rows **out)
{
    fs_db *db;
    fs_error *e = formsvc_db(r, &db);
    if (e)
        return e;
    return fs_db_query(r->pool, db, label, nargs, args, out);
}

fs_error *formsvc_read_body(request_rec *r, apr_off_t max, char **buf, apr_size_t *len)
{
    *buf = NULL;
    *len = 0;
    formsvc_capture *given = formsvc_req_get(r)->capture;
    if (given) { /* internal dispatch: the body is given, not read */
        if (given->in_body && (apr_off_t)given->in_len > max)
            return fs_error_make(r->pool, "payload-too-large",
                                 "The body is larger than %" APR_OFF_T_FMT " bytes.", max);
        *buf = (char *)given->in_body;
        *len = given->in_body ? given->in_len : 0;
        return NULL;
    }
    if (ap_setup_client_block(r, REQUEST_CHUNKED_DECHUNK) != OK)
        return fs_error_make(r->pool, "malformed-request", "The request body cannot be read.");
    if (r->remaining > max)
        return fs_error_make(r->pool, "payload-too-large",
                             "The body is larger than %" APR_OFF_T_FMT " bytes.", max);
    if (!ap_should_client_block(r))
        return NULL;
    apr_size_t cap = r->remaining > 0 ? (apr_size_t)r->remaining : 8192, n = 0;
    char *b = apr_palloc(r->pool, cap + 1);
    for (;;) {
        if (n == cap) {
            if ((apr_off_t)cap >= max + 1)
                break;
            apr_size_t ncap = cap * 2 > (apr_size_t)max + 1 ? (apr_size_t)max + 1 : cap * 2;
            char *nb = apr_palloc(r->pool, ncap + 1);
            memcpy(nb, b, n);
            b = nb;
            cap = ncap;
        }
        long got = ap_get_client_block(r, b + n, cap - n);
        if (got < 0)
            return fs_error_make(r->pool, "malformed-request", "The request body cannot be read.");
        if (got == 0)
            break;
        n += (apr_size_t)got;
        if ((apr_off_t)n > max) {
            /* drain nothing more: httpd discards the rest on close */
            r->connection->keepalive = AP_CONN_CLOSE;
            return fs_error_make(r->pool, "payload-too-large",
                                 "The body is larger than %" APR_OFF_T_FMT " bytes.", max);
        }
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return NULL;
}

/* JSON request bodies: application/json or application/merge-patch+json,
 * UTF-8 only. */
static int is_json_type(const char *ct)
{
    return (fs_media_is(ct, "application/json") ||
            fs_media_is(ct, "application/merge-patch+json")) &&
           fs_media_utf8(ct);
}

fs_error *formsvc_read_json(request_rec *r, int optional, json_object **out)
{
    *out = NULL;
    const char *ct = apr_table_get(r->headers_in, "Content-Type");
    const char *cl = apr_table_get(r->headers_in, "Content-Length");
    const char *te = apr_table_get(r->headers_in, "Transfer-Encoding");
    int has_body = (cl && strcmp(cl, "0")) || te;
    formsvc_capture *cap = formsvc_req_get(r)->capture;
    if (cap) { /* internal dispatch: always JSON, given as in_body */
        has_body = cap->in_body != NULL;
        ct = "application/json";
    }
    if (!has_body) {
        if (optional) {
            *out = fs_json_own(r->pool, json_object_new_object());
            return NULL;
        }
        return fs_error_make(r->pool, "malformed-request", "A JSON body is required.");
    }
    if (!is_json_type(ct))
        return fs_error_make(r->pool, "unsupported-media-type",
                             "Send the body as application/json (UTF-8).");
    char *buf;
    apr_size_t len;
    fs_error *e = formsvc_read_body(r, formsvc_conf(r->server)->max_body_api, &buf, &len);
    if (e)
        return e;
    if (len == 0) {
        if (optional) {
            *out = fs_json_own(r->pool, json_object_new_object());
            return NULL;
        }
        return fs_error_make(r->pool, "malformed-request", "A JSON body is required.");
    }
    return fs_json_parse_object(r->pool, buf, len, out);
}

fs_error *formsvc_arg(request_rec *r, const char *name, const char **out)
{
    *out = NULL;
    if (!r->args)
        return NULL;
    apr_size_t nl = strlen(name);
    for (const char *kv = r->args; *kv; kv++) {
        const char *end = strchr(kv, '&');
        apr_size_t n = end ? (apr_size_t)(end - kv) : strlen(kv);
        if (n >= nl && strncmp(kv, name, nl) == 0 && (n == nl || kv[nl] == '=')) {
            const char *v = n > nl ? kv + nl + 1 : "";
            apr_size_t vl = n > nl ? n - nl - 1 : 0;
            if (!(*out = fs_form_decode(r->pool, v, vl)))
                return fs_error_make(r->pool, "malformed-request",
                                     "The query parameter %s is not validly encoded "
                                     "(UTF-8, %%XX escapes, no NUL).",
                                     name);
            return NULL;
        }
        if (!end)
            break;
        kv = end;
    }
    return NULL;
}

fs_error *formsvc_bool_arg(request_rec *r, const char *name, int *out)
{
    const char *v;
    fs_error *bad = formsvc_arg(r, name, &v);
    *out = 0;
    if (bad)
        return bad;
    *out = v && !strcmp(v, "true");
    if (v && strcmp(v, "true") && strcmp(v, "false")) {
        fs_error *e = fs_error_validation(r->pool);
        fs_error_add(r->pool, e, apr_pstrcat(r->pool, "/", name, NULL), "type",
                     "%s is true or false.", name);
        return e;
    }
    return NULL;
}

fs_error *formsvc_paging(request_rec *r, const char *kind, const char *id_prefix,
                         int *limit, const char **after)
{
    const char *l, *c;
    *limit = 20;
    *after = NULL;
    fs_error *bad = formsvc_arg(r, "limit", &l);
    if (!bad)
        bad = formsvc_arg(r, "cursor", &c);
    if (bad)
        return bad;
    if (l) {
        char *end;
        long v = strtol(l, &end, 10);
        if (!*l || *end || v < 1 || v > 100) {
            fs_error *e = fs_error_validation(r->pool);
            fs_error_add(r->pool, e, "/limit", v < 1 ? "minimum" : "maximum",
                         "limit must be an integer from 1 to 100.");
            if (*end || !*l)
                APR_ARRAY_IDX(e->errors, 0, fs_field_error).code = "type";
            return e;
        }
        *limit = (int)v;
    }
    if (c) {
        *after = fs_cursor_decode(r->pool, kind, c, id_prefix);
        if (!*after)
            return fs_error_make(r->pool, "malformed-request",
                                 "The cursor is malformed or belongs to another list.");
    }
    return NULL;
}

fs_error *formsvc_need_scope(request_rec *r, unsigned bit)
{
    formsvc_principal *who = formsvc_req_get(r)->who;
    if (who && fs_scopes_has(who->scopes, bit))
        return NULL;
    const char *name = fs_scope_name(bit);
    fs_error *e = fs_error_make(r->pool, "insufficient-scope",
                                "This operation needs the scope %s.", name);
    fs_error_set_str(r->pool, e, "requiredScope", name);
    e->www_authenticate = apr_psprintf(r->pool,
        "Bearer realm=\"formsvc\", error=\"insufficient_scope\", scope=\"%s\"", name);
    return e;
}
