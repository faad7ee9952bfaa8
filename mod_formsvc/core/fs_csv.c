/* fs_csv: escaping, neutralisation and rows. */
#include "fs_csv.h"
#include "fs_json.h"

#include <apr_strings.h>
#include <string.h>

/* A character that starts a formula at the beginning of a cell or a line. */
static int trigger(char c) {
    return c == '=' || c == '+' || c == '-' || c == '@' || c == ';';
}

/* Does the line starting at s (after a CR or LF) begin, after blanks, with a
 * formula trigger? Returns the trigger's position, or NULL. */
static const char *line_formula(const char *s) {
    while (*s == ' ' || *s == '\t')
        s++;
    return trigger(*s) ? s : NULL;
}

static char *quote(apr_pool_t *p, const char *s, int neutralise) {
    int formula = neutralise && (trigger(*s) || *s == '\t' || *s == '\r');
    /* ';' is quoted too: it is the separator of spreadsheets in many locales */
    int needs = strpbrk(s, ",;\"\r\n") != NULL;
    apr_size_t n = strlen(s), extra = 0;
    for (const char *c = s; *c; c++) {
        extra += *c == '"';
        if (neutralise && (*c == '\n' || *c == '\r') && line_formula(c + 1))
            extra++;
    }
    if (!formula && !needs && !extra)
        return apr_pstrdup(p, s);
    char *out = apr_palloc(p, n + extra + 4), *o = out;
    if (needs)
        *o++ = '"';
    if (formula)
        *o++ = '\'';
    const char *mark = NULL; /* a trigger after a line break gets a quote too */
    for (const char *c = s; *c; c++) {
        if (c == mark)
            *o++ = '\'';
        if (*c == '"')
            *o++ = '"';
        *o++ = *c;
        if (neutralise && (*c == '\n' || *c == '\r'))
            mark = line_formula(c + 1);
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
            json_object *fn = fs_json_get(it, "name"), *fu = fs_json_get(it, "url");
            const char *s =
                json_object_is_type(it, json_type_string) ? json_object_get_string(it)
                /* an uploaded file: its name and API URL */
                : json_object_is_type(it, json_type_object) && fn && fu && fs_json_get(it, "sha256")
                    ? apr_pstrcat(p, json_object_get_string(fn), " <", json_object_get_string(fu),
                                  ">", NULL)
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

void fs_csv_scan(apr_pool_t *p, const char *s, apr_size_t len, apr_array_header_t **header,
                 int *rows) {
    *header = apr_array_make(p, 8, sizeof(const char *));
    *rows = 0;
    int records = 0, quoted = 0, pending = 0; /* pending: a record has begun */
    apr_array_header_t *cell = apr_array_make(p, 32, 1);
    for (apr_size_t i = 0; i < len; i++) {
        char c = s[i];
        pending = 1;
        if (quoted) {
            if (c == '"' && i + 1 < len && s[i + 1] == '"')
                i++; /* a doubled quote: one quote */
            else if (c == '"') {
                quoted = 0;
                continue;
            }
        } else if (c == '"') {
            quoted = 1;
            continue;
        } else if (c == ',' || c == '\n') {
            if (records == 0) {
                APR_ARRAY_PUSH(*header, const char *) =
                    apr_pstrndup(p, cell->elts, (apr_size_t)cell->nelts);
                apr_array_clear(cell);
            }
            if (c == '\n') {
                records++;
                pending = 0;
            }
            continue;
        } else if (c == '\r' && i + 1 < len && s[i + 1] == '\n')
            continue;
        if (records == 0)
            APR_ARRAY_PUSH(cell, char) = c;
    }
    if (pending) {
        if (records == 0)
            APR_ARRAY_PUSH(*header, const char *) =
                apr_pstrndup(p, cell->elts, (apr_size_t)cell->nelts);
        records++;
    }
    *rows = records > 0 ? records - 1 : 0;
}
