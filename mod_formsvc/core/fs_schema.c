/* fs_schema: JSON Schema 2020-12 of a submission body. Every keyword here
 * has its twin in fs_validate.c. */
#include "fs_schema.h"
#include "fs_field_choice.h"
#include "fs_field_more.h"
#include "fs_file.h"
#include "fs_json.h"
#include "fs_logic.h"

#include <apr_strings.h>
#include <stdio.h>

#define ADD(o, k, v) json_object_object_add((o), (k), (v))

static json_object *num(double d) {
    if (d == (double)(long long)d && d < 9.3e18 && d > -9.3e18)
        return json_object_new_int64((long long)d);
    return json_object_new_double(d);
}

static json_object *values_of(const fs_field *f) {
    json_object *arr = json_object_new_array();
    for (size_t i = 0; f->options && i < json_object_array_length(f->options); i++) {
        json_object *v = fs_json_get(json_object_array_get_idx(f->options, i), "value");
        json_object_array_add(arr, json_object_get(v));
    }
    return arr;
}

static const char *format_name(fs_field_type t) {
    switch (t) {
    case FS_FT_EMAIL: return "email";
    case FS_FT_URL: return "uri";
    case FS_FT_DATE: return "date";
    case FS_FT_DATETIME: return "date-time";
    default: return NULL;
    }
}

/* One file as a JSON body carries it: {name, type, data (base64)}. */
static json_object *file_object(const fs_field *f) {
    json_object *o = json_object_new_object(), *props = json_object_new_object();
    ADD(o, "type", json_object_new_string("object"));
    json_object *req = json_object_new_array();
    json_object_array_add(req, json_object_new_string("name"));
    json_object_array_add(req, json_object_new_string("type"));
    json_object_array_add(req, json_object_new_string("data"));
    ADD(o, "required", req);
    json_object *name = json_object_new_object();
    ADD(name, "type", json_object_new_string("string"));
    ADD(name, "minLength", json_object_new_int(1));
    ADD(name, "maxLength", json_object_new_int(FS_FILE_NAME_MAX));
    ADD(props, "name", name);
    json_object *type = json_object_new_object();
    ADD(type, "type", json_object_new_string("string"));
    ADD(type, "minLength", json_object_new_int(1));
    ADD(type, "maxLength", json_object_new_int(FS_FILE_TYPE_MAX));
    ADD(props, "type", type);
    json_object *data = json_object_new_object();
    ADD(data, "type", json_object_new_string("string"));
    ADD(data, "contentEncoding", json_object_new_string("base64"));
    /* one accepted media type: say which (an annotation) */
    if (f->accept && json_object_array_length(f->accept) == 1) {
        const char *a = json_object_get_string(json_object_array_get_idx(f->accept, 0));
        if (a && *a != '.' && !strchr(a, '*'))
            ADD(data, "contentMediaType", json_object_new_string(a));
    }
    ADD(data, "maxLength", json_object_new_int64(fs_file_base64_len(f->max_size)));
    ADD(data, "pattern", json_object_new_string(FS_RE_BASE64));
    ADD(props, "data", data);
    ADD(o, "properties", props);
    ADD(o, "additionalProperties", json_object_new_boolean(0));
    return o;
}

static json_object *property(const fs_field *f) {
    json_object *s = json_object_new_object();
    if (f->label)
        ADD(s, "title", json_object_new_string(f->label));
    if (f->description)
        ADD(s, "description", json_object_new_string(f->description));
    switch (f->type) {
    case FS_FT_TEXT:
    case FS_FT_TEXTAREA:
    case FS_FT_EMAIL:
    case FS_FT_URL:
    case FS_FT_TEL:
    case FS_FT_HIDDEN:
    case FS_FT_DATE:
    case FS_FT_DATETIME:
        ADD(s, "type", json_object_new_string("string"));
        if (f->has_min_len)
            ADD(s, "minLength", json_object_new_int64(f->min_len));
        if (f->has_max_len)
            ADD(s, "maxLength", json_object_new_int64(f->max_len));
        if (format_name(f->type))
            ADD(s, "format", json_object_new_string(format_name(f->type)));
        if (f->format_re)
            ADD(s, "pattern", json_object_new_string(f->format_re));
        if (f->pattern) {
            json_object *all = json_object_new_array();
            if (f->pattern_code) {
                json_object *pt = json_object_new_object();
                ADD(pt, "pattern", json_object_new_string(f->pattern));
                json_object_array_add(all, pt);
            } else {
                json_object_array_add(all, json_object_new_boolean(0));
            }
            ADD(s, "allOf", all);
        }
        fs_schema_more_bounds(s, f); /* date and datetime: minimum, maximum */
        break;
    case FS_FT_NUMBER:
    case FS_FT_INTEGER:
    case FS_FT_RATING:
        ADD(s, "type", json_object_new_string(f->type == FS_FT_NUMBER ? "number" : "integer"));
        if (f->has_min)
            ADD(s, "minimum", num(f->min));
        if (f->has_max)
            ADD(s, "maximum", num(f->max));
        break;
    case FS_FT_BOOLEAN:
        ADD(s, "type", json_object_new_string("boolean"));
        if (f->required)
            ADD(s, "const", json_object_new_boolean(1));
        break;
    case FS_FT_SELECT: ADD(s, "enum", values_of(f)); break;
    case FS_FT_MULTISELECT: {
        ADD(s, "type", json_object_new_string("array"));
        json_object *items = json_object_new_object();
        ADD(items, "enum", values_of(f));
        ADD(s, "items", items);
        ADD(s, "uniqueItems", json_object_new_boolean(1));
        if (f->has_min_items)
            ADD(s, "minItems", json_object_new_int64(f->min_items));
        if (f->has_max_items)
            ADD(s, "maxItems", json_object_new_int64(f->max_items));
        break;
    }
    case FS_FT_FILE: { /* one file, or a list of 1 to maxFiles */
        json_object *any = json_object_new_array(), *arr = json_object_new_object();
        json_object_array_add(any, file_object(f));
        ADD(arr, "type", json_object_new_string("array"));
        ADD(arr, "items", file_object(f));
        ADD(arr, "minItems", json_object_new_int(1));
        ADD(arr, "maxItems", json_object_new_int64(f->max_files));
        json_object_array_add(any, arr);
        ADD(s, "anyOf", any);
        break;
    }
    case FS_FT_ADDRESS:
    case FS_FT_DATERANGE:
    case FS_FT_TIME:
    case FS_FT_SIGNATURE: json_object_put(s); return fs_schema_more(f);
    case FS_FT_SCALE:
    case FS_FT_MATRIX:
    case FS_FT_RANKING:
    case FS_FT_CONSENT: json_object_put(s); return fs_choice_schema(f);
    default: json_object_put(s); return json_object_new_boolean(0);
    }
    if ((f->type == FS_FT_SELECT || f->type == FS_FT_MULTISELECT) &&
        (!f->options || json_object_array_length(f->options) == 0)) {
        json_object_put(s);
        return json_object_new_boolean(0);
    }
    return fs_choice_schema_other(f, s);
}

static int is_multiselect(const void *ctx, const char *key) {
    const fs_field *f = fs_fieldset_find(ctx, key);
    return f && f->type == FS_FT_MULTISELECT;
}

static json_object *ref(const char *name) {
    json_object *o = json_object_new_object();
    char buf[64];
    snprintf(buf, sizeof(buf), "#/$defs/%s", name);
    ADD(o, "$ref", json_object_new_string(buf));
    return o;
}

static json_object *all_of(json_object *items) {
    size_t n = json_object_array_length(items);
    if (n == 0) {
        json_object_put(items);
        return json_object_new_boolean(1);
    }
    if (n == 1) {
        json_object *one = json_object_get(json_object_array_get_idx(items, 0));
        json_object_put(items);
        return one;
    }
    json_object *o = json_object_new_object();
    ADD(o, "allOf", items);
    return o;
}

/* The page jumps as $defs: "when<j>" the condition of jump j, "page<q>"
 * whether the answers reach page q (fs_fieldset_path): some page p before
 * it is reached and left for q, by the first of p's jumps that holds, or,
 * none holding, as the page after p. NULL when there are no jumps. */
static json_object *path_defs(apr_pool_t *p, const fs_fieldset *fs) {
    if (!fs->njumps)
        return NULL;
    json_object *defs = json_object_new_object();
    for (int j = 0; j < fs->njumps; j++)
        if (fs->jumps[j].when)
            ADD(defs, apr_psprintf(p, "when%d", j),
                fs_cond_schema(p, fs->jumps[j].when, is_multiselect, fs));
    for (int q = 1; q < fs->npages; q++) {
        json_object *any = json_object_new_array();
        for (int from = 0; from < q; from++) {
            /* the jumps of page from, in order; each taken when it holds
             * and none before it did */
            json_object *before = json_object_new_array();
            int blocked = 0;
            for (int j = 0; j < fs->njumps && !blocked; j++) {
                const fs_jump *jp = &fs->jumps[j];
                if (jp->from != from)
                    continue;
                if (jp->to == q) {
                    json_object *term = json_object_new_array();
                    if (from > 0)
                        json_object_array_add(term, ref(apr_psprintf(p, "page%d", from)));
                    if (jp->when)
                        json_object_array_add(term, ref(apr_psprintf(p, "when%d", j)));
                    for (size_t k = 0; k < json_object_array_length(before); k++)
                        json_object_array_add(
                            term, json_object_get(json_object_array_get_idx(before, k)));
                    json_object_array_add(any, all_of(term));
                }
                if (!jp->when)
                    blocked = 1; /* always taken: nothing after it is */
                else {
                    json_object *no = json_object_new_object();
                    ADD(no, "not", ref(apr_psprintf(p, "when%d", j)));
                    json_object_array_add(before, no);
                }
            }
            if (!blocked && q == from + 1) { /* no jump held: the next page */
                json_object *term = json_object_new_array();
                if (from > 0)
                    json_object_array_add(term, ref(apr_psprintf(p, "page%d", from)));
                for (size_t k = 0; k < json_object_array_length(before); k++)
                    json_object_array_add(term,
                                          json_object_get(json_object_array_get_idx(before, k)));
                json_object_array_add(any, all_of(term));
            }
            json_object_put(before);
        }
        json_object *reach;
        if (json_object_array_length(any) == 0) {
            json_object_put(any);
            reach = json_object_new_boolean(0);
        } else if (json_object_array_length(any) == 1) {
            reach = json_object_get(json_object_array_get_idx(any, 0));
            json_object_put(any);
        } else {
            reach = json_object_new_object();
            ADD(reach, "anyOf", any);
        }
        ADD(defs, apr_psprintf(p, "page%d", q), reach);
    }
    return defs;
}

/* What a present answer must be when requiredIf holds: what required
 * adds to the property (non-empty text, a choice, a tick), or NULL. */
static json_object *required_extra(const fs_field *f) {
    json_object *o = json_object_new_object();
    switch (f->type) {
    case FS_FT_TEXT:
    case FS_FT_TEXTAREA:
    case FS_FT_EMAIL:
    case FS_FT_URL:
    case FS_FT_TEL:
    case FS_FT_DATE:
    case FS_FT_DATETIME: ADD(o, "minLength", json_object_new_int(1)); return o;
    case FS_FT_MULTISELECT: ADD(o, "minItems", json_object_new_int(1)); return o;
    case FS_FT_BOOLEAN: ADD(o, "const", json_object_new_boolean(1)); return o;
    default: json_object_put(o); return NULL;
    }
}

/* Whether f applies (its page reached, its visibleIf), or NULL: always. */
static json_object *applies(apr_pool_t *p, const fs_fieldset *fs, const fs_field *f) {
    json_object *conj = json_object_new_array();
    if (fs->njumps && f->page > 0)
        json_object_array_add(conj, ref(apr_psprintf(p, "page%d", f->page)));
    if (f->visible_if)
        json_object_array_add(conj, fs_cond_schema(p, f->visible_if, is_multiselect, fs));
    if (!json_object_array_length(conj)) {
        json_object_put(conj);
        return NULL;
    }
    return all_of(conj);
}

/* {"if": <applies>, "then": {"required": [key]}, "else": {"not": {"required": [key]}}} */
static json_object *condition(json_object *cond, const fs_field *f) {
    json_object *rule = json_object_new_object();
    ADD(rule, "if", cond);
    json_object *key = json_object_new_array();
    json_object_array_add(key, json_object_new_string(f->key));
    if (f->required) {
        json_object *then = json_object_new_object();
        ADD(then, "required", json_object_get(key));
        ADD(rule, "then", then);
    }
    json_object *els = json_object_new_object(), *notreq = json_object_new_object();
    ADD(notreq, "required", key);
    ADD(els, "not", notreq);
    ADD(rule, "else", els);
    return rule;
}

/* {"if": <applies and requiredIf>, "then": {"required": [key], "properties": {key: extra}}} */
static json_object *required_rule(apr_pool_t *p, const fs_fieldset *fs, const fs_field *f,
                                  json_object *cond) {
    json_object *conj = json_object_new_array();
    if (cond)
        json_object_array_add(conj, json_object_get(cond));
    json_object_array_add(conj, fs_cond_schema(p, f->required_if, is_multiselect, fs));
    json_object *rule = json_object_new_object(), *then = json_object_new_object();
    ADD(rule, "if", all_of(conj));
    json_object *key = json_object_new_array();
    json_object_array_add(key, json_object_new_string(f->key));
    ADD(then, "required", key);
    json_object *extra = required_extra(f);
    if (extra) {
        json_object *props = json_object_new_object();
        ADD(props, f->key, extra);
        ADD(then, "properties", props);
    }
    ADD(rule, "then", then);
    return rule;
}

json_object *fs_schema_for(apr_pool_t *p, const fs_fieldset *fs, const char *id,
                           const char *title) {
    json_object *s = fs_json_own(p, json_object_new_object());
    ADD(s, "$schema", json_object_new_string("https://json-schema.org/draft/2020-12/schema"));
    if (id)
        ADD(s, "$id", json_object_new_string(id));
    if (title)
        ADD(s, "title", json_object_new_string(title));
    ADD(s, "type", json_object_new_string("object"));
    json_object *props = json_object_new_object(), *req = json_object_new_array(),
                *all = json_object_new_array();
    for (int i = 0; i < fs->n; i++) {
        const fs_field *f = &fs->f[i];
        ADD(props, f->key, property(f));
        json_object *cond = applies(p, fs, f);
        if (cond)
            json_object_array_add(all, condition(json_object_get(cond), f));
        else if (f->required)
            json_object_array_add(req, json_object_new_string(f->key));
        if (f->required_if && !f->required)
            json_object_array_add(all, required_rule(p, fs, f, cond));
        json_object_put(cond);
    }
    ADD(s, "properties", props);
    ADD(s, "required", req);
    ADD(s, "additionalProperties", json_object_new_boolean(0));
    if (json_object_array_length(all))
        ADD(s, "allOf", all);
    else
        json_object_put(all);
    json_object *defs = path_defs(p, fs);
    if (defs)
        ADD(s, "$defs", defs);
    return s;
}
