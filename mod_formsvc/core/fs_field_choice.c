/* fs_field_choice: scale, matrix, ranking, consent and the "other" choice
 * (fs_field_choice.h). Every check in fs_choice_check mirrors one keyword
 * of fs_choice_schema (see the comments), so that the server accepts
 * exactly what the published schema accepts. */
#include "fs_field_choice.h"
#include "fs_json.h"

#include <apr_hash.h>
#include <apr_strings.h>
#include <math.h>
#include <string.h>

#define ADD(o, k, v) json_object_object_add((o), (k), (v))

static const char *at(apr_pool_t *p, const char *ptr, const char *member) {
    return apr_pstrcat(p, ptr, "/", member, NULL);
}

int fs_choice_allows_other(const fs_field *f) {
    json_object *v = fs_json_get(f->def, "allowOther");
    return (f->type == FS_FT_SELECT || f->type == FS_FT_MULTISELECT) && v &&
           json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v);
}

static json_object *array_of(json_object *v) {
    return v && json_object_is_type(v, json_type_array) ? v : NULL;
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
        fs_choice_scale_range(f->def, &from, &to);
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

static void add(apr_pool_t *p, fs_error *e, const char *ptr, const char *code, const char *msg,
                const fs_field *f, const char *n, const char *detail) {
    fs_error_add_msg(p, e, ptr, code, msg, fs_field_label(f), n, detail);
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
                apr_psprintf(p, "%s: item %lu is not one of the offered choices.",
                             fs_field_label(f), (unsigned long)i));
    for (size_t i = 1; i < n; i++) { /* uniqueItems */
        int dup = 0;
        for (size_t j = 0; j < i && !dup; j++)
            dup = fs_json_equal(json_object_array_get_idx(v, i), json_object_array_get_idx(v, j));
        if (dup) {
            add(p, e, apr_psprintf(p, "%s/%lu", ptr, (unsigned long)i), "unique", "unique", f, NULL,
                apr_psprintf(p, "%s: a choice is given more than once.", fs_field_label(f)));
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
        fs_choice_scale_range(f->def, &from, &to);
        if (!fs_json_number(v, &d) || !isfinite(d) || d != floor(d))
            add(p, e, ptr, "type", "type.integer", f, NULL,
                apr_psprintf(p, "%s must be a whole number.", fs_field_label(f)));
        else if (d < (double)from)
            add(p, e, ptr, "minimum", "minimum", f,
                apr_psprintf(p, "%" APR_INT64_T_FMT, (apr_int64_t)from),
                apr_psprintf(p, "%s must be at least %" APR_INT64_T_FMT ".", fs_field_label(f),
                             (apr_int64_t)from));
        else if (d > (double)to)
            add(p, e, ptr, "maximum", "maximum", f,
                apr_psprintf(p, "%" APR_INT64_T_FMT, (apr_int64_t)to),
                apr_psprintf(p, "%s must be at most %" APR_INT64_T_FMT ".", fs_field_label(f),
                             (apr_int64_t)to));
        break;
    }
    case FS_FT_CONSENT: /* type: boolean, const: true */
        if (!json_object_is_type(v, json_type_boolean) || !json_object_get_boolean(v))
            add(p, e, ptr, "required", "required.ticked", f, NULL,
                apr_psprintf(p, "%s must be ticked.", fs_field_label(f)));
        break;
    case FS_FT_RANKING: { /* type: array, items enum, uniqueItems, min/maxItems */
        if (!json_object_is_type(v, json_type_array)) {
            add(p, e, ptr, "type", "type.list", f, NULL,
                apr_psprintf(p, "%s must be a list of choices.", fs_field_label(f)));
            break;
        }
        items_in(p, f, f->options, "value", v, ptr, e);
        size_t want = f->options ? json_object_array_length(f->options) : 0;
        if (json_object_array_length(v) != want)
            add(p, e, ptr, json_object_array_length(v) < want ? "minItems" : "maxItems", "ranking",
                f, apr_psprintf(p, "%lu", (unsigned long)want),
                apr_psprintf(p, "%s: put each of the %lu choices in one place.", fs_field_label(f),
                             (unsigned long)want));
        break;
    }
    case FS_FT_MATRIX: { /* type: object, properties, required, additionalProperties */
        if (!json_object_is_type(v, json_type_object)) {
            add(p, e, ptr, "type", "type.matrix", f, NULL,
                apr_psprintf(p, "%s must be an object of one answer per row.", fs_field_label(f)));
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
                                     fs_field_label(f), rl));
            } else if (!json_object_is_type(cell, json_type_array)) { /* type: array */
                add(p, e, cp, "type", "enum.row", f, rl,
                    apr_psprintf(p,
                                 "%s: the answer of row %s is not one of the offered "
                                 "choices.",
                                 fs_field_label(f), rl));
            } else {
                items_in(p, f, cols, "value", cell, cp, e);
                if (json_object_array_length(cell) < 1) /* minItems: 1 */
                    add(p, e, cp, "minItems", "enum.row", f, rl,
                        apr_psprintf(p,
                                     "%s: the answer of row %s is not one of the offered "
                                     "choices.",
                                     fs_field_label(f), rl));
            }
        }
        if (missing)
            add(p, e, ptr, "required", "required.rows", f, NULL,
                apr_psprintf(p, "%s: answer every row.", fs_field_label(f)));
        json_object_object_foreach(v, k, cv) { /* additionalProperties */
            (void)cv;
            if (!in_list(rows, "key", fs_json_own(p, json_object_new_string(k))))
                fs_error_add(p, e, fs_json_pointer(p, ptr, k), "unknown", "%s has no row %s.",
                             fs_field_label(f), k);
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
            apr_psprintf(p, "%s: say what your other answer is.", fs_field_label(f)));
    else if (!json_object_is_type(t, json_type_string)) /* type: string */
        add(p, e, op, "type", "type.text", f, NULL,
            apr_psprintf(p, "%s must be text.", fs_field_label(f)));
    else if (fs_utf8_length(json_object_get_string(t)) < 1) /* minLength */
        add(p, e, op, "minLength", "other", f, NULL,
            apr_psprintf(p, "%s: say what your other answer is.", fs_field_label(f)));
    else if (fs_utf8_length(json_object_get_string(t)) > FS_OTHER_MAX) /* maxLength */
        add(p, e, op, "maxLength", "maxLength", f, apr_itoa(p, FS_OTHER_MAX),
            apr_psprintf(p, "%s takes at most %d characters.", fs_field_label(f), FS_OTHER_MAX));
    json_object_object_foreach(v, k, mv) { /* additionalProperties */
        (void)mv;
        if (strcmp(k, "other"))
            fs_error_add(p, e, fs_json_pointer(p, ptr, k), "unknown",
                         "%s: an other answer has only the member other.", fs_field_label(f));
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
            apr_psprintf(p, "%s takes one other answer at most.", fs_field_label(f)));
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

/* ---- text for people ---- */

static const char *label_in(json_object *list, const char *id, const char *member, json_object *v) {
    for (size_t i = 0; list && i < json_object_array_length(list); i++) {
        json_object *it = json_object_array_get_idx(list, i);
        if (fs_json_equal(fs_json_get(it, id), v))
            return json_object_get_string(fs_json_get(it, member));
    }
    return NULL;
}

const char *fs_choice_text(apr_pool_t *p, const fs_field *f, json_object *v) {
    if (!v || !json_object_is_type(v, json_type_object))
        return NULL;
    json_object *other = fs_json_get(v, "other");
    if (fs_choice_allows_other(f) && other && json_object_is_type(other, json_type_string))
        return json_object_get_string(other);
    if (f->type != FS_FT_MATRIX)
        return NULL;
    json_object *rows = array_of(fs_json_get(f->def, "rows"));
    json_object *cols = array_of(fs_json_get(f->def, "columns"));
    const char *out = "";
    for (size_t i = 0; rows && i < json_object_array_length(rows); i++) {
        json_object *row = json_object_array_get_idx(rows, i);
        json_object *cell = fs_json_get(v, json_object_get_string(fs_json_get(row, "key")));
        if (!cell)
            continue;
        const char *cells = "";
        size_t n = json_object_is_type(cell, json_type_array) ? json_object_array_length(cell) : 1;
        for (size_t k = 0; k < n; k++) {
            json_object *c = json_object_is_type(cell, json_type_array)
                                 ? json_object_array_get_idx(cell, k)
                                 : cell;
            const char *cl = label_in(cols, "value", "label", c);
            cells =
                apr_pstrcat(p, cells, k ? ", " : "",
                            cl                                         ? cl
                            : json_object_is_type(c, json_type_string) ? json_object_get_string(c)
                                                                       : fs_json_str(p, c),
                            NULL);
        }
        out = apr_pstrcat(p, out, *out ? "; " : "",
                          json_object_get_string(fs_json_get(row, "label")), ": ", cells, NULL);
    }
    return out;
}
