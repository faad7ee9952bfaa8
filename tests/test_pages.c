/* fs_pages and the page fields: definitions (fs_field), the pages of a
 * fieldset, the steps' merge and checks, the sealed state, the page's
 * HTML. */
#include "fs_field.h"
#include "fs_fieldset.h"
#include "fs_html.h"
#include "fs_json.h"
#include "fs_pages.h"
#include "fs_schema.h"
#include "fs_test.h"
#include "fs_validate.h"

#include <apr_strings.h>

static const char FIELDS[] =
    "[{\"key\":\"intro\",\"type\":\"page\",\"label\":\"One\",\"description\":\"D1\"},"
    "{\"key\":\"name\",\"type\":\"text\",\"label\":\"Name\",\"required\":true},"
    "{\"key\":\"member\",\"type\":\"boolean\",\"label\":\"Member\"},"
    "{\"key\":\"two\",\"type\":\"page\",\"label\":\"Two\"},"
    "{\"key\":\"num\",\"type\":\"integer\",\"label\":\"Number\",\"required\":true,"
    "\"visibleIf\":{\"field\":\"member\",\"equals\":true}},"
    "{\"key\":\"src\",\"type\":\"hidden\"},"
    "{\"key\":\"three\",\"type\":\"page\",\"label\":\"Three\"},"
    "{\"key\":\"mail\",\"type\":\"email\",\"label\":\"Mail\",\"required\":true},"
    "{\"key\":\"empty\",\"type\":\"page\",\"label\":\"Empty\"}]";

static fs_fieldset *paged(apr_pool_t *p) {
    return fs_fieldset_from_json(p, fs_json_parse_trusted(p, FIELDS));
}

static json_object *obj(apr_pool_t *p, const char *s) {
    return fs_json_parse_trusted(p, s);
}

static void definitions(void **state) {
    apr_pool_t *p = *state;
    fs_error *e = fs_error_validation(p);
    assert_non_null(fs_json_own(
        p, fs_field_parse(
               p, obj(p, "{\"key\":\"p\",\"type\":\"page\",\"label\":\"P\",\"required\":false}"),
               NULL, "", e)));
    assert_null(e->errors);
    static const char *const bad[][2] = {
        {"{\"key\":\"p\",\"type\":\"page\",\"label\":\"P\",\"required\":true}", "/required"},
        {"{\"key\":\"p\",\"type\":\"page\",\"label\":\"P\",\"options\":[\"a\"]}", "/options"},
        {"{\"key\":\"p\",\"type\":\"page\",\"label\":\"P\",\"placeholder\":\"x\"}", "/placeholder"},
        {"{\"key\":\"p\",\"type\":\"page\",\"label\":\"P\",\"validation\":{\"maxLength\":1}}",
         "/validation/maxLength"},
        {"{\"key\":\"p\",\"type\":\"page\",\"label\":\"P\",\"visibleIf\":{\"field\":\"a\","
         "\"equals\":\"x\"}}",
         "/visibleIf"},
        {"{\"key\":\"p\",\"type\":\"page\"}", "/label"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        e = fs_error_validation(p);
        assert_null(fs_field_parse(p, obj(p, bad[i][0]), NULL, "", e));
        assert_non_null(e->errors);
        assert_string_equal(APR_ARRAY_IDX(e->errors, 0, fs_field_error).pointer, bad[i][1]);
    }
    /* a file field before a page; a question depending on a page */
    e = fs_error_validation(p);
    assert_null(fs_fields_parse(p,
                                obj(p, "[{\"key\":\"f\",\"type\":\"file\",\"label\":\"F\"},"
                                       "{\"key\":\"p\",\"type\":\"page\",\"label\":\"P\"}]"),
                                "/fields", NULL, e));
    assert_string_equal(APR_ARRAY_IDX(e->errors, 0, fs_field_error).pointer, "/fields/1/type");
    e = fs_error_validation(p);
    assert_null(fs_fields_parse(p,
                                obj(p, "[{\"key\":\"p\",\"type\":\"page\",\"label\":\"P\"},"
                                       "{\"key\":\"q\",\"type\":\"text\",\"label\":\"Q\","
                                       "\"visibleIf\":{\"field\":\"p\",\"equals\":\"x\"}}]"),
                                "/fields", NULL, e));
    assert_string_equal(APR_ARRAY_IDX(e->errors, 0, fs_field_error).pointer,
                        "/fields/1/visibleIf/field");
    /* a file on the last page is fine */
    e = fs_error_validation(p);
    assert_non_null(fs_fields_parse(p,
                                    obj(p, "[{\"key\":\"p\",\"type\":\"page\",\"label\":\"P\"},"
                                           "{\"key\":\"f\",\"type\":\"file\",\"label\":\"F\"}]"),
                                    "/fields", NULL, e));
}

static void pages_of_a_fieldset(void **state) {
    apr_pool_t *p = *state;
    fs_fieldset *fs = paged(p);
    assert_int_equal(fs->n, 5);      /* name member num src mail: no page field */
    assert_int_equal(fs->npages, 3); /* the empty last page is none */
    assert_string_equal(fs->pages[0].title, "One");
    assert_string_equal(fs->pages[0].description, "D1");
    assert_int_equal(fs->pages[1].count, 2);
    assert_string_equal(fs->pages[2].key, "three");
    assert_int_equal(fs_pages_of(fs, fs_fieldset_find(fs, "src")), 0); /* hidden: the first */
    assert_int_equal(fs_pages_of(fs, fs_fieldset_find(fs, "mail")), 2);
    /* the schema has no page property */
    json_object *props = fs_json_get(fs_schema_for(p, fs, NULL, NULL), "properties");
    assert_null(fs_json_get(props, "intro"));
    assert_non_null(fs_json_get(props, "mail"));
    /* a form without page fields is one page of everything */
    fs_fieldset *one =
        fs_fieldset_from_json(p, obj(p, "[{\"key\":\"a\",\"type\":\"text\",\"label\":\"A\"}]"));
    assert_int_equal(one->npages, 1);
    assert_int_equal(one->pages[0].count, 1);
    assert_null(one->pages[0].title);
}

static void steps(void **state) {
    apr_pool_t *p = *state;
    fs_fieldset *fs = paged(p);
    /* page 1 posted: the unticked box is false; page 2 then has nothing to
     * show (num applies to members only): Next goes to page 3 */
    json_object *a = fs_pages_merge(p, fs, 0, NULL, obj(p, "{\"name\":\"Ada\",\"src\":\"x\"}"));
    assert_string_equal(fs_json_str(p, a), "{\"name\":\"Ada\",\"src\":\"x\",\"member\":false}");
    assert_int_equal(fs_pages_step(fs, 0, 1, a), 2);
    assert_int_equal(fs_pages_step(fs, 2, -1, a), 0);
    assert_int_equal(fs_pages_step(fs, 2, 1, a), -1);
    /* a member: page 2 shows the number, without its condition's sentence */
    json_object *m = fs_pages_merge(p, fs, 0, a, obj(p, "{\"name\":\"Ada\",\"member\":true}"));
    assert_int_equal(fs_pages_step(fs, 0, 1, m), 1);
    assert_true(fs_pages_decided(fs, 1, fs_fieldset_find(fs, "num")));
    /* page 2's errors only; the first page with an error */
    fs_error *e = fs_validate(p, fs, m);
    assert_non_null(e);
    fs_error *on = fs_pages_errors_on(p, fs, 1, e);
    assert_int_equal(on->errors->nelts, 1);
    assert_string_equal(APR_ARRAY_IDX(on->errors, 0, fs_field_error).pointer, "/num");
    assert_null(fs_pages_errors_on(p, fs, 0, e));
    assert_int_equal(fs_pages_first_error(fs, e), 1);
    /* members of other pages posted are ignored; this page's replaced */
    json_object *m2 =
        fs_pages_merge(p, fs, 1, m, obj(p, "{\"num\":3,\"name\":\"Eve\",\"mail\":\"x\"}"));
    assert_string_equal(json_object_get_string(fs_json_get(m2, "name")), "Ada");
    assert_null(fs_json_get(m2, "mail"));
    /* not a member any more: the number typed before is dropped */
    json_object *m3 = fs_pages_merge(p, fs, 0, m2, obj(p, "{\"name\":\"Ada\"}"));
    fs_pages_drop_inapplicable(fs, 2, m3);
    assert_false(json_object_object_get_ex(m3, "num", NULL));
    /* the same answers in any order: the same text */
    assert_string_equal(fs_pages_answers_text(p, obj(p, "{\"b\":[1,\"x\"],\"a\":true}")),
                        fs_pages_answers_text(p, obj(p, "{\"a\":true,\"b\":[1,\"x\"]}")));
    assert_string_equal(fs_pages_answers_text(p, obj(p, "{}")), "{}");
    assert_int_equal(fs_nav_of("next"), FS_NAV_NEXT);
    assert_int_equal(fs_nav_of("jump"), FS_NAV_BAD);
    assert_int_equal(fs_nav_of(NULL), FS_NAV_NONE);
}

static void state_seal(void **state) {
    apr_pool_t *p = *state;
    const unsigned char pepper[] = "0123456789abcdef0123456789abcdef";
    json_object *a = obj(p, "{\"name\":\"Ada Lovelace\"}");
    fs_pagestate st = {"7", 1000, 1, 1, a, NULL}, out;
    const char *s;
    assert_int_equal(fs_pagestate_seal(p, pepper, 32, "frm_1", "", &st, &s), FS_PAGESTATE_OK);
    assert_null(strstr(s, "Ada")); /* encrypted, not merely signed */
    assert_int_equal(fs_pagestate_open(p, pepper, 32, "frm_1", "", s, 999, &out), FS_PAGESTATE_OK);
    assert_string_equal(out.version, "7");
    assert_int_equal(out.page, 1);
    assert_true(out.spam);
    assert_string_equal(fs_json_str(p, out.answers), "{\"name\":\"Ada Lovelace\"}");
    /* expired, another form, another link, another pepper, changed, cut */
    assert_int_equal(fs_pagestate_open(p, pepper, 32, "frm_1", "", s, 1001, &out),
                     FS_PAGESTATE_EXPIRED);
    assert_int_equal(fs_pagestate_open(p, pepper, 32, "frm_2", "", s, 999, &out), FS_PAGESTATE_BAD);
    assert_int_equal(fs_pagestate_open(p, pepper, 32, "frm_1", "lnk", s, 999, &out),
                     FS_PAGESTATE_BAD);
    assert_int_equal(fs_pagestate_open(p, pepper, 31, "frm_1", "", s, 999, &out), FS_PAGESTATE_BAD);
    char *t = apr_pstrdup(p, s);
    t[strlen(t) / 2] = t[strlen(t) / 2] == 'A' ? 'B' : 'A';
    assert_int_equal(fs_pagestate_open(p, pepper, 32, "frm_1", "", t, 999, &out), FS_PAGESTATE_BAD);
    assert_int_equal(
        fs_pagestate_open(p, pepper, 32, "frm_1", "", apr_pstrndup(p, s, 20), 999, &out),
        FS_PAGESTATE_BAD);
    assert_int_equal(fs_pagestate_open(p, pepper, 32, "frm_1", "", "", 999, &out),
                     FS_PAGESTATE_BAD);
    /* bounded: too many answers are not sealed */
    json_object *big = fs_json_own(p, json_object_new_object());
    char *x = apr_palloc(p, FS_PAGESTATE_PLAIN_MAX + 1);
    memset(x, 'x', FS_PAGESTATE_PLAIN_MAX);
    x[FS_PAGESTATE_PLAIN_MAX] = '\0';
    json_object_object_add(big, "t", json_object_new_string(x));
    fs_pagestate bs = {"7", 1000, 0, 0, big, NULL};
    assert_int_equal(fs_pagestate_seal(p, pepper, 32, "frm_1", "", &bs, &s),
                     FS_PAGESTATE_TOO_LARGE);
}

static void html_page(void **state) {
    apr_pool_t *p = *state;
    fs_fieldset *fs = paged(p);
    json_object *v = obj(p, "{\"name\":\"Ada\",\"member\":true}");
    fs_page pg = {"T",  "Form D", fs,   v,    NULL, "https://f.example/f/frm_1",
                  NULL, 1,        NULL, NULL, NULL, NULL,
                  0,    NULL,     NULL, NULL, 1,    1,
                  1,    "S<x",    NULL, NULL, NULL, 0,
                  NULL, NULL,     0,    0};
    const char *h = fs_html_form(p, &pg);
    assert_non_null(strstr(h, "<title>T (page.progress)</title>"));
    assert_non_null(strstr(h, "<h2 class=\"ptitle\">Two</h2>"));
    assert_null(strstr(h, "Form D")); /* the form's description on the first page only */
    assert_non_null(strstr(h, "name=\"num\""));
    assert_null(strstr(h, "name=\"name\""));
    assert_null(strstr(h, "name=\"src\""));   /* hidden fields travel with the first page */
    assert_null(strstr(h, "class=\"cond\"")); /* decided: no sentence */
    assert_non_null(strstr(h, "<input type=\"hidden\" name=\"_state\" value=\"S&lt;x\">"));
    assert_non_null(strstr(h, "<div class=\"nav\"><button type=\"submit\" name=\"_nav\" "
                              "value=\"next\">page.next</button><button type=\"submit\" "
                              "name=\"_nav\" value=\"back\" class=\"back\" formnovalidate>"));
    pg.has_next = 0;
    assert_non_null(strstr(fs_html_form(p, &pg), "value=\"submit\">page.submit</button>"));
}

static const struct CMUnitTest tests[] = {FS_TEST(definitions), FS_TEST(pages_of_a_fieldset),
                                          FS_TEST(steps), FS_TEST(state_seal), FS_TEST(html_page)};
FS_TEST_MAIN(tests)
