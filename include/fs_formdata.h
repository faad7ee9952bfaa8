/* fs_formdata: HTML form posts. Two parsers (application/x-www-form-
 * urlencoded and a streaming RFC 7578 multipart/form-data parser) give the
 * same list of name/value pairs; fs_coerce turns that list into the json-c
 * object a JSON post would have sent, so that one validator (fs_validate)
 * serves all three content types. */
#ifndef FS_FORMDATA_H
#define FS_FORMDATA_H

#include <apr_pools.h>
#include <apr_tables.h>
#include <json.h>

#include "fs_error.h"
#include "fs_fieldset.h"

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

/* The boundary parameter of a multipart/form-data Content-Type (quoted or
 * not, 1..70 characters of RFC 2046's bchars), or NULL. */
const char *fs_multipart_boundary(apr_pool_t *p, const char *content_type);

typedef struct fs_multipart_limits {
    apr_size_t max_header; /* bytes of one part's header block */
    apr_size_t max_value;  /* bytes of one part's content */
    int max_parts;
} fs_multipart_limits;

typedef struct fs_multipart fs_multipart;

/* A streaming parser: feed the body in chunks of any size; memory stays
 * within the limits (one header block or one value plus the delimiter).
 * Missing delimiters, truncated bodies, parts without a name, file parts,
 * header blocks over the limit, malformed headers: 400 problems; a value
 * over max_value: 413. After an error every call returns it again. */
fs_multipart *fs_multipart_new(apr_pool_t *p, const char *boundary, const fs_multipart_limits *lim);
fs_error *fs_multipart_feed(fs_multipart *mp, const char *buf, apr_size_t len);
/* Ends the body: the closing delimiter must have been seen. */
fs_error *fs_multipart_finish(fs_multipart *mp, apr_array_header_t **pairs);

/* Builds the submission object from pairs: numbers for number, integer and
 * rating fields, true/false for booleans ("true", "on", "1" / "false",
 * "off", "0"), option values for select, arrays for multiselect (repeated
 * names), datetime-local values (no zone) read as UTC; an empty value means
 * "not answered"; an optional boolean left out is false when it applies.
 * A value that does not convert stays a string, so the validator reports
 * it. With honeypot_on, the FS_HONEYPOT_NAME pair is taken out and
 * *honeypot set when it is not empty. *out is owned by p. */
fs_error *fs_coerce(apr_pool_t *p, const fs_fieldset *fs, const apr_array_header_t *pairs,
                    int honeypot_on, json_object **out, int *honeypot);

#endif
