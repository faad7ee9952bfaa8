/* handle_links: respondent links of a form, /v1/forms/{id}/links: create
 * (prefill checked against the form's fields), list, get, delete. The
 * token is a capability: only its keyed hash is looked up, and a copy
 * sealed under the pepper lets every answer carry the URL (docs/api.md,
 * "Respondent links"). */
#include "fs_json.h"
#include "fs_link.h"
#include "fs_secret.h"
#include "fs_store_links.h"
#include "fs_util.h"
#include "http/audit.h"
#include "http/auth.h"
#include "http/forms_access.h"
#include "http/links.h"
#include "http/quota.h"
#include "http/request.h"
#include "http/response.h"
#include "http/router.h"
#include "runtime/request_ctx.h"

#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

static fs_error *no_link(request_rec *r) {
    return fs_error_make(r->pool, "not-found", "No such link.");
}

/* The owner's representation: the stored json with its url (null when the
 * sealed token cannot be opened: the pepper changed, and so the link no
 * longer works either). Owned by r->pool. */
static json_object *link_obj(request_rec *r, const fs_link_row *l) {
    json_object *o = fs_json_own(r->pool, json_tokener_parse(l->json));
    const char *token = formsvc_link_open(r, l->id, l->sealed);
    json_object_object_add(
        o, "url", token ? json_object_new_string(formsvc_link_url(r, l->ref, token)) : NULL);
    return o;
}

static int formsvc_h_links_create(request_rec *r, const char *const *caps) {
    formsvc_form *form;
    json_object *body;
    fs_error *e = formsvc_form_load(r, caps[0], &form);
    if (!e)
        e = formsvc_read_json(r, 0, &body);
    if (e)
        return formsvc_send_problem(r, e);
    fs_error *verr = fs_error_validation(r->pool);
    fs_link_spec spec;
    if (!fs_link_parse(r->pool, fs_fieldset_from_json(r->pool, form->fields), body, apr_time_now(),
                       verr, &spec))
        return formsvc_send_problem(r, verr);
    formsvc_principal *who = formsvc_req_get(r)->who;
    const char *id = fs_id_new(r->pool, "lnk_");
    const char *token = fs_link_token_new(r->pool);
    const char *sealed = id && token ? formsvc_link_seal(r, id, token) : NULL;
    if (!sealed)
        return formsvc_send_problem(
            r, fs_error_internal(r->pool, "no random bytes for a link's id or token, or the "
                                          "token cannot be sealed"));
    int limit = formsvc_tier_of(r, who->verified)->links;
    fs_new_link nl = {id, form->id, who->user_id, formsvc_link_token_hash(r, token), sealed,
                      spec.prefill_json, spec.metadata_json, spec.expires_at, spec.max_uses,
                      /* a link made by a delegate dies with it (sql/0034) */
                      who->key_id};
    const char *json, *used;
    if ((e = fs_store_link_create(formsvc_store(r), &nl, limit, &json, &used)))
        return formsvc_send_problem(r, e);
    if (!json)
        return formsvc_send_problem(r, used ? formsvc_quota_exceeded(r, "links", limit, used)
                                            : no_link(r));
    formsvc_audit_form(r, "link.created", id, form->id);
    json_object *o = fs_json_own(r->pool, json_tokener_parse(json));
    json_object_object_add(o, "url",
                           json_object_new_string(formsvc_link_url(
                               r, form->slug && *form->slug ? form->slug : form->id, token)));
    apr_table_setn(
        r->headers_out, "Location",
        apr_pstrcat(r->pool, formsvc_base_url(r), "/v1/forms/", form->id, "/links/", id, NULL));
    return formsvc_send_obj(r, 201, o);
}

static int formsvc_h_links_list(request_rec *r, const char *const *caps) {
    formsvc_form *form;
    int limit;
    const char *after;
    fs_error *e = formsvc_form_load(r, caps[0], &form);
    if (!e)
        e = formsvc_paging(r, "links", "lnk_", &limit, &after);
    if (e)
        return formsvc_send_problem(r, e);
    fs_link_page lp;
    if ((e = fs_store_link_list(formsvc_store(r), formsvc_req_get(r)->who->user_id,
                                formsvc_tree_root(r), form->id, after, limit, &lp)))
        return formsvc_send_problem(r, e);
    fs_list_page page = {lp.n, apr_pcalloc(r->pool, sizeof(fs_list_item) * (apr_size_t)(lp.n + 1)),
                         lp.more};
    for (int i = 0; i < lp.n; i++) {
        page.items[i].id = lp.rows[i].id;
        page.items[i].json = fs_json_str(r->pool, link_obj(r, &lp.rows[i]));
    }
    return formsvc_send_page(r, "links", &page);
}

/* The caller's link caps[1] of its form caps[0]; 404 for a malformed id,
 * another account's form or link, a deleted link, a link whose delegate
 * creator has ended, or (for a delegate) a link made outside its tree. */
static fs_error *load(request_rec *r, const char *const *caps, formsvc_form **form,
                      fs_link_row **l) {
    fs_error *e = formsvc_form_load(r, caps[0], form);
    if (e)
        return e;
    if (!fs_id_valid(caps[1], "lnk_"))
        return no_link(r);
    if ((e = fs_store_link_get(formsvc_store(r), formsvc_req_get(r)->who->user_id,
                               formsvc_tree_root(r), (*form)->id, caps[1], l)))
        return e;
    return *l ? NULL : no_link(r);
}

static int formsvc_h_links_get(request_rec *r, const char *const *caps) {
    formsvc_form *form;
    fs_link_row *l;
    fs_error *e = load(r, caps, &form, &l);
    if (e)
        return formsvc_send_problem(r, e);
    return formsvc_send_obj(r, 200, link_obj(r, l));
}

static int formsvc_h_links_delete(request_rec *r, const char *const *caps) {
    formsvc_form *form;
    fs_link_row *l;
    fs_error *e = load(r, caps, &form, &l);
    if (e)
        return formsvc_send_problem(r, e);
    int deleted;
    if ((e = fs_store_link_delete(formsvc_store(r), formsvc_req_get(r)->who->user_id,
                                  formsvc_tree_root(r), form->id, l->id, &deleted)))
        return formsvc_send_problem(r, e);
    if (!deleted)
        return formsvc_send_problem(r, no_link(r));
    formsvc_audit_form(r, "link.deleted", l->id, form->id);
    return formsvc_send_empty(r, 204);
}

const formsvc_route formsvc_routes_links[] = {
    {M_GET, "/v1/forms/{id}/links", formsvc_h_links_list, FS_SC_FORMS_READ, 1},
    {M_POST, "/v1/forms/{id}/links", formsvc_h_links_create, FS_SC_FORMS_WRITE, 1},
    {M_GET, "/v1/forms/{id}/links/{lid}", formsvc_h_links_get, FS_SC_FORMS_READ, 1},
    {M_DELETE, "/v1/forms/{id}/links/{lid}", formsvc_h_links_delete, FS_SC_FORMS_WRITE, 1},
    {0, NULL, NULL, 0, 0}};
