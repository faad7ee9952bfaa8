/* fs_bounds: the bounds (validation minimum and maximum) of the types that
 * hold dates and times: date and daterange (YYYY-MM-DD), datetime (RFC
 * 3339 date-times with their offset) and time (HH:MM, 24 hours). Their
 * shapes, order and the patterns that say them in a JSON Schema. Knows
 * types by name only, so that the field definitions (fs_field.c), the
 * effective rules (fs_fieldset.c) and the validator (fs_field_more.c)
 * all use it without including each other. */
#ifndef FS_BOUNDS_H
#define FS_BOUNDS_H

#include <apr_pools.h>
#include <json.h>

#include "fs_error.h"

enum { FS_BOUND_NONE, FS_BOUND_DATE, FS_BOUND_DATETIME, FS_BOUND_TIME };

/* The kind of bounds a type (by name: "date", "daterange", "datetime",
 * "time") takes; FS_BOUND_NONE for any other (or NULL). */
int fs_bound_kind(const char *type_name);

/* Is s (len bytes) a well-formed value of kind: a real calendar date
 * YYYY-MM-DD (no year 0000), an RFC 3339 date-time with seconds and an
 * offset (as FS_RE_DATETIME), HH:MM from 00:00 to 23:59? */
int fs_bound_valid(int kind, const char *s, apr_size_t len);

/* Orders two well-formed values of kind: <0, 0, >0 (date-times as the
 * instants they name, their fractions exactly). */
int fs_bound_cmp(int kind, const char *a, const char *b);

/* A bound from a definition's member v (at ptr, named name, of a field of
 * type type_name): the string (in p), or NULL after adding a "format"
 * error to verr. */
const char *fs_bound_parse(apr_pool_t *p, int kind, const char *type_name, json_object *v,
                           const char *ptr, const char *name, fs_error *verr);

/* The stored bounds of kind in validation (members minimum, maximum; one
 * that is not well formed is left out): *min and *max (NULL: none). */
void fs_bound_read(int kind, json_object *validation, const char **min, const char **max);

/* A date-time bound as UTC's wall clock, YYYY-MM-DDTHH:MM:SS (what an
 * input of type datetime-local takes; a fraction is cut off), in p; NULL
 * when s is not well formed. */
const char *fs_bound_utc(apr_pool_t *p, const char *s);

/* A pattern (ECMA-262 and Python alike) that a string of bound's shape
 * (its length, digits where it has digits) matches exactly when it is at
 * least (at_least) or at most bound as a string. Written into buf (of
 * size n); NULL when it does not fit. */
const char *fs_bound_pattern(char *buf, apr_size_t n, const char *bound, int at_least);

#endif
