/* fs_code: one-time codes and link tokens. */
#include "fs_code.h"
#include "fs_util.h"

#include <apr_lib.h>
#include <openssl/rand.h>
#include <string.h>

char *fs_code_generate(apr_pool_t *p) {
    unsigned char rnd[FS_CODE_LEN];
    if (RAND_bytes(rnd, sizeof(rnd)) != 1)
        return NULL;
    char *c = apr_palloc(p, FS_CODE_LEN + 1);
    for (int i = 0; i < FS_CODE_LEN; i++)
        c[i] = FS_CODE_ALPHABET[rnd[i] & 31]; /* 256 = 8 x 32: no bias */
    c[FS_CODE_LEN] = '\0';
    return c;
}

char *fs_code_normalize(apr_pool_t *p, const char *typed) {
    if (!typed)
        return NULL;
    char *c = apr_palloc(p, FS_CODE_LEN + 1);
    int n = 0;
    for (const char *s = typed; *s; s++) {
        if (*s == ' ' || *s == '-')
            continue;
        char u = (char)apr_toupper((unsigned char)*s);
        if (n == FS_CODE_LEN || !u || !strchr(FS_CODE_ALPHABET, u))
            return NULL;
        c[n++] = u;
    }
    if (n != FS_CODE_LEN)
        return NULL;
    c[n] = '\0';
    return c;
}

char *fs_code_token(apr_pool_t *p) {
    unsigned char rnd[32];
    if (RAND_bytes(rnd, sizeof(rnd)) != 1)
        return NULL;
    return fs_b64url_encode(p, rnd, sizeof(rnd));
}
