/* fs_logic_rules: settings.logic against the form's fields. */
#include "fs_logic_rules.h"
#include "fs_field.h"
#include "fs_fieldset.h"
#include "fs_form.h"
#include "fs_json.h"
#include "fs_logic.h"

#include <apr_strings.h>
#include <string.h>

static const char *at(apr_pool_t *p, const char *ptr, const char *member) {
    return apr_pstrcat(p, ptr, "/", member, NULL);
}

static int page_index(const fs_fieldset *fs, const char *key) {
    apr_uintptr_t v = (apr_uintptr_t)apr_hash_get(fs->page_keys, key, APR_HASH_KEY_STRING);
    return v ? (int)v - 1 : -1;
}

void fs_logic_fields_check(apr_pool_t *p, json_object *settings, json_object *fields,
                           fs_error *verr) {
    json_object *rules = fs_json_get(settings, "logic");
    size_t n =
        rules && json_object_is_type(rules, json_type_array) ? json_object_array_length(rules) : 0;
    if (!n)
        return;
    fs_fieldset *fs = fs_fieldset_from_json(p, fields);
    apr_hash_t *index = apr_hash_make(p);
    for (size_t i = 0; i < json_object_array_length(fields); i++)
        apr_hash_set(
            index, json_object_get_string(fs_json_get(json_object_array_get_idx(fields, i), "key")),
            APR_HASH_KEY_STRING, (void *)(apr_uintptr_t)(i + 1));
    int *from = apr_pcalloc(p, sizeof(int) * n), *to = apr_pcalloc(p, sizeof(int) * n);
    int ok = 1;
    for (size_t i = 0; i < n; i++) {
        json_object *r = json_object_array_get_idx(rules, i);
        const char *rp = apr_psprintf(p, "/settings/logic/%" APR_SIZE_T_FMT, i);
        json_object *fv = fs_json_get(r, "from"), *when = fs_json_get(r, "when");
        json_object *go = fs_json_get(fs_json_get(r, "then"), "goTo");
        from[i] = to[i] = -1;
        if (fv) {
            from[i] = page_index(fs, json_object_get_string(fv));
            if (from[i] < 0 || from[i] >= fs->npages) {
                fs_error_add(p, verr, at(p, rp, "from"), "enum", "%s",
                             from[i] < 0 ? "from must be the key of a page field of this form."
                                         : "from names a page field with no question after it.");
                ok = 0;
                continue;
            }
        }
        if (when) {
            fs_cond_scope sc = {fields, index, -1, NULL, "when", NULL, fs_field_value_fits};
            if (!fs_cond_check(p, when, &sc, at(p, rp, "when"), NULL, verr)) {
                ok = 0;
                continue;
            }
            if (!fv)
                from[i] = fs_fieldset_when_page(fs, when);
            apr_array_header_t *keys = apr_array_make(p, 8, sizeof(const char *));
            fs_cond_keys(when, keys);
            for (int k = 0; k < keys->nelts; k++) {
                const fs_field *f = fs_fieldset_find(fs, APR_ARRAY_IDX(keys, k, const char *));
                if (f && f->page > from[i]) {
                    fs_error_add(p, verr, at(p, rp, "when"), "enum",
                                 "when names \"%s\", a question of a later page than the one the "
                                 "rule leaves: it would not be answered yet.",
                                 f->key);
                    ok = 0;
                    break;
                }
            }
        }
        if (!go) { /* calculate only (fs_scores.c): no jump */
            from[i] = -1;
            continue;
        }
        const char *g = json_object_get_string(go);
        to[i] = !strcmp(g, "end") ? fs->npages : page_index(fs, g);
        if (to[i] < 0) {
            fs_error_add(p, verr, at(p, rp, "then/goTo"), "enum",
                         "goTo must be the key of a page field of this form, or \"end\".");
            ok = 0;
        } else if (to[i] <= from[i]) {
            fs_error_add(p, verr, at(p, rp, "then/goTo"), "enum",
                         "goTo must go forward: \"%s\" is not after the page the rule leaves "
                         "(a jump back could loop).",
                         g);
            ok = 0;
        }
    }
    if (!ok)
        return;
    /* pages no path reaches: a jump without when leaves its page always,
     * so neither the page after it nor a later jump of that page is taken */
    char *reach = apr_pcalloc(p, (apr_size_t)fs->npages + 1);
    reach[0] = 1;
    for (int q = 0; q < fs->npages; q++) {
        if (!reach[q])
            continue;
        int blocked = 0;
        for (size_t i = 0; i < n && !blocked; i++) {
            if (from[i] != q || to[i] < 0)
                continue;
            reach[to[i]] = 1;
            blocked = !fs_json_get(json_object_array_get_idx(rules, i), "when");
        }
        if (!blocked)
            reach[q + 1] = 1;
    }
    for (int q = 1; q < fs->npages; q++)
        if (!reach[q])
            fs_error_add(p, verr, "/settings/logic", "enum",
                         "No path reaches the page \"%s\": the jumps before it always go past it.",
                         fs->pages[q].key ? fs->pages[q].key : "");
}

/* ---- settings.endings ---- */

json_object *fs_endings_parse(apr_pool_t *p, json_object *v, const char *ptr, fs_error *verr) {
    if (!json_object_is_type(v, json_type_array)) {
        fs_error_add(p, verr, ptr, "type",
                     "endings is an array of {key, when, message, redirectUrl}, or null.");
        return NULL;
    }
    size_t n = json_object_array_length(v);
    if (n > FS_ENDINGS_MAX) {
        fs_error_add(p, verr, ptr, "maxItems", "endings has at most %d items.", FS_ENDINGS_MAX);
        return NULL;
    }
    json_object *out = json_object_new_array();
    apr_hash_t *keys = apr_hash_make(p);
    int ok = 1, defaults = 0;
    for (size_t i = 0; i < n; i++) {
        json_object *en = json_object_array_get_idx(v, i);
        const char *ep = apr_psprintf(p, "%s/%" APR_SIZE_T_FMT, ptr, i);
        if (!json_object_is_type(en, json_type_object)) {
            fs_error_add(p, verr, ep, "type",
                         "An ending is an object {key, when, message, redirectUrl}.");
            ok = 0;
            continue;
        }
        int before = verr->errors ? verr->errors->nelts : 0;
        json_object_object_foreach(en, k, mv) {
            (void)mv;
            if (strcmp(k, "key") && strcmp(k, "when") && strcmp(k, "message") &&
                strcmp(k, "redirectUrl"))
                fs_error_add(p, verr, fs_json_pointer(p, ep, k), "unknown",
                             "Unknown member; an ending takes key, when, message and redirectUrl.");
        }
        json_object *kv = fs_json_get(en, "key"), *when = fs_json_get(en, "when"), *w = NULL;
        const char *key =
            json_object_is_type(kv, json_type_string) ? json_object_get_string(kv) : NULL;
        if (!key || !fs_field_key_valid(key))
            fs_error_add(p, verr, at(p, ep, "key"),
                         !kv   ? "required"
                         : key ? "pattern"
                               : "type",
                         "key names the ending: ^[a-z][a-z0-9_]{0,63}$.");
        else if (apr_hash_get(keys, key, APR_HASH_KEY_STRING))
            fs_error_add(p, verr, at(p, ep, "key"), "unique", "Another ending has the key %s.",
                         key);
        else
            apr_hash_set(keys, key, APR_HASH_KEY_STRING, "");
        if (when && !json_object_is_type(when, json_type_null))
            w = fs_cond_parse(p, when, at(p, ep, "when"), verr);
        else if (++defaults > 1 || i + 1 < n)
            fs_error_add(p, verr, at(p, ep, "when"), "required",
                         "Only the last ending may go without when (it is the default: an ending "
                         "after it could never be reached).");
        json_object *msgv = fs_json_get(en, "message"), *uv = fs_json_get(en, "redirectUrl");
        const char *msg = NULL, *url = NULL;
        if (msgv && !json_object_is_type(msgv, json_type_null))
            msg = fs_json_text(p, msgv, at(p, ep, "message"), "message", 1, FS_CONFIRMATION_MAX, 1,
                               verr);
        if (uv && !json_object_is_type(uv, json_type_null)) {
            url = fs_json_text(p, uv, at(p, ep, "redirectUrl"), "redirectUrl", 1, FS_URL_MAX, 0,
                               verr);
            if (url && !fs_redirect_url_valid(p, url)) {
                fs_error_add(p, verr, at(p, ep, "redirectUrl"), "format",
                             "redirectUrl follows the rule of settings.redirectUrl: an absolute "
                             "http or https URL with a host name (see forms.md).");
                url = NULL;
            }
        }
        if ((verr->errors ? verr->errors->nelts : 0) > before) {
            json_object_put(w);
            ok = 0;
            continue;
        }
        json_object *o = json_object_new_object();
        json_object_object_add(o, "key", json_object_new_string(key));
        if (w)
            json_object_object_add(o, "when", w);
        if (msg)
            json_object_object_add(o, "message", json_object_new_string(msg));
        if (url)
            json_object_object_add(o, "redirectUrl", json_object_new_string(url));
        json_object_array_add(out, o);
    }
    if (!ok) {
        json_object_put(out);
        return NULL;
    }
    return out;
}

void fs_endings_fields_check(apr_pool_t *p, json_object *settings, json_object *fields,
                             fs_error *verr) {
    json_object *en = fs_json_get(settings, "endings");
    size_t n = en && json_object_is_type(en, json_type_array) ? json_object_array_length(en) : 0;
    if (!n)
        return;
    apr_hash_t *index = apr_hash_make(p);
    for (size_t i = 0; i < json_object_array_length(fields); i++)
        apr_hash_set(
            index, json_object_get_string(fs_json_get(json_object_array_get_idx(fields, i), "key")),
            APR_HASH_KEY_STRING, (void *)(apr_uintptr_t)(i + 1));
    for (size_t i = 0; i < n; i++) {
        json_object *when = fs_json_get(json_object_array_get_idx(en, i), "when");
        if (!when)
            continue;
        fs_cond_scope sc = {fields, index, -1, NULL, "when", NULL, fs_field_value_fits};
        fs_cond_check(p, when, &sc,
                      apr_psprintf(p, "/settings/endings/%" APR_SIZE_T_FMT "/when", i), NULL, verr);
    }
}

json_object *fs_ending_reached(json_object *settings, json_object *answers) {
    json_object *en = fs_json_get(settings, "endings");
    for (size_t i = 0;
         en && json_object_is_type(en, json_type_array) && i < json_object_array_length(en); i++) {
        json_object *e = json_object_array_get_idx(en, i), *when = fs_json_get(e, "when");
        if (!json_object_is_type(fs_json_get(e, "key"), json_type_string))
            continue;
        if (!when || fs_cond_eval(when, answers))
            return e;
    }
    return NULL;
}
