/* fs_regex: bounded regular expressions over PCRE2 for field patterns.
 *
 * Patterns of form fields are written for ECMA-262 (they reach JSON Schema
 * validators and browsers as they are), and run here on PCRE2. Only the
 * subset that means the same in both is accepted; see docs/forms.md
 * "Patterns" for the list. Matching is bounded (match and depth limits),
 * so a pattern with catastrophic backtracking cannot hang a worker: the
 * match gives up and says so (-1).
 *
 * A compiled fs_regex lives as long as the pool it was compiled in and may
 * be shared by threads (each match makes its own match data). */
#ifndef FS_REGEX_H
#define FS_REGEX_H

#include <apr_pools.h>

#define FS_REGEX_MAX_PATTERN 1000 /* bytes */

typedef struct fs_regex fs_regex;

/* Compiles pattern (UTF-8). NULL with *err set to a sentence for people
 * when it is too long, outside the ECMA-262-compatible subset, or does not
 * compile. */
fs_regex *fs_regex_compile(apr_pool_t *p, const char *pattern, const char **err);

/* Searches subject (valid UTF-8, unanchored, as ECMA-262's RegExp.test):
 * 1 match, 0 no match, -1 the match limit was hit (or subject is not valid
 * UTF-8): treat as "does not match". */
int fs_regex_match(const fs_regex *re, const char *subject);

/* Is this pattern too expensive? Matches it against a few adversarial
 * subjects; 1 when any of them hits the limit. Used when a field is
 * defined, so that a pathological pattern is refused up front. */
int fs_regex_pathological(const fs_regex *re);

#endif
