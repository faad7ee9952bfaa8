/* fs_schema_map: the reverse of fs_schema: a flat JSON Schema (an object
 * whose properties are strings, numbers, integers, booleans, enums and
 * arrays of enums) mapped to a form's fields, for POST /v1/forms with
 * "schema" and POST /v1/asks (docs/api.md, "A form from a JSON Schema").
 *
 * Each property becomes one field whose key is the property's name, in
 * the order the object lists them; title and description become label
 * and help; required marks fields required. Every keyword the mapping
 * cannot honour is reported, all at once, as one item of verr each, with
 * the RFC 6901 pointer of the keyword in the request body and code
 * "unsupported" (or the usual type/enum/... codes for a malformed value):
 * nothing is silently dropped. */
#ifndef FS_SCHEMA_MAP_H
#define FS_SCHEMA_MAP_H

#include <apr_pools.h>
#include <json.h>

#include "fs_error.h"

/* Maps schema (at pointer ptr of the request body, e.g. "/schema") to the
 * normalised, checked field list (as fs_fields_parse returns it: fresh
 * fld_ ids, positions 0..n-1; owned by p). *title is the schema's title
 * (owned by schema) or NULL when it has none; title may be NULL. Returns
 * NULL after adding every error to verr. */
json_object *fs_schema_to_fields(apr_pool_t *p, json_object *schema, const char *ptr,
                                 fs_error *verr, const char **title);

/* The number of properties schema declares (0 when it is not an object
 * with a properties object): what a caller checks against the fields
 * quota before mapping. */
int fs_schema_property_count(json_object *schema);

#endif
