/* libFuzzer target: conditions (fs_logic.h). The input is a JSON object
 * {"c": <condition>, "answers": {...}}: the condition goes through
 * fs_cond_parse (accepted exactly when no error was added), and an
 * accepted one is evaluated against the answers, its keys walked and its
 * JSON Schema made (none of which may crash or recurse without bound);
 * a stored condition is tolerated, so the raw one is evaluated too. Run
 * by `make fuzz` (fuzz/run). */
#include <apr_general.h>
#include <apr_strings.h>
#include <stdint.h>
#include <stdlib.h>

#include "fs_json.h"
#include "fs_logic.h"

static apr_pool_t *root;

static int any_multiselect(const void *ctx, const char *key) {
    (void)ctx;
    return key[0] == 'm';
}

static int count_key(void *ctx, const char *key) {
    (void)key;
    return ++*(int *)ctx < 1000;
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
        json_object *raw = fs_json_get(body, "c"), *answers = fs_json_get(body, "answers");
        if (answers && !json_object_is_type(answers, json_type_object))
            answers = NULL;
        fs_error *verr = fs_error_validation(p);
        json_object *c = fs_json_own(p, fs_cond_parse(p, raw, "/c", verr));
        if ((c != NULL) == (verr->errors != NULL))
            abort();                      /* accepted with errors, or refused without a reason */
        (void)fs_cond_eval(raw, answers); /* stored: tolerated */
        if (c) {
            int n = 0;
            (void)fs_cond_eval(c, answers);
            fs_cond_each_key(c, count_key, &n);
            if (n > FS_COND_NODES_MAX)
                abort(); /* more leaves than the bound */
            json_object_put(fs_cond_schema(p, c, any_multiselect, NULL));
        }
    }
    apr_pool_destroy(p);
    return 0;
}
