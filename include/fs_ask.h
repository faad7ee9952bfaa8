/* fs_ask: the body of POST /v1/asks (and of the MCP tool ask_human):
 * {to?, message, schema, expiresIn?, metadata?}, checked without httpd
 * (docs/api.md, "Asks"). */
#ifndef FS_ASK_H
#define FS_ASK_H

#include <apr_pools.h>
#include <apr_time.h>
#include <json.h>

#include "fs_error.h"

#define FS_ASK_MESSAGE_MAX 5000         /* characters: the form's description */
#define FS_ASK_EXPIRES_DEFAULT 604800   /* seconds: a week */
#define FS_ASK_EXPIRES_MIN 60           /* seconds */
#define FS_ASK_EXPIRES_MAX (30 * 86400) /* seconds: 30 days */

typedef struct fs_ask_spec {
    const char *to;            /* trimmed e-mail address, or NULL */
    const char *message;       /* 1..FS_ASK_MESSAGE_MAX characters */
    const char *title;         /* the form's: the schema's title, else the message's first
                                  line (at most 200 characters) */
    json_object *fields;       /* the form's fields (fs_schema_to_fields), owned by p */
    int nfields;               /* how many the schema declares (for the fields quota) */
    const char *expires_at;    /* RFC 3339: now + expiresIn */
    const char *metadata_json; /* a JSON object, or NULL */
} fs_ask_spec;

/* Checks body (an object) at time now: every error in verr, all at once.
 * Members other than those named and the names in also (NULL-ended, or
 * NULL; e.g. the MCP tool's "wait") are errors. 1 when fine. */
int fs_ask_parse(apr_pool_t *p, json_object *body, apr_time_t now, const char *const *also,
                 fs_error *verr, fs_ask_spec *out);

#endif
