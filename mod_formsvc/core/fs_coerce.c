/* fs_coerce: HTML form pairs to the JSON submission object. */
#include "fs_coerce.h"
#include "fs_captcha.h"
#include "fs_field_choice.h"
#include "fs_field_more.h"
#include "fs_html.h"
#include "fs_json.h"
#include "fs_pages.h"
#include "fs_tz.h"

#include <apr_strings.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A JSON number from s (JSON's number syntax, surrounding blanks allowed),
 * or NULL. */
static json_object *number_of(apr_pool_t *p, const char *s) {
    char *t = apr_pstrdup(p, s);
    while (*t == ' ' || *t == '\t')
        t++;
    apr_size_t n = strlen(t);
    while (n && (t[n - 1] == ' ' || t[n - 1] == '\t'))
        t[--n] = '\0';
    const char *q = t;
    int integral = 1;
    if (*q == '-')
        q++;
    if (*q == '0')
        q++;
    else if (*q >= '1' && *q <= '9')
        while (*q >= '0' && *q <= '9')
            q++;
    else
        return NULL;
    if (*q == '.') {
        integral = 0;
        q++;
        if (!(*q >= '0' && *q <= '9'))
            return NULL;
        while (*q >= '0' && *q <= '9')
            q++;
    }
    if (*q == 'e' || *q == 'E') {
        integral = 0;
        q++;
        if (*q == '+' || *q == '-')
            q++;
        if (!(*q >= '0' && *q <= '9'))
            return NULL;
        while (*q >= '0' && *q <= '9')
            q++;
    }
    if (*q)
        return NULL;
    errno = 0;
    if (integral) {
        long long v = strtoll(t, NULL, 10);
        if (errno == 0)
            return json_object_new_int64(v);
    }
    errno = 0;
    double d = strtod(t, NULL);
    if (errno || !isfinite(d))
        return NULL;
    return json_object_new_double(d);
}

static json_object *boolean_of(const char *s) {
    if (!strcmp(s, "true") || !strcmp(s, "on") || !strcmp(s, "1"))
        return json_object_new_boolean(1);
    if (!strcmp(s, "false") || !strcmp(s, "off") || !strcmp(s, "0"))
        return json_object_new_boolean(0);
    return NULL;
}

static json_object *option_of(apr_pool_t *p, const fs_field *f, const char *s) {
    for (size_t i = 0; f->options && i < json_object_array_length(f->options); i++) {
        json_object *v = fs_json_get(json_object_array_get_idx(f->options, i), "value");
        const char *vs = v && json_object_is_type(v, json_type_string) ? json_object_get_string(v)
                         : v                                           ? fs_json_str(p, v)
                                                                       : "null";
        if (!strcmp(vs, s))
            return json_object_get(v);
    }
    return NULL;
}

/* datetime-local sends 2026-11-21T14:30 or 2026-11-21T14:30:05: read in
 * the field's timeZone (fs_tz reads tzdata without touching TZ,
 * so threads do not disturb each other), else as UTC. A time the zone
 * cannot place stays as typed, so the validator reports it. */
static const char *datetime_of(apr_pool_t *p, const fs_field *f, const char *s) {
    if (f->time_zone) {
        fs_tz *z = fs_tz_load(p, NULL, f->time_zone);
        const char *t = z ? fs_tz_local_to_rfc3339(p, z, s) : NULL;
        return t ? t : s;
    }
    apr_size_t n = strlen(s);
    if ((n == 16 || n == 19) && s[10] == 'T' && s[13] == ':' && (n == 16 || s[16] == ':'))
        return apr_pstrcat(p, s, n == 16 ? ":00Z" : "Z", NULL);
    return s;
}

static json_object *convert(apr_pool_t *p, const fs_field *f, const char *s) {
    json_object *v = NULL;
    switch (f->type) {
    case FS_FT_NUMBER:
    case FS_FT_INTEGER:
    case FS_FT_RATING:
    case FS_FT_SCALE: v = number_of(p, s); break;
    case FS_FT_BOOLEAN:
    case FS_FT_CONSENT: v = boolean_of(s); break;
    case FS_FT_SELECT:
    case FS_FT_MULTISELECT:
    case FS_FT_RANKING: v = option_of(p, f, s); break;
    case FS_FT_DATETIME: return json_object_new_string(datetime_of(p, f, s));
    default: break;
    }
    return v ? v : json_object_new_string(s);
}

fs_error *fs_coerce(apr_pool_t *p, const fs_fieldset *fs, const apr_array_header_t *pairs,
                    int honeypot_on, json_object **out, int *honeypot) {
    json_object *o = fs_json_own(p, json_object_new_object());
    apr_hash_t *others = apr_hash_make(p); /* the typed "other" answers */
    *honeypot = 0;
    for (int i = 0; pairs && i < pairs->nelts; i++) {
        const fs_pair *pr = &APR_ARRAY_IDX(pairs, i, fs_pair);
        if (honeypot_on && !strcmp(pr->name, FS_HONEYPOT_NAME)) {
            if (*pr->value)
                *honeypot = 1;
            continue;
        }
        if (!strcmp(pr->name, FS_TOKEN_NAME) || !strcmp(pr->name, FS_STATE_NAME) ||
            !strcmp(pr->name, FS_NAV_NAME))
            continue; /* the page's submission token, state and button: the glue's */
        if (fs_coerce_part(p, fs, o, pr->name, pr->value))
            continue; /* key.part of an address, daterange or signature */
        if (fs_captcha_is_token_name(pr->name))
            continue; /* a captcha widget's token (fs_captcha.h): the glue's */
        const fs_field *f = fs_fieldset_find(fs, pr->name);
        if (!f && fs_choice_coerce_pair(p, fs, pr->name, pr->value, o, others))
            continue; /* a matrix cell, an other answer's text */
        if (f && !*pr->value)
            continue; /* an empty input is no answer */
        json_object *v = f ? convert(p, f, pr->value) : json_object_new_string(pr->value);
        json_object *cur;
        if (json_object_object_get_ex(o, pr->name, &cur)) {
            if (!cur || !json_object_is_type(cur, json_type_array) ||
                !(f && (f->type == FS_FT_MULTISELECT || fs_choice_coerce_list(f)))) {
                /* a repeated name for a single answer: a list, which the
                 * validator refuses as the wrong type */
                json_object *arr = json_object_new_array();
                json_object_array_add(arr, json_object_get(cur));
                json_object_object_add(o, pr->name, arr);
                cur = arr;
            }
            json_object_array_add(cur, v);
        } else if (f && (f->type == FS_FT_MULTISELECT || fs_choice_coerce_list(f))) {
            json_object *arr = json_object_new_array();
            json_object_array_add(arr, v);
            json_object_object_add(o, pr->name, arr);
        } else {
            json_object_object_add(o, pr->name, v);
        }
    }
    fs_choice_coerce_finish(p, fs, o, others);
    /* an unticked optional checkbox is false, when its question applies;
     * repeat, since a false can make another question apply */
    for (int pass = 0, changed = 1; changed && pass <= fs->n; pass++) {
        changed = 0;
        apr_pool_t *pp = NULL; /* the path of a form with jumps, for this pass */
        if (fs->njumps && apr_pool_create(&pp, p) != APR_SUCCESS)
            break;
        const char *path = pp ? fs_fieldset_path(pp, fs, o) : NULL;
        for (int i = 0; i < fs->n; i++) {
            const fs_field *f = &fs->f[i];
            if (f->type != FS_FT_BOOLEAN || f->required || fs_json_get(o, f->key))
                continue;
            if (json_object_object_get_ex(o, f->key, NULL))
                continue;
            if (fs_field_applies(f, o, path)) {
                json_object_object_add(o, f->key, json_object_new_boolean(0));
                changed = 1;
                if (pp)
                    break; /* the path may change with it */
            }
        }
        if (pp)
            apr_pool_destroy(pp);
    }
    *out = o;
    return NULL;
}
