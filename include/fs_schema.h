/* fs_schema: the JSON Schema (draft 2020-12) of a form's submission body. */
#ifndef FS_SCHEMA_H
#define FS_SCHEMA_H

#include "fs_fieldset.h"

/* type object, one property per field, required, additionalProperties
 * false, each question that applies only sometimes (its visibleIf, its
 * page reached by the jumps of settings.logic: $defs page<q> and
 * when<j>) as if/then/else, and each requiredIf as if/then. id (may be
 * NULL) becomes $id, title (may be NULL) the title. The result is owned
 * by p. */
json_object *fs_schema_for(apr_pool_t *p, const fs_fieldset *fs, const char *id, const char *title);

#endif
