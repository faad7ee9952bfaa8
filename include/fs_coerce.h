/* fs_coerce: the pairs of an HTML form post (fs_urlencoded.h,
 * fs_multipart.h) to the json-c object a JSON post would have sent. */
#ifndef FS_COERCE_H
#define FS_COERCE_H

#include <apr_pools.h>
#include <apr_tables.h>
#include <json.h>

#include "fs_error.h"
#include "fs_fieldset.h"
#include "fs_urlencoded.h"

/* Builds the submission object from pairs: numbers for number, integer and
 * rating fields, true/false for booleans ("true", "on", "1" / "false",
 * "off", "0"), option values for select, arrays for multiselect (repeated
 * names), datetime-local values (no zone) read as UTC; an empty value means
 * "not answered"; an optional boolean left out is false when it applies.
 * A value that does not convert stays a string, so the validator reports
 * it. With honeypot_on, the FS_HONEYPOT_NAME pair is taken out and
 * *honeypot set when it is not empty; the FS_TOKEN_NAME pair (the page's
 * submission token) and the FS_STATE_NAME and FS_NAV_NAME pairs of a form
 * of several pages (fs_pages.h) are always left out. *out is owned by p. */
fs_error *fs_coerce(apr_pool_t *p, const fs_fieldset *fs, const apr_array_header_t *pairs,
                    int honeypot_on, json_object **out, int *honeypot);

#endif
