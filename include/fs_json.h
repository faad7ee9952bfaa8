/* fs_json: json-c tied to APR pools, and a strict parser for request
 * bodies. json-c's own strict mode lets single quotes, NaN, raw control
 * characters, invalid UTF-8 and duplicate member names through, so every
 * body is first checked by our RFC 8259 scanner (fs_json_check) and only
 * then handed to json-c. */
#ifndef FS_JSON_H
#define FS_JSON_H

#include <apr_pools.h>
#include <apr_tables.h>
#include <json.h>

#include "fs_error.h"

#define FS_JSON_MAX_DEPTH 32

/* Ties obj to p: json_object_put runs when p is cleared. Returns obj. */
json_object *fs_json_own(apr_pool_t *p, json_object *obj);

/* Serialises plain, without escaping '/'. The string lives in p. */
char *fs_json_str(apr_pool_t *p, json_object *obj);

/* Appends to buf (an array of bytes, grown by doubling in its pool) the
 * JSON string of s, byte for byte as fs_json_str writes the string s
 * (json-c's escapes: \" \\ \b \f \n \r \t, other bytes below 0x20 as
 * \u00xx, nothing else). For writers that make many small objects, such
 * as the account's export, without a json-c object each. */
void fs_json_put_string(apr_array_header_t *buf, const char *s);

/* Checks buf against RFC 8259 with our limits: valid UTF-8, no NUL (raw or
 * \u0000), no lone surrogates, depth <= FS_JSON_MAX_DEPTH, no duplicate
 * member names, no trailing bytes. NULL when fine, else a 400 problem. */
fs_error *fs_json_check(apr_pool_t *p, const char *buf, apr_size_t len);

/* fs_json_check, then parse; the top level must be an object. *out is
 * owned by p. */
fs_error *fs_json_parse_object(apr_pool_t *p, const char *buf, apr_size_t len, json_object **out);

/* Parses trusted JSON (our own database output). Owned by p; NULL on error. */
json_object *fs_json_parse_trusted(apr_pool_t *p, const char *text);

/* Member helpers: NULL when absent. */
json_object *fs_json_get(json_object *o, const char *key);
/* The JSON type's name as used in detail messages ("string", "null", ...). */
const char *fs_json_type_name(json_object *v);

/* A string member of a request body: it must be a JSON string of min..max
 * characters (code points) without control characters (newline, tab and
 * carriage return allowed when multiline). Returns the string (owned by v)
 * or NULL after adding a type/minLength/maxLength/pattern item at ptr. */
const char *fs_json_text(apr_pool_t *p, json_object *v, const char *ptr, const char *name,
                         apr_size_t min, apr_size_t max, int multiline, fs_error *verr);

/* The RFC 6901 pointer to member key below the pointer base ("" is the
 * document itself): base + "/" + key, with '~' in key written ~0 and '/'
 * written ~1. In p. */
const char *fs_json_pointer(apr_pool_t *p, const char *base, const char *key);

/* Adds an "unknown" item to verr for every member of o whose name is not
 * in allowed (NULL-ended; may be just {NULL}). */
void fs_json_unknown_members(apr_pool_t *p, json_object *o, const char *const *allowed,
                             fs_error *verr);
/* The same for an object at pointer base of the body. */
void fs_json_unknown_members_at(apr_pool_t *p, json_object *o, const char *base,
                                const char *const *allowed, fs_error *verr);

/* The "email" member of a body: required string, trimmed of ASCII white
 * space, at most 254 bytes, a plausible address (fs_email_valid). Returns
 * the trimmed address (in p), or NULL after adding one item to verr. */
const char *fs_json_email_member(apr_pool_t *p, json_object *body, fs_error *verr);

/* True when s is valid UTF-8 with no NUL in its len bytes. */
int fs_utf8_valid(const char *s, apr_size_t len);
/* Number of Unicode code points in valid UTF-8 s. */
apr_size_t fs_utf8_length(const char *s);

/* JSON equality as JSON Schema defines it: numbers by value (1 == 1.0),
 * booleans only equal booleans, arrays element-wise, objects member-wise. */
int fs_json_equal(json_object *a, json_object *b);

/* A value as a double when it is a JSON number (not a boolean). */
int fs_json_number(json_object *v, double *out);

#endif
