/* fs_urlencoded: application/x-www-form-urlencoded bodies (WHATWG URL
 * "application/x-www-form-urlencoded parser", strict about escapes). */
#include "fs_formdata.h"
#include "fs_json.h"

#include <apr_strings.h>
#include <string.h>

static int hexval(char c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Decodes s[0..n) into a new string; NULL on a bad escape, invalid UTF-8
 * or NUL. */
static char *decode(apr_pool_t *p, const char *s, apr_size_t n) {
    char *out = apr_palloc(p, n + 1), *o = out;
    for (apr_size_t i = 0; i < n; i++) {
        if (s[i] == '+') {
            *o++ = ' ';
        } else if (s[i] == '%') {
            int h, l;
            if (i + 2 >= n || (h = hexval(s[i + 1])) < 0 || (l = hexval(s[i + 2])) < 0)
                return NULL;
            *o++ = (char)(h * 16 + l);
            i += 2;
        } else {
            *o++ = s[i];
        }
    }
    *o = '\0';
    apr_size_t len = (apr_size_t)(o - out);
    return fs_utf8_valid(out, len) ? out : NULL;
}

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
            pr->name = decode(p, buf + i, nl);
            pr->value = eq ? decode(p, eq + 1, (apr_size_t)(buf + j - (eq + 1))) : "";
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
