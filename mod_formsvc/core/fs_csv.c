/* fs_csv: escaping, neutralisation and rows. */
#include "fs_csv.h"
#include "fs_json.h"

#include <apr_strings.h>
#include <string.h>

/* A character that starts a formula at the beginning of a cell or a line. */
static int trigger(char c) {
    return c == '=' || c == '+' || c == '-' || c == '@' || c == ';';
}

/* Does the line starting at s (after a CR or LF) begin, after blanks, with a
 * formula trigger? Returns the trigger's position, or NULL. */
static const char *line_formula(const char *s) {
    while (*s == ' ' || *s == '\t')
        s++;
    return trigger(*s) ? s : NULL;
}

/* n more bytes at the end of a (an array of bytes), growing it by doubling;
 * returns where they go (their content is the caller's to write) */
static char *grow(apr_array_header_t *a, apr_size_t n) {
    if ((apr_size_t)(a->nalloc - a->nelts) < n) {
        apr_size_t cap = a->nalloc ? (apr_size_t)a->nalloc : 64;
        while (cap - (apr_size_t)a->nelts < n)
            cap *= 2;
        char *grown = apr_palloc(a->pool, cap);
        memcpy(grown, a->elts, (apr_size_t)a->nelts);
        a->elts = grown;
        a->nalloc = (int)cap;
    }
    char *at = a->elts + a->nelts;
    a->nelts += (int)n;
    return at;
}

/* Appends the cell of the NUL-terminated text s to buf, quoted and
 * neutralised as fs_csv.h says (neutralise 0: quoted only). */
static void quote_into(apr_array_header_t *buf, const char *s, int neutralise) {
    int formula = neutralise && (trigger(*s) || *s == '\t' || *s == '\r');
    /* ';' is quoted too: it is the separator of spreadsheets in many locales */
    int needs = strpbrk(s, ",;\"\r\n") != NULL;
    apr_size_t n = strlen(s), extra = 0;
    if (needs || neutralise)
        for (const char *c = s; *c; c++) {
            extra += *c == '"';
            if (neutralise && (*c == '\n' || *c == '\r') && line_formula(c + 1))
                extra++;
        }
    if (!formula && !needs && !extra) {
        memcpy(grow(buf, n), s, n);
        return;
    }
    int start = buf->nelts;
    char *out = grow(buf, n + extra + 3), *o = out;
    if (needs)
        *o++ = '"';
    if (formula)
        *o++ = '\'';
    const char *mark = NULL; /* a trigger after a line break gets a quote too */
    for (const char *c = s; *c; c++) {
        if (c == mark)
            *o++ = '\'';
        if (*c == '"')
            *o++ = '"';
        *o++ = *c;
        if (neutralise && (*c == '\n' || *c == '\r'))
            mark = line_formula(c + 1);
    }
    if (needs)
        *o++ = '"';
    buf->nelts = start + (int)(o - out);
}

static char *quote(apr_pool_t *p, const char *s, int neutralise) {
    apr_array_header_t *a = apr_array_make(p, (int)strlen(s) + 8, 1);
    quote_into(a, s, neutralise);
    *grow(a, 1) = '\0';
    return a->elts;
}

char *fs_csv_cell(apr_pool_t *p, const char *text) {
    return text ? quote(p, text, 1) : apr_pstrdup(p, "");
}

char *fs_csv_value(apr_pool_t *p, json_object *v) {
    if (!v)
        return apr_pstrdup(p, "");
    switch (json_object_get_type(v)) {
    case json_type_null: return apr_pstrdup(p, "");
    case json_type_boolean: return apr_pstrdup(p, json_object_get_boolean(v) ? "true" : "false");
    case json_type_int:
    case json_type_double:
        /* a number is never a formula; its JSON text is already safe */
        return quote(p, fs_json_str(p, v), 0);
    case json_type_string: return fs_csv_cell(p, json_object_get_string(v));
    case json_type_array: return fs_csv_cell(p, fs_csv_join(p, v));
    case json_type_object: return fs_csv_cell(p, fs_json_str(p, v));
    }
    return apr_pstrdup(p, "");
}

char *fs_csv_join(apr_pool_t *p, json_object *v) {
    size_t n = json_object_is_type(v, json_type_array) ? json_object_array_length(v) : 0;
    apr_array_header_t *parts = apr_array_make(p, n ? (int)(2 * n) : 1, sizeof(const char *));
    for (size_t i = 0; i < n; i++) {
        json_object *it = json_object_array_get_idx(v, i);
        json_object *fn = fs_json_get(it, "name"), *fu = fs_json_get(it, "url");
        if (i)
            APR_ARRAY_PUSH(parts, const char *) = "; ";
        APR_ARRAY_PUSH(parts, const char *) =
            json_object_is_type(it, json_type_string) ? json_object_get_string(it)
            /* an uploaded file: its name and API URL */
            : json_object_is_type(it, json_type_object) && fn && fu && fs_json_get(it, "sha256")
                ? apr_pstrcat(p, json_object_get_string(fn), " <", json_object_get_string(fu), ">",
                              NULL)
                : fs_json_str(p, it);
    }
    return apr_array_pstrcat(p, parts, 0);
}

void fs_csv_row(apr_array_header_t *buf, const char *const *cells, int n) {
    for (int i = 0; i < n; i++) {
        apr_size_t len = strlen(cells[i]);
        char *at = grow(buf, len + 1);
        if (i)
            *at++ = ',';
        else
            buf->nelts--;
        memcpy(at, cells[i], len);
    }
    memcpy(grow(buf, 2), "\r\n", 2);
}

void fs_csv_put(apr_array_header_t *buf, const char *bytes, apr_size_t n) {
    memcpy(grow(buf, n), bytes, n);
}

void fs_csv_put_cell(apr_array_header_t *buf, const char *text) {
    if (text)
        quote_into(buf, text, 1);
}

/* ---- the answers of a submission straight from jsonb's text -------------
 * PostgreSQL writes a jsonb object as {"key": value, ...}: no duplicate
 * keys, strings with only ", \, and control characters escaped (\b \f \n
 * \r \t, else \u00XX), numbers in plain decimal notation. The reader below
 * takes that text apart without building JSON objects; whatever it does
 * not recognise as such (a key with an escape, an integer that json-c
 * would not keep exactly, a \u escape above 0x7F) makes it give up on the
 * value or the whole row, and the caller writes those with json-c as
 * before: the bytes are the same either way. */

static const char *skip_ws(const char *s) {
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    return s;
}

/* s at a '"': the position after the closing quote, or NULL */
static const char *skip_string(const char *s) {
    for (s++; *s; s++) {
        if (*s == '\\') {
            if (!*++s)
                return NULL;
        } else if (*s == '"')
            return s + 1;
    }
    return NULL;
}

/* s at a value: the position after it, or NULL */
static const char *skip_value(const char *s) {
    if (*s == '"')
        return skip_string(s);
    if (*s == '{' || *s == '[') {
        int depth = 0;
        while (*s) {
            if (*s == '"') {
                if (!(s = skip_string(s)))
                    return NULL;
                continue;
            }
            if (*s == '{' || *s == '[') {
                /* json-c reads 32 levels (its default): deeper is its to refuse */
                if (++depth > 30)
                    return NULL;
            } else if (*s == '}' || *s == ']') {
                if (--depth == 0)
                    return s + 1;
            }
            s++;
        }
        return NULL;
    }
    const char *b = s;
    while (*s && *s != ',' && *s != '}' && *s != ']' && *s != ' ' && *s != '\n' && *s != '\t' &&
           *s != '\r')
        s++;
    return s > b ? s : NULL;
}

static int hexval(char c) {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* The string at s (its opening quote) to end (after its closing quote),
 * unescaped into scratch and NUL-terminated: 0, or -1 for an escape this
 * reader leaves to json-c. */
static int unescape(apr_array_header_t *scratch, const char *s, const char *end) {
    scratch->nelts = 0;
    char *o = grow(scratch, (apr_size_t)(end - s));
    const char *c = s + 1, *stop = end - 1;
    while (c < stop) {
        if (*c != '\\') {
            *o++ = *c++;
            continue;
        }
        switch (c[1]) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '/': *o++ = '/'; break;
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u': {
            if (stop - c < 6)
                return -1;
            int v = 0;
            for (int i = 2; i < 6; i++) {
                int h = hexval(c[i]);
                if (h < 0)
                    return -1;
                v = v * 16 + h;
            }
            if (v == 0 || v > 0x7f) /* NUL, or a character json-c encodes */
                return -1;
            *o++ = (char)v;
            c += 4;
            break;
        }
        default: return -1;
        }
        c += 2;
    }
    *o = '\0';
    scratch->nelts = (int)(o - scratch->elts);
    return 0;
}

/* Is [s, end) a number json-c writes back as it reads it? An integer of at
 * most 18 digits other than -0 (json-c keeps it as an int64) or a short
 * number with a fraction and no exponent (json-c keeps its text). Anything
 * else is left to json-c. */
static int plain_number(const char *s, const char *end) {
    const char *c = s + (*s == '-');
    if (c == end || *c < '0' || *c > '9' || (*c == '0' && end - c > 1 && c[1] != '.'))
        return 0;
    int digits = 0, dots = 0, nonzero = 0;
    for (; c < end; c++) {
        if (*c >= '0' && *c <= '9') {
            digits++;
            nonzero |= *c != '0';
        } else if (*c == '.' && !dots && c + 1 < end)
            dots++;
        else
            return 0;
    }
    if (dots)
        return digits <= 15;
    return digits <= 18 && (nonzero || *s != '-');
}

int fs_csv_put_answers(apr_array_header_t *buf, apr_array_header_t *scratch, apr_pool_t *p,
                       const char *json, const char *const *keys, int n) {
    if (!json)
        return -1;
    int start = buf->nelts;
    const char **at = apr_pcalloc(p, sizeof(char *) * 2 * (apr_size_t)(n ? n : 1));
    const char *s = skip_ws(json);
    if (*s++ != '{')
        return -1;
    s = skip_ws(s);
    if (*s == '}')
        s++;
    else
        for (;;) {
            if (*s != '"')
                return -1;
            const char *k = s + 1, *ke = skip_string(s);
            if (!ke || memchr(k, '\\', (apr_size_t)(ke - 1 - k)))
                return -1;
            s = skip_ws(ke);
            if (*s++ != ':')
                return -1;
            s = skip_ws(s);
            const char *v = s, *ve = skip_value(s);
            if (!ve)
                return -1;
            apr_size_t kl = (apr_size_t)(ke - 1 - k);
            for (int f = 0; f < n; f++)
                if (strlen(keys[f]) == kl && !memcmp(keys[f], k, kl)) {
                    at[2 * f] = v;
                    at[2 * f + 1] = ve;
                }
            s = skip_ws(ve);
            if (*s == ',') {
                s = skip_ws(s + 1);
                continue;
            }
            if (*s++ != '}')
                return -1;
            break;
        }
    if (*skip_ws(s))
        return -1;
    for (int f = 0; f < n; f++) {
        const char *v = at[2 * f], *ve = at[2 * f + 1];
        *grow(buf, 1) = ',';
        if (!v)
            continue;
        apr_size_t vl = (apr_size_t)(ve - v);
        if (*v == '"' && !unescape(scratch, v, ve)) {
            quote_into(buf, scratch->elts, 1);
            continue;
        }
        if ((vl == 4 && !memcmp(v, "null", 4)) || (vl == 4 && !memcmp(v, "true", 4)) ||
            (vl == 5 && !memcmp(v, "false", 5))) {
            if (*v != 'n')
                fs_csv_put(buf, v, vl);
            continue;
        }
        if (plain_number(v, ve)) {
            fs_csv_put(buf, v, vl); /* digits, '.', 'e', signs: nothing to quote */
            continue;
        }
        /* anything else (a list, an object, a number json-c would change):
         * the value alone through json-c, as fs_csv_value writes it */
        json_object *o = fs_json_parse_trusted(p, apr_pstrmemdup(p, v, vl));
        if (!o) {
            buf->nelts = start;
            return -1;
        }
        const char *cell = fs_csv_value(p, o);
        fs_csv_put(buf, cell, strlen(cell));
    }
    return 0;
}

void fs_csv_scan(apr_pool_t *p, const char *s, apr_size_t len, apr_array_header_t **header,
                 int *rows) {
    *header = apr_array_make(p, 8, sizeof(const char *));
    *rows = 0;
    int records = 0, quoted = 0, pending = 0; /* pending: a record has begun */
    apr_array_header_t *cell = apr_array_make(p, 32, 1);
    for (apr_size_t i = 0; i < len; i++) {
        char c = s[i];
        pending = 1;
        if (quoted) {
            if (c == '"' && i + 1 < len && s[i + 1] == '"')
                i++; /* a doubled quote: one quote */
            else if (c == '"') {
                quoted = 0;
                continue;
            }
        } else if (c == '"') {
            quoted = 1;
            continue;
        } else if (c == ',' || c == '\n') {
            if (records == 0) {
                APR_ARRAY_PUSH(*header, const char *) =
                    apr_pstrndup(p, cell->elts, (apr_size_t)cell->nelts);
                apr_array_clear(cell);
            }
            if (c == '\n') {
                records++;
                pending = 0;
            }
            continue;
        } else if (c == '\r' && i + 1 < len && s[i + 1] == '\n')
            continue;
        if (records == 0)
            APR_ARRAY_PUSH(cell, char) = c;
    }
    if (pending) {
        if (records == 0)
            APR_ARRAY_PUSH(*header, const char *) =
                apr_pstrndup(p, cell->elts, (apr_size_t)cell->nelts);
        records++;
    }
    *rows = records > 0 ? records - 1 : 0;
}
