/* fs_idempotency: fingerprints and sealed answers. */
#include "fs_idempotency.h"
#include "fs_secret.h"
#include "fs_util.h"

#include <apr_strings.h>
#include <apr_time.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <string.h>

int fs_idem_key_valid(const char *key) {
    if (!key)
        return 0;
    apr_size_t n = strlen(key);
    if (n < 1 || n > FS_IDEM_KEY_MAX)
        return 0;
    for (const char *c = key; *c; c++)
        if ((unsigned char)*c < 0x21 || (unsigned char)*c > 0x7e)
            return 0;
    return 1;
}

static void add_part(EVP_MD_CTX *ctx, const void *data, apr_size_t len) {
    unsigned char l[8];
    for (int i = 0; i < 8; i++)
        l[i] = (unsigned char)((apr_uint64_t)len >> (56 - 8 * i));
    EVP_DigestUpdate(ctx, l, 8);
    EVP_DigestUpdate(ctx, data, len);
}

char *fs_idem_fingerprint(apr_pool_t *p, const char *method, const char *path, const char *body,
                          apr_size_t len) {
    unsigned char md[32];
    unsigned int mdlen = 0;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (!ctx)
        return NULL;
    EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
    add_part(ctx, method, strlen(method));
    add_part(ctx, path, strlen(path));
    add_part(ctx, body ? body : "", body ? len : 0);
    EVP_DigestFinal_ex(ctx, md, &mdlen);
    EVP_MD_CTX_free(ctx);
    char *hex = apr_palloc(p, 65);
    for (int i = 0; i < 32; i++)
        apr_snprintf(hex + 2 * i, 3, "%02x", md[i]);
    return hex;
}

static void derive(const unsigned char *pepper, apr_size_t pepper_len, const char *scope,
                   const char *key, unsigned char out[32]) {
    static const unsigned char fixed[] = "formsvc idempotency without pepper";
    if (!pepper_len) {
        pepper = fixed;
        pepper_len = sizeof(fixed) - 1;
    }
    unsigned char msg[2 * 300 + 16];
    apr_size_t sl = strlen(scope), kl = strlen(key);
    if (sl > 290)
        sl = 290;
    if (kl > 290)
        kl = 290;
    apr_size_t n = 0;
    memcpy(msg, "idempotency", 11);
    n = 11;
    msg[n++] = 0;
    memcpy(msg + n, scope, sl);
    n += sl;
    msg[n++] = 0;
    memcpy(msg + n, key, kl);
    n += kl;
    unsigned int ol = 32;
    HMAC(EVP_sha256(), pepper, (int)pepper_len, msg, n, out, &ol);
}

char *fs_idem_seal(apr_pool_t *p, const unsigned char *pepper, apr_size_t pepper_len,
                   const char *scope, const char *key, const char *plain) {
    unsigned char k[32], iv[12];
    derive(pepper, pepper_len, scope, key, k);
    if (!fs_random_bytes(iv, sizeof(iv)))
        return NULL;
    int pl = (int)strlen(plain), outl = 0, fin = 0;
    unsigned char *buf = apr_palloc(p, 12 + (apr_size_t)pl + 16 + 16);
    memcpy(buf, iv, 12);
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (!ctx)
        return NULL;
    int ok = EVP_EncryptInit_ex(ctx, EVP_aes_256_gcm(), NULL, k, iv) == 1 &&
             EVP_EncryptUpdate(ctx, buf + 12, &outl, (const unsigned char *)plain, pl) == 1 &&
             EVP_EncryptFinal_ex(ctx, buf + 12 + outl, &fin) == 1 &&
             EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, 16, buf + 12 + outl + fin) == 1;
    EVP_CIPHER_CTX_free(ctx);
    if (!ok)
        return NULL;
    return fs_b64url_encode(p, buf, 12 + (apr_size_t)(outl + fin) + 16);
}

char *fs_idem_open(apr_pool_t *p, const unsigned char *pepper, apr_size_t pepper_len,
                   const char *scope, const char *key, const char *sealed) {
    apr_size_t n;
    unsigned char *raw = sealed ? fs_b64url_decode(p, sealed, &n) : NULL;
    if (!raw || n < 28)
        return NULL;
    unsigned char k[32];
    derive(pepper, pepper_len, scope, key, k);
    int cl = (int)(n - 28), outl = 0, fin = 0;
    unsigned char *out = apr_palloc(p, (apr_size_t)cl + 16 + 1);
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (!ctx)
        return NULL;
    int ok = EVP_DecryptInit_ex(ctx, EVP_aes_256_gcm(), NULL, k, raw) == 1 &&
             EVP_DecryptUpdate(ctx, out, &outl, raw + 12, cl) == 1 &&
             EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, 16, raw + 12 + cl) == 1 &&
             EVP_DecryptFinal_ex(ctx, out + outl, &fin) == 1;
    EVP_CIPHER_CTX_free(ctx);
    if (!ok)
        return NULL;
    out[outl + fin] = '\0';
    return (char *)out;
}

#define FORM_TOKEN_PREFIX "fst_"
#define FORM_TOKEN_PART 22 /* base64url characters of 16 bytes */

/* The MAC part of a token whose random part is nonce (22 characters), in
 * out (FORM_TOKEN_PART + 1 bytes). */
static void form_token_mac(const unsigned char *pepper, apr_size_t pepper_len, const char *form_id,
                           const char *link, const char *nonce, char out[FORM_TOKEN_PART + 1]) {
    static const unsigned char fixed[] = "formsvc form token without pepper";
    if (!pepper_len) {
        pepper = fixed;
        pepper_len = sizeof(fixed) - 1;
    }
    unsigned char msg[512], md[32];
    unsigned int ml = sizeof(md);
    /* each part NUL-terminated: no two (form, link, nonce) share a message */
    apr_size_t fl = strlen(form_id) + 1, ll = strlen(link) + 1, n = 0;
    int ok = 11 + fl + ll + FORM_TOKEN_PART <= sizeof(msg);
    if (ok) {
        memcpy(msg, "form-token", 11);
        n = 11;
        memcpy(msg + n, form_id, fl);
        n += fl;
        memcpy(msg + n, link, ll);
        n += ll;
        memcpy(msg + n, nonce, FORM_TOKEN_PART);
        n += FORM_TOKEN_PART;
        ok = HMAC(EVP_sha256(), pepper, (int)pepper_len, msg, n, md, &ml) != NULL;
    }
    if (!ok) { /* never matches a token: no MAC character is '*' */
        memset(out, '*', FORM_TOKEN_PART);
        out[FORM_TOKEN_PART] = '\0';
        return;
    }
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    /* 16 bytes as 22 base64url characters, without padding */
    int o = 0;
    for (int i = 0; i < 16; i += 3) {
        apr_uint32_t v = (apr_uint32_t)md[i] << 16;
        if (i + 1 < 16)
            v |= (apr_uint32_t)md[i + 1] << 8;
        if (i + 2 < 16)
            v |= md[i + 2];
        out[o++] = b64[(v >> 18) & 63];
        out[o++] = b64[(v >> 12) & 63];
        if (i + 1 < 16)
            out[o++] = b64[(v >> 6) & 63];
        if (i + 2 < 16)
            out[o++] = b64[v & 63];
    }
    out[o] = '\0';
}

char *fs_idem_form_token(apr_pool_t *p, const unsigned char *pepper, apr_size_t pepper_len,
                         const char *form_id, const char *link) {
    unsigned char rnd[16];
    if (!link)
        link = "";
    if (11 + strlen(form_id) + 1 + strlen(link) + 1 + FORM_TOKEN_PART > 512)
        return NULL; /* no such form or link: nothing to bind to */
    if (!fs_random_bytes(rnd, sizeof(rnd)))
        return NULL;
    /* the first 4 bytes say when the page was made (seconds, big-endian):
     * fs_idem_form_token_age; 12 random bytes keep it unique */
    apr_uint32_t made = (apr_uint32_t)apr_time_sec(apr_time_now());
    rnd[0] = (unsigned char)(made >> 24);
    rnd[1] = (unsigned char)(made >> 16);
    rnd[2] = (unsigned char)(made >> 8);
    rnd[3] = (unsigned char)made;
    const char *nonce = fs_b64url_encode(p, rnd, sizeof(rnd));
    if (!nonce || strlen(nonce) != FORM_TOKEN_PART)
        return NULL;
    char mac[FORM_TOKEN_PART + 1];
    form_token_mac(pepper, pepper_len, form_id, link, nonce, mac);
    return apr_pstrcat(p, FORM_TOKEN_PREFIX, nonce, mac, NULL);
}

int fs_idem_form_token_valid(const unsigned char *pepper, apr_size_t pepper_len,
                             const char *form_id, const char *link, const char *token) {
    const apr_size_t pl = sizeof(FORM_TOKEN_PREFIX) - 1;
    if (!token || strlen(token) != FS_FORM_TOKEN_LEN || strncmp(token, FORM_TOKEN_PREFIX, pl))
        return 0;
    char mac[FORM_TOKEN_PART + 1];
    form_token_mac(pepper, pepper_len, form_id, link ? link : "", token + pl, mac);
    return CRYPTO_memcmp(mac, token + pl + FORM_TOKEN_PART, FORM_TOKEN_PART) == 0;
}

long fs_idem_form_token_age(const char *token, apr_int64_t now) {
    const apr_size_t pl = sizeof(FORM_TOKEN_PREFIX) - 1;
    if (!token || strlen(token) != FS_FORM_TOKEN_LEN || strncmp(token, FORM_TOKEN_PREFIX, pl))
        return -1;
    /* the first 6 base64url characters: 36 bits, the time's 32 first */
    apr_uint64_t v = 0;
    for (int i = 0; i < 6; i++) {
        char c = token[pl + (apr_size_t)i];
        int d = c >= 'A' && c <= 'Z'   ? c - 'A'
                : c >= 'a' && c <= 'z' ? c - 'a' + 26
                : c >= '0' && c <= '9' ? c - '0' + 52
                : c == '-'             ? 62
                : c == '_'             ? 63
                                       : -1;
        if (d < 0)
            return -1;
        v = v << 6 | (apr_uint64_t)d;
    }
    apr_int64_t made = (apr_int64_t)(v >> 4), age = now - made;
    return age >= 0 && age <= FS_FORM_TOKEN_AGE_MAX ? (long)age : -1;
}
