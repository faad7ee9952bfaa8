/* fs_negotiate: Accept parsing with q-values and specificity. */
#include "fs_negotiate.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *skip_ows(const char *s) {
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* Parses a qvalue ("0", "0.5", "1", "1.000"); -1 when malformed. */
static int parse_q(const char *s, size_t n) {
    if (n == 0 || n > 5)
        return -1;
    if (s[0] != '0' && s[0] != '1')
        return -1;
    int v = (s[0] - '0') * 1000;
    if (n > 1) {
        if (s[1] != '.')
            return -1;
        int scale = 100;
        for (size_t i = 2; i < n; i++) {
            if (!isdigit((unsigned char)s[i]))
                return -1;
            v += (s[i] - '0') * scale;
            scale /= 10;
        }
    }
    return v > 1000 ? -1 : v;
}

/* Specificity of range type/sub for offer otype/osub: 3 exact, 2 type/any,
 * 1 any/any, 0 no match. */
static int match(const char *t, size_t tl, const char *st, size_t sl, const char *otype,
                 const char *osub) {
    if (tl == 1 && t[0] == '*' && sl == 1 && st[0] == '*')
        return 1;
    if (tl != strlen(otype) || strncasecmp(t, otype, tl))
        return 0;
    if (sl == 1 && st[0] == '*')
        return 2;
    return sl == strlen(osub) && !strncasecmp(st, osub, sl) ? 3 : 0;
}

fs_media fs_negotiate(const char *accept) {
    if (!accept || !*skip_ows(accept))
        return FS_MEDIA_HTML;
    static const char *const offers[2][2] = {{"text", "html"}, {"application", "json"}};
    int best_spec[2] = {0, 0}, q_of[2] = {0, 0};
    const char *s = accept;
    while (*s) {
        s = skip_ows(s);
        const char *end = strchr(s, ',');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        /* type/subtype */
        const char *slash = memchr(s, '/', len);
        const char *semi = memchr(s, ';', len);
        const char *mend = semi ? semi : s + len;
        if (slash && slash < mend) {
            const char *t = s, *st = slash + 1;
            size_t tl = (size_t)(slash - s), sl = (size_t)(mend - st);
            while (sl > 0 && (st[sl - 1] == ' ' || st[sl - 1] == '\t'))
                sl--;
            int q = 1000, ok = tl > 0 && sl > 0;
            /* parameters: only q matters; media-range parameters other than q
             * (e.g. charset) do not exclude our offers */
            const char *pp = semi;
            while (ok && pp && pp < s + len) {
                pp = skip_ows(pp + 1);
                const char *pe = memchr(pp, ';', (size_t)(s + len - pp));
                size_t pl = pe ? (size_t)(pe - pp) : (size_t)(s + len - pp);
                while (pl > 0 && (pp[pl - 1] == ' ' || pp[pl - 1] == '\t'))
                    pl--;
                if (pl >= 2 && (pp[0] == 'q' || pp[0] == 'Q') && pp[1] == '=') {
                    q = parse_q(pp + 2, pl - 2);
                    if (q < 0)
                        ok = 0;
                    break; /* accept-ext after q is ignored */
                }
                pp = pe;
            }
            for (int o = 0; ok && o < 2; o++) {
                int sp = match(t, tl, st, sl, offers[o][0], offers[o][1]);
                if (sp > best_spec[o]) {
                    best_spec[o] = sp;
                    q_of[o] = q;
                }
            }
        }
        if (!end)
            break;
        s = end + 1;
    }
    if (q_of[0] == 0 && q_of[1] == 0)
        return FS_MEDIA_NONE;
    return q_of[0] >= q_of[1] ? FS_MEDIA_HTML : FS_MEDIA_JSON;
}

int fs_media_is(const char *ct, const char *type) {
    size_t n = strlen(type);
    if (!ct || strncasecmp(ct, type, n))
        return 0;
    const char *q = skip_ows(ct + n);
    return *q == '\0' || *q == ';';
}

int fs_media_utf8(const char *ct) {
    const char *semi = ct ? strchr(ct, ';') : NULL;
    int seen = 0; /* a charset named twice is refused, whatever the two say */
    while (semi) {
        const char *par = skip_ows(semi + 1);
        if (!strncasecmp(par, "charset=", 8)) {
            const char *v = par + 8;
            int quoted = *v == '"';
            v += quoted;
            if (seen++ || strncasecmp(v, "utf-8", 5))
                return 0;
            v += 5;
            if (quoted && *v++ != '"')
                return 0;
            v = skip_ows(v);
            if (*v != '\0' && *v != ';')
                return 0;
        }
        semi = strchr(par, ';');
    }
    return 1;
}
