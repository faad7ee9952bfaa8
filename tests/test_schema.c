/* fs_schema: shape of the generated 2020-12 schema (its agreement with
 * fs_validate is checked by tests/equivalence over generated bodies). */
#include "fs_json.h"
#include "fs_schema.h"
#include "fs_test.h"

static void shape(void **state) {
    apr_pool_t *p = *state;
    const fs_fieldset *fs = fs_fieldset_from_json(
        p, fs_json_parse_trusted(
               p, "[{\"key\":\"a\",\"type\":\"text\",\"required\":true,\"validation\":{\"pattern\":"
                  "\"^x\"}},"
                  "{\"key\":\"b\",\"type\":\"multiselect\",\"options\":[{\"value\":\"x\",\"label\":"
                  "\"X\"}]},"
                  "{\"key\":\"c\",\"type\":\"boolean\",\"required\":true,"
                  "\"visibleIf\":{\"field\":\"a\",\"equals\":\"xy\"}},"
                  "{\"key\":\"d\",\"type\":\"rating\"},{\"key\":\"e\",\"type\":\"email\"}]"));
    json_object *s = fs_schema_for(p, fs, "https://x/f/frm_1", "T");
    const char *txt = fs_json_str(p, s);
    assert_non_null(strstr(txt, "\"$schema\":\"https://json-schema.org/draft/2020-12/schema\""));
    assert_non_null(strstr(txt, "\"additionalProperties\":false"));
    assert_non_null(strstr(txt, "\"required\":[\"a\"]"));
    assert_non_null(strstr(txt, "\"a\":{\"title\":\"a\",\"type\":\"string\",\"minLength\":1,"
                                "\"maxLength\":1000,\"allOf\":[{\"pattern\":\"^x\"}]}"));
    assert_non_null(strstr(txt,
                           "\"b\":{\"title\":\"b\",\"type\":\"array\",\"items\":{\"enum\":[\"x\"]},"
                           "\"uniqueItems\":true}"));
    assert_non_null(strstr(txt, "\"c\":{\"title\":\"c\",\"type\":\"boolean\",\"const\":true}"));
    assert_non_null(strstr(txt, "\"allOf\":[{\"if\":{\"properties\":{\"a\":{\"const\":\"xy\"}},"
                                "\"required\":[\"a\"]},\"then\":{\"required\":[\"c\"]},"
                                "\"else\":{\"not\":{\"required\":[\"c\"]}}}]"));
    assert_non_null(
        strstr(txt, "\"d\":{\"title\":\"d\",\"type\":\"integer\",\"minimum\":1,\"maximum\":5}"));
    assert_non_null(strstr(txt, "\"format\":\"email\""));
}

static const struct CMUnitTest tests[] = {FS_TEST(shape)};
FS_TEST_MAIN(tests)
