/* fs_notify: the mail a form sends about its submissions. settings.notify
 * (the owner's notification: a mail per submission or an hourly digest,
 * to confirmed addresses only) and settings.confirmation (a plain-text copy
 * to the respondent) are checked here, and the text of every such message
 * is written here. No httpd headers: the mail worker (http/notify.c) calls
 * these with what the store claimed; tests/test_notify.c tests them alone.
 *
 * Everything an owner or a respondent wrote reaches the mail as plain text
 * only: a template's {{key}} is replaced by the answer and the result is
 * never read again for placeholders. */
#ifndef FS_NOTIFY_H
#define FS_NOTIFY_H

#include "fs_error.h"
#include "fs_fieldset.h"

#include <apr_pools.h>
#include <json.h>

#define FS_NOTIFY_EMAILS_MAX 10
#define FS_CONFIRM_SUBJECT_MAX 200
#define FS_CONFIRM_BODY_MAX 5000
/* A digest lists this many submissions in full and counts the rest. */
#define FS_DIGEST_LIST_MAX 50

/* settings.notify of s: absent or null is none; else {"emails": [1..10
 * addresses, no two the same ignoring case], "mode": "each" (default) or
 * "hourly"}. Adds the normalised object (or null) to out as "notify";
 * errors go to verr under ptr + "/notify". */
void fs_notify_settings_parse(apr_pool_t *p, json_object *s, const char *ptr, json_object *out,
                              fs_error *verr);

/* settings.confirmation of s: absent or null is none; else {"emailField":
 * a field key, "subject": 1..200 characters on one line, "body": 1..5000
 * characters}. Adds the object (or null) to out as "confirmation". */
void fs_confirmation_settings_parse(apr_pool_t *p, json_object *s, const char *ptr,
                                    json_object *out, fs_error *verr);

/* 422 items when settings.confirmation.emailField is not the key of an
 * email field of fields (pointer /settings/confirmation/emailField),
 * whatever changed: the field cannot be removed or retyped first. */
void fs_confirmation_fields_check(apr_pool_t *p, json_object *settings, json_object *fields,
                                  fs_error *verr);

/* 1 when settings asks for mail (notify or confirmation not null): only a
 * tier with a notification quota may set that. */
int fs_notify_settings_mail(json_object *settings);

/* The answers as plain text: per visible answered field "Label:" and the
 * value on the next line(s) indented by two spaces, a blank line between;
 * option values as their labels, lists joined by ", ", files by name.
 * fs is the form's fields (fs_fieldset_from_json), read once per message
 * by the caller. In p. */
char *fs_notify_answers_text(apr_pool_t *p, const fs_fieldset *fs, json_object *data);

/* One answer as text ("" when there is none), as fs_notify_answers_text
 * writes it. */
const char *fs_notify_answer(apr_pool_t *p, const fs_fieldset *fs, json_object *data,
                             const char *key);

/* tmpl with each {{key}} (optional spaces inside the braces, key a field
 * key) replaced by that answer, "" when the field has none or is unknown.
 * Anything else, including a lone "{{", stays as written; answers are
 * never scanned for placeholders. In p. */
char *fs_notify_fill(apr_pool_t *p, const char *tmpl, const fs_fieldset *fs, json_object *data);

/* One line of header text: control characters (CR and LF included)
 * become spaces and the result is cut to max bytes on a UTF-8 boundary. */
char *fs_notify_header_text(apr_pool_t *p, const char *s, apr_size_t max);

#endif
