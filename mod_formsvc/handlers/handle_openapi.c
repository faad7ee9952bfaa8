/* handle_openapi: GET /openapi.json, the OpenAPI 3.1 description of the
 * API. The document is share/openapi.json, embedded into the module at
 * build time (Makefile.apxs turns it into the string literal in
 * openapi_doc.inc), so there is no file to install or find at run time.
 *
 * It is parsed once, in post_config, and kept as its serialised text in two
 * pieces around the value of "servers", the one member that depends on the
 * request (FormsvcBaseURL, or the server's name): a request only writes the
 * base URL between them. The pieces live in pconf, are never written after
 * post_config, and are shared by every thread of every child. */
#include "fs_json.h"
#include "http/request.h"
#include "http/response.h"
#include "http/router.h"

#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

static const char openapi_doc[] =
#include "openapi_doc.inc"
#include "runtime/log.h"
    ;

/* The serialised document before and after the value of "servers"; NULL
 * until post_config (pconf owns them). */
static const char *doc_head, *doc_tail;

/* The top-level "servers" member while the document is serialised (its
 * value null); it must occur exactly once in the text. */
#define SERVERS_NULL "\"servers\":null"

int formsvc_openapi_post_config(apr_pool_t *pconf, server_rec *s) {
    doc_head = doc_tail = NULL;
    apr_pool_t *tmp;
    apr_pool_create(&tmp, pconf);
    json_object *doc = fs_json_parse_trusted(tmp, openapi_doc);
    char *text = NULL, *mark = NULL;
    if (doc && json_object_is_type(doc, json_type_object)) {
        /* in place: "servers" keeps its position in the document */
        json_object_object_add(doc, "servers", json_object_new_null());
        text = fs_json_str(tmp, doc);
        mark = strstr(text, SERVERS_NULL);
        if (mark && strstr(mark + 1, SERVERS_NULL))
            mark = NULL;
    }
    if (!mark) {
        FORMSVC_SLOG(s, APLOG_CRIT, 0, 01202,
                     "the embedded OpenAPI document is not a JSON object with one top-level "
                     "\"servers\" member");
        apr_pool_destroy(tmp);
        return HTTP_INTERNAL_SERVER_ERROR;
    }
    mark += strlen(SERVERS_NULL) - strlen("null");
    doc_head = apr_pstrmemdup(pconf, text, (apr_size_t)(mark - text));
    doc_tail = apr_pstrdup(pconf, mark + strlen("null"));
    apr_pool_destroy(tmp);
    return OK;
}

static int formsvc_h_openapi(request_rec *r, const char *const *caps) {
    (void)caps;
    if (!doc_head) /* post_config did not run: cannot happen in a started server */
        return formsvc_send_problem(r, fs_error_make(r->pool, "internal", NULL));
    json_object *servers = fs_json_own(r->pool, json_object_new_array());
    json_object *s = json_object_new_object();
    json_object_object_add(s, "url", json_object_new_string(formsvc_base_url(r)));
    json_object_array_add(servers, s);
    return formsvc_send_json(
        r, 200, apr_pstrcat(r->pool, doc_head, fs_json_str(r->pool, servers), doc_tail, NULL));
}

const formsvc_route formsvc_routes_openapi[] = {{M_GET, "/openapi.json", formsvc_h_openapi, 0, 0},
                                                {0, NULL, NULL, 0, 0}};
