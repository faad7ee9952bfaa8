/* fs_scores: scores and calculations of a form (fs_scores.h). */
#include "fs_scores.h"
#include "fs_calc.h"
#include "fs_csv.h"
#include "fs_field.h"
#include "fs_json.h"
#include "fs_logic.h"
#include "fs_quiz.h"

#include <apr_hash.h>
#include <apr_strings.h>
#include <string.h>

static const char *at(apr_pool_t *p, const char *ptr, const char *member) {
    return apr_pstrcat(p, ptr, "/", member, NULL);
}

static long long clamp(long long x) {
    return x > FS_CALC_LIMIT ? FS_CALC_LIMIT : x < -FS_CALC_LIMIT ? -FS_CALC_LIMIT : x;
}

/* ---- settings.variables, settings.showScore ---- */

static json_object *variables_parse(apr_pool_t *p, json_object *v, const char *ptr,
                                    fs_error *verr) {
    if (!json_object_is_type(v, json_type_array)) {
        fs_error_add(p, verr, ptr, "type",
                     "variables is an array of {name, type: number|text, initial}, or null.");
        return NULL;
    }
    size_t n = json_object_array_length(v);
    if (n > FS_VARIABLES_MAX) {
        fs_error_add(p, verr, ptr, "maxItems", "variables has at most %d items.", FS_VARIABLES_MAX);
        return NULL;
    }
    int before = verr->errors ? verr->errors->nelts : 0;
    json_object *out = json_object_new_array();
    apr_hash_t *names = apr_hash_make(p);
    for (size_t i = 0; i < n; i++) {
        json_object *it = json_object_array_get_idx(v, i);
        const char *ip = apr_psprintf(p, "%s/%" APR_SIZE_T_FMT, ptr, i);
        if (!json_object_is_type(it, json_type_object)) {
            fs_error_add(p, verr, ip, "type",
                         "A variable is an object {name, type: number|text, initial}.");
            continue;
        }
        json_object_object_foreach(it, k, mv) {
            (void)mv;
            if (strcmp(k, "name") && strcmp(k, "type") && strcmp(k, "initial"))
                fs_error_add(p, verr, fs_json_pointer(p, ip, k), "unknown",
                             "Unknown member; a variable takes name, type and initial.");
        }
        json_object *nv = fs_json_get(it, "name"), *tv = fs_json_get(it, "type");
        json_object *iv = fs_json_get(it, "initial");
        const char *name =
            json_object_is_type(nv, json_type_string) ? json_object_get_string(nv) : NULL;
        if (!name || !fs_field_key_valid(name)) {
            fs_error_add(p, verr, at(p, ip, "name"),
                         !nv    ? "required"
                         : name ? "pattern"
                                : "type",
                         "name names the variable: ^[a-z][a-z0-9_]{0,63}$.");
            name = NULL;
        } else if (apr_hash_get(names, name, APR_HASH_KEY_STRING)) {
            fs_error_add(p, verr, at(p, ip, "name"), "unique", "Another variable is named %s.",
                         name);
            name = NULL;
        } else {
            apr_hash_set(names, name, APR_HASH_KEY_STRING, "");
        }
        const char *type =
            json_object_is_type(tv, json_type_string) ? json_object_get_string(tv) : NULL;
        if (!type || (strcmp(type, "number") && strcmp(type, "text"))) {
            fs_error_add(p, verr, at(p, ip, "type"),
                         !tv    ? "required"
                         : type ? "enum"
                                : "type",
                         "type is number (an integer) or text.");
            continue;
        }
        json_object *init = NULL;
        int num = !strcmp(type, "number");
        if (iv && !json_object_is_type(iv, json_type_null)) {
            if (num && fs_calc_int(p, iv, FS_CALC_LIMIT, at(p, ip, "initial"), "initial", verr))
                init = json_object_new_int64(json_object_get_int64(iv));
            else if (!num) {
                const char *t = fs_json_text(p, iv, at(p, ip, "initial"), "initial", 0,
                                             FS_VAR_TEXT_MAX, 0, verr);
                init = t ? json_object_new_string(t) : NULL;
            }
        } else {
            init = num ? json_object_new_int64(0) : json_object_new_string("");
        }
        if (!name || !init) {
            json_object_put(init);
            continue;
        }
        json_object *o = json_object_new_object();
        json_object_object_add(o, "name", json_object_new_string(name));
        json_object_object_add(o, "type", json_object_new_string(type));
        json_object_object_add(o, "initial", init);
        json_object_array_add(out, o);
    }
    if ((verr->errors ? verr->errors->nelts : 0) > before) {
        json_object_put(out);
        return NULL;
    }
    return out;
}

void fs_scores_settings_parse(apr_pool_t *p, json_object *s, const char *ptr, json_object *out,
                              fs_error *verr) {
    json_object *v = fs_json_get(s, "variables");
    if (v && !json_object_is_type(v, json_type_null)) {
        json_object *vars = variables_parse(p, v, at(p, ptr, "variables"), verr);
        if (vars && json_object_array_length(vars))
            json_object_object_add(out, "variables", vars);
        else
            json_object_put(vars);
    }
    v = fs_json_get(s, "showScore");
    if (v && !json_object_is_type(v, json_type_null)) {
        if (!json_object_is_type(v, json_type_boolean))
            fs_error_add(p, verr, at(p, ptr, "showScore"), "type", "showScore must be a boolean.");
        else if (json_object_get_boolean(v))
            json_object_object_add(out, "showScore", json_object_new_boolean(1));
    }
}

/* ---- the rules against the fields ---- */

/* A field answered with one string (a text variable may take it). */
static int text_answered(int t) {
    return t == FS_FT_TEXT || t == FS_FT_TEXTAREA || t == FS_FT_EMAIL || t == FS_FT_URL ||
           t == FS_FT_TEL || t == FS_FT_DATE || t == FS_FT_DATETIME || t == FS_FT_SELECT ||
           t == FS_FT_HIDDEN;
}

void fs_scores_fields_check(apr_pool_t *p, json_object *settings, json_object *fields,
                            fs_error *verr) {
    json_object *rules = fs_json_get(settings, "logic");
    size_t n =
        rules && json_object_is_type(rules, json_type_array) ? json_object_array_length(rules) : 0;
    if (!n)
        return;
    apr_hash_t *vars = apr_hash_make(p), *index = apr_hash_make(p);
    json_object *vl = fs_json_get(settings, "variables");
    for (size_t i = 0; json_object_is_type(vl, json_type_array) && i < json_object_array_length(vl);
         i++) {
        json_object *v = json_object_array_get_idx(vl, i);
        apr_hash_set(vars, json_object_get_string(fs_json_get(v, "name")), APR_HASH_KEY_STRING,
                     json_object_get_string(fs_json_get(v, "type")));
    }
    for (size_t i = 0;
         json_object_is_type(fields, json_type_array) && i < json_object_array_length(fields);
         i++) {
        json_object *f = json_object_array_get_idx(fields, i);
        apr_hash_set(index, json_object_get_string(fs_json_get(f, "key")), APR_HASH_KEY_STRING, f);
    }
    for (size_t i = 0; i < n; i++) {
        json_object *calc =
            fs_json_get(fs_json_get(json_object_array_get_idx(rules, i), "then"), "calculate");
        for (size_t j = 0;
             json_object_is_type(calc, json_type_array) && j < json_object_array_length(calc);
             j++) {
            json_object *a = json_object_array_get_idx(calc, j);
            const char *ap = apr_psprintf(
                p, "/settings/logic/%" APR_SIZE_T_FMT "/then/calculate/%" APR_SIZE_T_FMT, i, j);
            const char *var = json_object_get_string(fs_json_get(a, "variable"));
            const char *op = json_object_get_string(fs_json_get(a, "op"));
            const char *type = var ? apr_hash_get(vars, var, APR_HASH_KEY_STRING) : NULL;
            if (!type) {
                fs_error_add(p, verr, at(p, ap, "variable"), "enum",
                             "\"%s\" is not a variable of settings.variables.", var ? var : "");
                continue;
            }
            int num = !strcmp(type, "number");
            if (!num && op && strcmp(op, "set"))
                fs_error_add(p, verr, at(p, ap, "op"), "enum",
                             "%s is a text variable: its only op is set.", var);
            json_object *val = fs_json_get(a, "value");
            if (json_object_is_type(val, json_type_object)) {
                const char *k = json_object_get_string(fs_json_get(val, "field"));
                json_object *f = k ? apr_hash_get(index, k, APR_HASH_KEY_STRING) : NULL;
                int t = f ? fs_field_type_of(json_object_get_string(fs_json_get(f, "type"))) : -1;
                if (!f || t == FS_FT_PAGE)
                    fs_error_add(p, verr, at(p, ap, "value/field"), "enum",
                                 "\"%s\" is not a question of this form.", k ? k : "");
                else if (num && t != FS_FT_INTEGER && t != FS_FT_RATING && t != FS_FT_SCALE)
                    fs_error_add(p, verr, at(p, ap, "value/field"), "type",
                                 "%s is a number variable: it takes the answer of an integer, "
                                 "rating or scale question, and %s is a %s question.",
                                 var, k, json_object_get_string(fs_json_get(f, "type")));
                else if (!num && !text_answered(t))
                    fs_error_add(p, verr, at(p, ap, "value/field"), "type",
                                 "%s is a text variable: it takes the answer of a question "
                                 "answered with one text or option, and %s is a %s question.",
                                 var, k, json_object_get_string(fs_json_get(f, "type")));
            } else if (num != json_object_is_type(val, json_type_int)) {
                fs_error_add(p, verr, at(p, ap, "value"), "type",
                             num ? "%s is a number variable: its value is an integer or "
                                   "{\"field\": <key>}."
                                 : "%s is a text variable: its value is a text or "
                                   "{\"field\": <key>}.",
                             var);
            }
        }
    }
}

/* ---- the result ---- */

static int same_answer(json_object *a, json_object *b) {
    int an = json_object_is_type(a, json_type_int) || json_object_is_type(a, json_type_double);
    int bn = json_object_is_type(b, json_type_int) || json_object_is_type(b, json_type_double);
    if (an && bn)
        return json_object_get_double(a) == json_object_get_double(b);
    return json_object_equal(a, b);
}

/* 1 when the array a holds the same strings as the array c, each once. */
/* The strings of an array (or a lone string) as a set: value -> its
 * place + 1; repeats kept once. In p. */
static apr_hash_t *string_set(apr_pool_t *p, json_object *a) {
    apr_hash_t *h = apr_hash_make(p);
    if (json_object_is_type(a, json_type_string))
        apr_hash_set(h, json_object_get_string(a), APR_HASH_KEY_STRING, (void *)1);
    for (size_t i = 0; json_object_is_type(a, json_type_array) && i < json_object_array_length(a);
         i++) {
        json_object *v = json_object_array_get_idx(a, i);
        if (json_object_is_type(v, json_type_string))
            apr_hash_set(h, json_object_get_string(v), APR_HASH_KEY_STRING,
                         (void *)(apr_uintptr_t)(i + 1));
    }
    return h;
}

/* 1 when the array a holds exactly the strings of the array c (each
 * once, in any order). Linear: one set of c. */
static int same_set(apr_pool_t *p, json_object *a, json_object *c) {
    if (!json_object_is_type(a, json_type_array) || !json_object_is_type(c, json_type_array))
        return 0;
    apr_hash_t *want = string_set(p, c), *got = string_set(p, a);
    if (apr_hash_count(got) != json_object_array_length(a) ||
        apr_hash_count(got) != apr_hash_count(want))
        return 0;
    for (apr_hash_index_t *hi = apr_hash_first(p, got); hi; hi = apr_hash_next(hi)) {
        const void *k;
        apr_hash_this(hi, &k, NULL, NULL);
        if (!apr_hash_get(want, k, APR_HASH_KEY_STRING))
            return 0;
    }
    return 1;
}

/* The sum of the scores of the options chosen (a select's string or a
 * multiselect's array; each option once). Linear: one set of the answer. */
static long long chosen_score(apr_pool_t *p, json_object *opts, json_object *a) {
    apr_hash_t *chosen = string_set(p, a);
    long long sum = 0;
    for (size_t i = 0; apr_hash_count(chosen) && i < json_object_array_length(opts); i++) {
        json_object *o = json_object_array_get_idx(opts, i);
        if (apr_hash_get(chosen, json_object_get_string(fs_json_get(o, "value")),
                         APR_HASH_KEY_STRING))
            sum += (long long)json_object_get_int64(fs_json_get(o, "score"));
    }
    return sum;
}

/* What a question scored by its options can give at most: the best
 * option of a select, the best choices a multiselect may make (at most
 * its maxItems) otherwise; never below 0. */
static long long options_max(apr_pool_t *p, json_object *opts, const fs_field *f) {
    size_t n = json_object_array_length(opts), k = 0;
    long long *pos = apr_pcalloc(p, sizeof(long long) * (n ? n : 1));
    for (size_t i = 0; i < n; i++) {
        long long s = (long long)json_object_get_int64(
            fs_json_get(json_object_array_get_idx(opts, i), "score"));
        if (s <= 0)
            continue;
        size_t j = k++; /* insertion, descending */
        for (; j > 0 && pos[j - 1] < s; j--)
            pos[j] = pos[j - 1];
        pos[j] = s;
    }
    size_t take = f->type == FS_FT_MULTISELECT ? k : (k ? 1 : 0);
    if (f->type == FS_FT_MULTISELECT && f->has_max_items && (size_t)f->max_items < take)
        take = (size_t)f->max_items;
    long long m = 0;
    for (size_t i = 0; i < take; i++)
        m += pos[i];
    return m;
}

/* Cuts s to FS_VAR_TEXT_MAX characters (UTF-8, on a character boundary). */
static const char *text_cut(apr_pool_t *p, const char *s) {
    size_t chars = 0, i = 0;
    for (; s[i]; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80 && ++chars > FS_VAR_TEXT_MAX)
            return apr_pstrndup(p, s, i);
    return s;
}

json_object *fs_calculated(apr_pool_t *p, json_object *settings, json_object *fields,
                           const fs_fieldset *fs, json_object *answers) {
    json_object *vl = fs_json_get(settings, "variables");
    size_t nv = json_object_is_type(vl, json_type_array) ? json_object_array_length(vl) : 0;
    int quiz = fs_quiz_is(fields);
    if (!quiz && !nv)
        return NULL;
    json_object *out = json_object_new_object();
    if (quiz) {
        const char *path = fs_fieldset_path(p, fs, answers);
        long long score = 0, max = 0;
        for (size_t i = 0; i < json_object_array_length(fields); i++) {
            json_object *fj = json_object_array_get_idx(fields, i);
            json_object *correct = fs_json_get(fj, "correct"), *opts = fs_json_get(fj, "options");
            int by_options = !correct && fs_quiz_options_scored(opts);
            const fs_field *f =
                fs_fieldset_find(fs, json_object_get_string(fs_json_get(fj, "key")));
            if ((!correct && !by_options) || !f || !fs_field_applies(f, answers, path))
                continue; /* not scored, or not asked: neither score nor max */
            json_object *a = NULL;
            json_object_object_get_ex(answers, f->key, &a);
            if (correct) {
                max += 1;
                score += a && (f->type == FS_FT_MULTISELECT ? same_set(p, a, correct)
                                                            : same_answer(a, correct));
                continue;
            }
            max += options_max(p, opts, f);
            if (a)
                score += chosen_score(p, opts, a);
        }
        json_object_object_add(out, "score", json_object_new_int64(score));
        json_object_object_add(out, "max", json_object_new_int64(max));
    }
    if (!nv)
        return out;
    /* the variables, from their initial values through the actions of
     * every rule whose when holds, in order */
    long long *num = apr_pcalloc(p, sizeof(long long) * nv);
    const char **txt = apr_pcalloc(p, sizeof(char *) * nv);
    apr_hash_t *idx = apr_hash_make(p);
    for (size_t i = 0; i < nv; i++) {
        json_object *v = json_object_array_get_idx(vl, i), *init = fs_json_get(v, "initial");
        int is_num = !strcmp(json_object_get_string(fs_json_get(v, "type")) ?: "", "number");
        num[i] = is_num ? clamp((long long)json_object_get_int64(init)) : 0;
        txt[i] = is_num ? NULL : (json_object_get_string(init) ?: "");
        apr_hash_set(idx, json_object_get_string(fs_json_get(v, "name")), APR_HASH_KEY_STRING,
                     (void *)(apr_uintptr_t)(i + 1));
    }
    json_object *rules = fs_json_get(settings, "logic");
    for (size_t r = 0;
         json_object_is_type(rules, json_type_array) && r < json_object_array_length(rules); r++) {
        json_object *rule = json_object_array_get_idx(rules, r), *when = fs_json_get(rule, "when");
        json_object *calc = fs_json_get(fs_json_get(rule, "then"), "calculate");
        if (!json_object_is_type(calc, json_type_array) || (when && !fs_cond_eval(when, answers)))
            continue;
        for (size_t j = 0; j < json_object_array_length(calc); j++) {
            json_object *a = json_object_array_get_idx(calc, j), *val = fs_json_get(a, "value");
            const char *var = json_object_get_string(fs_json_get(a, "variable"));
            size_t k = var ? (size_t)(apr_uintptr_t)apr_hash_get(idx, var, APR_HASH_KEY_STRING) : 0;
            if (!k--)
                continue; /* stored rules are checked; tolerated all the same */
            if (json_object_is_type(val, json_type_object) &&
                !json_object_object_get_ex(
                    answers, json_object_get_string(fs_json_get(val, "field")) ?: "", &val))
                continue; /* from a question not answered: nothing changes */
            if (!txt[k] && json_object_is_type(val, json_type_int))
                num[k] = fs_calc_apply(num[k], json_object_get_string(fs_json_get(a, "op")),
                                       (long long)json_object_get_int64(val));
            else if (txt[k] && json_object_is_type(val, json_type_string))
                txt[k] = text_cut(p, json_object_get_string(val));
        }
    }
    json_object *vars = json_object_new_object();
    for (size_t i = 0; i < nv; i++)
        json_object_object_add(
            vars, json_object_get_string(fs_json_get(json_object_array_get_idx(vl, i), "name")),
            txt[i] ? json_object_new_string(txt[i]) : json_object_new_int64(num[i]));
    json_object_object_add(out, "variables", vars);
    return out;
}

/* ---- the CSV export ---- */

int fs_scores_csv_columns(apr_pool_t *p, json_object *settings, json_object *fields,
                          const char ***names) {
    json_object *vl = fs_json_get(settings, "variables");
    int nv = json_object_is_type(vl, json_type_array) ? (int)json_object_array_length(vl) : 0;
    int quiz = fs_quiz_is(fields), n = 2 * quiz + nv, c = 0;
    *names = apr_pcalloc(p, sizeof(char *) * (size_t)(n ? n : 1));
    if (quiz) {
        (*names)[c++] = "calculatedScore";
        (*names)[c++] = "calculatedMax";
    }
    for (int i = 0; i < nv; i++)
        (*names)[c++] = apr_pstrcat(
            p, "calculated.",
            json_object_get_string(fs_json_get(json_object_array_get_idx(vl, (size_t)i), "name")),
            NULL);
    return n;
}

json_object **fs_scores_values(apr_pool_t *p, const char *const *names, int n,
                               const char *calculated) {
    json_object **out = apr_pcalloc(p, sizeof(json_object *) * (size_t)(n ? n : 1));
    json_object *calc = calculated && *calculated ? fs_json_parse_trusted(p, calculated) : NULL;
    json_object *vars = fs_json_get(calc, "variables");
    static const char var[] = "calculated.";
    for (int i = 0; calc && i < n; i++) /* the names fs_scores_csv_columns gives */
        out[i] = !strcmp(names[i], "calculatedScore") ? fs_json_get(calc, "score")
                 : !strcmp(names[i], "calculatedMax") ? fs_json_get(calc, "max")
                 : !strncmp(names[i], var, sizeof(var) - 1)
                     ? fs_json_get(vars, names[i] + sizeof(var) - 1)
                     : NULL;
    return out; /* the rest NULL */
}

const char **fs_scores_csv_values(apr_pool_t *p, const char *const *names, int n,
                                  const char *calculated) {
    json_object **v = fs_scores_values(p, names, n, calculated);
    const char **out = apr_pcalloc(p, sizeof(char *) * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++)
        out[i] = fs_csv_value(p, v[i]);
    return out;
}

const char *fs_scores_fill(apr_pool_t *p, const char *msg, const char *score, const char *max) {
    if (!msg || !strchr(msg, '{'))
        return msg;
    apr_array_header_t *b = apr_array_make(p, (int)strlen(msg) + 32, 1);
    for (const char *c = msg; *c;) {
        size_t len = !strncmp(c, "{score}", 7) ? 7 : !strncmp(c, "{max}", 5) ? 5 : 0;
        if (len) {
            for (const char *w = len == 7 ? score : max; *w; w++)
                *(char *)apr_array_push(b) = *w;
            c += len;
        } else
            *(char *)apr_array_push(b) = *c++;
    }
    *(char *)apr_array_push(b) = '\0';
    return b->elts;
}
