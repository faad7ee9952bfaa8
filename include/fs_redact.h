/* fs_redact: secrets out of URLs. Which query parameters carry a
 * credential, the request line as it may be logged (their values
 * replaced), and query lookups for the glue.
 *
 * A credential parameter is one whose name, %-decoded and compared without
 * regard to case, is one of: token, code, client_secret, client_assertion,
 * assertion, subject_token, actor_token, access_token, refresh_token,
 * id_token, code_verifier, password, secret, l (the token of a respondent
 * link, /f/{ref}?l=). */
#ifndef FS_REDACT_H
#define FS_REDACT_H

#include <apr_pools.h>

#define FS_REDACTED "REDACTED"

/* 1 when name (already decoded) is a credential parameter. */
int fs_credential_param(const char *name);

/* The request line "METHOD target PROTOCOL" with the value of every
 * credential parameter of the target's query replaced by FS_REDACTED (a
 * name that cannot be decoded counts as a credential), and, anywhere in
 * the target, every run of FS_REDACT_RUN_MIN or more letters and digits
 * that follows a '_' (the shape of the end of every secret of the
 * service: "…fes_<64 hex>" becomes "…fes_REDACTED"; ids, 26 characters
 * after their '_', stay). Returns line itself when there was nothing to
 * replace, else a copy in p. NULL gives NULL. */
#define FS_REDACT_RUN_MIN 32
const char *fs_redact_request_line(apr_pool_t *p, const char *line);

/* The decoded name of the first credential parameter in query (the part
 * after '?', without it), or NULL when there is none. */
const char *fs_query_credential(apr_pool_t *p, const char *query);

/* The decoded value of the first parameter called name in an
 * application/x-www-form-urlencoded text s[0..len) (a query or a body):
 * NULL when absent, "" for "name" or "name=", and NULL too when its value
 * cannot be decoded (*bad is then set to 1, if bad is not NULL). */
const char *fs_query_get(apr_pool_t *p, const char *s, apr_size_t len, const char *name, int *bad);

#endif
