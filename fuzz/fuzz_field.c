/* libFuzzer target: the field-definition parser and the list rules of the
 * owner API. The input is a request body; when it parses as a JSON object
 * with a "fields" array, every item goes through fs_field_parse and the
 * whole list through fs_fields_check, as PUT /v1/forms/{id}/fields does.
 * A definition must be either accepted (a normalised object) or refused
 * with at least one error item: never both, never neither. Run by
 * `make fuzz` (fuzz/run). */
#include <apr_general.h>
#include <apr_strings.h>
#include <stdint.h>
#include <stdlib.h>

#include "fs_field.h"
#include "fs_json.h"

static apr_pool_t *root;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!root) {
        apr_initialize();
        apr_pool_create(&root, NULL);
    }
    apr_pool_t *p;
    apr_pool_create(&p, root);
    json_object *body;
    if (!fs_json_parse_object(p, (const char *)data, size, &body)) {
        json_object *arr = fs_json_get(body, "fields");
        if (arr && json_object_is_type(arr, json_type_array) &&
            json_object_array_length(arr) <= 120) {
            json_object *list = fs_json_own(p, json_object_new_array());
            int all_ok = 1;
            for (size_t i = 0; i < json_object_array_length(arr); i++) {
                fs_error *verr = fs_error_validation(p);
                const char *ptr = apr_psprintf(p, "/fields/%d", (int)i);
                json_object *f =
                    fs_field_parse(p, json_object_array_get_idx(arr, i), "fld_x", ptr, verr);
                if ((f != NULL) == (verr->errors != NULL))
                    abort(); /* accepted with errors, or refused without a reason */
                if (f)
                    json_object_array_add(list, f);
                else
                    all_ok = 0;
            }
            if (all_ok) {
                fs_error *verr = fs_error_validation(p);
                int ok = fs_fields_check(p, list, NULL, "/fields", verr);
                if (ok == (verr->errors != NULL))
                    abort();
            }
        }
    }
    apr_pool_destroy(p);
    return 0;
}
