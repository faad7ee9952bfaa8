/* fs_locale: the language files and choosing one (see fs_locale.h). */
#include "fs_locale.h"
#include "fs_json.h"

#include <stdarg.h>
#include <apr_file_io.h>
#include <apr_strings.h>
#include <string.h>

/* The supported languages: the file's code, <html lang>, direction. */
static const struct {
    const char *code, *lang;
    int rtl;
} TABLE[] = {{"en", "en", 0}, {"de", "de", 0},      {"fr", "fr", 0}, {"es", "es", 0},
             {"pt", "pt", 0}, {"it", "it", 0},      {"nl", "nl", 0}, {"pl", "pl", 0},
             {"ja", "ja", 0}, {"zh", "zh-Hans", 0}, {"ar", "ar", 1}, {"he", "he", 1}};
#define NLANG (sizeof(TABLE) / sizeof(TABLE[0]))

const char *const fs_locale_codes[] = {"en", "de", "fr", "es", "pt", "it", "nl",
                                       "pl", "ja", "zh", "ar", "he", NULL};

struct fs_locales {
    fs_locale l[NLANG];
};

static int lower(int c) {
    return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static int alpha(int c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int alnum(int c) {
    return alpha(c) || (c >= '0' && c <= '9');
}

/* Placeholders of s ("{label}", ...) in a canonical form: sorted, joined. */
static const char *placeholders(apr_pool_t *p, const char *s) {
    apr_array_header_t *a = apr_array_make(p, 4, sizeof(const char *));
    for (const char *q = s; (q = strchr(q, '{'));) {
        const char *e = q + 1;
        while ((*e >= 'a' && *e <= 'z') || *e == '_')
            e++;
        if (*e == '}' && e > q + 1) {
            APR_ARRAY_PUSH(a, const char *) = apr_pstrndup(p, q, (apr_size_t)(e - q + 1));
            q = e + 1;
        } else {
            q++;
        }
    }
    /* a handful of items: insertion sort */
    for (int i = 1; i < a->nelts; i++)
        for (int j = i; j > 0 && strcmp(APR_ARRAY_IDX(a, j - 1, const char *),
                                        APR_ARRAY_IDX(a, j, const char *)) > 0;
             j--) {
            const char *t = APR_ARRAY_IDX(a, j, const char *);
            APR_ARRAY_IDX(a, j, const char *) = APR_ARRAY_IDX(a, j - 1, const char *);
            APR_ARRAY_IDX(a, j - 1, const char *) = t;
        }
    return apr_array_pstrcat(p, a, ' ');
}

const char *fs_locale_compare(apr_pool_t *p, apr_hash_t *en, apr_hash_t *other) {
    for (apr_hash_index_t *hi = apr_hash_first(p, en); hi; hi = apr_hash_next(hi)) {
        const char *k = apr_hash_this_key(hi), *v = apr_hash_this_val(hi);
        const char *o = apr_hash_get(other, k, APR_HASH_KEY_STRING);
        if (!o)
            return apr_psprintf(p, "the key %s is missing", k);
        const char *pe = placeholders(p, v), *po = placeholders(p, o);
        if (strcmp(pe, po))
            return apr_psprintf(p, "%s has the placeholders [%s], en.json has [%s]", k, po, pe);
    }
    for (apr_hash_index_t *hi = apr_hash_first(p, other); hi; hi = apr_hash_next(hi)) {
        const char *k = apr_hash_this_key(hi);
        if (!apr_hash_get(en, k, APR_HASH_KEY_STRING))
            return apr_psprintf(p, "the key %s is not in en.json", k);
    }
    return NULL;
}

/* Reads one file into a flat hash; NULL and *why on failure. */
static apr_hash_t *read_file(apr_pool_t *p, const char *path, const char **why) {
    apr_file_t *f;
    apr_finfo_t fi;
    apr_status_t rv = apr_file_open(&f, path, APR_FOPEN_READ | APR_FOPEN_BINARY, 0, p);
    if (rv != APR_SUCCESS) {
        char buf[120];
        *why = apr_psprintf(p, "cannot open %s: %s", path, apr_strerror(rv, buf, sizeof(buf)));
        return NULL;
    }
    if (apr_file_info_get(&fi, APR_FINFO_SIZE, f) != APR_SUCCESS || fi.size > 1024 * 1024) {
        apr_file_close(f);
        *why = apr_psprintf(p, "%s is not a regular file of at most 1 MiB", path);
        return NULL;
    }
    char *buf = apr_palloc(p, (apr_size_t)fi.size + 1);
    apr_size_t n = (apr_size_t)fi.size;
    rv = n ? apr_file_read_full(f, buf, n, &n) : APR_SUCCESS;
    apr_file_close(f);
    if (rv != APR_SUCCESS) {
        *why = apr_psprintf(p, "cannot read %s", path);
        return NULL;
    }
    buf[n] = '\0';
    json_object *o;
    fs_error *e = fs_json_parse_object(p, buf, n, &o);
    if (e) {
        *why = apr_psprintf(p, "%s is not a JSON object: %s", path, e->detail ? e->detail : "");
        return NULL;
    }
    apr_hash_t *h = apr_hash_make(p);
    json_object_object_foreach(o, k, v) {
        if (!json_object_is_type(v, json_type_string) || !json_object_get_string_len(v)) {
            *why = apr_psprintf(p, "%s: %s is not a non-empty string", path, k);
            return NULL;
        }
        apr_hash_set(h, apr_pstrdup(p, k), APR_HASH_KEY_STRING,
                     apr_pstrdup(p, json_object_get_string(v)));
    }
    return h;
}

const char *fs_locales_load(apr_pool_t *p, const char *dir, fs_locales **out) {
    fs_locales *ls = apr_pcalloc(p, sizeof(*ls));
    const char *why = NULL;
    apr_pool_t *tmp;
    apr_pool_create(&tmp, p);
    for (size_t i = 0; i < NLANG && !why; i++) {
        const char *path = apr_pstrcat(tmp, dir, "/", TABLE[i].code, ".json", NULL);
        ls->l[i].code = TABLE[i].code;
        ls->l[i].lang = TABLE[i].lang;
        ls->l[i].rtl = TABLE[i].rtl;
        if (!(ls->l[i].msgs = read_file(p, path, &why)))
            break;
        if (i > 0 && (why = fs_locale_compare(tmp, ls->l[0].msgs, ls->l[i].msgs)))
            why = apr_psprintf(p, "%s: %s", path, why);
    }
    if (why)
        why = apr_pstrdup(p, why);
    apr_pool_destroy(tmp);
    if (!why)
        *out = ls;
    return why;
}

const fs_locale *fs_locales_get(const fs_locales *ls, const char *code) {
    if (!ls)
        return NULL;
    for (size_t i = 0; code && i < NLANG; i++)
        if (!strcmp(TABLE[i].code, code))
            return &ls->l[i];
    return &ls->l[0];
}

const char *fs_locale_match(const char *tag) {
    if (!tag)
        return NULL;
    char lang[4];
    size_t n = 0;
    while (n < 4 && alpha(tag[n])) {
        lang[n] = (char)lower(tag[n]);
        n++;
    }
    if (n < 2 || n > 3 || (tag[n] && tag[n] != '-' && tag[n] != '_'))
        return NULL;
    lang[n] = '\0';
    if (!strcmp(lang, "iw")) /* Hebrew's code before 1989, still sent by old systems */
        return "he";
    for (size_t i = 0; i < NLANG; i++)
        if (!strcmp(TABLE[i].code, lang))
            return TABLE[i].code;
    return NULL;
}

/* q of one Accept-Language item's parameters (";q=0.5"), 1000 = 1. */
static int qvalue(const char *params) {
    const char *q = params;
    while ((q = strchr(q, ';'))) {
        q++;
        while (*q == ' ' || *q == '\t')
            q++;
        if ((q[0] == 'q' || q[0] == 'Q') && q[1] == '=') {
            q += 2;
            if (*q == '1')
                return 1000;
            if (*q != '0')
                return 0;
            int v = 0, scale = 100;
            if (q[1] == '.')
                for (const char *d = q + 2; *d >= '0' && *d <= '9' && scale; d++, scale /= 10)
                    v += (*d - '0') * scale;
            return v;
        }
    }
    return 1000;
}

const char *fs_locale_negotiate(apr_pool_t *p, const char *accept_language) {
    if (!accept_language)
        return NULL;
    char *all = apr_pstrdup(p, accept_language), *last;
    const char *best = NULL;
    int best_q = 0;
    for (char *it = apr_strtok(all, ",", &last); it; it = apr_strtok(NULL, ",", &last)) {
        while (*it == ' ' || *it == '\t')
            it++;
        char *semi = strchr(it, ';');
        int q = qvalue(it);
        if (semi)
            *semi = '\0';
        apr_collapse_spaces(it, it);
        const char *code = fs_locale_match(it);
        if (code && q > best_q) {
            best = code;
            best_q = q;
        }
    }
    return best;
}

int fs_locale_tag_valid(const char *tag) {
    if (!tag)
        return 0;
    if (!strcmp(tag, "auto"))
        return 1;
    size_t len = strlen(tag);
    if (len < 2 || len > 35)
        return 0;
    size_t first = 0;
    while (alpha(tag[first]))
        first++;
    if (first < 2 || first > 3 || (tag[first] && tag[first] != '-'))
        return 0;
    size_t run = 0;
    for (const char *c = tag + first; *c; c++) {
        if (*c == '-') {
            if (c[1] == '\0' || c[1] == '-')
                return 0;
            run = 0;
        } else if (!alnum(*c) || ++run > 8) {
            return 0;
        }
    }
    return 1;
}

const char *fs_tr(const fs_locale *l, const char *key) {
    const char *v = l ? apr_hash_get(l->msgs, key, APR_HASH_KEY_STRING) : NULL;
    return v ? v : key;
}

char *fs_trf(apr_pool_t *p, const fs_locale *l, const char *key, ...) {
    const char *s = fs_tr(l, key);
    const char *names[8], *values[8];
    int n = 0;
    va_list ap;
    va_start(ap, key);
    for (const char *name; n < 8 && (name = va_arg(ap, const char *));) {
        names[n] = name;
        values[n] = va_arg(ap, const char *);
        n++;
    }
    va_end(ap);
    char *out = "";
    const char *run = s;
    for (const char *q = s; *q; q++) {
        if (*q != '{')
            continue;
        for (int i = 0; i < n; i++) {
            size_t nl = strlen(names[i]);
            if (!strncmp(q + 1, names[i], nl) && q[1 + nl] == '}') {
                out = apr_pstrcat(p, out, apr_pstrndup(p, run, (apr_size_t)(q - run)),
                                  values[i] ? values[i] : "", NULL);
                q += nl + 1;
                run = q + 1;
                break;
            }
        }
    }
    return apr_pstrcat(p, out, run, NULL);
}
