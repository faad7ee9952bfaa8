/* libFuzzer target: the streaming multipart/form-data parser. The first
 * byte picks the chunk size the body is fed in; the rest is the body
 * (boundary "XyZ"). Limits are small so that the bounds are exercised. */
#include "fuzz_common.h"

/* File parts: begin, data and end must pair up, and no data
 * comes outside a file. */
typedef struct files_state {
    int open;
    size_t bytes;
} files_state;

static fs_error *f_begin(void *b, const char *name, const char *filename, const char *ctype) {
    files_state *st = b;
    (void)ctype;
    if (st->open || !name || !filename || !*filename)
        abort();
    st->open = 1;
    return NULL;
}

static fs_error *f_data(void *b, const char *buf, apr_size_t len) {
    files_state *st = b;
    if (!st->open || !buf || !len)
        abort();
    st->bytes += len;
    return NULL;
}

static fs_error *f_end(void *b) {
    files_state *st = b;
    if (!st->open)
        abort();
    st->open = 0;
    return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_init();
    if (size < 1)
        return 0;
    size_t chunk = (size_t)data[0] % 64 + 1;
    int files = data[0] & 0x80; /* the high bit: file parts are taken */
    data++;
    size--;
    apr_pool_t *p;
    apr_pool_create(&p, fuzz_pool);
    fs_multipart_limits lim = {256, 1024, 20};
    fs_multipart *mp = fs_multipart_new(p, "XyZ", &lim);
    files_state fst = {0, 0};
    fs_multipart_files cb = {&fst, f_begin, f_data, f_end};
    if (files)
        fs_multipart_on_files(mp, &cb);
    fs_error *e = NULL;
    for (size_t i = 0; i < size && !e; i += chunk)
        e = fs_multipart_feed(mp, (const char *)data + i, size - i < chunk ? size - i : chunk);
    apr_array_header_t *pairs = NULL;
    if (!e)
        e = fs_multipart_finish(mp, &pairs);
    if (!e && fst.open)
        abort(); /* a finished body with a file still open */
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
