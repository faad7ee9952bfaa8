/* fs_edit: editing after sending, the setting and the token (fs_edit.h). */
#include "fs_edit.h"
#include "fs_json.h"
#include "fs_secret.h"

#include <apr_strings.h>
#include <string.h>

#define SECRET_HEX 64

void fs_settings_allow_edits(apr_pool_t *p, json_object *s, const char *ptr, json_object *out,
                             fs_error *verr) {
    json_object *v = fs_json_get(s, "allowEdits");
    if (!v || json_object_is_type(v, json_type_null))
        return;
    const char *mp = apr_pstrcat(p, ptr, "/allowEdits", NULL);
    if (!json_object_is_type(v, json_type_object)) {
        fs_error_add(p, verr, mp, "type",
                     "allowEdits must be an object {\"untilHours\": n} or null.");
        return;
    }
    json_object_object_foreach(v, k, x) {
        (void)x;
        if (strcmp(k, "untilHours"))
            fs_error_add(p, verr, fs_json_pointer(p, mp, k), "unknown",
                         "Unknown member; allowEdits takes untilHours.");
    }
    json_object *h = fs_json_get(v, "untilHours");
    const char *hp = apr_pstrcat(p, mp, "/untilHours", NULL);
    if (!h) {
        fs_error_add(p, verr, hp, "required",
                     "untilHours is required: how many hours after sending an answer may be "
                     "changed.");
        return;
    }
    if (!json_object_is_type(h, json_type_int)) {
        fs_error_add(p, verr, hp, "type", "untilHours must be an integer.");
        return;
    }
    int64_t n = json_object_get_int64(h);
    if (n < 1 || n > FS_EDIT_HOURS_MAX) {
        fs_error_add(p, verr, hp, n < 1 ? "minimum" : "maximum", "untilHours is from 1 to %d.",
                     FS_EDIT_HOURS_MAX);
        return;
    }
    json_object *o = json_object_new_object();
    json_object_object_add(o, "untilHours", json_object_new_int64(n));
    json_object_object_add(out, "allowEdits", o);
}

int fs_edit_hours(json_object *settings) {
    json_object *h = fs_json_get(fs_json_get(settings, "allowEdits"), "untilHours");
    if (!h || !json_object_is_type(h, json_type_int))
        return 0;
    int64_t n = json_object_get_int64(h);
    return n >= 1 && n <= FS_EDIT_HOURS_MAX ? (int)n : 0;
}

char *fs_edit_secret(apr_pool_t *p, const unsigned char *pepper, apr_size_t pepper_len,
                     const char *form_id, const char *sid) {
    const char *h = fs_secret_hash(p, pepper, pepper_len,
                                   apr_pstrcat(p, "formsvc edit ", form_id, " ", sid, NULL));
    return h ? apr_pstrcat(p, FS_EDIT_SECRET_PREFIX, h, NULL) : NULL;
}

char *fs_edit_token(apr_pool_t *p, const unsigned char *pepper, apr_size_t pepper_len,
                    const char *form_id, const char *sid) {
    const char *s = fs_edit_secret(p, pepper, pepper_len, form_id, sid);
    return s ? apr_pstrcat(p, sid, ".", s, NULL) : NULL;
}

/* an id is "sub_" and 26 characters */
#define SID_LEN 30

int fs_edit_token_well_formed(const char *token) {
    if (!token || strlen(token) != SID_LEN + 1 + strlen(FS_EDIT_SECRET_PREFIX) + SECRET_HEX ||
        token[SID_LEN] != '.')
        return 0;
    char sid[SID_LEN + 1];
    memcpy(sid, token, SID_LEN);
    sid[SID_LEN] = '\0';
    const char *sec = token + SID_LEN + 1, *hex = sec + strlen(FS_EDIT_SECRET_PREFIX);
    return fs_id_valid(sid, "sub_") &&
           !strncmp(sec, FS_EDIT_SECRET_PREFIX, strlen(FS_EDIT_SECRET_PREFIX)) &&
           strspn(hex, "0123456789abcdef") == SECRET_HEX;
}

const char *fs_edit_token_check(apr_pool_t *p, const unsigned char *pepper, apr_size_t pepper_len,
                                const char *form_id, const char *token) {
    if (!form_id || !fs_edit_token_well_formed(token))
        return NULL;
    const char *sid = apr_pstrmemdup(p, token, SID_LEN);
    const char *sec = token + SID_LEN + 1;
    const char *want = fs_edit_secret(p, pepper, pepper_len, form_id, sid);
    return want && fs_secret_equal(want, sec) ? sid : NULL;
}
