/* fs_owner_state: see fs_owner_state.h. */
#include "fs_owner_state.h"

#include "fs_json.h"

#include <apr_strings.h>
#include <string.h>

static const char *const statuses[] = {"new", "in_progress", "done", "rejected", NULL};

int fs_owner_status_valid(const char *s) {
    for (int i = 0; s && statuses[i]; i++)
        if (!strcmp(s, statuses[i]))
            return 1;
    return 0;
}

const char *fs_tag_normalise(apr_pool_t *p, const char *s) {
    apr_size_t n = s ? strlen(s) : 0;
    if (n < 1 || n > FS_TAG_MAX_LEN)
        return NULL;
    char *t = apr_pstrmemdup(p, s, n);
    for (apr_size_t i = 0; i < n; i++) {
        char c = t[i];
        if (c >= 'A' && c <= 'Z')
            c = t[i] = (char)(c - 'A' + 'a');
        int alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (!alnum && (i == 0 || !strchr("-_:.", c)))
            return NULL;
    }
    return t;
}

static void parse_tags(apr_pool_t *p, json_object *v, fs_owner_change *out, fs_error *verr) {
    if (!json_object_is_type(v, json_type_array)) {
        fs_error_add(p, verr, "/tags", "type", "tags must be an array of strings.");
        return;
    }
    size_t n = json_object_array_length(v);
    if (n > FS_TAGS_MAX) {
        fs_error_add(p, verr, "/tags", "maxItems", "A submission has at most %d tags.",
                     FS_TAGS_MAX);
        return;
    }
    json_object *arr = fs_json_own(p, json_object_new_array());
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        json_object *e = json_object_array_get_idx(v, i);
        const char *ptr = apr_psprintf(p, "/tags/%lu", (unsigned long)i);
        const char *t = json_object_is_type(e, json_type_string)
                            ? fs_tag_normalise(p, json_object_get_string(e))
                            : NULL;
        if (!t) {
            fs_error_add(p, verr, ptr,
                         json_object_is_type(e, json_type_string) ? "pattern" : "type",
                         "A tag is 1 to %d characters of letters a-z (upper case is taken as "
                         "lower case), digits and - _ : . , beginning with a letter or digit.",
                         FS_TAG_MAX_LEN);
            bad = 1;
            continue;
        }
        int dup = 0;
        for (size_t k = 0; k < json_object_array_length(arr) && !dup; k++)
            dup = !strcmp(json_object_get_string(json_object_array_get_idx(arr, k)), t);
        if (!dup)
            json_object_array_add(arr, json_object_new_string(t));
    }
    if (!bad)
        out->tags_json = fs_json_str(p, arr);
}

int fs_owner_change_parse(apr_pool_t *p, json_object *body, fs_owner_change *out, fs_error *verr) {
    static const char *const allowed[] = {"status", "tags", "note", NULL};
    memset(out, 0, sizeof(*out));
    size_t before = verr->errors ? (size_t)verr->errors->nelts : 0;
    fs_json_unknown_members(p, body, allowed, verr);
    json_object *v;
    int any = 0;
    if (json_object_object_get_ex(body, "status", &v)) {
        any = 1;
        const char *s = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
        if (!fs_owner_status_valid(s))
            fs_error_add(p, verr, "/status", s ? "enum" : "type",
                         "status is new, in_progress, done or rejected.");
        else
            out->status = s;
    }
    if (json_object_object_get_ex(body, "tags", &v)) {
        any = 1;
        parse_tags(p, v, out, verr);
    }
    if (json_object_object_get_ex(body, "note", &v)) {
        any = 1;
        out->note_set = 1;
        if (v)
            out->note = fs_json_text(p, v, "/note", "note", 0, FS_NOTE_MAX, 1, verr);
    }
    if (!any && (verr->errors ? (size_t)verr->errors->nelts : 0) == before)
        fs_error_add(p, verr, "", "required", "Give at least one of status, tags and note.");
    return (verr->errors ? (size_t)verr->errors->nelts : 0) == before;
}
