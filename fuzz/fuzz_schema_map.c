/* libFuzzer target: a flat JSON Schema mapped to a form's fields
 * (fs_schema_to_fields, as POST /v1/forms with "schema" and POST /v1/asks
 * run it). The input is a request body; when it parses as a JSON object
 * with a "schema" member of at most 120 properties, the mapping must
 * either give a list of fields that the list rules accept, or refuse with
 * at least one error item: never both, never neither. Run by `make fuzz`
 * (fuzz/run). */
#include <apr_general.h>
#include <stdint.h>
#include <stdlib.h>

#include "fs_field.h"
#include "fs_json.h"
#include "fs_schema_map.h"

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
        json_object *s = fs_json_get(body, "schema");
        if (s && fs_schema_property_count(s) <= 120) {
            fs_error *verr = fs_error_validation(p);
            const char *title;
            json_object *list = fs_schema_to_fields(p, s, "/schema", verr, &title);
            if ((list != NULL) == (verr->errors != NULL))
                abort(); /* mapped with errors, or refused without a reason */
            if (list) {
                fs_error *again = fs_error_validation(p);
                if (!fs_fields_check(p, list, NULL, "/schema", again))
                    abort(); /* a mapped list breaks the list rules */
            }
        }
    }
    apr_pool_destroy(p);
    return 0;
}
