/* fs_urlencoded: application/x-www-form-urlencoded bodies of HTML form
 * posts. They, and multipart/form-data bodies (fs_multipart.h), become the
 * same list of name/value pairs, which fs_coerce (fs_coerce.h) turns into
 * the json-c object a JSON post would have sent, so that one validator
 * (fs_validate) serves all three content types. */
#ifndef FS_URLENCODED_H
#define FS_URLENCODED_H

#include <apr_pools.h>
#include <apr_tables.h>

#include "fs_error.h"

typedef struct fs_pair {
    const char *name;  /* valid UTF-8, no NUL */
    const char *value; /* valid UTF-8, no NUL */
} fs_pair;

#define FS_FORM_MAX_PAIRS 1000

/* Parses an urlencoded body ('+' is a space, %XX escapes). A bad escape,
 * invalid UTF-8, a NUL or more than FS_FORM_MAX_PAIRS pairs is a 400
 * problem. *pairs is an array of fs_pair in p. */
fs_error *fs_urlencoded_parse(apr_pool_t *p, const char *buf, apr_size_t len,
                              apr_array_header_t **pairs);

#endif
