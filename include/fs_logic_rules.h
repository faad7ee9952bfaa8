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

#define FS_ENDINGS_MAX 20

/* settings.endings as a client sends it: at most FS_ENDINGS_MAX items
 * {key (unique, a key's pattern), when (a condition; only the last item
 * may go without: the default), message (1..2000 characters), redirectUrl
 * (fs_redirect_url_valid)}. The normalised copy (owned by the caller), or
 * NULL with errors under ptr. */
json_object *fs_endings_parse(apr_pool_t *p, json_object *v, const char *ptr, fs_error *verr);
/* The conditions of settings.endings against the fields (any field of the
 * form, fs_cond_check's operator rules). Errors under /settings/endings. */
void fs_endings_fields_check(apr_pool_t *p, json_object *settings, json_object *fields,
                             fs_error *verr);
/* The ending the answers reach: the first of settings.endings whose when
 * holds or that has none; NULL when none does (the form's own
 * confirmationMessage and redirectUrl then). Owned by settings. */
json_object *fs_ending_reached(json_object *settings, json_object *answers);

#endif
