/* fs_validate: one engine for every content type. Each rule mirrors one
 * keyword of the schema fs_schema_for publishes (see the comments), so that
 * a body passes here exactly when it passes a 2020-12 validator. */
#include "fs_validate.h"
#include "fs_field_choice.h"
#include "fs_field_more.h"
#include "fs_file.h"
#include "fs_json.h"
#include "fs_logic.h"

#include <apr_strings.h>
#include <math.h>
#include <string.h>

/* One error: msg is its key in share/locales (without "error."), f gives
 * {label}, n is {n} (or NULL); detail is the English sentence of the API,
 * which en.json says the same way (tests/test_locale.c checks it). */
static void add(apr_pool_t *p, fs_error *e, const char *ptr, const char *code, const char *msg,
                const fs_field *f, const char *n, const char *detail) {
    fs_error_add_msg(p, e, ptr, code, msg, fs_field_label(f), n, detail);
}

static const char *num(apr_pool_t *p, double d) {
    return apr_psprintf(p, "%.15g", d);
}

static const char *format_key(const fs_field *f) {
    switch (f->type) {
    case FS_FT_EMAIL: return "format.email";
    case FS_FT_URL: return "format.url";
    case FS_FT_TEL: return "format.tel";
    case FS_FT_DATE: return "format.date";
    case FS_FT_DATETIME: return "format.datetime";
    default: return "format.other";
    }
}

static const char *format_hint(const fs_field *f) {
    switch (f->type) {
    case FS_FT_EMAIL: return "an e-mail address such as name@example.com";
    case FS_FT_URL: return "a web address starting with http:// or https://";
    case FS_FT_TEL: return "a telephone number of 3 to 30 digits, spaces, ( ) . - and a leading +";
    case FS_FT_DATE: return "a real calendar date as YYYY-MM-DD";
    case FS_FT_DATETIME: return "a date and time such as 2026-11-21T14:30:00Z";
    default: return "the expected format";
    }
}

static void check_string(apr_pool_t *p, const fs_field *f, json_object *v, const char *ptr,
                         fs_error *e) {
    if (!json_object_is_type(v, json_type_string)) { /* type: string */
        add(p, e, ptr, "type", "type.text", f, NULL,
            apr_psprintf(p, "%s must be text.", fs_field_label(f)));
        return;
    }
    const char *s = json_object_get_string(v);
    apr_size_t blen = (apr_size_t)json_object_get_string_len(v);
    apr_size_t len = fs_utf8_length(s);
    if (f->has_min_len && (long)len < f->min_len) { /* minLength */
        if (f->required && len == 0) {              /* one message is enough for nothing */
            add(p, e, ptr, "required", "required", f, NULL,
                apr_psprintf(p, "%s is required.", fs_field_label(f)));
            return;
        }
        add(p, e, ptr, "minLength", "minLength", f, apr_ltoa(p, f->min_len),
            apr_psprintf(p, "%s needs at least %ld characters.", fs_field_label(f), f->min_len));
    }
    if (f->has_max_len && (long)len > f->max_len) /* maxLength */
        add(p, e, ptr, "maxLength", "maxLength", f, apr_ltoa(p, f->max_len),
            apr_psprintf(p, "%s takes at most %ld characters.", fs_field_label(f), f->max_len));
    if (f->format_re) { /* pattern + format */
        const fs_pattern *bp = fs_builtin_pattern(f->format_re);
        if (!bp || !fs_pattern_search(bp, s, blen))
            add(p, e, ptr, "format", format_key(f), f, NULL,
                apr_psprintf(p, "%s must be %s.", fs_field_label(f), format_hint(f)));
    }
    if (f->pattern) { /* allOf: pattern */
        if (!f->pattern_code || fs_regex_match(f->pattern_code, s) != 1)
            add(p, e, ptr, "pattern", "pattern", f, NULL,
                apr_psprintf(p, "%s does not have the expected form.", fs_field_label(f)));
    }
}

static void check_bounds(apr_pool_t *p, const fs_field *f, double d, const char *ptr, fs_error *e) {
    if (f->has_min && d < f->min) /* minimum */
        add(p, e, ptr, "minimum", "minimum", f, num(p, f->min),
            apr_psprintf(p, "%s must be at least %.15g.", fs_field_label(f), f->min));
    if (f->has_max && d > f->max) /* maximum */
        add(p, e, ptr, "maximum", "maximum", f, num(p, f->max),
            apr_psprintf(p, "%s must be at most %.15g.", fs_field_label(f), f->max));
}

static int in_options(const fs_field *f, json_object *v) {
    for (size_t i = 0; f->options && i < json_object_array_length(f->options); i++)
        if (fs_json_equal(fs_json_get(json_object_array_get_idx(f->options, i), "value"), v))
            return 1;
    return 0;
}

/* An error of a file sent in a JSON body: only API clients send those, so
 * it has the English detail and no message key of the pages' languages
 * (share/locales; a page's file errors come from its multipart post). */
static void file_error(apr_pool_t *p, fs_error *e, const char *ptr, const char *code,
                       const char *detail) {
    fs_error_add(p, e, ptr, code, "%s", detail);
}

/* One file object of a JSON body: the keywords of fs_schema's
 * file_object. */
static void check_file(apr_pool_t *p, const fs_field *f, json_object *v, const char *ptr,
                       fs_error *e) {
    if (!json_object_is_type(v, json_type_object)) {
        file_error(
            p, e, ptr, "type",
            apr_psprintf(p, "%s takes files as {name, type, data (base64)}.", fs_field_label(f)));
        return;
    }
    static const char *const members[] = {"name", "type", "data"};
    for (int i = 0; i < 3; i++) {
        json_object *m = fs_json_get(v, members[i]);
        const char *mp = apr_pstrcat(p, ptr, "/", members[i], NULL);
        if (!json_object_object_get_ex(v, members[i], &m)) { /* required */
            file_error(p, e, mp, "required",
                       apr_psprintf(p, "%s: a file needs %s.", fs_field_label(f), members[i]));
            continue;
        }
        if (!json_object_is_type(m, json_type_string)) { /* type: string */
            file_error(p, e, mp, "type",
                       apr_psprintf(p, "%s: %s must be text.", fs_field_label(f), members[i]));
            continue;
        }
        const char *s = json_object_get_string(m);
        apr_size_t bl = (apr_size_t)json_object_get_string_len(m), len = fs_utf8_length(s);
        if (i < 2) { /* minLength 1, maxLength */
            if (len < 1 || len > (i == 0 ? FS_FILE_NAME_MAX : FS_FILE_TYPE_MAX))
                file_error(p, e, mp, len < 1 ? "minLength" : "maxLength",
                           apr_psprintf(p, "%s: %s is 1 to %d characters.", fs_field_label(f),
                                        members[i], i == 0 ? FS_FILE_NAME_MAX : FS_FILE_TYPE_MAX));
        } else {
            if ((long long)len > fs_file_base64_len(f->max_size)) /* maxLength */
                file_error(p, e, mp, "maxLength",
                           apr_psprintf(p,
                                        "%s: the file is larger than %" APR_INT64_T_FMT " bytes.",
                                        fs_field_label(f), (apr_int64_t)f->max_size));
            if (!fs_file_base64_valid(s, bl)) /* pattern */
                file_error(p, e, mp, "pattern",
                           apr_psprintf(p, "%s: data is not base64 (RFC 4648, with padding).",
                                        fs_field_label(f)));
        }
    }
    json_object_object_foreach(v, k, mv) { /* additionalProperties */
        (void)mv;
        if (strcmp(k, "name") && strcmp(k, "type") && strcmp(k, "data"))
            fs_error_add(p, e, fs_json_pointer(p, ptr, k), "unknown",
                         "%s: a file has name, type and data only.", fs_field_label(f));
    }
}

static void check_value(apr_pool_t *p, const fs_field *f, json_object *v, fs_error *e) {
    const char *ptr = apr_pstrcat(p, "/", f->key, NULL);
    double d;
    switch (f->type) {
    case FS_FT_TEXT:
    case FS_FT_TEXTAREA:
    case FS_FT_EMAIL:
    case FS_FT_URL:
    case FS_FT_TEL:
    case FS_FT_HIDDEN:
    case FS_FT_DATE:
    case FS_FT_DATETIME:
        check_string(p, f, v, ptr, e);
        fs_validate_more(p, f, v, ptr, e); /* minimum, maximum */
        break;
    case FS_FT_ADDRESS:
    case FS_FT_DATERANGE:
    case FS_FT_TIME:
    case FS_FT_SIGNATURE: fs_validate_more(p, f, v, ptr, e); break;
    case FS_FT_NUMBER: /* type: number */
        if (!fs_json_number(v, &d))
            add(p, e, ptr, "type", "type.number", f, NULL,
                apr_psprintf(p, "%s must be a number.", fs_field_label(f)));
        else
            check_bounds(p, f, d, ptr, e);
        break;
    case FS_FT_INTEGER:
    case FS_FT_RATING: /* type: integer */
        if (!fs_json_number(v, &d) || d != floor(d) || !isfinite(d))
            add(p, e, ptr, "type", "type.integer", f, NULL,
                apr_psprintf(p, "%s must be a whole number.", fs_field_label(f)));
        else
            check_bounds(p, f, d, ptr, e);
        break;
    case FS_FT_BOOLEAN: /* type: boolean */
        if (!json_object_is_type(v, json_type_boolean))
            add(p, e, ptr, "type", "type.boolean", f, NULL,
                apr_psprintf(p, "%s must be true or false.", fs_field_label(f)));
        else if (f->required && !json_object_get_boolean(v)) /* const: true */
            add(p, e, ptr, "required", "required.ticked", f, NULL,
                apr_psprintf(p, "%s must be ticked.", fs_field_label(f)));
        break;
    case FS_FT_SELECT: /* enum (anyOf: enum, or the other answer) */
        if (!in_options(f, v) && !fs_choice_check_other(p, f, v, ptr, e))
            add(p, e, ptr, "enum", "enum", f, NULL,
                apr_psprintf(p, "%s must be one of the offered choices.", fs_field_label(f)));
        break;
    case FS_FT_MULTISELECT: { /* type: array */
        if (!json_object_is_type(v, json_type_array)) {
            add(p, e, ptr, "type", "type.list", f, NULL,
                apr_psprintf(p, "%s must be a list of choices.", fs_field_label(f)));
            break;
        }
        size_t n = json_object_array_length(v);
        for (size_t i = 0; i < n; i++) /* items: enum (anyOf: enum, or the other answer) */
            if (!in_options(f, json_object_array_get_idx(v, i)) &&
                !fs_choice_check_other(p, f, json_object_array_get_idx(v, i),
                                       apr_psprintf(p, "%s/%lu", ptr, (unsigned long)i), e))
                add(p, e, apr_psprintf(p, "%s/%lu", ptr, (unsigned long)i), "enum", "enum.item", f,
                    apr_psprintf(p, "%lu", (unsigned long)i),
                    apr_psprintf(p, "%s: item %lu is not one of the offered choices.",
                                 fs_field_label(f), (unsigned long)i));
        for (size_t i = 1; i < n; i++) { /* uniqueItems */
            int dup = 0;
            for (size_t j = 0; j < i && !dup; j++)
                dup =
                    fs_json_equal(json_object_array_get_idx(v, i), json_object_array_get_idx(v, j));
            if (dup) {
                add(p, e, apr_psprintf(p, "%s/%lu", ptr, (unsigned long)i), "unique", "unique", f,
                    NULL,
                    apr_psprintf(p, "%s: a choice is given more than once.", fs_field_label(f)));
                break;
            }
        }
        if (f->has_min_items && (long)n < f->min_items) { /* minItems */
            if (f->required && n == 0)
                add(p, e, ptr, "required", "required", f, NULL,
                    apr_psprintf(p, "%s is required.", fs_field_label(f)));
            else
                add(p, e, ptr, "minItems", "minItems", f, apr_ltoa(p, f->min_items),
                    apr_psprintf(p, "%s needs at least %ld choices.", fs_field_label(f),
                                 f->min_items));
        }
        if (f->has_max_items && (long)n > f->max_items) /* maxItems */
            add(p, e, ptr, "maxItems", "maxItems", f, apr_ltoa(p, f->max_items),
                apr_psprintf(p, "%s takes at most %ld choices.", fs_field_label(f), f->max_items));
        fs_choice_check_other_count(p, f, v, ptr, e); /* maxContains */
        break;
    }
    case FS_FT_FILE: /* anyOf: a file, or an array of 1..maxFiles files */
        if (json_object_is_type(v, json_type_array)) {
            size_t n = json_object_array_length(v);
            if (n < 1 || (long)n > f->max_files)
                file_error(
                    p, e, ptr, n < 1 ? "minItems" : "maxItems",
                    apr_psprintf(p, "%s takes 1 to %ld files.", fs_field_label(f), f->max_files));
            for (size_t i = 0; i < n; i++)
                check_file(p, f, json_object_array_get_idx(v, i),
                           apr_psprintf(p, "%s/%lu", ptr, (unsigned long)i), e);
        } else {
            check_file(p, f, v, ptr, e);
        }
        break;
    case FS_FT_SCALE:
    case FS_FT_MATRIX:
    case FS_FT_RANKING:
    case FS_FT_CONSENT: fs_choice_check(p, f, v, ptr, e); break;
    default: /* false */
        add(p, e, ptr, "type", "type.none", f, NULL,
            apr_psprintf(p, "%s cannot take an answer.", fs_field_label(f)));
        break;
    }
}

/* A present answer of a field whose requiredIf holds: the keywords of
 * fs_schema's required_extra (non-empty text, a choice, a tick). */
static void check_required_if(apr_pool_t *p, const fs_field *f, json_object *v, fs_error *e) {
    const char *ptr = apr_pstrcat(p, "/", f->key, NULL);
    switch (f->type) {
    case FS_FT_TEXT:
    case FS_FT_TEXTAREA:
    case FS_FT_EMAIL:
    case FS_FT_URL:
    case FS_FT_TEL:
    case FS_FT_DATE:
    case FS_FT_DATETIME: /* minLength: 1 */
        if (json_object_is_type(v, json_type_string) && json_object_get_string_len(v) == 0)
            add(p, e, ptr, "required", "required", f, NULL,
                apr_psprintf(p, "%s is required.", fs_field_label(f)));
        break;
    case FS_FT_MULTISELECT: /* minItems: 1 */
        if (json_object_is_type(v, json_type_array) && json_object_array_length(v) == 0)
            add(p, e, ptr, "required", "required", f, NULL,
                apr_psprintf(p, "%s is required.", fs_field_label(f)));
        break;
    case FS_FT_BOOLEAN: /* const: true */
        if (json_object_is_type(v, json_type_boolean) && !json_object_get_boolean(v))
            add(p, e, ptr, "required", "required.ticked", f, NULL,
                apr_psprintf(p, "%s must be ticked.", fs_field_label(f)));
        break;
    default: break;
    }
}

fs_error *fs_validate(apr_pool_t *p, const fs_fieldset *fs, json_object *body) {
    fs_error *e = fs_error_validation(p);
    const char *path = fs_fieldset_path(p, fs, body);
    for (int i = 0; i < fs->n; i++) {
        const fs_field *f = &fs->f[i];
        json_object *v;
        int present = json_object_object_get_ex(body, f->key, &v);
        if (!fs_field_applies(f, body, path)) { /* if: page reached and visibleIf; else: absent */
            if (present)
                add(p, e, apr_pstrcat(p, "/", f->key, NULL), "unknown", "unknown.inapplicable", f,
                    NULL,
                    apr_psprintf(p, "%s does not apply to these answers; leave it out.",
                                 fs_field_label(f)));
            continue;
        }
        if (!present) { /* required (then: required) */
            if (fs_field_required_now(f, body))
                add(p, e, apr_pstrcat(p, "/", f->key, NULL), "required", "required", f, NULL,
                    apr_psprintf(p, "%s is required.", fs_field_label(f)));
            continue;
        }
        check_value(p, f, v, e);
        if (!f->required && f->required_if && fs_cond_eval(f->required_if, body))
            check_required_if(p, f, v, e);
    }
    json_object_object_foreach(body, k, val) { /* additionalProperties */
        (void)val;
        if (!fs_fieldset_find(fs, k))
            fs_error_add_msg(p, e, fs_json_pointer(p, "", k), "unknown", "unknown", k, NULL,
                             apr_psprintf(p, "This form has no question %s.", k));
    }
    return e->errors ? e : NULL;
}
