/* fs_error and fs_problem_render: the one error type and the one place it
 * becomes application/problem+json (RFC 9457). */
#include "fs_error.h"
#include "fs_json.h"
#include "fs_test.h"

#include <apr_strings.h>

#define BASE "https://forms.example/api"

/* Renders e and parses the result back; the object lives as long as p. */
static json_object *render(apr_pool_t *p, const fs_error *e, const char *instance) {
    char *text = fs_problem_render(p, e, BASE, instance);
    assert_non_null(text);
    json_object *o = fs_json_parse_trusted(p, text);
    assert_non_null(o);
    assert_true(json_object_is_type(o, json_type_object));
    return o;
}

static const char *str(json_object *o, const char *k) {
    json_object *v = fs_json_get(o, k);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static int num(json_object *o, const char *k) {
    json_object *v = fs_json_get(o, k);
    assert_non_null(v);
    assert_true(json_object_is_type(v, json_type_int));
    return json_object_get_int(v);
}

static int members(json_object *o) {
    return json_object_object_length(o);
}

static void the_standard_members(void **state) {
    apr_pool_t *p = *state;
    fs_error *e = fs_error_make(p, "not-found", "No form %s.", "frm_1");
    assert_int_equal(e->status, 404);
    json_object *o = render(p, e, "/api/v1/forms/frm_1");
    assert_string_equal(str(o, "type"), BASE "/problems/not-found");
    assert_string_equal(str(o, "title"), "Not found");
    assert_int_equal(num(o, "status"), 404);
    assert_string_equal(str(o, "detail"), "No form frm_1.");
    assert_string_equal(str(o, "instance"), "/api/v1/forms/frm_1");
    assert_int_equal(members(o), 5);
    /* '/' is not escaped (JSON_C_TO_STRING_NOSLASHESCAPE) */
    char *text = fs_problem_render(p, e, BASE, "/x");
    assert_non_null(strstr(text, "\"type\":\"https://forms.example/api/problems/not-found\""));
}

static void absent_members_are_left_out(void **state) {
    apr_pool_t *p = *state;
    json_object *o = render(p, fs_error_make(p, "conflict", NULL), NULL);
    assert_null(fs_json_get(o, "detail"));
    assert_null(fs_json_get(o, "instance"));
    assert_null(fs_json_get(o, "errors"));
    assert_null(fs_json_get(o, "retryAfter"));
    assert_int_equal(members(o), 3);
    assert_int_equal(num(o, "status"), 409);
}

static void field_errors_in_order(void **state) {
    apr_pool_t *p = *state;
    fs_error *e = fs_error_validation(p);
    fs_error_add(p, e, "/title", "required", "title is required.");
    fs_error_add(p, e, "/fields/2/type", "enum", "type must be one of %d kinds.", 12);
    json_object *o = render(p, e, "/api/v1/forms");
    assert_string_equal(str(o, "type"), BASE "/problems/validation-failed");
    assert_string_equal(str(o, "title"), "Validation failed");
    assert_int_equal(num(o, "status"), 422);
    assert_string_equal(str(o, "detail"), "One or more members are invalid; see errors.");
    json_object *errs = fs_json_get(o, "errors");
    assert_non_null(errs);
    assert_true(json_object_is_type(errs, json_type_array));
    assert_int_equal(json_object_array_length(errs), 2);
    json_object *a = json_object_array_get_idx(errs, 0), *b = json_object_array_get_idx(errs, 1);
    assert_string_equal(str(a, "pointer"), "/title");
    assert_string_equal(str(a, "code"), "required");
    assert_string_equal(str(a, "detail"), "title is required.");
    assert_int_equal(members(a), 3);
    assert_string_equal(str(b, "pointer"), "/fields/2/type");
    assert_string_equal(str(b, "code"), "enum");
    assert_string_equal(str(b, "detail"), "type must be one of 12 kinds.");
}

static void retry_after_for_429_and_503_only(void **state) {
    apr_pool_t *p = *state;
    fs_error *e = fs_error_make(p, "service-unavailable", "The database cannot be reached.");
    assert_int_equal(e->retry_after, 5); /* 503s carry one by default */
    json_object *o = render(p, e, NULL);
    assert_int_equal(num(o, "status"), 503);
    assert_int_equal(num(o, "retryAfter"), 5);
    e = fs_error_make(p, "rate-limited", NULL);
    assert_int_equal(e->retry_after, 0);
    assert_null(fs_json_get(render(p, e, NULL), "retryAfter"));
    e->retry_after = 42;
    assert_int_equal(num(render(p, e, NULL), "retryAfter"), 42);
    /* a 4xx other than 429 never says when to retry */
    e = fs_error_make(p, "conflict", NULL);
    e->retry_after = 7;
    assert_null(fs_json_get(render(p, e, NULL), "retryAfter"));
}

static void extra_members(void **state) {
    apr_pool_t *p = *state;
    fs_error *e = fs_error_make(p, "quota-exceeded", "No more forms.");
    fs_error_set_str(p, e, "quota", "forms");
    fs_error_set_int(p, e, "limit", 10);
    fs_error_set_int(p, e, "used", 10000000000LL);
    json_object *o = render(p, e, "/api/v1/forms");
    assert_int_equal(num(o, "status"), 403);
    assert_string_equal(str(o, "title"), "Quota exceeded");
    assert_string_equal(str(o, "quota"), "forms");
    assert_int_equal(num(o, "limit"), 10);
    json_object *used = fs_json_get(o, "used");
    assert_non_null(used);
    assert_true(json_object_get_int64(used) == 10000000000LL);
    assert_int_equal(members(o), 8);
    /* rendering twice gives the same text: extras are shared, not moved */
    assert_string_equal(fs_problem_render(p, e, BASE, "/x"), fs_problem_render(p, e, BASE, "/x"));
}

static void extras_cannot_replace_the_standard_members(void **state) {
    apr_pool_t *p = *state;
    fs_error *e = fs_error_make(p, "forbidden", "No.");
    fs_error_set_str(p, e, "type", "about:blank");
    fs_error_set_str(p, e, "title", "OK");
    fs_error_set_int(p, e, "status", 200);
    fs_error_set_str(p, e, "detail", "Yes.");
    fs_error_set_str(p, e, "instance", "/elsewhere");
    fs_error_set_str(p, e, "requiredScope", "forms:read");
    json_object *o = render(p, e, "/api/v1/x");
    assert_string_equal(str(o, "type"), BASE "/problems/forbidden");
    assert_string_equal(str(o, "title"), "Forbidden");
    assert_int_equal(num(o, "status"), 403);
    assert_string_equal(str(o, "detail"), "No.");
    assert_string_equal(str(o, "instance"), "/api/v1/x");
    assert_string_equal(str(o, "requiredScope"), "forms:read");
}

static void unknown_slugs_and_bare_statuses(void **state) {
    apr_pool_t *p = *state;
    /* an unknown slug is an internal error, never a made-up type */
    fs_error *e = fs_error_make(p, "no-such-slug", "x");
    assert_int_equal(e->status, 500);
    assert_non_null(e->cause); /* for the log: which slug was unknown */
    json_object *o = render(p, e, NULL);
    assert_string_equal(str(o, "type"), BASE "/problems/internal");
    assert_string_equal(str(o, "title"), "Internal server error");
    assert_int_equal(num(o, "status"), 500);
    /* a hand-made error with only a status gets its status's type */
    fs_error bare = {.status = 413};
    o = render(p, &bare, NULL);
    assert_string_equal(str(o, "type"), BASE "/problems/payload-too-large");
    assert_int_equal(num(o, "status"), 413);
    fs_error odd = {.status = 418, .slug = "teapot"};
    o = render(p, &odd, NULL);
    assert_string_equal(str(o, "type"), BASE "/problems/internal");
    assert_int_equal(num(o, "status"), 418); /* the status sent is kept */
}

static void the_cause_is_never_rendered(void **state) {
    apr_pool_t *p = *state;
    fs_error *e = fs_error_internal(p, "statement %s failed (%s)", "fs_form_get", "42P01");
    assert_int_equal(e->status, 500);
    assert_string_equal(e->cause, "statement fs_form_get failed (42P01)");
    char *text = fs_problem_render(p, e, BASE, "/api/v1/forms/frm_1");
    assert_null(strstr(text, "fs_form_get"));
    assert_null(strstr(text, "42P01"));
    json_object *o = render(p, e, "/api/v1/forms/frm_1");
    assert_string_equal(str(o, "type"), BASE "/problems/internal");
    assert_null(fs_json_get(o, "detail"));
    assert_null(fs_json_get(o, "cause"));
    assert_int_equal(members(o), 4);
    /* nor with a detail of its own */
    e->detail = "Something failed.";
    text = fs_problem_render(p, e, BASE, NULL);
    assert_null(strstr(text, "42P01"));
}

static void details_are_json_escaped(void **state) {
    apr_pool_t *p = *state;
    fs_error *e = fs_error_make(p, "malformed-request", "bad \"%s\"\n\t\\ </script>", "x\x01");
    fs_error_add(p, e, "/a~1b", "type", "\xc3\xa9t\xc3\xa9");
    json_object *o = render(p, e, "/api/f/\"q\"");
    assert_string_equal(str(o, "detail"), "bad \"x\x01\"\n\t\\ </script>");
    assert_string_equal(str(o, "instance"), "/api/f/\"q\"");
    json_object *it = json_object_array_get_idx(fs_json_get(o, "errors"), 0);
    assert_string_equal(str(it, "pointer"), "/a~1b");
    assert_string_equal(str(it, "detail"), "\xc3\xa9t\xc3\xa9");
}

static void every_catalogue_entry_renders(void **state) {
    apr_pool_t *p = *state;
    int n;
    const fs_problem_type *cat = fs_problem_catalogue(&n);
    assert_true(n >= 20);
    for (int i = 0; i < n; i++) {
        assert_true(cat[i].status >= 400 && cat[i].status <= 599);
        assert_true(cat[i].title && *cat[i].title && cat[i].about && *cat[i].about);
        for (int j = 0; j < i; j++)
            assert_string_not_equal(cat[i].slug, cat[j].slug);
        fs_error *e = fs_error_make(p, cat[i].slug, NULL);
        assert_int_equal(e->status, cat[i].status);
        json_object *o = render(p, e, NULL);
        assert_string_equal(str(o, "type"), apr_pstrcat(p, BASE "/problems/", cat[i].slug, NULL));
        assert_string_equal(str(o, "title"), cat[i].title);
        assert_int_equal(num(o, "status"), cat[i].status);
        assert_ptr_equal(fs_problem_lookup(cat[i].slug), &cat[i]);
    }
}

static const struct CMUnitTest tests[] = {
    FS_TEST(the_standard_members),
    FS_TEST(absent_members_are_left_out),
    FS_TEST(field_errors_in_order),
    FS_TEST(retry_after_for_429_and_503_only),
    FS_TEST(extra_members),
    FS_TEST(extras_cannot_replace_the_standard_members),
    FS_TEST(unknown_slugs_and_bare_statuses),
    FS_TEST(the_cause_is_never_rendered),
    FS_TEST(details_are_json_escaped),
    FS_TEST(every_catalogue_entry_renders),
};
FS_TEST_MAIN(tests)
