/* fs_html_parts: the inputs of the question types of fs_field_more.h on
 * the public form page (fs_html.c opens and closes each question): an
 * address, a date range and a signature as labelled inputs named
 * "key.part" (fs_coerce_part reads them back), with the autocomplete
 * tokens of an address; the min and max of the inputs of dates and times,
 * and the bounds in words. Every string is escaped here. */
#ifndef FS_HTML_PARTS_H
#define FS_HTML_PARTS_H

#include <apr_pools.h>
#include <json.h>

#include "fs_fieldset.h"
#include "fs_locale.h"

/* The inputs of f (address, daterange, signature) showing the answer v
 * (an object, or NULL); id is the question's id prefix (the first input
 * is id-0, which the error summary links to), aria the attributes each
 * input in error carries (aria-invalid, aria-describedby), aria_ok those
 * of a part not in error (the descriptions without the error), bad the
 * parts in error (bit i for part i: fs_html_parts_in_error), required
 * whether the required parts take the required attribute, err whether the
 * answer has errors (a date typed wrongly is then shown as text, so that
 * it is kept). In p. */
const char *fs_html_parts(apr_pool_t *p, const fs_locale *loc, const fs_field *f, json_object *v,
                          const char *id, const char *aria, const char *aria_ok, unsigned bad,
                          int required, int err);

/* " min=\"...\" max=\"...\"" for an input of f (date, datetime, time),
 * or "". A datetime's bounds only when the field has no timeZone (its
 * input is then UTC's wall clock). */
const char *fs_html_bounds(apr_pool_t *p, const fs_field *f);

/* A signature's drawing pad: a canvas, its Clear button and the file
 * input its PNG goes into ("key.image"), all hidden until the script
 * (fs_html_signature_script) shows them; without script the typed name
 * is the signature. In p. */
const char *fs_html_signature_pad(apr_pool_t *p, const fs_locale *loc, const fs_field *f,
                                  const char *id);
/* 1 when fs has a signature field (the page then carries the script). */
int fs_html_signature_on(const fs_fieldset *fs);
/* The pads' script (one inline script, allowed by its hash) and its
 * Content-Security-Policy source ('sha256-...', in p). */
const char *fs_html_signature_script(void);
const char *fs_html_signature_script_src(apr_pool_t *p);

/* The bounds of f in words ("From 2026-01-01 to 2026-12-31."), or NULL. */
const char *fs_html_bounds_help(apr_pool_t *p, const fs_locale *loc, const fs_field *f);

#endif
