/* response: every answer leaves through formsvc_send_body or
 * formsvc_send_start/_more (response.h); during an internal dispatch
 * (dispatch.h) they keep it in the capture instead. */
#include "http/response.h"
#include "fs_html.h"
#include "fs_json.h"
#include "fs_util.h"
#include "http/auth.h"
#include "http/capture.h"
#include "http/request.h"
#include "runtime/config.h"
#include "runtime/log.h"
#include "runtime/request_ctx.h"
#include "runtime/request_id.h"

#include <apr_lib.h>
#include <apr_strings.h>
#include <string.h>

APLOG_USE_MODULE(formsvc);

static void common_headers(request_rec *r) {
    apr_table_setn(r->headers_out, "Cache-Control", "no-store");
    apr_table_setn(r->headers_out, "X-Content-Type-Options", "nosniff");
}

/* During an internal dispatch (dispatch.h) answers are stored, not sent.
 * Returns 1 when it stored this one. */
static int captured(request_rec *r, int status, const char *type, const char *body) {
    formsvc_capture *cap = formsvc_req_get(r)->capture;
    if (!cap)
        return 0;
    cap->status = status;
    cap->type = type;
    cap->body = body;
    return 1;
}

int formsvc_send_body(request_rec *r, int status, const char *type, const char *body,
                      apr_size_t len) {
    if (captured(r, status, type, body))
        return OK;
    r->status = status;
    if (type)
        ap_set_content_type(r, type);
    /* no pooled connection waits for a client that reads slowly: what
     * runs after this takes one again if it needs one */
    formsvc_db_release(r);
    if (body) {
        ap_set_content_length(r, (apr_off_t)len);
        if (!r->header_only && len)
            ap_rwrite(body, (int)len, r);
    }
    return OK;
}

int formsvc_send_start(request_rec *r, int status, const char *type) {
    if (captured(r, status, type, ""))
        return OK;
    r->status = status;
    ap_set_content_type(r, type);
    return OK;
}

void formsvc_send_more(request_rec *r, const char *buf, apr_size_t len, int flush) {
    formsvc_capture *cap = formsvc_req_get(r)->capture;
    if (cap) { /* joined in one buffer of the request pool that doubles as it
                * grows (a CSV export for export_submissions_csv comes in
                * batches of rows), kept NUL-terminated after its nelts */
        if (!cap->pieces)
            cap->pieces = apr_array_make(r->pool, len < 8191 ? 8192 : (int)len + 1, 1);
        apr_array_header_t piece = {r->pool, 1, (int)len, (int)len, (char *)buf};
        apr_array_cat(cap->pieces, &piece);
        APR_ARRAY_PUSH(cap->pieces, char) = '\0';
        cap->pieces->nelts--;
        cap->body = cap->pieces->elts;
        return;
    }
    if (r->header_only)
        return;
    /* a streamed body (a file, a CSV export) is read a part at a time, the
     * connection taken for each part and given back before it is written */
    formsvc_db_release(r);
    ap_rwrite(buf, (int)len, r);
    if (flush)
        ap_rflush(r);
}

void formsvc_send_cut(request_rec *r) {
    formsvc_capture *cap = formsvc_req_get(r)->capture;
    if (cap) {
        captured(r, HTTP_INTERNAL_SERVER_ERROR, NULL, NULL);
        return;
    }
    r->connection->keepalive = AP_CONN_CLOSE;
    r->connection->aborted = 1;
}

int formsvc_send_json(request_rec *r, int status, const char *json) {
    common_headers(r);
    return formsvc_send_body(r, status, "application/json", json, strlen(json));
}

int formsvc_send_obj(request_rec *r, int status, json_object *o) {
    return formsvc_send_json(r, status, fs_json_str(r->pool, o));
}

int formsvc_send_empty(request_rec *r, int status) {
    common_headers(r);
    return formsvc_send_body(r, status, NULL, NULL, 0);
}

void formsvc_log_problem(request_rec *r, const fs_error *e, const char *instance) {
    if (!instance)
        instance = r->uri;
    if (e->status == 503)
        FORMSVC_LOG(r, APLOG_WARNING, 00102, "%d %s for %s", e->status, e->slug, instance);
    else if (e->status >= 500)
        FORMSVC_LOG(r, APLOG_ERR, 00103, "%d %s for %s: %s", e->status, e->slug, instance,
                    e->cause ? e->cause : "no cause recorded");
}

/* A problem's instance is a URI reference (RFC 9457): the path httpd has
 * decoded may hold any byte a client escaped (%ff, %c0%80, %0a, a space),
 * and a byte that is not UTF-8 would make the problem itself invalid JSON.
 * Every byte outside the characters a path may carry as they are is
 * escaped again; a path of only those is returned unchanged. */
static const char *instance_reference(apr_pool_t *p, const char *path) {
    static const char keep[] = "-._~!$&'()*+,;=:@/";
    apr_size_t n = 0, len = strlen(path);
    for (apr_size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)path[i];
        if (!apr_isalnum(c) && !strchr(keep, c))
            n++;
    }
    if (!n)
        return path;
    char *out = apr_palloc(p, len + 2 * n + 1), *o = out;
    for (apr_size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)path[i];
        if (apr_isalnum(c) || strchr(keep, c)) {
            *o++ = (char)c;
        } else {
            *o++ = '%';
            *o++ = "0123456789ABCDEF"[c >> 4];
            *o++ = "0123456789ABCDEF"[c & 15];
        }
    }
    *o = '\0';
    return out;
}

int formsvc_send_problem(request_rec *r, fs_error *e) {
    formsvc_req *q = formsvc_req_get(r);
    const char *instance = instance_reference(
        r->pool, q->capture
                     ? apr_pstrcat(r->pool, formsvc_conf(r->server)->base_path, q->path, NULL)
                 : r->prev ? r->prev->uri
                           : r->uri);
    formsvc_log_problem(r, e, instance);
    if (q->body_answered) /* httpd's input filter has sent the answer */
        return AP_FILTER_ERROR;
    const char *rid = formsvc_request_id(r);
    if (rid) /* to quote when reporting the problem; the same as X-Request-Id */
        fs_error_set_str(r->pool, e, "requestId", rid);
    char *body = fs_problem_render(r->pool, e, formsvc_base_url(r), instance);
    common_headers(r);
    if (e->www_authenticate)
        apr_table_setn(r->err_headers_out, "WWW-Authenticate",
                       e->status == 401 ? formsvc_challenge(r, e->www_authenticate)
                                        : e->www_authenticate);
    if (e->retry_after > 0)
        apr_table_setn(r->err_headers_out, "Retry-After", apr_itoa(r->pool, e->retry_after));
    return formsvc_send_body(r, e->status, "application/problem+json", body, strlen(body));
}

int formsvc_send_html(request_rec *r, int status, const char *html) {
    apr_table_setn(r->headers_out, "X-Content-Type-Options", "nosniff");
    return formsvc_send_body(r, status, "text/html; charset=utf-8", html, strlen(html));
}

int formsvc_send_link_page(request_rec *r, int status, const char *form_action, const char *html) {
    apr_table_setn(r->headers_out, "Cache-Control", "no-store");
    apr_table_setn(r->headers_out, "Content-Security-Policy",
                   apr_psprintf(r->pool,
                                "default-src 'none'; style-src %s; frame-ancestors 'none'; "
                                "form-action %s; base-uri 'none'",
                                fs_html_style_src(r->pool), form_action));
    apr_table_setn(r->headers_out, "Referrer-Policy", "no-referrer");
    return formsvc_send_html(r, status, html);
}

void formsvc_link_next(request_rec *r, const char *cursor) {
    /* the next page keeps every query parameter but the cursor (and the
     * events feed's alias of it, after) */
    const char *rest = "";
    if (r->args) {
        char *a = apr_pstrdup(r->pool, r->args), *last = NULL;
        for (char *kv = apr_strtok(a, "&", &last); kv; kv = apr_strtok(NULL, "&", &last))
            if (strncmp(kv, "cursor=", 7) && strcmp(kv, "cursor") && strncmp(kv, "after=", 6) &&
                strcmp(kv, "after"))
                rest = apr_pstrcat(r->pool, rest, kv, "&", NULL);
    }
    formsvc_req *q = formsvc_req_get(r);
    apr_table_setn(r->headers_out, "Link",
                   apr_psprintf(r->pool, "<%s%s?%scursor=%s>; rel=\"next\"", formsvc_base_url(r),
                                q->path, rest, cursor));
}

int formsvc_send_page(request_rec *r, const char *kind, const fs_list_page *page) {
    json_object *o = fs_json_own(r->pool, json_object_new_object());
    json_object *arr = json_object_new_array();
    json_object_object_add(o, "data", arr);
    for (int i = 0; i < page->n; i++) {
        json_object *it = json_tokener_parse(page->items[i].json);
        json_object_array_add(arr, it);
    }
    if (page->more && page->n > 0) {
        char *cur = fs_cursor_encode(r->pool, kind, page->items[page->n - 1].id);
        json_object_object_add(o, "nextCursor", json_object_new_string(cur));
        formsvc_link_next(r, cur);
    } else {
        json_object_object_add(o, "nextCursor", NULL);
    }
    return formsvc_send_obj(r, 200, o);
}
