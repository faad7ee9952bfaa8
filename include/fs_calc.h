/* fs_calc: the calculate actions of settings.logic rules and their
 * arithmetic (docs/forms.md, "Scores and calculations"; what they change
 * and when: fs_scores.h).
 *
 * An action is {variable, op: add|subtract|multiply|set, value: an
 * integer | a text | {"field": key}}. Numbers are integers (int64), never
 * floats: literals and results are kept within +-FS_CALC_LIMIT (a result
 * beyond it stays at the bound, it never wraps round); 10^15 is exact in
 * every JSON reader that reads numbers as doubles. Nothing divides. */
#ifndef FS_CALC_H
#define FS_CALC_H

#include <apr_pools.h>
#include <json.h>

#include "fs_error.h"

#define FS_CALC_ACTIONS_MAX 10           /* actions of one rule's calculate */
#define FS_VAR_TEXT_MAX 500              /* characters of a text variable */
#define FS_CALC_LIMIT 1000000000000000LL /* |a number|: 10^15 */

/* A rule's then.calculate as a client sends it: 1..FS_CALC_ACTIONS_MAX
 * actions (shape only; what the variables and fields named are is
 * fs_scores_fields_check's). The normalised copy (owned by the caller),
 * or NULL with errors under ptr. */
json_object *fs_calc_parse(apr_pool_t *p, json_object *v, const char *ptr, fs_error *verr);

/* The one place a number is changed: v op x, kept within +-FS_CALC_LIMIT
 * (op: "add", "subtract", "multiply", "set"; anything else, or NULL,
 * leaves v). */
long long fs_calc_apply(long long v, const char *op, long long x);

/* 1 when v is a JSON integer within +-limit; else 0 after a type,
 * minimum or maximum error at ptr naming it name. */
int fs_calc_int(apr_pool_t *p, json_object *v, long long limit, const char *ptr, const char *name,
                fs_error *verr);

#endif
