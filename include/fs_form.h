/* fs_form: the form-level members of a form: title, description, slug and
 * settings (fields are fs_field's). Errors go to a validation-failed
 * fs_error under the pointer given. */
#ifndef FS_FORM_H
#define FS_FORM_H

#include <apr_pools.h>
#include <json.h>

#include "fs_error.h"

#define FS_TITLE_MAX 200
#define FS_FORM_DESCRIPTION_MAX 5000
#define FS_CONFIRMATION_MAX 2000
#define FS_URL_MAX 2000
#define FS_SUBMIT_LABEL_MAX 100
#define FS_MAX_SUBMISSIONS_MAX 100000000
/* settings.retentionDays: 1 .. ten years */
#define FS_RETENTION_DAYS_MAX 3650
/* settings.partialExpiresDays: 1 .. a year; 30 when not set */
#define FS_PARTIAL_DAYS_MAX 365
#define FS_PARTIAL_DAYS_DEFAULT 30

/* 1 when slug matches ^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$ and does not
 * begin with frm_. */
int fs_slug_valid(const char *slug);

/* title: a string of 1..200 characters without control characters. */
const char *fs_form_title(apr_pool_t *p, json_object *v, const char *ptr, fs_error *verr);
/* description: NULL for JSON null, else a string of up to 5000 characters
 * (new lines and tabs allowed). *ok is 0 when there was an error. */
const char *fs_form_description(apr_pool_t *p, json_object *v, const char *ptr, fs_error *verr,
                                int *ok);
/* slug: NULL for JSON null; *ok as above. */
const char *fs_form_slug(apr_pool_t *p, json_object *v, const char *ptr, fs_error *verr, int *ok);

/* The origin of an absolute http(s) URL, "scheme://host[:port]" in lower
 * case, in p, when the URL is safe to copy into a header and its origin
 * into a Content-Security-Policy source list: printable ASCII only, none of
 * ; , " ' ` < > \ (they end or split a CSP source expression), no user
 * information, a host of letters, digits, hyphens and dots (no IPv6
 * literal: CSP cannot name one), a numeric port. NULL otherwise. */
const char *fs_url_origin(apr_pool_t *p, const char *url);
/* 1 when fs_url_origin accepts url: the rule for settings.redirectUrl. */
int fs_redirect_url_valid(apr_pool_t *p, const char *url);

/* Validates complete settings (after a merge patch): closesAt (RFC 3339 or
 * null), maxSubmissions (1..100000000 or null), confirmationMessage
 * (string up to 2000 or null), redirectUrl (fs_redirect_url_valid, or null),
 * honeypot (boolean), retentionDays (1..FS_RETENTION_DAYS_MAX or null:
 * absent). Returns the normalised object with every member
 * (defaults filled in, closesAt as UTC with milliseconds), owned by the
 * caller, or NULL on errors. */
json_object *fs_settings_parse(apr_pool_t *p, json_object *s, const char *ptr, fs_error *verr);

/* The rules between settings and fields (whatever of the two changed):
 * uniqueBy names fields (fs_unique.h), confirmation.emailField names an
 * email field (fs_notify.h). Errors go to verr. */
void fs_settings_fields_check(apr_pool_t *p, json_object *settings, json_object *fields,
                              fs_error *verr);

/* The public page's members of settings s, added to out when
 * set: submitLabel (1..100 characters, one line), closedMessage (1..2000,
 * new lines allowed), opensAt (RFC 3339, normalised like closesAt; before
 * closesAt when both are set), theme (fs_settings_theme), embed
 * (fs_settings_embed). Errors to verr
 * under ptr. */
void fs_settings_page(apr_pool_t *p, json_object *s, json_object *out, const char *ptr,
                      fs_error *verr);

#endif
