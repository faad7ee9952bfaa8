/* fs_html_target: where the page's error summary links, for each kind of
 * error pointer: a part, a matrix row, an Other text, else the question;
 * and the Other text input described by its error. */
#include "fs_test.h"

#include "fs_html_choice.h"
#include "fs_html_target.h"
#include "fs_json.h"

static const char *FIELDS =
    "[{\"key\":\"home\",\"type\":\"address\",\"label\":\"Home\"},"
    "{\"key\":\"stay\",\"type\":\"daterange\",\"label\":\"Stay\"},"
    "{\"key\":\"sign\",\"type\":\"signature\",\"label\":\"Sign\"},"
    "{\"key\":\"grid\",\"type\":\"matrix\",\"label\":\"Grid\","
    " \"rows\":[{\"key\":\"a\",\"label\":\"A\"},{\"key\":\"b\",\"label\":\"B\"},"
    "           {\"key\":\"c\",\"label\":\"C\"}],"
    " \"columns\":[{\"value\":\"x\"},{\"value\":\"y\"}]},"
    "{\"key\":\"shirt\",\"type\":\"select\",\"label\":\"Shirt\",\"allowOther\":true,"
    " \"options\":[\"S\",\"M\"]},"
    "{\"key\":\"langs\",\"type\":\"multiselect\",\"label\":\"Langs\",\"allowOther\":true,"
    " \"options\":[\"en\",\"fr\"]},"
    "{\"key\":\"plain\",\"type\":\"select\",\"label\":\"Plain\",\"options\":[\"other\"]},"
    "{\"key\":\"name\",\"type\":\"text\",\"label\":\"Name\"}]";

static void targets(void **state) {
    apr_pool_t *p = *state;
    const fs_fieldset *fs = fs_fieldset_from_json(p, fs_json_parse_trusted(p, FIELDS));
    const fs_field *home = fs_fieldset_find(fs, "home"), *stay = fs_fieldset_find(fs, "stay"),
                   *sign = fs_fieldset_find(fs, "sign"), *grid = fs_fieldset_find(fs, "grid"),
                   *shirt = fs_fieldset_find(fs, "shirt"), *langs = fs_fieldset_find(fs, "langs"),
                   *plain = fs_fieldset_find(fs, "plain"), *name = fs_fieldset_find(fs, "name");
    /* a part: its input, in the order of the parts */
    assert_string_equal(fs_html_error_target(p, home, "/home/line1", 1), "-0");
    assert_string_equal(fs_html_error_target(p, home, "/home/city", 1), "-2");
    assert_string_equal(fs_html_error_target(p, home, "/home/country", 1), "-5");
    assert_string_equal(fs_html_error_target(p, stay, "/stay/end", 1), "-1");
    assert_string_equal(fs_html_error_target(p, sign, "/sign/name", 1), "-0");
    /* the whole answer, or a member that is no part: the first input */
    assert_string_equal(fs_html_error_target(p, home, "/home", 1), "-0");
    assert_string_equal(fs_html_error_target(p, home, "/home/street", 1), "-0");
    assert_string_equal(fs_html_error_target(p, sign, "/sign/image", 1), "-0");
    /* a matrix row: its first cell (the very first is "-0") */
    assert_string_equal(fs_html_error_target(p, grid, "/grid/a", 1), "-0");
    assert_string_equal(fs_html_error_target(p, grid, "/grid/c", 1), "-2-0");
    assert_string_equal(fs_html_error_target(p, grid, "/grid/zz", 1), "-0");
    assert_string_equal(fs_html_error_target(p, grid, "/grid", 1), "-0");
    /* the text of an Other answer, alone or in a list */
    assert_string_equal(fs_html_error_target(p, shirt, "/shirt/other", 0), "-other");
    assert_string_equal(fs_html_error_target(p, langs, "/langs/2/other", 1), "-other");
    assert_string_equal(fs_html_error_target(p, langs, "/langs/1", 1), "-0");
    /* no Other on this one: "other" is nothing special */
    assert_string_equal(fs_html_error_target(p, plain, "/plain/other", 0), "");
    /* one input; pointers of another key, or none */
    assert_string_equal(fs_html_error_target(p, name, "/name", 0), "");
    assert_string_equal(fs_html_error_target(p, name, "/names/x", 0), "");
    assert_string_equal(fs_html_error_target(p, home, "/homely/city", 1), "-0");
    assert_string_equal(fs_html_error_target(p, home, NULL, 1), "-0");
    assert_string_equal(fs_html_error_target(p, home, "", 1), "-0");
}

/* whether an error is about the Other text, and that text input's markup */
static void other_in_error(void **state) {
    apr_pool_t *p = *state;
    const fs_fieldset *fs = fs_fieldset_from_json(p, fs_json_parse_trusted(p, FIELDS));
    const fs_field *shirt = fs_fieldset_find(fs, "shirt"), *langs = fs_fieldset_find(fs, "langs");
    fs_error *e = fs_error_validation(p);
    assert_false(fs_html_error_on_other(p, NULL, shirt));
    assert_false(fs_html_error_on_other(p, e, shirt));
    fs_error_add(p, e, "/shirt", "required", "Shirt is required.");
    assert_false(fs_html_error_on_other(p, e, shirt));
    fs_error_add(p, e, "/langs/1/other", "minLength", "Langs: say what.");
    assert_false(fs_html_error_on_other(p, e, shirt));
    assert_true(fs_html_error_on_other(p, e, langs));
    fs_error_add(p, e, "/shirt/other", "required", "Shirt: say what.");
    assert_true(fs_html_error_on_other(p, e, shirt));
    const char *h = fs_choice_other_html_aria(
        p, NULL, shirt, NULL, "f-shirt", " aria-invalid=\"true\" aria-describedby=\"f-shirt-err\"");
    assert_non_null(strstr(h, "<input type=\"text\" id=\"f-shirt-other\" name=\"shirt.other\" "
                              "value=\"\" maxlength=\"200\" aria-invalid=\"true\" "
                              "aria-describedby=\"f-shirt-err\">"));
    /* the plain one as before */
    assert_string_equal(fs_choice_other_html_aria(p, NULL, shirt, NULL, "f-shirt", ""),
                        fs_choice_other_html(p, NULL, shirt, NULL, "f-shirt", 0));
}

static const struct CMUnitTest tests[] = {FS_TEST(targets), FS_TEST(other_in_error)};
FS_TEST_MAIN(tests)
