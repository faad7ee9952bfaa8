/* fs_partial: the resume token of partial answers (settings.partial,
 * docs/public-forms.md "Save and continue later").
 *
 * A token is "<id>.<secret>": id the partial's (and once completed the
 * submission's) id, sub_..., and secret FS_PARTIAL_SECRET_PREFIX and 64
 * lower-case hex digits: HMAC-SHA-256 under the server's pepper of the
 * form's id and the page's submission token (the same on every page of
 * one filling-in), so that concurrent first steps of one filling-in (a
 * double click on Next, a save by script while Next is pressed) name the
 * same row. Only fs_secret_hash of the secret is stored; the glue
 * compares it with fs_secret_equal (constant time). The token is the
 * respondent's: it is in their page (the hidden input FS_RESUME_NAME)
 * and in the resume URL, never in a log line. */
#ifndef FS_PARTIAL_H
#define FS_PARTIAL_H

#include <apr_pools.h>

#define FS_PARTIAL_SECRET_PREFIX "frs_"
/* The hidden input that carries the token from step to step, the button
 * value of "save and continue later", and the query parameter of the
 * resume URL (never field keys: keys start with a letter; resume is a
 * reserved query name, see public-forms.md). */
#define FS_RESUME_NAME "_resume"
#define FS_NAV_SAVE "save"
/* The button value the page's script posts after a pause in typing: the
 * same as FS_NAV_SAVE, answered with JSON {resume, resumeUrl, expiresAt}. */
#define FS_NAV_AUTOSAVE "autosave"
#define FS_RESUME_PARAM "resume"

/* The secret of the filling-in whose pages carry the submission token
 * page_token, for form_id, in p; a random one when page_token is NULL;
 * NULL when no random bytes could be had. */
char *fs_partial_secret(apr_pool_t *p, const unsigned char *pepper, apr_size_t pepper_len,
                        const char *form_id, const char *page_token);
/* The token of partial id with secret, in p. */
char *fs_partial_token(apr_pool_t *p, const char *id, const char *secret);
/* Splits token into *id and *secret (in p): 1 when it is well formed
 * (an id, a dot, a secret whose checksum holds), 0 otherwise (nothing
 * asked of the database then). */
int fs_partial_token_parse(apr_pool_t *p, const char *token, const char **id, const char **secret);

/* The page's small script (a progressive enhancement: the page works
 * without it): 2 seconds after the last input in the form it posts the
 * form with FS_NAV_AUTOSAVE (files left out) and puts the token the
 * answer names into the hidden input FS_RESUME_NAME; and its CSP source
 * 'sha256-...' (in p). */
const char *fs_partial_script(void);
const char *fs_partial_script_src(apr_pool_t *p);

#endif
