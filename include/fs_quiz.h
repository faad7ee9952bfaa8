/* fs_quiz: a quiz's members of the fields (docs/forms.md, "Scores and
 * calculations"; the score they give: fs_scores.h): an option's score
 * (an integer within +-FS_SCORE_MAX) on a select or multiselect, and a
 * field's correct answer (worth 1 point). Both are the owner's: the
 * respondent's copy of the fields goes without them. */
#ifndef FS_QUIZ_H
#define FS_QUIZ_H

#include <apr_pools.h>
#include <json.h>

#include "fs_error.h"

#define FS_SCORE_MAX 1000000 /* |an option's score| */

/* An option's score: an integer within +-FS_SCORE_MAX. The normalised
 * value (owned by the caller), or NULL with an error at ptr. */
json_object *fs_option_score_parse(apr_pool_t *p, json_object *v, const char *ptr, fs_error *verr);

/* A field's correct answer as a client sends it, for the field target
 * as parsed so far ({type, options, validation}, normalised): an answer
 * the field can take (fs_field_value_fits), for a multiselect an array of
 * its option values, each once; not on textarea, hidden, file and page
 * fields, nor where an option carries a score. A copy (owned by the
 * caller), or NULL with an error at ptr. */
json_object *fs_correct_parse(apr_pool_t *p, json_object *v, json_object *target, const char *ptr,
                              fs_error *verr);

/* 1 when an option of opts (an array, or NULL) carries a score. */
int fs_quiz_options_scored(json_object *opts);

/* 1 when a field of the list (normalised) carries a correct answer or an
 * option with a score. */
int fs_quiz_is(json_object *fields);

/* The fields as a respondent may see them: a copy without correct and
 * options' scores (owned by the caller), or NULL when there is nothing
 * to take out. */
json_object *fs_quiz_public_fields(json_object *fields);

#endif
