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
/* The text of one message (its answers, a filled template, a digest's
 * list) is cut at this many bytes, on a character boundary, and then ends
 * with FS_MAIL_TEXT_CUT; the lines the worker adds after it (the form and
 * the unsubscribe link) are not counted. Whatever the answers, writing a
 * message takes time and memory linear in what it keeps. */
#define FS_MAIL_TEXT_MAX (256 * 1024)
#define FS_MAIL_TEXT_CUT "\n[... cut here: a mail carries at most 256 KB of text]\n"

/* A text built by appending, in pool p: its buffer grows geometrically
 * (so n appends cost time and memory linear in the result) and takes at
 * most max bytes; what would pass max is cut on a UTF-8 boundary and
 * followed by FS_MAIL_TEXT_CUT, cut is set and later appends are ignored. */
typedef struct fs_notify_text {
    apr_pool_t *p;
    char *s; /* NUL-terminated; NULL while nothing was added */
    apr_size_t n, cap, max;
    int cut;
} fs_notify_text;
void fs_notify_text_init(fs_notify_text *t, apr_pool_t *p, apr_size_t max);
void fs_notify_text_addn(fs_notify_text *t, const char *s, apr_size_t n);
void fs_notify_text_add(fs_notify_text *t, const char *s); /* s NULL: nothing */
/* The text so far ("" when empty; it ends with FS_MAIL_TEXT_CUT when it
 * was cut), in t's pool. */
char *fs_notify_text_done(fs_notify_text *t);

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
 * by the caller. In p, at most FS_MAIL_TEXT_MAX bytes (then cut, with
 * FS_MAIL_TEXT_CUT). */
char *fs_notify_answers_text(apr_pool_t *p, const fs_fieldset *fs, json_object *data);
/* The same text appended to t ("(no answers)" when there are none). */
void fs_notify_answers_add(fs_notify_text *t, const fs_fieldset *fs, json_object *data);

/* One answer as text ("" when there is none), as fs_notify_answers_text
 * writes it. */
const char *fs_notify_answer(apr_pool_t *p, const fs_fieldset *fs, json_object *data,
                             const char *key);

/* tmpl with each {{key}} (optional spaces inside the braces, key a field
 * key) replaced by that answer, "" when the field has none or is unknown.
 * Anything else, including a lone "{{", stays as written; answers are
 * never scanned for placeholders. In p, at most FS_MAIL_TEXT_MAX bytes
 * (then cut, with FS_MAIL_TEXT_CUT). */
char *fs_notify_fill(apr_pool_t *p, const char *tmpl, const fs_fieldset *fs, json_object *data);

/* One line of header text: control characters (CR and LF included)
 * become spaces and the result is cut to max bytes on a UTF-8 boundary. */
char *fs_notify_header_text(apr_pool_t *p, const char *s, apr_size_t max);

#endif
