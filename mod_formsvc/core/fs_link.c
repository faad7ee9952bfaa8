/* fs_link: checking a respondent link's body, and its token. */
#include "fs_link.h"
#include "fs_json.h"
#include "fs_secret.h"
#include "fs_util.h"
#include "fs_validate.h"

#include <apr_strings.h>
#include <errno.h>
#include <string.h>

/* prefill: an object whose members are fields of the form, each value one
 * the field's type accepts. fs_validate judges the values (so a prefill
 * passes exactly when the same answer would); its "required" items and the
 * visibility of conditional fields do not apply to a partial answer. */
static const char *parse_prefill(apr_pool_t *p, const fs_fieldset *fs, json_object *v,
                                 fs_error *verr) {
    if (!v || json_object_is_type(v, json_type_null))
        return "{}";
    if (!json_object_is_type(v, json_type_object)) {
        fs_error_add(p, verr, "/prefill", "type", "prefill must be an object of answers by key.");
        return NULL;
    }
    int bad = 0;
    json_object_object_foreach(v, k, val) {
        (void)val;
        if (!fs_fieldset_find(fs, k)) {
            fs_error_add(p, verr, fs_json_pointer(p, "/prefill", k), "unknown",
                         "This form has no question %s.", k);
            bad = 1;
        }
    }
    fs_error *e = fs_validate(p, fs, v);
    for (int i = 0; e && e->errors && i < e->errors->nelts; i++) {
        const fs_field_error *fe = &APR_ARRAY_IDX(e->errors, i, fs_field_error);
        if (!strcmp(fe->code, "required") || !strcmp(fe->code, "unknown"))
            continue;
        fs_error_add(p, verr, apr_pstrcat(p, "/prefill", fe->pointer, NULL), fe->code, "%s",
                     fe->detail);
        bad = 1;
    }
    return bad ? NULL : fs_json_str(p, v);
}

int fs_link_parse(apr_pool_t *p, const fs_fieldset *fs, json_object *body, apr_time_t now,
                  fs_error *verr, fs_link_spec *out) {
    static const char *const allowed[] = {"prefill", "metadata", "expiresAt", "maxUses", NULL};
    memset(out, 0, sizeof(*out));
    int before = verr->errors ? verr->errors->nelts : 0;
    out->prefill_json = parse_prefill(p, fs, fs_json_get(body, "prefill"), verr);

    json_object *m = fs_json_get(body, "metadata");
    if (m && !json_object_is_type(m, json_type_null)) {
        const char *s = fs_json_str(p, m);
        if (strlen(s) > FS_LINK_METADATA_MAX)
            fs_error_add(p, verr, "/metadata", "maxLength",
                         "metadata is at most %d bytes of JSON (%lu given).", FS_LINK_METADATA_MAX,
                         (unsigned long)strlen(s));
        else
            out->metadata_json = s;
    }

    json_object *x = fs_json_get(body, "expiresAt");
    if (x && !json_object_is_type(x, json_type_null)) {
        apr_time_t t;
        if (!json_object_is_type(x, json_type_string) ||
            !fs_time_parse_rfc3339(json_object_get_string(x), &t))
            fs_error_add(p, verr, "/expiresAt", "format",
                         "expiresAt must be an RFC 3339 time such as 2026-12-31T23:59:59Z.");
        else if (t <= now)
            fs_error_add(p, verr, "/expiresAt", "minimum", "expiresAt must be in the future.");
        else
            out->expires_at = fs_time_format(p, t);
    }

    json_object *u = fs_json_get(body, "maxUses");
    if (u && !json_object_is_type(u, json_type_null)) {
        if (!json_object_is_type(u, json_type_int)) {
            fs_error_add(p, verr, "/maxUses", "type", "maxUses must be an integer.");
        } else {
            errno = 0;
            int64_t n = json_object_get_int64(u);
            if (n < 1)
                fs_error_add(p, verr, "/maxUses", "minimum", "maxUses is at least 1.");
            else if (n > FS_LINK_MAX_USES || errno)
                fs_error_add(p, verr, "/maxUses", "maximum", "maxUses is at most %d.",
                             FS_LINK_MAX_USES);
            else
                out->max_uses = (int)n;
        }
    }
    fs_json_unknown_members(p, body, allowed, verr);
    return (verr->errors ? verr->errors->nelts : 0) == before;
}

char *fs_link_token_new(apr_pool_t *p) {
    return fs_secret_generate(p, FS_LINK_TOKEN_PREFIX);
}

int fs_link_token_well_formed(const char *s) {
    return s && fs_secret_well_formed(s, FS_LINK_TOKEN_PREFIX);
}
