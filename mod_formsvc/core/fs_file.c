/* fs_file: rules of uploaded files (fs_file.h). */
#include "fs_file.h"
#include "fs_json.h"

#include <apr_lib.h>
#include <apr_strings.h>
#include <openssl/evp.h>
#include <string.h>
#include <strings.h>

const char FS_RE_BASE64[] =
    "^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?(?![\\s\\S])";

static int token_char(int c) {
    return apr_isalnum(c) || (c && strchr("!#$&-^_.+", c));
}

int fs_file_accept_entry_valid(const char *s) {
    if (!s || !*s || strlen(s) > 100)
        return 0;
    if (*s == '.') {
        apr_size_t n = strlen(s + 1);
        if (n < 1 || n > 20)
            return 0;
        for (const char *c = s + 1; *c; c++)
            if (!apr_isalnum(*c) && !strchr("-_.", *c))
                return 0;
        return 1;
    }
    const char *slash = strchr(s, '/');
    if (!slash || slash == s)
        return 0;
    for (const char *c = s; c < slash; c++)
        if (!token_char(*c))
            return 0;
    if (!strcmp(slash + 1, "*"))
        return 1;
    if (!slash[1])
        return 0;
    for (const char *c = slash + 1; *c; c++)
        if (!token_char(*c))
            return 0;
    return 1;
}

int fs_file_accepted(json_object *accept, const char *name, const char *type) {
    if (!accept || !json_object_is_type(accept, json_type_array) ||
        json_object_array_length(accept) == 0)
        return 1;
    apr_size_t nl = strlen(name);
    for (size_t i = 0; i < json_object_array_length(accept); i++) {
        const char *a = json_object_get_string(json_object_array_get_idx(accept, i));
        if (!a)
            continue;
        apr_size_t al = strlen(a);
        if (*a == '.') {
            if (nl > al && !strcasecmp(name + nl - al, a))
                return 1;
        } else if (al >= 2 && !strcmp(a + al - 2, "/*")) {
            if (!strncasecmp(type, a, al - 1))
                return 1;
        } else if (!strcasecmp(type, a)) {
            return 1;
        }
    }
    return 0;
}

/* The format characters (general category Cf) of Unicode 15.1: bidi
 * embeddings, overrides and isolates, marks, zero-width characters, the
 * byte order mark, invisible operators, tags... They change how a name
 * is shown without being seen ("invoice\u202egpj.exe" shows as
 * "invoiceexe.jpg"). */
static const unsigned int FORMAT_CHARS[][2] = {
    {0xAD, 0xAD},       {0x600, 0x605},     {0x61C, 0x61C},     {0x6DD, 0x6DD},
    {0x70F, 0x70F},     {0x890, 0x891},     {0x8E2, 0x8E2},     {0x180E, 0x180E},
    {0x200B, 0x200F},   {0x202A, 0x202E},   {0x2060, 0x2064},   {0x2066, 0x206F},
    {0xFEFF, 0xFEFF},   {0xFFF9, 0xFFFB},   {0x110BD, 0x110BD}, {0x110CD, 0x110CD},
    {0x13430, 0x1343F}, {0x1BCA0, 0x1BCA3}, {0x1D173, 0x1D17A}, {0xE0001, 0xE0001},
    {0xE0020, 0xE007F}};

int fs_file_format_char(unsigned int cp) {
    for (size_t i = 0; i < sizeof(FORMAT_CHARS) / sizeof(FORMAT_CHARS[0]); i++)
        if (cp >= FORMAT_CHARS[i][0] && cp <= FORMAT_CHARS[i][1])
            return 1;
    return 0;
}

/* The code point of a valid UTF-8 sequence of cl (2..4) bytes. */
static unsigned int code_point(const unsigned char *s, apr_size_t cl) {
    unsigned int cp = s[0] & (cl == 2 ? 0x1F : cl == 3 ? 0x0F : 0x07);
    for (apr_size_t k = 1; k < cl; k++)
        cp = (cp << 6) | (s[k] & 0x3F);
    return cp;
}

const char *fs_file_safe_name(apr_pool_t *p, const char *name, apr_size_t len) {
    /* the last path component */
    apr_size_t start = 0;
    for (apr_size_t i = 0; i < len; i++)
        if (name[i] == '/' || name[i] == '\\')
            start = i + 1;
    char *out = apr_palloc(p, (len - start) * 3 + 8);
    apr_size_t o = 0;
    for (apr_size_t i = start; i < len;) {
        unsigned char c = (unsigned char)name[i];
        apr_size_t cl = c < 0x80             ? 1
                        : (c & 0xE0) == 0xC0 ? 2
                        : (c & 0xF0) == 0xE0 ? 3
                        : (c & 0xF8) == 0xF0 ? 4
                                             : 0;
        if (cl > 1 && (i + cl > len || !fs_utf8_valid(name + i, cl)))
            cl = 0;
        if (cl == 0) { /* not UTF-8: U+FFFD */
            if (o + 3 > FS_FILE_NAME_MAX)
                break;
            memcpy(out + o, "\xEF\xBF\xBD", 3);
            o += 3;
            i++;
            continue;
        }
        if (o + cl > FS_FILE_NAME_MAX)
            break;
        if (cl == 1) {
            int bad = c < 0x20 || c == 0x7F || c == '"' || c == ';' || c == '\\' || c == '%';
            if (o == 0 && (c == '.' || c == ' '))
                ; /* no hidden files, no leading blanks */
            else
                out[o++] = bad ? '_' : (char)c;
        } else {
            unsigned int cp = code_point((const unsigned char *)name + i, cl);
            if (cp >= 0x80 && cp <= 0x9F) /* C1 controls, as the C0 ones */
                out[o++] = '_';
            else if (!fs_file_format_char(cp)) { /* format characters are dropped */
                memcpy(out + o, name + i, cl);
                o += cl;
            }
        }
        i += cl;
    }
    while (o > 0 && (out[o - 1] == ' ' || out[o - 1] == '.'))
        o--;
    out[o] = '\0';
    return o ? out : "file";
}

const char *fs_file_media_type(apr_pool_t *p, const char *ct) {
    if (!ct)
        return "application/octet-stream";
    while (*ct == ' ' || *ct == '\t')
        ct++;
    apr_size_t n = strcspn(ct, "; \t");
    char *t = apr_pstrndup(p, ct, n);
    for (char *c = t; *c; c++)
        *c = (char)apr_tolower(*c);
    const char *slash = strchr(t, '/');
    if (!slash || slash == t || !slash[1] || n > FS_FILE_TYPE_MAX || strchr(slash + 1, '/'))
        return "application/octet-stream";
    for (const char *c = t; *c; c++)
        if (*c != '/' && !token_char(*c))
            return "application/octet-stream";
    return t;
}

enum { K_NONE, K_PNG, K_JPEG, K_GIF, K_WEBP, K_PDF, K_ZIP, K_TEXT };

void fs_file_check_init(fs_file_check *c, const char *type) {
    memset(c, 0, sizeof(*c));
    static const struct {
        const char *type;
        int kind;
    } kinds[] = {{"image/png", K_PNG},
                 {"image/jpeg", K_JPEG},
                 {"image/jpg", K_JPEG},
                 {"image/gif", K_GIF},
                 {"image/webp", K_WEBP},
                 {"application/pdf", K_PDF},
                 {"application/zip", K_ZIP},
                 {"application/x-zip-compressed", K_ZIP},
                 {"application/epub+zip", K_ZIP},
                 {"application/json", K_TEXT},
                 {"application/xml", K_TEXT},
                 {"application/csv", K_TEXT}};
    c->kind = K_NONE;
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (!strcmp(type, kinds[i].type))
            c->kind = kinds[i].kind;
    if (!strncmp(type, "text/", 5))
        c->kind = K_TEXT;
    /* docx, xlsx, pptx; odt, ods, odp: zip containers */
    if (!strncmp(type, "application/vnd.openxmlformats-officedocument.", 46) ||
        !strncmp(type, "application/vnd.oasis.opendocument.", 35))
        c->kind = K_ZIP;
}

void fs_file_check_png_bounds(fs_file_check *c, int max_side) {
    c->png_max_side = max_side;
}

/* c->tail: the last bytes of everything fed, b[0..n) the newest */
static void keep_tail(fs_file_check *c, const unsigned char *b, apr_size_t n) {
    apr_size_t cap = sizeof(c->tail);
    if (n >= cap) {
        memcpy(c->tail, b + n - cap, cap);
        c->ntail = cap;
        return;
    }
    apr_size_t keep = c->ntail + n > cap ? cap - n : c->ntail;
    memmove(c->tail, c->tail + c->ntail - keep, keep);
    memcpy(c->tail + keep, b, n);
    c->ntail = keep + n;
}

static unsigned long be32(const unsigned char *p) {
    return (unsigned long)p[0] << 24 | (unsigned long)p[1] << 16 | (unsigned long)p[2] << 8 |
           (unsigned long)p[3];
}

/* The IHDR and IEND of fs_file_check_png_bounds. */
static int png_bounded(const fs_file_check *c) {
    const unsigned char *h = c->head;
    if (c->nhead < 24 || memcmp(h + 8, "\0\0\0\x0dIHDR", 8))
        return 0;
    unsigned long w = be32(h + 16), ht = be32(h + 20), max = (unsigned long)c->png_max_side;
    return w >= 1 && w <= max && ht >= 1 && ht <= max && c->ntail == sizeof(c->tail) &&
           !memcmp(c->tail, "\0\0\0\0IEND\xae\x42\x60\x82", 12);
}

void fs_file_check_feed(fs_file_check *c, const unsigned char *b, apr_size_t n) {
    if (c->bad)
        return;
    if (c->png_max_side)
        keep_tail(c, b, n);
    while (c->nhead < sizeof(c->head) && n > 0 && c->kind != K_TEXT) {
        c->head[c->nhead++] = *b++;
        n--;
    }
    if (c->kind != K_TEXT)
        return;
    for (apr_size_t i = 0; i < n; i++) {
        unsigned char x = b[i];
        if (c->need) {
            if ((x & 0xC0) != 0x80) {
                c->bad = 1;
                return;
            }
            c->need--;
            continue;
        }
        if (x == 0) {
            c->bad = 1;
            return;
        }
        if (x < 0x80)
            continue;
        /* leads C2..F4 only: no overlong two-byte forms, nothing past U+10FFFF
         * (three- and four-byte overlongs and surrogates pass this simple
         * check; they are harmless in a stored file) */
        if (x >= 0xC2 && x <= 0xDF)
            c->need = 1;
        else if (x >= 0xE0 && x <= 0xEF)
            c->need = 2;
        else if (x >= 0xF0 && x <= 0xF4)
            c->need = 3;
        else {
            c->bad = 1;
            return;
        }
    }
}

int fs_file_check_done(fs_file_check *c) {
    if (c->bad)
        return 0;
    const unsigned char *h = c->head;
    apr_size_t n = c->nhead;
    switch (c->kind) {
    case K_PNG:
        return n >= 8 && !memcmp(h, "\x89PNG\r\n\x1a\n", 8) && (!c->png_max_side || png_bounded(c));
    case K_JPEG: return n >= 3 && !memcmp(h, "\xff\xd8\xff", 3);
    case K_GIF: return n >= 6 && (!memcmp(h, "GIF87a", 6) || !memcmp(h, "GIF89a", 6));
    case K_WEBP: return n >= 12 && !memcmp(h, "RIFF", 4) && !memcmp(h + 8, "WEBP", 4);
    case K_PDF: return n >= 5 && !memcmp(h, "%PDF-", 5);
    case K_ZIP: return n >= 4 && (!memcmp(h, "PK\x03\x04", 4) || !memcmp(h, "PK\x05\x06", 4));
    case K_TEXT: return c->need == 0;
    default: return 1;
    }
}

static int b64c(char c) {
    return apr_isalnum(c) || c == '+' || c == '/';
}

int fs_file_base64_valid(const char *s, apr_size_t n) {
    if (n % 4)
        return 0;
    for (apr_size_t i = 0; i + 2 < n; i++)
        if (!b64c(s[i]))
            return 0;
    if (n == 0)
        return 1;
    /* the last group ends "xx", "x=" or "==" */
    char a = s[n - 2], z = s[n - 1];
    if (a == '=')
        return z == '=';
    return b64c(a) && (b64c(z) || z == '=');
}

long long fs_file_base64_len(long long n) {
    return (n + 2) / 3 * 4;
}

struct fs_sha256 {
    EVP_MD_CTX *ctx;
};

static apr_status_t sha_free(void *d) {
    fs_sha256 *h = d;
    EVP_MD_CTX_free(h->ctx);
    h->ctx = NULL;
    return APR_SUCCESS;
}

fs_sha256 *fs_sha256_new(apr_pool_t *p) {
    fs_sha256 *h = apr_pcalloc(p, sizeof(*h));
    h->ctx = EVP_MD_CTX_new();
    if (!h->ctx)
        return NULL;
    apr_pool_cleanup_register(p, h, sha_free, apr_pool_cleanup_null);
    if (EVP_DigestInit_ex(h->ctx, EVP_sha256(), NULL) != 1)
        return NULL;
    return h;
}

void fs_sha256_update(fs_sha256 *h, const void *b, apr_size_t n) {
    if (h->ctx && n)
        EVP_DigestUpdate(h->ctx, b, n);
}

const unsigned char *fs_sha256_final(fs_sha256 *h, apr_pool_t *p) {
    unsigned char *md = apr_palloc(p, EVP_MAX_MD_SIZE);
    unsigned int len = 0;
    if (!h->ctx || EVP_DigestFinal_ex(h->ctx, md, &len) != 1 || len != 32)
        return NULL;
    return md;
}

const char *fs_sha256_hex(fs_sha256 *h, apr_pool_t *p) {
    const unsigned char *md = fs_sha256_final(h, p);
    if (!md)
        return NULL;
    char *hex = apr_palloc(p, 65);
    for (unsigned int i = 0; i < 32; i++)
        apr_snprintf(hex + i * 2, 3, "%02x", md[i]);
    return hex;
}
