/* fs_schema_map: a flat JSON Schema to a form's fields (fs_schema_map.h).
 * The mapping writes each property as the field definition a client would
 * send, then runs the field rules (fs_field_parse, fs_fields_check) on it,
 * so a field made from a schema obeys exactly the rules of one sent as
 * "fields"; errors of those rules are given back at the pointer of the
 * schema keyword they came from. */
#include "fs_schema_map.h"
#include "fs_field.h"
#include "fs_json.h"
#include "fs_secret.h"

#include <apr_hash.h>
#include <apr_strings.h>
#include <string.h>

#define ADD(o, k, v) json_object_object_add((o), (k), (v))

static int in_list(const char *k, const char *const *list) {
    for (int i = 0; list[i]; i++)
        if (!strcmp(k, list[i]))
            return 1;
    return 0;
}

/* One "unsupported" item per member of o not in allowed. */
static int unsupported(apr_pool_t *p, json_object *o, const char *ptr, const char *const *allowed,
                       const char *what, fs_error *verr) {
    int bad = 0;
    json_object_object_foreach(o, k, v) {
        (void)v;
        if (!in_list(k, allowed)) {
            fs_error_add(p, verr, fs_json_pointer(p, ptr, k), "unsupported",
                         "The keyword %s cannot be mapped to a form field%s.", k, what);
            bad = 1;
        }
    }
    return bad;
}

/* A non-empty array of distinct strings (an enum), as field options
 * [{value, label}], owned by the caller; NULL after an error at ptr. */
static json_object *options_of(apr_pool_t *p, json_object *en, const char *ptr, fs_error *verr) {
    if (!json_object_is_type(en, json_type_array) || json_object_array_length(en) == 0) {
        fs_error_add(p, verr, ptr, "type", "enum must be a non-empty array of strings.");
        return NULL;
    }
    json_object *opts = json_object_new_array();
    for (size_t i = 0; i < json_object_array_length(en); i++) {
        json_object *v = json_object_array_get_idx(en, i);
        if (!json_object_is_type(v, json_type_string)) {
            fs_error_add(p, verr, apr_psprintf(p, "%s/%" APR_SIZE_T_FMT, ptr, i), "unsupported",
                         "Only string enum values can be mapped to a form field's options, "
                         "not %s.",
                         fs_json_type_name(v));
            json_object_put(opts);
            return NULL;
        }
        json_object *o = json_object_new_object();
        ADD(o, "value", json_object_get(v));
        ADD(o, "label", json_object_get(v));
        json_object_array_add(opts, o);
    }
    return opts;
}

/* Copies the members named in names from s into validation (created on
 * first use). */
static void copy_validation(json_object *s, const char *const *names, json_object **validation) {
    for (int i = 0; names[i]; i++) {
        json_object *v;
        if (json_object_object_get_ex(s, names[i], &v)) {
            if (!*validation)
                *validation = json_object_new_object();
            ADD(*validation, names[i], json_object_get(v));
        }
    }
}

static const char *const COMMON[] = {"title", "description", "$comment", "type", NULL};

/* The field definition of property key (schema s at ptr), owned by the
 * caller; NULL after adding errors. *kind says what it became. */
static json_object *definition(apr_pool_t *p, const char *key, json_object *s, const char *ptr,
                               int required, const char *req_ptr, fs_error *verr,
                               fs_field_type *kind) {
    if (!json_object_is_type(s, json_type_object)) {
        fs_error_add(p, verr, ptr, "type", "A property's schema must be an object, not %s.",
                     fs_json_type_name(s));
        return NULL;
    }
    json_object *tv = fs_json_get(s, "type"), *en = NULL;
    int has_enum = json_object_object_get_ex(s, "enum", &en);
    const char *type = NULL;
    if (tv) {
        if (!json_object_is_type(tv, json_type_string)) {
            fs_error_add(p, verr, fs_json_pointer(p, ptr, "type"), "unsupported",
                         "Only one type (a string) can be mapped to a form field.");
            return NULL;
        }
        type = json_object_get_string(tv);
    } else if (!has_enum) {
        fs_error_add(p, verr, ptr, "required",
                     "A property needs a type (string, number, integer, boolean or array) or "
                     "an enum.");
        return NULL;
    }
    static const char *const STRING[] = {"title",     "description", "$comment", "type",
                                         "minLength", "maxLength",   "format",   NULL};
    static const char *const ENUM[] = {"title", "description", "$comment", "type", "enum", NULL};
    static const char *const NUMBER[] = {"title",   "description", "$comment", "type",
                                         "minimum", "maximum",     NULL};
    static const char *const ARRAY[] = {"title",    "description", "$comment",    "type", "items",
                                        "minItems", "maxItems",    "uniqueItems", NULL};
    json_object *def = json_object_new_object(), *validation = NULL, *options = NULL;
    int bad = 0;
    fs_field_type t;
    if (has_enum && (!type || !strcmp(type, "string"))) {
        t = FS_FT_SELECT;
        bad |= unsupported(p, s, ptr, ENUM, " with an enum", verr);
        if (!(options = options_of(p, en, fs_json_pointer(p, ptr, "enum"), verr)))
            bad = 1;
    } else if (!type) {
        t = FS_FT_SELECT; /* unreachable: no type and no enum was refused above */
        bad = 1;
    } else if (!strcmp(type, "string")) {
        bad |= unsupported(p, s, ptr, STRING, " of type string", verr);
        t = FS_FT_TEXT;
        json_object *fv = fs_json_get(s, "format"), *mx = fs_json_get(s, "maxLength");
        if (fv) {
            const char *f = json_object_get_string(fv);
            if (!json_object_is_type(fv, json_type_string)) {
                fs_error_add(p, verr, fs_json_pointer(p, ptr, "format"), "type",
                             "format must be a string.");
                bad = 1;
            } else if (!strcmp(f, "email"))
                t = FS_FT_EMAIL;
            else if (!strcmp(f, "uri"))
                t = FS_FT_URL;
            else if (!strcmp(f, "date"))
                t = FS_FT_DATE;
            else if (!strcmp(f, "date-time"))
                t = FS_FT_DATETIME;
            else {
                fs_error_add(p, verr, fs_json_pointer(p, ptr, "format"), "unsupported",
                             "The format %s cannot be mapped to a form field (email, uri, date "
                             "and date-time can).",
                             f);
                bad = 1;
            }
        } else if (mx && json_object_is_type(mx, json_type_int) &&
                   json_object_get_int64(mx) > 1000) {
            t = FS_FT_TEXTAREA; /* longer than a line's bound: several lines */
        }
        static const char *const LEN[] = {"minLength", "maxLength", NULL};
        copy_validation(s, LEN, &validation);
    } else if (!strcmp(type, "number") || !strcmp(type, "integer")) {
        bad |= unsupported(p, s, ptr, NUMBER, apr_pstrcat(p, " of type ", type, NULL), verr);
        t = !strcmp(type, "number") ? FS_FT_NUMBER : FS_FT_INTEGER;
        static const char *const MINMAX[] = {"minimum", "maximum", NULL};
        copy_validation(s, MINMAX, &validation);
    } else if (!strcmp(type, "boolean")) {
        bad |= unsupported(p, s, ptr, COMMON, " of type boolean", verr);
        t = FS_FT_BOOLEAN;
        if (required) {
            /* a required boolean field is a box that must be ticked: the
             * answer false could not be given */
            fs_error_add(p, verr, req_ptr, "unsupported",
                         "A required boolean cannot be mapped: a form's required box must be "
                         "ticked, so false could not be answered. Leave it out of required, or "
                         "use an enum such as [\"yes\", \"no\"].");
            bad = 1;
        }
    } else if (!strcmp(type, "array")) {
        bad |= unsupported(p, s, ptr, ARRAY, " of type array", verr);
        t = FS_FT_MULTISELECT;
        json_object *items = fs_json_get(s, "items"), *u;
        const char *ip = fs_json_pointer(p, ptr, "items");
        if (!items || !json_object_is_type(items, json_type_object) ||
            !fs_json_get(items, "enum")) {
            fs_error_add(p, verr, items ? ip : ptr, items ? "unsupported" : "required",
                         "Only an array of enum values can be mapped (a multiple choice): "
                         "items must be {\"enum\": [...]}.");
            bad = 1;
        } else {
            static const char *const ITEMS[] = {"enum", "type", "$comment", NULL};
            bad |= unsupported(p, items, ip, ITEMS, " in an array's items", verr);
            json_object *it = fs_json_get(items, "type");
            if (it && (!json_object_is_type(it, json_type_string) ||
                       strcmp(json_object_get_string(it), "string"))) {
                fs_error_add(p, verr, fs_json_pointer(p, ip, "type"), "unsupported",
                             "The items of a multiple choice are strings.");
                bad = 1;
            }
            if (!(options = options_of(p, fs_json_get(items, "enum"),
                                       fs_json_pointer(p, ip, "enum"), verr)))
                bad = 1;
        }
        if (json_object_object_get_ex(s, "uniqueItems", &u) &&
            !(json_object_is_type(u, json_type_boolean) && json_object_get_boolean(u))) {
            fs_error_add(p, verr, fs_json_pointer(p, ptr, "uniqueItems"), "unsupported",
                         "A multiple choice never repeats a choice: uniqueItems can only be "
                         "true.");
            bad = 1;
        }
        static const char *const COUNTS[] = {"minItems", "maxItems", NULL};
        copy_validation(s, COUNTS, &validation);
    } else {
        fs_error_add(p, verr, fs_json_pointer(p, ptr, "type"), "unsupported",
                     "The type %s cannot be mapped to a form field (string, number, integer, "
                     "boolean and array can).",
                     type);
        bad = 1;
        t = FS_FT_TEXT;
    }
    if (bad) {
        json_object_put(def);
        json_object_put(validation);
        json_object_put(options);
        return NULL;
    }
    json_object *title = fs_json_get(s, "title"), *desc = fs_json_get(s, "description");
    ADD(def, "key", json_object_new_string(key));
    ADD(def, "type", json_object_new_string(fs_field_type_name(t)));
    ADD(def, "label", title ? json_object_get(title) : json_object_new_string(key));
    if (desc)
        ADD(def, "description", json_object_get(desc));
    ADD(def, "required", json_object_new_boolean(required));
    if (options)
        ADD(def, "options", options);
    if (validation)
        ADD(def, "validation", validation);
    *kind = t;
    return def;
}

/* Where in the schema the member of a field definition at suffix came
 * from: the pointer of the keyword an error of the field rules is about. */
static const char *schema_pointer(apr_pool_t *p, const char *prop, const char *suffix,
                                  fs_field_type t) {
    static const struct {
        const char *from, *to;
    } map[] = {{"/label", "/title"},  {"/description", "/description"},
               {"/validation/", "/"}, {"/options", "/enum"},
               {"/key", ""},          {"/type", "/type"},
               {"/required", ""},     {NULL, NULL}};
    for (int i = 0; map[i].from; i++) {
        size_t n = strlen(map[i].from);
        if (!strncmp(suffix, map[i].from, n)) {
            const char *to = map[i].to;
            if (!strcmp(map[i].from, "/options") && t == FS_FT_MULTISELECT)
                to = "/items/enum";
            const char *rest = suffix + n;
            if (!strcmp(map[i].from, "/options")) {
                /* /options/3/value -> /enum/3 */
                const char *end = *rest == '/' ? strchr(rest + 1, '/') : NULL;
                rest = end ? apr_pstrndup(p, rest, (apr_size_t)(end - rest)) : rest;
            }
            return apr_pstrcat(p, prop, to, rest, NULL);
        }
    }
    return prop;
}

int fs_schema_property_count(json_object *schema) {
    json_object *props = fs_json_get(schema, "properties");
    if (!props || !json_object_is_type(props, json_type_object))
        return 0;
    return json_object_object_length(props);
}

json_object *fs_schema_to_fields(apr_pool_t *p, json_object *schema, const char *ptr,
                                 fs_error *verr, const char **title) {
    if (title)
        *title = NULL;
    if (!schema || !json_object_is_type(schema, json_type_object)) {
        fs_error_add(p, verr, ptr, "type", "schema must be a JSON Schema object, not %s.",
                     schema ? fs_json_type_name(schema) : "null");
        return NULL;
    }
    static const char *const ROOT[] = {"$schema",    "$id",         "$comment",
                                       "title",      "description", "type",
                                       "properties", "required",    "additionalProperties",
                                       NULL};
    int bad = unsupported(p, schema, ptr, ROOT, " (a form is a flat object of questions)", verr);
    json_object *tv = fs_json_get(schema, "type");
    if (tv && !(json_object_is_type(tv, json_type_string) &&
                !strcmp(json_object_get_string(tv), "object"))) {
        fs_error_add(p, verr, fs_json_pointer(p, ptr, "type"), "unsupported",
                     "A form's schema is of type object.");
        bad = 1;
    }
    json_object *ap = fs_json_get(schema, "additionalProperties");
    if (ap && !(json_object_is_type(ap, json_type_boolean) && !json_object_get_boolean(ap))) {
        fs_error_add(p, verr, fs_json_pointer(p, ptr, "additionalProperties"), "unsupported",
                     "A form takes only its own questions: additionalProperties can only be "
                     "false.");
        bad = 1;
    }
    json_object *tt = fs_json_get(schema, "title");
    if (tt && json_object_is_type(tt, json_type_string) && title)
        *title = json_object_get_string(tt);
    json_object *props = fs_json_get(schema, "properties");
    const char *pp = fs_json_pointer(p, ptr, "properties");
    if (!props || !json_object_is_type(props, json_type_object) ||
        json_object_object_length(props) == 0) {
        fs_error_add(p, verr, props ? pp : ptr, props ? "type" : "required",
                     "properties must be an object of at least one property.");
        return NULL;
    }
    /* required: distinct names of properties */
    json_object *req = fs_json_get(schema, "required");
    const char *rp = fs_json_pointer(p, ptr, "required");
    apr_hash_t *req_at = apr_hash_make(p); /* name -> pointer of its required entry */
    if (req && !json_object_is_type(req, json_type_array)) {
        fs_error_add(p, verr, rp, "type", "required must be an array of property names.");
        bad = 1;
    } else {
        for (size_t i = 0; req && i < json_object_array_length(req); i++) {
            json_object *v = json_object_array_get_idx(req, i);
            const char *ip = apr_psprintf(p, "%s/%" APR_SIZE_T_FMT, rp, i);
            const char *name = json_object_get_string(v);
            if (!json_object_is_type(v, json_type_string) || !fs_json_get(props, name)) {
                fs_error_add(p, verr, ip, "enum", "required names a property of properties.");
                bad = 1;
            } else if (apr_hash_get(req_at, name, APR_HASH_KEY_STRING)) {
                fs_error_add(p, verr, ip, "unique", "A property is named twice in required.");
                bad = 1;
            } else {
                apr_hash_set(req_at, name, APR_HASH_KEY_STRING, ip);
            }
        }
    }
    int n = json_object_object_length(props), i = 0;
    json_object *list = fs_json_own(p, json_object_new_array());
    const char **ptrs = apr_pcalloc(p, sizeof(char *) * (apr_size_t)(n + 1));
    json_object_object_foreach(props, key, s) {
        const char *kp = fs_json_pointer(p, pp, key);
        ptrs[i++] = kp;
        if (!fs_field_key_valid(key)) {
            fs_error_add(p, verr, kp, "pattern",
                         "A property's name is a field key: a lower-case letter, then up to 63 "
                         "lower-case letters, digits or _.");
            bad = 1;
            continue;
        }
        const char *req_ptr = apr_hash_get(req_at, key, APR_HASH_KEY_STRING);
        fs_field_type t = FS_FT_TEXT;
        json_object *def = definition(p, key, s, kp, req_ptr != NULL, req_ptr, verr, &t);
        if (!def) {
            bad = 1;
            continue;
        }
        fs_json_own(p, def);
        fs_error *ferr = fs_error_validation(p);
        const char *id = fs_id_new(p, "fld_");
        json_object *f = id ? fs_field_parse(p, def, id, "", ferr) : NULL;
        if (!f) {
            for (int k = 0; ferr->errors && k < ferr->errors->nelts; k++) {
                fs_field_error *fe = &APR_ARRAY_IDX(ferr->errors, k, fs_field_error);
                fs_error_add(p, verr, schema_pointer(p, kp, fe->pointer, t), fe->code, "%s",
                             fe->detail);
            }
            if (!ferr->errors)
                fs_error_add(p, verr, kp, "internal", "No random bytes for a field id.");
            bad = 1;
            continue;
        }
        json_object_array_add(list, f);
    }
    if (bad)
        return NULL;
    if (!fs_fields_check(p, list, ptrs, pp, verr))
        return NULL;
    return list;
}
