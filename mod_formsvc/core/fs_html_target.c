/* fs_html_target: the input an error summary's link points at
 * (fs_html_target.h). The ids are those fs_html_parts.c (parts, "-<i>"),
 * fs_html_choice.c (a matrix's cells: "-0" for the first, "-<r>-<c>"
 * else; the Other text, "-other") and fs_html.c give the inputs. */
#include "fs_html_target.h"
#include "fs_field_choice.h"
#include "fs_field_more.h"
#include "fs_json.h"

#include <apr_strings.h>
#include <stdlib.h>
#include <string.h>

/* The index of name in the array of objects rows by their "key", or -1. */
static long row_index(json_object *rows, const char *name) {
    if (!rows || !json_object_is_type(rows, json_type_array))
        return -1;
    for (size_t i = 0; i < json_object_array_length(rows); i++) {
        const char *k =
            json_object_get_string(fs_json_get(json_object_array_get_idx(rows, i), "key"));
        if (k && !strcmp(k, name))
            return (long)i;
    }
    return -1;
}

const char *fs_html_error_target(apr_pool_t *p, const fs_field *f, const char *pointer, int group) {
    const char *fallback = group ? "-0" : "";
    /* what follows "/<key>": "" or "/<segment>[/...]" */
    size_t kl = strlen(f->key);
    if (!pointer || pointer[0] != '/' || strncmp(pointer + 1, f->key, kl) || pointer[1 + kl] != '/')
        return fallback;
    const char *rest = pointer + 1 + kl; /* "/..." */
    size_t rl = strlen(rest);
    if (fs_choice_allows_other(f) && rl >= 6 && !strcmp(rest + rl - 6, "/other"))
        return "-other";
    const char *seg = rest + 1, *end = strchr(seg, '/');
    seg = end ? apr_pstrndup(p, seg, (apr_size_t)(end - seg)) : seg;
    const char *const *parts = fs_field_parts(f->type);
    for (long i = 0; parts && parts[i]; i++) /* a signature's image has no input of its own */
        if (!strcmp(parts[i], seg) && !(f->type == FS_FT_SIGNATURE && !strcmp(seg, "image")))
            return apr_psprintf(p, "-%ld", i);
    if (f->type == FS_FT_MATRIX) {
        long r = row_index(fs_json_get(f->def, "rows"), seg);
        if (r == 0)
            return "-0";
        if (r > 0)
            return apr_psprintf(p, "-%ld-0", r);
    }
    return fallback;
}

int fs_html_error_on_other(apr_pool_t *p, const fs_error *e, const fs_field *f) {
    for (int i = 0; e && e->errors && i < e->errors->nelts; i++)
        if (!strcmp(
                fs_html_error_target(p, f, APR_ARRAY_IDX(e->errors, i, fs_field_error).pointer, 0),
                "-other"))
            return 1;
    return 0;
}

unsigned fs_html_parts_in_error(apr_pool_t *p, const fs_error *e, const fs_field *f) {
    unsigned bad = 0;
    size_t kl = strlen(f->key);
    for (int i = 0; e && e->errors && i < e->errors->nelts; i++) {
        const char *ptr = APR_ARRAY_IDX(e->errors, i, fs_field_error).pointer;
        if (!ptr || ptr[0] != '/' || strncmp(ptr + 1, f->key, kl) ||
            (ptr[1 + kl] != '\0' && ptr[1 + kl] != '/'))
            continue;
        const char *t = fs_html_error_target(p, f, ptr, 0); /* "-<part>" or "" */
        char *end = NULL;
        long n = t[0] == '-' && t[1] >= '0' && t[1] <= '9' ? strtol(t + 1, &end, 10) : -1;
        if (n >= 0 && n < 32 && end && *end == '\0')
            bad |= 1u << n;
        else
            return ~0u;
    }
    return bad;
}
