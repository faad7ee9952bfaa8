/* handle_forms: /v1/forms: list, create, get, patch (JSON merge patch),
 * delete, publish, close. */
#include "fs_field.h"
#include "fs_form.h"
#include "fs_json.h"
#include "fs_schema_map.h"
#include "fs_secret.h"
#include "fs_store_forms.h"
#include "http/audit.h"
#include "http/auth.h"
#include "http/forms_access.h"
#include "http/idempotency.h"
#include "http/owner_cache.h"
#include "http/quota.h"
#include "http/request.h"
#include "http/response.h"
#include "http/router.h"
#include "runtime/config.h"
#include "runtime/request_ctx.h"

#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

static int formsvc_h_forms_list(request_rec *r, const char *const *caps) {
    (void)caps;
    int limit;
    const char *after;
    fs_error *e = formsvc_paging(r, "forms", "frm_", &limit, &after);
    if (e)
        return formsvc_send_problem(r, e);
    const char *status;
    if ((e = formsvc_arg(r, "status", &status)))
        return formsvc_send_problem(r, e);
    if (status && strcmp(status, "draft") && strcmp(status, "published") &&
        strcmp(status, "closed")) {
        e = fs_error_validation(r->pool);
        fs_error_add(r->pool, e, "/status", "enum", "status is draft, published or closed.");
        return formsvc_send_problem(r, e);
    }
    fs_list_page page;
    if ((e = fs_store_form_list(formsvc_store(r), formsvc_base_url(r),
                                formsvc_req_get(r)->who->user_id, status,
                                formsvc_form_constraints(r), after, limit, &page)))
        return formsvc_send_problem(r, e);
    return formsvc_send_page(r, "forms", &page);
}

static int formsvc_h_forms_create(request_rec *r, const char *const *caps) {
    (void)caps;
    json_object *body;
    fs_error *e = formsvc_read_json(r, 0, &body);
    if (e)
        return formsvc_send_problem(r, e);
    formsvc_principal *who = formsvc_req_get(r)->who;
    if (formsvc_form_constraints(r))
        return formsvc_send_problem(
            r, formsvc_scope_problem(r, "forms:write",
                                     "A credential limited to particular forms (form: "
                                     "constraints) cannot create forms."));
    const char *canon = fs_json_str(r->pool, body);
    formsvc_idem *idem;
    int rc = formsvc_idem_begin(r, who->key_id, canon, strlen(canon), &idem);
    if (rc != FORMSVC_IDEM_PROCEED)
        return rc;

    fs_error *verr = fs_error_validation(r->pool);
    static const char *const allowed[] = {"title",    "description", "slug", "fields",
                                          "settings", "schema",      NULL};
    fs_json_unknown_members(r->pool, body, allowed, verr);
    int ok1, ok2;
    /* schema: the form's questions as a JSON Schema (fs_schema_map.h), in
     * place of fields; its title is the form's when the body has none */
    json_object *sv = fs_json_get(body, "schema"), *tv = fs_json_get(body, "title");
    if (sv && fs_json_get(body, "fields"))
        fs_error_add(r->pool, verr, "/schema", "unknown",
                     "Give the questions as fields or as schema, not both.");
    if (sv && !tv && json_object_is_type(fs_json_get(sv, "title"), json_type_string))
        tv = fs_json_get(sv, "title");
    const char *title = fs_form_title(r->pool, tv, "/title", verr);
    const char *desc =
        fs_form_description(r->pool, fs_json_get(body, "description"), "/description", verr, &ok1);
    const char *slug = fs_form_slug(r->pool, fs_json_get(body, "slug"), "/slug", verr, &ok2);
    json_object *settings = fs_json_own(
        r->pool, fs_settings_parse(r->pool, fs_json_get(body, "settings"), "/settings", verr));
    json_object *fv = fs_json_get(body, "fields"), *fields = NULL;
    if (sv) {
        if ((e = formsvc_fields_quota(r, fs_schema_property_count(sv), 0)))
            return formsvc_idem_problem(r, idem, e);
        fields = fs_schema_to_fields(r->pool, sv, "/schema", verr, NULL);
    } else if (fv && !json_object_is_type(fv, json_type_null)) {
        if (json_object_is_type(fv, json_type_array) &&
            (e = formsvc_fields_quota(r, (int)json_object_array_length(fv), 0)))
            return formsvc_idem_problem(r, idem, e);
        fields = fs_fields_parse(r->pool, fv, "/fields", NULL, verr);
    } else {
        fields = fs_json_own(r->pool, json_object_new_array());
    }
    if (settings && fields)
        fs_settings_fields_check(r->pool, settings, fields, verr);
    if (verr->errors)
        return formsvc_idem_problem(r, idem, verr);
    if ((e = formsvc_mail_settings_check(r, NULL, settings)))
        return formsvc_idem_problem(r, idem, e);

    formsvc_srv *c = formsvc_conf(r->server);
    int limit = c->tier[who->verified ? 1 : 0].forms;
    const char *id = fs_id_new(r->pool, "frm_");
    if (!id)
        return formsvc_idem_problem(r, idem,
                                    fs_error_internal(r->pool, "no random bytes for a form id"));
    fs_form_state state = {slug, title, desc, fs_json_str(r->pool, fields),
                           fs_json_str(r->pool, settings)};
    fs_form_write w;
    if ((e = fs_store_form_create(formsvc_store(r), formsvc_base_url(r), id, who->user_id, &state,
                                  limit, &w)))
        return formsvc_idem_problem(r, idem, e);
    if (w.outcome == FS_FORM_QUOTA)
        return formsvc_idem_problem(
            r, idem, formsvc_quota_exceeded(r, "forms", limit, apr_itoa(r->pool, w.used)));
    if (w.outcome == FS_FORM_SLUG_TAKEN)
        return formsvc_idem_problem(
            r, idem,
            fs_error_make(r->pool, "slug-taken", "Another form already uses the slug %s.", slug));
    if (w.outcome != FS_FORM_OK)
        return formsvc_idem_problem(
            r, idem, fs_error_internal(r->pool, "fs_form_create answered no outcome it defines"));
    const char *json = w.json;
    apr_table_setn(r->headers_out, "Location",
                   apr_pstrcat(r->pool, formsvc_base_url(r), "/v1/forms/", id, NULL));
    formsvc_set_etag(r, 1);
    if ((e = formsvc_idem_record(r, idem, 201, "application/json", json)))
        return formsvc_send_problem(r, e); /* the form is not stored, or 504 */
    formsvc_audit(r, "form.created", id);
    return formsvc_send_json(r, 201, json);
}

/* GET: the only form read served from memory (owner_cache.h). */
static int formsvc_h_forms_get(request_rec *r, const char *const *caps) {
    formsvc_principal *who = formsvc_req_get(r)->who;
    const char *json;
    int version;
    fs_error *e = NULL;
    if (!fs_id_valid(caps[0], "frm_") || !fs_scopes_allows_form(who->scopes, caps[0]) ||
        (e = formsvc_owner_form_view(r, caps[0], who->user_id, &json, &version)) || !json)
        return formsvc_send_problem(r,
                                    e ? e : fs_error_make(r->pool, "not-found", "No such form."));
    formsvc_set_etag(r, version);
    const char *inm = apr_table_get(r->headers_in, "If-None-Match");
    if (inm && (!strcmp(inm, "*") || strstr(inm, apr_psprintf(r->pool, "\"%d\"", version))))
        return formsvc_send_empty(r, HTTP_NOT_MODIFIED);
    return formsvc_send_json(r, 200, json);
}

/* PATCH: a JSON merge patch of title, description, slug and settings. */
static fs_error *apply_patch(request_rec *r, const formsvc_form *f, void *ctx,
                             formsvc_form_change *c) {
    (void)f;
    json_object *body = ctx, *v;
    fs_error *verr = fs_error_validation(r->pool);
    static const char *const allowed[] = {"title", "description", "slug", "settings", NULL};
    fs_json_unknown_members(r->pool, body, allowed, verr);
    int ok;
    if (json_object_object_get_ex(body, "title", &v))
        c->title = fs_form_title(r->pool, v, "/title", verr);
    if (json_object_object_get_ex(body, "description", &v))
        c->description = fs_form_description(r->pool, v, "/description", verr, &ok);
    if (json_object_object_get_ex(body, "slug", &v))
        c->slug = fs_form_slug(r->pool, v, "/slug", verr, &ok);
    if (json_object_object_get_ex(body, "settings", &v)) {
        json_object *merged = fs_json_own(r->pool, v ? fs_merge_patch(c->settings, v) : NULL);
        if (v && !json_object_is_type(v, json_type_object)) {
            fs_error_add(r->pool, verr, "/settings", "type", "settings must be an object or null.");
        } else {
            json_object *s = fs_settings_parse(r->pool, merged, "/settings", verr);
            if (s)
                c->settings = fs_json_own(r->pool, s);
        }
    }
    return verr->errors ? verr : NULL;
}

static int formsvc_h_forms_patch(request_rec *r, const char *const *caps) {
    json_object *body;
    fs_error *e = formsvc_read_json(r, 0, &body);
    if (e)
        return formsvc_send_problem(r, e);
    const char *json;
    if ((e = formsvc_form_change_apply(r, caps[0], apply_patch, body, &json)))
        return formsvc_send_problem(r, e);
    formsvc_audit(r, "form.changed", caps[0]);
    return formsvc_send_json(r, 200, json);
}

static int formsvc_h_forms_delete(request_rec *r, const char *const *caps) {
    formsvc_form *f;
    fs_error *e = formsvc_form_load(r, caps[0], &f);
    if (e)
        return formsvc_send_problem(r, e);
    if (!formsvc_if_match_ok(r, f->version))
        return formsvc_send_problem(r, formsvc_precondition_failed(r, f->version));
    int found, deleted;
    if ((e = fs_store_form_delete(formsvc_store(r), formsvc_req_get(r)->who->user_id, f->id,
                                  formsvc_if_match_absent(r) ? 0 : f->version, &found, &deleted)))
        return formsvc_send_problem(r, e);
    if (!found)
        return formsvc_send_problem(r, fs_error_make(r->pool, "not-found", "No such form."));
    if (!deleted) {
        formsvc_form *now;
        if ((e = formsvc_form_load(r, caps[0], &now)))
            return formsvc_send_problem(r, e);
        return formsvc_send_problem(r, formsvc_precondition_failed(r, now->version));
    }
    formsvc_audit(r, "form.deleted", f->id);
    return formsvc_send_empty(r, HTTP_NO_CONTENT);
}

static int transition(request_rec *r, const char *id, const char *action) {
    json_object *body;
    fs_error *e = formsvc_read_json(r, 1, &body);
    if (e)
        return formsvc_send_problem(r, e);
    if (json_object_object_length(body) > 0) {
        e = fs_error_validation(r->pool);
        static const char *const none[] = {NULL};
        fs_json_unknown_members(r->pool, body, none, e);
        return formsvc_send_problem(r, e);
    }
    formsvc_form *f;
    if ((e = formsvc_form_load(r, id, &f)))
        return formsvc_send_problem(r, e);
    if (!formsvc_if_match_ok(r, f->version))
        return formsvc_send_problem(r, formsvc_precondition_failed(r, f->version));
    fs_form_write w;
    if ((e = fs_store_form_transition(formsvc_store(r), formsvc_base_url(r),
                                      formsvc_req_get(r)->who->user_id, f->id, action,
                                      formsvc_if_match_absent(r) ? 0 : f->version, &w)))
        return formsvc_send_problem(r, e);
    if (w.outcome == FS_FORM_OK) {
        const char *json = w.json;
        formsvc_set_etag(r, formsvc_version_of(r, json));
        formsvc_audit(r, !strcmp(action, "publish") ? "form.published" : "form.closed", f->id);
        return formsvc_send_json(r, 200, json);
    }
    if (w.outcome == FS_FORM_STALE)
        return formsvc_send_problem(r, formsvc_precondition_failed(r, w.version));
    if (w.outcome == FS_FORM_INVALID_STATE)
        return formsvc_send_problem(r, fs_error_make(r->pool, "invalid-state", "%s", w.detail));
    return formsvc_send_problem(r, fs_error_make(r->pool, "not-found", "No such form."));
}

static int formsvc_h_forms_publish(request_rec *r, const char *const *caps) {
    return transition(r, caps[0], "publish");
}

static int formsvc_h_forms_close(request_rec *r, const char *const *caps) {
    return transition(r, caps[0], "close");
}

const formsvc_route formsvc_routes_forms[] = {
    {M_GET, "/v1/forms", formsvc_h_forms_list, FS_SC_FORMS_READ, 1},
    {M_POST, "/v1/forms", formsvc_h_forms_create, FS_SC_FORMS_WRITE, 1},
    {M_GET, "/v1/forms/{id}", formsvc_h_forms_get, FS_SC_FORMS_READ, 1},
    {M_PATCH, "/v1/forms/{id}", formsvc_h_forms_patch, FS_SC_FORMS_WRITE, 1},
    {M_DELETE, "/v1/forms/{id}", formsvc_h_forms_delete, FS_SC_FORMS_WRITE, 1},
    {M_POST, "/v1/forms/{id}/publish", formsvc_h_forms_publish, FS_SC_FORMS_WRITE, 1},
    {M_POST, "/v1/forms/{id}/close", formsvc_h_forms_close, FS_SC_FORMS_WRITE, 1},
    {0, NULL, NULL, 0, 0}};
