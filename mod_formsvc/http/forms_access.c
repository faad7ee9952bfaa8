/* forms_access: loading forms for the caller, ETags and saving. */
#include "http/forms_access.h"
#include "fs_field.h"
#include "fs_fieldset.h"
#include "fs_form.h"
#include "fs_json.h"
#include "fs_notify.h"
#include "fs_secret.h"
#include "fs_store_forms.h"
#include "http/auth.h"
#include "http/quota.h"
#include "http/request.h"
#include "runtime/request_ctx.h"

#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

const char *formsvc_form_constraints(request_rec *r) {
    fs_scopes *sc = formsvc_req_get(r)->who->scopes;
    if (sc->full || sc->forms->nelts == 0)
        return NULL;
    json_object *a = fs_json_own(r->pool, json_object_new_array());
    for (int i = 0; i < sc->forms->nelts; i++)
        json_object_array_add(a, json_object_new_string(APR_ARRAY_IDX(sc->forms, i, const char *)));
    return fs_json_str(r->pool, a);
}

fs_error *formsvc_form_load(request_rec *r, const char *id, formsvc_form **out) {
    *out = NULL;
    formsvc_principal *who = formsvc_req_get(r)->who;
    if (!fs_id_valid(id, "frm_") || !fs_scopes_allows_form(who->scopes, id))
        return fs_error_make(r->pool, "not-found", "No such form.");
    fs_form_row *row;
    fs_error *e = fs_store_form_get(formsvc_store(r), formsvc_base_url(r), id, who->user_id, &row);
    if (e)
        return e;
    if (!row)
        return fs_error_make(r->pool, "not-found", "No such form.");
    formsvc_form *f = apr_pcalloc(r->pool, sizeof(*f));
    f->id = id;
    f->json = row->json;
    f->version = row->version;
    f->fields = fs_json_parse_trusted(r->pool, row->fields);
    f->settings = fs_json_parse_trusted(r->pool, row->settings);
    f->slug = row->slug;
    f->title = row->title;
    f->description = row->description;
    f->status = row->status;
    if (!f->fields || !json_object_is_type(f->fields, json_type_array))
        f->fields = fs_json_own(r->pool, json_object_new_array());
    if (!f->settings)
        f->settings = fs_json_own(r->pool, json_object_new_object());
    *out = f;
    return NULL;
}

int formsvc_if_match_absent(request_rec *r) {
    return apr_table_get(r->headers_in, "If-Match") == NULL;
}

int formsvc_if_match_ok(request_rec *r, int version) {
    const char *h = apr_table_get(r->headers_in, "If-Match");
    if (!h)
        return 1;
    char *list = apr_pstrdup(r->pool, h), *last = NULL;
    const char *want = apr_psprintf(r->pool, "\"%d\"", version);
    for (char *t = apr_strtok(list, ",", &last); t; t = apr_strtok(NULL, ",", &last)) {
        while (*t == ' ' || *t == '\t')
            t++;
        apr_size_t n = strlen(t);
        while (n > 0 && (t[n - 1] == ' ' || t[n - 1] == '\t'))
            t[--n] = '\0';
        if (!strcmp(t, "*") || !strcmp(t, want))
            return 1; /* a weak W/"n" never matches: If-Match compares strongly */
    }
    return 0;
}

fs_error *formsvc_precondition_failed(request_rec *r, int current) {
    formsvc_set_etag(r, current);
    return fs_error_make(r->pool, "precondition-failed",
                         "If-Match does not match the form's current ETag \"%d\"; fetch it "
                         "again and reapply the change.",
                         current);
}

void formsvc_set_etag(request_rec *r, int version) {
    if (version > 0)
        apr_table_setn(r->err_headers_out, "ETag", apr_psprintf(r->pool, "\"%d\"", version));
}

int formsvc_version_of(request_rec *r, const char *form_json) {
    json_object *o = fs_json_parse_trusted(r->pool, form_json);
    return o ? json_object_get_int(fs_json_get(o, "version")) : 0;
}

fs_error *formsvc_form_save(request_rec *r, const formsvc_form *f, const char *slug,
                            const char *title, const char *description, json_object *fields,
                            json_object *settings, int *stale, const char **json_out) {
    *stale = 0;
    *json_out = NULL;
    fs_form_state state = {slug, title, description, fs_json_str(r->pool, fields),
                           fs_json_str(r->pool, settings)};
    fs_form_write w;
    fs_error *e =
        fs_store_form_save(formsvc_store(r), formsvc_base_url(r), formsvc_req_get(r)->who->user_id,
                           f->id, f->version, &state, &w);
    if (e)
        return e;
    if (w.outcome == FS_FORM_OK) {
        *json_out = w.json;
        return NULL;
    }
    if (w.outcome == FS_FORM_STALE) {
        *stale = w.version;
        return NULL;
    }
    if (w.outcome == FS_FORM_SLUG_TAKEN)
        return fs_error_make(r->pool, "slug-taken", "Another form already uses the slug %s.",
                             slug ? slug : "");
    return fs_error_make(r->pool, "not-found", "No such form.");
}

fs_error *formsvc_settings_fields_check(request_rec *r, json_object *settings,
                                        json_object *fields) {
    fs_error *verr = fs_error_validation(r->pool);
    fs_settings_fields_check(r->pool, settings, fields, verr);
    return verr->errors ? verr : NULL;
}

fs_error *formsvc_mail_settings_check(request_rec *r, json_object *old, json_object *settings) {
    if (!fs_notify_settings_mail(settings))
        return NULL;
    static const char *const keys[] = {"notify", "confirmation"};
    int same = old != NULL;
    for (int i = 0; i < 2 && same; i++)
        same = fs_json_equal(fs_json_get(old, keys[i]), fs_json_get(settings, keys[i]));
    int limit = formsvc_tier_of(r, formsvc_req_get(r)->who->verified)->notifications;
    if (same || limit > 0)
        return NULL;
    fs_error *e = formsvc_quota_exceeded(r, "notifications", limit, "0");
    e->detail = apr_pstrcat(r->pool, e->detail,
                            " Notification and confirmation mail (settings.notify, "
                            "settings.confirmation) needs a verified account: verify the "
                            "address with POST /v1/verify/send first.",
                            NULL);
    return e;
}

fs_error *formsvc_form_change_apply(request_rec *r, const char *id, formsvc_change_fn *fn,
                                    void *ctx, const char **json_out) {
    *json_out = NULL;
    for (int attempt = 0; attempt < 10; attempt++) {
        formsvc_form *f;
        fs_error *e = formsvc_form_load(r, id, &f);
        if (e)
            return e;
        if (!formsvc_if_match_ok(r, f->version))
            return formsvc_precondition_failed(r, f->version);
        formsvc_form_change c = {f->slug, f->title, f->description,
                                 fs_json_own(r->pool, fs_json_copy(f->fields)),
                                 fs_json_own(r->pool, fs_json_copy(f->settings))};
        if ((e = fn(r, f, ctx, &c)) ||
            (e = formsvc_settings_fields_check(r, c.settings, c.fields)) ||
            (e = formsvc_mail_settings_check(r, f->settings, c.settings)))
            return e;
        int stale;
        if ((e = formsvc_form_save(r, f, c.slug, c.title, c.description, c.fields, c.settings,
                                   &stale, json_out)))
            return e;
        if (!stale) {
            formsvc_set_etag(r, formsvc_version_of(r, *json_out));
            return NULL;
        }
        if (!formsvc_if_match_absent(r))
            return formsvc_precondition_failed(r, stale);
    }
    return fs_error_make(r->pool, "conflict",
                         "The form is being changed by other requests; retry.");
}

fs_error *formsvc_scope_forms_exist(request_rec *r, json_object *sv, fs_error *verr) {
    if (!sv || !json_object_is_type(sv, json_type_array))
        return NULL;
    for (size_t i = 0; i < json_object_array_length(sv); i++) {
        json_object *it = json_object_array_get_idx(sv, i);
        const char *t = json_object_is_type(it, json_type_string) ? json_object_get_string(it) : "";
        if (strncmp(t, "form:", 5) || !fs_id_valid(t + 5, "frm_"))
            continue; /* not a constraint, or one fs_scopes_from_json reports */
        fs_form_row *row;
        fs_error *e = fs_store_form_get(formsvc_store(r), formsvc_base_url(r), t + 5,
                                        formsvc_req_get(r)->who->user_id, &row);
        if (e)
            return e;
        if (!row)
            fs_error_add(r->pool, verr, apr_psprintf(r->pool, "/scopes/%lu", (unsigned long)i),
                         "enum", "%s names no form of the account.", t);
    }
    return NULL;
}
