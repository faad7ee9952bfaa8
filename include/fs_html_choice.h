/* fs_html_choice: the public page's markup of scale, matrix, ranking and
 * consent questions and of the Other choice of select and multiselect
 * (fs_field_choice.h), for fs_html.c. Every string is escaped here. */
#ifndef FS_HTML_CHOICE_H
#define FS_HTML_CHOICE_H

#include <apr_pools.h>
#include <json.h>

#include "fs_fieldset.h"
#include "fs_locale.h"

/* The inputs of f (one of the four types) on the page: v its answer so
 * far (or NULL), id the id of its first input, aria the attributes that
 * describe it (aria-describedby, aria-invalid), required " required" or
 * "". In p. */
const char *fs_choice_html(apr_pool_t *p, const fs_locale *loc, const fs_field *f, json_object *v,
                           const char *id, const char *aria, const char *required);
/* The page's "Other" choice of select or multiselect f, when it allows one:
 * for a select the <option> (in_select 1), then (in_select 0) the text
 * input; for a multiselect the checkbox and the text input. "" when f takes
 * no other answer. */
const char *fs_choice_other_html(apr_pool_t *p, const fs_locale *loc, const fs_field *f,
                                 json_object *v, const char *id, int in_select);
/* Is f shown as a group (fieldset and legend)? */
int fs_choice_is_group(const fs_field *f);
/* fs_choice_other_html's text input (with a multiselect's box before it)
 * carrying aria, the attributes that say it is in error (aria-invalid,
 * aria-describedby; "" for none). */
const char *fs_choice_other_html_aria(apr_pool_t *p, const fs_locale *loc, const fs_field *f,
                                      json_object *v, const char *id, const char *aria);

#endif
