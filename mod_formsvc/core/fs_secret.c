/* fs_secret: secret format, hashing and constant-time comparison; ids. */
#include "fs_secret.h"

#include <apr_strings.h>
#include <apr_time.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <string.h>
#include <zlib.h>

static const char B62[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
static const char B32[] = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

int fs_random_bytes(unsigned char *buf, apr_size_t n) {
    return RAND_bytes(buf, (int)n) == 1;
}

static void crc_b62(unsigned long crc, char out[FS_SECRET_CRC_CHARS]) {
    for (int i = FS_SECRET_CRC_CHARS - 1; i >= 0; i--) {
        out[i] = B62[crc % 62];
        crc /= 62;
    }
}

char *fs_secret_generate(apr_pool_t *p, const char *prefix) {
    apr_size_t pl = strlen(prefix);
    char *s = apr_palloc(p, pl + FS_SECRET_RANDOM_CHARS + FS_SECRET_CRC_CHARS + 1);
    memcpy(s, prefix, pl);
    int have = 0;
    unsigned char rnd[64];
    while (have < FS_SECRET_RANDOM_CHARS) {
        if (!fs_random_bytes(rnd, sizeof(rnd)))
            return NULL;
        /* rejection sampling keeps every character uniform */
        for (apr_size_t i = 0; i < sizeof(rnd) && have < FS_SECRET_RANDOM_CHARS; i++)
            if (rnd[i] < 248)
                s[pl + have++] = B62[rnd[i] % 62];
    }
    OPENSSL_cleanse(rnd, sizeof(rnd));
    unsigned long crc = crc32(0L, (const unsigned char *)s, (uInt)(pl + FS_SECRET_RANDOM_CHARS));
    crc_b62(crc, s + pl + FS_SECRET_RANDOM_CHARS);
    s[pl + FS_SECRET_RANDOM_CHARS + FS_SECRET_CRC_CHARS] = '\0';
    return s;
}

int fs_secret_well_formed(const char *secret, const char *prefix) {
    if (!secret || !prefix)
        return 0;
    apr_size_t pl = strlen(prefix), sl = strlen(secret);
    if (sl != pl + FS_SECRET_RANDOM_CHARS + FS_SECRET_CRC_CHARS || strncmp(secret, prefix, pl) != 0)
        return 0;
    for (apr_size_t i = pl; i < sl; i++)
        if (!strchr(B62, secret[i]) || secret[i] == '\0')
            return 0;
    char want[FS_SECRET_CRC_CHARS];
    crc_b62(crc32(0L, (const unsigned char *)secret, (uInt)(pl + FS_SECRET_RANDOM_CHARS)), want);
    return memcmp(want, secret + pl + FS_SECRET_RANDOM_CHARS, FS_SECRET_CRC_CHARS) == 0;
}

char *fs_secret_hash(apr_pool_t *p, const unsigned char *pepper, apr_size_t pepper_len,
                     const char *secret) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    if (pepper_len > 0) {
        if (!HMAC(EVP_sha256(), pepper, (int)pepper_len, (const unsigned char *)secret,
                  strlen(secret), md, &mdlen))
            return NULL;
    } else {
        if (!EVP_Digest(secret, strlen(secret), md, &mdlen, EVP_sha256(), NULL))
            return NULL;
    }
    char *hex = apr_palloc(p, mdlen * 2 + 1);
    static const char H[] = "0123456789abcdef";
    for (unsigned i = 0; i < mdlen; i++) {
        hex[2 * i] = H[md[i] >> 4];
        hex[2 * i + 1] = H[md[i] & 15];
    }
    hex[mdlen * 2] = '\0';
    return hex;
}

char *fs_pepper_fingerprint(apr_pool_t *p, const unsigned char *pepper, apr_size_t pepper_len) {
    return fs_secret_hash(p, pepper, pepper_len, FS_PEPPER_FINGERPRINT_TEXT);
}

int fs_secret_equal(const char *a, const char *b) {
    if (!a || !b)
        return 0;
    size_t la = strlen(a), lb = strlen(b);
    if (la != lb)
        return 0;
    return CRYPTO_memcmp(a, b, la) == 0;
}

char *fs_secret_display_prefix(apr_pool_t *p, const char *secret) {
    return apr_pstrndup(p, secret, FS_KEY_PREFIX_CHARS);
}

char *fs_id_new(apr_pool_t *p, const char *prefix) {
    apr_size_t pl = strlen(prefix);
    char *s = apr_palloc(p, pl + 27);
    memcpy(s, prefix, pl);
    unsigned long long ms = (unsigned long long)(apr_time_now() / 1000);
    for (int i = 9; i >= 0; i--) {
        s[pl + i] = B32[ms & 31];
        ms >>= 5;
    }
    unsigned char r[10];
    if (!fs_random_bytes(r, sizeof(r)))
        return NULL;
    /* 80 bits -> 16 base32 characters, 5 bits each */
    for (int i = 0; i < 16; i++) {
        int bit = i * 5, byte = bit / 8, off = bit % 8;
        unsigned v = (unsigned)r[byte] << 8 | (byte + 1 < 10 ? r[byte + 1] : 0);
        s[pl + 10 + i] = B32[(v >> (11 - off)) & 31];
    }
    s[pl + 26] = '\0';
    return s;
}

int fs_id_valid(const char *id, const char *prefix) {
    if (!id)
        return 0;
    apr_size_t pl = strlen(prefix);
    if (strncmp(id, prefix, pl) != 0 || strlen(id) != pl + 26)
        return 0;
    for (apr_size_t i = pl; i < pl + 26; i++)
        if (!strchr(B32, id[i]) || id[i] == '\0')
            return 0;
    return 1;
}
