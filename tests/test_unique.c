/* fs_unique: settings.uniqueBy, its agreement with the fields, the hash. */
#include "fs_test.h"

#include "fs_json.h"
#include "fs_unique.h"

#include <apr_strings.h>

static const char *code_at(fs_error *e, const char *ptr) {
    for (int i = 0; e->errors && i < e->errors->nelts; i++) {
        fs_field_error *fe = &APR_ARRAY_IDX(e->errors, i, fs_field_error);
        if (!strcmp(fe->pointer, ptr))
            return fe->code;
    }
    return "";
}

static json_object *J(apr_pool_t *p, const char *t) {
    return fs_json_parse_trusted(p, t);
}

static void parse(void **state) {
    apr_pool_t *p = *state;
    fs_error *e = fs_error_validation(p);
    assert_null(fs_unique_by_parse(p, NULL, "/u", e));
    assert_null(fs_unique_by_parse(p, J(p, "null"), "/u", e));
    assert_null(e->errors);
    json_object *u = fs_json_own(p, fs_unique_by_parse(p, J(p, "[\"email\",\"name\"]"), "/u", e));
    assert_null(e->errors);
    assert_string_equal(fs_json_str(p, u), "[\"email\",\"name\"]");
    assert_null(fs_unique_by_parse(p, J(p, "\"email\""), "/u", e));
    assert_string_equal(code_at(e, "/u"), "type");
    e = fs_error_validation(p);
    assert_null(fs_unique_by_parse(p, J(p, "[]"), "/u", e));
    assert_string_equal(code_at(e, "/u"), "minItems");
    e = fs_error_validation(p);
    assert_null(fs_unique_by_parse(p, J(p, "[\"a\",\"b\",\"c\",\"d\",\"e\",\"f\"]"), "/u", e));
    assert_string_equal(code_at(e, "/u"), "maxItems");
    e = fs_error_validation(p);
    assert_null(fs_unique_by_parse(p, J(p, "[\"a\",1,\"a\",\"no spaces\"]"), "/u", e));
    assert_string_equal(code_at(e, "/u/1"), "type");
    assert_string_equal(code_at(e, "/u/2"), "unique");
    assert_string_equal(code_at(e, "/u/3"), "pattern");
}

static const char *FIELDS = "[{\"key\":\"email\",\"type\":\"email\",\"label\":\"E-mail\"},"
                            "{\"key\":\"name\",\"type\":\"text\",\"label\":\"Name\"},"
                            "{\"key\":\"tags\",\"type\":\"multiselect\",\"label\":\"Tags\"},"
                            "{\"key\":\"n\",\"type\":\"integer\",\"label\":\"N\"}]";

static void fields(void **state) {
    apr_pool_t *p = *state;
    fs_error *e = fs_error_validation(p);
    fs_unique_by_fields(p, J(p, "{\"uniqueBy\":[\"email\",\"gone\"]}"), J(p, FIELDS), e);
    assert_int_equal(e->errors->nelts, 1);
    assert_string_equal(code_at(e, "/settings/uniqueBy/1"), "enum");
    e = fs_error_validation(p);
    fs_unique_by_fields(p, J(p, "{\"uniqueBy\":null}"), J(p, "[]"), e);
    fs_unique_by_fields(p, J(p, "{}"), J(p, "[]"), e);
    assert_null(e->errors);
    assert_string_equal(
        fs_unique_labels(p, J(p, "{\"uniqueBy\":[\"email\",\"name\",\"n\"]}"), J(p, FIELDS)),
        "E-mail, Name and N");
    assert_string_equal(fs_unique_labels(p, J(p, "{\"uniqueBy\":[\"email\"]}"), J(p, FIELDS)),
                        "E-mail");
    assert_null(fs_unique_labels(p, J(p, "{\"uniqueBy\":null}"), J(p, FIELDS)));
}

static const char *H(apr_pool_t *p, const char *by, const char *answers) {
    return fs_unique_hash(p, J(p, apr_psprintf(p, "{\"uniqueBy\":%s}", by)), J(p, FIELDS),
                          J(p, answers));
}

static void hash(void **state) {
    apr_pool_t *p = *state;
    const char *a = H(p, "[\"email\"]", "{\"email\":\"Ada@Example.org\",\"name\":\"x\"}");
    assert_non_null(a);
    assert_int_equal(strlen(a), 64);
    /* trimmed, e-mail lower-cased, other fields do not count */
    assert_string_equal(a,
                        H(p, "[\"email\"]", "{\"email\":\" ada@example.ORG\\t\",\"name\":\"y\"}"));
    assert_string_not_equal(a, H(p, "[\"email\"]", "{\"email\":\"ada2@example.org\"}"));
    /* text is trimmed but keeps its case */
    assert_string_equal(H(p, "[\"name\"]", "{\"name\":\" Ada \"}"),
                        H(p, "[\"name\"]", "{\"name\":\"Ada\"}"));
    assert_string_not_equal(H(p, "[\"name\"]", "{\"name\":\"Ada\"}"),
                            H(p, "[\"name\"]", "{\"name\":\"ada\"}"));
    /* the keys are part of it, their order is not */
    assert_string_not_equal(H(p, "[\"name\"]", "{\"name\":\"a\",\"email\":\"a\"}"),
                            H(p, "[\"email\"]", "{\"name\":\"a\",\"email\":\"a\"}"));
    assert_string_equal(H(p, "[\"name\",\"email\"]", "{\"name\":\"a\",\"email\":\"b@c.de\"}"),
                        H(p, "[\"email\",\"name\"]", "{\"name\":\"a\",\"email\":\"b@c.de\"}"));
    /* no two value lists read alike: ("ab", "c") vs ("a", "bc") */
    assert_string_not_equal(H(p, "[\"name\",\"email\"]", "{\"name\":\"ab\",\"email\":\"c\"}"),
                            H(p, "[\"name\",\"email\"]", "{\"name\":\"a\",\"email\":\"bc\"}"));
    /* arrays: items sorted; numbers as JSON */
    assert_string_equal(H(p, "[\"tags\"]", "{\"tags\":[\"b\",\"a\"]}"),
                        H(p, "[\"tags\"]", "{\"tags\":[\"a\",\"b\"]}"));
    assert_string_not_equal(H(p, "[\"n\"]", "{\"n\":1}"), H(p, "[\"n\"]", "{\"n\":2}"));
    assert_string_not_equal(H(p, "[\"n\"]", "{\"n\":1}"), H(p, "[\"name\"]", "{\"name\":\"1\"}"));
    /* a missing, null, blank or empty value: not checked */
    assert_null(H(p, "[\"email\"]", "{}"));
    assert_null(H(p, "[\"email\"]", "{\"email\":null}"));
    assert_null(H(p, "[\"email\"]", "{\"email\":\"  \"}"));
    assert_null(H(p, "[\"tags\"]", "{\"tags\":[]}"));
    assert_null(H(p, "[\"email\",\"name\"]", "{\"email\":\"a@b.cd\"}"));
    assert_null(H(p, "null", "{\"email\":\"a@b.cd\"}"));
    assert_null(fs_unique_hash(p, J(p, "{}"), J(p, FIELDS), J(p, "{\"email\":\"a@b.cd\"}")));
}

static const struct CMUnitTest tests[] = {FS_TEST(parse), FS_TEST(fields), FS_TEST(hash)};
FS_TEST_MAIN(tests)
