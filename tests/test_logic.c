/* fs_logic: conditions (parse, check against fields, evaluation, schema
 * words), settings.logic (parse, check) and the path of a form of pages. */
#include "fs_field.h"
#include "fs_fieldset.h"
#include "fs_form.h"
#include "fs_html.h"
#include "fs_json.h"
#include "fs_locale.h"
#include "fs_logic.h"
#include "fs_logic_rules.h"
#include "fs_pages.h"
#include "fs_test.h"
#include "fs_validate.h"

#include <apr_strings.h>

static json_object *obj(apr_pool_t *p, const char *s) {
    return fs_json_parse_trusted(p, s);
}

/* The code of the error at ptr in e, or NULL. */
static const char *code_at(const fs_error *e, const char *ptr) {
    for (int i = 0; e && e->errors && i < e->errors->nelts; i++) {
        const fs_field_error *fe = &APR_ARRAY_IDX(e->errors, i, fs_field_error);
        if (!strcmp(fe->pointer, ptr))
            return fe->code;
    }
    return NULL;
}

static json_object *parse(apr_pool_t *p, const char *text, fs_error **e) {
    *e = fs_error_validation(p);
    return fs_json_own(p, fs_cond_parse(p, obj(p, text), "/c", *e));
}

static void parse_shapes(void **state) {
    apr_pool_t *p = *state;
    fs_error *e;
    assert_non_null(parse(p, "{\"field\":\"a\",\"equals\":1}", &e));
    assert_non_null(parse(p, "{\"field\":\"a\",\"op\":\"answered\"}", &e));
    assert_non_null(parse(p,
                          "{\"all\":[{\"field\":\"a\",\"op\":\"gt\",\"value\":1},{\"not\":{"
                          "\"any\":[{\"field\":\"b\",\"op\":\"in\",\"value\":[\"x\"]}]}}]}",
                          &e));
    assert_null(parse(p, "{\"field\":\"a\",\"op\":\"bigger\",\"value\":1}", &e));
    assert_string_equal(code_at(e, "/c/op"), "enum");
    assert_null(parse(p, "{\"field\":\"a\",\"op\":\"answered\",\"value\":1}", &e));
    assert_string_equal(code_at(e, "/c/value"), "unknown");
    assert_null(parse(p, "{\"field\":\"a\",\"op\":\"gt\",\"value\":\"1\"}", &e));
    assert_string_equal(code_at(e, "/c/value"), "type");
    assert_null(parse(p, "{\"field\":\"a\",\"op\":\"equals\"}", &e));
    assert_string_equal(code_at(e, "/c/value"), "required");
    assert_null(parse(p, "{\"field\":\"a\",\"op\":\"contains\",\"value\":\"\"}", &e));
    assert_string_equal(code_at(e, "/c/value"), "minLength");
    assert_null(parse(p, "{\"all\":[]}", &e));
    assert_string_equal(code_at(e, "/c/all"), "minItems");
    assert_null(parse(p, "{\"all\":[{\"field\":\"a\",\"op\":\"answered\"}],\"any\":[]}", &e));
    assert_null(parse(p, "{\"op\":\"answered\"}", &e));
    assert_string_equal(code_at(e, "/c/field"), "required");
    assert_null(parse(p, "{\"all\":[{\"field\":\"a\",\"op\":\"gt\",\"value\":1}],\"x\":1}", &e));
    assert_string_equal(code_at(e, "/c/x"), "unknown");
    assert_null(parse(p, "[1]", &e));
    assert_string_equal(code_at(e, "/c"), "type");
    /* depth: four levels of combinators above a leaf, not five */
    const char *leaf = "{\"field\":\"a\",\"op\":\"answered\"}";
    const char *c = leaf;
    for (int i = 0; i < 4; i++)
        c = apr_psprintf(p, "{\"not\":%s}", c);
    assert_non_null(parse(p, c, &e));
    assert_null(parse(p, apr_psprintf(p, "{\"not\":%s}", c), &e));
    assert_string_equal(code_at(e, "/c/not/not/not/not/not"), "maxItems");
    /* size: 50 nodes, not 51 (all of 20 leaves nested) */
    const char *items = leaf;
    for (int i = 1; i < 20; i++)
        items = apr_pstrcat(p, items, ",", leaf, NULL);
    const char *twenty = apr_psprintf(p, "{\"all\":[%s]}", items);
    assert_non_null(parse(p, twenty, &e));
    assert_null(parse(p, apr_psprintf(p, "{\"all\":[%s,%s]}", items, leaf), &e));
    assert_string_equal(code_at(e, "/c/all"), "maxItems");
    const char *many = apr_psprintf(p, "{\"any\":[%s,%s,{\"all\":[%s,%s]}]}", twenty, twenty, leaf,
                                    leaf); /* 1 + 21 + 21 + 3 = 46 */
    assert_non_null(parse(p, many, &e));
    many = apr_psprintf(p, "{\"any\":[%s,%s,{\"all\":[%s,%s,%s,%s,%s,%s]}]}", twenty, twenty, leaf,
                        leaf, leaf, leaf, leaf, leaf); /* 1 + 21 + 21 + 1 + 6 = 50 */
    assert_non_null(parse(p, many, &e));
    many = apr_psprintf(p, "{\"any\":[%s,%s,{\"all\":[%s,%s,%s,%s,%s,%s,%s]}]}", twenty, twenty,
                        leaf, leaf, leaf, leaf, leaf, leaf, leaf); /* 51 */
    assert_null(parse(p, many, &e));
    assert_non_null(e->errors);
}

static const char FIELDS[] =
    "[{\"key\":\"age\",\"type\":\"integer\",\"label\":\"Age\"},"
    "{\"key\":\"country\",\"type\":\"select\",\"label\":\"Country\",\"options\":[\"us\",\"de\"]},"
    "{\"key\":\"tags\",\"type\":\"multiselect\",\"label\":\"Tags\",\"options\":[\"a\",\"b\"]},"
    "{\"key\":\"bio\",\"type\":\"text\",\"label\":\"Bio\"},"
    "{\"key\":\"pg\",\"type\":\"page\",\"label\":\"Two\"},"
    "%s]";

/* The errors of a field list whose last field is last (a JSON object). */
static fs_error *fields_errors(apr_pool_t *p, const char *last) {
    fs_error *e = fs_error_validation(p);
    json_object *list =
        fs_fields_parse(p, obj(p, apr_psprintf(p, FIELDS, last)), "/fields", NULL, e);
    return list ? NULL : e;
}

static void check_fields(void **state) {
    apr_pool_t *p = *state;
    assert_null(fields_errors(
        p, "{\"key\":\"x\",\"type\":\"text\",\"label\":\"X\",\"visibleIf\":{\"all\":[{\"field\":"
           "\"age\",\"op\":\"gt\",\"value\":17},{\"field\":\"tags\",\"op\":\"contains\",\"value\":"
           "\"b\"},{\"field\":\"bio\",\"op\":\"contains\",\"value\":\"x.y\"}]},\"requiredIf\":{"
           "\"field\":\"country\",\"op\":\"notEquals\",\"value\":\"us\"}}"));
    fs_error *e =
        fields_errors(p, "{\"key\":\"x\",\"type\":\"text\",\"label\":\"X\",\"visibleIf\":{"
                         "\"field\":\"bio\",\"op\":\"gt\",\"value\":1}}");
    assert_string_equal(code_at(e, "/fields/5/visibleIf/op"), "enum"); /* gt on text */
    e = fields_errors(p, "{\"key\":\"x\",\"type\":\"text\",\"label\":\"X\",\"visibleIf\":{"
                         "\"field\":\"tags\",\"op\":\"equals\",\"value\":\"a\"}}");
    assert_string_equal(code_at(e, "/fields/5/visibleIf/op"), "enum"); /* equals on a list */
    e = fields_errors(p, "{\"key\":\"x\",\"type\":\"text\",\"label\":\"X\",\"visibleIf\":{"
                         "\"field\":\"tags\",\"op\":\"contains\",\"value\":\"z\"}}");
    assert_string_equal(code_at(e, "/fields/5/visibleIf/value"), "enum"); /* not an option */
    e = fields_errors(p, "{\"key\":\"x\",\"type\":\"text\",\"label\":\"X\",\"visibleIf\":{"
                         "\"any\":[{\"field\":\"nope\",\"op\":\"answered\"}]}}");
    assert_string_equal(code_at(e, "/fields/5/visibleIf/any/0/field"), "enum"); /* missing */
    e = fields_errors(p, "{\"key\":\"x\",\"type\":\"text\",\"label\":\"X\",\"visibleIf\":{"
                         "\"not\":{\"field\":\"pg\",\"op\":\"answered\"}}}");
    assert_string_equal(code_at(e, "/fields/5/visibleIf/not/field"), "enum"); /* a page */
    e = fields_errors(p, "{\"key\":\"x\",\"type\":\"text\",\"label\":\"X\",\"requiredIf\":{"
                         "\"field\":\"country\",\"op\":\"in\",\"value\":[\"us\",\"fr\"]}}");
    assert_string_equal(code_at(e, "/fields/5/requiredIf/value/1"), "type");
    e = fields_errors(p, "{\"key\":\"x\",\"type\":\"text\",\"label\":\"X\",\"required\":true,"
                         "\"requiredIf\":{\"field\":\"bio\",\"op\":\"answered\"}}");
    assert_string_equal(code_at(e, "/fields/5/requiredIf"), "unknown");
    /* a later field: refused by the grammar of several, allowed in the
     * one-field shorthand (as it always was) */
    e = fs_error_validation(p);
    assert_null(fs_fields_parse(
        p,
        obj(p, "[{\"key\":\"a\",\"type\":\"text\",\"label\":\"A\",\"visibleIf\":{\"field\":\"b\","
               "\"op\":\"equals\",\"value\":\"x\"}},{\"key\":\"b\",\"type\":\"text\",\"label\":"
               "\"B\"}]"),
        "/fields", NULL, e));
    assert_string_equal(code_at(e, "/fields/0/visibleIf/field"), "enum");
    e = fs_error_validation(p);
    assert_non_null(fs_fields_parse(
        p,
        obj(p, "[{\"key\":\"a\",\"type\":\"text\",\"label\":\"A\",\"visibleIf\":{\"field\":\"b\","
               "\"equals\":\"x\"}},{\"key\":\"b\",\"type\":\"text\",\"label\":\"B\"}]"),
        "/fields", NULL, e));
    e = fs_error_validation(p);
    assert_null(fs_fields_parse(
        p,
        obj(p, "[{\"key\":\"a\",\"type\":\"text\",\"label\":\"A\",\"requiredIf\":{\"field\":\"a\","
               "\"op\":\"answered\"}}]"),
        "/fields", NULL, e));
    assert_string_equal(code_at(e, "/fields/0/requiredIf/field"), "enum"); /* itself */
    /* what depends on a field */
    json_object *list = fs_fields_parse(
        p,
        obj(p, apr_psprintf(p, FIELDS,
                            "{\"key\":\"x\",\"type\":\"text\",\"label\":\"X\",\"requiredIf\":{"
                            "\"not\":{\"field\":\"bio\",\"op\":\"answered\"}}}")),
        "/fields", NULL, fs_error_validation(p));
    assert_non_null(list);
    assert_string_equal(fs_fields_depending_on(p, list, "bio"), "The requiredIf of field \"x\"");
    assert_null(fs_fields_depending_on(p, list, "age"));
}

static int holds(apr_pool_t *p, const char *cond, const char *answers) {
    return fs_cond_eval(obj(p, cond), obj(p, answers));
}

static void evaluation(void **state) {
    apr_pool_t *p = *state;
    const char *eq = "{\"field\":\"a\",\"op\":\"equals\",\"value\":1}";
    assert_true(holds(p, eq, "{\"a\":1.0}"));
    assert_false(holds(p, eq, "{\"a\":true}"));
    assert_false(holds(p, eq, "{}"));
    const char *ne = "{\"field\":\"a\",\"op\":\"notEquals\",\"value\":\"x\"}";
    assert_true(holds(p, ne, "{}")); /* not answered: not equal */
    assert_true(holds(p, ne, "{\"a\":\"y\"}"));
    assert_false(holds(p, ne, "{\"a\":\"x\"}"));
    const char *in = "{\"field\":\"a\",\"op\":\"in\",\"value\":[\"x\",2]}";
    assert_true(holds(p, in, "{\"a\":2}"));
    assert_false(holds(p, in, "{\"a\":\"2\"}"));
    const char *gt = "{\"field\":\"a\",\"op\":\"gt\",\"value\":17}";
    assert_true(holds(p, gt, "{\"a\":17.5}"));
    assert_false(holds(p, gt, "{\"a\":17}"));
    assert_false(holds(p, gt, "{\"a\":\"18\"}"));
    assert_false(holds(p, gt, "{}"));
    const char *lt = "{\"field\":\"a\",\"op\":\"lt\",\"value\":0}";
    assert_true(holds(p, lt, "{\"a\":-1}"));
    assert_false(holds(p, lt, "{\"a\":0}"));
    const char *ct = "{\"field\":\"a\",\"op\":\"contains\",\"value\":\"b\"}";
    assert_true(holds(p, ct, "{\"a\":[\"a\",\"b\"]}"));
    assert_true(holds(p, ct, "{\"a\":\"abc\"}"));
    assert_false(holds(p, ct, "{\"a\":[\"abc\"]}"));
    assert_false(holds(p, ct, "{\"a\":\"ABC\"}"));
    const char *an = "{\"field\":\"a\",\"op\":\"answered\"}";
    assert_true(holds(p, an, "{\"a\":null}"));
    assert_false(holds(p, an, "{\"b\":1}"));
    assert_true(holds(p, "{\"field\":\"a\",\"in\":[1,2]}", "{\"a\":2}"));
    assert_false(holds(p, "{\"field\":\"a\",\"equals\":1}", "{}"));
    const char *all = apr_psprintf(p, "{\"all\":[%s,{\"not\":%s}]}", gt, ne);
    assert_true(holds(p, all, "{\"a\":18}") == 0); /* a is 18, so a != "x" */
    assert_true(holds(p, apr_psprintf(p, "{\"any\":[%s,{\"not\":%s}]}", lt, an), "{}"));
    /* stored and broken: never holds */
    assert_false(holds(p, "{\"all\":[]}", "{}"));
    assert_false(holds(p, "{\"field\":\"a\",\"op\":\"what\",\"value\":1}", "{\"a\":1}"));
    assert_false(holds(p, "{\"nope\":1}", "{}"));
    /* the literal of contains, for the schema */
    assert_string_equal(fs_cond_literal_re(p, "a.b*(c)[d]{e}|f/g\\h^$+?"),
                        "a\\.b\\*\\(c\\)\\[d\\]\\{e\\}\\|f\\/g\\\\h\\^\\$\\+\\?");
}

/* A form of four pages: p1 {kind, num}, p2 {q2}, p3 {q3}, p4 {q4}. */
static const char PAGED[] =
    "[{\"key\":\"p1\",\"type\":\"page\",\"label\":\"One\"},"
    "{\"key\":\"kind\",\"type\":\"select\",\"label\":\"Kind\",\"required\":true,"
    "\"options\":[\"a\",\"b\",\"c\"]},"
    "{\"key\":\"num\",\"type\":\"integer\",\"label\":\"Num\"},"
    "{\"key\":\"p2\",\"type\":\"page\",\"label\":\"Two\"},"
    "{\"key\":\"q2\",\"type\":\"text\",\"label\":\"Q2\",\"required\":true},"
    "{\"key\":\"p3\",\"type\":\"page\",\"label\":\"Three\"},"
    "{\"key\":\"q3\",\"type\":\"text\",\"label\":\"Q3\"},"
    "{\"key\":\"p4\",\"type\":\"page\",\"label\":\"Four\"},"
    "{\"key\":\"q4\",\"type\":\"text\",\"label\":\"Q4\",\"required\":true}]";

static fs_error *logic_errors(apr_pool_t *p, const char *logic) {
    fs_error *e = fs_error_validation(p);
    json_object *fields = fs_fields_parse(p, obj(p, PAGED), "/fields", NULL, e);
    assert_non_null(fields);
    json_object *s = fs_json_own(
        p, fs_settings_parse(p, obj(p, apr_psprintf(p, "{\"logic\":%s}", logic)), "/settings", e));
    if (!s)
        return e;
    fs_settings_fields_check(p, s, fields, e);
    return e->errors ? e : NULL;
}

static void logic_rules(void **state) {
    apr_pool_t *p = *state;
    assert_null(logic_errors(
        p, "[{\"when\":{\"field\":\"kind\",\"op\":\"equals\",\"value\":\"b\"},\"then\":{\"goTo\":"
           "\"p3\"}},{\"from\":\"p2\",\"when\":{\"field\":\"num\",\"op\":\"gt\",\"value\":1},"
           "\"then\":{\"goTo\":\"end\"}}]"));
    fs_error *e = logic_errors(p, "[{\"from\":\"p3\",\"then\":{\"goTo\":\"p2\"}}]");
    assert_string_equal(code_at(e, "/settings/logic/0/then/goTo"), "enum"); /* backwards */
    e = logic_errors(p, "[{\"from\":\"p3\",\"then\":{\"goTo\":\"p3\"}}]");
    assert_string_equal(code_at(e, "/settings/logic/0/then/goTo"), "enum"); /* a loop */
    e = logic_errors(p, "[{\"from\":\"p1\",\"then\":{\"goTo\":\"nope\"}}]");
    assert_string_equal(code_at(e, "/settings/logic/0/then/goTo"), "enum"); /* missing */
    e = logic_errors(p, "[{\"from\":\"q2\",\"then\":{\"goTo\":\"p4\"}}]");
    assert_string_equal(code_at(e, "/settings/logic/0/from"), "enum"); /* not a page */
    e = logic_errors(p, "[{\"from\":\"p1\",\"then\":{\"goTo\":\"p3\"}}]");
    assert_string_equal(code_at(e, "/settings/logic"), "enum"); /* p2 unreachable */
    e = logic_errors(p, "[{\"from\":\"p1\",\"when\":{\"field\":\"q3\",\"op\":\"answered\"},"
                        "\"then\":{\"goTo\":\"p4\"}}]");
    assert_string_equal(code_at(e, "/settings/logic/0/when"), "enum"); /* later question */
    e = logic_errors(p, "[{\"when\":{\"field\":\"q2\",\"op\":\"lt\",\"value\":1},"
                        "\"then\":{\"goTo\":\"p4\"}}]");
    assert_string_equal(code_at(e, "/settings/logic/0/when/op"), "enum"); /* lt on text */
    e = logic_errors(p, "[{\"then\":{\"goTo\":\"p4\"}}]");
    assert_string_equal(code_at(e, "/settings/logic/0/from"), "required");
    e = logic_errors(p, "[{\"from\":\"p1\",\"then\":{\"goTo\":\"p4\",\"x\":1},\"y\":2}]");
    assert_string_equal(code_at(e, "/settings/logic/0/then/x"), "unknown");
    assert_string_equal(code_at(e, "/settings/logic/0/y"), "unknown");
    e = logic_errors(p, "{}");
    assert_string_equal(code_at(e, "/settings/logic"), "type");
}

static void path_and_steps(void **state) {
    apr_pool_t *p = *state;
    fs_fieldset *fs = fs_fieldset_from_json(
        p, fs_fields_parse(p, obj(p, PAGED), "/fields", NULL, fs_error_validation(p)));
    fs_fieldset_logic(
        p, fs,
        obj(p, "{\"logic\":[{\"when\":{\"field\":\"kind\",\"op\":\"equals\",\"value\":\"b\"},"
               "\"then\":{\"goTo\":\"p3\"}},{\"when\":{\"field\":\"kind\",\"op\":\"equals\","
               "\"value\":\"c\"},\"then\":{\"goTo\":\"end\"}},{\"from\":\"p2\",\"when\":{\"field\":"
               "\"q2\",\"op\":\"contains\",\"value\":\"skip\"},\"then\":{\"goTo\":\"p4\"}}]}"));
    assert_int_equal(fs->npages, 4);
    assert_int_equal(fs->njumps, 3);
    const char *path = fs_fieldset_path(p, fs, obj(p, "{\"kind\":\"b\"}"));
    assert_memory_equal(path, "\1\0\1\1", 4);
    path = fs_fieldset_path(p, fs, obj(p, "{\"kind\":\"c\"}"));
    assert_memory_equal(path, "\1\0\0\0", 4);
    /* q2 skipped by the path: its stale answer does not decide p2's jump */
    path = fs_fieldset_path(p, fs, obj(p, "{\"kind\":\"b\",\"q2\":\"skip\"}"));
    assert_memory_equal(path, "\1\0\1\1", 4);
    path = fs_fieldset_path(p, fs, obj(p, "{\"kind\":\"a\",\"q2\":\"skip\"}"));
    assert_memory_equal(path, "\1\1\0\1", 4);
    assert_int_equal(fs_pages_step(fs, 0, 1, obj(p, "{\"kind\":\"b\"}")), 2);
    assert_int_equal(fs_pages_step(fs, 0, 1, obj(p, "{\"kind\":\"c\"}")), -1);
    assert_int_equal(fs_pages_step(fs, 2, -1, obj(p, "{\"kind\":\"b\"}")), 0);
    /* the progress counts the pages the path takes: a jump to the end
     * makes the first page the only one, a skipped page is not counted */
    int n, total;
    fs_pages_progress(fs, 0, obj(p, "{\"kind\":\"c\"}"), &n, &total);
    assert_int_equal(n * 10 + total, 11);
    fs_pages_progress(fs, 0, obj(p, "{\"kind\":\"b\"}"), &n, &total);
    assert_int_equal(n * 10 + total, 13);
    fs_pages_progress(fs, 2, obj(p, "{\"kind\":\"b\"}"), &n, &total);
    assert_int_equal(n * 10 + total, 23);
    fs_pages_progress(fs, 1, obj(p, "{\"kind\":\"a\"}"), &n, &total);
    assert_int_equal(n * 10 + total, 24);
    fs_pages_progress(fs, 1, obj(p, "{\"kind\":\"b\"}"), &n, &total); /* off the path */
    assert_int_equal(n * 10 + total, 24);
    /* the validator: answers of a skipped page are refused, and required
     * questions there are not required */
    assert_null(fs_validate(p, fs, obj(p, "{\"kind\":\"b\",\"q4\":\"x\"}")));
    assert_null(fs_validate(p, fs, obj(p, "{\"kind\":\"c\"}")));
    fs_error *e = fs_validate(p, fs, obj(p, "{\"kind\":\"c\",\"q2\":\"x\"}"));
    assert_string_equal(code_at(e, "/q2"), "unknown");
    e = fs_validate(p, fs, obj(p, "{\"kind\":\"a\",\"q2\":\"x\"}"));
    assert_string_equal(code_at(e, "/q4"), "required");
    /* the answers a Submit keeps: none of a skipped page */
    json_object *a = obj(p, "{\"kind\":\"b\",\"q2\":\"typed before\",\"q4\":\"x\"}");
    fs_pages_drop_inapplicable(fs, 3, a);
    assert_false(json_object_object_get_ex(a, "q2", NULL));
    assert_true(json_object_object_get_ex(a, "q4", NULL));
    /* the trail Back follows travels sealed */
    fs_pagestate st = {"1", 100, 2, 0, obj(p, "{\"kind\":\"b\"}"), obj(p, "[0]")}, out;
    const char *sealed;
    assert_int_equal(fs_pagestate_seal(p, NULL, 0, "frm_x", "", &st, &sealed), FS_PAGESTATE_OK);
    assert_int_equal(fs_pagestate_open(p, NULL, 0, "frm_x", "", sealed, 50, &out), FS_PAGESTATE_OK);
    assert_int_equal(json_object_array_length(out.trail), 1);
    st.trail = obj(p, "[0,2]"); /* not before the page: refused */
    assert_int_equal(fs_pagestate_seal(p, NULL, 0, "frm_x", "", &st, &sealed), FS_PAGESTATE_OK);
    assert_int_equal(fs_pagestate_open(p, NULL, 0, "frm_x", "", sealed, 50, &out),
                     FS_PAGESTATE_BAD);
}

static void required_if(void **state) {
    apr_pool_t *p = *state;
    fs_fieldset *fs = fs_fieldset_from_json(
        p, obj(p, "[{\"key\":\"member\",\"type\":\"boolean\",\"label\":\"M\"},"
                  "{\"key\":\"num\",\"type\":\"text\",\"label\":\"N\",\"requiredIf\":{\"field\":"
                  "\"member\",\"op\":\"equals\",\"value\":true}},"
                  "{\"key\":\"ok\",\"type\":\"boolean\",\"label\":\"OK\",\"requiredIf\":{\"field\":"
                  "\"num\",\"op\":\"answered\"}}]"));
    assert_null(fs_validate(p, fs, obj(p, "{\"member\":false}")));
    fs_error *e = fs_validate(p, fs, obj(p, "{\"member\":true}"));
    assert_string_equal(code_at(e, "/num"), "required");
    e = fs_validate(p, fs, obj(p, "{\"member\":true,\"num\":\"\"}"));
    assert_string_equal(code_at(e, "/num"), "required");
    e = fs_validate(p, fs, obj(p, "{\"member\":true,\"num\":\"7\",\"ok\":false}"));
    assert_string_equal(code_at(e, "/ok"), "required");
    assert_null(fs_validate(p, fs, obj(p, "{\"member\":true,\"num\":\"7\",\"ok\":true}")));
}

/* The page's sentences for conditions of several fields and requiredIf,
 * in English and in German. */
static void sentences(void **state) {
    apr_pool_t *p = *state;
    fs_locales *ls;
    assert_null(fs_locales_load(p, "share/locales", &ls));
    const fs_fieldset *fs = fs_fieldset_from_json(
        p, fs_fields_parse(
               p,
               obj(p, "[{\"key\":\"age\",\"type\":\"integer\",\"label\":\"Age\"},"
                      "{\"key\":\"country\",\"type\":\"select\",\"label\":\"Country\","
                      "\"options\":[{\"value\":\"de\",\"label\":\"Germany\"},\"fr\"]},"
                      "{\"key\":\"why\",\"type\":\"text\",\"label\":\"Why\",\"visibleIf\":{"
                      "\"all\":[{\"field\":\"age\",\"op\":\"gt\",\"value\":17},{\"any\":[{"
                      "\"field\":\"country\",\"op\":\"notEquals\",\"value\":\"de\"},{\"not\":{"
                      "\"field\":\"age\",\"op\":\"answered\"}}]}]},\"requiredIf\":{\"field\":"
                      "\"country\",\"op\":\"in\",\"value\":[\"de\",\"fr\"]}}]"),
               "/fields", NULL, fs_error_validation(p)));
    assert_non_null(fs);
    fs_page pg;
    memset(&pg, 0, sizeof(pg));
    pg.title = "T";
    pg.fields = fs;
    pg.action = "https://f.example/f/frm_1";
    pg.loc = fs_locales_get(ls, "en");
    const char *h = fs_html_form(p, &pg);
    assert_non_null(strstr(h, "Answer only if \xe2\x80\x9c"
                              "Age\xe2\x80\x9d is more than \xe2\x80\x9c"
                              "17\xe2\x80\x9d and (\xe2\x80\x9c"
                              "Country\xe2\x80\x9d is not \xe2\x80\x9c"
                              "Germany\xe2\x80\x9d or not (\xe2\x80\x9c"
                              "Age\xe2\x80\x9d is answered)). Required if \xe2\x80\x9c"
                              "Country\xe2\x80\x9d is one of \xe2\x80\x9c"
                              "Germany\xe2\x80\x9d, \xe2\x80\x9c"
                              "fr\xe2\x80\x9d."));
    /* required only sometimes: not required in the browser */
    assert_null(strstr(h, "id=\"f-why\" name=\"why\" value=\"\" required"));
    pg.loc = fs_locales_get(ls, "de");
    h = fs_html_form(p, &pg);
    assert_non_null(strstr(h, "Nur beantworten, wenn \xe2\x80\x9e"
                              "Age\xe2\x80\x9c gr\xc3\xb6\xc3\x9f"
                              "er als \xe2\x80\x9e"
                              "17\xe2\x80\x9c ist und ("));
    assert_non_null(strstr(h, "Pflichtfeld, wenn "));
}

int main(void) {
    apr_initialize();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(parse_shapes, fs_test_setup, fs_test_teardown),
        cmocka_unit_test_setup_teardown(check_fields, fs_test_setup, fs_test_teardown),
        cmocka_unit_test_setup_teardown(evaluation, fs_test_setup, fs_test_teardown),
        cmocka_unit_test_setup_teardown(logic_rules, fs_test_setup, fs_test_teardown),
        cmocka_unit_test_setup_teardown(path_and_steps, fs_test_setup, fs_test_teardown),
        cmocka_unit_test_setup_teardown(required_if, fs_test_setup, fs_test_teardown),
        cmocka_unit_test_setup_teardown(sentences, fs_test_setup, fs_test_teardown),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    apr_terminate();
    return rc;
}
