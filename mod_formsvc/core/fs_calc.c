/* fs_calc: the calculate actions of settings.logic and their arithmetic
 * (fs_calc.h). */
#include "fs_calc.h"
#include "fs_json.h"

#include <apr_strings.h>
#include <string.h>

static const char *at(apr_pool_t *p, const char *ptr, const char *member) {
    return apr_pstrcat(p, ptr, "/", member, NULL);
}

static const char *const CALC_OPS[] = {"add", "subtract", "multiply", "set", NULL};

static int calc_op_known(const char *s) {
    for (const char *const *o = CALC_OPS; s && *o; o++)
        if (!strcmp(*o, s))
            return 1;
    return 0;
}

/* A variable's or a field's key: ^[a-z][a-z0-9_]{0,63}$ (as
 * fs_field_key_valid, which this file does not include: fs_field
 * includes fs_logic, which includes this). */
static int key_ok(const char *k) {
    size_t n = 0;
    if (!k || !(*k >= 'a' && *k <= 'z'))
        return 0;
    for (; k[n]; n++)
        if (!((k[n] >= 'a' && k[n] <= 'z') || (k[n] >= '0' && k[n] <= '9') || k[n] == '_'))
            return 0;
    return n <= 64;
}

/* An integer literal within +-limit: 1, or 0 after an error at ptr. */
int fs_calc_int(apr_pool_t *p, json_object *v, long long limit, const char *ptr, const char *name,
                fs_error *verr) {
    if (!json_object_is_type(v, json_type_int)) {
        fs_error_add(p, verr, ptr, "type",
                     "%s is an integer (scores and calculations use integers only, so that "
                     "they are exact), not %s.",
                     name, fs_json_type_name(v));
        return 0;
    }
    long long x = (long long)json_object_get_int64(v);
    if (x > limit || x < -limit) {
        fs_error_add(p, verr, ptr, x > limit ? "maximum" : "minimum",
                     "%s is from -%" APR_INT64_T_FMT " to %" APR_INT64_T_FMT ".", name,
                     (apr_int64_t)limit, (apr_int64_t)limit);
        return 0;
    }
    return 1;
}

static long long clamp(long long x) {
    return x > FS_CALC_LIMIT ? FS_CALC_LIMIT : x < -FS_CALC_LIMIT ? -FS_CALC_LIMIT : x;
}

long long fs_calc_apply(long long v, const char *op, long long x) {
    v = clamp(v);
    x = clamp(x); /* so that add and subtract cannot overflow */
    long long r = v;
    if (!op)
        return v;
    if (!strcmp(op, "set"))
        r = x;
    else if (!strcmp(op, "add"))
        r = v + x;
    else if (!strcmp(op, "subtract"))
        r = v - x;
    else if (!strcmp(op, "multiply") && __builtin_mul_overflow(v, x, &r))
        r = (v < 0) != (x < 0) ? -FS_CALC_LIMIT : FS_CALC_LIMIT;
    return clamp(r);
}

/* ---- calculate actions ---- */

json_object *fs_calc_parse(apr_pool_t *p, json_object *v, const char *ptr, fs_error *verr) {
    if (!json_object_is_type(v, json_type_array) || json_object_array_length(v) < 1) {
        fs_error_add(p, verr, ptr, json_object_is_type(v, json_type_array) ? "minItems" : "type",
                     "calculate is an array of 1 to %d actions {variable, op, value}.",
                     FS_CALC_ACTIONS_MAX);
        return NULL;
    }
    size_t n = json_object_array_length(v);
    if (n > FS_CALC_ACTIONS_MAX) {
        fs_error_add(p, verr, ptr, "maxItems", "calculate has at most %d actions.",
                     FS_CALC_ACTIONS_MAX);
        return NULL;
    }
    int before = verr->errors ? verr->errors->nelts : 0;
    json_object *out = json_object_new_array();
    for (size_t i = 0; i < n; i++) {
        json_object *a = json_object_array_get_idx(v, i);
        const char *ap = apr_psprintf(p, "%s/%" APR_SIZE_T_FMT, ptr, i);
        if (!json_object_is_type(a, json_type_object)) {
            fs_error_add(p, verr, ap, "type", "An action is an object {variable, op, value}.");
            continue;
        }
        json_object_object_foreach(a, k, mv) {
            (void)mv;
            if (strcmp(k, "variable") && strcmp(k, "op") && strcmp(k, "value"))
                fs_error_add(p, verr, fs_json_pointer(p, ap, k), "unknown",
                             "Unknown member; an action takes variable, op and value.");
        }
        json_object *vv = fs_json_get(a, "variable"), *ov = fs_json_get(a, "op");
        json_object *val = fs_json_get(a, "value");
        const char *var =
            json_object_is_type(vv, json_type_string) ? json_object_get_string(vv) : NULL;
        if (!var || !key_ok(var))
            fs_error_add(p, verr, at(p, ap, "variable"),
                         !vv   ? "required"
                         : var ? "pattern"
                               : "type",
                         "variable is the name of a variable of settings.variables.");
        const char *op =
            json_object_is_type(ov, json_type_string) ? json_object_get_string(ov) : NULL;
        if (!calc_op_known(op))
            fs_error_add(p, verr, at(p, ap, "op"),
                         !ov  ? "required"
                         : op ? "enum"
                              : "type",
                         "op is add, subtract, multiply or set (nothing divides).");
        const char *vp = at(p, ap, "value");
        if (!val)
            fs_error_add(p, verr, vp, "required",
                         "value is an integer, a text or {\"field\": <key>}.");
        else if (json_object_is_type(val, json_type_int))
            fs_calc_int(p, val, FS_CALC_LIMIT, vp, "value", verr);
        else if (json_object_is_type(val, json_type_string))
            fs_json_text(p, val, vp, "value", 0, FS_VAR_TEXT_MAX, 0, verr);
        else if (json_object_is_type(val, json_type_object)) {
            json_object *fk = fs_json_get(val, "field");
            json_object_object_foreach(val, k2, mv2) {
                (void)mv2;
                if (strcmp(k2, "field"))
                    fs_error_add(p, verr, fs_json_pointer(p, vp, k2), "unknown",
                                 "Unknown member; a value from an answer is {\"field\": <key>}.");
            }
            if (!json_object_is_type(fk, json_type_string) || !key_ok(json_object_get_string(fk)))
                fs_error_add(p, verr, at(p, vp, "field"), fk ? "type" : "required",
                             "field is the key of a question of this form.");
        } else
            fs_error_add(p, verr, vp, "type",
                         "value is an integer, a text or {\"field\": <key>}, not %s (scores "
                         "and calculations use integers only, so that they are exact).",
                         fs_json_type_name(val));
        if ((verr->errors ? verr->errors->nelts : 0) > before)
            continue;
        json_object *o = json_object_new_object();
        json_object_object_add(o, "variable", json_object_new_string(var));
        json_object_object_add(o, "op", json_object_new_string(op));
        json_object *cv = NULL;
        json_object_deep_copy(val, &cv, NULL);
        json_object_object_add(o, "value", cv);
        json_object_array_add(out, o);
    }
    if ((verr->errors ? verr->errors->nelts : 0) > before) {
        json_object_put(out);
        return NULL;
    }
    return out;
}
