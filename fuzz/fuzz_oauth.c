/* libFuzzer target: the token endpoint's parsers. The input is a token
 * request body (x-www-form-urlencoded); it is also tried as the value of
 * an Authorization: Basic header, and what parses goes through the
 * exchange rules and scope narrowing. Every error must be an OAuth error
 * (400 invalid_request / invalid_scope / invalid_grant).
 *
 * Build and run (until fuzz/run lists it):
 *   clang -g -O1 -std=c11 -fsanitize=fuzzer,address,undefined -Iinclude \
 *     $(apr-1-config --cflags --cppflags --includes) $(apu-1-config --includes) \
 *     -I/usr/include/json-c fuzz/fuzz_oauth.c mod_formsvc/core/fs_oauth.c \
 *     mod_formsvc/core/fs_scope.c mod_formsvc/core/fs_json.c mod_formsvc/core/fs_error.c \
 *     mod_formsvc/core/fs_util.c mod_formsvc/core/fs_secret.c -o fuzz_oauth \
 *     -ljson-c -lcrypto -lz -laprutil-1 -lapr-1 && ./fuzz_oauth -max_total_time=60 */
#include <apr_general.h>
#include <apr_strings.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fs_json.h"
#include "fs_oauth.h"

static apr_pool_t *root;

static void expect_oauth(fs_error *e) {
    if (!e)
        return;
    if (e->status != 400 || !e->extra || !fs_json_get(e->extra, "error"))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!root) {
        apr_initialize();
        apr_pool_create(&root, NULL);
    }
    apr_pool_t *p;
    apr_pool_create(&p, root);
    fs_token_request req;
    fs_error *e = fs_token_request_parse_form(p, (const char *)data, size, &req);
    expect_oauth(e);
    if (!e) {
        expect_oauth(fs_oauth_exchange_check_request(p, &req));
        fs_exchange_parent parent = {1, 1900000000, fs_scopes_full(p), "parent"};
        fs_exchange_grant g;
        e = fs_oauth_exchange(p, &parent, &req, 1800000000, 3600, &g);
        expect_oauth(e);
        if (!e && (g.depth != 2 || g.expires_in < 1 || g.expires > 1900000000 || !g.scopes))
            abort();
    }
    char *header = apr_pstrcat(p, "Basic ", apr_pstrndup(p, (const char *)data, size), NULL);
    int is_basic;
    const char *id, *secret;
    if (fs_basic_credentials(p, header, &is_basic, &id, &secret) && (!*id || !*secret))
        abort();
    apr_pool_destroy(p);
    return 0;
}
