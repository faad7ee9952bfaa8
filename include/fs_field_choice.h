/* fs_field_choice: the questions of choice beyond select and rating:
 *
 *   scale    an integer from..to (0..10 for a net promoter score), with
 *            optional words for its ends (minLabel, maxLabel);
 *   matrix   rows x columns: {rowKey: columnValue} (multiple: a list of
 *            column values per row); required means every row answered;
 *   ranking  the options in the respondent's order: an array holding every
 *            option value once;
 *   consent  a box that must be ticked (always required, stored as true),
 *            with the owner's text and an optional https link to it;
 *   and the "other" choice of select and multiselect (allowOther: true):
 *            {"other": "typed text"} in place of an option value.
 *
 * Each part has its twin: the definition rules (fs_field_choice_def.h), the schema keywords
 * (fs_schema.c), the validator's checks mirroring them one by one (fs_validate.c), the pairs of an
 * HTML post (fs_coerce.c) and the page's markup (fs_html.c). docs/forms.md describes them for
 * users. */
#ifndef FS_FIELD_CHOICE_H
#define FS_FIELD_CHOICE_H

#include <apr_hash.h>
#include <apr_pools.h>
#include <apr_tables.h>
#include <json.h>

#include "fs_error.h"
#include "fs_field_choice_def.h"
#include "fs_fieldset.h"

/* 1 when the select or multiselect f takes an "other" answer. */
int fs_choice_allows_other(const fs_field *f);

/* The schema of f's answer (one of these types); owned by the caller. */
json_object *fs_choice_schema(const fs_field *f);
/* s (the schema of a select or multiselect) widened by the "other"
 * answer when f allows one; returns the schema to use (s, or a new one
 * that took s over). */
json_object *fs_choice_schema_other(const fs_field *f, json_object *s);

/* Checks answer v of f (one of the four types) at ptr, adding errors to e
 * exactly where the schema of fs_choice_schema fails. */
void fs_choice_check(apr_pool_t *p, const fs_field *f, json_object *v, const char *ptr,
                     fs_error *e);
/* An "other" answer of f (allowing one) at ptr: 1 when v is an object
 * (the "other" branch; errors of its members added), 0 when it is not
 * (the caller reports it as no option). */
int fs_choice_check_other(apr_pool_t *p, const fs_field *f, json_object *v, const char *ptr,
                          fs_error *e);
/* The multiselect v of f holds at most one "other" answer (maxContains). */
void fs_choice_check_other_count(apr_pool_t *p, const fs_field *f, json_object *v, const char *ptr,
                                 fs_error *e);

/* An HTML post's pair name.sub (a matrix cell <key>.<row>, the typed text
 * <key>.other): stores it in o (cells) or in others (key -> text), and
 * returns 1; 0 when name is no such pair. */
int fs_choice_coerce_pair(apr_pool_t *p, const fs_fieldset *fs, const char *name, const char *value,
                          json_object *o, apr_hash_t *others);
/* After all pairs: the "Other" choices of o become {"other": text}; text
 * typed without the choice counts as it (for a select only when no option
 * was chosen). */
void fs_choice_coerce_finish(apr_pool_t *p, const fs_fieldset *fs, json_object *o,
                             apr_hash_t *others);
/* Does a repeated name of f make a list (ranking: a select per place)? */
int fs_choice_coerce_list(const fs_field *f);

/* An answer of f as text for people (the notification mail): an Other
 * answer its typed text, a matrix "Row: Column; Row: Column, Column" by
 * their labels; NULL for any other answer (the caller's rules apply). */
const char *fs_choice_text(apr_pool_t *p, const fs_field *f, json_object *v);

/* CSV columns: a matrix has one per row, named <key>.<rowKey>; any other
 * field one, named by its key. fs_choice_csv_columns writes the names of
 * the stored definition fd's columns to names (room for its count) and
 * returns how many; fs_choice_csv_extra is how many more columns than
 * fields the stored fields array has. A column's answer in a submission's
 * data is fs_field_column_value's (fs_field_more.h), as a part's is. */
int fs_choice_csv_columns(apr_pool_t *p, json_object *fd, const char **names);
int fs_choice_csv_extra(json_object *fields);

#endif
