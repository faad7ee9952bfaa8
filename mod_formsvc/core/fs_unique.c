/* fs_unique: settings.uniqueBy and the hash of a submission's values
 * under it (include/fs_unique.h). */
#include "fs_unique.h"
#include "fs_field.h"
#include "fs_json.h"

#include <apr_strings.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

json_object *fs_unique_by_parse(apr_pool_t *p, json_object *v, const char *ptr, fs_error *verr) {
    if (!v || json_object_is_type(v, json_type_null))
        return NULL;
    if (!json_object_is_type(v, json_type_array)) {
        fs_error_add(p, verr, ptr, "type", "uniqueBy must be an array of field keys or null.");
        return NULL;
    }
    size_t n = json_object_array_length(v);
    if (n < 1 || n > FS_UNIQUE_BY_MAX) {
        fs_error_add(p, verr, ptr, n < 1 ? "minItems" : "maxItems",
                     "uniqueBy names 1 to %d field keys (null: no duplicate rule).",
                     FS_UNIQUE_BY_MAX);
        return NULL;
    }
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        json_object *it = json_object_array_get_idx(v, i);
        const char *ip = apr_psprintf(p, "%s/%lu", ptr, (unsigned long)i);
        if (!json_object_is_type(it, json_type_string)) {
            fs_error_add(p, verr, ip, "type", "A uniqueBy item is a field key (a string).");
            bad = 1;
            continue;
        }
        const char *k = json_object_get_string(it);
        if (!fs_field_key_valid(k)) {
            fs_error_add(p, verr, ip, "pattern", "A uniqueBy item is a field key.");
            bad = 1;
            continue;
        }
        for (size_t j = 0; j < i; j++) {
            json_object *o = json_object_array_get_idx(v, j);
            if (json_object_is_type(o, json_type_string) && !strcmp(json_object_get_string(o), k)) {
                fs_error_add(p, verr, ip, "unique", "A field key is listed twice in uniqueBy.");
                bad = 1;
                break;
            }
        }
    }
    return bad ? NULL : fs_json_copy(v);
}

/* The field of fields whose key is key, or NULL (also for a page field:
 * it takes no answer). */
static json_object *field_of(json_object *fields, const char *key) {
    size_t n = fields && json_object_is_type(fields, json_type_array)
                   ? json_object_array_length(fields)
                   : 0;
    for (size_t i = 0; i < n; i++) {
        json_object *f = json_object_array_get_idx(fields, i);
        json_object *k = fs_json_get(f, "key"), *t = fs_json_get(f, "type");
        if (k && !strcmp(json_object_get_string(k), key))
            return t && !strcmp(json_object_get_string(t), "page") ? NULL : f;
    }
    return NULL;
}

/* The uniqueBy array of settings, or NULL when there is none. */
static json_object *unique_by(json_object *settings) {
    json_object *u = fs_json_get(settings, "uniqueBy");
    return u && json_object_is_type(u, json_type_array) && json_object_array_length(u) > 0 ? u
                                                                                           : NULL;
}

void fs_unique_by_fields(apr_pool_t *p, json_object *settings, json_object *fields,
                         fs_error *verr) {
    json_object *u = unique_by(settings);
    for (size_t i = 0; u && i < json_object_array_length(u); i++) {
        const char *k = json_object_get_string(json_object_array_get_idx(u, i));
        if (!field_of(fields, k))
            fs_error_add(p, verr, apr_psprintf(p, "/settings/uniqueBy/%lu", (unsigned long)i),
                         "enum",
                         "settings.uniqueBy names %s, which is not a field of the form (remove "
                         "it from uniqueBy before removing or renaming the field).",
                         k);
    }
}

/* s without leading and trailing white space, lower-cased (ASCII) when
 * lower; in p. */
static char *norm_str(apr_pool_t *p, const char *s, int lower) {
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == '\f' || *s == '\v')
        s++;
    size_t n = strlen(s);
    while (n && strchr(" \t\n\r\f\v", s[n - 1]))
        n--;
    char *o = apr_pstrmemdup(p, s, n);
    for (char *c = o; lower && *c; c++)
        if (*c >= 'A' && *c <= 'Z')
            *c = (char)(*c - 'A' + 'a');
    return o;
}

/* One value as text: strings normalised, anything else as its JSON; NULL
 * when it is missing, null or blank. */
static const char *norm_scalar(apr_pool_t *p, json_object *v, int lower) {
    if (!v || json_object_is_type(v, json_type_null))
        return NULL;
    if (json_object_is_type(v, json_type_string)) {
        const char *s = norm_str(p, json_object_get_string(v), lower);
        return *s ? apr_pstrcat(p, "s:", s, NULL) : NULL;
    }
    return apr_pstrcat(p, "j:", fs_json_str(p, v), NULL);
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The normalised value: an array's items sorted and joined with US; NULL
 * when it is missing, null, blank or an empty array. */
static const char *norm_value(apr_pool_t *p, json_object *v, int lower) {
    if (!v || !json_object_is_type(v, json_type_array))
        return norm_scalar(p, v, lower);
    size_t n = json_object_array_length(v);
    if (!n)
        return NULL;
    const char **items = apr_pcalloc(p, n * sizeof(*items));
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const char *t = norm_scalar(p, json_object_array_get_idx(v, i), lower);
        if (t)
            items[m++] = t;
    }
    if (!m)
        return NULL;
    qsort(items, m, sizeof(*items), cmp_str);
    const char *o = "a:";
    for (size_t i = 0; i < m; i++)
        o = apr_pstrcat(p, o, i ? "\x1f" : "", items[i], NULL);
    return o;
}

const char *fs_unique_hash(apr_pool_t *p, json_object *settings, json_object *fields,
                           json_object *answers) {
    json_object *u = unique_by(settings);
    if (!u)
        return NULL;
    /* the keys in a fixed order, so that ["a","b"] and ["b","a"] agree */
    size_t n = json_object_array_length(u);
    const char **keys = apr_pcalloc(p, n * sizeof(*keys));
    for (size_t i = 0; i < n; i++)
        keys[i] = json_object_get_string(json_object_array_get_idx(u, i));
    qsort(keys, n, sizeof(*keys), cmp_str);
    const char *text = "uniqueBy/1";
    for (size_t i = 0; i < n; i++) {
        json_object *f = field_of(fields, keys[i]);
        json_object *t = fs_json_get(f, "type");
        int lower = t && !strcmp(json_object_get_string(t), "email");
        const char *v = norm_value(p, fs_json_get(answers, keys[i]), lower);
        if (!v)
            return NULL;
        /* RS between items, US inside: neither can come from a key, and a
         * value's own length is part of it, so no two inputs read alike */
        text = apr_psprintf(p, "%s\x1e%s\x1f%lu\x1f%s", text, keys[i], (unsigned long)strlen(v), v);
    }
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    if (!EVP_Digest(text, strlen(text), md, &mdlen, EVP_sha256(), NULL))
        return NULL;
    char *hex = apr_palloc(p, mdlen * 2 + 1);
    for (unsigned int i = 0; i < mdlen; i++)
        apr_snprintf(hex + 2 * i, 3, "%02x", md[i]);
    return hex;
}

const char *fs_unique_labels(apr_pool_t *p, json_object *settings, json_object *fields) {
    json_object *u = unique_by(settings);
    if (!u)
        return NULL;
    size_t n = json_object_array_length(u);
    const char *o = "";
    for (size_t i = 0; i < n; i++) {
        const char *k = json_object_get_string(json_object_array_get_idx(u, i));
        json_object *l = fs_json_get(field_of(fields, k), "label");
        o = apr_pstrcat(p, o,
                        i == 0       ? ""
                        : i + 1 == n ? " and "
                                     : ", ",
                        l ? json_object_get_string(l) : k, NULL);
    }
    return o;
}
