/* fs_secret: format, checksum, hashing, constant-time compare, ids. */
#include "fs_secret.h"
#include "fs_test.h"

static void generate_is_well_formed(void **state) {
    apr_pool_t *p = *state;
    for (int i = 0; i < 200; i++) {
        char *s = fs_secret_generate(p, "svc_live_");
        assert_non_null(s);
        assert_int_equal(strlen(s), 9 + FS_SECRET_RANDOM_CHARS + FS_SECRET_CRC_CHARS);
        assert_true(fs_secret_well_formed(s, "svc_live_"));
        assert_false(fs_secret_well_formed(s, "svcc_"));
    }
}

static void typo_is_refused(void **state) {
    apr_pool_t *p = *state;
    char *s = fs_secret_generate(p, "svc_live_");
    for (size_t i = 9; i < strlen(s); i++) {
        char saved = s[i];
        s[i] = saved == 'a' ? 'b' : 'a';
        assert_false(fs_secret_well_formed(s, "svc_live_"));
        s[i] = saved;
    }
    assert_true(fs_secret_well_formed(s, "svc_live_"));
    s[strlen(s) - 1] = '\0';
    assert_false(fs_secret_well_formed(s, "svc_live_"));
    assert_false(fs_secret_well_formed("", "svc_live_"));
    assert_false(fs_secret_well_formed(NULL, "svc_live_"));
    assert_false(fs_secret_well_formed("svc_live_' OR 1=1 --", "svc_live_"));
}

static void secrets_differ(void **state) {
    apr_pool_t *p = *state;
    assert_string_not_equal(fs_secret_generate(p, "x_"), fs_secret_generate(p, "x_"));
}

static void hash_is_keyed(void **state) {
    apr_pool_t *p = *state;
    const unsigned char k1[] = "0123456789abcdef", k2[] = "0123456789abcdeg";
    char *a = fs_secret_hash(p, k1, 16, "secret");
    char *b = fs_secret_hash(p, k2, 16, "secret");
    char *c = fs_secret_hash(p, k1, 16, "secret");
    assert_int_equal(strlen(a), 64);
    assert_string_not_equal(a, b);
    assert_string_equal(a, c);
    /* RFC 4231-independent check: plain SHA-256 of "abc" */
    assert_string_equal(fs_secret_hash(p, NULL, 0, "abc"),
                        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

static void equal_compares(void **state) {
    (void)state;
    assert_true(fs_secret_equal("abc", "abc"));
    assert_false(fs_secret_equal("abc", "abd"));
    assert_false(fs_secret_equal("abc", "abcd"));
    assert_false(fs_secret_equal(NULL, "abc"));
}

static void ids_sort_and_validate(void **state) {
    apr_pool_t *p = *state;
    char *a = fs_id_new(p, "frm_");
    assert_true(fs_id_valid(a, "frm_"));
    assert_false(fs_id_valid(a, "key_"));
    assert_int_equal(strlen(a), 30);
    apr_sleep(2000);
    char *b = fs_id_new(p, "frm_");
    assert_true(strcmp(a, b) < 0);
    assert_false(fs_id_valid("frm_0000", "frm_"));
    assert_false(fs_id_valid("frm_IIIIIIIIIIIIIIIIIIIIIIIIII", "frm_")); /* I not in alphabet */
    assert_string_equal(fs_secret_display_prefix(p, "svc_live_abcdefghijk"), "svc_live_abcdefg");
}

/* formsvc-admin computes the same with Perl's Digest::SHA: hmac_sha256_hex(
 * "formsvc pepper fingerprint", "p" x 32) */
static void pepper_fingerprint_is_hmac_of_fixed_text(void **state) {
    apr_pool_t *p = *state;
    const char *pep = "pppppppppppppppppppppppppppppppp";
    assert_string_equal(fs_pepper_fingerprint(p, (const unsigned char *)pep, 32),
                        "4ab551116a015b6c95e11e3a933b48bd3b46644653c054a2691a388726a4168f");
    assert_string_not_equal(fs_pepper_fingerprint(p, (const unsigned char *)pep, 31),
                            fs_pepper_fingerprint(p, (const unsigned char *)pep, 32));
}

static const struct CMUnitTest tests[] = {
    FS_TEST(pepper_fingerprint_is_hmac_of_fixed_text),
    FS_TEST(generate_is_well_formed),
    FS_TEST(typo_is_refused),
    FS_TEST(secrets_differ),
    FS_TEST(hash_is_keyed),
    FS_TEST(equal_compares),
    FS_TEST(ids_sort_and_validate),
};
FS_TEST_MAIN(tests)
