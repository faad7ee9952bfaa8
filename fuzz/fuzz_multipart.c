/* libFuzzer target: the streaming multipart/form-data parser. The first
 * byte picks the chunk size the body is fed in; the rest is the body
 * (boundary "XyZ"). Limits are small so that the bounds are exercised. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_init();
    if (size < 1)
        return 0;
    size_t chunk = (size_t)data[0] % 64 + 1;
    data++;
    size--;
    apr_pool_t *p;
    apr_pool_create(&p, fuzz_pool);
    fs_multipart_limits lim = {256, 1024, 20};
    fs_multipart *mp = fs_multipart_new(p, "XyZ", &lim);
    fs_error *e = NULL;
    for (size_t i = 0; i < size && !e; i += chunk)
        e = fs_multipart_feed(mp, (const char *)data + i, size - i < chunk ? size - i : chunk);
    apr_array_header_t *pairs = NULL;
    if (!e)
        e = fs_multipart_finish(mp, &pairs);
    if (!e) {
        for (int i = 0; i < pairs->nelts; i++) {
            fs_pair *pr = &APR_ARRAY_IDX(pairs, i, fs_pair);
            if (strlen(pr->value) > lim.max_value || !fs_utf8_valid(pr->value, strlen(pr->value)))
                abort(); /* a value over the limit or not UTF-8 got through */
        }
        fuzz_downstream(p, pairs);
    } else if (e->status != 400 && e->status != 413) {
        abort();
    }
    apr_pool_destroy(p);
    return 0;
}
