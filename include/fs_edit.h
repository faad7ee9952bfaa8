/* fs_edit: editing after sending (settings.allowEdits, docs/forms.md
 * "Editing after sending"): the setting, and the private edit token.
 *
 * A token is "<sid>.<secret>": sid the submission's id (sub_...) and
 * secret FS_EDIT_SECRET_PREFIX and 64 lower-case hex digits,
 * HMAC-SHA-256 under the server's pepper of the form's id and the
 * submission's id. It is derived, not stored: nothing of it is in the
 * database, and the glue compares a token's secret with the one derived
 * again in constant time (fs_secret_equal). It is the respondent's: in
 * the thanks page's link and the edit page's address (query parameter
 * FS_EDIT_PARAM, redacted from logged request lines like every
 * credential parameter, fs_redact.h), never in a log line, an event or
 * the owner's view. It works for untilHours after the submission. */
#ifndef FS_EDIT_H
#define FS_EDIT_H

#include "fs_error.h"

#include <apr_pools.h>
#include <json.h>

#define FS_EDIT_SECRET_PREFIX "fes_"
/* The query parameter of the edit page and of the thanks page (never a
 * field key's collision that matters: it is redacted from logs). */
#define FS_EDIT_PARAM "edit"
#define FS_EDIT_HOURS_MAX 8760

/* settings.allowEdits of s (a settings object being validated): null or
 * absent (no edits) or {"untilHours": 1..FS_EDIT_HOURS_MAX}; errors under
 * ptr/allowEdits into verr, the canonical value added to out. */
void fs_settings_allow_edits(apr_pool_t *p, json_object *s, const char *ptr, json_object *out,
                             fs_error *verr);
/* untilHours of validated settings, 0 when edits are not allowed. */
int fs_edit_hours(json_object *settings);

/* The secret of submission sid of form form_id, in p (NULL: no pepper
 * hash could be made). */
char *fs_edit_secret(apr_pool_t *p, const unsigned char *pepper, apr_size_t pepper_len,
                     const char *form_id, const char *sid);
/* The token "<sid>.<secret>" of submission sid, in p. */
char *fs_edit_token(apr_pool_t *p, const unsigned char *pepper, apr_size_t pepper_len,
                    const char *form_id, const char *sid);
/* 1 when token has the shape of an edit token ("sub_<26>.fes_<64 hex>"),
 * whatever its secret: what tells an edit link from a prefill value of a
 * field keyed like FS_EDIT_PARAM. Reads only the string. */
int fs_edit_token_well_formed(const char *token);
/* The submission id token names for form_id when its secret is the one
 * derived for it (constant-time compare), else NULL (malformed, forged or
 * another form's). In p. */
const char *fs_edit_token_check(apr_pool_t *p, const unsigned char *pepper, apr_size_t pepper_len,
                                const char *form_id, const char *token);

#endif
