/* fs_logic_rules: the rules between settings.logic (fs_logic.h) and a
 * form's fields, checked whenever either changes. */
#ifndef FS_LOGIC_RULES_H
#define FS_LOGIC_RULES_H

#include <apr_pools.h>
#include <json.h>

#include "fs_error.h"

/* The rules between settings.logic and the fields (normalised list):
 * from and goTo name page fields, goTo a page after the one the rule
 * leaves (so no path loops), when names questions of that page or
 * earlier ones with operators that fit (fs_cond_check), and every page
 * can be reached. Errors under /settings/logic. */
void fs_logic_fields_check(apr_pool_t *p, json_object *settings, json_object *fields,
                           fs_error *verr);

#endif
