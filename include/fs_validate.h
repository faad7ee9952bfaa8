/* fs_validate: the one validation engine of public submissions. JSON,
 * urlencoded and multipart bodies all arrive here as a json-c object (the
 * latter two through fs_coerce). */
#ifndef FS_VALIDATE_H
#define FS_VALIDATE_H

#include "fs_error.h"
#include "fs_fieldset.h"

/* Validates body against fs. NULL when it is acceptable, else a 422
 * validation-failed problem listing every failure with pointer "/<key>"
 * (or "/<key>/<index>" for a multiselect item) and the codes of
 * docs/public-forms.md:
 * required, type, minLength, maxLength, pattern, minimum, maximum, enum,
 * format, minItems, maxItems, unknown, unique.
 * A body is accepted exactly when fs_schema_for's schema accepts it. */
fs_error *fs_validate(apr_pool_t *p, const fs_fieldset *fs, json_object *body);

#endif
