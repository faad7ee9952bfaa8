/* fs_pattern: pcre2 with match and depth limits, for the built-in formats. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "fs_pattern.h"

#include <pcre2.h>
#include <stdlib.h>

struct fs_pattern {
    pcre2_code *code;
    pcre2_match_context *mctx;
};

fs_pattern *fs_pattern_compile_forever(const char *re) {
    int ec;
    PCRE2_SIZE off;
    pcre2_code *code = pcre2_compile((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED,
                                     PCRE2_UTF | PCRE2_DOLLAR_ENDONLY, &ec, &off, NULL);
    fs_pattern *pt = code ? calloc(1, sizeof(*pt)) : NULL;
    if (pt)
        pt->mctx = pcre2_match_context_create(NULL);
    if (!pt || !pt->mctx) {
        free(pt);
        pcre2_code_free(code);
        return NULL;
    }
    pt->code = code;
    pcre2_set_match_limit(pt->mctx, FS_PATTERN_MATCH_LIMIT);
    pcre2_set_depth_limit(pt->mctx, FS_PATTERN_DEPTH_LIMIT);
    return pt;
}

int fs_pattern_search(const fs_pattern *pt, const char *s, apr_size_t len) {
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(pt->code, NULL);
    if (!md)
        return 0;
    int rc = pcre2_match(pt->code, (PCRE2_SPTR)s, len, 0, 0, md, pt->mctx);
    pcre2_match_data_free(md);
    return rc >= 0;
}
