/* fs_field: parsing and checking field definitions. */
#include "fs_field.h"
#include "fs_bounds.h"
#include "fs_field_choice_def.h"
#include "fs_fieldset.h"
#include "fs_file.h"
#include "fs_json.h"
#include "fs_logic.h"
#include "fs_quiz.h"
#include "fs_regex.h"
#include "fs_secret.h"
#include "fs_tz.h"
#include "fs_util.h"

#include <apr_hash.h>
#include <apr_lib.h>
#include <apr_strings.h>
#include <math.h>
#include <string.h>

static const char *const TYPE_NAMES[FS_FT_COUNT] = {
    "text",    "textarea",  "email",  "url",         "tel",    "number", "integer", "boolean",
    "date",    "datetime",  "select", "multiselect", "rating", "hidden", "file",    "page",
    "address", "daterange", "time",   "signature",   "scale",  "matrix", "ranking", "consent"};

const char *fs_field_type_name(fs_field_type t) {
    return t >= 0 && t < FS_FT_COUNT ? TYPE_NAMES[t] : NULL;
}

int fs_field_type_of(const char *name) {
    for (int i = 0; name && i < FS_FT_COUNT; i++)
        if (!strcmp(TYPE_NAMES[i], name))
            return i;
    return -1;
}

int fs_field_key_valid(const char *key) {
    if (!key || !(key[0] >= 'a' && key[0] <= 'z'))
        return 0;
    apr_size_t n = 1;
    for (const char *c = key + 1; *c; c++, n++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_'))
            return 0;
    return n <= FS_FIELD_KEY_MAX;
}

static int is_string_type(int t) {
    return t == FS_FT_TEXT || t == FS_FT_TEXTAREA || t == FS_FT_EMAIL || t == FS_FT_URL ||
           t == FS_FT_TEL || t == FS_FT_HIDDEN;
}

static const char *at(apr_pool_t *p, const char *ptr, const char *member) {
    return apr_pstrcat(p, ptr, "/", member, NULL);
}

/* An integer member within [lo, hi]; 1 on success. */
static int int_member(apr_pool_t *p, json_object *v, const char *ptr, const char *name,
                      long long lo, long long hi, long long *out, fs_error *verr) {
    if (!json_object_is_type(v, json_type_int)) {
        fs_error_add(p, verr, ptr, "type", "%s must be an integer, not %s.", name,
                     fs_json_type_name(v));
        return 0;
    }
    long long x = json_object_get_int64(v);
    if (x < lo || x > hi) {
        fs_error_add(p, verr, ptr, x < lo ? "minimum" : "maximum",
                     "%s must be from %" APR_INT64_T_FMT " to %" APR_INT64_T_FMT ".", name,
                     (apr_int64_t)lo, (apr_int64_t)hi);
        return 0;
    }
    *out = x;
    return 1;
}

/* A number member (integer or decimal, finite, within +-2^53 for
 * integers); 1 on success. */
static int num_member(apr_pool_t *p, json_object *v, const char *ptr, const char *name, int integer,
                      double *out, fs_error *verr) {
    if (json_object_is_type(v, json_type_int)) {
        long long x = json_object_get_int64(v);
        if (x > FS_SAFE_INTEGER || x < -FS_SAFE_INTEGER) {
            fs_error_add(p, verr, ptr, x > 0 ? "maximum" : "minimum",
                         "%s must lie within +-9007199254740991.", name);
            return 0;
        }
        *out = (double)x;
        return 1;
    }
    if (json_object_is_type(v, json_type_double) && !integer) {
        double d = json_object_get_double(v);
        if (!isfinite(d) || fabs(d) > 1e300) {
            fs_error_add(p, verr, ptr, "maximum", "%s is out of range.", name);
            return 0;
        }
        *out = d;
        return 1;
    }
    fs_error_add(p, verr, ptr, "type", "%s must be %s, not %s.", name,
                 integer ? "an integer" : "a number", fs_json_type_name(v));
    return 0;
}

static int is_bool(json_object *v) {
    return json_object_is_type(v, json_type_boolean);
}

/* options of a select or multiselect: [{value, label?}] or strings. */
static json_object *parse_options(apr_pool_t *p, json_object *v, const char *ptr, fs_error *verr) {
    if (!json_object_is_type(v, json_type_array)) {
        fs_error_add(p, verr, ptr, "type", "options must be an array, not %s.",
                     fs_json_type_name(v));
        return NULL;
    }
    size_t n = json_object_array_length(v);
    if (n < 1) {
        fs_error_add(p, verr, ptr, "minItems", "options needs at least one option.");
        return NULL;
    }
    if (n > FS_OPTIONS_MAX) {
        fs_error_add(p, verr, ptr, "maxItems",
                     "options takes at most %d options (%" APR_SIZE_T_FMT " given).",
                     FS_OPTIONS_MAX, n);
        return NULL;
    }
    int ok = 1;
    json_object *out = json_object_new_array();
    apr_hash_t *seen = apr_hash_make(p);
    for (size_t i = 0; i < n; i++) {
        json_object *it = json_object_array_get_idx(v, i);
        const char *ip = apr_psprintf(p, "%s/%" APR_SIZE_T_FMT "", ptr, i);
        const char *value = NULL, *label = NULL;
        const char *vptr = ip;
        json_object *score = NULL;
        if (json_object_is_type(it, json_type_string)) {
            value = label = fs_json_text(p, it, ip, "An option", 1, FS_LABEL_MAX, 0, verr);
        } else if (json_object_is_type(it, json_type_object)) {
            json_object_object_foreach(it, k, mv) {
                (void)mv;
                if (strcmp(k, "value") && strcmp(k, "label") && strcmp(k, "score")) {
                    fs_error_add(p, verr, fs_json_pointer(p, ip, k), "unknown",
                                 "Unknown member; an option has value, label and score.");
                    ok = 0;
                }
            }
            json_object *vv = fs_json_get(it, "value"), *lv = fs_json_get(it, "label");
            json_object *sv = fs_json_get(it, "score"); /* a quiz's (fs_scores.h) */
            if (sv && !json_object_is_type(sv, json_type_null) &&
                !(score = fs_option_score_parse(p, sv, at(p, ip, "score"), verr)))
                ok = 0;
            vptr = at(p, ip, "value");
            if (!vv)
                fs_error_add(p, verr, vptr, "required", "An option needs a value.");
            else
                value = fs_json_text(p, vv, vptr, "value", 1, FS_LABEL_MAX, 0, verr);
            if (lv && !json_object_is_type(lv, json_type_null))
                label = fs_json_text(p, lv, at(p, ip, "label"), "label", 1, FS_LABEL_MAX, 0, verr);
            else
                label = value;
            if (lv && !json_object_is_type(lv, json_type_null) && !label)
                ok = 0;
        } else {
            fs_error_add(p, verr, ip, "type",
                         "An option is an object {value, label} or a string, not %s.",
                         fs_json_type_name(it));
        }
        if (!value) {
            json_object_put(score);
            ok = 0;
            continue;
        }
        if (apr_hash_get(seen, value, APR_HASH_KEY_STRING)) {
            json_object_put(score);
            fs_error_add(p, verr, vptr, "unique",
                         "Option values must be unique; \"%s\" is "
                         "already option %s.",
                         value, (const char *)apr_hash_get(seen, value, APR_HASH_KEY_STRING));
            ok = 0;
            continue;
        }
        apr_hash_set(seen, value, APR_HASH_KEY_STRING, apr_psprintf(p, "%" APR_SIZE_T_FMT "", i));
        if (!label) {
            json_object_put(score);
            continue;
        }
        json_object *o = json_object_new_object();
        json_object_object_add(o, "value", json_object_new_string(value));
        json_object_object_add(o, "label", json_object_new_string(label));
        if (score) /* only when set: options without it read as before */
            json_object_object_add(o, "score", score);
        json_object_array_add(out, o);
    }
    if (!ok) {
        json_object_put(out);
        return NULL;
    }
    return out;
}

/* Which validation members each type takes. */
static int takes(int t, const char *m) {
    if ((!strcmp(m, "minimum") || !strcmp(m, "maximum")) && fs_bound_kind(TYPE_NAMES[t]))
        return 1;
    if (!strcmp(m, "minLength") || !strcmp(m, "maxLength") || !strcmp(m, "pattern"))
        return is_string_type(t);
    if (!strcmp(m, "minimum"))
        return t == FS_FT_NUMBER || t == FS_FT_INTEGER;
    if (!strcmp(m, "maximum"))
        return t == FS_FT_NUMBER || t == FS_FT_INTEGER || t == FS_FT_RATING;
    if (!strcmp(m, "minItems") || !strcmp(m, "maxItems"))
        return t == FS_FT_MULTISELECT;
    if (!strcmp(m, "maxSize") || !strcmp(m, "maxFiles") || !strcmp(m, "accept"))
        return t == FS_FT_FILE;
    return -1; /* not a validation member at all */
}

/* A pair of count bounds (minLength/maxLength, minItems/maxItems; -1 when
 * not given) in order: 1, or 0 after adding an item at ptr/min_name. */
static int counts_ordered(apr_pool_t *p, const char *ptr, const char *min_name, long long min,
                          const char *max_name, long long max, fs_error *verr) {
    if (min < 0 || max < 0 || min <= max)
        return 1;
    fs_error_add(p, verr, at(p, ptr, min_name), "maximum",
                 "%s (%" APR_INT64_T_FMT ") is greater than %s (%" APR_INT64_T_FMT ").", min_name,
                 (apr_int64_t)min, max_name, (apr_int64_t)max);
    return 0;
}

/* accept of a file field: 1 to FS_FILE_ACCEPT_MAX entries, each a media
 * type ("image/png", "image/ *" without the space) or a file name extension (".csv"), kept
 * in lower case. A new array owned by the caller, or NULL after errors. */
static json_object *parse_accept(apr_pool_t *p, json_object *v, const char *ptr, fs_error *verr) {
    if (!json_object_is_type(v, json_type_array) || json_object_array_length(v) < 1 ||
        json_object_array_length(v) > FS_FILE_ACCEPT_MAX) {
        fs_error_add(p, verr, ptr, "type",
                     "accept is an array of 1 to %d media types or extensions.",
                     FS_FILE_ACCEPT_MAX);
        return NULL;
    }
    json_object *out = json_object_new_array();
    for (size_t i = 0; i < json_object_array_length(v); i++) {
        json_object *it = json_object_array_get_idx(v, i);
        const char *ip = apr_psprintf(p, "%s/%lu", ptr, (unsigned long)i);
        const char *s =
            it && json_object_is_type(it, json_type_string) ? json_object_get_string(it) : NULL;
        if (!s || !fs_file_accept_entry_valid(s)) {
            fs_error_add(p, verr, ip, "format",
                         "Each accept entry is a media type such as image/png or image/*, or an "
                         "extension such as .csv.");
            json_object_put(out);
            return NULL;
        }
        char *low = apr_pstrdup(p, s);
        for (char *c = low; *c; c++)
            *c = (char)apr_tolower(*c);
        json_object_array_add(out, json_object_new_string(low));
    }
    return out;
}

static json_object *parse_validation(apr_pool_t *p, json_object *v, int t, int required,
                                     int n_options, const char *ptr, fs_error *verr) {
    json_object *out = json_object_new_object();
    int ok = 1;
    if (v && !json_object_is_type(v, json_type_null) && !json_object_is_type(v, json_type_object)) {
        fs_error_add(p, verr, ptr, "type", "validation must be an object, not %s.",
                     fs_json_type_name(v));
        json_object_put(out);
        return NULL;
    }
    long long minl = -1, maxl = -1, mini = -1, maxi = -1;
    double minv = 0, maxv = 0;
    int has_minv = 0, has_maxv = 0;
    const char *min_text = NULL, *max_text = NULL; /* bounds of dates and times */
    if (v && json_object_is_type(v, json_type_object)) {
        json_object_object_foreach(v, k, mv) {
            const char *mp = fs_json_pointer(p, ptr, k);
            int tk = takes(t, k);
            if (tk < 0) {
                fs_error_add(p, verr, mp, "unknown",
                             "Unknown member; validation takes minLength, maxLength, pattern, "
                             "minimum, maximum, minItems, maxItems, maxSize, maxFiles, accept.");
                ok = 0;
                continue;
            }
            if (!tk) {
                fs_error_add(p, verr, mp, "unknown", "%s does not apply to %s fields.", k,
                             TYPE_NAMES[t]);
                ok = 0;
                continue;
            }
            if (json_object_is_type(mv, json_type_null))
                continue; /* null: no bound */
            if (!strcmp(k, "minLength") || !strcmp(k, "maxLength")) {
                long long x;
                if (!int_member(p, mv, mp, k, 0, FS_LENGTH_MAX, &x, verr)) {
                    ok = 0;
                    continue;
                }
                *(k[1] == 'i' ? &minl : &maxl) = x;
                json_object_object_add(out, k, json_object_new_int64(x));
            } else if (!strcmp(k, "minItems") || !strcmp(k, "maxItems")) {
                long long x;
                if (!int_member(p, mv, mp, k, 0, FS_OPTIONS_MAX, &x, verr)) {
                    ok = 0;
                    continue;
                }
                *(k[1] == 'i' ? &mini : &maxi) = x;
                json_object_object_add(out, k, json_object_new_int64(x));
            } else if (!strcmp(k, "maxSize") || !strcmp(k, "maxFiles")) {
                long long x;
                int size = !strcmp(k, "maxSize");
                if (!int_member(p, mv, mp, k, 1,
                                size ? FS_FILE_MAX_SIZE_LIMIT : FS_FILE_MAX_FILES_LIMIT, &x,
                                verr)) {
                    ok = 0;
                    continue;
                }
                json_object_object_add(out, k, json_object_new_int64(x));
            } else if (!strcmp(k, "accept")) {
                json_object *acc = parse_accept(p, mv, mp, verr);
                if (!acc) {
                    ok = 0;
                    continue;
                }
                json_object_object_add(out, k, acc);
            } else if (!strcmp(k, "pattern")) {
                const char *pat =
                    fs_json_text(p, mv, mp, "pattern", 1, FS_REGEX_MAX_PATTERN, 0, verr);
                if (!pat) {
                    ok = 0;
                    continue;
                }
                const char *err;
                fs_regex *re = fs_regex_compile(p, pat, &err);
                if (!re) {
                    fs_error_add(p, verr, mp, "pattern", "%s", err);
                    ok = 0;
                    continue;
                }
                if (fs_regex_pathological(re)) {
                    fs_error_add(p, verr, mp, "pattern",
                                 "The pattern backtracks catastrophically (it can take "
                                 "exponential time on some inputs); rewrite it without nested "
                                 "or overlapping repetition.");
                    ok = 0;
                    continue;
                }
                json_object_object_add(out, k, json_object_new_string(pat));
            } else if (fs_bound_kind(TYPE_NAMES[t])) { /* a date, date-time or time */
                const char *bound =
                    fs_bound_parse(p, fs_bound_kind(TYPE_NAMES[t]), TYPE_NAMES[t], mv, mp, k, verr);
                if (!bound) {
                    ok = 0;
                    continue;
                }
                *(k[1] == 'i' ? &min_text : &max_text) = bound;
                json_object_object_add(out, k, json_object_new_string(bound));
            } else if (t == FS_FT_RATING) { /* maximum of a rating */
                long long x;
                if (!int_member(p, mv, mp, k, FS_RATING_MAX_MIN, FS_RATING_MAX_MAX, &x, verr)) {
                    ok = 0;
                    continue;
                }
                json_object_object_add(out, k, json_object_new_int64(x));
            } else { /* minimum / maximum of a number or integer */
                double d;
                if (!num_member(p, mv, mp, k, t == FS_FT_INTEGER, &d, verr)) {
                    ok = 0;
                    continue;
                }
                if (!strcmp(k, "minimum")) {
                    minv = d;
                    has_minv = 1;
                } else {
                    maxv = d;
                    has_maxv = 1;
                }
                json_object_object_add(out, k, json_object_get(mv));
            }
        }
    }
    if (t == FS_FT_RATING && !fs_json_get(out, "maximum"))
        json_object_object_add(out, "maximum", json_object_new_int(FS_RATING_DEFAULT));
    /* a format's own ceiling: an answer longer is never a valid address */
    long long ceiling = t == FS_FT_EMAIL ? FS_EMAIL_MAX : t == FS_FT_URL ? FS_URL_MAX : -1;
    if (ceiling >= 0 && maxl > ceiling) {
        fs_error_add(p, verr, at(p, ptr, "maxLength"), "maximum",
                     "maxLength of %s fields is at most %" APR_INT64_T_FMT
                     " (the longest valid answer).",
                     TYPE_NAMES[t], (apr_int64_t)ceiling);
        ok = 0;
    }
    /* contradictions */
    ok &= counts_ordered(p, ptr, "minLength", minl, "maxLength", maxl, verr);
    if (required && maxl == 0) {
        fs_error_add(p, verr, at(p, ptr, "maxLength"), "minimum",
                     "A required field cannot have maxLength 0: no answer could be given.");
        ok = 0;
    }
    if (min_text && max_text &&
        fs_bound_cmp(fs_bound_kind(TYPE_NAMES[t]), min_text, max_text) > 0) {
        fs_error_add(p, verr, at(p, ptr, "minimum"), "maximum", "minimum is later than maximum.");
        ok = 0;
    }
    if (has_minv && has_maxv && minv > maxv) {
        fs_error_add(p, verr, at(p, ptr, "minimum"), "maximum", "minimum is greater than maximum.");
        ok = 0;
    }
    ok &= counts_ordered(p, ptr, "minItems", mini, "maxItems", maxi, verr);
    if (mini > 0 && n_options > 0 && mini > n_options) {
        fs_error_add(p, verr, at(p, ptr, "minItems"), "maximum",
                     "minItems (%" APR_INT64_T_FMT ") is greater than the number of options (%d).",
                     (apr_int64_t)mini, n_options);
        ok = 0;
    }
    if (required && maxi == 0) {
        fs_error_add(p, verr, at(p, ptr, "maxItems"), "minimum",
                     "A required multiselect cannot have maxItems 0.");
        ok = 0;
    }
    if (!ok) {
        json_object_put(out);
        return NULL;
    }
    return out;
}

json_object *fs_field_parse(apr_pool_t *p, json_object *def, const char *id, const char *ptr,
                            fs_error *verr) {
    int before = verr->errors ? verr->errors->nelts : 0;
    if (!def || !json_object_is_type(def, json_type_object)) {
        fs_error_add(p, verr, ptr, "type", "A field is an object, not %s.",
                     def ? fs_json_type_name(def) : "null");
        return NULL;
    }
    static const char *const allowed[] = {"id",          "key",       "type",        "label",
                                          "description", "required",  "placeholder", "options",
                                          "validation",  "visibleIf", "position",    "timeZone",
                                          "requiredIf",  "correct",   NULL};
    json_object_object_foreach(def, k, mv) {
        (void)mv;
        int ok = 0;
        for (const char *const *a = allowed; *a; a++)
            ok |= !strcmp(*a, k);
        for (const char *const *a = FS_CHOICE_MEMBERS; *a; a++)
            ok |= !strcmp(*a, k);
        if (!ok)
            fs_error_add(p, verr, fs_json_pointer(p, ptr, k), "unknown", "Unknown member.");
    }
    /* key */
    json_object *kv = fs_json_get(def, "key");
    const char *key = NULL;
    if (!kv)
        fs_error_add(p, verr, at(p, ptr, "key"), "required", "key is required.");
    else if (!json_object_is_type(kv, json_type_string))
        fs_error_add(p, verr, at(p, ptr, "key"), "type", "key must be a string.");
    else if (!fs_field_key_valid(json_object_get_string(kv)))
        fs_error_add(p, verr, at(p, ptr, "key"), "pattern",
                     "key must match ^[a-z][a-z0-9_]{0,63}$ (it is the member name in "
                     "submissions).");
    else
        key = json_object_get_string(kv);
    /* type */
    json_object *tv = fs_json_get(def, "type");
    int t = -1;
    if (!tv)
        fs_error_add(p, verr, at(p, ptr, "type"), "required", "type is required.");
    else if (!json_object_is_type(tv, json_type_string))
        fs_error_add(p, verr, at(p, ptr, "type"), "type", "type must be a string.");
    else if ((t = fs_field_type_of(json_object_get_string(tv))) < 0)
        fs_error_add(p, verr, at(p, ptr, "type"), "enum",
                     "type is one of text, textarea, email, url, tel, number, integer, "
                     "boolean, date, datetime, select, multiselect, rating, hidden, file, page, "
                     "address, daterange, time, signature, scale, matrix, ranking, consent.");
    /* label: required but for hidden fields, which default to the key */
    json_object *lv = fs_json_get(def, "label");
    const char *label = NULL;
    if (lv && !json_object_is_type(lv, json_type_null))
        label = fs_json_text(p, lv, at(p, ptr, "label"), "label", 1, FS_LABEL_MAX, 0, verr);
    else if (t == FS_FT_HIDDEN)
        label = key;
    else
        fs_error_add(p, verr, at(p, ptr, "label"), "required", "label is required.");
    /* description, placeholder */
    json_object *dv = fs_json_get(def, "description");
    const char *description = NULL;
    if (dv && !json_object_is_type(dv, json_type_null))
        description = fs_json_text(p, dv, at(p, ptr, "description"), "description", 0,
                                   FS_FIELD_DESCRIPTION_MAX, 1, verr);
    json_object *pv = fs_json_get(def, "placeholder");
    const char *placeholder = NULL;
    if (pv && !json_object_is_type(pv, json_type_null)) {
        if (t == FS_FT_BOOLEAN || t == FS_FT_SELECT || t == FS_FT_MULTISELECT || t == FS_FT_FILE ||
            t == FS_FT_RATING || t == FS_FT_HIDDEN || t == FS_FT_PAGE || t == FS_FT_ADDRESS ||
            t == FS_FT_DATERANGE || fs_choice_no_placeholder(t))
            fs_error_add(p, verr, at(p, ptr, "placeholder"), "unknown",
                         "placeholder does not apply to %s fields.", TYPE_NAMES[t]);
        else
            placeholder = fs_json_text(p, pv, at(p, ptr, "placeholder"), "placeholder", 0,
                                       FS_PLACEHOLDER_MAX, 0, verr);
    }
    /* required */
    json_object *rv = fs_json_get(def, "required");
    int required = 0;
    if (rv && !json_object_is_type(rv, json_type_null)) {
        if (!is_bool(rv))
            fs_error_add(p, verr, at(p, ptr, "required"), "type", "required must be a boolean.");
        else if (t == FS_FT_PAGE && json_object_get_boolean(rv))
            fs_error_add(p, verr, at(p, ptr, "required"), "unknown",
                         "A page field takes no answer, so it cannot be required.");
        else
            required = json_object_get_boolean(rv);
    }
    /* position and id: read-only here, but typed */
    json_object *posv = fs_json_get(def, "position");
    if (posv && !json_object_is_type(posv, json_type_null) &&
        !json_object_is_type(posv, json_type_int))
        fs_error_add(p, verr, at(p, ptr, "position"), "type", "position must be an integer.");
    json_object *idv = fs_json_get(def, "id");
    if (idv && !json_object_is_type(idv, json_type_null) &&
        !json_object_is_type(idv, json_type_string))
        fs_error_add(p, verr, at(p, ptr, "id"), "type", "id must be a string.");
    /* options */
    json_object *ov = fs_json_get(def, "options"), *options = NULL;
    int has_options = ov && !json_object_is_type(ov, json_type_null);
    if (t == FS_FT_SELECT || t == FS_FT_MULTISELECT || t == FS_FT_RANKING) {
        if (!has_options)
            fs_error_add(p, verr, at(p, ptr, "options"), "required",
                         "A %s field needs options (1 to %d).", TYPE_NAMES[t], FS_OPTIONS_MAX);
        else
            options = parse_options(p, ov, at(p, ptr, "options"), verr);
    } else if (has_options && t >= 0) {
        fs_error_add(p, verr, at(p, ptr, "options"), "unknown",
                     "options apply only to select, multiselect and ranking fields.");
    }
    /* validation */
    json_object *validation = NULL;
    if (t >= 0)
        validation = parse_validation(p, fs_json_get(def, "validation"), t, required,
                                      options ? (int)json_object_array_length(options) : 0,
                                      at(p, ptr, "validation"), verr);
    /* visibleIf */
    json_object *vv = fs_json_get(def, "visibleIf"), *visible_if = NULL;
    if (vv && !json_object_is_type(vv, json_type_null) && t == FS_FT_PAGE)
        fs_error_add(p, verr, at(p, ptr, "visibleIf"), "unknown",
                     "visibleIf does not apply to page fields: a page is shown when one of its "
                     "questions applies.");
    else if (vv && !json_object_is_type(vv, json_type_null))
        visible_if = fs_cond_parse(p, vv, at(p, ptr, "visibleIf"), verr);
    /* requiredIf: only where required can be said */
    json_object *qv = fs_json_get(def, "requiredIf"), *required_if = NULL;
    if (qv && !json_object_is_type(qv, json_type_null)) {
        if (t == FS_FT_PAGE || t == FS_FT_HIDDEN)
            fs_error_add(p, verr, at(p, ptr, "requiredIf"), "unknown",
                         "requiredIf does not apply to %s fields.", TYPE_NAMES[t]);
        else if (required)
            fs_error_add(p, verr, at(p, ptr, "requiredIf"), "unknown",
                         "A required field needs no requiredIf: leave one of the two out.");
        else
            required_if = fs_cond_parse(p, qv, at(p, ptr, "requiredIf"), verr);
    }

    /* timeZone: datetime fields only */
    json_object *zv = fs_json_get(def, "timeZone");
    const char *time_zone = NULL;
    if (zv && !json_object_is_type(zv, json_type_null)) {
        if (t >= 0 && t != FS_FT_DATETIME)
            fs_error_add(p, verr, at(p, ptr, "timeZone"), "unknown",
                         "timeZone applies only to datetime fields.");
        else if (!json_object_is_type(zv, json_type_string))
            fs_error_add(p, verr, at(p, ptr, "timeZone"), "type", "timeZone must be a string.");
        else if (!fs_tz_load(p, NULL, json_object_get_string(zv)))
            fs_error_add(p, verr, at(p, ptr, "timeZone"), "format",
                         "timeZone must be an IANA time zone name this server knows, such as "
                         "Europe/Berlin or UTC.");
        else
            time_zone = json_object_get_string(zv);
    }

    /* the members of scale, matrix, ranking, consent and allowOther */
    json_object *extra = json_object_new_object();
    fs_choice_parse(p, def, t, options, &required, ptr, extra, verr);

    /* correct: a quiz's right answer (fs_scores.h) */
    json_object *cv = fs_json_get(def, "correct"), *correct = NULL;
    if (cv && !json_object_is_type(cv, json_type_null) && t >= 0 && validation) {
        json_object *target = json_object_new_object();
        json_object_object_add(target, "type", json_object_new_string(TYPE_NAMES[t]));
        json_object_object_add(target, "options", json_object_get(options));
        json_object_object_add(target, "validation", json_object_get(validation));
        json_object_object_foreach(extra, ek, ev) /* a scale's from and to */
            json_object_object_add(target, ek, json_object_get(ev));
        correct = fs_correct_parse(p, cv, target, at(p, ptr, "correct"), verr);
        json_object_put(target);
    }

    int after = verr->errors ? verr->errors->nelts : 0;
    if (after > before || t < 0 || !key || !label || !validation) {
        json_object_put(correct);
        json_object_put(extra);
        json_object_put(options);
        json_object_put(validation);
        json_object_put(visible_if);
        json_object_put(required_if);
        return NULL;
    }
    json_object *f = json_object_new_object();
    json_object_object_add(f, "id", id ? json_object_new_string(id) : NULL);
    json_object_object_add(f, "key", json_object_new_string(key));
    json_object_object_add(f, "type", json_object_new_string(TYPE_NAMES[t]));
    json_object_object_add(f, "label", json_object_new_string(label));
    json_object_object_add(f, "description",
                           description ? json_object_new_string(description) : NULL);
    json_object_object_add(f, "required", json_object_new_boolean(required));
    json_object_object_add(f, "placeholder",
                           placeholder ? json_object_new_string(placeholder) : NULL);
    json_object_object_add(f, "options", options);
    json_object_object_add(f, "validation", validation);
    json_object_object_add(f, "visibleIf", visible_if);
    json_object_object_add(f, "position", json_object_new_int(0));
    if (required_if) /* only when set: fields without it read as before */
        json_object_object_add(f, "requiredIf", required_if);
    if (time_zone) /* only when set: fields without it read as before */
        json_object_object_add(f, "timeZone", json_object_new_string(time_zone));
    if (correct) /* only when set: fields without it read as before */
        json_object_object_add(f, "correct", correct);
    json_object_object_foreach(extra, xk, xv) /* only when set, as above */
        json_object_object_add(f, xk, json_object_get(xv));
    json_object_put(extra);
    return f;
}

int fs_field_value_fits(json_object *target, json_object *v) {
    int t = fs_field_type_of(json_object_get_string(fs_json_get(target, "type")));
    int fits = fs_choice_value_fits(target, v);
    if (fits >= 0)
        return fits;
    switch (t) {
    case FS_FT_BOOLEAN: return is_bool(v);
    case FS_FT_NUMBER:
        return json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double);
    case FS_FT_INTEGER: return json_object_is_type(v, json_type_int);
    case FS_FT_RATING: {
        if (!json_object_is_type(v, json_type_int))
            return 0;
        long long x = json_object_get_int64(v);
        long long max =
            json_object_get_int64(fs_json_get(fs_json_get(target, "validation"), "maximum"));
        return x >= 1 && x <= max;
    }
    case FS_FT_SELECT: {
        if (!json_object_is_type(v, json_type_string))
            return 0;
        json_object *opts = fs_json_get(target, "options");
        for (size_t i = 0; i < json_object_array_length(opts); i++)
            if (!strcmp(json_object_get_string(
                            fs_json_get(json_object_array_get_idx(opts, i), "value")),
                        json_object_get_string(v)))
                return 1;
        return 0;
    }
    case FS_FT_MULTISELECT:
    case FS_FT_FILE:
    case FS_FT_PAGE:
    case FS_FT_ADDRESS:
    case FS_FT_DATERANGE:
    case FS_FT_SIGNATURE: return 0;
    default: return json_object_is_type(v, json_type_string);
    }
}

int fs_fields_check(apr_pool_t *p, json_object *list, const char *const *ptrs, const char *fallback,
                    fs_error *verr) {
    size_t n = json_object_array_length(list);
    int ok = 1;
    apr_hash_t *index = apr_hash_make(p); /* key -> position+1 */
    for (size_t i = 0; i < n; i++) {
        json_object *f = json_object_array_get_idx(list, i);
        json_object_object_add(f, "position", json_object_new_int((int)i));
        const char *key = json_object_get_string(fs_json_get(f, "key"));
        const char *base = ptrs && ptrs[i] ? ptrs[i] : NULL;
        apr_uintptr_t first = (apr_uintptr_t)apr_hash_get(index, key, APR_HASH_KEY_STRING);
        if (first) {
            /* blame the copy the request sent (it may come first) */
            if (!base && ptrs && ptrs[first - 1])
                base = ptrs[first - 1];
            if (base)
                fs_error_add(p, verr, at(p, base, "key"), "unique",
                             "key \"%s\" is already used by another field of this form.", key);
            else
                fs_error_add(p, verr, fallback, "unique",
                             "key \"%s\" is already used by another field of this form.", key);
            ok = 0;
            continue;
        }
        apr_hash_set(index, key, APR_HASH_KEY_STRING, (void *)(apr_uintptr_t)(i + 1));
    }
    /* file fields are on the last page: a browser cannot be given a chosen
     * file back, so it cannot be carried from one page to the next */
    for (size_t i = 0, file = n; i < n; i++) {
        const char *t =
            json_object_get_string(fs_json_get(json_object_array_get_idx(list, i), "type"));
        if (!t) {
            continue;
        } else if (!strcmp(t, "file")) {
            file = i;
        } else if (!strcmp(t, "page") && file < n) {
            const char *base = ptrs && ptrs[i] ? ptrs[i] : ptrs && ptrs[file] ? ptrs[file] : NULL;
            fs_error_add(
                p, verr, base ? at(p, base, "type") : fallback, "enum",
                "A file field (\"%s\") must be on the form's last page: no page field "
                "may come after it.",
                json_object_get_string(fs_json_get(json_object_array_get_idx(list, file), "key")));
            ok = 0;
            break;
        }
    }
    /* conditions: visibleIf (the one-field shorthand may name any other
     * field, as it always could; the grammar of several only earlier
     * ones) and requiredIf (earlier ones) */
    static const char *const conds[] = {"visibleIf", "requiredIf"};
    for (size_t i = 0; i < n; i++) {
        json_object *f = json_object_array_get_idx(list, i);
        const char *key = json_object_get_string(fs_json_get(f, "key"));
        for (int c = 0; c < 2; c++) {
            json_object *cv = fs_json_get(f, conds[c]);
            if (!cv || json_object_is_type(cv, json_type_null))
                continue;
            const char *base = ptrs && ptrs[i] ? at(p, ptrs[i], conds[c]) : NULL;
            fs_cond_scope sc = {list,
                                index,
                                c == 0 && fs_cond_is_shorthand(cv) ? -1 : (int)i,
                                key,
                                conds[c],
                                apr_psprintf(p, " (in the %s of field \"%s\")", conds[c], key),
                                fs_field_value_fits};
            if (!fs_cond_check(p, cv, &sc, base, fallback, verr))
                ok = 0;
        }
    }
    if (!ok)
        return 0;
    /* cycles (through the shorthand, which may name a later field): take
     * away fields whose conditions name only fields taken away; what
     * remains depends on itself */
    char *gone = apr_pcalloc(p, n + 1);
    apr_array_header_t **deps = apr_pcalloc(p, sizeof(*deps) * (n + 1));
    for (size_t i = 0; i < n; i++) {
        json_object *f = json_object_array_get_idx(list, i);
        deps[i] = apr_array_make(p, 4, sizeof(const char *));
        for (int c = 0; c < 2; c++)
            fs_cond_keys(fs_json_get(f, conds[c]), deps[i]);
    }
    for (int changed = 1; changed;) {
        changed = 0;
        for (size_t i = 0; i < n; i++) {
            if (gone[i])
                continue;
            int free_ = 1;
            for (int k = 0; k < deps[i]->nelts && free_; k++) {
                apr_uintptr_t ti = (apr_uintptr_t)apr_hash_get(
                    index, APR_ARRAY_IDX(deps[i], k, const char *), APR_HASH_KEY_STRING);
                free_ = !ti || gone[ti - 1];
            }
            if (free_)
                gone[i] = changed = 1;
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (gone[i])
            continue;
        const char *base = ptrs && ptrs[i] ? ptrs[i] : NULL;
        fs_error_add(
            p, verr, base ? at(p, base, "visibleIf/field") : fallback, "enum",
            "visibleIf conditions form a cycle through field \"%s\".",
            json_object_get_string(fs_json_get(json_object_array_get_idx(list, i), "key")));
        return 0;
    }
    return 1;
}

const char *fs_fields_depending_on(apr_pool_t *p, json_object *list, const char *key) {
    static const char *const conds[] = {"visibleIf", "requiredIf"};
    for (size_t i = 0; key && i < json_object_array_length(list); i++) {
        json_object *f = json_object_array_get_idx(list, i);
        for (int c = 0; c < 2; c++) {
            apr_array_header_t *keys = apr_array_make(p, 4, sizeof(const char *));
            fs_cond_keys(fs_json_get(f, conds[c]), keys);
            for (int k = 0; k < keys->nelts; k++)
                if (!strcmp(APR_ARRAY_IDX(keys, k, const char *), key))
                    return apr_psprintf(p, "The %s of field \"%s\"", conds[c],
                                        json_object_get_string(fs_json_get(f, "key")));
        }
    }
    return NULL;
}

json_object *fs_json_copy(json_object *v) {
    json_object *out = NULL;
    if (!v)
        return NULL;
    if (json_object_deep_copy(v, &out, NULL) != 0)
        return NULL;
    return out;
}

json_object *fs_merge_patch(json_object *target, json_object *patch) {
    if (!patch || !json_object_is_type(patch, json_type_object))
        return fs_json_copy(patch);
    json_object *out = target && json_object_is_type(target, json_type_object)
                           ? fs_json_copy(target)
                           : json_object_new_object();
    json_object_object_foreach(patch, k, v) {
        if (!v || json_object_is_type(v, json_type_null)) {
            json_object_object_del(out, k);
            continue;
        }
        json_object *cur = fs_json_get(out, k);
        json_object_object_add(out, k, fs_merge_patch(cur, v));
    }
    return out;
}

json_object *fs_fields_parse(apr_pool_t *p, json_object *arr, const char *ptr, json_object *old,
                             fs_error *verr) {
    if (!json_object_is_type(arr, json_type_array)) {
        fs_error_add(p, verr, ptr, "type", "fields must be an array of field objects.");
        return NULL;
    }
    size_t n = json_object_array_length(arr);
    json_object *list = fs_json_own(p, json_object_new_array());
    const char **ptrs = apr_pcalloc(p, sizeof(char *) * (n + 1));
    apr_hash_t *used_ids = apr_hash_make(p);
    int ok = 1;
    for (size_t i = 0; i < n; i++) {
        json_object *def = json_object_array_get_idx(arr, i);
        const char *ip = apr_psprintf(p, "%s/%" APR_SIZE_T_FMT "", ptr, i);
        ptrs[i] = ip;
        const char *id = NULL;
        json_object *idv = fs_json_get(def, "id");
        if (old && idv && json_object_is_type(idv, json_type_string)) {
            const char *want = json_object_get_string(idv);
            for (size_t k = 0; k < json_object_array_length(old); k++)
                if (!strcmp(json_object_get_string(
                                fs_json_get(json_object_array_get_idx(old, k), "id")),
                            want))
                    id = want;
            if (!id) {
                fs_error_add(p, verr, apr_pstrcat(p, ip, "/id", NULL), "enum",
                             "id names no field of this form; leave it out for a new field.");
                ok = 0;
            } else if (apr_hash_get(used_ids, id, APR_HASH_KEY_STRING)) {
                fs_error_add(p, verr, apr_pstrcat(p, ip, "/id", NULL), "unique",
                             "The same field id appears twice.");
                ok = 0;
            } else {
                apr_hash_set(used_ids, id, APR_HASH_KEY_STRING, "");
            }
        }
        if (!id)
            id = fs_id_new(p, "fld_");
        json_object *f = fs_field_parse(p, def, id, ip, verr);
        if (!f) {
            ok = 0;
            continue;
        }
        json_object_array_add(list, f);
    }
    if (!ok)
        return NULL;
    if (!fs_fields_check(p, list, ptrs, ptr, verr))
        return NULL;
    return list;
}
