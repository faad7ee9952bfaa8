/* handle_fields: /v1/forms/{id}/fields: add one, change one (merge patch),
 * remove one, get one, and replace the whole list at once. Every change
 * is one guarded write of the form's field list (forms.h), so a failed
 * request leaves the old list as it was. */
#include "fs_field.h"
#include "fs_json.h"
#include "fs_secret.h"
#include "http/audit.h"
#include "http/forms_access.h"
#include "http/quota.h"
#include "http/request.h"
#include "http/response.h"
#include "http/router.h"

#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

/* A field without a string id (one written into the database by hand)
 * is never the one asked for. */
static int index_of(json_object *fields, const char *fid) {
    for (size_t i = 0; i < json_object_array_length(fields); i++) {
        json_object *id = fs_json_get(json_object_array_get_idx(fields, i), "id");
        if (id && json_object_is_type(id, json_type_string) &&
            !strcmp(json_object_get_string(id), fid))
            return (int)i;
    }
    return -1;
}

static fs_error *no_field(request_rec *r) {
    return fs_error_make(r->pool, "not-found", "No such field.");
}

/* Rebuilds fields with item `skip` left out and `add` inserted at `pos`. */
static json_object *rebuild(request_rec *r, json_object *fields, int skip, json_object *add,
                            int pos) {
    json_object *out = fs_json_own(r->pool, json_object_new_array());
    int n = (int)json_object_array_length(fields), k = 0;
    for (int i = 0; i <= n; i++) {
        if (add && k == pos) {
            json_object_array_add(out, json_object_get(add));
            k++;
        }
        if (i < n && i != skip) {
            json_object_array_add(out, json_object_get(json_object_array_get_idx(fields, i)));
            k++;
        }
    }
    return out;
}

/* The position member of a request: -1 when absent or null; 422 when bad. */
static int position_of(request_rec *r, json_object *body, int max, fs_error *verr) {
    json_object *v = fs_json_get(body, "position");
    if (!v)
        return -1;
    if (!json_object_is_type(v, json_type_int))
        return -1; /* fs_field_parse reports the type */
    long long p = json_object_get_int64(v);
    if (p < 0 || p > max) {
        fs_error_add(r->pool, verr, "/position", p < 0 ? "minimum" : "maximum",
                     "position is from 0 to %d.", max);
        return -1;
    }
    return (int)p;
}

static const char *field_json(request_rec *r, const char *form_json, const char *fid) {
    json_object *form = fs_json_parse_trusted(r->pool, form_json);
    json_object *fields = fs_json_get(form, "fields");
    int i = fields ? index_of(fields, fid) : -1;
    return i < 0 ? "{}" : fs_json_str(r->pool, json_object_array_get_idx(fields, i));
}

/* ---- POST: add one field ---- */
typedef struct {
    json_object *body;
    const char *fid;
} add_ctx;

static fs_error *apply_add(request_rec *r, const formsvc_form *f, void *vctx,
                           formsvc_form_change *c) {
    add_ctx *ctx = vctx;
    (void)f;
    int n = (int)json_object_array_length(c->fields);
    fs_error *e = formsvc_fields_quota(r, n + 1, n);
    if (e)
        return e;
    fs_error *verr = fs_error_validation(r->pool);
    json_object *idv = fs_json_get(ctx->body, "id");
    if (idv)
        fs_error_add(r->pool, verr, "/id", "unknown", "id is assigned by the server.");
    int pos = position_of(r, ctx->body, n, verr);
    json_object *fld = fs_json_own(r->pool, fs_field_parse(r->pool, ctx->body, ctx->fid, "", verr));
    if (verr->errors)
        return verr;
    json_object *list = rebuild(r, c->fields, -1, fld, pos < 0 ? n : pos);
    const char **ptrs = apr_pcalloc(r->pool, sizeof(char *) * (size_t)(n + 1));
    ptrs[pos < 0 ? n : pos] = "";
    if (!fs_fields_check(r->pool, list, ptrs, "", verr))
        return verr;
    c->fields = list;
    return NULL;
}

static int formsvc_h_fields_add(request_rec *r, const char *const *caps) {
    json_object *body;
    fs_error *e = formsvc_read_json(r, 0, &body);
    if (e)
        return formsvc_send_problem(r, e);
    add_ctx ctx = {body, fs_id_new(r->pool, "fld_")};
    const char *json;
    if ((e = formsvc_form_change_apply(r, caps[0], apply_add, &ctx, &json)))
        return formsvc_send_problem(r, e);
    formsvc_audit(r, "form.fields.changed", caps[0]);
    apr_table_setn(r->headers_out, "Location",
                   apr_pstrcat(r->pool, formsvc_base_url(r), "/v1/forms/", caps[0], "/fields/",
                               ctx.fid, NULL));
    return formsvc_send_json(r, 201, field_json(r, json, ctx.fid));
}

/* ---- PATCH: change one field ---- */
typedef struct {
    json_object *body;
    const char *fid;
} patch_ctx;

static fs_error *apply_patch(request_rec *r, const formsvc_form *f, void *vctx,
                             formsvc_form_change *c) {
    patch_ctx *ctx = vctx;
    (void)f;
    int i = index_of(c->fields, ctx->fid);
    if (i < 0)
        return no_field(r);
    int n = (int)json_object_array_length(c->fields);
    fs_error *verr = fs_error_validation(r->pool);
    json_object *idv = fs_json_get(ctx->body, "id");
    if (idv && (!json_object_is_type(idv, json_type_string) ||
                strcmp(json_object_get_string(idv), ctx->fid)))
        fs_error_add(r->pool, verr, "/id", "enum", "A field's id cannot be changed.");
    int pos = position_of(r, ctx->body, n - 1, verr);
    json_object *cur = json_object_array_get_idx(c->fields, i);
    json_object *merged = fs_json_own(r->pool, fs_merge_patch(cur, ctx->body));
    json_object_object_del(merged, "id");
    json_object_object_del(merged, "position");
    json_object *fld = fs_json_own(r->pool, fs_field_parse(r->pool, merged, ctx->fid, "", verr));
    if (verr->errors)
        return verr;
    json_object *list = rebuild(r, c->fields, i, fld, pos < 0 ? i : pos);
    const char **ptrs = apr_pcalloc(r->pool, sizeof(char *) * (size_t)n);
    ptrs[pos < 0 ? i : pos] = "";
    if (!fs_fields_check(r->pool, list, ptrs, "", verr))
        return verr;
    c->fields = list;
    return NULL;
}

static int formsvc_h_fields_patch(request_rec *r, const char *const *caps) {
    json_object *body;
    fs_error *e = formsvc_read_json(r, 0, &body);
    if (e)
        return formsvc_send_problem(r, e);
    if (!fs_id_valid(caps[1], "fld_"))
        return formsvc_send_problem(r, no_field(r));
    patch_ctx ctx = {body, caps[1]};
    const char *json;
    if ((e = formsvc_form_change_apply(r, caps[0], apply_patch, &ctx, &json)))
        return formsvc_send_problem(r, e);
    formsvc_audit(r, "form.fields.changed", caps[0]);
    return formsvc_send_json(r, 200, field_json(r, json, caps[1]));
}

/* ---- DELETE: remove one field ---- */
static fs_error *apply_delete(request_rec *r, const formsvc_form *f, void *vctx,
                              formsvc_form_change *c) {
    const char *fid = vctx;
    int i = index_of(c->fields, fid);
    if (i < 0)
        return no_field(r);
    const char *key =
        json_object_get_string(fs_json_get(json_object_array_get_idx(c->fields, i), "key"));
    const char *dep = fs_fields_depending_on(r->pool, c->fields, key);
    if (dep)
        return fs_error_make(r->pool, "conflict", "%s depends on this field; change that first.",
                             dep);
    if (json_object_array_length(c->fields) == 1 && !strcmp(f->status, "published"))
        return fs_error_make(r->pool, "invalid-state",
                             "A published form keeps at least one field; close it first.");
    json_object *list = rebuild(r, c->fields, i, NULL, 0);
    fs_error *verr = fs_error_validation(r->pool);
    if (!fs_fields_check(r->pool, list, NULL, "", verr))
        return verr;
    c->fields = list;
    return NULL;
}

static int formsvc_h_fields_delete(request_rec *r, const char *const *caps) {
    if (!fs_id_valid(caps[1], "fld_")) {
        formsvc_form *f; /* the form's 404 comes first */
        fs_error *e = formsvc_form_load(r, caps[0], &f);
        return formsvc_send_problem(r, e ? e : no_field(r));
    }
    const char *json;
    fs_error *e = formsvc_form_change_apply(r, caps[0], apply_delete, (void *)caps[1], &json);
    if (e)
        return formsvc_send_problem(r, e);
    formsvc_audit(r, "form.fields.changed", caps[0]);
    return formsvc_send_empty(r, HTTP_NO_CONTENT);
}

/* ---- GET one field ---- */
static int formsvc_h_fields_get(request_rec *r, const char *const *caps) {
    formsvc_form *f;
    fs_error *e = formsvc_form_load(r, caps[0], &f);
    if (e)
        return formsvc_send_problem(r, e);
    int i = index_of(f->fields, caps[1]);
    if (i < 0)
        return formsvc_send_problem(r, no_field(r));
    formsvc_set_etag(r, f->version);
    return formsvc_send_json(r, 200, fs_json_str(r->pool, json_object_array_get_idx(f->fields, i)));
}

/* ---- PUT: replace the list ---- */
static fs_error *apply_put(request_rec *r, const formsvc_form *f, void *vctx,
                           formsvc_form_change *c) {
    json_object *body = vctx;
    fs_error *verr = fs_error_validation(r->pool);
    static const char *const allowed[] = {"fields", NULL};
    fs_json_unknown_members(r->pool, body, allowed, verr);
    json_object *arr = fs_json_get(body, "fields");
    if (!arr) {
        fs_error_add(r->pool, verr, "/fields", "required", "fields is required.");
        return verr;
    }
    if (json_object_is_type(arr, json_type_array)) {
        fs_error *e = formsvc_fields_quota(r, (int)json_object_array_length(arr),
                                           (int)json_object_array_length(f->fields));
        if (e)
            return e;
    }
    json_object *list = fs_fields_parse(r->pool, arr, "/fields", f->fields, verr);
    if (verr->errors)
        return verr;
    if (json_object_array_length(list) == 0 && !strcmp(f->status, "published"))
        return fs_error_make(r->pool, "invalid-state",
                             "A published form keeps at least one field; close it first.");
    c->fields = list;
    return NULL;
}

static int formsvc_h_fields_put(request_rec *r, const char *const *caps) {
    json_object *body;
    fs_error *e = formsvc_read_json(r, 0, &body);
    if (e)
        return formsvc_send_problem(r, e);
    const char *json;
    if ((e = formsvc_form_change_apply(r, caps[0], apply_put, body, &json)))
        return formsvc_send_problem(r, e);
    formsvc_audit(r, "form.fields.changed", caps[0]);
    return formsvc_send_json(r, 200, json);
}

const formsvc_route formsvc_routes_fields[] = {
    {M_POST, "/v1/forms/{id}/fields", formsvc_h_fields_add, FS_SC_FORMS_WRITE, 1},
    {M_PUT, "/v1/forms/{id}/fields", formsvc_h_fields_put, FS_SC_FORMS_WRITE, 1},
    {M_GET, "/v1/forms/{id}/fields/{fieldId}", formsvc_h_fields_get, FS_SC_FORMS_READ, 1},
    {M_PATCH, "/v1/forms/{id}/fields/{fieldId}", formsvc_h_fields_patch, FS_SC_FORMS_WRITE, 1},
    {M_DELETE, "/v1/forms/{id}/fields/{fieldId}", formsvc_h_fields_delete, FS_SC_FORMS_WRITE, 1},
    {0, NULL, NULL, 0, 0}};
