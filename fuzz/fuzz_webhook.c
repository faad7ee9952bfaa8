/* libFuzzer target: the webhook target URL check (hostile input from
 * POST /v1/webhooks), the secret decoder and the signer. */
#include "fs_webhook.h"
#include "fuzz_common.h"

#include <apr_strings.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_init();
    apr_pool_t *p;
    apr_pool_create(&p, fuzz_pool);
    char *s = apr_pstrmemdup(p, (const char *)data, size);
    if (strlen(s) == size) { /* the API never passes a NUL inside a string */
        apr_uri_t u;
        fs_webhook_url_check(p, s, 0, &u);
        fs_webhook_url_check(p, s, 1, NULL);
        apr_size_t n;
        fs_webhook_secret_key(p, s, &n);
        fs_webhook_sign(p, s, "dlv_x", 1, s, size);
    }
    apr_pool_destroy(p);
    return 0;
}
