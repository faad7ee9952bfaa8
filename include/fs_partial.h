/* fs_partial: the resume token of partial answers (settings.partial,
 * docs/public-forms.md "Save and continue later").
 *
 * A token is "<id>.<secret>": id the partial's (and once completed the
 * submission's) id, sub_..., and secret a fs_secret with the prefix
 * FS_PARTIAL_SECRET_PREFIX. Only fs_secret_hash of the secret under the
 * server's pepper is stored; the glue compares it with fs_secret_equal
 * (constant time). The token is the respondent's: it is in their page
 * (the hidden input FS_RESUME_NAME) and in the resume URL, never in a log
 * line. */
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
#define FS_RESUME_PARAM "resume"

/* A new token for partial id (sub_...) in p, its secret in *secret; NULL
 * when the CSPRNG fails. */
char *fs_partial_token_new(apr_pool_t *p, const char *id, const char **secret);
/* Splits token into *id and *secret (in p): 1 when it is well formed
 * (an id, a dot, a secret whose checksum holds), 0 otherwise (nothing
 * asked of the database then). */
int fs_partial_token_parse(apr_pool_t *p, const char *token, const char **id, const char **secret);

#endif
