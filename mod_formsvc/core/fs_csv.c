/* fs_csv: escaping, neutralisation and rows. */
#include "fs_csv.h"
#include "fs_json.h"

#include <apr_strings.h>
#include <string.h>

static char *quote(apr_pool_t *p, const char *s, int neutralise) {
    int formula = neutralise &&
                  (*s == '=' || *s == '+' || *s == '-' || *s == '@' || *s == '\t' || *s == '\r');
    int needs = strpbrk(s, ",\"\r\n") != NULL;
    if (!formula && !needs)
        return apr_pstrdup(p, s);
    apr_size_t n = strlen(s), q = 0;
    for (const char *c = s; *c; c++)
        q += *c == '"';
    char *out = apr_palloc(p, n + q + 4), *o = out;
    if (needs)
        *o++ = '"';
    if (formula)
        *o++ = '\'';
    for (const char *c = s; *c; c++) {
        if (*c == '"')
            *o++ = '"';
        *o++ = *c;
    }
    if (needs)
        *o++ = '"';
    *o = '\0';
    return out;
}

char *fs_csv_cell(apr_pool_t *p, const char *text) {
    return text ? quote(p, text, 1) : apr_pstrdup(p, "");
}

char *fs_csv_value(apr_pool_t *p, json_object *v) {
    if (!v)
        return apr_pstrdup(p, "");
    switch (json_object_get_type(v)) {
    case json_type_null: return apr_pstrdup(p, "");
    case json_type_boolean: return apr_pstrdup(p, json_object_get_boolean(v) ? "true" : "false");
    case json_type_int:
    case json_type_double:
        /* a number is never a formula; its JSON text is already safe */
        return quote(p, fs_json_str(p, v), 0);
    case json_type_string: return fs_csv_cell(p, json_object_get_string(v));
    case json_type_array: {
        char *joined = "";
        size_t n = json_object_array_length(v);
        for (size_t i = 0; i < n; i++) {
            json_object *it = json_object_array_get_idx(v, i);
            const char *s = json_object_is_type(it, json_type_string) ? json_object_get_string(it)
                                                                      : fs_json_str(p, it);
            joined = i ? apr_pstrcat(p, joined, "; ", s, NULL) : apr_pstrdup(p, s);
        }
        return fs_csv_cell(p, joined);
    }
    case json_type_object: return fs_csv_cell(p, fs_json_str(p, v));
    }
    return apr_pstrdup(p, "");
}

void fs_csv_row(apr_array_header_t *buf, const char *const *cells, int n) {
    for (int i = 0; i < n; i++) {
        if (i)
            APR_ARRAY_PUSH(buf, char) = ',';
        for (const char *c = cells[i]; *c; c++)
            APR_ARRAY_PUSH(buf, char) = *c;
    }
    APR_ARRAY_PUSH(buf, char) = '\r';
    APR_ARRAY_PUSH(buf, char) = '\n';
}
