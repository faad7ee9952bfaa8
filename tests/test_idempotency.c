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

static const struct CMUnitTest tests[] = {FS_TEST(keys), FS_TEST(fingerprints), FS_TEST(sealing)};
FS_TEST_MAIN(tests)
