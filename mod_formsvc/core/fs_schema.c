/* fs_schema: JSON Schema 2020-12 of a submission body. Every keyword here
 * has its twin in fs_validate.c. */
#include "fs_schema.h"
#include "fs_file.h"
#include "fs_json.h"

#include <apr_strings.h>

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
    default: json_object_put(s); return json_object_new_boolean(0);
    }
    if ((f->type == FS_FT_SELECT || f->type == FS_FT_MULTISELECT) &&
        (!f->options || json_object_array_length(f->options) == 0)) {
        json_object_put(s);
        return json_object_new_boolean(0);
    }
    return s;
}

/* {"if": <condition>, "then": {"required": [key]}, "else": {"not": {"required": [key]}}} */
static json_object *condition(const fs_field *f) {
    json_object *vi = f->visible_if, *eq, *in = fs_json_get(vi, "in");
    const char *ctl = json_object_get_string(fs_json_get(vi, "field"));
    json_object *cond;
    json_object *cv = json_object_new_object();
    if (json_object_object_get_ex(vi, "equals", &eq))
        ADD(cv, "const", json_object_get(eq));
    else if (in && json_object_is_type(in, json_type_array))
        ADD(cv, "enum", json_object_get(in));
    else {
        json_object_put(cv);
        cv = NULL;
    }
    if (cv) {
        cond = json_object_new_object();
        json_object *props = json_object_new_object();
        ADD(props, ctl, cv);
        ADD(cond, "properties", props);
        json_object *req = json_object_new_array();
        json_object_array_add(req, json_object_new_string(ctl));
        ADD(cond, "required", req);
    } else {
        cond = json_object_new_boolean(0);
    }
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
        if (f->visible_if)
            json_object_array_add(all, condition(f));
        else if (f->required)
            json_object_array_add(req, json_object_new_string(f->key));
    }
    ADD(s, "properties", props);
    ADD(s, "required", req);
    ADD(s, "additionalProperties", json_object_new_boolean(0));
    if (json_object_array_length(all))
        ADD(s, "allOf", all);
    else
        json_object_put(all);
    return s;
}
