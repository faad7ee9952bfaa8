/* fs_field_choice: scale, matrix, ranking, consent and the "other" choice
 * (fs_field_choice.h). Every check in fs_choice_check mirrors one keyword
 * of fs_choice_schema (see the comments), so that the server accepts
 * exactly what the published schema accepts. */
#include "fs_field_choice.h"
#include "fs_html.h"
#include "fs_json.h"

#include <apr_hash.h>
#include <apr_strings.h>
#include <math.h>
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

int fs_choice_allows_other(const fs_field *f) {
    json_object *v = fs_json_get(f->def, "allowOther");
    return (f->type == FS_FT_SELECT || f->type == FS_FT_MULTISELECT) && v &&
           json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v);
}

int fs_choice_field(const fs_field *f) {
    return fs_choice_no_placeholder(f->type) || fs_choice_allows_other(f);
}

int fs_choice_is_group(const fs_field *f) {
    return f->type == FS_FT_SCALE || f->type == FS_FT_MATRIX || f->type == FS_FT_RANKING;
}

/* from and to of a scale (stored; tolerated when missing: 1..5). */
static void scale_range(json_object *def, long long *from, long long *to) {
    json_object *a = fs_json_get(def, "from"), *b = fs_json_get(def, "to");
    *from = a && json_object_is_type(a, json_type_int) ? json_object_get_int64(a) : 1;
    *to = b && json_object_is_type(b, json_type_int) ? json_object_get_int64(b) : 5;
}

static json_object *array_of(json_object *v) {
    return v && json_object_is_type(v, json_type_array) ? v : NULL;
}

int fs_choice_value_fits(json_object *target, json_object *v) {
    int t = fs_field_type_of(json_object_get_string(fs_json_get(target, "type")));
    if (t == FS_FT_SCALE) {
        long long from, to;
        scale_range(target, &from, &to);
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

/* ---- schema ---- */

static json_object *values_of(json_object *list, const char *member) {
    json_object *arr = json_object_new_array();
    for (size_t i = 0; list && i < json_object_array_length(list); i++)
        json_object_array_add(
            arr, json_object_get(fs_json_get(json_object_array_get_idx(list, i), member)));
    return arr;
}

static json_object *other_object(void) {
    json_object *o = json_object_new_object(), *props = json_object_new_object();
    json_object *s = json_object_new_object(), *req = json_object_new_array();
    ADD(o, "type", json_object_new_string("object"));
    ADD(s, "type", json_object_new_string("string"));
    ADD(s, "minLength", json_object_new_int(1));
    ADD(s, "maxLength", json_object_new_int(FS_OTHER_MAX));
    ADD(props, "other", s);
    ADD(o, "properties", props);
    json_object_array_add(req, json_object_new_string("other"));
    ADD(o, "required", req);
    ADD(o, "additionalProperties", json_object_new_boolean(0));
    return o;
}

json_object *fs_choice_schema(const fs_field *f) {
    json_object *s = json_object_new_object();
    if (f->label)
        ADD(s, "title", json_object_new_string(f->label));
    if (f->description)
        ADD(s, "description", json_object_new_string(f->description));
    switch (f->type) {
    case FS_FT_SCALE: {
        long long from, to;
        scale_range(f->def, &from, &to);
        ADD(s, "type", json_object_new_string("integer"));
        ADD(s, "minimum", json_object_new_int64(from));
        ADD(s, "maximum", json_object_new_int64(to));
        break;
    }
    case FS_FT_MATRIX: {
        json_object *rows = array_of(fs_json_get(f->def, "rows"));
        json_object *cols = array_of(fs_json_get(f->def, "columns"));
        json_object *mv = fs_json_get(f->def, "multiple");
        int multiple = mv && json_object_get_boolean(mv);
        json_object *props = json_object_new_object(), *req = json_object_new_array();
        for (size_t i = 0; rows && i < json_object_array_length(rows); i++) {
            json_object *row = json_object_array_get_idx(rows, i);
            const char *k = json_object_get_string(fs_json_get(row, "key"));
            if (!k)
                continue;
            json_object *cell = json_object_new_object();
            ADD(cell, "title", json_object_get(fs_json_get(row, "label")));
            if (multiple) {
                json_object *items = json_object_new_object();
                ADD(cell, "type", json_object_new_string("array"));
                ADD(items, "enum", values_of(cols, "value"));
                ADD(cell, "items", items);
                ADD(cell, "uniqueItems", json_object_new_boolean(1));
                ADD(cell, "minItems", json_object_new_int(1));
            } else {
                ADD(cell, "enum", values_of(cols, "value"));
            }
            ADD(props, k, cell);
            if (f->required)
                json_object_array_add(req, json_object_new_string(k));
        }
        ADD(s, "type", json_object_new_string("object"));
        ADD(s, "properties", props);
        if (json_object_array_length(req))
            ADD(s, "required", req);
        else
            json_object_put(req);
        ADD(s, "additionalProperties", json_object_new_boolean(0));
        break;
    }
    case FS_FT_RANKING: {
        size_t n = f->options ? json_object_array_length(f->options) : 0;
        json_object *items = json_object_new_object();
        ADD(s, "type", json_object_new_string("array"));
        ADD(items, "enum", values_of(f->options, "value"));
        ADD(s, "items", items);
        ADD(s, "uniqueItems", json_object_new_boolean(1));
        ADD(s, "minItems", json_object_new_int64((long long)n));
        ADD(s, "maxItems", json_object_new_int64((long long)n));
        break;
    }
    case FS_FT_CONSENT:
        ADD(s, "type", json_object_new_string("boolean"));
        ADD(s, "const", json_object_new_boolean(1));
        break;
    default: json_object_put(s); return json_object_new_boolean(0);
    }
    return s;
}

json_object *fs_choice_schema_other(const fs_field *f, json_object *s) {
    if (!fs_choice_allows_other(f) || !json_object_is_type(s, json_type_object))
        return s;
    if (f->type == FS_FT_SELECT) { /* enum -> anyOf [{enum}, other] */
        json_object *en = fs_json_get(s, "enum"), *any = json_object_new_array();
        json_object *one = json_object_new_object();
        ADD(one, "enum", json_object_get(en));
        json_object_array_add(any, one);
        json_object_array_add(any, other_object());
        json_object_object_del(s, "enum");
        ADD(s, "anyOf", any);
        return s;
    }
    /* multiselect: items anyOf [{enum}, other], at most one other */
    json_object *items = fs_json_get(s, "items"), *any = json_object_new_array();
    json_object *one = json_object_new_object(), *nitems = json_object_new_object();
    ADD(one, "enum", json_object_get(fs_json_get(items, "enum")));
    json_object_array_add(any, one);
    json_object_array_add(any, other_object());
    ADD(nitems, "anyOf", any);
    ADD(s, "items", nitems);
    json_object *contains = json_object_new_object();
    ADD(contains, "type", json_object_new_string("object"));
    ADD(s, "contains", contains);
    ADD(s, "minContains", json_object_new_int(0));
    ADD(s, "maxContains", json_object_new_int(1));
    return s;
}

/* ---- validation ---- */

static const char *what(const fs_field *f) {
    return f->label && *f->label ? f->label : f->key;
}

static void add(apr_pool_t *p, fs_error *e, const char *ptr, const char *code, const char *msg,
                const fs_field *f, const char *n, const char *detail) {
    fs_error_add_msg(p, e, ptr, code, msg, what(f), n, detail);
}

static int in_list(json_object *list, const char *member, json_object *v) {
    for (size_t i = 0; list && i < json_object_array_length(list); i++)
        if (fs_json_equal(fs_json_get(json_object_array_get_idx(list, i), member), v))
            return 1;
    return 0;
}

/* items enum + uniqueItems of an array answer; the number of items */
static void items_in(apr_pool_t *p, const fs_field *f, json_object *list, const char *member,
                     json_object *v, const char *ptr, fs_error *e) {
    size_t n = json_object_array_length(v);
    for (size_t i = 0; i < n; i++) /* items: enum */
        if (!in_list(list, member, json_object_array_get_idx(v, i)))
            add(p, e, apr_psprintf(p, "%s/%lu", ptr, (unsigned long)i), "enum", "enum.item", f,
                apr_psprintf(p, "%lu", (unsigned long)i),
                apr_psprintf(p, "%s: item %lu is not one of the offered choices.", what(f),
                             (unsigned long)i));
    for (size_t i = 1; i < n; i++) { /* uniqueItems */
        int dup = 0;
        for (size_t j = 0; j < i && !dup; j++)
            dup = fs_json_equal(json_object_array_get_idx(v, i), json_object_array_get_idx(v, j));
        if (dup) {
            add(p, e, apr_psprintf(p, "%s/%lu", ptr, (unsigned long)i), "unique", "unique", f, NULL,
                apr_psprintf(p, "%s: a choice is given more than once.", what(f)));
            break;
        }
    }
}

void fs_choice_check(apr_pool_t *p, const fs_field *f, json_object *v, const char *ptr,
                     fs_error *e) {
    double d;
    switch (f->type) {
    case FS_FT_SCALE: { /* type: integer, minimum, maximum */
        long long from, to;
        scale_range(f->def, &from, &to);
        if (!fs_json_number(v, &d) || !isfinite(d) || d != floor(d))
            add(p, e, ptr, "type", "type.integer", f, NULL,
                apr_psprintf(p, "%s must be a whole number.", what(f)));
        else if (d < (double)from)
            add(p, e, ptr, "minimum", "minimum", f,
                apr_psprintf(p, "%" APR_INT64_T_FMT, (apr_int64_t)from),
                apr_psprintf(p, "%s must be at least %" APR_INT64_T_FMT ".", what(f),
                             (apr_int64_t)from));
        else if (d > (double)to)
            add(p, e, ptr, "maximum", "maximum", f,
                apr_psprintf(p, "%" APR_INT64_T_FMT, (apr_int64_t)to),
                apr_psprintf(p, "%s must be at most %" APR_INT64_T_FMT ".", what(f),
                             (apr_int64_t)to));
        break;
    }
    case FS_FT_CONSENT: /* type: boolean, const: true */
        if (!json_object_is_type(v, json_type_boolean) || !json_object_get_boolean(v))
            add(p, e, ptr, "required", "required.ticked", f, NULL,
                apr_psprintf(p, "%s must be ticked.", what(f)));
        break;
    case FS_FT_RANKING: { /* type: array, items enum, uniqueItems, min/maxItems */
        if (!json_object_is_type(v, json_type_array)) {
            add(p, e, ptr, "type", "type.list", f, NULL,
                apr_psprintf(p, "%s must be a list of choices.", what(f)));
            break;
        }
        items_in(p, f, f->options, "value", v, ptr, e);
        size_t want = f->options ? json_object_array_length(f->options) : 0;
        if (json_object_array_length(v) != want)
            add(p, e, ptr, json_object_array_length(v) < want ? "minItems" : "maxItems", "ranking",
                f, apr_psprintf(p, "%lu", (unsigned long)want),
                apr_psprintf(p, "%s: put each of the %lu choices in one place.", what(f),
                             (unsigned long)want));
        break;
    }
    case FS_FT_MATRIX: { /* type: object, properties, required, additionalProperties */
        if (!json_object_is_type(v, json_type_object)) {
            add(p, e, ptr, "type", "type.matrix", f, NULL,
                apr_psprintf(p, "%s must be an object of one answer per row.", what(f)));
            break;
        }
        json_object *rows = array_of(fs_json_get(f->def, "rows"));
        json_object *cols = array_of(fs_json_get(f->def, "columns"));
        json_object *mv = fs_json_get(f->def, "multiple");
        int multiple = mv && json_object_get_boolean(mv);
        int missing = 0;
        for (size_t i = 0; rows && i < json_object_array_length(rows); i++) {
            json_object *row = json_object_array_get_idx(rows, i), *cell;
            const char *k = json_object_get_string(fs_json_get(row, "key"));
            if (!k)
                continue;
            const char *cp = fs_json_pointer(p, ptr, k);
            if (!json_object_object_get_ex(v, k, &cell)) {
                missing |= f->required; /* required */
                continue;
            }
            const char *rl = json_object_get_string(fs_json_get(row, "label"));
            if (!multiple) {
                if (!in_list(cols, "value", cell)) /* enum */
                    add(p, e, cp, "enum", "enum.row", f, rl,
                        apr_psprintf(p,
                                     "%s: the answer of row %s is not one of the offered "
                                     "choices.",
                                     what(f), rl));
            } else if (!json_object_is_type(cell, json_type_array)) { /* type: array */
                add(p, e, cp, "type", "enum.row", f, rl,
                    apr_psprintf(p,
                                 "%s: the answer of row %s is not one of the offered "
                                 "choices.",
                                 what(f), rl));
            } else {
                items_in(p, f, cols, "value", cell, cp, e);
                if (json_object_array_length(cell) < 1) /* minItems: 1 */
                    add(p, e, cp, "minItems", "enum.row", f, rl,
                        apr_psprintf(p,
                                     "%s: the answer of row %s is not one of the offered "
                                     "choices.",
                                     what(f), rl));
            }
        }
        if (missing)
            add(p, e, ptr, "required", "required.rows", f, NULL,
                apr_psprintf(p, "%s: answer every row.", what(f)));
        json_object_object_foreach(v, k, cv) { /* additionalProperties */
            (void)cv;
            if (!in_list(rows, "key", fs_json_own(p, json_object_new_string(k))))
                fs_error_add(p, e, fs_json_pointer(p, ptr, k), "unknown", "%s has no row %s.",
                             what(f), k);
        }
        break;
    }
    default: break;
    }
}

int fs_choice_check_other(apr_pool_t *p, const fs_field *f, json_object *v, const char *ptr,
                          fs_error *e) {
    if (!fs_choice_allows_other(f) || !json_object_is_type(v, json_type_object))
        return 0;
    json_object *t;
    const char *op = at(p, ptr, "other");
    if (!json_object_object_get_ex(v, "other", &t)) /* required */
        add(p, e, op, "required", "other", f, NULL,
            apr_psprintf(p, "%s: say what your other answer is.", what(f)));
    else if (!json_object_is_type(t, json_type_string)) /* type: string */
        add(p, e, op, "type", "type.text", f, NULL, apr_psprintf(p, "%s must be text.", what(f)));
    else if (fs_utf8_length(json_object_get_string(t)) < 1) /* minLength */
        add(p, e, op, "minLength", "other", f, NULL,
            apr_psprintf(p, "%s: say what your other answer is.", what(f)));
    else if (fs_utf8_length(json_object_get_string(t)) > FS_OTHER_MAX) /* maxLength */
        add(p, e, op, "maxLength", "maxLength", f, apr_itoa(p, FS_OTHER_MAX),
            apr_psprintf(p, "%s takes at most %d characters.", what(f), FS_OTHER_MAX));
    json_object_object_foreach(v, k, mv) { /* additionalProperties */
        (void)mv;
        if (strcmp(k, "other"))
            fs_error_add(p, e, fs_json_pointer(p, ptr, k), "unknown",
                         "%s: an other answer has only the member other.", what(f));
    }
    return 1;
}

void fs_choice_check_other_count(apr_pool_t *p, const fs_field *f, json_object *v, const char *ptr,
                                 fs_error *e) {
    if (!fs_choice_allows_other(f) || !json_object_is_type(v, json_type_array))
        return;
    int n = 0;
    for (size_t i = 0; i < json_object_array_length(v); i++)
        n += json_object_is_type(json_object_array_get_idx(v, i), json_type_object);
    if (n > 1) /* contains: object, maxContains: 1 */
        add(p, e, ptr, "maxContains", "other.once", f, NULL,
            apr_psprintf(p, "%s takes one other answer at most.", what(f)));
}

/* ---- HTML posts ---- */

int fs_choice_coerce_list(const fs_field *f) {
    return f->type == FS_FT_RANKING;
}

int fs_choice_coerce_pair(apr_pool_t *p, const fs_fieldset *fs, const char *name, const char *value,
                          json_object *o, apr_hash_t *others) {
    const char *dot = strchr(name, '.');
    if (!dot)
        return 0;
    const fs_field *f = fs_fieldset_find(fs, apr_pstrndup(p, name, (apr_size_t)(dot - name)));
    const char *sub = dot + 1;
    if (!f)
        return 0;
    if (f->type == FS_FT_MATRIX) {
        if (!*value)
            return 1; /* an empty input is no answer */
        json_object *m, *cur;
        if (!json_object_object_get_ex(o, f->key, &m) ||
            !json_object_is_type(m, json_type_object)) {
            m = json_object_new_object();
            json_object_object_add(o, f->key, m);
        }
        json_object *mv = fs_json_get(f->def, "multiple");
        int multiple = mv && json_object_get_boolean(mv);
        json_object *s = json_object_new_string(value);
        if (json_object_object_get_ex(m, sub, &cur)) {
            if (!json_object_is_type(cur, json_type_array) || !multiple) {
                json_object *arr = json_object_new_array();
                json_object_array_add(arr, json_object_get(cur));
                json_object_object_add(m, sub, arr);
                cur = arr;
            }
            json_object_array_add(cur, s);
        } else if (multiple) {
            json_object *arr = json_object_new_array();
            json_object_array_add(arr, s);
            json_object_object_add(m, sub, arr);
        } else {
            json_object_object_add(m, sub, s);
        }
        return 1;
    }
    if (!strcmp(sub, "other") && fs_choice_allows_other(f)) {
        apr_hash_set(others, f->key, APR_HASH_KEY_STRING, apr_pstrdup(p, value));
        return 1;
    }
    return 0;
}

static json_object *other_of(const char *text) {
    json_object *o = json_object_new_object();
    json_object_object_add(o, "other", json_object_new_string(text ? text : ""));
    return o;
}

void fs_choice_coerce_finish(apr_pool_t *p, const fs_fieldset *fs, json_object *o,
                             apr_hash_t *others) {
    (void)p;
    for (int i = 0; i < fs->n; i++) {
        const fs_field *f = &fs->f[i];
        if (!fs_choice_allows_other(f))
            continue;
        const char *text = apr_hash_get(others, f->key, APR_HASH_KEY_STRING);
        int typed = text && *text;
        json_object *cur = NULL;
        json_object_object_get_ex(o, f->key, &cur);
        if (f->type == FS_FT_SELECT) {
            if (cur && json_object_is_type(cur, json_type_string) &&
                !strcmp(json_object_get_string(cur), FS_OTHER_VALUE))
                json_object_object_add(o, f->key, other_of(text));
            else if (!cur && typed)
                json_object_object_add(o, f->key, other_of(text));
            continue;
        }
        int found = 0;
        for (size_t k = 0;
             cur && json_object_is_type(cur, json_type_array) && k < json_object_array_length(cur);
             k++) {
            json_object *it = json_object_array_get_idx(cur, k);
            if (json_object_is_type(it, json_type_string) &&
                !strcmp(json_object_get_string(it), FS_OTHER_VALUE)) {
                json_object_array_put_idx(cur, k, other_of(text));
                found = 1;
                break;
            }
        }
        if (!found && typed) {
            if (!cur) {
                cur = json_object_new_array();
                json_object_object_add(o, f->key, cur);
            }
            if (json_object_is_type(cur, json_type_array))
                json_object_array_add(cur, other_of(text));
        }
    }
}

/* ---- the page ---- */

typedef struct {
    apr_pool_t *p;
    const char *s;
} buf;

static void put(buf *b, const char *s) {
    b->s = apr_pstrcat(b->p, b->s, s, NULL);
}

static const char *esc(apr_pool_t *p, const char *s) {
    return fs_html_escape(p, s ? s : "");
}

static int picked(json_object *cur, json_object *v) {
    if (!cur)
        return 0;
    if (json_object_is_type(cur, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(cur); i++)
            if (fs_json_equal(json_object_array_get_idx(cur, i), v))
                return 1;
        return 0;
    }
    return fs_json_equal(cur, v);
}

static const char *str_value(apr_pool_t *p, json_object *v) {
    if (v && json_object_is_type(v, json_type_string))
        return json_object_get_string(v);
    return v ? fs_json_str(p, v) : "";
}

const char *fs_choice_html(apr_pool_t *p, const fs_locale *loc, const fs_field *f, json_object *v,
                           const char *id, const char *aria, const char *required) {
    buf b = {p, ""};
    switch (f->type) {
    case FS_FT_SCALE: {
        long long from, to;
        scale_range(f->def, &from, &to);
        const char *minl = json_object_get_string(fs_json_get(f->def, "minLabel"));
        const char *maxl = json_object_get_string(fs_json_get(f->def, "maxLabel"));
        put(&b, "\n<div class=\"scale\">");
        for (long long x = from; x <= to; x++) {
            const char *oid = apr_psprintf(p, "%s-%" APR_INT64_T_FMT, id, (apr_int64_t)(x - from));
            json_object *xv = json_object_new_int64(x);
            int sel = picked(v, xv);
            json_object_put(xv);
            const char *num = apr_psprintf(p, "%" APR_INT64_T_FMT, (apr_int64_t)x);
            const char *lab =
                x == from && minl ? fs_trf(p, loc, "page.scale_end", "n", num, "label", minl, NULL)
                : x == to && maxl ? fs_trf(p, loc, "page.scale_end", "n", num, "label", maxl, NULL)
                                  : num;
            put(&b, apr_psprintf(p,
                                 "<div class=\"opt\"><input type=\"radio\" id=\"%s\" name=\"%s\" "
                                 "value=\"%s\"%s%s%s><label for=\"%s\">%s</label></div>",
                                 esc(p, oid), esc(p, f->key), num, sel ? " checked" : "", required,
                                 aria, esc(p, oid), esc(p, lab)));
        }
        put(&b, "</div>");
        break;
    }
    case FS_FT_RANKING: {
        size_t n = f->options ? json_object_array_length(f->options) : 0;
        json_object *arr = array_of(v);
        for (size_t i = 0; i < n; i++) {
            const char *sid = apr_psprintf(p, "%s-%lu", id, (unsigned long)i);
            json_object *cur =
                arr && i < json_object_array_length(arr) ? json_object_array_get_idx(arr, i) : NULL;
            put(&b, apr_psprintf(
                        p,
                        "\n<div class=\"rank\"><label for=\"%s\">%s</label><select "
                        "id=\"%s\" name=\"%s\"%s%s><option value=\"\">%s</option>",
                        esc(p, sid),
                        esc(p, fs_trf(p, loc, "page.rank", "n", apr_itoa(p, (int)i + 1), NULL)),
                        esc(p, sid), esc(p, f->key), required, aria,
                        esc(p, fs_tr(loc, "page.choose"))));
            for (size_t k = 0; k < n; k++) {
                json_object *ov = fs_json_get(json_object_array_get_idx(f->options, k), "value");
                put(&b,
                    apr_psprintf(p, "<option value=\"%s\"%s>%s</option>", esc(p, str_value(p, ov)),
                                 cur && fs_json_equal(cur, ov) ? " selected" : "",
                                 esc(p, fs_field_option_label(f, ov))));
            }
            put(&b, "</select></div>");
        }
        break;
    }
    case FS_FT_CONSENT: {
        const char *text = json_object_get_string(fs_json_get(f->def, "text"));
        const char *url = json_object_get_string(fs_json_get(f->def, "url"));
        const char *tid = apr_pstrcat(p, id, "-text", NULL);
        if (url)
            put(&b, apr_psprintf(p, "<p class=\"help consent\" id=\"%s\"><a href=\"%s\">%s</a></p>",
                                 esc(p, tid), esc(p, url), esc(p, text)));
        else
            put(&b, apr_psprintf(p, "<p class=\"help consent\" id=\"%s\">%s</p>", esc(p, tid),
                                 esc(p, text)));
        put(&b, apr_psprintf(
                    p,
                    "<div class=\"opt\"><input type=\"checkbox\" id=\"%s\" name=\"%s\" "
                    "value=\"true\"%s required%s><label for=\"%s\">%s <span class=\"req\">%s</span>"
                    "</label></div>",
                    esc(p, id), esc(p, f->key),
                    v && json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v)
                        ? " checked"
                        : "",
                    *aria ? aria : apr_psprintf(p, " aria-describedby=\"%s\"", esc(p, tid)),
                    esc(p, id), esc(p, f->label), esc(p, fs_tr(loc, "page.required"))));
        break;
    }
    case FS_FT_MATRIX: {
        json_object *rows = array_of(fs_json_get(f->def, "rows"));
        json_object *cols = array_of(fs_json_get(f->def, "columns"));
        json_object *mv = fs_json_get(f->def, "multiple");
        int multiple = mv && json_object_get_boolean(mv);
        size_t nr = rows ? json_object_array_length(rows) : 0;
        size_t nc = cols ? json_object_array_length(cols) : 0;
        put(&b, "\n<table class=\"mx\"><thead><tr><td></td>");
        for (size_t c = 0; c < nc; c++)
            put(&b, apr_psprintf(p, "<th scope=\"col\">%s</th>",
                                 esc(p, json_object_get_string(fs_json_get(
                                            json_object_array_get_idx(cols, c), "label")))));
        put(&b, "</tr></thead><tbody>");
        for (size_t r = 0; r < nr; r++) {
            json_object *row = json_object_array_get_idx(rows, r);
            const char *rk = json_object_get_string(fs_json_get(row, "key"));
            const char *rl = json_object_get_string(fs_json_get(row, "label"));
            json_object *cur =
                v && json_object_is_type(v, json_type_object) ? fs_json_get(v, rk) : NULL;
            put(&b, apr_psprintf(p, "<tr><th scope=\"row\">%s</th>", esc(p, rl)));
            for (size_t c = 0; c < nc; c++) {
                json_object *col = json_object_array_get_idx(cols, c);
                json_object *cv = fs_json_get(col, "value");
                const char *cl = json_object_get_string(fs_json_get(col, "label"));
                /* the first cell is <id>-0, where the error summary links */
                const char *cid =
                    r == 0 && c == 0
                        ? apr_pstrcat(p, id, "-0", NULL)
                        : apr_psprintf(p, "%s-%lu-%lu", id, (unsigned long)r, (unsigned long)c);
                /* required on each radio: a row left out is refused by the
                 * browser too; not on checkboxes (one would force all) */
                put(&b,
                    apr_psprintf(
                        p,
                        "<td><label class=\"mxc\"><input type=\"%s\" id=\"%s\" "
                        "name=\"%s.%s\" value=\"%s\"%s%s%s aria-label=\"%s\"><span "
                        "class=\"mxl\" aria-hidden=\"true\">%s</span></label></td>",
                        multiple ? "checkbox" : "radio", esc(p, cid), esc(p, f->key), esc(p, rk),
                        esc(p, str_value(p, cv)), picked(cur, cv) ? " checked" : "",
                        multiple ? "" : required, aria,
                        esc(p, fs_trf(p, loc, "page.matrix_cell", "row", rl, "column", cl, NULL)),
                        esc(p, cl)));
            }
            put(&b, "</tr>");
        }
        put(&b, "</tbody></table>");
        break;
    }
    default: break;
    }
    return b.s;
}

const char *fs_choice_other_html(apr_pool_t *p, const fs_locale *loc, const fs_field *f,
                                 json_object *v, const char *id, int in_select) {
    if (!fs_choice_allows_other(f))
        return "";
    /* the other answer so far: {"other": text}, alone or in a list */
    json_object *other = NULL;
    if (v && json_object_is_type(v, json_type_object))
        other = v;
    for (size_t i = 0;
         v && json_object_is_type(v, json_type_array) && i < json_object_array_length(v); i++)
        if (json_object_is_type(json_object_array_get_idx(v, i), json_type_object))
            other = json_object_array_get_idx(v, i);
    const char *text = other ? json_object_get_string(fs_json_get(other, "other")) : NULL;
    if (in_select && f->type == FS_FT_SELECT)
        return apr_psprintf(p, "<option value=\"" FS_OTHER_VALUE "\"%s>%s</option>",
                            other ? " selected" : "", esc(p, fs_tr(loc, "page.other")));
    if (in_select)
        return "";
    const char *tid = apr_pstrcat(p, id, "-other", NULL);
    const char *out = "";
    if (f->type == FS_FT_MULTISELECT) {
        const char *cid = apr_pstrcat(p, id, "-otherbox", NULL);
        out = apr_psprintf(p,
                           "\n<div class=\"opt\"><input type=\"checkbox\" id=\"%s\" name=\"%s\" "
                           "value=\"" FS_OTHER_VALUE "\"%s><label for=\"%s\">%s</label></div>",
                           esc(p, cid), esc(p, f->key), other ? " checked" : "", esc(p, cid),
                           esc(p, fs_tr(loc, "page.other")));
    }
    return apr_pstrcat(
        p, out,
        apr_psprintf(p,
                     "\n<label class=\"other\" for=\"%s\">%s</label><input type=\"text\" "
                     "id=\"%s\" name=\"%s.other\" value=\"%s\" maxlength=\"%d\">",
                     esc(p, tid),
                     esc(p, fs_trf(p, loc, "page.other_text", "label", f->label, NULL)),
                     esc(p, tid), esc(p, f->key), esc(p, text), FS_OTHER_MAX),
        NULL);
}

/* ---- CSV ---- */

static json_object *matrix_rows(json_object *fd) {
    const char *t = json_object_get_string(fs_json_get(fd, "type"));
    json_object *rows = array_of(fs_json_get(fd, "rows"));
    return t && !strcmp(t, "matrix") && rows && json_object_array_length(rows) ? rows : NULL;
}

int fs_choice_csv_columns(apr_pool_t *p, json_object *fd, const char **names) {
    const char *key = json_object_get_string(fs_json_get(fd, "key"));
    json_object *rows = matrix_rows(fd);
    if (!rows) {
        names[0] = key;
        return 1;
    }
    int n = (int)json_object_array_length(rows);
    for (int i = 0; i < n; i++)
        names[i] = apr_pstrcat(
            p, key, ".",
            json_object_get_string(fs_json_get(json_object_array_get_idx(rows, (size_t)i), "key")),
            NULL);
    return n;
}

int fs_choice_csv_extra(json_object *fields) {
    int extra = 0;
    for (size_t i = 0; fields && i < json_object_array_length(fields); i++) {
        json_object *rows = matrix_rows(json_object_array_get_idx(fields, i));
        if (rows)
            extra += (int)json_object_array_length(rows) - 1;
    }
    return extra;
}

json_object *fs_choice_csv_value(json_object *data, const char *column) {
    const char *dot = strchr(column, '.');
    if (!dot)
        return fs_json_get(data, column);
    char key[FS_FIELD_KEY_MAX + 1];
    size_t n = (size_t)(dot - column);
    if (n > FS_FIELD_KEY_MAX)
        return NULL;
    memcpy(key, column, n);
    key[n] = '\0';
    json_object *m = fs_json_get(data, key);
    return m && json_object_is_type(m, json_type_object) ? fs_json_get(m, dot + 1) : NULL;
}
