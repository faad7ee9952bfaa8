/* dispatch: runs a route handler with a synthetic request and captures its
 * answer (see dispatch.h). The request_rec is borrowed: the fields a
 * handler reads or writes are swapped in for the call and put back after,
 * so the outer request (POST /mcp) answers as if nothing happened. */
#include "http/dispatch.h"
#include "http/auth.h"
#include "http/capture.h"
#include "http/response.h"
#include "http/router.h"
#include "runtime/request_ctx.h"

#include <apr_strings.h>
#include <http_log.h>
#include <http_protocol.h>

APLOG_USE_MODULE(formsvc);

void formsvc_dispatch(request_rec *r, int method, const char *path, const char *query,
                      const char *body, apr_table_t *headers, formsvc_capture *cap) {
    formsvc_req *q = formsvc_req_get(r);
    cap->in_body = body;
    cap->in_len = body ? strlen(body) : 0;
    cap->status = 0;
    cap->type = cap->body = NULL;
    cap->headers = NULL;
    cap->pieces = NULL;

    /* what the handlers may look at or change */
    const char *o_method = r->method, *o_args = r->args, *o_ctype = r->content_type;
    int o_mnum = r->method_number, o_status = r->status;
    apr_table_t *o_in = r->headers_in, *o_out = r->headers_out, *o_err = r->err_headers_out;
    const char *o_path = q->path;
    formsvc_capture *o_cap = q->capture;

    r->method = ap_method_name_of(r->pool, method);
    r->method_number = method;
    r->args = query && *query ? apr_pstrdup(r->pool, query) : NULL;
    r->headers_in = headers ? apr_table_copy(r->pool, headers) : apr_table_make(r->pool, 4);
    if (!apr_table_get(r->headers_in, "Accept"))
        apr_table_setn(r->headers_in, "Accept", "application/json");
    r->headers_out = apr_table_make(r->pool, 8);
    r->err_headers_out = apr_table_make(r->pool, 4);
    q->path = path;
    q->capture = cap;

    const char *caps[4] = {0}, *allow = NULL;
    const formsvc_route *rt = formsvc_route_lookup(r, method, path, caps, &allow);
    if (!rt) {
        formsvc_send_problem(
            r, allow ? fs_error_make(r->pool, "method-not-allowed",
                                     "%s is not allowed here; use %s.", r->method, allow)
                     : fs_error_make(r->pool, "not-found", "There is nothing at this address."));
    } else if (rt->auth && !q->who) {
        formsvc_send_problem(
            r, fs_error_make(r->pool, "unauthorized", "This operation needs a bearer credential."));
    } else {
        fs_error *e = rt->auth && rt->scope ? formsvc_need_scope(r, rt->scope) : NULL;
        if (e)
            formsvc_send_problem(r, e);
        else
            rt->fn(r, caps);
    }
    if (!cap->status) /* a handler that returned an HTTP error itself */
        formsvc_send_problem(
            r, fs_error_internal(r->pool, "internal %s %s answered nothing", r->method, path));

    cap->headers = r->headers_out;
    r->method = o_method;
    r->method_number = o_mnum;
    r->args = (char *)o_args;
    r->content_type = o_ctype;
    r->status = o_status;
    r->headers_in = o_in;
    r->headers_out = o_out;
    r->err_headers_out = o_err;
    q->path = o_path;
    q->capture = o_cap;
}
