/* fs_urlencoded: application/x-www-form-urlencoded bodies (WHATWG URL
 * "application/x-www-form-urlencoded parser", strict about escapes). */
#include "fs_urlencoded.h"
#include "fs_json.h"
#include "fs_util.h"

#include <apr_strings.h>
#include <string.h>

fs_error *fs_urlencoded_parse(apr_pool_t *p, const char *buf, apr_size_t len,
                              apr_array_header_t **pairs) {
    apr_array_header_t *a = apr_array_make(p, 16, sizeof(fs_pair));
    *pairs = NULL;
    apr_size_t i = 0;
    while (i < len) {
        apr_size_t j = i;
        while (j < len && buf[j] != '&')
            j++;
        if (j > i) {
            if (a->nelts >= FS_FORM_MAX_PAIRS)
                return fs_error_make(p, "malformed-request", "The form has more than %d values.",
                                     FS_FORM_MAX_PAIRS);
            const char *eq = memchr(buf + i, '=', j - i);
            apr_size_t nl = eq ? (apr_size_t)(eq - (buf + i)) : j - i;
            fs_pair *pr = apr_array_push(a);
            pr->name = fs_form_decode(p, buf + i, nl);
            pr->value = eq ? fs_form_decode(p, eq + 1, (apr_size_t)(buf + j - (eq + 1))) : "";
            if (!pr->name || !pr->value)
                return fs_error_make(p, "malformed-request",
                                     "The form body has a bad %%-escape, invalid UTF-8 or a "
                                     "NUL byte.");
        }
        i = j + 1;
    }
    *pairs = a;
    return NULL;
}
