/* fs_multipart: a streaming multipart/form-data parser (RFC 7578, RFC 2046
 * section 5.1.1).
 *
 * The parser keeps one accumulator: in the preamble it holds at most a
 * delimiter's length of bytes; in a header block at most max_header bytes;
 * in a part's content at most max_value bytes plus the delimiter. The body
 * is treated as if it began with CRLF, so that the first delimiter (which
 * may open the body) is found like every later one. */
#include "fs_multipart.h"
#include "fs_json.h"

#include <apr_lib.h>
#include <apr_strings.h>
#include <string.h>
#include <strings.h>

enum { PREAMBLE, AFTER_DELIM, HEADERS, BODY, DONE };

struct fs_multipart {
    apr_pool_t *p;
    const char *delim; /* "\r\n--" boundary */
    apr_size_t dlen;
    fs_multipart_limits lim;
    int state, nparts;
    char *acc;
    apr_size_t n, cap, scan;
    const char *name;
    const char *filename, *ctype; /* of the current part: a file part when filename is set */
    int skip;                     /* the current part is an empty file input: dropped */
    const fs_multipart_files *files;
    apr_array_header_t *pairs;
    fs_error *err;
};

const char *fs_multipart_boundary(apr_pool_t *p, const char *ct) {
    if (!ct)
        return NULL;
    const char *semi = strchr(ct, ';');
    apr_size_t tl = semi ? (apr_size_t)(semi - ct) : strlen(ct);
    while (tl && (ct[tl - 1] == ' ' || ct[tl - 1] == '\t'))
        tl--;
    if (tl != 19 || strncasecmp(ct, "multipart/form-data", 19) || !semi)
        return NULL;
    const char *q = semi;
    while (q && *q) {
        q++;
        while (*q == ' ' || *q == '\t')
            q++;
        if (!strncasecmp(q, "boundary=", 9)) {
            q += 9;
            char *b;
            if (*q == '"') {
                const char *e = strchr(q + 1, '"');
                if (!e)
                    return NULL;
                b = apr_pstrndup(p, q + 1, (apr_size_t)(e - q - 1));
            } else {
                apr_size_t l = strcspn(q, "; \t");
                b = apr_pstrndup(p, q, l);
            }
            apr_size_t bl = strlen(b);
            if (bl < 1 || bl > 70 || b[bl - 1] == ' ')
                return NULL;
            for (const char *c = b; *c; c++)
                if (!apr_isalnum(*c) && !strchr("'()+_,-./:=? ", *c))
                    return NULL;
            return b;
        }
        /* skip this parameter (quoted values may hold ';') */
        while (*q && *q != ';') {
            if (*q == '"') {
                q++;
                while (*q && *q != '"') {
                    if (*q == '\\' && q[1])
                        q++;
                    q++;
                }
                if (!*q)
                    return NULL;
            }
            q++;
        }
    }
    return NULL;
}

fs_multipart *fs_multipart_new(apr_pool_t *p, const char *boundary,
                               const fs_multipart_limits *lim) {
    fs_multipart *mp = apr_pcalloc(p, sizeof(*mp));
    mp->p = p;
    mp->delim = apr_pstrcat(p, "\r\n--", boundary, NULL);
    mp->dlen = strlen(mp->delim);
    mp->lim = *lim;
    mp->cap = (lim->max_header > lim->max_value ? lim->max_header : lim->max_value) + mp->dlen + 8;
    mp->acc = apr_palloc(p, mp->cap);
    memcpy(mp->acc, "\r\n", 2);
    mp->n = 2;
    mp->pairs = apr_array_make(p, 16, sizeof(fs_pair));
    mp->state = PREAMBLE;
    return mp;
}

void fs_multipart_on_files(fs_multipart *mp, const fs_multipart_files *files) {
    mp->files = files;
}

static fs_error *fail(fs_multipart *mp, const char *slug, const char *msg) {
    mp->err = fs_error_make(mp->p, slug, "The multipart body is malformed: %s.", msg);
    if (!strcmp(slug, "payload-too-large"))
        mp->err->detail =
            apr_pstrcat(mp->p, "A part of the multipart body is too large: ", msg, ".", NULL);
    return mp->err;
}

static apr_size_t find(const char *h, apr_size_t hn, apr_size_t from, const char *nd,
                       apr_size_t nn) {
    if (hn < nn)
        return (apr_size_t)-1;
    for (apr_size_t i = from; i + nn <= hn; i++) {
        const char *c = memchr(h + i, nd[0], hn - nn + 1 - i);
        if (!c)
            return (apr_size_t)-1;
        i = (apr_size_t)(c - h);
        if (!memcmp(c, nd, nn))
            return i;
    }
    return (apr_size_t)-1;
}

static void consume(fs_multipart *mp, apr_size_t k) {
    memmove(mp->acc, mp->acc + k, mp->n - k);
    mp->n -= k;
    mp->scan = 0;
}

/* Value of parameter want in a Content-Disposition header (after the
 * disposition type); NULL when absent. *bad is set on a syntax error. */
static const char *param(apr_pool_t *p, const char *v, const char *want, int *bad) {
    int raw = !strncasecmp(want, "filename", 8);
    const char *q = strchr(v, ';');
    apr_size_t wl = strlen(want);
    while (q) {
        q++;
        while (*q == ' ' || *q == '\t')
            q++;
        const char *eq = strchr(q, '=');
        if (!eq) {
            *bad = 1;
            return NULL;
        }
        apr_size_t nl = (apr_size_t)(eq - q);
        while (nl && (q[nl - 1] == ' ' || q[nl - 1] == '\t'))
            nl--;
        const char *s = eq + 1;
        while (*s == ' ' || *s == '\t')
            s++;
        char *val;
        const char *next;
        if (*s == '"') {
            val = apr_palloc(p, strlen(s));
            char *o = val;
            s++;
            while (*s && *s != '"') {
                /* browsers send a file name's backslashes as they are
                 * (HTML escapes '"' as %22): no quoted-pair there */
                if (*s == '\\' && s[1] && !raw)
                    s++;
                *o++ = *s++;
            }
            if (*s != '"') {
                *bad = 1;
                return NULL;
            }
            *o = '\0';
            next = strchr(s + 1, ';');
        } else {
            apr_size_t l = strcspn(s, ";");
            while (l && (s[l - 1] == ' ' || s[l - 1] == '\t'))
                l--;
            val = apr_pstrndup(p, s, l);
            next = strchr(s, ';');
        }
        if (nl == wl && !strncasecmp(q, want, wl))
            return val;
        q = next;
    }
    return NULL;
}

/* Parses the header block acc[0..len). */
static fs_error *headers(fs_multipart *mp, apr_size_t len) {
    const char *blk = apr_pstrmemdup(mp->p, mp->acc, len);
    if (strlen(blk) != len || !fs_utf8_valid(blk, len))
        return fail(mp, "malformed-request", "a part header holds a NUL byte or invalid UTF-8");
    mp->name = mp->filename = mp->ctype = NULL;
    mp->skip = 0;
    int seen_cd = 0;
    const char *line = blk;
    while (line && *line) {
        const char *end = strstr(line, "\r\n");
        apr_size_t ll = end ? (apr_size_t)(end - line) : strlen(line);
        const char *l = apr_pstrndup(mp->p, line, ll);
        const char *colon = strchr(l, ':');
        if (!colon || colon == l || *l == ' ' || *l == '\t')
            return fail(mp, "malformed-request", "a part header line is not \"Name: value\"");
        for (const char *c = l; c < colon; c++)
            if (!apr_isalnum(*c) && !strchr("!#$%&'*+-.^_`|~", *c))
                return fail(mp, "malformed-request", "a part header name is not a token");
        const char *v = colon + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        if ((apr_size_t)(colon - l) == 19 && !strncasecmp(l, "Content-Disposition", 19)) {
            if (seen_cd++)
                return fail(mp, "malformed-request", "a part has two Content-Disposition headers");
            if (strncasecmp(v, "form-data", 9) || (v[9] && v[9] != ';' && v[9] != ' '))
                return fail(mp, "malformed-request", "a part is not form-data");
            int bad = 0;
            const char *name = param(mp->p, v, "name", &bad);
            const char *file = param(mp->p, v, "filename", &bad);
            const char *file2 = param(mp->p, v, "filename*", &bad);
            if (bad)
                return fail(mp, "malformed-request", "a Content-Disposition header is malformed");
            if ((file || file2) && !mp->files)
                return fail(mp, "malformed-request", "file uploads are not accepted");
            mp->name = name;
            if (file || file2) {
                /* filename* (RFC 5987) is taken as sent when filename is absent */
                mp->filename = file ? file : file2;
                mp->skip = !*mp->filename;
            }
        } else if ((apr_size_t)(colon - l) == 12 && !strncasecmp(l, "Content-Type", 12)) {
            mp->ctype = v;
        }
        line = end ? end + 2 : NULL;
    }
    if (!mp->name)
        return fail(mp, "malformed-request", "a part has no Content-Disposition name");
    return NULL;
}

fs_error *fs_multipart_feed(fs_multipart *mp, const char *buf, apr_size_t len) {
    while (len > 0 || mp->state == AFTER_DELIM || mp->state == HEADERS) {
        if (mp->err)
            return mp->err;
        if (mp->state == DONE)
            return NULL; /* the epilogue is ignored */
        /* take as much input as fits */
        apr_size_t room = mp->cap - mp->n, take = len < room ? len : room;
        memcpy(mp->acc + mp->n, buf, take);
        mp->n += take;
        buf += take;
        len -= take;
        int progressed = 1;
        while (progressed && !mp->err && mp->state != DONE) {
            progressed = 0;
            switch (mp->state) {
            case PREAMBLE: {
                apr_size_t at = find(mp->acc, mp->n, 0, mp->delim, mp->dlen);
                if (at != (apr_size_t)-1) {
                    consume(mp, at + mp->dlen);
                    mp->state = AFTER_DELIM;
                    progressed = 1;
                } else if (mp->n >= mp->dlen) {
                    consume(mp, mp->n - (mp->dlen - 1)); /* keep a possible prefix */
                }
                break;
            }
            case AFTER_DELIM: {
                if (mp->n >= 2 && mp->acc[0] == '-' && mp->acc[1] == '-') {
                    mp->state = DONE;
                    mp->n = 0;
                    break;
                }
                apr_size_t i = 0;
                while (i < mp->n && (mp->acc[i] == ' ' || mp->acc[i] == '\t'))
                    i++;
                if (i + 1 < mp->n) {
                    if (mp->acc[i] != '\r' || mp->acc[i + 1] != '\n')
                        fail(mp, "malformed-request", "a delimiter is not followed by CRLF");
                    else {
                        consume(mp, i + 2);
                        if (++mp->nparts > mp->lim.max_parts)
                            fail(mp, "malformed-request", "too many parts");
                        mp->state = HEADERS;
                        progressed = 1;
                    }
                } else if (i > 256) {
                    fail(mp, "malformed-request", "too much padding after a delimiter");
                } else if (mp->n == 1 && mp->acc[0] != '-' && mp->acc[0] != '\r' &&
                           mp->acc[0] != ' ' && mp->acc[0] != '\t') {
                    fail(mp, "malformed-request", "a delimiter is not followed by CRLF");
                }
                break;
            }
            case HEADERS: {
                apr_size_t at;
                if (mp->n >= 2 && mp->acc[0] == '\r' && mp->acc[1] == '\n')
                    at = 0; /* no header lines at all */
                else
                    at = find(mp->acc, mp->n, 0, "\r\n\r\n", 4);
                if (at == (apr_size_t)-1) {
                    if (mp->n > mp->lim.max_header)
                        fail(mp, "malformed-request", "a part's headers are too large");
                    break;
                }
                if (at > mp->lim.max_header) {
                    fail(mp, "malformed-request", "a part's headers are too large");
                    break;
                }
                if (headers(mp, at))
                    break;
                consume(mp, at == 0 ? 2 : at + 4);
                mp->state = BODY;
                if (mp->filename && !mp->skip &&
                    (mp->err =
                         mp->files->begin(mp->files->baton, mp->name, mp->filename, mp->ctype)))
                    break;
                progressed = 1;
                break;
            }
            case BODY:
                if (mp->filename) { /* a file: handed over, never kept */
                    apr_size_t at = find(mp->acc, mp->n, mp->scan, mp->delim, mp->dlen);
                    apr_size_t give = at != (apr_size_t)-1 ? at
                                      : mp->n >= mp->dlen  ? mp->n - (mp->dlen - 1)
                                                           : 0;
                    if (give && !mp->skip &&
                        (mp->err = mp->files->data(mp->files->baton, mp->acc, give)))
                        break;
                    if (at == (apr_size_t)-1) {
                        consume(mp, give); /* keeps a possible delimiter prefix */
                        break;
                    }
                    if (!mp->skip && (mp->err = mp->files->end(mp->files->baton)))
                        break;
                    consume(mp, at + mp->dlen);
                    mp->filename = NULL;
                    mp->state = AFTER_DELIM;
                    progressed = 1;
                    break;
                }
                {
                    apr_size_t at = find(mp->acc, mp->n, mp->scan, mp->delim, mp->dlen);
                    if (at == (apr_size_t)-1) {
                        if (mp->n > mp->lim.max_value + mp->dlen)
                            fail(mp, "payload-too-large", "over the size limit");
                        else
                            mp->scan = mp->n >= mp->dlen ? mp->n - mp->dlen + 1 : 0;
                        break;
                    }
                    if (at > mp->lim.max_value) {
                        fail(mp, "payload-too-large", "over the size limit");
                        break;
                    }
                    char *v = apr_pstrmemdup(mp->p, mp->acc, at);
                    if (strlen(v) != at || !fs_utf8_valid(v, at)) {
                        fail(mp, "malformed-request", "a value holds a NUL byte or invalid UTF-8");
                        break;
                    }
                    fs_pair *pr = apr_array_push(mp->pairs);
                    pr->name = mp->name;
                    pr->value = v;
                    consume(mp, at + mp->dlen);
                    mp->state = AFTER_DELIM;
                    progressed = 1;
                    break;
                }
            }
        }
        if (mp->err)
            return mp->err;
        if (len > 0 && mp->n == mp->cap)
            return fail(mp, "malformed-request", "a part is too large"); /* cannot happen */
        if (len == 0)
            break;
    }
    return mp->err;
}

fs_error *fs_multipart_finish(fs_multipart *mp, apr_array_header_t **pairs) {
    *pairs = NULL;
    if (mp->err)
        return mp->err;
    if (mp->state != DONE)
        return fail(mp, "malformed-request",
                    mp->state == PREAMBLE ? "no boundary delimiter was found"
                                          : "the body ends before the closing delimiter");
    *pairs = mp->pairs;
    return NULL;
}
