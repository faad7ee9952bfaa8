/* libFuzzer target: the authorization code flow's parsers. The input is
 * tried as an authorization request's query (fs_urlencoded_parse, then
 * fs_authz_request_read), as a redirect URI (fs_redirect_uri_problem, and
 * the redirect built back to it), as a PKCE verifier and challenge, and as
 * a dynamic registration's JSON body. A registration that parses must hold
 * only redirect URIs fs_redirect_uri_problem allows; an error must be a 400
 * problem with an OAuth error member. fuzz/run builds and runs it. */
#include <apr_general.h>
#include <apr_strings.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fs_authorize.h"
#include "fs_json.h"
#include "fs_urlencoded.h"

static apr_pool_t *root;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!root) {
        apr_initialize();
        apr_pool_create(&root, NULL);
    }
    apr_pool_t *p;
    apr_pool_create(&p, root);
    const char *s = apr_pstrndup(p, (const char *)data, size);
    apr_array_header_t *pairs;
    if (!fs_urlencoded_parse(p, (const char *)data, size, &pairs)) {
        fs_authz_request q;
        fs_authz_request_read(pairs, &q);
        if (q.redirect_uri && !fs_redirect_uri_problem(p, q.redirect_uri))
            (void)fs_redirect_uri_host(p, q.redirect_uri);
    }
    if (!fs_redirect_uri_problem(p, s)) {
        char *u = fs_url_with_query(p, s, "code", s, "state", s, NULL);
        if (strncmp(u, s, strlen(s)))
            abort();
    }
    (void)fs_pkce_s256_match(s, s);
    json_object *body = NULL;
    fs_error *e = fs_json_parse_object(p, s, strlen(s), &body);
    if (!e && body) {
        fs_registration reg;
        e = fs_registration_parse(p, body, &reg);
        if (e && (e->status != 400 || !e->extra || !fs_json_get(e->extra, "error")))
            abort();
        if (!e)
            for (size_t i = 0; i < json_object_array_length(reg.redirect_uris); i++)
                if (fs_redirect_uri_problem(
                        p, json_object_get_string(json_object_array_get_idx(reg.redirect_uris, i))))
                    abort();
    }
    apr_pool_destroy(p);
    return 0;
}
