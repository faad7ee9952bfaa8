/* fs_field_choice_def: the definition rules of the question types scale,
 * matrix, ranking and consent, and of allowOther on select and multiselect
 * (fs_field_choice.h says what each is); fs_field.c calls them. Only
 * fs_field.h is needed here, so that fs_field and this module include
 * nothing but each other. */
#ifndef FS_FIELD_CHOICE_DEF_H
#define FS_FIELD_CHOICE_DEF_H

#include <apr_pools.h>
#include <json.h>

#include "fs_error.h"
#include "fs_field.h"

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

/* Is v an answer of field target (a normalised definition) that a
 * condition may compare with: a scale's integer in range, a consent's
 * true? -1 when target is none of these types (the caller decides). */
int fs_choice_value_fits(json_object *target, json_object *v);

/* from and to of a stored scale definition (tolerated when missing: 1..5). */
void fs_choice_scale_range(json_object *def, long long *from, long long *to);

#endif
