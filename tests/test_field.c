/* fs_field: definitions of every type, normalisation, contradictions and
 * their pointers, list rules, merge patch. */
#include "fs_field.h"
#include "fs_json.h"
#include "fs_secret.h"
#include "fs_test.h"

#include <apr_strings.h>

static json_object *J(apr_pool_t *p, const char *s) {
    json_object *o = fs_json_parse_trusted(p, s);
    if (!o)
        fail_msg("bad test JSON: %s", s);
    return o;
}

/* Parses def; returns the field (pool-owned) or NULL; *e gets the errors. */
static json_object *parse(apr_pool_t *p, const char *def, fs_error **e) {
    *e = fs_error_validation(p);
    return fs_json_own(p, fs_field_parse(p, J(p, def), "fld_X", "/fields/3", *e));
}

/* The code of the error at pointer, or NULL. */
static const char *code_at(fs_error *e, const char *ptr) {
    for (int i = 0; e->errors && i < e->errors->nelts; i++) {
        fs_field_error *fe = &APR_ARRAY_IDX(e->errors, i, fs_field_error);
        if (!strcmp(fe->pointer, ptr))
            return fe->code;
    }
    return NULL;
}

static void assert_code(fs_error *e, const char *ptr, const char *code) {
    const char *c = code_at(e, ptr);
    if (!c || strcmp(c, code)) {
        for (int i = 0; e->errors && i < e->errors->nelts; i++) {
            fs_field_error *fe = &APR_ARRAY_IDX(e->errors, i, fs_field_error);
            print_message("  %s %s %s\n", fe->pointer, fe->code, fe->detail);
        }
        fail_msg("expected %s at %s, got %s", code, ptr, c ? c : "nothing");
    }
}

static void every_type_parses(void **state) {
    apr_pool_t *p = *state;
    const char *defs[] = {
        "{\"key\":\"a\",\"type\":\"text\",\"label\":\"A\",\"validation\":{\"minLength\":1,"
        "\"maxLength\":5,\"pattern\":\"^x\"}}",
        "{\"key\":\"a\",\"type\":\"textarea\",\"label\":\"A\"}",
        "{\"key\":\"a\",\"type\":\"email\",\"label\":\"A\",\"placeholder\":\"you@x\"}",
        "{\"key\":\"a\",\"type\":\"url\",\"label\":\"A\"}",
        "{\"key\":\"a\",\"type\":\"tel\",\"label\":\"A\"}",
        "{\"key\":\"a\",\"type\":\"number\",\"label\":\"A\",\"validation\":{\"minimum\":-1.5,"
        "\"maximum\":2}}",
        "{\"key\":\"a\",\"type\":\"integer\",\"label\":\"A\",\"validation\":{\"minimum\":-1,"
        "\"maximum\":2}}",
        "{\"key\":\"a\",\"type\":\"boolean\",\"label\":\"A\",\"required\":true}",
        "{\"key\":\"a\",\"type\":\"date\",\"label\":\"A\"}",
        "{\"key\":\"a\",\"type\":\"datetime\",\"label\":\"A\"}",
        "{\"key\":\"a\",\"type\":\"select\",\"label\":\"A\",\"options\":[\"x\",{\"value\":\"y\"}]}",
        "{\"key\":\"a\",\"type\":\"multiselect\",\"label\":\"A\",\"options\":[\"x\",\"y\"],"
        "\"validation\":{\"minItems\":1,\"maxItems\":2}}",
        "{\"key\":\"a\",\"type\":\"rating\",\"label\":\"A\",\"validation\":{\"maximum\":10}}",
        "{\"key\":\"a\",\"type\":\"hidden\"}",
    };
    for (unsigned i = 0; i < sizeof(defs) / sizeof(defs[0]); i++) {
        fs_error *e;
        json_object *f = parse(p, defs[i], &e);
        if (!f)
            fail_msg("definition %u refused", i);
        assert_string_equal(json_object_get_string(fs_json_get(f, "type")),
                            fs_field_type_name((fs_field_type)i));
        const char *members[] = {"id",          "key",       "type",        "label",
                                 "description", "required",  "placeholder", "options",
                                 "validation",  "visibleIf", "position"};
        for (unsigned m = 0; m < 11; m++)
            assert_true(json_object_object_get_ex(f, members[m], NULL));
    }
    assert_int_equal(fs_field_type_of("colour"), -1);
}

static void normalised(void **state) {
    apr_pool_t *p = *state;
    fs_error *e;
    json_object *f = parse(p,
                           "{\"key\":\"plan\",\"type\":\"select\",\"label\":\"Plan\","
                           "\"options\":[\"free\",{\"value\":\"pro\",\"label\":\"Pro\"}],"
                           "\"id\":\"ignored\",\"position\":7}",
                           &e);
    assert_non_null(f);
    assert_string_equal(fs_json_str(p, f),
                        "{\"id\":\"fld_X\",\"key\":\"plan\",\"type\":\"select\",\"label\":\"Plan\","
                        "\"description\":null,\"required\":false,\"placeholder\":null,"
                        "\"options\":[{\"value\":\"free\",\"label\":\"free\"},{\"value\":\"pro\","
                        "\"label\":\"Pro\"}],\"validation\":{},\"visibleIf\":null,\"position\":0}");
    f = parse(p, "{\"key\":\"ref\",\"type\":\"hidden\"}", &e);
    assert_string_equal(json_object_get_string(fs_json_get(f, "label")), "ref");
    f = parse(p, "{\"key\":\"r\",\"type\":\"rating\",\"label\":\"R\"}", &e);
    assert_int_equal(json_object_get_int(fs_json_get(fs_json_get(f, "validation"), "maximum")), 5);
    /* unicode is kept byte for byte: NFC and NFD are different values */
    f = parse(p,
              "{\"key\":\"u\",\"type\":\"select\",\"label\":\"\xe2\x9c\x93\","
              "\"options\":[\"caf\xc3\xa9\",\"cafe\xcc\x81\"]}",
              &e);
    assert_non_null(f);
    assert_string_equal(json_object_get_string(fs_json_get(
                            json_object_array_get_idx(fs_json_get(f, "options"), 1), "value")),
                        "cafe\xcc\x81");
}

static void contradictions(void **state) {
    apr_pool_t *p = *state;
    fs_error *e;
    assert_null(parse(p,
                      "{\"key\":\"a\",\"type\":\"text\",\"label\":\"A\",\"validation\":{"
                      "\"minLength\":5,\"maxLength\":2}}",
                      &e));
    assert_code(e, "/fields/3/validation/minLength", "maximum");
    assert_null(parse(p,
                      "{\"key\":\"a\",\"type\":\"number\",\"label\":\"A\",\"validation\":{"
                      "\"minimum\":5,\"maximum\":2.5}}",
                      &e));
    assert_code(e, "/fields/3/validation/minimum", "maximum");
    assert_null(parse(p,
                      "{\"key\":\"a\",\"type\":\"select\",\"label\":\"A\",\"options\":[\"x\",\"y\","
                      "{\"value\":\"x\"}]}",
                      &e));
    assert_code(e, "/fields/3/options/2/value", "unique");
    assert_null(parse(
        p, "{\"key\":\"a\",\"type\":\"select\",\"label\":\"A\",\"options\":[\"x\",\"x\"]}", &e));
    assert_code(e, "/fields/3/options/1", "unique");
    assert_null(parse(p, "{\"key\":\"a\",\"type\":\"select\",\"label\":\"A\"}", &e));
    assert_code(e, "/fields/3/options", "required");
    assert_null(parse(p,
                      "{\"key\":\"a\",\"type\":\"multiselect\",\"label\":\"A\",\"options\":[\"x\"],"
                      "\"validation\":{\"minItems\":2}}",
                      &e));
    assert_code(e, "/fields/3/validation/minItems", "maximum");
    assert_null(parse(p,
                      "{\"key\":\"a\",\"type\":\"multiselect\",\"label\":\"A\",\"options\":[\"x\","
                      "\"y\"],\"validation\":{\"minItems\":2,\"maxItems\":1}}",
                      &e));
    assert_code(e, "/fields/3/validation/minItems", "maximum");
    assert_null(parse(p,
                      "{\"key\":\"a\",\"type\":\"multiselect\",\"label\":\"A\",\"required\":true,"
                      "\"options\":[\"x\"],\"validation\":{\"maxItems\":0}}",
                      &e));
    assert_code(e, "/fields/3/validation/maxItems", "minimum");
    assert_null(parse(p,
                      "{\"key\":\"a\",\"type\":\"text\",\"label\":\"A\",\"required\":true,"
                      "\"validation\":{\"maxLength\":0}}",
                      &e));
    assert_code(e, "/fields/3/validation/maxLength", "minimum");
    /* above a format's ceiling: no valid answer is that long */
    assert_null(parse(p,
                      "{\"key\":\"a\",\"type\":\"email\",\"label\":\"A\","
                      "\"validation\":{\"maxLength\":255}}",
                      &e));
    assert_code(e, "/fields/3/validation/maxLength", "maximum");
    assert_null(parse(p,
                      "{\"key\":\"a\",\"type\":\"url\",\"label\":\"A\","
                      "\"validation\":{\"maxLength\":2001}}",
                      &e));
    assert_code(e, "/fields/3/validation/maxLength", "maximum");
    assert_non_null(parse(p,
                          "{\"key\":\"a\",\"type\":\"textarea\",\"label\":\"A\","
                          "\"validation\":{\"maxLength\":100000}}",
                          &e));
    assert_null(parse(
        p, "{\"key\":\"a\",\"type\":\"text\",\"label\":\"A\",\"validation\":{\"pattern\":\"(\"}}",
        &e));
    assert_code(e, "/fields/3/validation/pattern", "pattern");
    assert_null(parse(p,
                      "{\"key\":\"a\",\"type\":\"text\",\"label\":\"A\",\"validation\":{"
                      "\"pattern\":\"^(a+)+$\"}}",
                      &e));
    assert_code(e, "/fields/3/validation/pattern", "pattern");
    assert_null(parse(
        p, "{\"key\":\"a\",\"type\":\"rating\",\"label\":\"A\",\"validation\":{\"maximum\":2}}",
        &e));
    assert_code(e, "/fields/3/validation/maximum", "minimum");
    assert_null(parse(
        p, "{\"key\":\"a\",\"type\":\"rating\",\"label\":\"A\",\"validation\":{\"minimum\":1}}",
        &e));
    assert_code(e, "/fields/3/validation/minimum", "unknown");
    assert_null(parse(
        p, "{\"key\":\"a\",\"type\":\"integer\",\"label\":\"A\",\"validation\":{\"minimum\":0.5}}",
        &e));
    assert_code(e, "/fields/3/validation/minimum", "type");
    assert_null(parse(p,
                      "{\"key\":\"a\",\"type\":\"integer\",\"label\":\"A\",\"validation\":{"
                      "\"maximum\":9007199254740992}}",
                      &e));
    assert_code(e, "/fields/3/validation/maximum", "maximum");
    assert_null(parse(p,
                      "{\"key\":\"a\",\"type\":\"boolean\",\"label\":\"A\",\"validation\":{"
                      "\"minimum\":\"2020-01-01\"}}",
                      &e));
    assert_code(e, "/fields/3/validation/minimum", "unknown");
    assert_null(
        parse(p, "{\"key\":\"a\",\"type\":\"text\",\"label\":\"A\",\"options\":[\"x\"]}", &e));
    assert_code(e, "/fields/3/options", "unknown");
    assert_null(
        parse(p, "{\"key\":\"a\",\"type\":\"boolean\",\"label\":\"A\",\"placeholder\":\"x\"}", &e));
    assert_code(e, "/fields/3/placeholder", "unknown");
    assert_null(parse(p,
                      "{\"key\":\"a\",\"type\":\"text\",\"label\":\"A\",\"visibleIf\":{\"field\":"
                      "\"b\",\"equals\":1,\"in\":[1]}}",
                      &e));
    assert_code(e, "/fields/3/visibleIf", "required");
    assert_null(parse(
        p, "{\"key\":\"a\",\"type\":\"text\",\"label\":\"A\",\"visibleIf\":{\"equals\":[1]}}", &e));
    assert_code(e, "/fields/3/visibleIf/field", "required");
    assert_code(e, "/fields/3/visibleIf/equals", "type");
}

static void member_errors(void **state) {
    apr_pool_t *p = *state;
    fs_error *e;
    assert_null(parse(p,
                      "{\"key\":\"Bad\",\"type\":\"colour\",\"label\":\"\",\"required\":1,"
                      "\"x/y\":1,\"description\":5,\"validation\":{\"maxlength\":1}}",
                      &e));
    assert_code(e, "/fields/3/key", "pattern");
    assert_code(e, "/fields/3/type", "enum");
    assert_code(e, "/fields/3/label", "minLength");
    assert_code(e, "/fields/3/required", "type");
    assert_code(e, "/fields/3/x~1y", "unknown");
    assert_code(e, "/fields/3/description", "type");
    assert_null(parse(p, "{}", &e));
    assert_code(e, "/fields/3/key", "required");
    assert_code(e, "/fields/3/type", "required");
    assert_code(e, "/fields/3/label", "required");
    assert_null(parse(p, "[]", &e));
    assert_code(e, "/fields/3", "type");
    /* 201 characters of label: maxLength; 200 emoji: fine */
    char *lbl = apr_palloc(p, 202);
    memset(lbl, 'x', 201);
    lbl[201] = '\0';
    assert_null(
        parse(p, apr_psprintf(p, "{\"key\":\"a\",\"type\":\"text\",\"label\":\"%s\"}", lbl), &e));
    assert_code(e, "/fields/3/label", "maxLength");
    char *emoji = "";
    for (int i = 0; i < 200; i++)
        emoji = apr_pstrcat(p, emoji, "\xf0\x9f\x98\x80", NULL);
    assert_non_null(
        parse(p, apr_psprintf(p, "{\"key\":\"a\",\"type\":\"text\",\"label\":\"%s\"}", emoji), &e));
    assert_null(parse(p, "{\"key\":\"a\",\"type\":\"text\",\"label\":\"a\\u0007b\"}", &e));
    assert_code(e, "/fields/3/label", "pattern");
    /* 201 options */
    char *opts = "\"o0\"";
    for (int i = 1; i < 201; i++)
        opts = apr_psprintf(p, "%s,\"o%d\"", opts, i);
    assert_null(
        parse(p,
              apr_psprintf(
                  p, "{\"key\":\"a\",\"type\":\"select\",\"label\":\"A\",\"options\":[%s]}", opts),
              &e));
    assert_code(e, "/fields/3/options", "maxItems");
    assert_null(parse(p, "{\"key\":\"a\",\"type\":\"select\",\"label\":\"A\",\"options\":[]}", &e));
    assert_code(e, "/fields/3/options", "minItems");
    assert_null(parse(p,
                      "{\"key\":\"a\",\"type\":\"select\",\"label\":\"A\",\"options\":[{\"value\":"
                      "\"\"},{\"value\":\"x\",\"colour\":1},3]}",
                      &e));
    assert_code(e, "/fields/3/options/0/value", "minLength");
    assert_code(e, "/fields/3/options/1/colour", "unknown");
    assert_code(e, "/fields/3/options/2", "type");
    /* keys */
    assert_true(fs_field_key_valid("a"));
    assert_true(fs_field_key_valid("a_1"));
    assert_false(fs_field_key_valid("1a"));
    assert_false(fs_field_key_valid("_a"));
    assert_false(fs_field_key_valid("aB"));
    assert_false(fs_field_key_valid(""));
    char key[66];
    memset(key, 'a', 65);
    key[65] = '\0';
    assert_false(fs_field_key_valid(key));
    key[64] = '\0';
    assert_true(fs_field_key_valid(key));
}

/* A list from an array of definitions (all must parse). */
static json_object *list_of(apr_pool_t *p, const char *defs) {
    json_object *arr = J(p, defs), *list = fs_json_own(p, json_object_new_array());
    fs_error *e = fs_error_validation(p);
    for (size_t i = 0; i < json_object_array_length(arr); i++) {
        json_object *f = fs_field_parse(p, json_object_array_get_idx(arr, i), "fld_X", "", e);
        if (!f)
            fail_msg("definition %u refused", (unsigned)i);
        json_object_array_add(list, f);
    }
    return list;
}

static fs_error *check(apr_pool_t *p, json_object *list) {
    static const char *const ptrs[] = {"/fields/0", "/fields/1", "/fields/2", "/fields/3"};
    fs_error *e = fs_error_validation(p);
    int ok = fs_fields_check(p, list, ptrs, "", e);
    assert_int_equal(ok, e->errors == NULL);
    return e;
}

static void list_rules(void **state) {
    apr_pool_t *p = *state;
    fs_error *e = check(p, list_of(p, "[{\"key\":\"a\",\"type\":\"text\",\"label\":\"A\"},"
                                      "{\"key\":\"a\",\"type\":\"text\",\"label\":\"B\"}]"));
    assert_code(e, "/fields/1/key", "unique");
    e = check(p, list_of(p, "[{\"key\":\"a\",\"type\":\"text\",\"label\":\"A\",\"visibleIf\":{"
                            "\"field\":\"a\",\"equals\":\"x\"}}]"));
    assert_code(e, "/fields/0/visibleIf/field", "enum");
    e = check(p, list_of(p, "[{\"key\":\"a\",\"type\":\"text\",\"label\":\"A\",\"visibleIf\":{"
                            "\"field\":\"zz\",\"equals\":\"x\"}}]"));
    assert_code(e, "/fields/0/visibleIf/field", "enum");
    e = check(p,
              list_of(p, "[{\"key\":\"s\",\"type\":\"select\",\"label\":\"S\",\"options\":[\"x\"]},"
                         "{\"key\":\"b\",\"type\":\"boolean\",\"label\":\"B\"},"
                         "{\"key\":\"c\",\"type\":\"text\",\"label\":\"C\",\"visibleIf\":{"
                         "\"field\":\"s\",\"in\":[\"x\",\"y\"]}},"
                         "{\"key\":\"d\",\"type\":\"text\",\"label\":\"D\",\"visibleIf\":{"
                         "\"field\":\"b\",\"equals\":\"true\"}}]"));
    assert_code(e, "/fields/2/visibleIf/in/1", "type");
    assert_code(e, "/fields/3/visibleIf/equals", "type");
    e = check(
        p,
        list_of(p, "[{\"key\":\"m\",\"type\":\"multiselect\",\"label\":\"M\",\"options\":[\"x\"]},"
                   "{\"key\":\"c\",\"type\":\"text\",\"label\":\"C\",\"visibleIf\":{\"field\":"
                   "\"m\",\"equals\":\"x\"}}]"));
    assert_code(e, "/fields/1/visibleIf/field", "enum");
    e = check(p, list_of(p, "[{\"key\":\"r\",\"type\":\"rating\",\"label\":\"R\"},"
                            "{\"key\":\"c\",\"type\":\"text\",\"label\":\"C\",\"visibleIf\":{"
                            "\"field\":\"r\",\"in\":[1,5,6]}}]"));
    assert_code(e, "/fields/1/visibleIf/in/2", "type");
    e = check(p, list_of(p, "[{\"key\":\"a\",\"type\":\"text\",\"label\":\"A\",\"visibleIf\":{"
                            "\"field\":\"b\",\"equals\":\"x\"}},"
                            "{\"key\":\"b\",\"type\":\"text\",\"label\":\"B\",\"visibleIf\":{"
                            "\"field\":\"c\",\"equals\":\"x\"}},"
                            "{\"key\":\"c\",\"type\":\"text\",\"label\":\"C\",\"visibleIf\":{"
                            "\"field\":\"a\",\"equals\":\"x\"}}]"));
    assert_non_null(e->errors);
    assert_non_null(strstr(APR_ARRAY_IDX(e->errors, 0, fs_field_error).detail, "cycle"));
    /* fine, and positions renumbered */
    json_object *good =
        list_of(p, "[{\"key\":\"s\",\"type\":\"select\",\"label\":\"S\",\"options\":[\"x\",\"y\"]},"
                   "{\"key\":\"n\",\"type\":\"number\",\"label\":\"N\"},"
                   "{\"key\":\"c\",\"type\":\"text\",\"label\":\"C\",\"visibleIf\":{\"field\":"
                   "\"s\",\"in\":[\"x\",\"y\"]}},"
                   "{\"key\":\"d\",\"type\":\"text\",\"label\":\"D\",\"visibleIf\":{\"field\":"
                   "\"n\",\"equals\":2.5}}]");
    e = check(p, good);
    assert_null(e->errors);
    assert_int_equal(
        json_object_get_int(fs_json_get(json_object_array_get_idx(good, 3), "position")), 3);
    /* errors about fields the request did not send go to the fallback */
    json_object *two = list_of(p, "[{\"key\":\"a\",\"type\":\"text\",\"label\":\"A\",\"visibleIf\":"
                                  "{\"field\":\"gone\",\"equals\":\"x\"}}]");
    e = fs_error_validation(p);
    const char *none[] = {NULL};
    assert_false(fs_fields_check(p, two, none, "/key", e));
    assert_code(e, "/key", "enum");
}

static void merge_patch(void **state) {
    apr_pool_t *p = *state;
    json_object *t = J(p, "{\"a\":\"b\",\"c\":{\"d\":\"e\",\"f\":\"g\"}}");
    json_object *m = fs_json_own(p, fs_merge_patch(t, J(p, "{\"a\":\"z\",\"c\":{\"f\":null}}")));
    assert_string_equal(fs_json_str(p, m), "{\"a\":\"z\",\"c\":{\"d\":\"e\"}}");
    assert_string_equal(fs_json_str(p, t), "{\"a\":\"b\",\"c\":{\"d\":\"e\",\"f\":\"g\"}}");
    m = fs_json_own(p, fs_merge_patch(t, J(p, "{\"c\":[1]}")));
    assert_string_equal(fs_json_str(p, m), "{\"a\":\"b\",\"c\":[1]}");
    m = fs_json_own(p, fs_merge_patch(J(p, "[1]"), J(p, "{\"x\":{\"y\":null,\"z\":1}}")));
    assert_string_equal(fs_json_str(p, m), "{\"x\":{\"z\":1}}");
}

/* fs_fields_parse: the list a POST /v1/forms or PUT .../fields sends. */
static void fields_parse(void **state) {
    apr_pool_t *p = *state;
    fs_error *e = fs_error_validation(p);
    assert_null(fs_fields_parse(p, J(p, "{\"key\":\"a\"}"), "/fields", NULL, e));
    assert_code(e, "/fields", "type");

    /* new fields get fresh ids; a sent id is ignored without old fields */
    e = fs_error_validation(p);
    json_object *l = fs_fields_parse(
        p,
        J(p, "[{\"id\":\"fld_mine\",\"key\":\"a\",\"type\":\"text\",\"label\":\"A\"},"
             "{\"key\":\"b\",\"type\":\"integer\",\"label\":\"B\"}]"),
        "/fields", NULL, e);
    assert_non_null(l);
    assert_null(e->errors);
    assert_int_equal(json_object_array_length(l), 2);
    const char *id0 = json_object_get_string(fs_json_get(json_object_array_get_idx(l, 0), "id"));
    const char *id1 = json_object_get_string(fs_json_get(json_object_array_get_idx(l, 1), "id"));
    assert_true(fs_id_valid(id0, "fld_") && fs_id_valid(id1, "fld_"));
    assert_string_not_equal(id0, "fld_mine");
    assert_string_not_equal(id0, id1);
    assert_int_equal(json_object_get_int(fs_json_get(json_object_array_get_idx(l, 1), "position")),
                     1);

    /* PUT: ids of the form's fields are kept; unknown and repeated ids refused */
    json_object *old = J(p, "[{\"id\":\"fld_old\",\"key\":\"a\",\"type\":\"text\"}]");
    e = fs_error_validation(p);
    l = fs_fields_parse(
        p, J(p, "[{\"id\":\"fld_old\",\"key\":\"x\",\"type\":\"text\",\"label\":\"X\"}]"),
        "/fields", old, e);
    assert_non_null(l);
    assert_string_equal(json_object_get_string(fs_json_get(json_object_array_get_idx(l, 0), "id")),
                        "fld_old");
    e = fs_error_validation(p);
    assert_null(fs_fields_parse(
        p,
        J(p, "[{\"id\":\"fld_old\",\"key\":\"x\",\"type\":\"text\",\"label\":\"X\"},"
             "{\"id\":\"fld_old\",\"key\":\"y\",\"type\":\"text\",\"label\":\"Y\"},"
             "{\"id\":\"fld_nope\",\"key\":\"z\",\"type\":\"text\",\"label\":\"Z\"}]"),
        "/fields", old, e));
    assert_code(e, "/fields/1/id", "unique");
    assert_code(e, "/fields/2/id", "enum");

    /* every item's own errors, then the rules between items */
    e = fs_error_validation(p);
    assert_null(fs_fields_parse(
        p, J(p, "[{\"key\":\"a\",\"type\":\"colour\",\"label\":\"A\"},{\"key\":\"B\"}]"), "/fields",
        NULL, e));
    assert_non_null(code_at(e, "/fields/0/type"));
    assert_non_null(code_at(e, "/fields/1/key"));
    e = fs_error_validation(p);
    assert_null(fs_fields_parse(p,
                                J(p, "[{\"key\":\"a\",\"type\":\"text\",\"label\":\"A\"},"
                                     "{\"key\":\"a\",\"type\":\"text\",\"label\":\"A\"}]"),
                                "/fields", NULL, e));
    assert_non_null(e->errors);
}

static const struct CMUnitTest tests[] = {FS_TEST(every_type_parses), FS_TEST(normalised),
                                          FS_TEST(contradictions),    FS_TEST(member_errors),
                                          FS_TEST(list_rules),        FS_TEST(merge_patch),
                                          FS_TEST(fields_parse)};
FS_TEST_MAIN(tests)
