/* libFuzzer target: the urlencoded parser, then coercion, validation and
 * the page with the values echoed back. */
#include "fuzz_common.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_init();
    apr_pool_t *p;
    apr_pool_create(&p, fuzz_pool);
    apr_array_header_t *pairs;
    fs_error *e = fs_urlencoded_parse(p, (const char *)data, size, &pairs);
    if (!e) {
        fuzz_downstream(p, pairs);
    } else if (e->status != 400) {
        abort();
    }
    apr_pool_destroy(p);
    return 0;
}
