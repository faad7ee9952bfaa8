/* fs_edit: settings.allowEdits (its bounds and canonical form) and the
 * edit token (derived from the form and the submission, checked in
 * constant time, refused when malformed, forged or another form's). */
#include "fs_edit.h"
#include "fs_json.h"
#include "fs_test.h"

#include <apr_strings.h>
#include <string.h>

static const unsigned char PEPPER[] = "0123456789abcdef0123456789abcdef";
#define ID "sub_01JD0000000000000000000000"

static json_object *parse(apr_pool_t *p, const char *s) {
    json_object *o = NULL;
    assert_null(fs_json_parse_object(p, s, strlen(s), &o)); /* owned by p */
    return o;
}

/* the error code settings s gets, or NULL when accepted (*out the value) */
static const char *check(apr_pool_t *p, const char *s, json_object **kept) {
    fs_error *verr = fs_error_validation(p);
    json_object *out = fs_json_own(p, json_object_new_object());
    fs_settings_allow_edits(p, parse(p, s), "/settings", out, verr);
    *kept = fs_json_get(out, "allowEdits");
    if (!verr->errors || !verr->errors->nelts)
        return NULL;
    return APR_ARRAY_IDX(verr->errors, 0, fs_field_error).code;
}

static void setting_bounds(void **state) {
    apr_pool_t *p = *state;
    json_object *k;
    assert_null(check(p, "{}", &k));
    assert_null(k);
    assert_null(check(p, "{\"allowEdits\":null}", &k));
    assert_null(k);
    assert_null(check(p, "{\"allowEdits\":{\"untilHours\":1}}", &k));
    assert_int_equal(fs_edit_hours(parse(p, "{\"allowEdits\":{\"untilHours\":1}}")), 1);
    assert_null(check(p, "{\"allowEdits\":{\"untilHours\":8760}}", &k));
    assert_string_equal(json_object_to_json_string_ext(k, JSON_C_TO_STRING_PLAIN),
                        "{\"untilHours\":8760}");
    assert_string_equal(check(p, "{\"allowEdits\":{\"untilHours\":0}}", &k), "minimum");
    assert_string_equal(check(p, "{\"allowEdits\":{\"untilHours\":8761}}", &k), "maximum");
    assert_string_equal(check(p, "{\"allowEdits\":{\"untilHours\":1.5}}", &k), "type");
    assert_string_equal(check(p, "{\"allowEdits\":{\"untilHours\":\"2\"}}", &k), "type");
    assert_string_equal(check(p, "{\"allowEdits\":{}}", &k), "required");
    assert_string_equal(check(p, "{\"allowEdits\":true}", &k), "type");
    assert_string_equal(check(p, "{\"allowEdits\":{\"untilHours\":2,\"x\":1}}", &k), "unknown");
    assert_int_equal(fs_edit_hours(NULL), 0);
    assert_int_equal(fs_edit_hours(parse(p, "{}")), 0);
    assert_int_equal(fs_edit_hours(parse(p, "{\"allowEdits\":{\"untilHours\":0}}")), 0);
}

static void token_round_trip(void **state) {
    apr_pool_t *p = *state;
    const char *t = fs_edit_token(p, PEPPER, 32, "frm_1", ID);
    assert_non_null(t);
    assert_int_equal(strlen(t), strlen(ID) + 1 + strlen(FS_EDIT_SECRET_PREFIX) + 64);
    assert_string_equal(t, fs_edit_token(p, PEPPER, 32, "frm_1", ID)); /* derived */
    assert_string_equal(fs_edit_token_check(p, PEPPER, 32, "frm_1", t), ID);
    /* another form's, another pepper's */
    assert_null(fs_edit_token_check(p, PEPPER, 32, "frm_2", t));
    assert_null(fs_edit_token_check(p, PEPPER, 31, "frm_1", t));
    assert_null(fs_edit_token_check(p, PEPPER, 32, NULL, t));
}

static void token_refusals(void **state) {
    apr_pool_t *p = *state;
    const char *t = fs_edit_token(p, PEPPER, 32, "frm_1", ID);
    const char *sec = strchr(t, '.') + 1;
    char *flipped = apr_pstrdup(p, t);
    char *last = flipped + strlen(flipped) - 1;
    *last = *last == '0' ? '1' : '0';
    const char *bad[] = {NULL,
                         "",
                         "garbage",
                         ID,
                         apr_pstrcat(p, ID, ".", NULL),
                         flipped, /* forged */
                         apr_pstrcat(p, "sub_01JD0000000000000000000001.", sec, NULL),
                         apr_pstrcat(p, "frm_01JD0000000000000000000000.", sec, NULL),
                         apr_pstrcat(p, ID, ".", sec + 4, NULL), /* no prefix */
                         apr_pstrndup(p, t, strlen(t) - 1),      /* cut */
                         apr_pstrcat(p, t, "0", NULL),           /* longer */
                         apr_pstrcat(p, t, "\n", NULL)};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_null(fs_edit_token_check(p, PEPPER, 32, "frm_1", bad[i]));
    /* the shape alone: a forged secret and another submission's id have it */
    assert_true(fs_edit_token_well_formed(t));
    assert_true(fs_edit_token_well_formed(flipped));
    assert_true(fs_edit_token_well_formed(bad[6]));
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        if (i != 5 && i != 6)
            assert_false(fs_edit_token_well_formed(bad[i]));
}

static const struct CMUnitTest tests[] = {
    FS_TEST(setting_bounds),
    FS_TEST(token_round_trip),
    FS_TEST(token_refusals),
};
FS_TEST_MAIN(tests)
