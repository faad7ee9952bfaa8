/* fs_authorize: PKCE, redirect URIs, authorization requests, the redirect
 * back, dynamic registration's metadata. */
#include "fs_authorize.h"
#include "fs_json.h"
#include "fs_test.h"
#include "fs_urlencoded.h"

static void pkce(void **state) {
    (void)state;
    /* RFC 7636 appendix B */
    const char *v = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
    const char *c = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
    assert_true(fs_pkce_verifier_valid(v));
    assert_true(fs_pkce_challenge_valid(c));
    assert_true(fs_pkce_s256_match(v, c));
    assert_false(fs_pkce_s256_match(v, "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cN"));
    assert_false(fs_pkce_s256_match(c, c));        /* plain: the challenge as verifier */
    assert_false(fs_pkce_verifier_valid("short")); /* under 43 */
    assert_false(fs_pkce_verifier_valid("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjX+"));
    assert_false(fs_pkce_challenge_valid("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-c="));
    assert_false(fs_pkce_s256_match(NULL, c));
}

static void redirect_uris(void **state) {
    apr_pool_t *p = *state;
    assert_null(fs_redirect_uri_problem(p, "https://app.example/cb"));
    assert_null(fs_redirect_uri_problem(p, "https://app.example:8443/cb?x=1"));
    assert_null(fs_redirect_uri_problem(p, "http://localhost:33418/callback"));
    assert_null(fs_redirect_uri_problem(p, "http://127.0.0.1/cb"));
    assert_null(fs_redirect_uri_problem(p, "http://[::1]:8080/cb"));
    assert_non_null(fs_redirect_uri_problem(p, "http://app.example/cb"));
    assert_non_null(fs_redirect_uri_problem(p, "http://localhost.evil.example/cb"));
    assert_non_null(fs_redirect_uri_problem(p, "http://127.0.0.1.evil.example/cb"));
    assert_non_null(fs_redirect_uri_problem(p, "http://localhost:80x/cb"));
    assert_non_null(fs_redirect_uri_problem(p, "https://app.example/cb#x"));
    assert_non_null(fs_redirect_uri_problem(p, "https://user@app.example/cb"));
    assert_non_null(fs_redirect_uri_problem(p, "javascript:alert(1)"));
    assert_non_null(fs_redirect_uri_problem(p, "https:///cb"));
    assert_non_null(fs_redirect_uri_problem(p, "https://app.example/c b"));
    assert_non_null(fs_redirect_uri_problem(p, ""));
    json_object *reg = fs_json_own(p, json_tokener_parse("[\"https://a.example/cb\"]"));
    assert_true(fs_redirect_uri_registered(reg, "https://a.example/cb"));
    assert_false(fs_redirect_uri_registered(reg, "https://a.example/cb/"));
    assert_false(fs_redirect_uri_registered(reg, "https://A.example/cb"));
    assert_false(fs_redirect_uri_registered(reg, "https://a.example/cb?x"));
    assert_string_equal(fs_redirect_uri_host(p, "https://a.example:8443/cb?x"), "a.example:8443");
}

static void with_query(void **state) {
    apr_pool_t *p = *state;
    assert_string_equal(fs_url_with_query(p, "https://a/cb", "code", "x y", "state", NULL, NULL),
                        "https://a/cb?code=x%20y");
    assert_string_equal(fs_url_with_query(p, "https://a/cb?k=1", "state", "&=?#", NULL),
                        "https://a/cb?k=1&state=%26%3D%3F%23");
}

static void request_read(void **state) {
    apr_pool_t *p = *state;
    apr_array_header_t *pairs;
    const char *q = "response_type=code&client_id=app_1&state=&scope=a&scope=b&other=1";
    assert_null(fs_urlencoded_parse(p, q, strlen(q), &pairs));
    fs_authz_request r;
    fs_authz_request_read(pairs, &r);
    assert_string_equal(r.response_type, "code");
    assert_string_equal(r.client_id, "app_1");
    assert_null(r.state); /* empty is absent */
    assert_string_equal(r.dup, "scope");
}

static void registration(void **state) {
    apr_pool_t *p = *state;
    fs_registration reg;
    json_object *b = fs_json_own(
        p, json_tokener_parse("{\"redirect_uris\":[\"http://localhost:1/cb\"],"
                              "\"token_endpoint_auth_method\":\"none\","
                              "\"grant_types\":[\"authorization_code\",\"refresh_token\"],"
                              "\"response_types\":[\"code\"],\"client_name\":\"Claude\"}"));
    assert_null(fs_registration_parse(p, b, &reg));
    assert_string_equal(reg.client_name, "Claude");
    fs_error *e;
    b = fs_json_own(p, json_tokener_parse("{\"redirect_uris\":[]}"));
    assert_non_null(e = fs_registration_parse(p, b, &reg));
    b = fs_json_own(p, json_tokener_parse("{\"redirect_uris\":[\"https://a/cb\"],"
                                          "\"grant_types\":[\"client_credentials\"]}"));
    assert_non_null(e = fs_registration_parse(p, b, &reg));
    b = fs_json_own(p, json_tokener_parse("{\"redirect_uris\":[\"https://a/cb\"],"
                                          "\"client_name\":\"a\\u0007b\"}"));
    assert_non_null(e = fs_registration_parse(p, b, &reg));
    b = fs_json_own(p, json_tokener_parse("{\"redirect_uris\":[\"https://a/cb\"]}"));
    assert_null(fs_registration_parse(p, b, &reg));
    assert_string_equal(reg.client_name, "MCP client");
}

int main(void) {
    const struct CMUnitTest tests[] = {FS_TEST(pkce), FS_TEST(redirect_uris), FS_TEST(with_query),
                                       FS_TEST(request_read), FS_TEST(registration)};
    apr_initialize();
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    apr_terminate();
    return rc;
}
