/* fs_json: pool-owned json-c values and the strict request-body scanner. */
#include "fs_json.h"
#include "fs_util.h"

#include <apr_hash.h>
#include <apr_strings.h>
#include <string.h>

static apr_status_t json_put_cleanup(void *data) {
    json_object_put(data);
    return APR_SUCCESS;
}

json_object *fs_json_own(apr_pool_t *p, json_object *obj) {
    if (obj)
        apr_pool_cleanup_register(p, obj, json_put_cleanup, apr_pool_cleanup_null);
    return obj;
}

char *fs_json_str(apr_pool_t *p, json_object *obj) {
    size_t len = 0;
    const char *s = json_object_to_json_string_length(
        obj, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len);
    return apr_pstrmemdup(p, s, len);
}

void fs_json_put_string(apr_array_header_t *buf, const char *s) {
    static const char hex[] = "0123456789abcdef";
    apr_size_t n = strlen(s);
    /* at most six bytes a byte (\u00xx), and the quotes */
    if ((apr_size_t)(buf->nalloc - buf->nelts) < 6 * n + 2) {
        apr_size_t cap = buf->nalloc ? (apr_size_t)buf->nalloc : 64;
        while (cap - (apr_size_t)buf->nelts < 6 * n + 2)
            cap *= 2;
        char *grown = apr_palloc(buf->pool, cap);
        memcpy(grown, buf->elts, (apr_size_t)buf->nelts);
        buf->elts = grown;
        buf->nalloc = (int)cap;
    }
    char *o = buf->elts + buf->nelts;
    *o++ = '"';
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        const char *e = NULL;
        switch (*c) {
        case '"': e = "\\\""; break;
        case '\\': e = "\\\\"; break;
        case '\b': e = "\\b"; break;
        case '\f': e = "\\f"; break;
        case '\n': e = "\\n"; break;
        case '\r': e = "\\r"; break;
        case '\t': e = "\\t"; break;
        }
        if (e) {
            *o++ = e[0];
            *o++ = e[1];
        } else if (*c < 0x20) {
            memcpy(o, "\\u00", 4);
            o[4] = hex[*c >> 4];
            o[5] = hex[*c & 15];
            o += 6;
        } else
            *o++ = (char)*c;
    }
    *o++ = '"';
    buf->nelts = (int)(o - buf->elts);
}

json_object *fs_json_get(json_object *o, const char *key) {
    json_object *v = NULL;
    if (o && json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, key, &v))
        return v;
    return NULL;
}

const char *fs_json_type_name(json_object *v) {
    switch (json_object_get_type(v)) {
    case json_type_null: return "null";
    case json_type_boolean: return "boolean";
    case json_type_double: return "number";
    case json_type_int: return "integer";
    case json_type_object: return "object";
    case json_type_array: return "array";
    case json_type_string: return "string";
    }
    return "unknown";
}

/* Decodes one UTF-8 sequence at s (n bytes left). Returns its length, or 0
 * when invalid (overlong, surrogate, > U+10FFFF, truncated, NUL). */
static apr_size_t utf8_seq(const unsigned char *s, apr_size_t n, unsigned *cp) {
    unsigned c = s[0];
    if (c == 0)
        return 0;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    apr_size_t len;
    unsigned min;
    if ((c & 0xE0) == 0xC0) {
        len = 2;
        c &= 0x1F;
        min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        len = 3;
        c &= 0x0F;
        min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        len = 4;
        c &= 0x07;
        min = 0x10000;
    } else
        return 0;
    if (n < len)
        return 0;
    for (apr_size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        c = (c << 6) | (s[i] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    *cp = c;
    return len;
}

int fs_utf8_valid(const char *s, apr_size_t len) {
    const unsigned char *u = (const unsigned char *)s;
    apr_size_t i = 0;
    unsigned cp;
    while (i < len) {
        apr_size_t l = utf8_seq(u + i, len - i, &cp);
        if (!l)
            return 0;
        i += l;
    }
    return 1;
}

apr_size_t fs_utf8_length(const char *s) {
    apr_size_t n = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80)
            n++;
    return n;
}

/* The scanner. A recursive-descent checker over the raw bytes; it builds
 * nothing but the decoded member names needed for duplicate detection. */
typedef struct scan {
    apr_pool_t *p;
    const unsigned char *s;
    apr_size_t n, i;
    int depth;
    const char *err;
} scan;

static void ws(scan *sc) {
    while (sc->i < sc->n) {
        unsigned char c = sc->s[sc->i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
            sc->i++;
        else
            break;
    }
}

static int fail(scan *sc, const char *msg) {
    if (!sc->err)
        sc->err = apr_psprintf(sc->p, "%s at byte %" APR_SIZE_T_FMT, msg, sc->i);
    return 0;
}

static int hex4(scan *sc, unsigned *v) {
    if (sc->n - sc->i < 4)
        return fail(sc, "truncated \\u escape");
    *v = 0;
    for (int k = 0; k < 4; k++) {
        unsigned char c = sc->s[sc->i++];
        *v <<= 4;
        if (c >= '0' && c <= '9')
            *v |= c - '0';
        else if (c >= 'a' && c <= 'f')
            *v |= c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            *v |= c - 'A' + 10;
        else
            return fail(sc, "bad \\u escape");
    }
    return 1;
}

/* Scans a string; when out is non-NULL, appends the decoded bytes to it. */
static int string(scan *sc, apr_array_header_t *out) {
    sc->i++; /* opening quote */
    while (sc->i < sc->n) {
        unsigned char c = sc->s[sc->i];
        if (c == '"') {
            sc->i++;
            return 1;
        }
        if (c < 0x20)
            return fail(sc, "control character in string");
        if (c == '\\') {
            sc->i++;
            if (sc->i >= sc->n)
                break;
            unsigned char e = sc->s[sc->i++];
            unsigned cp;
            switch (e) {
            case '"':
            case '\\':
            case '/': cp = e; break;
            case 'b': cp = '\b'; break;
            case 'f': cp = '\f'; break;
            case 'n': cp = '\n'; break;
            case 'r': cp = '\r'; break;
            case 't': cp = '\t'; break;
            case 'u':
                if (!hex4(sc, &cp))
                    return 0;
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    unsigned lo;
                    if (sc->n - sc->i < 6 || sc->s[sc->i] != '\\' || sc->s[sc->i + 1] != 'u')
                        return fail(sc, "lone surrogate");
                    sc->i += 2;
                    if (!hex4(sc, &lo))
                        return 0;
                    if (lo < 0xDC00 || lo > 0xDFFF)
                        return fail(sc, "lone surrogate");
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                    return fail(sc, "lone surrogate");
                }
                if (cp == 0)
                    return fail(sc, "NUL character (\\u0000) in string");
                break;
            default: return fail(sc, "bad escape");
            }
            if (out) {
                char buf[4];
                int l;
                if (cp < 0x80) {
                    buf[0] = (char)cp;
                    l = 1;
                } else if (cp < 0x800) {
                    buf[0] = (char)(0xC0 | (cp >> 6));
                    buf[1] = (char)(0x80 | (cp & 0x3F));
                    l = 2;
                } else if (cp < 0x10000) {
                    buf[0] = (char)(0xE0 | (cp >> 12));
                    buf[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
                    buf[2] = (char)(0x80 | (cp & 0x3F));
                    l = 3;
                } else {
                    buf[0] = (char)(0xF0 | (cp >> 18));
                    buf[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
                    buf[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
                    buf[3] = (char)(0x80 | (cp & 0x3F));
                    l = 4;
                }
                for (int k = 0; k < l; k++)
                    *(char *)apr_array_push(out) = buf[k];
            }
            continue;
        }
        unsigned cp;
        apr_size_t l = utf8_seq(sc->s + sc->i, sc->n - sc->i, &cp);
        if (!l)
            return fail(sc, "invalid UTF-8");
        if (out)
            for (apr_size_t k = 0; k < l; k++)
                *(char *)apr_array_push(out) = (char)sc->s[sc->i + k];
        sc->i += l;
    }
    return fail(sc, "unterminated string");
}

static int digits(scan *sc) {
    apr_size_t start = sc->i;
    while (sc->i < sc->n && sc->s[sc->i] >= '0' && sc->s[sc->i] <= '9')
        sc->i++;
    return sc->i > start;
}

static int number(scan *sc) {
    if (sc->s[sc->i] == '-')
        sc->i++;
    if (sc->i < sc->n && sc->s[sc->i] == '0')
        sc->i++;
    else if (!digits(sc))
        return fail(sc, "bad number");
    if (sc->i < sc->n && sc->s[sc->i] == '.') {
        sc->i++;
        if (!digits(sc))
            return fail(sc, "bad number");
    }
    if (sc->i < sc->n && (sc->s[sc->i] == 'e' || sc->s[sc->i] == 'E')) {
        sc->i++;
        if (sc->i < sc->n && (sc->s[sc->i] == '+' || sc->s[sc->i] == '-'))
            sc->i++;
        if (!digits(sc))
            return fail(sc, "bad number");
    }
    return 1;
}

static int literal(scan *sc, const char *word) {
    apr_size_t l = strlen(word);
    if (sc->n - sc->i < l || memcmp(sc->s + sc->i, word, l) != 0)
        return fail(sc, "unexpected character");
    sc->i += l;
    return 1;
}

static int value(scan *sc);

/* The next byte is c: steps past it. */
static int eat(scan *sc, unsigned char c) {
    if (sc->i < sc->n && sc->s[sc->i] == c) {
        sc->i++;
        return 1;
    }
    return 0;
}

/* At an object's or array's opening byte: one level deeper (0 after a
 * failure when too deep), past the byte and the white space after it. */
static int opens(scan *sc) {
    if (++sc->depth > FS_JSON_MAX_DEPTH)
        return fail(sc, "nesting deeper than 32 levels");
    sc->i++;
    ws(sc);
    return 1;
}

/* The closing byte c of an object or array: past it, one level up. */
static int closes(scan *sc, unsigned char c) {
    if (!eat(sc, c))
        return 0;
    sc->depth--;
    return 1;
}

static int object(scan *sc) {
    if (!opens(sc))
        return 0;
    apr_hash_t *seen = NULL;
    if (closes(sc, '}'))
        return 1;
    for (;;) {
        ws(sc);
        if (sc->i >= sc->n || sc->s[sc->i] != '"')
            return fail(sc, "expected a member name");
        apr_array_header_t *name = apr_array_make(sc->p, 16, 1);
        if (!string(sc, name))
            return 0;
        if (!seen)
            seen = apr_hash_make(sc->p);
        if (apr_hash_get(seen, name->elts, name->nelts))
            return fail(sc, apr_psprintf(sc->p, "duplicate member name \"%.*s\"",
                                         name->nelts > 64 ? 64 : name->nelts, name->elts));
        apr_hash_set(seen, name->elts, name->nelts, "");
        ws(sc);
        if (!eat(sc, ':'))
            return fail(sc, "expected ':'");
        if (!value(sc))
            return 0;
        ws(sc);
        if (eat(sc, ','))
            continue;
        if (closes(sc, '}'))
            return 1;
        return fail(sc, "expected ',' or '}'");
    }
}

static int array(scan *sc) {
    if (!opens(sc))
        return 0;
    if (closes(sc, ']'))
        return 1;
    for (;;) {
        if (!value(sc))
            return 0;
        ws(sc);
        if (eat(sc, ','))
            continue;
        if (closes(sc, ']'))
            return 1;
        return fail(sc, "expected ',' or ']'");
    }
}

static int value(scan *sc) {
    ws(sc);
    if (sc->i >= sc->n)
        return fail(sc, "unexpected end of input");
    switch (sc->s[sc->i]) {
    case '{': return object(sc);
    case '[': return array(sc);
    case '"': return string(sc, NULL);
    case 't': return literal(sc, "true");
    case 'f': return literal(sc, "false");
    case 'n': return literal(sc, "null");
    default:
        if (sc->s[sc->i] == '-' || (sc->s[sc->i] >= '0' && sc->s[sc->i] <= '9'))
            return number(sc);
        return fail(sc, "unexpected character");
    }
}

fs_error *fs_json_check(apr_pool_t *p, const char *buf, apr_size_t len) {
    apr_pool_t *sub;
    apr_pool_create(&sub, p);
    scan sc = {sub, (const unsigned char *)buf, len, 0, 0, NULL};
    fs_error *e = NULL;
    if (!value(&sc)) {
        e = fs_error_make(p, "malformed-request", "The body is not valid JSON: %s.", sc.err);
    } else {
        ws(&sc);
        if (sc.i != sc.n)
            e = fs_error_make(
                p, "malformed-request",
                "The body is not valid JSON: trailing data at byte %" APR_SIZE_T_FMT ".", sc.i);
    }
    apr_pool_destroy(sub);
    return e;
}

fs_error *fs_json_parse_object(apr_pool_t *p, const char *buf, apr_size_t len, json_object **out) {
    *out = NULL;
    fs_error *e = fs_json_check(p, buf, len);
    if (e)
        return e;
    json_tokener *tok = json_tokener_new_ex(FS_JSON_MAX_DEPTH + 2);
    if (!tok)
        return fs_error_internal(p, "json_tokener_new_ex failed (out of memory)");
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    json_object *o = json_tokener_parse_ex(tok, buf, (int)len);
    if (!o && json_tokener_get_error(tok) == json_tokener_continue)
        o = json_tokener_parse_ex(tok, "", -1);
    enum json_tokener_error jerr = json_tokener_get_error(tok);
    json_tokener_free(tok);
    if (!o || jerr != json_tokener_success) {
        if (o)
            json_object_put(o);
        return fs_error_make(p, "malformed-request", "The body is not valid JSON.");
    }
    fs_json_own(p, o);
    if (!json_object_is_type(o, json_type_object))
        return fs_error_make(p, "malformed-request", "The body must be a JSON object, not %s.",
                             fs_json_type_name(o));
    *out = o;
    return NULL;
}

json_object *fs_json_parse_trusted(apr_pool_t *p, const char *text) {
    if (!text)
        return NULL;
    return fs_json_own(p, json_tokener_parse(text));
}

const char *fs_json_text(apr_pool_t *p, json_object *v, const char *ptr, const char *name,
                         apr_size_t min, apr_size_t max, int multiline, fs_error *verr) {
    if (!json_object_is_type(v, json_type_string)) {
        fs_error_add(p, verr, ptr, "type", "%s must be a string, not %s.", name,
                     fs_json_type_name(v));
        return NULL;
    }
    const char *s = json_object_get_string(v);
    apr_size_t len = fs_utf8_length(s);
    if (len < min) {
        fs_error_add(p, verr, ptr, "minLength", "%s must not be empty.", name);
        return NULL;
    }
    if (len > max) {
        fs_error_add(p, verr, ptr, "maxLength",
                     "%s has at most %" APR_SIZE_T_FMT " characters (this one has %" APR_SIZE_T_FMT
                     ").",
                     name, max, len);
        return NULL;
    }
    for (const char *c = s; *c; c++) {
        unsigned char u = (unsigned char)*c;
        if ((u < 0x20 || u == 0x7f) && !(multiline && (u == '\n' || u == '\t' || u == '\r'))) {
            fs_error_add(p, verr, ptr, "pattern", "%s must not contain control characters.", name);
            return NULL;
        }
    }
    return s;
}

const char *fs_json_pointer(apr_pool_t *p, const char *base, const char *key) {
    if (!strpbrk(key, "~/"))
        return apr_pstrcat(p, base, "/", key, NULL);
    apr_size_t bl = strlen(base);
    char *out = apr_palloc(p, bl + 1 + strlen(key) * 2 + 1), *o = out + bl;
    memcpy(out, base, bl);
    *o++ = '/';
    for (; *key; key++) {
        if (*key == '~' || *key == '/') {
            *o++ = '~';
            *o++ = *key == '~' ? '0' : '1';
        } else
            *o++ = *key;
    }
    *o = '\0';
    return out;
}

void fs_json_unknown_members(apr_pool_t *p, json_object *o, const char *const *allowed,
                             fs_error *verr) {
    fs_json_unknown_members_at(p, o, "", allowed, verr);
}

void fs_json_unknown_members_at(apr_pool_t *p, json_object *o, const char *base,
                                const char *const *allowed, fs_error *verr) {
    json_object_object_foreach(o, k, v) {
        (void)v;
        int ok = 0;
        for (const char *const *a = allowed; *a; a++)
            if (!strcmp(*a, k))
                ok = 1;
        if (!ok)
            fs_error_add(p, verr, fs_json_pointer(p, base, k), "unknown", "Unknown member.");
    }
}

const char *fs_json_email_member(apr_pool_t *p, json_object *body, fs_error *verr) {
    json_object *ev = fs_json_get(body, "email");
    if (!ev) {
        fs_error_add(p, verr, "/email", "required", "email is required.");
        return NULL;
    }
    if (!json_object_is_type(ev, json_type_string)) {
        fs_error_add(p, verr, "/email", "type", "email must be a string.");
        return NULL;
    }
    const char *email = fs_trim(p, json_object_get_string(ev));
    if (strlen(email) > 254) {
        fs_error_add(p, verr, "/email", "maxLength", "email is longer than 254 characters.");
        return NULL;
    }
    if (!fs_email_valid(email)) {
        fs_error_add(p, verr, "/email", "format", "email is not a valid e-mail address.");
        return NULL;
    }
    return email;
}

int fs_json_number(json_object *v, double *out) {
    if (!v)
        return 0;
    if (json_object_is_type(v, json_type_int)) {
        *out = (double)json_object_get_int64(v);
        return 1;
    }
    if (json_object_is_type(v, json_type_double)) {
        *out = json_object_get_double(v);
        return 1;
    }
    return 0;
}

int fs_json_equal(json_object *a, json_object *b) {
    if (!a || !b)
        return a == b;
    double x, y;
    if (fs_json_number(a, &x) && fs_json_number(b, &y)) {
        if (json_object_is_type(a, json_type_int) && json_object_is_type(b, json_type_int))
            return json_object_get_int64(a) == json_object_get_int64(b);
        return x == y;
    }
    enum json_type ta = json_object_get_type(a), tb = json_object_get_type(b);
    if (ta != tb)
        return 0;
    switch (ta) {
    case json_type_null: return 1;
    case json_type_boolean: return json_object_get_boolean(a) == json_object_get_boolean(b);
    case json_type_string:
        return json_object_get_string_len(a) == json_object_get_string_len(b) &&
               !memcmp(json_object_get_string(a), json_object_get_string(b),
                       (size_t)json_object_get_string_len(a));
    case json_type_array: {
        size_t n = json_object_array_length(a);
        if (n != json_object_array_length(b))
            return 0;
        for (size_t i = 0; i < n; i++)
            if (!fs_json_equal(json_object_array_get_idx(a, i), json_object_array_get_idx(b, i)))
                return 0;
        return 1;
    }
    case json_type_object: {
        if (json_object_object_length(a) != json_object_object_length(b))
            return 0;
        json_object_object_foreach(a, k, v) {
            json_object *w;
            if (!json_object_object_get_ex(b, k, &w) || !fs_json_equal(v, w))
                return 0;
        }
        return 1;
    }
    default: return 0;
    }
}
