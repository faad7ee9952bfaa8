/* fs_code: one-time codes for e-mail verification and account recovery. */
#ifndef FS_CODE_H
#define FS_CODE_H

#include <apr_pools.h>

#define FS_CODE_LEN 8
/* 32 characters without look-alikes (no I, O, 0, 1): 40 bits a code. */
#define FS_CODE_ALPHABET "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"

/* A fresh code from the CSPRNG, NULL if it fails. */
char *fs_code_generate(apr_pool_t *p);
/* What a person typed, as a code: upper case, spaces and '-' dropped; NULL
 * unless it is FS_CODE_LEN characters of the alphabet. */
char *fs_code_normalize(apr_pool_t *p, const char *typed);
/* A link token: 32 random bytes in base64url (43 characters). */
char *fs_code_token(apr_pool_t *p);

#endif
