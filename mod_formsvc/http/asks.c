/* asks: the caller's ask and its representation (asks.h). */
#include "http/asks.h"
#include "fs_json.h"
#include "fs_secret.h"
#include "http/auth.h"
#include "http/links.h"
#include "runtime/request_ctx.h"

#include <apr_strings.h>

fs_error *formsvc_ask_load(request_rec *r, const char *id, fs_ask_row **out) {
    *out = NULL;
    fs_error *e = NULL;
    if (fs_id_valid(id, "ask_") &&
        (e = fs_store_ask_get(formsvc_store(r), formsvc_req_get(r)->who->user_id,
                              formsvc_tree_root(r), id, out)))
        return e;
    return *out ? NULL : fs_error_make(r->pool, "not-found", "No such ask.");
}

fs_error *formsvc_ask_form(request_rec *r, const char *id, const char **form_id) {
    fs_ask_row *a;
    fs_error *e = formsvc_ask_load(r, id, &a);
    *form_id = NULL;
    if (!e)
        *form_id =
            json_object_get_string(fs_json_get(fs_json_parse_trusted(r->pool, a->json), "formId"));
    return e;
}

json_object *formsvc_ask_obj(request_rec *r, const fs_ask_row *a) {
    json_object *o = fs_json_parse_trusted(r->pool, a->json);
    const char *link_id = json_object_get_string(fs_json_get(o, "linkId"));
    const char *token = link_id ? formsvc_link_open(r, link_id, a->sealed) : NULL;
    json_object_object_add(
        o, "url", token ? json_object_new_string(formsvc_link_url(r, a->ref, token)) : NULL);
    return o;
}
