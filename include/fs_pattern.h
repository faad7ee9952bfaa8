/* fs_pattern: the built-in format patterns (FS_RE_EMAIL, FS_RE_URL, ...
 * in fs_fieldset.h) through pcre2, bounded. Owner patterns
 * (validation.pattern) do not come here: they go through fs_regex, the
 * ECMA-262 subset that is checked when a field is defined.
 *
 * Search is unanchored (the built-in patterns anchor themselves), '$' only
 * at the very end (PCRE2_DOLLAR_ENDONLY), UTF-8 subject. Every match runs
 * with a match limit and a depth limit, so a pathological pattern costs at
 * most a bounded amount of work; hitting a limit counts as no match. */
#ifndef FS_PATTERN_H
#define FS_PATTERN_H

#include <apr_pools.h>

#define FS_PATTERN_MATCH_LIMIT 100000 /* pcre2 match limit */
#define FS_PATTERN_DEPTH_LIMIT 1000   /* pcre2 depth limit */

typedef struct fs_pattern fs_pattern;

/* Compiles re for the life of the process (the built-in formats, made
 * once): malloc'ed, never freed. NULL when re is not valid. */
fs_pattern *fs_pattern_compile_forever(const char *re);

/* 1 when re matches somewhere in s (len bytes, valid UTF-8), 0 when not or
 * when a limit was reached. Thread-safe: match data is per call. */
int fs_pattern_search(const fs_pattern *pt, const char *s, apr_size_t len);

#endif
