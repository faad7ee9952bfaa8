/* fs_scores: scores and calculations of a form (docs/forms.md, "Scores
 * and calculations").
 *
 * Two things the server works out from a submission's stored answers,
 * never reads from the client:
 *   - quiz (fs_quiz.h): a select or multiselect option may carry a score
 *     (an integer), most questions a `correct` answer (worth 1 point);
 *     the score is the sum over the questions that apply to the answers,
 *     max what they could give.
 *   - variables: settings.variables [{name, type: number|text, initial}]
 *     changed by the calculate actions of settings.logic rules whose when
 *     holds (fs_calc.h), in the order of the rules and of their actions.
 * The result is {"score": n, "max": m, "variables": {name: value}}, with
 * score and max only for a quiz and variables only when the form has
 * some; NULL when it has neither.
 *
 * Numbers are integers (int64), never floats (fs_calc.h). Scoring never
 * refuses a submission. */
#ifndef FS_SCORES_H
#define FS_SCORES_H

#include <apr_pools.h>
#include <json.h>

#include "fs_calc.h"
#include "fs_error.h"
#include "fs_fieldset.h"
#include "fs_quiz.h"

#define FS_VARIABLES_MAX 20 /* items of settings.variables */

/* settings.variables and settings.showScore as a client sends them, added
 * to out (the normalised settings: variables only when it has items,
 * showScore only when true). Errors under ptr/variables, ptr/showScore. */
void fs_scores_settings_parse(apr_pool_t *p, json_object *s, const char *ptr, json_object *out,
                              fs_error *verr);

/* The rules between the scores and calculations and the fields
 * (normalised list) and settings: each calculate of settings.logic names
 * a variable of settings.variables, with an op and a value of its type (a
 * text variable is only set), a {field} of a type that fits (number:
 * integer or rating; text: a field answered with one string). Errors
 * under /settings/logic/<i>/then/calculate/<j>. */
void fs_scores_fields_check(apr_pool_t *p, json_object *settings, json_object *fields,
                            fs_error *verr);

/* The calculated result of answers (checked, the questions that do not
 * apply left out) for the form's settings and fields (fs built from
 * fields, with its logic), or NULL when the form has neither a quiz nor
 * variables. Owned by the caller. */
json_object *fs_calculated(apr_pool_t *p, json_object *settings, json_object *fields,
                           const fs_fieldset *fs, json_object *answers);

/* The CSV export's columns of what was calculated, after every other
 * column: calculatedScore and calculatedMax for a quiz, then
 * calculated.<name> per variable (no field key has a capital or a dot).
 * Sets *names (in p) and returns their number (0: none). */
int fs_scores_csv_columns(apr_pool_t *p, json_object *settings, json_object *fields,
                          const char ***names);
/* The values of the n columns names (fs_scores_csv_columns', worked out
 * once per export) for a submission's stored calculated (JSON text, NULL
 * or "" when none): NULL for what it does not have; the array in p, the
 * values owned by a parse tied to p. */
json_object **fs_scores_values(apr_pool_t *p, const char *const *names, int n,
                               const char *calculated);
/* The same as cells (escaped, fs_csv_value; empty for what it does not
 * have). n cells, in p. */
const char **fs_scores_csv_values(apr_pool_t *p, const char *const *names, int n,
                                  const char *calculated);

/* msg with every {score} and {max} replaced by score and max (texts),
 * in one pass (what they bring in is not read again); anything else as
 * written. In p. */
const char *fs_scores_fill(apr_pool_t *p, const char *msg, const char *score, const char *max);

#endif
