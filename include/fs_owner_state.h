/* fs_owner_state: the owner's state of a submission (its status, tags and
 * note) as PATCH /v1/forms/{id}/submissions/{sid} changes it, and the
 * list filters on it. */
#ifndef FS_OWNER_STATE_H
#define FS_OWNER_STATE_H

#include "fs_error.h"

#include <apr_pools.h>
#include <json.h>

#define FS_TAGS_MAX 20    /* tags on one submission */
#define FS_TAG_MAX_LEN 32 /* characters of one tag */
#define FS_NOTE_MAX 10000 /* characters (code points) of a note */

/* What a PATCH changes; a member left NULL (tags_json: NULL) is not
 * changed. note_set: 1 when note is given (note NULL then clears it). */
typedef struct fs_owner_change {
    const char *status;    /* new, in_progress, done or rejected */
    const char *tags_json; /* a JSON array of normalised tags */
    int note_set;
    const char *note;
} fs_owner_change;

/* 1 when s is one of the statuses. */
int fs_owner_status_valid(const char *s);
/* The tag s normalised (ASCII letters lower-cased), or NULL when it breaks
 * the rules: 1..FS_TAG_MAX_LEN characters of a-z, 0-9, '-', '_', ':' and
 * '.', beginning with a letter or digit. In p. */
const char *fs_tag_normalise(apr_pool_t *p, const char *s);
/* Reads a PATCH body: at least one of status, tags, note, nothing else.
 * Tags are normalised and de-duplicated (first occurrence kept). Returns 1
 * and fills *out, or 0 with every error in verr. */
int fs_owner_change_parse(apr_pool_t *p, json_object *body, fs_owner_change *out, fs_error *verr);

#endif
