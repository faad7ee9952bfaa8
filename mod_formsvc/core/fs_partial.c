/* fs_partial: the resume token of partial answers (fs_partial.h). */
#include "fs_partial.h"
#include "fs_secret.h"

#include <apr_strings.h>
#include <string.h>

char *fs_partial_token_new(apr_pool_t *p, const char *id, const char **secret) {
    char *s = fs_secret_generate(p, FS_PARTIAL_SECRET_PREFIX);
    *secret = s;
    return s && id ? apr_pstrcat(p, id, ".", s, NULL) : NULL;
}

int fs_partial_token_parse(apr_pool_t *p, const char *token, const char **id, const char **secret) {
    *id = *secret = NULL;
    const char *dot = token ? strchr(token, '.') : NULL;
    if (!dot || dot - token > 64)
        return 0;
    const char *i = apr_pstrmemdup(p, token, (apr_size_t)(dot - token));
    if (!fs_id_valid(i, "sub_") || !fs_secret_well_formed(dot + 1, FS_PARTIAL_SECRET_PREFIX))
        return 0;
    *id = i;
    *secret = dot + 1;
    return 1;
}
