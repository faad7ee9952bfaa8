/* fs_field_choice_def: the definitions of scale, matrix, ranking, consent
 * and allowOther (fs_field_choice_def.h). */
#include "fs_field_choice_def.h"
#include "fs_json.h"

#include <apr_hash.h>
#include <apr_strings.h>
#include <string.h>

#define ADD(o, k, v) json_object_object_add((o), (k), (v))

const char *const FS_CHOICE_MEMBERS[] = {"from", "to",         "minLabel", "maxLabel",
                                         "rows", "columns",    "multiple", "text",
                                         "url",  "allowOther", NULL};

static const char *at(apr_pool_t *p, const char *ptr, const char *member) {
    return apr_pstrcat(p, ptr, "/", member, NULL);
}

static int given(json_object *v) {
    return v && !json_object_is_type(v, json_type_null);
}

/* Which type each member belongs to. */
static int member_applies(const char *k, int t) {
    if (!strcmp(k, "from") || !strcmp(k, "to") || !strcmp(k, "minLabel") || !strcmp(k, "maxLabel"))
        return t == FS_FT_SCALE;
    if (!strcmp(k, "rows") || !strcmp(k, "columns") || !strcmp(k, "multiple"))
        return t == FS_FT_MATRIX;
    if (!strcmp(k, "text") || !strcmp(k, "url"))
        return t == FS_FT_CONSENT;
    if (!strcmp(k, "allowOther"))
        return t == FS_FT_SELECT || t == FS_FT_MULTISELECT;
    return 1;
}

static int scale_end(apr_pool_t *p, json_object *v, const char *ptr, const char *name,
                     long long dflt, long long *out, fs_error *verr) {
    if (!given(v)) {
        *out = dflt;
        return 1;
    }
    if (!json_object_is_type(v, json_type_int)) {
        fs_error_add(p, verr, ptr, "type", "%s must be an integer, not %s.", name,
                     fs_json_type_name(v));
        return 0;
    }
    long long x = json_object_get_int64(v);
    if (x < -FS_SCALE_LIMIT || x > FS_SCALE_LIMIT) {
        fs_error_add(p, verr, ptr, x < 0 ? "minimum" : "maximum", "%s must be from %d to %d.", name,
                     -FS_SCALE_LIMIT, FS_SCALE_LIMIT);
        return 0;
    }
    *out = x;
    return 1;
}

/* rows [{key, label}] or columns [{value, label}]: 1..max items, keys
 * (field key syntax) or values (1..FS_LABEL_MAX characters) unique. A new
 * array owned by the caller, or NULL after errors. */
static json_object *parse_axis(apr_pool_t *p, json_object *v, const char *ptr, const char *id,
                               int max, fs_error *verr) {
    const char *what = !strcmp(id, "key") ? "rows" : "columns";
    if (!json_object_is_type(v, json_type_array) || json_object_array_length(v) < 1 ||
        json_object_array_length(v) > (size_t)max) {
        fs_error_add(p, verr, ptr, json_object_is_type(v, json_type_array) ? "maxItems" : "type",
                     "%s is an array of 1 to %d objects {%s, label}.", what, max, id);
        return NULL;
    }
    json_object *out = json_object_new_array();
    apr_hash_t *seen = apr_hash_make(p);
    int ok = 1;
    for (size_t i = 0; i < json_object_array_length(v); i++) {
        json_object *it = json_object_array_get_idx(v, i);
        const char *ip = apr_psprintf(p, "%s/%lu", ptr, (unsigned long)i);
        if (!json_object_is_type(it, json_type_object)) {
            fs_error_add(p, verr, ip, "type", "Each of %s is an object {%s, label}.", what, id);
            ok = 0;
            continue;
        }
        json_object_object_foreach(it, k, mv) {
            (void)mv;
            if (strcmp(k, id) && strcmp(k, "label")) {
                fs_error_add(p, verr, fs_json_pointer(p, ip, k), "unknown",
                             "Unknown member; each of %s has %s and label.", what, id);
                ok = 0;
            }
        }
        json_object *iv = fs_json_get(it, id), *lv = fs_json_get(it, "label");
        const char *name = NULL, *label = NULL;
        if (!iv) {
            fs_error_add(p, verr, at(p, ip, id), "required", "%s is required.", id);
        } else if (!strcmp(id, "key")) {
            if (!json_object_is_type(iv, json_type_string) ||
                !fs_field_key_valid(json_object_get_string(iv)))
                fs_error_add(p, verr, at(p, ip, id), "pattern",
                             "A row's key must match ^[a-z][a-z0-9_]{0,63}$ (it is the member "
                             "name in answers).");
            else
                name = json_object_get_string(iv);
        } else {
            name = fs_json_text(p, iv, at(p, ip, id), id, 1, FS_LABEL_MAX, 0, verr);
        }
        if (given(lv))
            label = fs_json_text(p, lv, at(p, ip, "label"), "label", 1, FS_LABEL_MAX, 0, verr);
        else if (!strcmp(id, "key"))
            fs_error_add(p, verr, at(p, ip, "label"), "required", "A row needs a label.");
        else
            label = name;
        if (!name || !label) {
            ok = 0;
            continue;
        }
        if (apr_hash_get(seen, name, APR_HASH_KEY_STRING)) {
            fs_error_add(p, verr, at(p, ip, id), "unique", "The %s \"%s\" is given twice.", id,
                         name);
            ok = 0;
            continue;
        }
        apr_hash_set(seen, name, APR_HASH_KEY_STRING, "");
        json_object *o = json_object_new_object();
        ADD(o, id, json_object_new_string(name));
        ADD(o, "label", json_object_new_string(label));
        json_object_array_add(out, o);
    }
    if (!ok) {
        json_object_put(out);
        return NULL;
    }
    return out;
}

/* An https URL without blanks, quotes or angle brackets. */
static int https_url(const char *s) {
    if (strncmp(s, "https://", 8) || !s[8] || s[8] == '/')
        return 0;
    for (const unsigned char *c = (const unsigned char *)s; *c; c++)
        if (*c <= ' ' || *c == '"' || *c == '<' || *c == '>' || *c == '\\' || *c == '`' ||
            *c == 0x7f)
            return 0;
    return 1;
}

int fs_choice_parse(apr_pool_t *p, json_object *def, int t, json_object *options, int *required,
                    const char *ptr, json_object *f, fs_error *verr) {
    int ok = 1;
    for (int i = 0; FS_CHOICE_MEMBERS[i]; i++) {
        json_object *v = fs_json_get(def, FS_CHOICE_MEMBERS[i]);
        if (given(v) && t >= 0 && !member_applies(FS_CHOICE_MEMBERS[i], t)) {
            fs_error_add(p, verr, at(p, ptr, FS_CHOICE_MEMBERS[i]), "unknown",
                         "%s does not apply to %s fields.", FS_CHOICE_MEMBERS[i],
                         fs_field_type_name(t));
            ok = 0;
        }
    }
    if (!ok || t < 0)
        return ok;
    switch (t) {
    case FS_FT_SCALE: {
        long long from, to;
        if (!scale_end(p, fs_json_get(def, "from"), at(p, ptr, "from"), "from", 1, &from, verr) ||
            !scale_end(p, fs_json_get(def, "to"), at(p, ptr, "to"), "to", 5, &to, verr))
            return 0;
        if (to <= from || to - from > FS_SCALE_STEPS_MAX) {
            fs_error_add(p, verr, at(p, ptr, "to"), to <= from ? "minimum" : "maximum",
                         "to must be greater than from, by at most %d.", FS_SCALE_STEPS_MAX);
            return 0;
        }
        ADD(f, "from", json_object_new_int64(from));
        ADD(f, "to", json_object_new_int64(to));
        static const char *const ends[] = {"minLabel", "maxLabel"};
        for (int i = 0; i < 2; i++) {
            json_object *v = fs_json_get(def, ends[i]);
            if (!given(v))
                continue;
            const char *s =
                fs_json_text(p, v, at(p, ptr, ends[i]), ends[i], 1, FS_LABEL_MAX, 0, verr);
            if (!s)
                ok = 0;
            else
                ADD(f, ends[i], json_object_new_string(s));
        }
        return ok;
    }
    case FS_FT_MATRIX: {
        json_object *rv = fs_json_get(def, "rows"), *cv = fs_json_get(def, "columns");
        json_object *mv = fs_json_get(def, "multiple");
        json_object *rows = NULL, *cols = NULL;
        if (!given(rv))
            fs_error_add(p, verr, at(p, ptr, "rows"), "required",
                         "A matrix field needs rows (1 to %d).", FS_MATRIX_ROWS_MAX);
        else
            rows = parse_axis(p, rv, at(p, ptr, "rows"), "key", FS_MATRIX_ROWS_MAX, verr);
        if (!given(cv))
            fs_error_add(p, verr, at(p, ptr, "columns"), "required",
                         "A matrix field needs columns (1 to %d).", FS_MATRIX_COLUMNS_MAX);
        else
            cols = parse_axis(p, cv, at(p, ptr, "columns"), "value", FS_MATRIX_COLUMNS_MAX, verr);
        int multiple = 0;
        if (given(mv) && !json_object_is_type(mv, json_type_boolean)) {
            fs_error_add(p, verr, at(p, ptr, "multiple"), "type", "multiple must be a boolean.");
            ok = 0;
        } else if (given(mv)) {
            multiple = json_object_get_boolean(mv);
        }
        if (!rows || !cols || !ok) {
            json_object_put(rows);
            json_object_put(cols);
            return 0;
        }
        ADD(f, "rows", rows);
        ADD(f, "columns", cols);
        ADD(f, "multiple", json_object_new_boolean(multiple));
        return 1;
    }
    case FS_FT_RANKING:
        if (options && json_object_array_length(options) > FS_RANKING_MAX) {
            fs_error_add(p, verr, at(p, ptr, "options"), "maxItems",
                         "A ranking takes at most %d options.", FS_RANKING_MAX);
            return 0;
        }
        if (options && json_object_array_length(options) < 2) {
            fs_error_add(p, verr, at(p, ptr, "options"), "minItems",
                         "A ranking needs at least 2 options.");
            return 0;
        }
        return 1;
    case FS_FT_CONSENT: {
        json_object *rq = fs_json_get(def, "required");
        if (given(rq) && json_object_is_type(rq, json_type_boolean) &&
            !json_object_get_boolean(rq)) {
            fs_error_add(p, verr, at(p, ptr, "required"), "enum",
                         "A consent field is always required (its box must be ticked).");
            ok = 0;
        }
        *required = 1;
        json_object *tv = fs_json_get(def, "text"), *uv = fs_json_get(def, "url");
        const char *text = NULL, *url = NULL;
        if (!given(tv))
            fs_error_add(p, verr, at(p, ptr, "text"), "required",
                         "A consent field needs the text the respondent agrees to.");
        else
            text = fs_json_text(p, tv, at(p, ptr, "text"), "text", 1, FS_CONSENT_TEXT_MAX, 1, verr);
        if (given(uv)) {
            url = fs_json_text(p, uv, at(p, ptr, "url"), "url", 1, FS_CONSENT_URL_MAX, 0, verr);
            if (url && !https_url(url)) {
                fs_error_add(p, verr, at(p, ptr, "url"), "format",
                             "url must be an https:// address without spaces, quotes or angle "
                             "brackets.");
                url = NULL;
                ok = 0;
            }
            if (!url)
                ok = 0;
        }
        if (!text || !ok)
            return 0;
        ADD(f, "text", json_object_new_string(text));
        if (url)
            ADD(f, "url", json_object_new_string(url));
        return 1;
    }
    case FS_FT_SELECT:
    case FS_FT_MULTISELECT: {
        json_object *av = fs_json_get(def, "allowOther");
        if (!given(av))
            return 1;
        if (!json_object_is_type(av, json_type_boolean)) {
            fs_error_add(p, verr, at(p, ptr, "allowOther"), "type",
                         "allowOther must be a boolean.");
            return 0;
        }
        if (!json_object_get_boolean(av))
            return 1;
        for (size_t i = 0; options && i < json_object_array_length(options); i++) {
            json_object *ov = fs_json_get(json_object_array_get_idx(options, i), "value");
            if (!strcmp(json_object_get_string(ov), FS_OTHER_VALUE)) {
                fs_error_add(p, verr,
                             apr_psprintf(p, "%s/options/%lu/value", ptr, (unsigned long)i), "enum",
                             "With allowOther, no option may have the value " FS_OTHER_VALUE
                             " (the page's Other choice).");
                return 0;
            }
        }
        ADD(f, "allowOther", json_object_new_boolean(1));
        return 1;
    }
    default: return 1;
    }
}

int fs_choice_no_placeholder(int t) {
    return t == FS_FT_SCALE || t == FS_FT_MATRIX || t == FS_FT_RANKING || t == FS_FT_CONSENT;
}

void fs_choice_scale_range(json_object *def, long long *from, long long *to) {
    json_object *a = fs_json_get(def, "from"), *b = fs_json_get(def, "to");
    *from = a && json_object_is_type(a, json_type_int) ? json_object_get_int64(a) : 1;
    *to = b && json_object_is_type(b, json_type_int) ? json_object_get_int64(b) : 5;
}

int fs_choice_value_fits(json_object *target, json_object *v) {
    int t = fs_field_type_of(json_object_get_string(fs_json_get(target, "type")));
    if (t == FS_FT_SCALE) {
        long long from, to;
        fs_choice_scale_range(target, &from, &to);
        if (!json_object_is_type(v, json_type_int))
            return 0;
        long long x = json_object_get_int64(v);
        return x >= from && x <= to;
    }
    if (t == FS_FT_CONSENT)
        return json_object_is_type(v, json_type_boolean);
    if (t == FS_FT_MATRIX || t == FS_FT_RANKING)
        return 0;
    return -1;
}
