/* fs_ask: the body of an ask (fs_ask.h). */
#include "fs_ask.h"
#include "fs_form.h"
#include "fs_json.h"
#include "fs_link.h"
#include "fs_schema_map.h"
#include "fs_util.h"

#include <apr_strings.h>
#include <string.h>

/* The first line of s, at most max code points (UTF-8 kept whole), in p. */
static const char *first_line(apr_pool_t *p, const char *s, apr_size_t max) {
    apr_size_t i = 0, chars = 0;
    while (s[i] && s[i] != '\n' && s[i] != '\r') {
        if (((unsigned char)s[i] & 0xC0) != 0x80 && chars++ == max)
            break;
        i++;
    }
    const char *t = fs_trim(p, apr_pstrndup(p, s, i));
    return *t ? t : "Question";
}

int fs_ask_parse(apr_pool_t *p, json_object *body, apr_time_t now, const char *const *also,
                 fs_error *verr, fs_ask_spec *out) {
    memset(out, 0, sizeof(*out));
    int before = verr->errors ? verr->errors->nelts : 0;
    const char *allowed[12];
    int n = 0;
    static const char *const own[] = {"to", "message", "schema", "expiresIn", "metadata", NULL};
    for (int i = 0; own[i]; i++)
        allowed[n++] = own[i];
    for (int i = 0; also && also[i] && n < 11; i++)
        allowed[n++] = also[i];
    allowed[n] = NULL;
    fs_json_unknown_members(p, body, allowed, verr);

    json_object *to = fs_json_get(body, "to");
    if (to && !json_object_is_type(to, json_type_null)) {
        const char *a = json_object_is_type(to, json_type_string)
                            ? fs_trim(p, json_object_get_string(to))
                            : NULL;
        if (!a)
            fs_error_add(p, verr, "/to", "type", "to must be an e-mail address (a string).");
        else if (strlen(a) > 254 || !fs_email_valid(a))
            fs_error_add(p, verr, "/to", "format", "to must be an e-mail address.");
        else
            out->to = a;
    }

    json_object *m = fs_json_get(body, "message");
    if (!m || json_object_is_type(m, json_type_null))
        fs_error_add(p, verr, "/message", "required",
                     "message is required: what the person is asked, in a sentence or more.");
    else
        out->message = fs_json_text(p, m, "/message", "message", 1, FS_ASK_MESSAGE_MAX, 1, verr);

    json_object *s = fs_json_get(body, "schema");
    const char *title = NULL;
    if (!s) {
        fs_error_add(p, verr, "/schema", "required",
                     "schema is required: a JSON Schema of the answer (an object of "
                     "properties).");
    } else {
        out->nfields = fs_schema_property_count(s);
        out->fields = fs_schema_to_fields(p, s, "/schema", verr, &title);
    }
    if (title) {
        json_object *tv = fs_json_get(s, "title");
        title = fs_json_text(p, tv, "/schema/title", "title", 1, FS_TITLE_MAX, 0, verr);
    }
    if (!title && out->message)
        title = first_line(p, out->message, FS_TITLE_MAX);
    out->title = title;

    long long secs = FS_ASK_EXPIRES_DEFAULT;
    json_object *x = fs_json_get(body, "expiresIn");
    if (x && !json_object_is_type(x, json_type_null)) {
        if (!json_object_is_type(x, json_type_int))
            fs_error_add(p, verr, "/expiresIn", "type",
                         "expiresIn must be an integer number of seconds.");
        else if ((secs = json_object_get_int64(x)) < FS_ASK_EXPIRES_MIN)
            fs_error_add(p, verr, "/expiresIn", "minimum", "expiresIn is at least %d seconds.",
                         FS_ASK_EXPIRES_MIN);
        else if (secs > FS_ASK_EXPIRES_MAX)
            fs_error_add(p, verr, "/expiresIn", "maximum",
                         "expiresIn is at most %d seconds (30 days).", FS_ASK_EXPIRES_MAX);
    }
    out->expires_at = fs_time_format(p, now + apr_time_from_sec(secs));

    json_object *md = fs_json_get(body, "metadata");
    if (md && !json_object_is_type(md, json_type_null)) {
        const char *t = fs_json_str(p, md);
        if (!json_object_is_type(md, json_type_object))
            fs_error_add(p, verr, "/metadata", "type", "metadata must be an object.");
        else if (strlen(t) > FS_LINK_METADATA_MAX)
            fs_error_add(p, verr, "/metadata", "maxLength",
                         "metadata is at most %d bytes of JSON (%lu given).", FS_LINK_METADATA_MAX,
                         (unsigned long)strlen(t));
        else
            out->metadata_json = t;
    }
    return (verr->errors ? verr->errors->nelts : 0) == before && out->fields;
}
