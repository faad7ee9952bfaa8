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
 * Each part has its twin: the definition rules (fs_field.c calls
 * fs_choice_parse), the schema keywords (fs_schema.c), the validator's
 * checks mirroring them one by one (fs_validate.c), the pairs of an HTML
 * post (fs_coerce.c) and the page's markup (fs_html.c). docs/forms.md
 * describes them for users. */
#ifndef FS_FIELD_CHOICE_H
#define FS_FIELD_CHOICE_H

#include <apr_pools.h>
#include <apr_tables.h>
#include <json.h>

#include "fs_error.h"
#include "fs_fieldset.h"
#include "fs_locale.h"

#define FS_SCALE_LIMIT 100       /* from and to lie within -100..100 */
#define FS_SCALE_STEPS_MAX 20    /* to - from: at most 21 choices */
#define FS_MATRIX_ROWS_MAX 50    /* rows of a matrix */
#define FS_MATRIX_COLUMNS_MAX 20 /* columns of a matrix */
#define FS_RANKING_MAX 20        /* options of a ranking (a select per place) */
#define FS_CONSENT_TEXT_MAX 2000
#define FS_CONSENT_URL_MAX 2000
#define FS_OTHER_MAX 200 /* characters of an "other" answer */
/* The value of the page's "Other" choice; an option of a field with
 * allowOther cannot have it. The typed text comes as <key>.other. */
#define FS_OTHER_VALUE "__other__"

/* The members of a definition that belong to these types, for the list of
 * members fs_field_parse knows. NULL-ended. */
extern const char *const FS_CHOICE_MEMBERS[];

/* The members of def (at pointer ptr) for a field of type t (-1: unknown
 * type): checks them and adds their normalised form to f (scale: from, to,
 * minLabel, maxLabel; matrix: rows, columns, multiple; consent: text, url;
 * select and multiselect: allowOther when true). A member given to a type
 * it does not belong to is an "unknown" error. options holds the parsed
 * options of a select, multiselect or ranking (else NULL). *required is
 * forced to 1 for consent (required false there is an error). Adds every
 * error to verr; returns 1 when fine. */
int fs_choice_parse(apr_pool_t *p, json_object *def, int t, json_object *options, int *required,
                    const char *ptr, json_object *f, fs_error *verr);

/* Does placeholder not apply to type t (one of these types)? */
int fs_choice_no_placeholder(int t);

/* Is f one of these types (or a select or multiselect with allowOther)? */
int fs_choice_field(const fs_field *f);
/* 1 when the select or multiselect f takes an "other" answer. */
int fs_choice_allows_other(const fs_field *f);

/* Is v an answer of field target (a normalised definition) that a
 * condition may compare with: a scale's integer in range, a consent's
 * true? -1 when target is none of these types (the caller decides). */
int fs_choice_value_fits(json_object *target, json_object *v);

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

/* The inputs of f (one of the four types) on the page: v its answer so
 * far (or NULL), id the id of its first input, aria the attributes that
 * describe it (aria-describedby, aria-invalid), required " required" or
 * "". In p. */
const char *fs_choice_html(apr_pool_t *p, const fs_locale *loc, const fs_field *f, json_object *v,
                           const char *id, const char *aria, const char *required);
/* The page's "Other" choice of select or multiselect f, when it allows one:
 * for a select the <option> (in_select 1), then (in_select 0) the text
 * input; for a multiselect the checkbox and the text input. "" when f takes
 * no other answer. */
const char *fs_choice_other_html(apr_pool_t *p, const fs_locale *loc, const fs_field *f,
                                 json_object *v, const char *id, int in_select);
/* Is f shown as a group (fieldset and legend)? */
int fs_choice_is_group(const fs_field *f);

/* CSV columns: a matrix has one per row, named <key>.<rowKey>; any other
 * field one, named by its key. fs_choice_csv_columns writes the names of
 * the stored definition fd's columns to names (room for its count) and
 * returns how many; fs_choice_csv_extra is how many more columns than
 * fields the stored fields array has; fs_choice_csv_value the answer of a
 * column in a submission's data (NULL: none). */
int fs_choice_csv_columns(apr_pool_t *p, json_object *fd, const char **names);
int fs_choice_csv_extra(json_object *fields);
json_object *fs_choice_csv_value(json_object *data, const char *column);

#endif
