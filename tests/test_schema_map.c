/* fs_schema_map: a flat JSON Schema to fields, the keywords it refuses
 * (each with its pointer), and the round trip through fs_schema_for. */
#include "fs_fieldset.h"
#include "fs_json.h"
#include "fs_schema.h"
#include "fs_schema_map.h"
#include "fs_test.h"

static json_object *map(apr_pool_t *p, const char *text, fs_error **verr) {
    *verr = fs_error_validation(p);
    return fs_schema_to_fields(p, fs_json_parse_trusted(p, text), "/schema", *verr, NULL);
}

/* 1 when verr has an item at pointer with code */
static int has(const fs_error *verr, const char *pointer, const char *code) {
    for (int i = 0; verr->errors && i < verr->errors->nelts; i++) {
        const fs_field_error *fe = &APR_ARRAY_IDX(verr->errors, i, fs_field_error);
        if (!strcmp(fe->pointer, pointer) && !strcmp(fe->code, code))
            return 1;
    }
    return 0;
}

static const char *member(apr_pool_t *p, json_object *list, int i, const char *k) {
    return fs_json_str(p, fs_json_get(json_object_array_get_idx(list, (size_t)i), k));
}

static void approval(void **state) {
    apr_pool_t *p = *state;
    fs_error *verr;
    const char *title;
    json_object *s = fs_json_parse_trusted(
        p, "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"title\":\"Deploy?\","
           "\"type\":\"object\",\"properties\":{"
           "\"decision\":{\"title\":\"Decision\",\"enum\":[\"approve\",\"reject\"]},"
           "\"comment\":{\"type\":\"string\",\"description\":\"Why\",\"maxLength\":2000},"
           "\"name\":{\"type\":\"string\",\"maxLength\":80},"
           "\"mail\":{\"type\":\"string\",\"format\":\"email\"},"
           "\"site\":{\"type\":\"string\",\"format\":\"uri\"},"
           "\"day\":{\"type\":\"string\",\"format\":\"date\"},"
           "\"at\":{\"type\":\"string\",\"format\":\"date-time\"},"
           "\"n\":{\"type\":\"number\",\"minimum\":0.5},"
           "\"k\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":9},"
           "\"ok\":{\"type\":\"boolean\"},"
           "\"tags\":{\"type\":\"array\",\"items\":{\"enum\":[\"a\",\"b\"]},\"minItems\":1,"
           "\"uniqueItems\":true}},"
           "\"required\":[\"decision\",\"k\"],\"additionalProperties\":false}");
    verr = fs_error_validation(p);
    json_object *l = fs_schema_to_fields(p, s, "/schema", verr, &title);
    assert_non_null(l);
    assert_null(verr->errors);
    assert_string_equal(title, "Deploy?");
    assert_int_equal(json_object_array_length(l), 11);
    static const char *const types[] = {
        "\"select\"",   "\"textarea\"", "\"text\"",    "\"email\"",   "\"url\"",        "\"date\"",
        "\"datetime\"", "\"number\"",   "\"integer\"", "\"boolean\"", "\"multiselect\""};
    for (int i = 0; i < 11; i++)
        assert_string_equal(member(p, l, i, "type"), types[i]);
    assert_string_equal(member(p, l, 0, "label"), "\"Decision\"");
    assert_string_equal(member(p, l, 1, "label"), "\"comment\"");
    assert_string_equal(member(p, l, 1, "description"), "\"Why\"");
    assert_string_equal(member(p, l, 0, "required"), "true");
    assert_string_equal(member(p, l, 1, "required"), "false");
    assert_string_equal(member(p, l, 0, "options"),
                        "[{\"value\":\"approve\",\"label\":\"approve\"},"
                        "{\"value\":\"reject\",\"label\":\"reject\"}]");
    assert_non_null(strstr(member(p, l, 8, "validation"), "\"maximum\":9"));
    assert_non_null(strstr(member(p, l, 10, "validation"), "\"minItems\":1"));
    assert_string_equal(member(p, l, 10, "position"), "10");
    assert_int_equal(fs_schema_property_count(s), 11);

    /* and back: the form's own schema keeps the types, bounds and enums */
    const char *back =
        fs_json_str(p, fs_schema_for(p, fs_fieldset_from_json(p, l), NULL, "Deploy?"));
    assert_non_null(strstr(back, "\"decision\":{\"title\":\"Decision\",\"enum\":[\"approve\","
                                 "\"reject\"]}"));
    assert_non_null(strstr(back, "\"required\":[\"decision\",\"k\"]"));
    assert_non_null(strstr(back, "\"k\":{\"title\":\"k\",\"type\":\"integer\",\"minimum\":1,"
                                 "\"maximum\":9}"));
    assert_non_null(strstr(back, "\"format\":\"date-time\""));
    assert_non_null(strstr(back, "\"tags\":{\"title\":\"tags\",\"type\":\"array\",\"items\":"
                                 "{\"enum\":[\"a\",\"b\"]},\"uniqueItems\":true,\"minItems\":1}"));
}

static void refused(void **state) {
    apr_pool_t *p = *state;
    fs_error *verr;
    assert_null(map(p,
                    "{\"type\":\"object\",\"patternProperties\":{},\"properties\":{"
                    "\"a\":{\"type\":\"string\",\"pattern\":\"^x\",\"default\":\"x\"},"
                    "\"b\":{\"type\":\"object\"},"
                    "\"c\":{\"type\":[\"string\",\"null\"]},"
                    "\"d\":{\"type\":\"string\",\"format\":\"ipv4\"},"
                    "\"e\":{\"enum\":[1,2]},"
                    "\"f\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
                    "\"g\":{\"type\":\"boolean\"},"
                    "\"Bad\":{\"type\":\"string\"},"
                    "\"h\":{\"type\":\"array\",\"items\":{\"enum\":[\"x\"]},\"uniqueItems\":false},"
                    "\"i\":{\"type\":\"number\",\"exclusiveMinimum\":0},"
                    "\"j\":{\"type\":\"integer\",\"minimum\":\"1\"},"
                    "\"k\":{\"title\":\"\",\"type\":\"string\"}},"
                    "\"required\":[\"g\",\"zz\"],\"additionalProperties\":true,\"allOf\":[]}",
                    &verr));
    assert_true(has(verr, "/schema/patternProperties", "unsupported"));
    assert_true(has(verr, "/schema/allOf", "unsupported"));
    assert_true(has(verr, "/schema/additionalProperties", "unsupported"));
    assert_true(has(verr, "/schema/properties/a/pattern", "unsupported"));
    assert_true(has(verr, "/schema/properties/a/default", "unsupported"));
    assert_true(has(verr, "/schema/properties/b/type", "unsupported"));
    assert_true(has(verr, "/schema/properties/c/type", "unsupported"));
    assert_true(has(verr, "/schema/properties/d/format", "unsupported"));
    assert_true(has(verr, "/schema/properties/e/enum/0", "unsupported"));
    assert_true(has(verr, "/schema/properties/f/items", "unsupported"));
    assert_true(has(verr, "/schema/required/0", "unsupported")); /* required boolean */
    assert_true(has(verr, "/schema/required/1", "enum"));
    assert_true(has(verr, "/schema/properties/Bad", "pattern"));
    assert_true(has(verr, "/schema/properties/h/uniqueItems", "unsupported"));
    assert_true(has(verr, "/schema/properties/i/exclusiveMinimum", "unsupported"));
    /* the field rules' errors at the schema's keywords */
    assert_true(has(verr, "/schema/properties/j/minimum", "type"));
    assert_true(has(verr, "/schema/properties/k/title", "minLength"));

    assert_null(map(p, "[]", &verr));
    assert_true(has(verr, "/schema", "type"));
    assert_null(map(p, "{\"type\":\"array\",\"properties\":{}}", &verr));
    assert_true(has(verr, "/schema/type", "unsupported"));
    assert_true(has(verr, "/schema/properties", "type"));
    assert_null(map(p, "{}", &verr));
    assert_true(has(verr, "/schema", "required"));
    assert_null(map(p, "{\"properties\":{\"a\":{}}}", &verr));
    assert_true(has(verr, "/schema/properties/a", "required"));
    assert_null(map(p, "{\"properties\":{\"a/b\":{\"type\":\"string\"}}}", &verr));
    assert_true(has(verr, "/schema/properties/a~1b", "pattern"));
    /* an enum repeating a value: the options rule, at the enum's item */
    assert_null(map(p, "{\"properties\":{\"a\":{\"enum\":[\"x\",\"x\"]}}}", &verr));
    assert_true(has(verr, "/schema/properties/a/enum/1", "unique"));
    assert_null(map(p,
                    "{\"properties\":{\"a\":{\"type\":\"string\",\"minLength\":5,"
                    "\"maxLength\":2}}}",
                    &verr));
    assert_non_null(verr->errors);
}

static const struct CMUnitTest tests[] = {FS_TEST(approval), FS_TEST(refused)};
FS_TEST_MAIN(tests)
