/* libFuzzer target: scores and calculations (fs_scores.h, fs_calc.h,
 * fs_quiz.h). The input is a JSON object {"fields": [...], "settings":
 * {...}, "answers": {...}, "message": "..."}: fields and settings go
 * through their parsers and the checks between them (accepted exactly
 * when no error was added); an accepted form computes the result of the
 * answers as they come (unchecked: the computation tolerates anything),
 * whose numbers must stay within their bounds, and its CSV cells; the
 * message has its placeholders filled. Run by `make fuzz` (fuzz/run). */
#include <apr_general.h>
#include <apr_strings.h>
#include <stdint.h>
#include <stdlib.h>

#include "fs_field.h"
#include "fs_fieldset.h"
#include "fs_form.h"
#include "fs_json.h"
#include "fs_scores.h"

static apr_pool_t *root;

static int out_of_bounds(json_object *v) {
    if (!json_object_is_type(v, json_type_int))
        return 0;
    long long x = (long long)json_object_get_int64(v);
    return x > FS_CALC_LIMIT || x < -FS_CALC_LIMIT;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!root) {
        apr_initialize();
        apr_pool_create(&root, NULL);
    }
    apr_pool_t *p;
    apr_pool_create(&p, root);
    json_object *body;
    if (!fs_json_parse_object(p, (const char *)data, size, &body)) {
        json_object *answers = fs_json_get(body, "answers");
        if (answers && !json_object_is_type(answers, json_type_object))
            answers = NULL;
        fs_error *verr = fs_error_validation(p);
        json_object *fields =
            json_object_is_type(fs_json_get(body, "fields"), json_type_array)
                ? fs_fields_parse(p, fs_json_get(body, "fields"), "/fields", NULL, verr)
                : NULL;
        json_object *settings =
            fs_json_own(p, fs_settings_parse(p, fs_json_get(body, "settings"), "/settings", verr));
        if (fields && settings)
            fs_settings_fields_check(p, settings, fields, verr);
        if (fields && settings && !verr->errors) {
            fs_fieldset *fs = fs_fieldset_from_json(p, fields);
            fs_fieldset_logic(p, fs, settings);
            json_object *c = fs_json_own(p, fs_calculated(p, settings, fields, fs, answers));
            json_object *vars = fs_json_get(c, "variables");
            if (json_object_is_type(vars, json_type_object)) {
                json_object_object_foreach(vars, k, v) {
                    (void)k;
                    if (out_of_bounds(v))
                        abort(); /* a number beyond +-10^15 */
                }
            }
            const char **names;
            int n = fs_scores_csv_columns(p, settings, fields, &names);
            (void)fs_scores_csv_values(p, names, n, c ? fs_json_str(p, c) : NULL);
            json_object_put(fs_quiz_public_fields(fields));
        }
        json_object *m = fs_json_get(body, "message");
        if (json_object_is_type(m, json_type_string))
            (void)fs_scores_fill(p, json_object_get_string(m), "7", "10");
    }
    apr_pool_destroy(p);
    return 0;
}
