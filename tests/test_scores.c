/* fs_scores: the arithmetic and its bounds, settings.variables and the
 * calculate actions (parse, check against the fields), a quiz's options'
 * scores and correct answers, the calculated result, the public fields,
 * the CSV cells and the thanks page's placeholders. */
#include "fs_field.h"
#include "fs_fieldset.h"
#include "fs_form.h"
#include "fs_json.h"
#include "fs_scores.h"
#include "fs_test.h"

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

static void arithmetic(void **state) {
    (void)state;
    assert_int_equal(fs_calc_apply(2, "add", 3), 5);
    assert_int_equal(fs_calc_apply(2, "subtract", 3), -1);
    assert_int_equal(fs_calc_apply(-4, "multiply", 3), -12);
    assert_int_equal(fs_calc_apply(7, "set", -2), -2);
    assert_int_equal(fs_calc_apply(7, "divide", 2), 7); /* nothing divides */
    assert_int_equal(fs_calc_apply(7, NULL, 2), 7);
    /* kept within +-10^15, never wrapping round */
    assert_int_equal(fs_calc_apply(FS_CALC_LIMIT, "add", 1), FS_CALC_LIMIT);
    assert_int_equal(fs_calc_apply(-FS_CALC_LIMIT, "subtract", 5), -FS_CALC_LIMIT);
    assert_int_equal(fs_calc_apply(FS_CALC_LIMIT, "multiply", FS_CALC_LIMIT), FS_CALC_LIMIT);
    assert_int_equal(fs_calc_apply(FS_CALC_LIMIT, "multiply", -FS_CALC_LIMIT), -FS_CALC_LIMIT);
    assert_int_equal(fs_calc_apply(3, "multiply", INT64_MAX), FS_CALC_LIMIT);
    assert_int_equal(fs_calc_apply(INT64_MIN, "add", INT64_MIN), -FS_CALC_LIMIT);
    assert_int_equal(fs_calc_apply(0, "set", INT64_MAX), FS_CALC_LIMIT);
    /* exact where a double is not: 0.1 + 0.2 has no counterpart, and
     * 10^15 - 1 + 1 stays exact */
    assert_int_equal(fs_calc_apply(FS_CALC_LIMIT - 1, "add", 1), FS_CALC_LIMIT);
}

#define QUIZ                                                                                       \
    "[{\"key\":\"p1\",\"type\":\"page\",\"label\":\"One\"},"                                       \
    "{\"key\":\"capital\",\"type\":\"select\",\"label\":\"Capital\",\"options\":["                 \
    "{\"value\":\"paris\",\"score\":3},{\"value\":\"lyon\",\"score\":1},\"nice\"]},"               \
    "{\"key\":\"rivers\",\"type\":\"multiselect\",\"label\":\"Rivers\",\"options\":["              \
    "{\"value\":\"seine\",\"score\":2},{\"value\":\"loire\",\"score\":2},"                         \
    "{\"value\":\"nile\",\"score\":-1}],\"validation\":{\"maxItems\":3}},"                         \
    "{\"key\":\"year\",\"type\":\"integer\",\"label\":\"Year\",\"correct\":1789},"                 \
    "{\"key\":\"bonus\",\"type\":\"boolean\",\"label\":\"Bonus\",\"correct\":true,"                \
    "\"visibleIf\":{\"field\":\"capital\",\"op\":\"equals\",\"value\":\"paris\"}},"                \
    "{\"key\":\"p2\",\"type\":\"page\",\"label\":\"Two\"},"                                        \
    "{\"key\":\"langs\",\"type\":\"multiselect\",\"label\":\"Langs\",\"options\":[\"fr\",\"de\","  \
    "\"it\"],\"correct\":[\"fr\",\"it\"]},"                                                        \
    "{\"key\":\"name\",\"type\":\"text\",\"label\":\"Name\"},"                                     \
    "{\"key\":\"stars\",\"type\":\"rating\",\"label\":\"Stars\"}]"

#define SETTINGS                                                                                   \
    "{\"variables\":[{\"name\":\"total\",\"type\":\"number\",\"initial\":10},"                     \
    "{\"name\":\"who\",\"type\":\"text\"},{\"name\":\"n\",\"type\":\"number\"}],"                  \
    "\"logic\":[{\"when\":{\"field\":\"capital\",\"op\":\"equals\",\"value\":\"paris\"},"          \
    "\"then\":{\"calculate\":[{\"variable\":\"total\",\"op\":\"add\",\"value\":5},"                \
    "{\"variable\":\"total\",\"op\":\"multiply\",\"value\":{\"field\":\"stars\"}}]}},"             \
    "{\"then\":{\"calculate\":[{\"variable\":\"total\",\"op\":\"subtract\",\"value\":1},"          \
    "{\"variable\":\"who\",\"op\":\"set\",\"value\":{\"field\":\"name\"}},"                        \
    "{\"variable\":\"n\",\"op\":\"set\",\"value\":{\"field\":\"year\"}}]}},"                       \
    "{\"from\":\"p1\",\"when\":{\"field\":\"year\",\"op\":\"lt\",\"value\":0},"                    \
    "\"then\":{\"goTo\":\"end\",\"calculate\":[{\"variable\":\"n\",\"op\":\"set\",\"value\":-1}]}" \
    "}"                                                                                            \
    "],\"showScore\":true}"

/* The form's fields and settings, checked as a PUT would. */
static void form_of(apr_pool_t *p, const char *fields, const char *settings, json_object **f,
                    json_object **s, fs_error **e) {
    *e = fs_error_validation(p);
    *f = fs_fields_parse(p, obj(p, fields), "/fields", NULL, *e); /* owned by p */
    *s = fs_json_own(p, fs_settings_parse(p, obj(p, settings), "/settings", *e));
    if (*f && *s)
        fs_settings_fields_check(p, *s, *f, *e);
    if (!(*e)->errors)
        *e = NULL;
}

static json_object *calc(apr_pool_t *p, json_object *f, json_object *s, const char *answers) {
    fs_fieldset *fs = fs_fieldset_from_json(p, f);
    fs_fieldset_logic(p, fs, s);
    return fs_json_own(p, fs_calculated(p, s, f, fs, obj(p, answers)));
}

static void quiz_and_variables(void **state) {
    apr_pool_t *p = *state;
    json_object *f, *s;
    fs_error *e;
    form_of(p, QUIZ, SETTINGS, &f, &s, &e);
    assert_null(e);
    assert_true(fs_quiz_is(f));
    /* everything right: 3 + (2+2) + 1 + 1 + 1 = 10 of 3 + 4 + 1 + 1 + 1 = 10 */
    json_object *c = calc(p, f, s,
                          "{\"capital\":\"paris\",\"rivers\":[\"seine\",\"loire\"],\"year\":1789,"
                          "\"bonus\":true,\"langs\":[\"it\",\"fr\"],\"name\":\"Ann\",\"stars\":4}");
    assert_string_equal(fs_json_str(p, c), "{\"score\":10,\"max\":10,\"variables\":{\"total\":59,"
                                           "\"who\":\"Ann\",\"n\":1789}}");
    /* lyon hides bonus: neither its point nor its max; a wrong river costs */
    c = calc(p, f, s,
             "{\"capital\":\"lyon\",\"rivers\":[\"seine\",\"nile\"],\"year\":1790,"
             "\"langs\":[\"fr\"],\"stars\":2}");
    assert_string_equal(fs_json_str(p, c), "{\"score\":2,\"max\":9,\"variables\":{\"total\":9,"
                                           "\"who\":\"\",\"n\":1790}}");
    /* a jump's calculate applies when its when holds; unanswered fields
     * change nothing; the page jumped over counts in neither */
    c = calc(p, f, s, "{\"year\":-5}");
    assert_string_equal(fs_json_str(p, c), "{\"score\":0,\"max\":8,\"variables\":{\"total\":9,"
                                           "\"who\":\"\",\"n\":-1}}");
    /* neither a quiz nor variables: nothing */
    form_of(p, "[{\"key\":\"a\",\"type\":\"text\",\"label\":\"A\"}]", "{}", &f, &s, &e);
    assert_null(e);
    assert_null(calc(p, f, s, "{\"a\":\"x\"}"));
    /* a rating, a number and a date have correct answers too */
    form_of(p,
            "[{\"key\":\"r\",\"type\":\"rating\",\"label\":\"R\",\"correct\":4},"
            "{\"key\":\"n\",\"type\":\"number\",\"label\":\"N\",\"correct\":2.5},"
            "{\"key\":\"d\",\"type\":\"date\",\"label\":\"D\",\"correct\":\"1789-07-14\"}]",
            "{}", &f, &s, &e);
    assert_null(e);
    assert_string_equal(fs_json_str(p, calc(p, f, s, "{\"r\":4,\"n\":2.5,\"d\":\"1789-07-14\"}")),
                        "{\"score\":3,\"max\":3}");
    assert_string_equal(fs_json_str(p, calc(p, f, s, "{\"r\":5,\"n\":2,\"d\":\"1789-07-15\"}")),
                        "{\"score\":0,\"max\":3}");
    /* a multiselect's max: its best maxItems choices */
    form_of(p,
            "[{\"key\":\"m\",\"type\":\"multiselect\",\"label\":\"M\",\"options\":["
            "{\"value\":\"a\",\"score\":5},{\"value\":\"b\",\"score\":7},{\"value\":\"c\","
            "\"score\":1}],\"validation\":{\"maxItems\":2}}]",
            "{}", &f, &s, &e);
    assert_null(e);
    assert_string_equal(fs_json_str(p, calc(p, f, s, "{}")), "{\"score\":0,\"max\":12}");
}

/* a scale's answer (an integer, as a rating's) drives a number variable */
static void scale_into_variable(void **state) {
    apr_pool_t *p = *state;
    json_object *f, *s;
    fs_error *e;
    form_of(p, "[{\"key\":\"nps\",\"type\":\"scale\",\"label\":\"NPS\",\"from\":0,\"to\":10}]",
            "{\"variables\":[{\"name\":\"x\",\"type\":\"number\",\"initial\":1}],\"logic\":["
            "{\"then\":{\"calculate\":[{\"variable\":\"x\",\"op\":\"add\",\"value\":{"
            "\"field\":\"nps\"}}]}}]}",
            &f, &s, &e);
    assert_null(e);
    json_object *c = calc(p, f, s, "{\"nps\":9}");
    assert_int_equal(json_object_get_int(fs_json_get(fs_json_get(c, "variables"), "x")), 10);
    /* a scale's correct answer is checked against its own from and to */
    form_of(p,
            "[{\"key\":\"nps\",\"type\":\"scale\",\"label\":\"NPS\",\"from\":0,\"to\":10,"
            "\"correct\":9}]",
            "{}", &f, &s, &e);
    assert_null(e);
    c = calc(p, f, s, "{\"nps\":9}");
    assert_int_equal(json_object_get_int(fs_json_get(c, "score")), 1);
    form_of(p,
            "[{\"key\":\"nps\",\"type\":\"scale\",\"label\":\"NPS\",\"from\":0,\"to\":10,"
            "\"correct\":11},{\"key\":\"m\",\"type\":\"ranking\",\"label\":\"M\","
            "\"options\":[\"a\",\"b\"],\"correct\":[\"a\",\"b\"]}]",
            "{}", &f, &s, &e);
    assert_non_null(e);
    assert_string_equal(code_at(e, "/fields/0/correct"), "enum");
    assert_string_equal(code_at(e, "/fields/1/correct"), "unknown");
}

static void bounds_and_refusals(void **state) {
    apr_pool_t *p = *state;
    json_object *f, *s;
    fs_error *e;
    const char *text = "[{\"key\":\"a\",\"type\":\"text\",\"label\":\"A\"},"
                       "{\"key\":\"n\",\"type\":\"number\",\"label\":\"N\"},"
                       "{\"key\":\"i\",\"type\":\"integer\",\"label\":\"I\"}]";
    /* unknown variable, type mismatches, division */
    form_of(p, text,
            "{\"variables\":[{\"name\":\"x\",\"type\":\"number\"},{\"name\":\"t\",\"type\":"
            "\"text\"}],\"logic\":[{\"then\":{\"calculate\":["
            "{\"variable\":\"y\",\"op\":\"add\",\"value\":1},"
            "{\"variable\":\"x\",\"op\":\"add\",\"value\":\"1\"},"
            "{\"variable\":\"x\",\"op\":\"add\",\"value\":{\"field\":\"n\"}},"
            "{\"variable\":\"t\",\"op\":\"add\",\"value\":\"z\"},"
            "{\"variable\":\"t\",\"op\":\"set\",\"value\":{\"field\":\"i\"}},"
            "{\"variable\":\"x\",\"op\":\"set\",\"value\":{\"field\":\"zz\"}}]}}]}",
            &f, &s, &e);
    assert_non_null(e);
    assert_string_equal(code_at(e, "/settings/logic/0/then/calculate/0/variable"), "enum");
    assert_string_equal(code_at(e, "/settings/logic/0/then/calculate/1/value"), "type");
    assert_string_equal(code_at(e, "/settings/logic/0/then/calculate/2/value/field"), "type");
    assert_string_equal(code_at(e, "/settings/logic/0/then/calculate/3/op"), "enum");
    assert_string_equal(code_at(e, "/settings/logic/0/then/calculate/4/value/field"), "type");
    assert_string_equal(code_at(e, "/settings/logic/0/then/calculate/5/value/field"), "enum");
    /* shapes: divide, a fraction, too many actions, a from without goTo */
    form_of(p, text,
            "{\"variables\":[{\"name\":\"x\",\"type\":\"number\"}],\"logic\":["
            "{\"then\":{\"calculate\":[{\"variable\":\"x\",\"op\":\"divide\",\"value\":2}]}},"
            "{\"then\":{\"calculate\":[{\"variable\":\"x\",\"op\":\"add\",\"value\":0.5}]}},"
            "{\"then\":{\"calculate\":[{\"variable\":\"x\",\"op\":\"add\",\"value\":1},"
            "{\"variable\":\"x\",\"op\":\"add\",\"value\":1},{\"variable\":\"x\",\"op\":\"add\","
            "\"value\":1},{\"variable\":\"x\",\"op\":\"add\",\"value\":1},{\"variable\":\"x\","
            "\"op\":\"add\",\"value\":1},{\"variable\":\"x\",\"op\":\"add\",\"value\":1},"
            "{\"variable\":\"x\",\"op\":\"add\",\"value\":1},{\"variable\":\"x\",\"op\":\"add\","
            "\"value\":1},{\"variable\":\"x\",\"op\":\"add\",\"value\":1},{\"variable\":\"x\","
            "\"op\":\"add\",\"value\":1},{\"variable\":\"x\",\"op\":\"add\",\"value\":1}]}},"
            "{\"from\":\"p\",\"then\":{\"calculate\":[{\"variable\":\"x\",\"op\":\"set\","
            "\"value\":1}]}},"
            "{\"then\":{\"calculate\":[{\"variable\":\"x\",\"op\":\"set\",\"value\":"
            "10000000000000000}]}},"
            "{\"then\":{}}]}",
            &f, &s, &e);
    assert_non_null(e);
    assert_string_equal(code_at(e, "/settings/logic/0/then/calculate/0/op"), "enum");
    assert_string_equal(code_at(e, "/settings/logic/1/then/calculate/0/value"), "type");
    assert_string_equal(code_at(e, "/settings/logic/2/then/calculate"), "maxItems");
    assert_string_equal(code_at(e, "/settings/logic/3/from"), "unknown");
    assert_string_equal(code_at(e, "/settings/logic/4/then/calculate/0/value"), "maximum");
    assert_string_equal(code_at(e, "/settings/logic/5/then/goTo"), "required");
    /* variables: names, types, initial values, count */
    form_of(p, text,
            "{\"variables\":[{\"name\":\"X\",\"type\":\"number\"},{\"name\":\"a\",\"type\":"
            "\"float\"},{\"name\":\"b\",\"type\":\"number\",\"initial\":1.5},{\"name\":\"b\","
            "\"type\":\"text\"},{\"name\":\"c\",\"type\":\"text\",\"initial\":3,\"x\":1}]}",
            &f, &s, &e);
    assert_non_null(e);
    assert_string_equal(code_at(e, "/settings/variables/0/name"), "pattern");
    assert_string_equal(code_at(e, "/settings/variables/1/type"), "enum");
    assert_string_equal(code_at(e, "/settings/variables/2/initial"), "type");
    assert_string_equal(code_at(e, "/settings/variables/3/name"), "unique");
    assert_string_equal(code_at(e, "/settings/variables/4/initial"), "type");
    assert_string_equal(code_at(e, "/settings/variables/4/x"), "unknown");
    const char *many = "{\"variables\":[";
    for (int i = 0; i <= FS_VARIABLES_MAX; i++)
        many = apr_psprintf(p, "%s%s{\"name\":\"v%d\",\"type\":\"number\"}", many, i ? "," : "", i);
    form_of(p, text, apr_pstrcat(p, many, "]}", NULL), &f, &s, &e);
    assert_string_equal(code_at(e, "/settings/variables"), "maxItems");
    form_of(p, text, "{\"showScore\":\"yes\"}", &f, &s, &e);
    assert_string_equal(code_at(e, "/settings/showScore"), "type");
    /* the quiz's members */
    form_of(p,
            "[{\"key\":\"s\",\"type\":\"select\",\"label\":\"S\",\"options\":[{\"value\":\"a\","
            "\"score\":1.5},{\"value\":\"b\",\"score\":2000000}]},"
            "{\"key\":\"t\",\"type\":\"select\",\"label\":\"T\",\"options\":[\"a\"],"
            "\"correct\":\"z\"},"
            "{\"key\":\"u\",\"type\":\"select\",\"label\":\"U\",\"options\":[{\"value\":\"a\","
            "\"score\":1}],\"correct\":\"a\"},"
            "{\"key\":\"v\",\"type\":\"textarea\",\"label\":\"V\",\"correct\":\"x\"},"
            "{\"key\":\"w\",\"type\":\"multiselect\",\"label\":\"W\",\"options\":[\"a\",\"b\"],"
            "\"correct\":[\"a\",\"a\"]},"
            "{\"key\":\"x\",\"type\":\"integer\",\"label\":\"X\",\"correct\":\"1\"}]",
            "{}", &f, &s, &e);
    assert_non_null(e);
    assert_string_equal(code_at(e, "/fields/0/options/0/score"), "type");
    assert_string_equal(code_at(e, "/fields/0/options/1/score"), "maximum");
    assert_string_equal(code_at(e, "/fields/1/correct"), "enum");
    assert_string_equal(code_at(e, "/fields/2/correct"), "unknown");
    assert_string_equal(code_at(e, "/fields/3/correct"), "unknown");
    assert_string_equal(code_at(e, "/fields/4/correct"), "enum");
    assert_string_equal(code_at(e, "/fields/5/correct"), "enum");
}

static void public_csv_and_fill(void **state) {
    apr_pool_t *p = *state;
    json_object *f, *s;
    fs_error *e;
    form_of(p, QUIZ, SETTINGS, &f, &s, &e);
    assert_null(e);
    /* the respondent's copy has neither scores nor correct answers */
    json_object *pf = fs_json_own(p, fs_quiz_public_fields(f));
    const char *t = fs_json_str(p, pf);
    assert_null(strstr(t, "score"));
    assert_null(strstr(t, "correct"));
    assert_non_null(strstr(fs_json_str(p, f), "\"correct\":1789")); /* the owner's unchanged */
    assert_null(fs_quiz_public_fields(obj(p, "[{\"key\":\"a\",\"type\":\"text\"}]")));
    /* the CSV's columns and cells */
    const char **names;
    int n = fs_scores_csv_columns(p, s, f, &names);
    assert_int_equal(n, 5);
    assert_string_equal(names[0], "calculatedScore");
    assert_string_equal(names[1], "calculatedMax");
    assert_string_equal(names[2], "calculated.total");
    assert_string_equal(names[4], "calculated.n");
    const char **cells = fs_scores_csv_values(
        p, names, n,
        "{\"score\": 7, \"max\": 10, \"variables\": {\"total\": -3, \"who\": \"=1+1\"}}");
    assert_string_equal(cells[0], "7");
    assert_string_equal(cells[1], "10");
    assert_string_equal(cells[2], "-3");
    assert_string_equal(cells[3], "'=1+1"); /* neutralised as every text cell */
    assert_string_equal(cells[4], "");
    cells = fs_scores_csv_values(p, names, n, NULL);
    assert_string_equal(cells[0], "");
    /* placeholders */
    assert_string_equal(fs_scores_fill(p, "You got {score}/{max} {x} {score", "7", "10"),
                        "You got 7/10 {x} {score");
    assert_string_equal(fs_scores_fill(p, "{max}{score}", "?", "?"), "??");
    assert_string_equal(fs_scores_fill(p, "{score}", "{max}", "9"), "{max}"); /* one pass */
}

int main(void) {
    apr_initialize();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(arithmetic, fs_test_setup, fs_test_teardown),
        cmocka_unit_test_setup_teardown(quiz_and_variables, fs_test_setup, fs_test_teardown),
        cmocka_unit_test_setup_teardown(scale_into_variable, fs_test_setup, fs_test_teardown),
        cmocka_unit_test_setup_teardown(bounds_and_refusals, fs_test_setup, fs_test_teardown),
        cmocka_unit_test_setup_teardown(public_csv_and_fill, fs_test_setup, fs_test_teardown),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    apr_terminate();
    return rc;
}
