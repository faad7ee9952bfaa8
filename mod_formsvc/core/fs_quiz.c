/* fs_quiz: a quiz's options' scores and correct answers (fs_quiz.h). */
#include "fs_quiz.h"
#include "fs_calc.h"
#include "fs_field.h"
#include "fs_json.h"

#include <apr_hash.h>
#include <string.h>

json_object *fs_option_score_parse(apr_pool_t *p, json_object *v, const char *ptr, fs_error *verr) {
    if (!fs_calc_int(p, v, FS_SCORE_MAX, ptr, "score", verr))
        return NULL;
    return json_object_new_int64(json_object_get_int64(v));
}

int fs_quiz_options_scored(json_object *opts) {
    for (size_t i = 0;
         json_object_is_type(opts, json_type_array) && i < json_object_array_length(opts); i++)
        if (fs_json_get(json_object_array_get_idx(opts, i), "score"))
            return 1;
    return 0;
}

json_object *fs_correct_parse(apr_pool_t *p, json_object *v, json_object *target, const char *ptr,
                              fs_error *verr) {
    int t = fs_field_type_of(json_object_get_string(fs_json_get(target, "type")));
    if (t == FS_FT_TEXTAREA || t == FS_FT_HIDDEN || t == FS_FT_FILE || t == FS_FT_PAGE ||
        t == FS_FT_MATRIX || t == FS_FT_RANKING || t == FS_FT_ADDRESS || t == FS_FT_DATERANGE ||
        t == FS_FT_SIGNATURE) {
        fs_error_add(p, verr, ptr, "unknown",
                     "correct does not apply to textarea, hidden, file, page, matrix, ranking, "
                     "address, date range and signature fields.");
        return NULL;
    }
    if (fs_quiz_options_scored(fs_json_get(target, "options"))) {
        fs_error_add(p, verr, ptr, "unknown",
                     "A question scores either by its options' score or by correct: leave one "
                     "of the two out.");
        return NULL;
    }
    if (t == FS_FT_MULTISELECT) {
        size_t n = json_object_is_type(v, json_type_array) ? json_object_array_length(v) : 0;
        apr_hash_t *seen = apr_hash_make(p);
        int ok = n > 0;
        json_object *opts = fs_json_get(target, "options");
        for (size_t i = 0; ok && i < n; i++) {
            json_object *it = json_object_array_get_idx(v, i);
            const char *s =
                json_object_is_type(it, json_type_string) ? json_object_get_string(it) : NULL;
            ok = 0;
            for (size_t j = 0; s && !ok && json_object_is_type(opts, json_type_array) &&
                               j < json_object_array_length(opts);
                 j++)
                ok = !strcmp(s, json_object_get_string(
                                    fs_json_get(json_object_array_get_idx(opts, j), "value")));
            ok = ok && !apr_hash_get(seen, s, APR_HASH_KEY_STRING);
            if (ok)
                apr_hash_set(seen, s, APR_HASH_KEY_STRING, "");
        }
        if (!ok) {
            fs_error_add(p, verr, ptr, json_object_is_type(v, json_type_array) ? "enum" : "type",
                         "correct of a multiselect is the array of the option values that make "
                         "the right answer (at least one, each once).");
            return NULL;
        }
    } else if (!fs_field_value_fits(target, v)) {
        fs_error_add(p, verr, ptr, "enum",
                     "correct must be an answer this question can take (for a select, one "
                     "of its option values).");
        return NULL;
    }
    json_object *out = NULL;
    json_object_deep_copy(v, &out, NULL);
    return out;
}

int fs_quiz_is(json_object *fields) {
    for (size_t i = 0;
         json_object_is_type(fields, json_type_array) && i < json_object_array_length(fields);
         i++) {
        json_object *f = json_object_array_get_idx(fields, i);
        if (fs_json_get(f, "correct") || fs_quiz_options_scored(fs_json_get(f, "options")))
            return 1;
    }
    return 0;
}

json_object *fs_quiz_public_fields(json_object *fields) {
    if (!fs_quiz_is(fields))
        return NULL;
    json_object *out = NULL;
    if (json_object_deep_copy(fields, &out, NULL))
        return NULL;
    for (size_t i = 0; i < json_object_array_length(out); i++) {
        json_object *f = json_object_array_get_idx(out, i), *opts = fs_json_get(f, "options");
        json_object_object_del(f, "correct");
        for (size_t j = 0;
             json_object_is_type(opts, json_type_array) && j < json_object_array_length(opts); j++)
            json_object_object_del(json_object_array_get_idx(opts, j), "score");
    }
    return out;
}
