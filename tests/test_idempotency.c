/* fs_idempotency: key syntax, fingerprints, sealing. */
#include "fs_idempotency.h"
#include "fs_test.h"

#include <apr_strings.h>

static void keys(void **state) {
    (void)state;
    assert_true(fs_idem_key_valid("a"));
    assert_true(fs_idem_key_valid("550e8400-e29b-41d4-a716-446655440000"));
    assert_false(fs_idem_key_valid(""));
    assert_false(fs_idem_key_valid(NULL));
    assert_false(fs_idem_key_valid("a b"));
    assert_false(fs_idem_key_valid("caf\xc3\xa9"));
    char k[257];
    memset(k, 'k', 256);
    k[256] = '\0';
    assert_false(fs_idem_key_valid(k));
    k[255] = '\0';
    assert_true(fs_idem_key_valid(k));
}

static void fingerprints(void **state) {
    apr_pool_t *p = *state;
    char *a = fs_idem_fingerprint(p, "POST", "/v1/forms", "{\"title\":\"x\"}", 13);
    assert_int_equal(strlen(a), 64);
    assert_string_equal(a, fs_idem_fingerprint(p, "POST", "/v1/forms", "{\"title\":\"x\"}", 13));
    assert_string_not_equal(a, fs_idem_fingerprint(p, "POST", "/v1/keys", "{\"title\":\"x\"}", 13));
    assert_string_not_equal(a,
                            fs_idem_fingerprint(p, "POST", "/v1/forms", "{\"title\":\"y\"}", 13));
    /* parts are length-prefixed: moving a byte between them changes it */
    assert_string_not_equal(fs_idem_fingerprint(p, "POST", "/a", "b", 1),
                            fs_idem_fingerprint(p, "POST", "/ab", "", 0));
}

static void sealing(void **state) {
    apr_pool_t *p = *state;
    const unsigned char pepper[] = "0123456789abcdef0123";
    char *s = fs_idem_seal(p, pepper, 20, "usr_1", "key-1",
                           "application/json\n{\"secret\":\"svc_live_TOPSECRET\"}");
    assert_non_null(s);
    assert_null(strstr(s, "TOPSECRET"));
    assert_string_equal(fs_idem_open(p, pepper, 20, "usr_1", "key-1", s),
                        "application/json\n{\"secret\":\"svc_live_TOPSECRET\"}");
    assert_null(fs_idem_open(p, pepper, 20, "usr_2", "key-1", s));
    assert_null(fs_idem_open(p, pepper, 20, "usr_1", "key-2", s));
    assert_null(fs_idem_open(p, pepper, 19, "usr_1", "key-1", s));
    /* two seals of the same text differ (random nonce) */
    assert_string_not_equal(s,
                            fs_idem_seal(p, pepper, 20, "usr_1", "key-1",
                                         "application/json\n{\"secret\":\"svc_live_TOPSECRET\"}"));
    /* tampering is detected */
    char *t = apr_pstrdup(p, s);
    t[20] = t[20] == 'A' ? 'B' : 'A';
    assert_null(fs_idem_open(p, pepper, 20, "usr_1", "key-1", t));
    assert_null(fs_idem_open(p, pepper, 20, "usr_1", "key-1", "short"));
    /* without a pepper it still round-trips */
    s = fs_idem_seal(p, NULL, 0, "frm_1", "k", "x");
    assert_string_equal(fs_idem_open(p, NULL, 0, "frm_1", "k", s), "x");
}

/* The submission token of a form page: a valid Idempotency-Key, new on
 * each call, accepted only for its form and link, under its pepper. */
static void form_tokens(void **state) {
    apr_pool_t *p = *state;
    const unsigned char pepper[] = "0123456789abcdef0123";
    const char *link = "fsl_0123456789abcdefghijklmnopqrstuvwABCDEF";
    char *a = fs_idem_form_token(p, pepper, 20, "frm_A", "");
    char *b = fs_idem_form_token(p, pepper, 20, "frm_A", "");
    assert_non_null(a);
    assert_int_equal(strlen(a), FS_FORM_TOKEN_LEN);
    assert_true(fs_idem_key_valid(a));
    assert_string_not_equal(a, b); /* a fresh random part each time */
    assert_true(fs_idem_form_token_valid(pepper, 20, "frm_A", "", a));
    assert_true(fs_idem_form_token_valid(pepper, 20, "frm_A", NULL, b));
    assert_false(fs_idem_form_token_valid(pepper, 20, "frm_B", "", a));   /* another form */
    assert_false(fs_idem_form_token_valid(pepper, 20, "frm_A", link, a)); /* through a link */
    assert_false(fs_idem_form_token_valid(pepper, 19, "frm_A", "", a));   /* another pepper */
    char *l = fs_idem_form_token(p, pepper, 20, "frm_A", link);
    assert_true(fs_idem_form_token_valid(pepper, 20, "frm_A", link, l));
    assert_false(fs_idem_form_token_valid(pepper, 20, "frm_A", "", l));
    assert_false(fs_idem_form_token_valid(pepper, 20, "frm_A", "fsl_other", l));
    /* tampering with either part, or the length, is refused */
    for (int i = 4; i < FS_FORM_TOKEN_LEN; i += 11) {
        char *t = apr_pstrdup(p, a);
        t[i] = t[i] == 'A' ? 'B' : 'A';
        assert_false(fs_idem_form_token_valid(pepper, 20, "frm_A", "", t));
    }
    assert_false(fs_idem_form_token_valid(pepper, 20, "frm_A", "", apr_pstrcat(p, a, "x", NULL)));
    assert_false(fs_idem_form_token_valid(pepper, 20, "frm_A", "", a + 1));
    assert_false(fs_idem_form_token_valid(pepper, 20, "frm_A", "", NULL));
    assert_false(fs_idem_form_token_valid(pepper, 20, "frm_A", "", ""));
    /* nothing to bind to: no token */
    char longl[600];
    memset(longl, 'x', sizeof(longl) - 1);
    longl[sizeof(longl) - 1] = '\0';
    assert_null(fs_idem_form_token(p, pepper, 20, "frm_A", longl));
    assert_false(fs_idem_form_token_valid(pepper, 20, "frm_A", longl, a));
    /* without a pepper it still works */
    char *n = fs_idem_form_token(p, NULL, 0, "frm_A", "");
    assert_true(fs_idem_form_token_valid(NULL, 0, "frm_A", "", n));
}

static const struct CMUnitTest tests[] = {FS_TEST(keys), FS_TEST(fingerprints), FS_TEST(sealing),
                                          FS_TEST(form_tokens)};
FS_TEST_MAIN(tests)
