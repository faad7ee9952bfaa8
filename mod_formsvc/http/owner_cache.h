/* owner_cache: the owner's representation of a form (GET /v1/forms/{id})
 * from memory, per httpd child, in the forms cache (cache.h; it shares
 * FormsvcFormCacheSize with the public answers).
 *
 * An entry holds the account that owns the form, its version (the ETag)
 * and the JSON the database rendered (fs_form_json, with the live
 * submissionCount). It depends on two generation keys:
 * - "r:<form id>": any change of the form row, bumped at once on this
 *   machine and within 1 s on the others by the listener (sql/0025);
 * - "c:<form id>": the form's submission count, bumped by this machine's
 *   children after they store or delete a submission of the form
 *   (formsvc_owner_count_changed). Submissions notify nothing (sql/0024),
 *   so another machine's submissions show when the entry expires: an entry
 *   lives at most 1 s (and never past the form's closesAt).
 * Only the GET handler reads it; writes load the form from the database
 * and save it under its version, as before. */
#ifndef FORMSVC_OWNER_CACHE_H
#define FORMSVC_OWNER_CACHE_H

#include <httpd.h>

#include "fs_error.h"

/* The account's form id as GET renders it: *json and *version, from
 * memory or the database (and then kept). *json NULL when the account has
 * no such form. The caller has checked the id and the credential's form:
 * constraints. */
fs_error *formsvc_owner_form_view(request_rec *r, const char *id, const char *user_id,
                                  const char **json, int *version);

/* A submission of form_id was stored or deleted by this request: entries
 * of the form go stale in every child of this machine. */
void formsvc_owner_count_changed(apr_pool_t *p, const char *form_id);

#endif
