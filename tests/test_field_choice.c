/* fs_field_choice, fs_field_choice_def, fs_html_choice: the definitions of
 * scale, matrix, ranking, consent and allowOther, an HTML post's pairs to
 * their answers, the page's markup (escaped), the CSV columns. Their
 * schemas and the validator are checked together by tests/equivalence. */
#include "fs_test.h"

#include "fs_coerce.h"
#include "fs_field_choice.h"
#include "fs_field_more.h"
#include "fs_html_choice.h"
#include "fs_json.h"
#include "fs_notify.h"
#include "fs_validate.h"

#include <apr_strings.h>

static json_object *J(apr_pool_t *p, const char *t) {
    return fs_json_parse_trusted(p, t);
}

/* The pointers of e's items, joined by spaces ("" for none). */
static const char *pointers(apr_pool_t *p, fs_error *e) {
    const char *out = "";
    for (int i = 0; e->errors && i < e->errors->nelts; i++)
        out = apr_pstrcat(p, out, i ? " " : "", APR_ARRAY_IDX(e->errors, i, fs_field_error).pointer,
                          NULL);
    return out;
}

static const char *refused(apr_pool_t *p, const char *def) {
    fs_error *e = fs_error_validation(p);
    json_object *list =
        fs_fields_parse(p, J(p, apr_pstrcat(p, "[", def, "]", NULL)), "/fields", NULL, e);
    assert_null(list);
    return pointers(p, e);
}

static void definitions(void **state) {
    apr_pool_t *p = *state;
    fs_error *e = fs_error_validation(p);
    json_object *list = fs_fields_parse(
        p,
        J(p,
          "[{\"key\":\"s\",\"type\":\"scale\",\"label\":\"S\",\"minLabel\":\"low\"},"
          "{\"key\":\"m\",\"type\":\"matrix\",\"label\":\"M\",\"rows\":[{\"key\":\"a\",\"label\":"
          "\"A\"}],\"columns\":[\"x\"]},"
          "{\"key\":\"r\",\"type\":\"ranking\",\"label\":\"R\",\"options\":[\"x\",\"y\"]},"
          "{\"key\":\"c\",\"type\":\"consent\",\"label\":\"C\",\"text\":\"T\"},"
          "{\"key\":\"o\",\"type\":\"select\",\"label\":\"O\",\"options\":[\"x\"],"
          "\"allowOther\":false}]"),
        "/fields", NULL, e);
    /* columns are objects: a plain string is refused */
    assert_null(list);
    assert_string_equal(pointers(p, e), "/fields/1/columns/0");
    e = fs_error_validation(p);
    list = fs_fields_parse(
        p,
        J(p,
          "[{\"key\":\"s\",\"type\":\"scale\",\"label\":\"S\",\"minLabel\":\"low\"},"
          "{\"key\":\"m\",\"type\":\"matrix\",\"label\":\"M\",\"rows\":[{\"key\":\"a\",\"label\":"
          "\"A\"}],\"columns\":[{\"value\":\"x\"}]},"
          "{\"key\":\"r\",\"type\":\"ranking\",\"label\":\"R\",\"options\":[\"x\",\"y\"]},"
          "{\"key\":\"c\",\"type\":\"consent\",\"label\":\"C\",\"text\":\"T\"},"
          "{\"key\":\"o\",\"type\":\"select\",\"label\":\"O\",\"options\":[\"x\"],"
          "\"allowOther\":false}]"),
        "/fields", NULL, e);
    assert_non_null(list);
    json_object *s = json_object_array_get_idx(list, 0), *m = json_object_array_get_idx(list, 1);
    assert_int_equal(json_object_get_int(fs_json_get(s, "from")), 1); /* the defaults */
    assert_int_equal(json_object_get_int(fs_json_get(s, "to")), 5);
    assert_string_equal(json_object_get_string(fs_json_get(s, "minLabel")), "low");
    assert_null(fs_json_get(s, "maxLabel"));
    assert_string_equal(fs_json_str(p, fs_json_get(m, "columns")),
                        "[{\"value\":\"x\",\"label\":\"x\"}]"); /* the label defaults */
    assert_false(json_object_get_boolean(fs_json_get(m, "multiple")));
    assert_true(
        json_object_get_boolean(fs_json_get(json_object_array_get_idx(list, 3), "required")));
    assert_null(fs_json_get(json_object_array_get_idx(list, 4), "allowOther")); /* only when true */

    assert_string_equal(
        refused(p, "{\"key\":\"s\",\"type\":\"scale\",\"label\":\"S\",\"from\":-101}"),
        "/fields/0/from");
    assert_string_equal(refused(p, "{\"key\":\"s\",\"type\":\"scale\",\"label\":\"S\",\"to\":1}"),
                        "/fields/0/to");
    assert_string_equal(
        refused(p, "{\"key\":\"m\",\"type\":\"matrix\",\"label\":\"M\",\"rows\":[{\"key\":\"a\"}],"
                   "\"columns\":[{\"value\":\"x\"}],\"multiple\":1}"),
        "/fields/0/rows/0/label /fields/0/multiple");
    assert_string_equal(
        refused(p, "{\"key\":\"m\",\"type\":\"matrix\",\"label\":\"M\",\"rows\":[{\"key\":\"a\","
                   "\"label\":\"A\"},{\"key\":\"a\",\"label\":\"B\"}],\"columns\":[{\"value\":"
                   "\"x\",\"extra\":1}]}"),
        "/fields/0/rows/1/key /fields/0/columns/0/extra");
    assert_string_equal(refused(p,
                                "{\"key\":\"r\",\"type\":\"ranking\",\"label\":\"R\",\"options\":"
                                "[\"1\",\"2\",\"3\",\"4\",\"5\",\"6\",\"7\",\"8\",\"9\",\"10\","
                                "\"11\",\"12\",\"13\",\"14\",\"15\",\"16\",\"17\",\"18\",\"19\","
                                "\"20\",\"21\"]}"),
                        "/fields/0/options");
    assert_string_equal(refused(p, "{\"key\":\"c\",\"type\":\"consent\",\"label\":\"C\",\"text\":"
                                   "\"T\",\"url\":\"https://a.b/c d\"}"),
                        "/fields/0/url");
    assert_string_equal(refused(p, "{\"key\":\"c\",\"type\":\"consent\",\"label\":\"C\",\"text\":"
                                   "\"T\",\"url\":\"javascript:alert(1)\"}"),
                        "/fields/0/url");
    assert_string_equal(refused(p, "{\"key\":\"c\",\"type\":\"boolean\",\"label\":\"C\",\"text\":"
                                   "\"T\"}"),
                        "/fields/0/text");
    assert_string_equal(refused(p, "{\"key\":\"o\",\"type\":\"multiselect\",\"label\":\"O\","
                                   "\"options\":[\"x\"],\"allowOther\":\"yes\"}"),
                        "/fields/0/allowOther");
}

static const char *const FIELDS =
    "[{\"key\":\"s\",\"type\":\"scale\",\"label\":\"S\",\"from\":0,\"to\":10},"
    "{\"key\":\"m\",\"type\":\"matrix\",\"label\":\"M\",\"multiple\":true,"
    "\"rows\":[{\"key\":\"a\",\"label\":\"<A>\"},{\"key\":\"b\",\"label\":\"B\"}],"
    "\"columns\":[{\"value\":\"x\",\"label\":\"X&\"},{\"value\":\"y\",\"label\":\"Y\"}]},"
    "{\"key\":\"r\",\"type\":\"ranking\",\"label\":\"R\","
    "\"options\":[{\"value\":\"x\",\"label\":\"X\"},{\"value\":\"y\",\"label\":\"Y\"}]},"
    "{\"key\":\"c\",\"type\":\"consent\",\"label\":\"C\",\"required\":true,\"text\":\"<b>T</b>\","
    "\"url\":\"https://e.org/?a=1&b=\\\"2\"},"
    "{\"key\":\"o\",\"type\":\"select\",\"label\":\"O\",\"allowOther\":true,"
    "\"options\":[{\"value\":\"x\",\"label\":\"X\"}]},"
    "{\"key\":\"t\",\"type\":\"multiselect\",\"label\":\"T\",\"allowOther\":true,"
    "\"options\":[{\"value\":\"x\",\"label\":\"X\"}]}]";

static json_object *coerce(apr_pool_t *p, const fs_fieldset *fs, const char *const *kv) {
    apr_array_header_t *pairs = apr_array_make(p, 8, sizeof(fs_pair));
    for (; *kv; kv += 2) {
        fs_pair *pr = apr_array_push(pairs);
        pr->name = kv[0];
        pr->value = kv[1];
    }
    json_object *o;
    int hp;
    assert_null(fs_coerce(p, fs, pairs, 0, &o, &hp));
    return o;
}

static void form_posts(void **state) {
    apr_pool_t *p = *state;
    const fs_fieldset *fs = fs_fieldset_from_json(p, J(p, FIELDS));
    const char *const good[] = {"s", "7",         "m.a",     "x",    "m.a",     "y",    "m.b",
                                "",  "r",         "y",       "r",    "x",       "c",    "true",
                                "o", "__other__", "o.other", "teal", "t.other", "newt", NULL};
    json_object *o = coerce(p, fs, good);
    assert_string_equal(fs_json_str(p, o),
                        "{\"s\":7,\"m\":{\"a\":[\"x\",\"y\"]},\"r\":[\"y\",\"x\"],"
                        "\"c\":true,\"o\":{\"other\":\"teal\"},"
                        "\"t\":[{\"other\":\"newt\"}]}");
    assert_null(fs_validate(p, fs, o));
    /* text without the Other choice, when an option was chosen: left out */
    const char *const chosen[] = {"c", "true", "o", "x", "o.other", "teal", NULL};
    assert_string_equal(fs_json_str(p, coerce(p, fs, chosen)), "{\"c\":true,\"o\":\"x\"}");
    /* Other chosen, nothing typed: refused at /o/other */
    const char *const empty[] = {"c", "true", "o", "__other__", "o.other", "", NULL};
    o = coerce(p, fs, empty);
    fs_error *e = fs_validate(p, fs, o);
    assert_non_null(e);
    assert_string_equal(pointers(p, e), "/o/other");
    /* a place given twice; a name of no row stays a cell the validator refuses */
    const char *const twice[] = {"c", "true", "r", "x", "r", "x", "m.zz", "x", NULL};
    e = fs_validate(p, fs, coerce(p, fs, twice));
    assert_non_null(e);
    assert_string_equal(pointers(p, e), "/m/zz /r/1");
    /* a name with a dot of no such field is an unknown member */
    const char *const unknown[] = {"c", "true", "q.other", "x", NULL};
    e = fs_validate(p, fs, coerce(p, fs, unknown));
    assert_string_equal(pointers(p, e), "/q.other");
}

static void markup(void **state) {
    apr_pool_t *p = *state;
    const fs_fieldset *fs = fs_fieldset_from_json(p, J(p, FIELDS));
    const char *h =
        fs_choice_html(p, NULL, fs_fieldset_find(fs, "m"), J(p, "{\"a\":[\"y\"]}"), "f-m", "", "");
    assert_non_null(strstr(h, "<th scope=\"row\">&lt;A&gt;</th>"));
    assert_non_null(strstr(h, "<th scope=\"col\">X&amp;</th>"));
    assert_non_null(
        strstr(h, "id=\"f-m-0\" name=\"m.a\" value=\"x\" aria-label=\"page.matrix_cell\""));
    assert_non_null(strstr(h, "name=\"m.a\" value=\"y\" checked"));
    assert_null(strstr(h, "<A>"));
    h = fs_choice_html(p, NULL, fs_fieldset_find(fs, "c"), NULL, "f-c", "", "");
    /* not required while a condition may hide it: the browser must not insist */
    assert_non_null(strstr(h, "value=\"true\" aria-describedby=\"f-c-text\">"));
    h = fs_choice_html(p, NULL, fs_fieldset_find(fs, "c"), NULL, "f-c",
                       " aria-describedby=\"f-c-help\"", " required");
    assert_non_null(strstr(h, "value=\"true\" required aria-describedby=\"f-c-text f-c-help\">"));
    assert_non_null(
        strstr(h, "<a href=\"https://e.org/?a=1&amp;b=&quot;2\">&lt;b&gt;T&lt;/b&gt;</a>"));
    h = fs_choice_html(p, NULL, fs_fieldset_find(fs, "r"), J(p, "[\"y\"]"), "f-r", "", "");
    assert_non_null(strstr(h,
                           "<select id=\"f-r-0\" name=\"r\"><option value=\"\">page.choose</option>"
                           "<option value=\"x\">X</option><option value=\"y\" selected>"));
    assert_non_null(strstr(h, "<select id=\"f-r-1\" name=\"r\">"));
    h = fs_choice_other_html(p, NULL, fs_fieldset_find(fs, "o"), J(p, "{\"other\":\"<i>\"}"), "f-o",
                             0);
    assert_non_null(strstr(h, "name=\"o.other\" value=\"&lt;i&gt;\""));
    assert_string_equal(fs_choice_other_html(p, NULL, fs_fieldset_find(fs, "o"), NULL, "f-o", 1),
                        "<option value=\"__other__\">page.other</option>");
    assert_string_equal(fs_choice_other_html(p, NULL, fs_fieldset_find(fs, "s"), NULL, "f-s", 0),
                        "");
}

static void csv_columns(void **state) {
    apr_pool_t *p = *state;
    json_object *fields = J(p, FIELDS);
    assert_int_equal(fs_choice_csv_extra(fields), 1);
    const char *names[4];
    assert_int_equal(fs_choice_csv_columns(p, json_object_array_get_idx(fields, 1), names), 2);
    assert_string_equal(names[0], "m.a");
    assert_string_equal(names[1], "m.b");
    assert_int_equal(fs_choice_csv_columns(p, json_object_array_get_idx(fields, 0), names), 1);
    assert_string_equal(names[0], "s");
    json_object *data = J(p, "{\"s\":1,\"m\":{\"a\":[\"x\"]}}");
    assert_string_equal(fs_json_str(p, fs_field_column_value(data, "m.a")), "[\"x\"]");
    assert_null(fs_field_column_value(data, "m.b"));
    assert_int_equal(json_object_get_int(fs_field_column_value(data, "s")), 1);
}

/* the notification mail's words for the answers */
static void text_for_people(void **state) {
    apr_pool_t *p = *state;
    const fs_fieldset *fs = fs_fieldset_from_json(p, J(p, FIELDS));
    json_object *data = J(p, "{\"m\":{\"b\":[\"y\",\"x\"],\"a\":[\"x\"]},\"r\":[\"y\",\"x\"],"
                             "\"o\":{\"other\":\"teal\"},\"t\":[\"x\",{\"other\":\"newt\"}],"
                             "\"s\":3,\"c\":true}");
    assert_string_equal(fs_notify_answer(p, fs, data, "m"), "<A>: X&; B: Y, X&");
    assert_string_equal(fs_notify_answer(p, fs, data, "r"), "Y, X");
    assert_string_equal(fs_notify_answer(p, fs, data, "o"), "teal");
    assert_string_equal(fs_notify_answer(p, fs, data, "t"), "X, newt");
    assert_string_equal(fs_notify_answer(p, fs, data, "s"), "3");
    assert_string_equal(fs_notify_answer(p, fs, data, "c"), "true");
}

static const struct CMUnitTest tests[] = {FS_TEST(definitions), FS_TEST(form_posts),
                                          FS_TEST(markup), FS_TEST(csv_columns),
                                          FS_TEST(text_for_people)};
FS_TEST_MAIN(tests)
