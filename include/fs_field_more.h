/* fs_field_more: the question types with parts of their own (address,
 * daterange, signature), the time of day (time), and the bounds of the
 * types that hold dates and times (minimum/maximum of date, datetime,
 * daterange and time), for every side that reads a field: the definition
 * (fs_field.c), the effective rules (fs_fieldset.c), the validator
 * (fs_validate.c), the schema (fs_schema.c) and the coercion of HTML
 * posts (fs_coerce.c). docs/forms.md describes them for users.
 *
 * Bounds of dates and times are compared as strings where the strings
 * order like what they stand for (YYYY-MM-DD, HH:MM): the schema says
 * them exactly, as a pattern that accepts the strings from the bound on
 * (fs_bounds.h). A datetime carries an offset, so its bounds compare
 * instants: the schema can only say them in its description. */
#ifndef FS_FIELD_MORE_H
#define FS_FIELD_MORE_H

#include <apr_pools.h>
#include <json.h>

#include "fs_error.h"
#include "fs_fieldset.h"

/* Limits of the parts (characters). */
#define FS_ADDRESS_LINE_MAX 200
#define FS_ADDRESS_CITY_MAX 100
#define FS_ADDRESS_REGION_MAX 100
#define FS_ADDRESS_POSTAL_MAX 20
#define FS_SIGNATURE_NAME_MAX 200

/* The ISO 3166-1 alpha-2 codes in use (249), in order, NULL-terminated. */
extern const char *const fs_country_codes[];
/* 1 when c is one of them. */
int fs_country_valid(const char *c);

/* The parts of an answer of type t, in order, NULL-terminated; NULL for a
 * type whose answer has no parts. */
const char *const *fs_field_parts(int t);
/* Is part of type t required whenever the answer is given? */
int fs_field_part_required(int t, const char *part);

/* Checks a present answer v of f (address, daterange, time, signature) or
 * the bounds of a date or datetime answer that has its format; errors at
 * ptr ("/key") and below, with the message keys of share/locales. The
 * twin of fs_schema_more. */
void fs_validate_more(apr_pool_t *p, const fs_field *f, json_object *v, const char *ptr,
                      fs_error *e);

/* The schema of f's answer (address, daterange, time, signature), owned
 * by the caller; NULL for other types. */
json_object *fs_schema_more(const fs_field *f);
/* Adds what the bounds of a date or datetime field say to its schema s
 * (patterns for a date, the description for both). */
void fs_schema_more_bounds(json_object *s, const fs_field *f);

/* The most parts a type has (an address's six). */
#define FS_FIELD_PARTS_MAX 6

/* The answer's value of a CSV column: "key" (the member), or "key.part"
 * (an answer with parts gets a column per part; keys hold no '.'). NULL
 * when absent. */
json_object *fs_field_column_value(json_object *answers, const char *column);

/* 1 when key ("error.address.line1") is a message of the errors made
 * here (share/locales). */
int fs_field_more_message(const char *key);

/* An HTML form post's pair name "key.part" for a field of fs with parts:
 * sets that part of the answer in o (an empty value is no answer; a
 * repeated one becomes a list, which the validator refuses). 0 when the
 * name is not of that shape (the caller handles the pair). */
int fs_coerce_part(apr_pool_t *p, const fs_fieldset *fs, json_object *o, const char *name,
                   const char *value);

#endif
