/* fs_util: timestamps, base64url, cursors, route matching. */
#include "fs_util.h"
#include "fs_json.h"
#include "fs_secret.h"

#include <apr_strings.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

int fs_date_valid(int y, int m, int d) {
    static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (y < 1 || y > 9999 || m < 1 || m > 12 || d < 1)
        return 0;
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    int max = mdays[m - 1] + (m == 2 && leap);
    return d <= max;
}

static int num(const char *s, int n, int *out) {
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i]))
            return 0;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 1;
}

int fs_time_parse_rfc3339(const char *s, apr_time_t *out) {
    int y, mo, d, h, mi, se;
    if (!s || strlen(s) < 20)
        return 0;
    if (!num(s, 4, &y) || s[4] != '-' || !num(s + 5, 2, &mo) || s[7] != '-' || !num(s + 8, 2, &d) ||
        (s[10] != 'T' && s[10] != 't') || !num(s + 11, 2, &h) || s[13] != ':' ||
        !num(s + 14, 2, &mi) || s[16] != ':' || !num(s + 17, 2, &se))
        return 0;
    if (!fs_date_valid(y, mo, d) || h > 23 || mi > 59 || se > 59)
        return 0;
    const char *q = s + 19;
    apr_int64_t usec = 0;
    if (*q == '.') {
        q++;
        int nd = 0;
        apr_int64_t scale = 100000;
        while (isdigit((unsigned char)*q)) {
            if (nd < 6)
                usec += (*q - '0') * scale;
            scale /= 10;
            nd++;
            q++;
        }
        if (nd == 0 || nd > 9)
            return 0;
    }
    int off = 0;
    if (*q == 'Z' || *q == 'z') {
        q++;
    } else if (*q == '+' || *q == '-') {
        int oh, om;
        if (!num(q + 1, 2, &oh) || q[3] != ':' || !num(q + 4, 2, &om) || oh > 23 || om > 59)
            return 0;
        off = (oh * 60 + om) * 60 * (*q == '-' ? -1 : 1);
        q += 6;
    } else {
        return 0;
    }
    if (*q)
        return 0;
    /* days from civil (Howard Hinnant's algorithm) */
    int yy = y - (mo <= 2);
    int era = yy / 400;
    int yoe = yy - era * 400;
    int doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    apr_int64_t days = (apr_int64_t)era * 146097 + doe - 719468;
    apr_int64_t secs = days * 86400 + h * 3600 + mi * 60 + se - off;
    *out = secs * APR_USEC_PER_SEC + usec;
    return 1;
}

char *fs_time_format(apr_pool_t *p, apr_time_t t) {
    apr_time_exp_t x;
    apr_time_exp_gmt(&x, t);
    return apr_psprintf(p, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", x.tm_year + 1900, x.tm_mon + 1,
                        x.tm_mday, x.tm_hour, x.tm_min, x.tm_sec, x.tm_usec / 1000);
}

static const char B64U[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

char *fs_b64url_encode(apr_pool_t *p, const unsigned char *d, apr_size_t len) {
    char *out = apr_palloc(p, (len + 2) / 3 * 4 + 1), *o = out;
    apr_size_t i = 0;
    for (; i + 2 < len; i += 3) {
        unsigned v = (unsigned)d[i] << 16 | (unsigned)d[i + 1] << 8 | d[i + 2];
        *o++ = B64U[v >> 18 & 63];
        *o++ = B64U[v >> 12 & 63];
        *o++ = B64U[v >> 6 & 63];
        *o++ = B64U[v & 63];
    }
    if (len - i == 1) {
        unsigned v = (unsigned)d[i] << 16;
        *o++ = B64U[v >> 18 & 63];
        *o++ = B64U[v >> 12 & 63];
    } else if (len - i == 2) {
        unsigned v = (unsigned)d[i] << 16 | (unsigned)d[i + 1] << 8;
        *o++ = B64U[v >> 18 & 63];
        *o++ = B64U[v >> 12 & 63];
        *o++ = B64U[v >> 6 & 63];
    }
    *o = '\0';
    return out;
}

unsigned char *fs_b64url_decode(apr_pool_t *p, const char *s, apr_size_t *len) {
    apr_size_t n = strlen(s);
    if (n % 4 == 1)
        return NULL;
    unsigned char *out = apr_palloc(p, n * 3 / 4 + 2);
    apr_size_t o = 0;
    unsigned acc = 0;
    int bits = 0;
    for (apr_size_t i = 0; i < n; i++) {
        const char *c = strchr(B64U, s[i]);
        if (!c || !s[i])
            return NULL;
        acc = acc << 6 | (unsigned)(c - B64U);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (unsigned char)(acc >> bits);
            acc &= (1u << bits) - 1;
        }
    }
    if (acc != 0) /* non-canonical trailing bits */
        return NULL;
    out[o] = '\0';
    *len = o;
    return out;
}

char *fs_cursor_encode(apr_pool_t *p, const char *kind, const char *last_id) {
    const char *raw = apr_pstrcat(p, kind, ":", last_id, NULL);
    return fs_b64url_encode(p, (const unsigned char *)raw, strlen(raw));
}

const char *fs_cursor_decode(apr_pool_t *p, const char *kind, const char *cursor,
                             const char *id_prefix) {
    apr_size_t len;
    if (!cursor || strlen(cursor) > 200)
        return NULL;
    unsigned char *raw = fs_b64url_decode(p, cursor, &len);
    if (!raw || strlen((char *)raw) != len)
        return NULL;
    apr_size_t kl = strlen(kind);
    if (len <= kl + 1 || strncmp((char *)raw, kind, kl) != 0 || raw[kl] != ':')
        return NULL;
    const char *id = (const char *)raw + kl + 1;
    return fs_id_valid(id, id_prefix) ? id : NULL;
}

int fs_route_match(apr_pool_t *p, const char *pattern, const char *path, const char *caps[4]) {
    int nc = 0;
    const char *a = pattern, *b = path;
    while (*a && *b) {
        if (*a == '{') {
            const char *end = strchr(a, '}');
            const char *seg = b;
            while (*b && *b != '/')
                b++;
            if (b == seg || nc >= 4)
                return 0;
            caps[nc++] = apr_pstrndup(p, seg, (apr_size_t)(b - seg));
            a = end + 1;
            continue;
        }
        if (*a != *b)
            return 0;
        a++;
        b++;
    }
    return *a == '\0' && *b == '\0';
}

int fs_email_valid(const char *s) {
    apr_size_t n = strlen(s);
    if (n < 3 || n > 254)
        return 0;
    const char *at = strchr(s, '@');
    if (!at || at == s || strchr(at + 1, '@') || at - s > 64)
        return 0;
    for (const char *q = s; q < at; q++) {
        unsigned char c = (unsigned char)*q;
        if (c <= ' ' || c == 0x7f || c == '"' || c == '(' || c == ')' || c == ',' || c == ':' ||
            c == ';' || c == '<' || c == '>' || c == '[' || c == ']' || c == '\\')
            return 0;
    }
    if (s[0] == '.' || at[-1] == '.' || strstr(s, ".."))
        return 0;
    const char *d = at + 1;
    if (!*d || !strchr(d, '.'))
        return 0;
    apr_size_t label = 0;
    for (const char *q = d; *q; q++) {
        unsigned char c = (unsigned char)*q;
        if (c == '.') {
            if (label == 0 || q[-1] == '-')
                return 0;
            label = 0;
            continue;
        }
        if (!(isalnum(c) || c == '-' || c >= 0x80))
            return 0;
        if (label == 0 && c == '-')
            return 0;
        if (++label > 63)
            return 0;
    }
    return label > 0 && d[strlen(d) - 1] != '-';
}

char *fs_trim(apr_pool_t *p, const char *s) {
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    apr_size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
        n--;
    return apr_pstrndup(p, s, n);
}

int fs_has_control(const char *s) {
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 1;
    return 0;
}

static int hexval(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

char *fs_form_decode(apr_pool_t *p, const char *s, apr_size_t len) {
    char *out = apr_palloc(p, len + 1), *o = out;
    for (apr_size_t i = 0; i < len; i++) {
        if (s[i] == '+') {
            *o++ = ' ';
        } else if (s[i] == '%') {
            int hi, lo;
            if (i + 2 >= len || (hi = hexval(s[i + 1])) < 0 || (lo = hexval(s[i + 2])) < 0)
                return NULL;
            *o++ = (char)(hi * 16 + lo);
            i += 2;
        } else {
            *o++ = s[i];
        }
    }
    *o = '\0';
    apr_size_t n = (apr_size_t)(o - out);
    if (memchr(out, '\0', n) || !fs_utf8_valid(out, n))
        return NULL;
    return out;
}

int fs_int_parse(const char *s, long lo, long hi, int *out) {
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || *end || v < lo || v > hi)
        return 0;
    *out = (int)v;
    return 1;
}
