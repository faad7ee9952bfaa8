/* fs_unique: a form's duplicate rule, settings.uniqueBy (an array of field
 * keys): its syntax, its agreement with the form's fields, and the hash of
 * a submission's normalised values that the store keeps unique per form
 * (sql/0026, docs/forms.md "Duplicate submissions"). No I/O. */
#ifndef FS_UNIQUE_H
#define FS_UNIQUE_H

#include "fs_error.h"

#include <apr_pools.h>
#include <json-c/json.h>

/* At most this many keys in uniqueBy. */
#define FS_UNIQUE_BY_MAX 5

/* The uniqueBy member as given (v NULL or null: none): an array of 1 to
 * FS_UNIQUE_BY_MAX distinct field keys. Returns a new array (the caller
 * owns it) or NULL: none, or errors added to verr under ptr. */
json_object *fs_unique_by_parse(apr_pool_t *p, json_object *v, const char *ptr, fs_error *verr);

/* Every key of settings.uniqueBy must name a field of fields (a JSON array
 * of normalised fields): each that does not is an "enum" item at
 * /settings/uniqueBy/<i> in verr. Nothing when settings has no uniqueBy. */
void fs_unique_by_fields(apr_pool_t *p, json_object *settings, json_object *fields, fs_error *verr);

/* The hash (64 hex characters, in p) of the submission's values of the
 * uniqueBy fields, normalised: strings trimmed of white space, email
 * fields lower-cased (ASCII), the items of an array sorted; the keys are
 * part of it. NULL when the form has no uniqueBy or any of those values
 * is missing, null, empty or blank: such a submission is not checked. */
const char *fs_unique_hash(apr_pool_t *p, json_object *settings, json_object *fields,
                           json_object *answers);

/* The labels of the uniqueBy fields for people ("Email and Name"), in p;
 * NULL when the form has no uniqueBy. */
const char *fs_unique_labels(apr_pool_t *p, json_object *settings, json_object *fields);

#endif
