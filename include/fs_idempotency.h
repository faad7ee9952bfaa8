/* fs_idempotency: the pure half of Idempotency-Key handling (the glue half
 * is mod_formsvc/http/idempotency.c).
 *
 * A request is identified by a fingerprint of its method, path and body;
 * the first answer is kept for 24 hours, sealed (AES-256-GCM) under a key
 * derived from the server's pepper, the scope and the Idempotency-Key, so
 * that a stored answer (which may hold a secret shown once, such as a new
 * API key) is unreadable from the database alone. */
#ifndef FS_IDEMPOTENCY_H
#define FS_IDEMPOTENCY_H

#include <apr_pools.h>

#define FS_IDEM_KEY_MAX 255

/* 1 when key is 1..255 visible ASCII characters (0x21..0x7E). */
int fs_idem_key_valid(const char *key);

/* Lower-case hex SHA-256 over method, path and body (each length-
 * prefixed, so no two different requests share a fingerprint). In p. */
char *fs_idem_fingerprint(apr_pool_t *p, const char *method, const char *path, const char *body,
                          apr_size_t len);

/* Seals plain under HMAC-SHA-256(pepper, "idempotency" scope key) with a
 * random nonce; base64url text in p, NULL on failure. A pepper_len of 0
 * uses a fixed key (then the seal only obscures). */
char *fs_idem_seal(apr_pool_t *p, const unsigned char *pepper, apr_size_t pepper_len,
                   const char *scope, const char *key, const char *plain);
/* Opens what fs_idem_seal made; NULL when it was not sealed for this
 * scope and key (or was tampered with). */
char *fs_idem_open(apr_pool_t *p, const unsigned char *pepper, apr_size_t pepper_len,
                   const char *scope, const char *key, const char *sealed);

/* The one-time submission token of an HTML form page, used as the
 * Idempotency-Key of the post it makes (docs/public-forms.md): "fst_", 22
 * base64url characters of 16 bytes (the time it was made, 4 bytes, and 12
 * random bytes), 22 of an HMAC-SHA-256 (cut to
 * 16 bytes) over the random part, the form id and the respondent link's
 * token as the page's URL carries it ("" without a link), under the
 * pepper. Unguessable, and refused on another form or through another
 * link. A pepper_len of 0 uses a fixed key (then only the random part
 * holds). */
#define FS_FORM_TOKEN_LEN 48
/* A new token in p; NULL when no random bytes could be had. */
char *fs_idem_form_token(apr_pool_t *p, const unsigned char *pepper, apr_size_t pepper_len,
                         const char *form_id, const char *link);
/* The seconds since token's page was made (its random part begins with
 * the time it was made, in seconds: 4 bytes, big-endian, then 12 random
 * bytes), or -1 when that is not a time of the last
 * FS_FORM_TOKEN_AGE_MAX seconds (a token made before the time was put in
 * it, a page older than that, a clock gone back). Check the token first
 * (fs_idem_form_token_valid): only its MAC makes the time the server's. */
#define FS_FORM_TOKEN_AGE_MAX 86400
long fs_idem_form_token_age(const char *token, apr_int64_t now);
/* 1 when token is one fs_idem_form_token made for form_id and link. */
int fs_idem_form_token_valid(const unsigned char *pepper, apr_size_t pepper_len,
                             const char *form_id, const char *link, const char *token);

#endif
