/* fs_notify: settings.notify and settings.confirmation, the answers as
 * text and the placeholders of the respondent's copy. */
#include "fs_test.h"

#include "fs_json.h"
#include "fs_notify.h"

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

/* settings.notify of text, as the parser leaves it in out */
static const char *N(apr_pool_t *p, const char *text, fs_error *e) {
    json_object *out = fs_json_own(p, json_object_new_object());
    fs_notify_settings_parse(p, J(p, text), "/settings", out, e);
    return fs_json_str(p, fs_json_get(out, "notify"));
}

static void notify_parse(void **state) {
    apr_pool_t *p = *state;
    fs_error *e = fs_error_validation(p);
    assert_string_equal(N(p, "{}", e), "null");
    assert_string_equal(N(p, "{\"notify\":null}", e), "null");
    assert_null(e->errors);
    assert_string_equal(N(p, "{\"notify\":{\"emails\":[\"Ops@Example.com\"]}}", e),
                        "{\"emails\":[\"Ops@Example.com\"],\"mode\":\"each\"}");
    assert_string_equal(N(p, "{\"notify\":{\"emails\":[\"a@b.org\"],\"mode\":\"hourly\"}}", e),
                        "{\"emails\":[\"a@b.org\"],\"mode\":\"hourly\"}");
    assert_null(e->errors);
    assert_string_equal(N(p, "{\"notify\":[\"a@b.org\"]}", e), "null");
    assert_string_equal(code_at(e, "/settings/notify"), "type");
    e = fs_error_validation(p);
    N(p, "{\"notify\":{\"emails\":[]}}", e);
    assert_string_equal(code_at(e, "/settings/notify/emails"), "minItems");
    e = fs_error_validation(p);
    N(p, "{\"notify\":{}}", e);
    assert_string_equal(code_at(e, "/settings/notify/emails"), "required");
    e = fs_error_validation(p);
    N(p,
      "{\"notify\":{\"emails\":[\"a@b.org\",\"x\",1,\"A@B.ORG\",\"c@d.org\\r\\nBcc: e@f.org\"],"
      "\"mode\":\"daily\",\"cc\":1}}",
      e);
    assert_string_equal(code_at(e, "/settings/notify/emails/1"), "format");
    assert_string_equal(code_at(e, "/settings/notify/emails/2"), "type");
    assert_string_equal(code_at(e, "/settings/notify/emails/3"), "unique");
    assert_string_equal(code_at(e, "/settings/notify/emails/4"), "format");
    assert_string_equal(code_at(e, "/settings/notify/mode"), "enum");
    assert_string_equal(code_at(e, "/settings/notify/cc"), "unknown");
    e = fs_error_validation(p);
    const char *eleven = "{\"notify\":{\"emails\":[\"a0@b.org\",\"a1@b.org\",\"a2@b.org\","
                         "\"a3@b.org\",\"a4@b.org\",\"a5@b.org\",\"a6@b.org\",\"a7@b.org\","
                         "\"a8@b.org\",\"a9@b.org\",\"a10@b.org\"]}}";
    N(p, eleven, e);
    assert_string_equal(code_at(e, "/settings/notify/emails"), "maxItems");
}

static const char *C(apr_pool_t *p, const char *text, fs_error *e) {
    json_object *out = fs_json_own(p, json_object_new_object());
    fs_confirmation_settings_parse(p, J(p, text), "/settings", out, e);
    return fs_json_str(p, fs_json_get(out, "confirmation"));
}

static void confirmation_parse(void **state) {
    apr_pool_t *p = *state;
    fs_error *e = fs_error_validation(p);
    assert_string_equal(C(p, "{\"confirmation\":null}", e), "null");
    assert_string_equal(
        C(p,
          "{\"confirmation\":{\"emailField\":\"email\",\"subject\":\"Thanks\",\"body\":\"Hi "
          "{{name}}\\n\"}}",
          e),
        "{\"emailField\":\"email\",\"subject\":\"Thanks\",\"body\":\"Hi {{name}}\\n\"}");
    assert_null(e->errors);
    C(p,
      "{\"confirmation\":{\"emailField\":\"E-mail\",\"subject\":\"a\\nBcc: x@y.org\","
      "\"body\":\"\"}}",
      e);
    assert_string_equal(code_at(e, "/settings/confirmation/emailField"), "pattern");
    assert_string_equal(code_at(e, "/settings/confirmation/subject"), "pattern");
    assert_string_equal(code_at(e, "/settings/confirmation/body"), "minLength");
    e = fs_error_validation(p);
    C(p, "{\"confirmation\":{}}", e);
    assert_string_equal(code_at(e, "/settings/confirmation/emailField"), "required");
    assert_string_equal(code_at(e, "/settings/confirmation/subject"), "required");
    assert_string_equal(code_at(e, "/settings/confirmation/body"), "required");
    e = fs_error_validation(p);
    C(p, "{\"confirmation\":true}", e);
    assert_string_equal(code_at(e, "/settings/confirmation"), "type");
}

#define FIELDS                                                                                     \
    "[{\"key\":\"name\",\"type\":\"text\",\"label\":\"Your name\",\"position\":0},"                \
    "{\"key\":\"email\",\"type\":\"email\",\"label\":\"E-mail\",\"position\":1},"                  \
    "{\"key\":\"size\",\"type\":\"select\",\"label\":\"Size\",\"position\":2,"                     \
    "\"options\":[{\"value\":\"s\",\"label\":\"Small\"},{\"value\":\"l\",\"label\":\"Large\"}]},"  \
    "{\"key\":\"tags\",\"type\":\"multiselect\",\"label\":\"Tags\",\"position\":3,"                \
    "\"options\":[{\"value\":\"a\",\"label\":\"Alpha\"},{\"value\":\"b\",\"label\":\"Beta\"}]},"   \
    "{\"key\":\"note\",\"type\":\"textarea\",\"label\":\"Note\",\"position\":4},"                  \
    "{\"key\":\"n\",\"type\":\"integer\",\"label\":\"N\",\"position\":5},"                         \
    "{\"key\":\"cv\",\"type\":\"file\",\"label\":\"CV\",\"position\":6}]"

static void fields_check(void **state) {
    apr_pool_t *p = *state;
    fs_error *e = fs_error_validation(p);
    json_object *fields = J(p, FIELDS);
    fs_confirmation_fields_check(p, J(p, "{\"confirmation\":{\"emailField\":\"email\"}}"), fields,
                                 e);
    fs_confirmation_fields_check(p, J(p, "{\"confirmation\":null}"), fields, e);
    fs_confirmation_fields_check(p, J(p, "{}"), fields, e);
    assert_null(e->errors);
    fs_confirmation_fields_check(p, J(p, "{\"confirmation\":{\"emailField\":\"name\"}}"), fields,
                                 e);
    assert_string_equal(code_at(e, "/settings/confirmation/emailField"), "enum");
    e = fs_error_validation(p);
    fs_confirmation_fields_check(p, J(p, "{\"confirmation\":{\"emailField\":\"gone\"}}"), fields,
                                 e);
    assert_string_equal(code_at(e, "/settings/confirmation/emailField"), "enum");
    assert_true(fs_notify_settings_mail(J(p, "{\"notify\":{\"emails\":[\"a@b.org\"]}}")));
    assert_true(fs_notify_settings_mail(J(p, "{\"confirmation\":{\"emailField\":\"email\"}}")));
    assert_false(fs_notify_settings_mail(J(p, "{\"notify\":null,\"confirmation\":null}")));
    assert_false(fs_notify_settings_mail(NULL));
}

static void answers_text(void **state) {
    apr_pool_t *p = *state;
    const fs_fieldset *fields = fs_fieldset_from_json(p, J(p, FIELDS));
    json_object *data = J(p, "{\"name\":\"Ann\",\"size\":\"l\",\"tags\":[\"a\",\"b\"],"
                             "\"note\":\"line 1\\nline 2\",\"n\":42,\"email\":null,"
                             "\"cv\":[{\"id\":\"fil_1\",\"name\":\"cv.pdf\",\"size\":3}]}");
    assert_string_equal(fs_notify_answers_text(p, fields, data),
                        "Your name:\n  Ann\n\nSize:\n  Large\n\nTags:\n  Alpha, Beta\n\n"
                        "Note:\n  line 1\n  line 2\n\nN:\n  42\n\nCV:\n  cv.pdf\n");
    assert_string_equal(fs_notify_answers_text(p, fields, J(p, "{}")), "(no answers)\n");
    assert_string_equal(fs_notify_answer(p, fields, data, "size"), "Large");
    assert_string_equal(fs_notify_answer(p, fields, data, "email"), "");
    assert_string_equal(fs_notify_answer(p, fields, data, "unknown"), "");
}

static void fill(void **state) {
    apr_pool_t *p = *state;
    const fs_fieldset *fields = fs_fieldset_from_json(p, J(p, FIELDS));
    json_object *data = J(p, "{\"name\":\"{{note}} <b>Ann</b>\",\"note\":\"secret\","
                             "\"size\":\"s\"}");
    /* answers are inserted as they are and never read again */
    assert_string_equal(fs_notify_fill(p, "Hi {{name}}, size {{ size }}.", fields, data),
                        "Hi {{note}} <b>Ann</b>, size Small.");
    /* unknown or unanswered keys are empty; anything else stays */
    assert_string_equal(fs_notify_fill(p, "[{{nope}}][{{tags}}]", fields, data), "[][]");
    assert_string_equal(fs_notify_fill(p, "{{ {{name} {{Name}} {{}} }}{{", fields, data),
                        "{{ {{name} {{Name}} {{}} }}{{");
    assert_string_equal(fs_notify_fill(p, "{{{name}}}", fields, data), "{{{note}} <b>Ann</b>}");
    assert_string_equal(fs_notify_fill(p, "", fields, data), "");
}

static void header_text(void **state) {
    apr_pool_t *p = *state;
    assert_string_equal(fs_notify_header_text(p, "a\r\nBcc: x", 100), "a  Bcc: x");
    /* cut on a character boundary: 'é' is two bytes */
    assert_string_equal(fs_notify_header_text(p, "ab\xc3\xa9", 3), "ab");
    assert_string_equal(fs_notify_header_text(p, NULL, 3), "");
}

static const struct CMUnitTest tests[] = {FS_TEST(notify_parse), FS_TEST(confirmation_parse),
                                          FS_TEST(fields_check), FS_TEST(answers_text),
                                          FS_TEST(fill),         FS_TEST(header_text)};
FS_TEST_MAIN(tests)
