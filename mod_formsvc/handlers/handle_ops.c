/* handle_ops: /healthz, /readyz, /problems/{slug} and the internal error
 * document that turns httpd-raised auth errors into problems. */
#include "fs_html.h"
#include "fs_json.h"
#include "fs_migrations.h"
#include "fs_store_ops.h"
#include "http/request.h"
#include "http/response.h"
#include "http/router.h"
#include "runtime/request_ctx.h"
#include "runtime/schema_check.h"
#include "runtime/version.h"

#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

static int formsvc_h_healthz(request_rec *r, const char *const *caps) {
    (void)caps;
    return formsvc_send_json(r, 200, "{\"status\":\"ok\"}");
}

static int formsvc_h_readyz(request_rec *r, const char *const *caps) {
    (void)caps;
    int ok, version;
    fs_error *e = fs_store_schema_version(formsvc_store(r), FS_SCHEMA_VERSION, &ok, &version);
    if (e) {
        /* no pooled connection: when the database is reached on a
         * connection of our own, its schema is behind (mod_dbd opens none
         * when preparing the statements fails; schema_check.h) */
        const char *why;
        if (formsvc_schema_diagnose(r->pool, r->server, &why) == FORMSVC_SCHEMA_BEHIND)
            e->detail = why;
        else
            e->detail = "The database cannot be reached.";
        return formsvc_send_problem(r, e);
    }
    if (!ok) {
        e = fs_error_make(
            r->pool, "service-unavailable", "%s",
            fs_schema_behind_message(r->pool, version >= 0 ? version : 0, FS_SCHEMA_VERSION));
        return formsvc_send_problem(r, e);
    }
    /* the pepper fits too (and say when the schema is ahead) */
    e = formsvc_gate(r, "/v1");
    if (e)
        return formsvc_send_problem(r, e);
    return formsvc_send_json(
        r, 200,
        apr_psprintf(r->pool,
                     "{\"status\":\"ready\",\"schemaVersion\":%d,\"moduleVersion\":\"%s\"}",
                     version, FS_MODULE_VERSION));
}

static int formsvc_h_problem_page(request_rec *r, const char *const *caps) {
    const fs_problem_type *t = fs_problem_lookup(caps[0]);
    if (!t)
        return formsvc_send_problem(r,
                                    fs_error_make(r->pool, "not-found", "No such problem type."));
    const char *accept = apr_table_get(r->headers_in, "Accept");
    if (accept && strstr(accept, "json") && !strstr(accept, "html")) {
        json_object *o = fs_json_own(r->pool, json_object_new_object());
        json_object_object_add(o, "type",
                               json_object_new_string(apr_pstrcat(r->pool, formsvc_base_url(r),
                                                                  "/problems/", t->slug, NULL)));
        json_object_object_add(o, "title", json_object_new_string(t->title));
        json_object_object_add(o, "status", json_object_new_int(t->status));
        json_object_object_add(o, "description", json_object_new_string(t->about));
        apr_table_setn(r->headers_out, "Vary", "Accept");
        return formsvc_send_obj(r, 200, o);
    }
    apr_table_setn(r->headers_out, "Vary", "Accept");
    apr_table_setn(
        r->headers_out, "Content-Security-Policy",
        apr_pstrcat(r->pool, "default-src 'none'; style-src ", fs_html_style_src(r->pool), NULL));
    return formsvc_send_html(r, 200, fs_html_problem_type(r->pool, t->status, t->title, t->about));
}

static int formsvc_h_error_doc(request_rec *r, const char *const *caps) {
    (void)caps;
    if (!r->prev)
        return formsvc_send_problem(
            r, fs_error_make(r->pool, "not-found", "There is nothing at this address."));
    formsvc_req *pq = formsvc_req_get(r->prev);
    fs_error *e = pq->auth_error;
    if (!e) {
        const fs_problem_type *t = fs_problem_for_status(r->status);
        e = fs_error_make(r->pool, t->slug, NULL);
        e->status = r->status;
    }
    if (e->status == 401 && !e->www_authenticate)
        e->www_authenticate = "Bearer realm=\"formsvc\"";
    return formsvc_send_problem(r, e);
}

const formsvc_route formsvc_routes_ops[] = {
    {M_GET, "/healthz", formsvc_h_healthz, 0, 0},
    {M_GET, "/readyz", formsvc_h_readyz, 0, 0},
    {M_GET, "/problems/{slug}", formsvc_h_problem_page, 0, 0},
    {M_GET, "/.formsvc/error", formsvc_h_error_doc, 0, 0},
    {0, NULL, NULL, 0, 0}};
