/* fs_oauth: token request parsing, Basic credentials, narrowing and the
 * rules of token exchange. */
#include "fs_json.h"
#include "fs_oauth.h"
#include "fs_test.h"

static const char *err_code(fs_error *e) {
    assert_non_null(e);
    json_object *v = fs_json_get(e->extra, "error");
    assert_non_null(v);
    assert_non_null(fs_json_get(e->extra, "error_description"));
    return json_object_get_string(v);
}

static fs_error *form(apr_pool_t *p, const char *body, fs_token_request *req) {
    return fs_token_request_parse_form(p, body, strlen(body), req);
}

static void form_parses_and_decodes(void **state) {
    apr_pool_t *p = *state;
    fs_token_request req;
    assert_null(form(p,
                     "grant_type=client_credentials&scope=forms%3Aread+keys:read"
                     "&client_id=cli_x&unknown=1&&",
                     &req));
    assert_string_equal(req.grant_type, "client_credentials");
    assert_string_equal(req.scope, "forms:read keys:read");
    assert_string_equal(req.client_id, "cli_x");
    assert_null(req.client_secret);
    /* a parameter without a value is treated as omitted (RFC 6749 3.1) */
    assert_null(form(p, "grant_type=&scope", &req));
    assert_null(req.grant_type);
    assert_null(req.scope);
    /* the length bounds the body: no NUL needed */
    assert_null(fs_token_request_parse_form(p, "actor=abcdef", 8, &req));
    assert_string_equal(req.actor, "ab");
    assert_null(form(p, "", &req));
    assert_null(req.grant_type);
}

static void form_refuses_repeats_and_bad_escapes(void **state) {
    apr_pool_t *p = *state;
    fs_token_request req;
    assert_string_equal(err_code(form(p, "scope=a&scope=b", &req)), "invalid_request");
    assert_string_equal(err_code(form(p, "grant_type=&grant_type=x", &req)), "invalid_request");
    /* repeated unknown parameters too (RFC 6749 3.2) */
    assert_string_equal(err_code(form(p, "x=1&x=2", &req)), "invalid_request");
    /* the same name, once escaped */
    assert_string_equal(err_code(form(p, "scope=a&sc%6Fpe=b", &req)), "invalid_request");
    assert_string_equal(err_code(form(p, "scope=%zz", &req)), "invalid_request");
    assert_string_equal(err_code(form(p, "scope=%4", &req)), "invalid_request");
    assert_string_equal(err_code(form(p, "scope=%", &req)), "invalid_request");
    assert_string_equal(err_code(form(p, "scope=%00", &req)), "invalid_request");
    assert_string_equal(err_code(form(p, "scope=%C3%28", &req)), "invalid_request");
    fs_error *e = form(p, "a=1&a=1", &req);
    assert_int_equal(e->status, 400);
    assert_string_equal(e->slug, "invalid-request");
}

static void json_request(void **state) {
    apr_pool_t *p = *state;
    fs_token_request req;
    json_object *o = fs_json_parse_trusted(
        p,
        "{\"grant_type\":\"client_credentials\",\"expires_in\":60,\"other\":[1],\"scope\":\"\"}");
    assert_null(fs_token_request_from_json(p, o, &req));
    assert_string_equal(req.grant_type, "client_credentials");
    assert_string_equal(req.expires_in, "60");
    assert_null(req.scope);
    o = fs_json_parse_trusted(p, "{\"scope\":[\"forms:read\"]}");
    assert_string_equal(err_code(fs_token_request_from_json(p, o, &req)), "invalid_request");
    o = fs_json_parse_trusted(p, "{\"grant_type\":null}");
    assert_string_equal(err_code(fs_token_request_from_json(p, o, &req)), "invalid_request");
    o = fs_json_parse_trusted(p, "{\"expires_in\":1.5}");
    assert_string_equal(err_code(fs_token_request_from_json(p, o, &req)), "invalid_request");
}

static void basic_header(void **state) {
    apr_pool_t *p = *state;
    int is_basic;
    const char *id, *secret;
    /* "cli_a:svcc_b" */
    assert_true(fs_basic_credentials(p, "Basic Y2xpX2E6c3ZjY19i", &is_basic, &id, &secret));
    assert_true(is_basic);
    assert_string_equal(id, "cli_a");
    assert_string_equal(secret, "svcc_b");
    assert_true(fs_basic_credentials(p, "basic   Y2xpX2E6c3ZjY19i  ", &is_basic, &id, &secret));
    /* form-encoded parts (RFC 6749 2.3.1): "a%3Ab:c+d" -> a:b / c d */
    assert_true(fs_basic_credentials(p, "Basic YSUzQWI6YytkOmU=", &is_basic, &id, &secret));
    assert_string_equal(id, "a:b");
    assert_string_equal(secret, "c d:e");
    /* not Basic at all */
    assert_false(fs_basic_credentials(p, "Bearer abc", &is_basic, &id, &secret));
    assert_false(is_basic);
    assert_false(fs_basic_credentials(p, NULL, &is_basic, &id, &secret));
    assert_false(fs_basic_credentials(p, "Basicfoo", &is_basic, &id, &secret));
    assert_false(is_basic);
    /* Basic but undecodable */
    const char *bad[] = {"Basic",
                         "Basic ",
                         "Basic !!!!",
                         "Basic Y2xp",         /* "cli" no colon */
                         "Basic Y2xpX2E6",     /* "cli_a:" empty secret */
                         "Basic OnNlY3JldA==", /* ":secret" */
                         "Basic Y2xpX2E6c3ZjY19i=",
                         "Basic Y2x=pX2E6",
                         "Basic YQBiOmM=" /* NUL */};
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        assert_false(fs_basic_credentials(p, bad[i], &is_basic, &id, &secret));
        assert_true(is_basic);
        assert_null(id);
    }
}

static fs_scopes *sc(apr_pool_t *p, const char *s) {
    const char *bad;
    fs_scopes *r = fs_scopes_from_string(p, s, &bad);
    assert_non_null(r);
    return r;
}

#define F1 "frm_01ARZ3NDEKTSV4RRFFQ69G5FAV"
#define F2 "frm_01ARZ3NDEKTSV4RRFFQ69G5FAW"

static void narrowing(void **state) {
    apr_pool_t *p = *state;
    fs_scopes *out;
    /* omitted: everything granted */
    assert_null(fs_oauth_narrow(p, sc(p, "forms:write"), NULL, &out));
    assert_string_equal(fs_scopes_to_string(p, out), "forms:write");
    assert_null(fs_oauth_narrow(p, fs_scopes_full(p), NULL, &out));
    assert_true(out->full);
    /* narrower, including through write implies read */
    assert_null(fs_oauth_narrow(p, sc(p, "forms:write submissions:read"), "forms:read", &out));
    assert_string_equal(fs_scopes_to_string(p, out), "forms:read");
    assert_null(fs_oauth_narrow(p, fs_scopes_full(p), "keys:write form:" F1, &out));
    assert_int_equal(out->forms->nelts, 1);
    /* wider */
    fs_error *e = fs_oauth_narrow(p, sc(p, "forms:read"), "forms:write", &out);
    assert_string_equal(err_code(e), "invalid_scope");
    assert_int_equal(e->status, 400);
    assert_string_equal(json_object_get_string(fs_json_get(e->extra, "requiredScope")),
                        "forms:write");
    /* unknown tokens, and a malformed form constraint */
    assert_string_equal(err_code(fs_oauth_narrow(p, fs_scopes_full(p), "forms:read admin", &out)),
                        "invalid_scope");
    assert_string_equal(err_code(fs_oauth_narrow(p, fs_scopes_full(p), "form:xyz", &out)),
                        "invalid_scope");
    assert_string_equal(err_code(fs_oauth_narrow(p, fs_scopes_full(p), "   ", &out)),
                        "invalid_scope");
    /* form constraints: only a non-empty subset of the parent's */
    fs_scopes *g = sc(p, "forms:read form:" F1);
    assert_null(fs_oauth_narrow(p, g, "forms:read form:" F1, &out));
    assert_string_equal(err_code(fs_oauth_narrow(p, g, "forms:read", &out)), "invalid_scope");
    assert_string_equal(err_code(fs_oauth_narrow(p, g, "forms:read form:" F2, &out)),
                        "invalid_scope");
}

static void exchange_rules(void **state) {
    apr_pool_t *p = *state;
    fs_exchange_grant g;
    fs_token_request req;
    memset(&req, 0, sizeof(req));
    fs_exchange_parent root = {0, 0, fs_scopes_full(p), NULL};
    const apr_int64_t now = 1800000000;
    /* defaults: the directive's lifetime, the parent's scopes and actor */
    assert_null(fs_oauth_exchange(p, &root, &req, now, 3600, &g));
    assert_int_equal(g.expires_in, 3600);
    assert_int_equal(g.expires, now + 3600);
    assert_int_equal(g.depth, 1);
    assert_true(g.scopes->full);
    assert_null(g.actor);
    assert_string_equal(g.name, "delegated");
    /* labels */
    req.actor = "research-bot";
    req.scope = "forms:read";
    req.expires_in = "600";
    assert_null(fs_oauth_exchange(p, &root, &req, now, 3600, &g));
    assert_string_equal(g.actor, "research-bot");
    assert_string_equal(g.name, "research-bot");
    assert_int_equal(g.expires_in, 600);
    assert_string_equal(fs_scopes_to_string(p, g.scopes), "forms:read");
    /* the actor is inherited */
    fs_exchange_parent child = {1, now + 1000, sc(p, "forms:read"), "research-bot"};
    memset(&req, 0, sizeof(req));
    req.name = "step two";
    assert_null(fs_oauth_exchange(p, &child, &req, now, 3600, &g));
    assert_string_equal(g.actor, "research-bot");
    assert_string_equal(g.name, "step two");
    /* the default is cut to the parent's expiry */
    assert_int_equal(g.expires_in, 1000);
    assert_int_equal(g.depth, 2);
    /* expires_in beyond the parent */
    req.expires_in = "1001";
    assert_string_equal(err_code(fs_oauth_exchange(p, &child, &req, now, 3600, &g)),
                        "invalid_request");
    req.expires_in = "1000";
    assert_null(fs_oauth_exchange(p, &child, &req, now, 3600, &g));
    /* scope wider than the parent */
    req.scope = "forms:write";
    assert_string_equal(err_code(fs_oauth_exchange(p, &child, &req, now, 3600, &g)),
                        "invalid_scope");
    /* an expired parent */
    fs_exchange_parent old = {1, now - 1, sc(p, "forms:read"), NULL};
    memset(&req, 0, sizeof(req));
    assert_string_equal(err_code(fs_oauth_exchange(p, &old, &req, now, 3600, &g)), "invalid_grant");
}

static void exchange_depth(void **state) {
    apr_pool_t *p = *state;
    fs_exchange_grant g;
    fs_token_request req;
    memset(&req, 0, sizeof(req));
    fs_exchange_parent par = {3, 0, fs_scopes_full(p), NULL};
    assert_null(fs_oauth_exchange(p, &par, &req, 1, 60, &g));
    assert_int_equal(g.depth, FS_OAUTH_MAX_DEPTH);
    par.depth = FS_OAUTH_MAX_DEPTH;
    assert_string_equal(err_code(fs_oauth_exchange(p, &par, &req, 1, 60, &g)), "invalid_request");
}

static void exchange_bad_parameters(void **state) {
    apr_pool_t *p = *state;
    fs_token_request req;
    const char *bad_in[] = {
        "-5", "0", "abc", "1.5", " 60", "+60", "31536001", "99999999999999999999", ""};
    for (unsigned i = 0; i < sizeof(bad_in) / sizeof(bad_in[0]); i++) {
        memset(&req, 0, sizeof(req));
        req.expires_in = bad_in[i];
        assert_string_equal(err_code(fs_oauth_exchange_check_request(p, &req)), "invalid_request");
    }
    memset(&req, 0, sizeof(req));
    req.expires_in = "31536000";
    assert_null(fs_oauth_exchange_check_request(p, &req));
    char longer[102];
    memset(longer, 'a', 101);
    longer[101] = '\0';
    const char *bad_label[] = {longer, "tab\there", "nl\n"};
    for (unsigned i = 0; i < 3; i++) {
        memset(&req, 0, sizeof(req));
        req.actor = bad_label[i];
        assert_string_equal(err_code(fs_oauth_exchange_check_request(p, &req)), "invalid_request");
        memset(&req, 0, sizeof(req));
        req.name = bad_label[i];
        assert_string_equal(err_code(fs_oauth_exchange_check_request(p, &req)), "invalid_request");
    }
    longer[100] = '\0'; /* exactly 100 */
    memset(&req, 0, sizeof(req));
    req.actor = longer;
    assert_null(fs_oauth_exchange_check_request(p, &req));
    /* 100 characters of two bytes each */
    char *wide = apr_palloc(p, 201);
    for (int i = 0; i < 100; i++)
        memcpy(wide + 2 * i, "\xc3\xa9", 2);
    wide[200] = '\0';
    req.actor = wide;
    assert_null(fs_oauth_exchange_check_request(p, &req));
    /* token types */
    memset(&req, 0, sizeof(req));
    req.subject_token = "svc_live_x";
    assert_string_equal(err_code(fs_oauth_exchange_check_request(p, &req)), "invalid_request");
    req.subject_token_type = "urn:ietf:params:oauth:token-type:jwt";
    assert_string_equal(err_code(fs_oauth_exchange_check_request(p, &req)), "invalid_request");
    req.subject_token_type = FS_TOKEN_TYPE_ACCESS;
    assert_null(fs_oauth_exchange_check_request(p, &req));
    req.requested_token_type = "urn:ietf:params:oauth:token-type:refresh_token";
    assert_string_equal(err_code(fs_oauth_exchange_check_request(p, &req)), "invalid_request");
    req.requested_token_type = NULL;
    req.actor_token = "x";
    assert_string_equal(err_code(fs_oauth_exchange_check_request(p, &req)), "invalid_request");
}

static void errors_carry_oauth_members(void **state) {
    apr_pool_t *p = *state;
    fs_error *e = fs_oauth_error(p, "invalid_client", "nope %d", 1);
    assert_int_equal(e->status, 401);
    assert_string_equal(e->slug, "invalid-client");
    assert_string_equal(json_object_get_string(fs_json_get(e->extra, "error_description")),
                        "nope 1");
    assert_int_equal(fs_oauth_error(p, "unsupported_grant_type", "x")->status, 400);
    assert_int_equal(fs_oauth_error(p, "invalid_grant", "x")->status, 400);
    e = fs_error_make(p, "unsupported-media-type", "Send JSON.");
    fs_oauth_decorate(p, e);
    assert_string_equal(err_code(e), "invalid_request");
    e = fs_error_make(p, "rate-limited", NULL);
    fs_oauth_decorate(p, e);
    assert_string_equal(err_code(e), "temporarily_unavailable");
    e = fs_error_make(p, "internal", NULL);
    fs_oauth_decorate(p, e);
    assert_string_equal(err_code(e), "server_error");
    /* an OAuth error is left as it is */
    e = fs_oauth_error(p, "invalid_scope", "x");
    fs_oauth_decorate(p, e);
    assert_string_equal(err_code(e), "invalid_scope");
    char *doc = fs_problem_render(p, e, "http://x", "/v1/token");
    assert_non_null(strstr(doc, "\"error\":\"invalid_scope\""));
    assert_non_null(strstr(doc, "/problems/invalid-scope"));
}

/* The pointers of scope errors name the item (the foundation once printed
 * "%zu" there, which APR's formatter does not know). */
static void scope_error_pointer(void **state) {
    apr_pool_t *p = *state;
    fs_error *verr = fs_error_validation(p);
    json_object *v = fs_json_parse_trusted(p, "[\"forms:read\", \"nope\"]");
    assert_null(fs_scopes_from_json(p, v, "/scopes", 1, verr));
    assert_int_equal(verr->errors->nelts, 1);
    assert_string_equal(APR_ARRAY_IDX(verr->errors, 0, fs_field_error).pointer, "/scopes/1");
}

static const struct CMUnitTest tests[] = {
    FS_TEST(scope_error_pointer),
    FS_TEST(form_parses_and_decodes),
    FS_TEST(form_refuses_repeats_and_bad_escapes),
    FS_TEST(json_request),
    FS_TEST(basic_header),
    FS_TEST(narrowing),
    FS_TEST(exchange_rules),
    FS_TEST(exchange_depth),
    FS_TEST(exchange_bad_parameters),
    FS_TEST(errors_carry_oauth_members),
};
FS_TEST_MAIN(tests)
