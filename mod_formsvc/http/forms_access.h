/* forms_access: what the handlers of forms, fields, submissions, webhooks
 * and the audit list share (forms_access.c): loading a form the caller may
 * see, ETag / If-Match, and saving a form's editable state with optimistic
 * concurrency. */
#ifndef FORMSVC_FORMS_ACCESS_H
#define FORMSVC_FORMS_ACCESS_H

#include <httpd.h>
#include <json.h>

#include "fs_error.h"

typedef struct formsvc_form {
    const char *id, *json, *slug, *title, *description, *status; /* status: effective */
    int version;
    json_object *fields;   /* array of normalised fields; owned by r->pool */
    json_object *settings; /* normalised settings; owned by r->pool */
} formsvc_form;

/* The caller's form by id: 404 not-found (the same problem for a malformed
 * id, another account's form, a form outside the credential's form:
 * constraints, or no form at all). */
fs_error *formsvc_form_load(request_rec *r, const char *id, formsvc_form **out);

/* The form: constraints of the caller as a JSON array, or NULL for none. */
const char *formsvc_form_constraints(request_rec *r);

/* If-Match. 1 when the header is absent (nothing to check). */
int formsvc_if_match_absent(request_rec *r);
/* 1 when If-Match is absent, "*", or lists the strong ETag "<version>". */
int formsvc_if_match_ok(request_rec *r, int version);
/* The 412 problem for a stale version. */
fs_error *formsvc_precondition_failed(request_rec *r, int current);
/* ETag: "<version>". */
void formsvc_set_etag(request_rec *r, int version);
/* The version in a form's JSON text (for the ETag of write answers). */
int formsvc_version_of(request_rec *r, const char *form_json);

/* Saves the editable state of f (fields/settings given as normalised
 * JSON) if f->version is still current. *stale is set (and NULL returned)
 * when someone else changed the form in between; a problem otherwise
 * (404, 409 slug-taken). *json_out is the new form JSON. */
fs_error *formsvc_form_save(request_rec *r, const formsvc_form *f, const char *slug,
                            const char *title, const char *description, json_object *fields,
                            json_object *settings, int *stale, const char **json_out);

/* A change to a form's editable state, prefilled with the current values;
 * a change function edits what it changes. */
typedef struct formsvc_form_change {
    const char *slug, *title, *description;
    json_object *fields, *settings; /* pool-owned copies: edit freely */
} formsvc_form_change;
typedef fs_error *formsvc_change_fn(request_rec *r, const formsvc_form *f, void *ctx,
                                    formsvc_form_change *c);

/* 422 when settings.uniqueBy names a key that is not one of fields
 * (pointer /settings/uniqueBy/<i>) or settings.confirmation.emailField is
 * not an email field, whatever changed: a field a rule names cannot be
 * removed or renamed before the rule drops it. */
fs_error *formsvc_settings_fields_check(request_rec *r, json_object *settings, json_object *fields);
/* 403 quota-exceeded (quota "notifications") when settings newly asks for
 * mail (notify or confirmation differ from old; old NULL: a new form) and
 * the caller's tier may send none: unverified accounts. */
fs_error *formsvc_mail_settings_check(request_rec *r, json_object *old, json_object *settings);
/* Loads the form (404), checks If-Match (412), applies fn and saves with
 * the version read as a guard. When another write came in between: 412
 * if the request carried If-Match, else the change is applied again to
 * the new state (a few times). *json_out: the saved form's JSON; its ETag
 * is set. */
fs_error *formsvc_form_change_apply(request_rec *r, const char *id, formsvc_change_fn *fn,
                                    void *ctx, const char **json_out);

/* The form:<id> constraints of a requested scopes array (sv: the JSON
 * array as sent; NULL: nothing to check) must name forms of the account,
 * whoever may see them: each that does not is a validation error
 * (/scopes/<i>, enum) added to verr. Returns a problem only when the
 * store fails. */
fs_error *formsvc_scope_forms_exist(request_rec *r, json_object *sv, fs_error *verr);

#endif
