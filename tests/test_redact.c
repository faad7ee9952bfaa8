/* fs_redact: credential parameters never reach a log line. */
#include "fs_redact.h"
#include "fs_test.h"

static void names(void **state) {
    (void)state;
    assert_true(fs_credential_param("token"));
    assert_true(fs_credential_param("client_secret"));
    assert_true(fs_credential_param("l")); /* a respondent link's token */
    assert_false(fs_credential_param("link"));
    assert_true(fs_credential_param("CLIENT_SECRET"));
    assert_true(fs_credential_param("subject_token"));
    assert_true(fs_credential_param("code"));
    assert_false(fs_credential_param("limit"));
    assert_false(fs_credential_param("client_id"));
    assert_false(fs_credential_param("tokens"));
    assert_false(fs_credential_param(""));
    assert_false(fs_credential_param(NULL));
}

static void request_lines(void **state) {
    apr_pool_t *p = *state;
    const char *plain = "GET /v1/forms?limit=5 HTTP/1.1";
    assert_ptr_equal(fs_redact_request_line(p, plain), plain);
    const char *nq = "GET /healthz HTTP/1.1";
    assert_ptr_equal(fs_redact_request_line(p, nq), nq);
    assert_null(fs_redact_request_line(p, NULL));
    assert_string_equal(fs_redact_request_line(p, "GET /verify?token=abcDEF_-123 HTTP/1.1"),
                        "GET /verify?token=REDACTED HTTP/1.1");
    assert_string_equal(
        fs_redact_request_line(p, "POST /v1/token?client_id=cli_1&client_secret=s3cr3t HTTP/1.1"),
        "POST /v1/token?client_id=cli_1&client_secret=REDACTED HTTP/1.1");
    assert_string_equal(fs_redact_request_line(p, "GET /x?a=1&Token=t&b=2&code=c HTTP/1.0"),
                        "GET /x?a=1&Token=REDACTED&b=2&code=REDACTED HTTP/1.0");
    /* an encoded name, an undecodable name, an empty value, no protocol */
    assert_string_equal(fs_redact_request_line(p, "GET /x?client%5Fsecret=s HTTP/1.1"),
                        "GET /x?client%5Fsecret=REDACTED HTTP/1.1");
    assert_string_equal(fs_redact_request_line(p, "GET /x?%zz=s HTTP/1.1"),
                        "GET /x?%zz=REDACTED HTTP/1.1");
    const char *empty = "GET /verify?token= HTTP/1.1";
    assert_ptr_equal(fs_redact_request_line(p, empty), empty);
    assert_string_equal(fs_redact_request_line(p, "GET /verify?token=abc"),
                        "GET /verify?token=REDACTED");
    assert_string_equal(fs_redact_request_line(p, "GET /verify?&&token=a&& HTTP/1.1"),
                        "GET /verify?&&token=REDACTED&& HTTP/1.1");
    assert_string_equal(fs_redact_request_line(p, "GET /verify?token=a=b HTTP/1.1"),
                        "GET /verify?token=REDACTED HTTP/1.1");
}

static void query_credentials(void **state) {
    apr_pool_t *p = *state;
    assert_null(fs_query_credential(p, NULL));
    assert_null(fs_query_credential(p, ""));
    assert_null(fs_query_credential(p, "grant_type=client_credentials&client_id=x"));
    assert_string_equal(fs_query_credential(p, "client_id=x&client_secret=y"), "client_secret");
    assert_string_equal(fs_query_credential(p, "client%5Fsecret=y"), "client_secret");
    assert_string_equal(fs_query_credential(p, "subject_token"), "subject_token");
    assert_non_null(fs_query_credential(p, "%zz=1"));
}

static void lookups(void **state) {
    apr_pool_t *p = *state;
    int bad;
    const char *b = "a=1&token=x%2By+z&token=second&e=&f";
    assert_string_equal(fs_query_get(p, b, strlen(b), "token", &bad), "x+y z");
    assert_int_equal(bad, 0);
    assert_string_equal(fs_query_get(p, b, strlen(b), "e", NULL), "");
    assert_string_equal(fs_query_get(p, b, strlen(b), "f", NULL), "");
    assert_null(fs_query_get(p, b, strlen(b), "missing", &bad));
    assert_int_equal(bad, 0);
    const char *u = "token=%00";
    assert_null(fs_query_get(p, u, strlen(u), "token", &bad));
    assert_int_equal(bad, 1);
    assert_string_equal(fs_query_get(p, "token=abcdef", 8, "token", NULL), "ab"); /* bounded */
}

static const struct CMUnitTest tests[] = {FS_TEST(names), FS_TEST(request_lines),
                                          FS_TEST(query_credentials), FS_TEST(lookups)};
FS_TEST_MAIN(tests)
