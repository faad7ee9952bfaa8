/* request: body and query reading, the base URL. The
 * per-request context and the request's database connection are in
 * runtime/request_ctx.c, the answers in response.c. */
#include "http/request.h"
#include "fs_json.h"
#include "fs_negotiate.h"
#include "fs_util.h"
#include "http/capture.h"
#include "runtime/config.h"
#include "runtime/log.h"
#include "runtime/ratelimit.h"
#include "runtime/request_ctx.h"

#include <apr_atomic.h>
#include <apr_optional.h>
#include <apr_strings.h>
#include <http_core.h>
#include <http_main.h>
#include <mod_dbd.h>

APLOG_USE_MODULE(formsvc);

const char *formsvc_base_url(request_rec *r) {
    formsvc_srv *c = formsvc_conf(r->server);
    /* A virtual host without any of our directives has no configuration of
     * its own: it uses the main server's object (httpd makes one only where
     * a directive of the module appears), which was never merged. */
    int inherited =
        c->base_url_inherited || (r->server->is_virtual && c == formsvc_conf(ap_server_conf));
    if (c->base_url && inherited && !strncmp(c->base_url, "http:", 5) &&
        !strcmp(ap_http_scheme(r), "https")) {
        /* An http base URL set for the main server, on a TLS virtual host
         * that has none of its own: never send http links over https.
         * This host's own name and port (with the inherited path) serve
         * instead; FormsvcBaseURL belongs in each virtual host. */
        if (apr_atomic_cas32(&c->tls_warned, 1, 0) == 0)
            FORMSVC_LOG(r, APLOG_WARNING, 00308,
                        "FormsvcBaseURL %s (main server) is not used on the TLS virtual host "
                        "%s:%u; set FormsvcBaseURL in that <VirtualHost>",
                        c->base_url, r->server->server_hostname,
                        /* the port it was reached on (server->port is 0
                         * for a <VirtualHost *:443> without a port in
                         * its ServerName) */
                        (unsigned)(r->connection->local_addr ? r->connection->local_addr->port
                                                             : ap_get_server_port(r)));
        return ap_construct_url(r->pool, c->base_path, r);
    }
    if (c->base_url)
        return c->base_url;
    /* Without FormsvcBaseURL: the server's own name and port, as
     * UseCanonicalName decides; set the directive in production. */
    return ap_construct_url(r->pool, c->base_path, r);
}

/* The problem for a body that could not be read: status is what httpd
 * would answer (ap_map_http_request_error): 408 when the client was too
 * slow, 413 over LimitRequestBody, 400 otherwise. AP_FILTER_ERROR means
 * httpd's input filter has already sent the answer (a limit it enforces
 * itself): formsvc_send_problem then sends nothing more. The rest of the
 * body is not read, so the connection is not kept alive. */
static fs_error *body_failed(request_rec *r, int status, apr_status_t rv) {
    r->connection->keepalive = AP_CONN_CLOSE;
    if (status == AP_FILTER_ERROR) {
        formsvc_req_get(r)->body_answered = 1;
        status = r->status >= 400 ? r->status : HTTP_BAD_REQUEST;
    }
    FORMSVC_LOG(r, APLOG_INFO, 00104, "request body not read: %d (%pm)", status, &rv);
    switch (status) {
    case HTTP_REQUEST_TIME_OUT:
        return fs_error_make(r->pool, "request-timeout",
                             "The request body did not arrive in time.");
    case HTTP_REQUEST_ENTITY_TOO_LARGE:
        return fs_error_make(r->pool, "payload-too-large",
                             "The body is larger than the server accepts.");
    default: {
        fs_error *e =
            fs_error_make(r->pool, "malformed-request", "The request body cannot be read.");
        if (status != HTTP_BAD_REQUEST) /* 411, 501: httpd's own verdict */
            e->status = status;
        return e;
    }
    }
}

fs_error *formsvc_read_body(request_rec *r, apr_off_t max, char **buf, apr_size_t *len) {
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
    int rc = ap_setup_client_block(r, REQUEST_CHUNKED_DECHUNK);
    if (rc != OK)
        return body_failed(r, rc, APR_SUCCESS);
    if (r->remaining > max)
        return fs_error_make(r->pool, "payload-too-large",
                             "The body is larger than %" APR_OFF_T_FMT " bytes.", max);
    if (!ap_should_client_block(r))
        return NULL;
    /* No pooled connection waits on the client: one taken before the body
     * (authentication on a credential not in memory, a rate limit, a
     * quota) goes back now and is taken again when needed; a transaction's
     * stays (formsvc_db_release). */
    formsvc_db_release(r);
    /* Read with ap_get_brigade rather than ap_get_client_block, which
     * loses the reason of a failure (server/protocol.c says as much): the
     * status comes from ap_map_http_request_error, as in httpd's own
     * modules. */
    apr_size_t cap = r->remaining > 0 ? (apr_size_t)r->remaining : 8192, n = 0;
    char *b = apr_palloc(r->pool, cap + 1);
    apr_bucket_brigade *bb = apr_brigade_create(r->pool, r->connection->bucket_alloc);
    int eos = 0;
    while (!eos) {
        apr_status_t rv = ap_get_brigade(r->input_filters, bb, AP_MODE_READBYTES, APR_BLOCK_READ,
                                         HUGE_STRING_LEN);
        if (rv != APR_SUCCESS) {
            apr_brigade_destroy(bb);
            return body_failed(r, ap_map_http_request_error(rv, HTTP_BAD_REQUEST), rv);
        }
        if (APR_BRIGADE_EMPTY(bb)) /* a filter that returns nothing: no more */
            break;
        for (apr_bucket *e = APR_BRIGADE_FIRST(bb); e != APR_BRIGADE_SENTINEL(bb);
             e = APR_BUCKET_NEXT(e)) {
            if (APR_BUCKET_IS_EOS(e)) {
                eos = 1;
                break;
            }
            const char *data;
            apr_size_t got;
            rv = apr_bucket_read(e, &data, &got, APR_BLOCK_READ);
            if (rv != APR_SUCCESS) {
                apr_brigade_destroy(bb);
                return body_failed(r, ap_map_http_request_error(rv, HTTP_BAD_REQUEST), rv);
            }
            if ((apr_off_t)(n + got) > max) {
                /* drain nothing more: httpd discards the rest on close */
                apr_brigade_destroy(bb);
                r->connection->keepalive = AP_CONN_CLOSE;
                return fs_error_make(r->pool, "payload-too-large",
                                     "The body is larger than %" APR_OFF_T_FMT " bytes.", max);
            }
            if (n + got > cap) {
                apr_size_t ncap = cap;
                while (ncap < n + got)
                    ncap *= 2;
                if (ncap > (apr_size_t)max)
                    ncap = (apr_size_t)max;
                char *nb = apr_palloc(r->pool, ncap + 1);
                memcpy(nb, b, n);
                b = nb;
                cap = ncap;
            }
            memcpy(b + n, data, got);
            n += got;
        }
        apr_brigade_cleanup(bb);
    }
    apr_brigade_destroy(bb);
    b[n] = '\0';
    *buf = b;
    *len = n;
    return NULL;
}

/* JSON request bodies: application/json or application/merge-patch+json,
 * UTF-8 only. */
static int is_json_type(const char *ct) {
    return (fs_media_is(ct, "application/json") ||
            fs_media_is(ct, "application/merge-patch+json")) &&
           fs_media_utf8(ct);
}

fs_error *formsvc_read_json(request_rec *r, int optional, json_object **out) {
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

fs_error *formsvc_read_email_request(request_rec *r, int rule, const char *const *allowed,
                                     json_object **body, const char **email, fs_error **verr) {
    json_object *obj;
    *email = NULL;
    fs_error *e = formsvc_ratelimit_address(r, rule, NULL);
    if (!e)
        e = formsvc_read_json(r, 0, &obj);
    if (e)
        return e;
    fs_error *v = fs_error_validation(r->pool);
    fs_json_unknown_members(r->pool, obj, allowed, v);
    *email = fs_json_email_member(r->pool, obj, v);
    if (body)
        *body = obj;
    if (verr) {
        *verr = v;
        return NULL;
    }
    return v->errors ? v : NULL;
}

fs_error *formsvc_arg(request_rec *r, const char *name, const char **out) {
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

fs_error *formsvc_bool_arg(request_rec *r, const char *name, int *out) {
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

fs_error *formsvc_paging(request_rec *r, const char *kind, const char *id_prefix, int *limit,
                         const char **after) {
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
