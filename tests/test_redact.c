/* fs_redact: credential parameters never reach a log line. */
#include "fs_redact.h"
#include "fs_test.h"

#include <apr_strings.h>

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

/* secret-shaped runs wherever the target has them (a client's mistake:
 * a path parameter, an escaped '=', a ';' in place of '&') */
static void request_line_shapes(void **state) {
    apr_pool_t *p = *state;
    const char *hex = "5b58b96ae7dd12ead1f4ff731125d656d2fa6cd1ceaffaae65f1920c0409b12d";
    const char *tok = apr_pstrcat(p, "sub_01M8EYMNT4SP789Y01KB2S5Y6W.frs_", hex, NULL);
    const char *want = "sub_01M8EYMNT4SP789Y01KB2S5Y6W.frs_REDACTED";
    assert_string_equal(fs_redact_request_line(
                            p, apr_pstrcat(p, "GET /f/frm_1?x=1;resume=", tok, " HTTP/1.1", NULL)),
                        apr_pstrcat(p, "GET /f/frm_1?x=1;resume=", want, " HTTP/1.1", NULL));
    assert_string_equal(
        fs_redact_request_line(p, apr_pstrcat(p, "GET /f/frm_1?resume%3D", tok, " HTTP/1.1", NULL)),
        apr_pstrcat(p, "GET /f/frm_1?resume%3D", want, " HTTP/1.1", NULL));
    assert_string_equal(
        fs_redact_request_line(p, apr_pstrcat(p, "GET /f/frm_1;edit=", tok, " HTTP/1.1", NULL)),
        apr_pstrcat(p, "GET /f/frm_1;edit=", want, " HTTP/1.1", NULL));
    /* a key anywhere, two secrets, one left as a parameter's REDACTED */
    assert_string_equal(
        fs_redact_request_line(p, "GET /x/svc_live_VJ8ZEA5Apt8RXYNZVt3tjUjADJWLC0hvr3WcEHP?a=fsl_"
                                  "o2d026yPmBjZErvY8RoYiufR8qU4yqxls0FQgyH&edit=x_y HTTP/1.1"),
        "GET /x/svc_live_REDACTED?a=fsl_REDACTED&edit=REDACTED HTTP/1.1");
    /* ids (26 after their '_') and runs of 31 stay; the protocol is not read */
    const char *ids = "GET /v1/forms/frm_01M8EYH693TYM23BEF60PWFW3R/submissions/"
                      "sub_01M8EYH9VSR78H9G61F9CRBDBQ?x=_0123456789012345678901234567890 HTTP/1.1";
    assert_ptr_equal(fs_redact_request_line(p, ids), ids);
    assert_string_equal(
        fs_redact_request_line(p, "GET /a?x=_01234567890123456789012345678901 HTTP/1.1"),
        "GET /a?x=_REDACTED HTTP/1.1");
    assert_string_equal(fs_redact_request_line(p, "GET /a_01234567890123456789012345678901"),
                        "GET /a_REDACTED");
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
                                          FS_TEST(request_line_shapes), FS_TEST(query_credentials),
                                          FS_TEST(lookups)};
FS_TEST_MAIN(tests)
