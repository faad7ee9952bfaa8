/* fs_scope: parsing, implication, form constraints and the subset rule. */
#include "fs_json.h"
#include "fs_scope.h"
#include "fs_test.h"

#define F1 "frm_01M808FC9CMSEGX6N2ZE7FZY66"
#define F2 "frm_01M808FC9CMSEGX6N2ZE7FZY67"

static fs_scopes *S(apr_pool_t *p, const char *s) {
    const char *bad = NULL;
    fs_scopes *sc = fs_scopes_from_string(p, s, &bad);
    assert_non_null(sc);
    return sc;
}

static void write_implies_read(void **state) {
    apr_pool_t *p = *state;
    fs_scopes *sc = S(p, "forms:write keys:read");
    assert_true(fs_scopes_has(sc, FS_SC_FORMS_READ));
    assert_true(fs_scopes_has(sc, FS_SC_FORMS_WRITE));
    assert_true(fs_scopes_has(sc, FS_SC_KEYS_READ));
    assert_false(fs_scopes_has(sc, FS_SC_KEYS_WRITE));
    assert_false(fs_scopes_has(sc, FS_SC_SUBMISSIONS_READ));
    assert_true(fs_scopes_has(fs_scopes_full(p), FS_SC_ACCOUNT_WRITE));
}

static void unknown_tokens(void **state) {
    apr_pool_t *p = *state;
    const char *bad = NULL;
    assert_null(fs_scopes_from_string(p, "forms:read forms:delete", &bad));
    assert_string_equal(bad, "forms:delete");
    assert_null(fs_scopes_from_string(p, "form:frm_short", &bad));
    assert_null(fs_scopes_from_string(p, "FORMS:READ", &bad));
    fs_error *verr = fs_error_validation(p);
    json_object *arr = fs_json_parse_trusted(p, "[\"forms:read\", 3, \"x\"]");
    assert_null(fs_scopes_from_json(p, arr, "/scopes", 1, verr));
    assert_int_equal(verr->errors->nelts, 2);
    assert_string_equal(APR_ARRAY_IDX(verr->errors, 0, fs_field_error).pointer, "/scopes/1");
    assert_string_equal(APR_ARRAY_IDX(verr->errors, 1, fs_field_error).pointer, "/scopes/2");
    verr = fs_error_validation(p);
    assert_null(fs_scopes_from_json(p, fs_json_parse_trusted(p, "[]"), "/scopes", 1, verr));
    assert_non_null(fs_scopes_from_json(p, NULL, "/scopes", 1, verr)->full ? (void *)1 : NULL);
}

static void subset_rule(void **state) {
    apr_pool_t *p = *state;
    const char *missing;
    fs_scopes *full = fs_scopes_full(p);
    assert_true(fs_scopes_subset(p, S(p, "forms:read"), full, &missing));
    assert_false(fs_scopes_subset(p, full, S(p, "forms:read"), &missing));
    assert_true(fs_scopes_subset(p, S(p, "forms:read"), S(p, "forms:write"), &missing));
    assert_false(fs_scopes_subset(p, S(p, "forms:write"), S(p, "forms:read"), &missing));
    assert_string_equal(missing, "forms:write");
    /* constraints */
    fs_scopes *one = S(p, "forms:read form:" F1);
    assert_true(fs_scopes_subset(p, S(p, "forms:read form:" F1), one, &missing));
    assert_false(fs_scopes_subset(p, S(p, "forms:read"), one, &missing));
    assert_false(fs_scopes_subset(p, S(p, "forms:read form:" F2), one, &missing));
    assert_string_equal(missing, "form:" F2);
    assert_true(fs_scopes_subset(p, S(p, "forms:read form:" F1), S(p, "forms:read"), &missing));
    assert_true(fs_scopes_allows_form(one, F1));
    assert_false(fs_scopes_allows_form(one, F2));
    assert_true(fs_scopes_allows_form(S(p, "forms:read"), F2));
}

static void round_trip(void **state) {
    apr_pool_t *p = *state;
    fs_scopes *sc = S(p, "keys:write forms:read form:" F1 " forms:read");
    assert_string_equal(fs_scopes_to_string(p, sc), "forms:read keys:write form:" F1);
    json_object *j = fs_json_own(p, fs_scopes_to_json(sc));
    assert_string_equal(fs_json_str(p, j), "[\"forms:read\",\"keys:write\",\"form:" F1 "\"]");
    assert_null(fs_scopes_to_json(fs_scopes_full(p)));
}

static const struct CMUnitTest tests[] = {
    FS_TEST(write_implies_read),
    FS_TEST(unknown_tokens),
    FS_TEST(subset_rule),
    FS_TEST(round_trip),
};
FS_TEST_MAIN(tests)
