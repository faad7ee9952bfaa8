/* fs_html_target: where a link of the page's error summary points, for
 * fs_html.c: the input an error is about when a question has several (an
 * address's city, a date range's end, a matrix's row, the text of an
 * Other answer), else the question's first input. */
#ifndef FS_HTML_TARGET_H
#define FS_HTML_TARGET_H

#include <apr_pools.h>

#include "fs_error.h"
#include "fs_fieldset.h"

/* The suffix of f's input ids ("#f-<key><suffix>") that the error at
 * pointer (a JSON pointer into the answers, "/<key>/...") is about:
 * "-other", "-<part>", a matrix row's first cell ("-0", "-<row>-0"), or,
 * when the pointer names nothing more precise, "-0" for a question shown
 * as a group (group 1) and "" for one input. In p (or a literal). */
const char *fs_html_error_target(apr_pool_t *p, const fs_field *f, const char *pointer, int group);
/* Does an error of e (NULL: none) point at f's Other text ("/<key>/other",
 * "/<key>/<i>/other")? */
int fs_html_error_on_other(apr_pool_t *p, const fs_error *e, const fs_field *f);
/* The parts of f (address, date range, signature: fs_field_parts) that the
 * errors of e are about, bit i for part i: an error at "/<key>/<part>"
 * sets that part's bit, one at "/<key>" (or anything less precise) sets
 * them all; 0 when no error is about f. So that only a part in error is
 * marked invalid and described by the error. */
unsigned fs_html_parts_in_error(apr_pool_t *p, const fs_error *e, const fs_field *f);

#endif
