/* fs_util: small pure helpers: RFC 3339 timestamps, base64url, opaque list
 * cursors, the route matcher, urlencoded decoding and e-mail addresses. */
#ifndef FS_UTIL_H
#define FS_UTIL_H

#include <apr_pools.h>
#include <apr_time.h>

/* Parses an RFC 3339 date-time (with 'T', seconds, optional fraction, 'Z' or
 * an offset). 1 on success. Leap seconds and impossible dates are refused. */
int fs_time_parse_rfc3339(const char *s, apr_time_t *out);
/* Formats as 2026-11-21T23:25:28.123Z, in p. */
char *fs_time_format(apr_pool_t *p, apr_time_t t);
/* 1 when y-m-d names a real calendar day. */
int fs_date_valid(int y, int m, int d);

/* base64url without padding. */
char *fs_b64url_encode(apr_pool_t *p, const unsigned char *data, apr_size_t len);
/* NULL on invalid input; *len is set. The result is NUL-terminated too. */
unsigned char *fs_b64url_decode(apr_pool_t *p, const char *s, apr_size_t *len);

/* A list cursor is base64url("<kind>:<last id>"); decode returns the id or
 * NULL when the cursor is malformed or belongs to another kind of list. */
char *fs_cursor_encode(apr_pool_t *p, const char *kind, const char *last_id);
const char *fs_cursor_decode(apr_pool_t *p, const char *kind, const char *cursor,
                             const char *id_prefix);

/* Route matching: pattern segments "{name}" capture one path segment.
 * Returns 1 on a match, filling up to 4 captures (pool strings). */
int fs_route_match(apr_pool_t *p, const char *pattern, const char *path, const char *caps[4]);

/* Decodes application/x-www-form-urlencoded text s[0..len): '+' is a space,
 * %XX a byte. NULL on a bad escape, a NUL byte or invalid UTF-8. In p. */
char *fs_form_decode(apr_pool_t *p, const char *s, apr_size_t len);

/* A pragmatic address check: one '@', a non-empty local part of printable
 * characters without spaces, a domain of dot-separated labels (letters,
 * digits, '-', non-ASCII) with at least one dot; at most 254 bytes. */
int fs_email_valid(const char *s);
/* Trims ASCII white space at both ends, in p. */
char *fs_trim(apr_pool_t *p, const char *s);
/* 1 when s (valid UTF-8) contains a C0 control character or DEL. */
int fs_has_control(const char *s);

/* A whole number from lo to hi (decimal, as strtol reads it: leading
 * white space and a sign allowed, nothing after the digits) into *out;
 * 1 on success, 0 (and *out untouched) for anything else, "" included.
 * For the numbers of directives. */
int fs_int_parse(const char *s, long lo, long hi, int *out);

#endif
