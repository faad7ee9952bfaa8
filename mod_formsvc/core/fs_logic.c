/* fs_logic: conditions (fs_logic.h): parsing, the rules against the
 * fields, evaluation and the JSON Schema of one. Every function recurses
 * at most FS_COND_DEPTH_MAX + 1 levels on a parsed condition, and stops at
 * EVAL_DEPTH on a stored one. */
/* memmem (the build defines _GNU_SOURCE): linear time, glibc's two-way search */
#include "fs_logic.h"
#include "fs_calc.h"
#include "fs_json.h"

#include <apr_strings.h>
#include <string.h>

#define EVAL_DEPTH 16 /* a stored condition deeper than this does not hold */

static const char *const OPS[] = {"equals", "notEquals", "in",       "gt",
                                  "lt",     "contains",  "answered", NULL};
enum { OP_EQUALS, OP_NOT_EQUALS, OP_IN, OP_GT, OP_LT, OP_CONTAINS, OP_ANSWERED, OP_NONE };

static int op_of(const char *s) {
    for (int i = 0; s && OPS[i]; i++)
        if (!strcmp(OPS[i], s))
            return i;
    return OP_NONE;
}

static const char *at(apr_pool_t *p, const char *ptr, const char *member) {
    return apr_pstrcat(p, ptr, "/", member, NULL);
}

/* A field's key: ^[a-z][a-z0-9_]{0,63}$ (fs_field_key_valid's rule; the
 * core of conditions includes no field header). */
static int key_ok(const char *k) {
    if (!k || !(*k >= 'a' && *k <= 'z'))
        return 0;
    size_t n = 1;
    for (const char *c = k + 1; *c; c++, n++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_'))
            return 0;
    return n <= 64;
}

/* A deep copy (owned by the caller), or NULL. */
static json_object *copy(json_object *v) {
    json_object *out = NULL;
    return v && json_object_deep_copy(v, &out, NULL) == 0 ? out : NULL;
}

static int is_scalar(json_object *v) {
    return v && !json_object_is_type(v, json_type_object) &&
           !json_object_is_type(v, json_type_array);
}

int fs_cond_is_shorthand(json_object *c) {
    return c && json_object_is_type(c, json_type_object) &&
           (json_object_object_get_ex(c, "equals", NULL) ||
            json_object_object_get_ex(c, "in", NULL)) &&
           !json_object_object_get_ex(c, "op", NULL);
}

/* ---- parsing ---- */

typedef struct parse_ctx {
    apr_pool_t *p;
    fs_error *verr;
    int nodes;
} parse_ctx;

static json_object *parse_node(parse_ctx *x, json_object *v, const char *ptr, int depth);

static json_object *parse_shorthand(parse_ctx *x, json_object *v, const char *ptr) {
    apr_pool_t *p = x->p;
    fs_error *verr = x->verr;
    int ok = 1;
    json_object_object_foreach(v, k, mv) {
        (void)mv;
        if (strcmp(k, "field") && strcmp(k, "equals") && strcmp(k, "in")) {
            fs_error_add(p, verr, fs_json_pointer(p, ptr, k), "unknown",
                         "Unknown member; a condition takes field with op and value (or the "
                         "shorthand equals or in), or one of all, any and not.");
            ok = 0;
        }
    }
    json_object *eq = NULL, *in = NULL;
    int has_eq = json_object_object_get_ex(v, "equals", &eq);
    int has_in = json_object_object_get_ex(v, "in", &in);
    if (has_eq == has_in) {
        fs_error_add(p, verr, ptr, "required",
                     "A condition takes exactly one of equals and in, or op and value.");
        ok = 0;
    } else if (has_eq) {
        if (!is_scalar(eq)) {
            fs_error_add(p, verr, at(p, ptr, "equals"), "type",
                         "equals is a string, number or boolean.");
            ok = 0;
        }
    } else if (!json_object_is_type(in, json_type_array)) {
        fs_error_add(p, verr, at(p, ptr, "in"), "type", "in is an array of values.");
        ok = 0;
    } else {
        size_t n = json_object_array_length(in);
        if (n < 1 || n > FS_COND_IN_MAX) {
            fs_error_add(p, verr, at(p, ptr, "in"), n < 1 ? "minItems" : "maxItems",
                         "in takes 1 to %d values.", FS_COND_IN_MAX);
            ok = 0;
        }
        for (size_t i = 0; i < n && i < FS_COND_IN_MAX; i++)
            if (!is_scalar(json_object_array_get_idx(in, i))) {
                fs_error_add(p, verr, apr_psprintf(p, "%s/in/%" APR_SIZE_T_FMT, ptr, i), "type",
                             "Each value is a string, number or boolean.");
                ok = 0;
            }
    }
    if (!ok)
        return NULL;
    json_object *out = json_object_new_object();
    json_object_object_add(out, "field", json_object_get(fs_json_get(v, "field")));
    if (has_eq)
        json_object_object_add(out, "equals", json_object_get(eq));
    else
        json_object_object_add(out, "in", copy(in));
    return out;
}

static json_object *parse_leaf(parse_ctx *x, json_object *v, const char *ptr) {
    apr_pool_t *p = x->p;
    fs_error *verr = x->verr;
    json_object *f = fs_json_get(v, "field");
    int ok = 1;
    if (!f) {
        fs_error_add(p, verr, at(p, ptr, "field"), "required",
                     "A condition needs field, the key of another field.");
        ok = 0;
    } else if (!json_object_is_type(f, json_type_string) || !key_ok(json_object_get_string(f))) {
        fs_error_add(p, verr, at(p, ptr, "field"),
                     json_object_is_type(f, json_type_string) ? "pattern" : "type",
                     "field must be the key of another field.");
        ok = 0;
    }
    if (!json_object_object_get_ex(v, "op", NULL)) { /* {field, equals | in} */
        json_object *out = parse_shorthand(x, v, ptr);
        if (ok)
            return out;
        json_object_put(out);
        return NULL;
    }
    json_object_object_foreach(v, k, mv) {
        (void)mv;
        if (strcmp(k, "field") && strcmp(k, "op") && strcmp(k, "value")) {
            fs_error_add(p, verr, fs_json_pointer(p, ptr, k), "unknown",
                         "Unknown member; a condition on a field takes field, op and value.");
            ok = 0;
        }
    }
    json_object *ov = fs_json_get(v, "op"), *val = NULL;
    int has_val = json_object_object_get_ex(v, "value", &val);
    int op = json_object_is_type(ov, json_type_string) ? op_of(json_object_get_string(ov)) : -1;
    if (op < 0 || op == OP_NONE) {
        fs_error_add(p, verr, at(p, ptr, "op"), op < 0 ? "type" : "enum",
                     "op is one of equals, notEquals, in, gt, lt, contains, answered.");
        return NULL;
    }
    const char *vp = at(p, ptr, "value");
    if (op == OP_ANSWERED) {
        if (has_val) {
            fs_error_add(p, verr, vp, "unknown", "answered takes no value.");
            ok = 0;
        }
    } else if (!has_val) {
        fs_error_add(p, verr, vp, "required", "%s needs a value.", OPS[op]);
        ok = 0;
    } else if (op == OP_IN) {
        size_t n = json_object_is_type(val, json_type_array) ? json_object_array_length(val) : 0;
        if (!json_object_is_type(val, json_type_array)) {
            fs_error_add(p, verr, vp, "type", "The value of in is an array of values.");
            ok = 0;
        } else if (n < 1 || n > FS_COND_IN_MAX) {
            fs_error_add(p, verr, vp, n < 1 ? "minItems" : "maxItems", "in takes 1 to %d values.",
                         FS_COND_IN_MAX);
            ok = 0;
        }
        for (size_t i = 0; i < n && i < FS_COND_IN_MAX; i++)
            if (!is_scalar(json_object_array_get_idx(val, i))) {
                fs_error_add(p, verr, apr_psprintf(p, "%s/%" APR_SIZE_T_FMT, vp, i), "type",
                             "Each value is a string, number or boolean.");
                ok = 0;
            }
    } else if (op == OP_GT || op == OP_LT) {
        double d;
        if (!fs_json_number(val, &d)) {
            fs_error_add(p, verr, vp, "type", "The value of %s is a number.", OPS[op]);
            ok = 0;
        }
    } else if (op == OP_CONTAINS) {
        if (!json_object_is_type(val, json_type_string)) {
            fs_error_add(p, verr, vp, "type", "The value of contains is a string.");
            ok = 0;
        } else {
            apr_size_t n = fs_utf8_length(json_object_get_string(val));
            if (n < 1 || n > FS_COND_TEXT_MAX) {
                fs_error_add(p, verr, vp, n < 1 ? "minLength" : "maxLength",
                             "The value of contains is 1 to %d characters.", FS_COND_TEXT_MAX);
                ok = 0;
            }
        }
    } else if (!is_scalar(val)) {
        fs_error_add(p, verr, vp, "type", "The value of %s is a string, number or boolean.",
                     OPS[op]);
        ok = 0;
    }
    if (!ok)
        return NULL;
    json_object *out = json_object_new_object();
    json_object_object_add(out, "field", json_object_get(f));
    json_object_object_add(out, "op", json_object_new_string(OPS[op]));
    if (has_val)
        json_object_object_add(out, "value", copy(val));
    return out;
}

static json_object *parse_node(parse_ctx *x, json_object *v, const char *ptr, int depth) {
    apr_pool_t *p = x->p;
    fs_error *verr = x->verr;
    if (!json_object_is_type(v, json_type_object)) {
        fs_error_add(p, verr, ptr, "type",
                     "A condition is an object: {field, op, value}, {all: [...]}, {any: [...]} "
                     "or {not: {...}}.");
        return NULL;
    }
    if (++x->nodes > FS_COND_NODES_MAX) {
        if (x->nodes == FS_COND_NODES_MAX + 1)
            fs_error_add(p, verr, ptr, "maxItems", "A condition has at most %d parts.",
                         FS_COND_NODES_MAX);
        return NULL;
    }
    static const char *const leafy[] = {"field", "op", "value", "equals", "in", NULL};
    for (const char *const *m = leafy; *m; m++)
        if (json_object_object_get_ex(v, *m, NULL))
            return parse_leaf(x, v, ptr);
    const char *comb = NULL;
    int n = 0;
    json_object_object_foreach(v, k, mv) {
        (void)mv;
        if (!strcmp(k, "all") || !strcmp(k, "any") || !strcmp(k, "not")) {
            comb = k;
            n++;
        } else {
            fs_error_add(p, verr, fs_json_pointer(p, ptr, k), "unknown",
                         "Unknown member; a condition takes field with op and value, or one of "
                         "all, any and not.");
            return NULL;
        }
    }
    if (n != 1) {
        fs_error_add(p, verr, ptr, "required",
                     "A condition takes field (with op and value), or exactly one of all, any "
                     "and not.");
        return NULL;
    }
    const char *cp = at(p, ptr, comb);
    if (depth >= FS_COND_DEPTH_MAX) {
        fs_error_add(p, verr, cp, "maxItems",
                     "Conditions nest at most %d levels of all, any and not.", FS_COND_DEPTH_MAX);
        return NULL;
    }
    json_object *arg = fs_json_get(v, comb), *out = json_object_new_object();
    if (!strcmp(comb, "not")) {
        json_object *c = parse_node(x, arg, cp, depth + 1);
        if (!c) {
            json_object_put(out);
            return NULL;
        }
        json_object_object_add(out, "not", c);
        return out;
    }
    size_t len = json_object_is_type(arg, json_type_array) ? json_object_array_length(arg) : 0;
    if (!json_object_is_type(arg, json_type_array) || len < 1 || len > FS_COND_ITEMS_MAX) {
        fs_error_add(p, verr, cp,
                     !json_object_is_type(arg, json_type_array) ? "type"
                     : len < 1                                  ? "minItems"
                                                                : "maxItems",
                     "%s is an array of 1 to %d conditions.", comb, FS_COND_ITEMS_MAX);
        json_object_put(out);
        return NULL;
    }
    json_object *items = json_object_new_array();
    int ok = 1;
    for (size_t i = 0; i < len; i++) {
        json_object *c = parse_node(x, json_object_array_get_idx(arg, i),
                                    apr_psprintf(p, "%s/%" APR_SIZE_T_FMT, cp, i), depth + 1);
        if (c)
            json_object_array_add(items, c);
        else
            ok = 0;
    }
    json_object_object_add(out, comb, items);
    if (!ok) {
        json_object_put(out);
        return NULL;
    }
    return out;
}

json_object *fs_cond_parse(apr_pool_t *p, json_object *v, const char *ptr, fs_error *verr) {
    parse_ctx x = {p, verr, 0};
    return parse_node(&x, v, ptr, 0);
}

/* ---- the rules against the fields ---- */

static int check_leaf(apr_pool_t *p, json_object *c, const fs_cond_scope *sc, const char *ptr,
                      const char *fallback, fs_error *verr) {
    const char *key = json_object_get_string(fs_json_get(c, "field"));
    const char *who = ptr ? "" : (sc->who ? sc->who : "");
    const char *fp = ptr ? at(p, ptr, "field") : fallback;
    if (sc->self && !strcmp(key, sc->self)) {
        fs_error_add(p, verr, fp, "enum", "A field cannot depend on itself%s.", who);
        return 0;
    }
    apr_uintptr_t ti = (apr_uintptr_t)apr_hash_get(sc->index, key, APR_HASH_KEY_STRING);
    if (!ti) {
        fs_error_add(p, verr, fp, "enum", "No field of this form has the key \"%s\"%s.", key, who);
        return 0;
    }
    json_object *tf = json_object_array_get_idx(sc->fields, ti - 1);
    const char *tt = json_object_get_string(fs_json_get(tf, "type"));
    if (!strcmp(tt, "page")) {
        fs_error_add(p, verr, fp, "enum", "%s cannot depend on a page field (\"%s\")%s.", sc->what,
                     key, who);
        return 0;
    }
    if (sc->before >= 0 && (int)(ti - 1) >= sc->before) {
        fs_error_add(p, verr, fp, "enum",
                     "%s can only name a field defined before it (\"%s\" comes later)%s.", sc->what,
                     key, who);
        return 0;
    }
    int op;
    json_object *val = NULL;
    if (fs_cond_is_shorthand(c)) {
        if (!strcmp(tt, "multiselect") || !strcmp(tt, "file")) { /* today's words */
            fs_error_add(p, verr, fp, "enum", "%s cannot depend on a %s field (\"%s\")%s.",
                         sc->what, tt, key, who);
            return 0;
        }
        json_object *eq = NULL, *in = fs_json_get(c, "in");
        if (json_object_object_get_ex(c, "equals", &eq)) {
            if (!sc->fits(tf, eq)) {
                fs_error_add(p, verr, ptr ? at(p, ptr, "equals") : fallback, "type",
                             "equals must be a possible value of the %s field \"%s\"%s.", tt, key,
                             who);
                return 0;
            }
            return 1;
        }
        int ok = 1;
        for (size_t k = 0; k < json_object_array_length(in); k++)
            if (!sc->fits(tf, json_object_array_get_idx(in, k))) {
                fs_error_add(p, verr,
                             ptr ? apr_psprintf(p, "%s/in/%" APR_SIZE_T_FMT, ptr, k) : fallback,
                             "type",
                             "Each value of in must be a possible value of the %s field "
                             "\"%s\"%s.",
                             tt, key, who);
                ok = 0;
            }
        return ok;
    }
    op = op_of(json_object_get_string(fs_json_get(c, "op")));
    json_object_object_get_ex(c, "value", &val);
    const char *op_ptr = ptr ? at(p, ptr, "op") : fallback;
    const char *vp = ptr ? at(p, ptr, "value") : fallback;
    int numeric = !strcmp(tt, "number") || !strcmp(tt, "integer") || !strcmp(tt, "rating") ||
                  !strcmp(tt, "scale");
    int multi = !strcmp(tt, "multiselect");
    int texty = !strcmp(tt, "text") || !strcmp(tt, "textarea") || !strcmp(tt, "email") ||
                !strcmp(tt, "url") || !strcmp(tt, "tel") || !strcmp(tt, "hidden");
    switch (op) {
    case OP_EQUALS:
    case OP_NOT_EQUALS:
    case OP_IN:
        if (multi || !strcmp(tt, "file")) {
            fs_error_add(p, verr, op_ptr, "enum",
                         "%s does not apply to the %s field \"%s\" (use contains or "
                         "answered)%s.",
                         OPS[op], tt, key, who);
            return 0;
        }
        if (op != OP_IN) {
            if (!sc->fits(tf, val)) {
                fs_error_add(p, verr, vp, "type",
                             "The value must be a possible value of the %s field \"%s\"%s.", tt,
                             key, who);
                return 0;
            }
            return 1;
        }
        for (size_t k = 0; k < json_object_array_length(val); k++)
            if (!sc->fits(tf, json_object_array_get_idx(val, k))) {
                fs_error_add(
                    p, verr, ptr ? apr_psprintf(p, "%s/%" APR_SIZE_T_FMT, vp, k) : fallback, "type",
                    "Each value must be a possible value of the %s field \"%s\"%s.", tt, key, who);
                return 0;
            }
        return 1;
    case OP_GT:
    case OP_LT:
        if (!numeric) {
            fs_error_add(p, verr, op_ptr, "enum",
                         "%s applies to number, integer, rating and scale fields; \"%s\" is a %s "
                         "field%s.",
                         OPS[op], key, tt, who);
            return 0;
        }
        return 1;
    case OP_CONTAINS:
        if (multi) {
            json_object *opts = fs_json_get(tf, "options");
            for (size_t i = 0; opts && i < json_object_array_length(opts); i++)
                if (fs_json_equal(fs_json_get(json_object_array_get_idx(opts, i), "value"), val))
                    return 1;
            fs_error_add(p, verr, vp, "enum",
                         "The value of contains must be one of the options of \"%s\"%s.", key, who);
            return 0;
        }
        if (!texty) {
            fs_error_add(p, verr, op_ptr, "enum",
                         "contains applies to multiselect and text fields; \"%s\" is a %s "
                         "field%s.",
                         key, tt, who);
            return 0;
        }
        return 1;
    case OP_ANSWERED: return 1;
    default: return 0;
    }
}

int fs_cond_check(apr_pool_t *p, json_object *c, const fs_cond_scope *sc, const char *ptr,
                  const char *fallback, fs_error *verr) {
    if (!c || !json_object_is_type(c, json_type_object))
        return 0;
    if (json_object_object_get_ex(c, "field", NULL))
        return check_leaf(p, c, sc, ptr, fallback, verr);
    json_object *v;
    if (json_object_object_get_ex(c, "not", &v))
        return fs_cond_check(p, v, sc, ptr ? at(p, ptr, "not") : NULL, fallback, verr);
    const char *comb = json_object_object_get_ex(c, "all", &v) ? "all" : "any";
    if (!json_object_object_get_ex(c, comb, &v))
        return 0;
    int ok = 1;
    for (size_t i = 0; i < json_object_array_length(v); i++)
        ok &= fs_cond_check(p, json_object_array_get_idx(v, i), sc,
                            ptr ? apr_psprintf(p, "%s/%s/%" APR_SIZE_T_FMT, ptr, comb, i) : NULL,
                            fallback, verr);
    return ok;
}

static void keys_of(json_object *c, apr_array_header_t *keys, int depth) {
    if (!c || !json_object_is_type(c, json_type_object) || depth > EVAL_DEPTH)
        return;
    json_object *v = fs_json_get(c, "field");
    if (v) {
        if (json_object_is_type(v, json_type_string))
            APR_ARRAY_PUSH(keys, const char *) = json_object_get_string(v);
        return;
    }
    if ((v = fs_json_get(c, "not"))) {
        keys_of(v, keys, depth + 1);
        return;
    }
    if (!(v = fs_json_get(c, "all")))
        v = fs_json_get(c, "any");
    for (size_t i = 0;
         v && json_object_is_type(v, json_type_array) && i < json_object_array_length(v); i++)
        keys_of(json_object_array_get_idx(v, i), keys, depth + 1);
}

void fs_cond_keys(json_object *c, apr_array_header_t *keys) {
    keys_of(c, keys, 0);
}

static int each_key(json_object *c, int (*fn)(void *, const char *), void *ctx, int depth) {
    if (!c || !json_object_is_type(c, json_type_object) || depth > EVAL_DEPTH)
        return 1;
    json_object *v = fs_json_get(c, "field");
    if (v)
        return !json_object_is_type(v, json_type_string) || fn(ctx, json_object_get_string(v));
    if ((v = fs_json_get(c, "not")))
        return each_key(v, fn, ctx, depth + 1);
    if (!(v = fs_json_get(c, "all")))
        v = fs_json_get(c, "any");
    for (size_t i = 0;
         v && json_object_is_type(v, json_type_array) && i < json_object_array_length(v); i++)
        if (!each_key(json_object_array_get_idx(v, i), fn, ctx, depth + 1))
            return 0;
    return 1;
}

int fs_cond_each_key(json_object *c, int (*fn)(void *ctx, const char *key), void *ctx) {
    return each_key(c, fn, ctx, 0);
}

/* ---- evaluation ---- */

static int in_list(json_object *list, json_object *v) {
    for (size_t i = 0;
         list && json_object_is_type(list, json_type_array) && i < json_object_array_length(list);
         i++)
        if (fs_json_equal(json_object_array_get_idx(list, i), v))
            return 1;
    return 0;
}

static int eval_leaf(json_object *c, json_object *answers) {
    json_object *kv = fs_json_get(c, "field"), *ans = NULL, *val = NULL;
    if (!json_object_is_type(kv, json_type_string))
        return 0;
    int present = answers && json_object_object_get_ex(answers, json_object_get_string(kv), &ans);
    if (fs_cond_is_shorthand(c)) {
        if (!present)
            return 0;
        if (json_object_object_get_ex(c, "equals", &val))
            return fs_json_equal(ans, val);
        return in_list(fs_json_get(c, "in"), ans);
    }
    int op = op_of(json_object_get_string(fs_json_get(c, "op")));
    int has_val = json_object_object_get_ex(c, "value", &val);
    if (op == OP_NONE || (op != OP_ANSWERED && !has_val))
        return 0;
    if (op == OP_NOT_EQUALS)
        return !(present && fs_json_equal(ans, val));
    if (!present)
        return 0;
    double a, b;
    switch (op) {
    case OP_EQUALS: return fs_json_equal(ans, val);
    case OP_IN: return in_list(val, ans);
    case OP_GT: return fs_json_number(ans, &a) && fs_json_number(val, &b) && a > b;
    case OP_LT: return fs_json_number(ans, &a) && fs_json_number(val, &b) && a < b;
    case OP_CONTAINS:
        if (json_object_is_type(ans, json_type_array))
            return in_list(ans, val);
        if (json_object_is_type(ans, json_type_string) &&
            json_object_is_type(val, json_type_string))
            return memmem(json_object_get_string(ans), (size_t)json_object_get_string_len(ans),
                          json_object_get_string(val),
                          (size_t)json_object_get_string_len(val)) != NULL;
        return 0;
    case OP_ANSWERED: return 1;
    default: return 0;
    }
}

static int eval_node(json_object *c, json_object *answers, int depth) {
    if (!c || !json_object_is_type(c, json_type_object) || depth > EVAL_DEPTH)
        return 0;
    if (json_object_object_get_ex(c, "field", NULL))
        return eval_leaf(c, answers);
    json_object *v;
    if (json_object_object_get_ex(c, "not", &v))
        return v && json_object_is_type(v, json_type_object) && !eval_node(v, answers, depth + 1);
    int all = json_object_object_get_ex(c, "all", &v);
    if (!all && !json_object_object_get_ex(c, "any", &v))
        return 0;
    if (!v || !json_object_is_type(v, json_type_array) || !json_object_array_length(v))
        return 0;
    for (size_t i = 0; i < json_object_array_length(v); i++) {
        int h = eval_node(json_object_array_get_idx(v, i), answers, depth + 1);
        if (all && !h)
            return 0;
        if (!all && h)
            return 1;
    }
    return all;
}

int fs_cond_eval(json_object *c, json_object *answers) {
    return eval_node(c, answers, 0);
}

/* ---- the schema ---- */

const char *fs_cond_literal_re(apr_pool_t *p, const char *s) {
    apr_size_t n = strlen(s);
    char *out = apr_palloc(p, 2 * n + 1), *o = out;
    for (const char *c = s; *c; c++) {
        if (strchr("^$\\.*+?()[]{}|/", *c))
            *o++ = '\\';
        *o++ = *c;
    }
    *o = '\0';
    return out;
}

/* {"properties": {key: sub}, "required": [key]} (sub NULL: required only) */
static json_object *member(const char *key, json_object *sub) {
    json_object *o = json_object_new_object(), *req = json_object_new_array();
    if (sub) {
        json_object *props = json_object_new_object();
        json_object_object_add(props, key, sub);
        json_object_object_add(o, "properties", props);
    }
    json_object_array_add(req, json_object_new_string(key));
    json_object_object_add(o, "required", req);
    return o;
}

static json_object *one(const char *k, json_object *v) {
    json_object *o = json_object_new_object();
    json_object_object_add(o, k, v);
    return o;
}

static json_object *schema_leaf(apr_pool_t *p, json_object *c,
                                int (*multiselect)(const void *, const char *), const void *ctx) {
    json_object *kv = fs_json_get(c, "field"), *val = NULL;
    if (!json_object_is_type(kv, json_type_string))
        return json_object_new_boolean(0);
    const char *key = json_object_get_string(kv);
    if (fs_cond_is_shorthand(c)) {
        if (json_object_object_get_ex(c, "equals", &val))
            return member(key, one("const", json_object_get(val)));
        json_object *in = fs_json_get(c, "in");
        if (!json_object_is_type(in, json_type_array))
            return json_object_new_boolean(0);
        return member(key, one("enum", json_object_get(in)));
    }
    int op = op_of(json_object_get_string(fs_json_get(c, "op")));
    int has_val = json_object_object_get_ex(c, "value", &val);
    if (op == OP_NONE || (op != OP_ANSWERED && !has_val))
        return json_object_new_boolean(0);
    switch (op) {
    case OP_EQUALS: return member(key, one("const", json_object_get(val)));
    case OP_NOT_EQUALS: return one("not", member(key, one("const", json_object_get(val))));
    case OP_IN:
        if (!json_object_is_type(val, json_type_array))
            return json_object_new_boolean(0);
        return member(key, one("enum", json_object_get(val)));
    case OP_GT:
    case OP_LT: {
        double d;
        if (!fs_json_number(val, &d))
            return json_object_new_boolean(0);
        json_object *s = one("type", json_object_new_string("number"));
        json_object_object_add(s, op == OP_GT ? "exclusiveMinimum" : "exclusiveMaximum",
                               json_object_get(val));
        return member(key, s);
    }
    case OP_CONTAINS: {
        json_object *s;
        if (multiselect && multiselect(ctx, key)) {
            s = one("type", json_object_new_string("array"));
            json_object_object_add(s, "contains", one("const", json_object_get(val)));
        } else {
            if (!json_object_is_type(val, json_type_string))
                return json_object_new_boolean(0);
            s = one("type", json_object_new_string("string"));
            json_object_object_add(
                s, "pattern",
                json_object_new_string(fs_cond_literal_re(p, json_object_get_string(val))));
        }
        return member(key, s);
    }
    case OP_ANSWERED: return member(key, NULL);
    default: return json_object_new_boolean(0);
    }
}

static json_object *schema_node(apr_pool_t *p, json_object *c,
                                int (*multiselect)(const void *, const char *), const void *ctx,
                                int depth) {
    if (!c || !json_object_is_type(c, json_type_object) || depth > EVAL_DEPTH)
        return json_object_new_boolean(0);
    if (json_object_object_get_ex(c, "field", NULL))
        return schema_leaf(p, c, multiselect, ctx);
    json_object *v;
    if (json_object_object_get_ex(c, "not", &v)) {
        if (!v || !json_object_is_type(v, json_type_object))
            return json_object_new_boolean(0);
        return one("not", schema_node(p, v, multiselect, ctx, depth + 1));
    }
    int all = json_object_object_get_ex(c, "all", &v);
    if (!all && !json_object_object_get_ex(c, "any", &v))
        return json_object_new_boolean(0);
    if (!v || !json_object_is_type(v, json_type_array) || !json_object_array_length(v))
        return json_object_new_boolean(0);
    json_object *items = json_object_new_array();
    for (size_t i = 0; i < json_object_array_length(v); i++)
        json_object_array_add(
            items, schema_node(p, json_object_array_get_idx(v, i), multiselect, ctx, depth + 1));
    return one(all ? "allOf" : "anyOf", items);
}

json_object *fs_cond_schema(apr_pool_t *p, json_object *c,
                            int (*multiselect)(const void *ctx, const char *key), const void *ctx) {
    return schema_node(p, c, multiselect, ctx, 0);
}

/* ---- settings.logic: page jumps ---- */

json_object *fs_logic_parse(apr_pool_t *p, json_object *v, const char *ptr, fs_error *verr) {
    if (!json_object_is_type(v, json_type_array)) {
        fs_error_add(p, verr, ptr, "type",
                     "logic is an array of rules {from, when, then: {goTo}}, or null.");
        return NULL;
    }
    size_t n = json_object_array_length(v);
    if (n > FS_LOGIC_RULES_MAX) {
        fs_error_add(p, verr, ptr, "maxItems", "logic has at most %d rules.", FS_LOGIC_RULES_MAX);
        return NULL;
    }
    json_object *out = json_object_new_array();
    int ok = 1;
    for (size_t i = 0; i < n; i++) {
        json_object *r = json_object_array_get_idx(v, i);
        const char *rp = apr_psprintf(p, "%s/%" APR_SIZE_T_FMT, ptr, i);
        if (!json_object_is_type(r, json_type_object)) {
            fs_error_add(p, verr, rp, "type", "A rule is an object {from, when, then: {goTo}}.");
            ok = 0;
            continue;
        }
        json_object_object_foreach(r, k, mv) {
            (void)mv;
            if (strcmp(k, "from") && strcmp(k, "when") && strcmp(k, "then")) {
                fs_error_add(p, verr, fs_json_pointer(p, rp, k), "unknown",
                             "Unknown member; a rule takes from, when and then.");
                ok = 0;
            }
        }
        json_object *from = fs_json_get(r, "from"), *when = fs_json_get(r, "when"), *w = NULL;
        json_object *then = fs_json_get(r, "then"), *go = fs_json_get(then, "goTo");
        if (from && !(json_object_is_type(from, json_type_string) &&
                      key_ok(json_object_get_string(from)))) {
            fs_error_add(p, verr, at(p, rp, "from"), "type",
                         "from is the key of the page field the rule leaves.");
            ok = 0;
        }
        if (when && !(w = fs_cond_parse(p, when, at(p, rp, "when"), verr)))
            ok = 0;
        /* then: a jump (goTo), calculate actions (fs_scores.h), or both */
        json_object *cv = fs_json_get(then, "calculate"), *calc = NULL;
        if (!when && !from && (go || !cv)) {
            fs_error_add(p, verr, at(p, rp, "from"), "required",
                         "A rule without when needs from: the page it always leaves for goTo.");
            ok = 0;
        }
        if (from && !go && cv) {
            fs_error_add(p, verr, at(p, rp, "from"), "unknown",
                         "from names the page a jump leaves: a rule without goTo takes none.");
            ok = 0;
        }
        if (!json_object_is_type(then, json_type_object)) {
            fs_error_add(p, verr, at(p, rp, "then"), then ? "type" : "required",
                         "then is an object {goTo: <page key> | \"end\", calculate: [...]}.");
            ok = 0;
        } else {
            json_object_object_foreach(then, tk, tv) {
                (void)tv;
                if (strcmp(tk, "goTo") && strcmp(tk, "calculate")) {
                    fs_error_add(p, verr, fs_json_pointer(p, at(p, rp, "then"), tk), "unknown",
                                 "Unknown member; then takes goTo and calculate.");
                    ok = 0;
                }
            }
            if ((go || !cv) && (!json_object_is_type(go, json_type_string) ||
                                (strcmp(json_object_get_string(go), "end") &&
                                 !key_ok(json_object_get_string(go))))) {
                fs_error_add(p, verr, at(p, rp, "then/goTo"), go ? "type" : "required",
                             "goTo is the key of a page field, or \"end\".");
                ok = 0;
            }
            if (cv && !(calc = fs_calc_parse(p, cv, at(p, rp, "then/calculate"), verr)))
                ok = 0;
        }
        if (!ok) {
            json_object_put(w);
            json_object_put(calc);
            continue;
        }
        json_object *o = json_object_new_object(), *t = json_object_new_object();
        if (from)
            json_object_object_add(o, "from", json_object_get(from));
        if (w)
            json_object_object_add(o, "when", w);
        if (go)
            json_object_object_add(t, "goTo", json_object_get(go));
        if (calc)
            json_object_object_add(t, "calculate", calc);
        json_object_object_add(o, "then", t);
        json_object_array_add(out, o);
    }
    if (!ok) {
        json_object_put(out);
        return NULL;
    }
    return out;
}
