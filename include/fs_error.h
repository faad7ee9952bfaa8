/* fs_error: the one error type. It travels from the core to the glue and
 * becomes an RFC 9457 problem document in exactly one place
 * (fs_problem_render). All memory comes from the pool passed in. */
#ifndef FS_ERROR_H
#define FS_ERROR_H

#include <apr_pools.h>
#include <apr_tables.h>

struct json_object;

typedef struct fs_field_error {
    const char *pointer; /* RFC 6901 pointer into the request body */
    const char *code;    /* stable machine word: required, type, ... */
    const char *detail;  /* sentence for people (English) */
    /* The message as a key of the files in share/locales without its "error."
     * prefix ("required", "type.number", ...) and its arguments, so that a
     * page can say it in the form's language (fs_html) and an agent can
     * translate it; NULL for messages that have no key (API validation). */
    const char *msg;
    const char *label; /* {label}: the question's label (or key) */
    const char *n;     /* {n}: a number of the message, or NULL */
} fs_field_error;

typedef struct fs_error {
    int status;                   /* HTTP status */
    const char *slug;             /* problem type slug, e.g. "not-found" */
    const char *detail;           /* may be NULL */
    apr_array_header_t *errors;   /* of fs_field_error; NULL when none */
    struct json_object *extra;    /* extra members; pool-owned; may be NULL */
    const char *www_authenticate; /* header value for 401/403, or NULL */
    int retry_after;              /* seconds; >0 adds Retry-After */
    const char *cause;            /* why, for the error log only: never rendered
                                     (it may name statements, SQLSTATEs, files);
                                     set for every 500; may be NULL otherwise */
} fs_error;

/* A problem with the status of its slug from the catalogue. */
fs_error *fs_error_make(apr_pool_t *p, const char *slug, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A 500 "internal" problem whose cause (for the error log, never for the
 * client) says what failed. The glue logs it once, with the request. */
fs_error *fs_error_internal(apr_pool_t *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Adds one item to errors (creating the array). */
void fs_error_add(apr_pool_t *p, fs_error *e, const char *pointer, const char *code,
                  const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Adds one item with a message key (see fs_field_error.msg) and its
 * arguments; detail is the English sentence. */
void fs_error_add_msg(apr_pool_t *p, fs_error *e, const char *pointer, const char *code,
                      const char *msg, const char *label, const char *n, const char *detail);
/* A validation-failed problem with no items yet. */
fs_error *fs_error_validation(apr_pool_t *p);
/* Adds an extra member (string or integer) to the problem. A member the
 * renderer writes itself (type, title, status, detail, instance, errors,
 * retryAfter) cannot be replaced this way: such an extra is not rendered. */
void fs_error_set_str(apr_pool_t *p, fs_error *e, const char *k, const char *v);
void fs_error_set_int(apr_pool_t *p, fs_error *e, const char *k, long long v);

/* The problem catalogue: one row per slug. */
typedef struct fs_problem_type {
    const char *slug;
    int status;
    const char *title;
    const char *about; /* a paragraph for GET /problems/{slug} */
} fs_problem_type;

const fs_problem_type *fs_problem_lookup(const char *slug);
const fs_problem_type *fs_problem_catalogue(int *count);
/* A problem type for a bare HTTP status (for errors httpd raises itself). */
const fs_problem_type *fs_problem_for_status(int status);

/* Renders application/problem+json. base_url has no trailing slash;
 * instance is the request path. Result lives in p. */
char *fs_problem_render(apr_pool_t *p, const fs_error *e, const char *base_url,
                        const char *instance);

#endif
