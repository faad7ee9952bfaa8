/* fs_secret: secrets (API keys, access tokens, client secrets) and ids.
 *
 * A secret is <prefix><33 base62 chars from the CSPRNG (196 bits)><6 base62
 * chars of CRC32 over everything before them>. The checksum lets a typo or a
 * foreign string be refused before any database query, and lets a leaked
 * secret be recognised offline. Only an HMAC-SHA-256 of a secret under the
 * server's pepper is ever stored. */
#ifndef FS_SECRET_H
#define FS_SECRET_H

#include <apr_pools.h>

#define FS_SECRET_RANDOM_CHARS 33
#define FS_SECRET_CRC_CHARS 6
#define FS_KEY_PREFIX_CHARS 16 /* keyPrefix: the first 16 characters */

/* A new secret in p, or NULL when the CSPRNG fails. */
char *fs_secret_generate(apr_pool_t *p, const char *prefix);

/* 1 when secret has the prefix, the right length and alphabet, and a
 * matching checksum; 0 otherwise. Reads only the string. */
int fs_secret_well_formed(const char *secret, const char *prefix);

/* Lower-case hex HMAC-SHA-256(pepper, secret); plain SHA-256 when
 * pepper_len is 0. In p. */
char *fs_secret_hash(apr_pool_t *p, const unsigned char *pepper, apr_size_t pepper_len,
                     const char *secret);

/* The fingerprint of a pepper, kept in the database (sql/0039) so that a
 * server started with another pepper notices: fs_secret_hash of the fixed
 * text FS_PEPPER_FINGERPRINT_TEXT under the pepper (64 hex digits; tells
 * nothing of the pepper). formsvc-admin computes the same. In p. */
#define FS_PEPPER_FINGERPRINT_TEXT "formsvc pepper fingerprint"
char *fs_pepper_fingerprint(apr_pool_t *p, const unsigned char *pepper, apr_size_t pepper_len);

/* Constant-time equality of two NUL-terminated strings of equal length;
 * different lengths compare unequal (length is not secret here). */
int fs_secret_equal(const char *a, const char *b);

/* The display prefix (first 16 characters) of a secret, in p. */
char *fs_secret_display_prefix(apr_pool_t *p, const char *secret);

/* Identifiers: <prefix><10 chars of milliseconds><16 chars of 80 random
 * bits>, Crockford base32, so ids sort by creation time. NULL when the
 * CSPRNG fails. */
char *fs_id_new(apr_pool_t *p, const char *prefix);
/* 1 when id is <prefix> followed by 26 Crockford base32 characters. */
int fs_id_valid(const char *id, const char *prefix);

/* Fills buf with n bytes from the CSPRNG; 0 on failure. */
int fs_random_bytes(unsigned char *buf, apr_size_t n);

#endif
