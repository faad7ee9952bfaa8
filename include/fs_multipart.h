/* fs_multipart: multipart/form-data bodies of HTML form posts (RFC 7578),
 * parsed as a stream into the pairs fs_urlencoded.h defines. */
#ifndef FS_MULTIPART_H
#define FS_MULTIPART_H

#include <apr_pools.h>
#include <apr_tables.h>

#include "fs_error.h"
#include "fs_urlencoded.h"

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
/* File parts. Without these, a part with a filename is a 400
 * problem. With them, such a part's content is handed over as it arrives
 * (begin, data any number of times, end), never kept whole: the parser
 * holds at most a delimiter's length of it. A part whose filename is
 * empty (a browser's file input left empty) is skipped. An error a
 * callback returns ends the parse with that error. ctype is the part's
 * Content-Type or NULL. */
typedef struct fs_multipart_files {
    void *baton;
    fs_error *(*begin)(void *baton, const char *name, const char *filename, const char *ctype);
    fs_error *(*data)(void *baton, const char *buf, apr_size_t len);
    fs_error *(*end)(void *baton);
} fs_multipart_files;
void fs_multipart_on_files(fs_multipart *mp, const fs_multipart_files *files);

/* Ends the body: the closing delimiter must have been seen. */
fs_error *fs_multipart_finish(fs_multipart *mp, apr_array_header_t **pairs);

#endif
