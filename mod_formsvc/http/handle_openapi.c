/* handle_openapi: GET /openapi.json, the OpenAPI 3.1 description of the
 * API. The document is share/openapi.json, embedded into the module at
 * build time (Makefile.apxs turns it into the string literal in
 * openapi_doc.inc), so there is no file to install or find at run time.
 * Only "servers" is filled in per request, from FormsvcBaseURL. */
#include "fs_json.h"
#include "glue.h"

APLOG_USE_MODULE(formsvc);

static const char openapi_doc[] =
#include "openapi_doc.inc"
    ;

static int formsvc_h_openapi(request_rec *r, const char *const *caps) {
    (void)caps;
    json_object *doc = fs_json_parse_trusted(r->pool, openapi_doc);
    if (!doc || !json_object_is_type(doc, json_type_object))
        return formsvc_send_problem(
            r, fs_error_internal(r->pool, "the embedded OpenAPI document is not valid JSON"));
    json_object *servers = json_object_new_array(), *s = json_object_new_object();
    json_object_object_add(s, "url", json_object_new_string(formsvc_base_url(r)));
    json_object_array_add(servers, s);
    json_object_object_add(doc, "servers", servers);
    return formsvc_send_obj(r, 200, doc);
}

const formsvc_route formsvc_routes_openapi[] = {{M_GET, "/openapi.json", formsvc_h_openapi, 0, 0},
                                                {0, NULL, NULL, 0, 0}};
