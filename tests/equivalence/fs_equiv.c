/* fs_equiv: the server's side of the schema-equivalence test. Reads
 * {"cases": [{"fields": [...], "settings": {...} (optional: its logic),
 * "bodies": ["<raw JSON>", ...]}, ...]} on
 * stdin and prints {"results": [{"schema": {...}, "accepted": [true, ...],
 * "codes": [[...], ...]}]}: for each case the schema the JSON view
 * publishes and, for each body, whether the server accepts it (through the
 * same strict parser and validator as a JSON post). equivalence.py asks a
 * real JSON Schema 2020-12 validator the same questions. */
#include <apr_general.h>
#include <apr_strings.h>
#include <stdio.h>
#include <stdlib.h>

#include "fs_json.h"
#include "fs_schema.h"
#include "fs_validate.h"

int main(void) {
    apr_initialize();
    apr_pool_t *p;
    apr_pool_create(&p, NULL);
    apr_size_t cap = 1 << 20, n = 0;
    char *in = malloc(cap);
    size_t got;
    while ((got = fread(in + n, 1, cap - n, stdin)) > 0) {
        n += got;
        if (n == cap)
            in = realloc(in, cap *= 2);
    }
    json_object *doc = fs_json_parse_trusted(p, apr_pstrmemdup(p, in, n));
    free(in);
    json_object *cases = fs_json_get(doc, "cases");
    if (!cases) {
        fprintf(stderr, "fs_equiv: bad input\n");
        return 2;
    }
    json_object *out = fs_json_own(p, json_object_new_object());
    json_object *results = json_object_new_array();
    json_object_object_add(out, "results", results);
    for (size_t c = 0; c < json_object_array_length(cases); c++) {
        apr_pool_t *cp;
        apr_pool_create(&cp, p);
        json_object *cs = json_object_array_get_idx(cases, c);
        fs_fieldset *fs = fs_fieldset_from_json(cp, fs_json_get(cs, "fields"));
        fs_fieldset_logic(cp, fs, fs_json_get(cs, "settings")); /* page jumps, when given */
        json_object *res = json_object_new_object();
        json_object_object_add(res, "schema", json_object_get(fs_schema_for(cp, fs, NULL, NULL)));
        json_object *acc = json_object_new_array(), *codes = json_object_new_array();
        json_object *bodies = fs_json_get(cs, "bodies");
        for (size_t b = 0; b < json_object_array_length(bodies); b++) {
            json_object *raw = json_object_array_get_idx(bodies, b);
            json_object *body;
            fs_error *e = fs_json_parse_object(cp, json_object_get_string(raw),
                                               (apr_size_t)json_object_get_string_len(raw), &body);
            json_object *cl = json_object_new_array();
            if (e) {
                json_object_array_add(acc, NULL); /* not a JSON object: 400 */
            } else {
                e = fs_validate(cp, fs, body);
                json_object_array_add(acc, json_object_new_boolean(e == NULL));
                for (int i = 0; e && e->errors && i < e->errors->nelts; i++) {
                    fs_field_error *fe = &APR_ARRAY_IDX(e->errors, i, fs_field_error);
                    json_object_array_add(cl, json_object_new_string(apr_pstrcat(
                                                  cp, fe->pointer, " ", fe->code, NULL)));
                }
            }
            json_object_array_add(codes, cl);
        }
        json_object_object_add(res, "accepted", acc);
        json_object_object_add(res, "codes", codes);
        json_object_array_add(results, res);
        apr_pool_destroy(cp);
    }
    fputs(fs_json_str(p, out), stdout);
    apr_pool_destroy(p);
    apr_terminate();
    return 0;
}
