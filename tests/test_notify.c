/* fs_notify: settings.notify and settings.confirmation, the answers as
 * text and the placeholders of the respondent's copy. */
#include "fs_test.h"

#include "fs_json.h"
#include "fs_notify.h"

#include <apr_strings.h>
#include <sys/resource.h>

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

static void text_cap(void **state) {
    apr_pool_t *p = *state;
    fs_notify_text t;
    fs_notify_text_init(&t, p, 5);
    assert_string_equal(fs_notify_text_done(&t), "");
    fs_notify_text_add(&t, "ab");
    fs_notify_text_add(&t, NULL);
    fs_notify_text_add(&t, "c\xc3\xa9"); /* 'é' would end at byte 5: kept */
    assert_int_equal(t.cut, 0);
    assert_string_equal(fs_notify_text_done(&t), "abc\xc3\xa9");
    fs_notify_text_init(&t, p, 4);
    fs_notify_text_add(&t, "abc\xc3\xa9"); /* cut before 'é', not inside it */
    fs_notify_text_add(&t, "more");
    assert_int_equal(t.cut, 1);
    assert_string_equal(fs_notify_text_done(&t), "abc" FS_MAIL_TEXT_CUT);
}

/* The largest peak resident set of the process so far, in KB. */
static long peak_kb(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* n fields k0..k(n-1) of type, as a form's fields */
static const char *many_fields(apr_pool_t *p, int n, const char *type) {
    apr_array_header_t *a = apr_array_make(p, n, sizeof(const char *));
    for (int i = 0; i < n; i++)
        APR_ARRAY_PUSH(a, const char *) = apr_psprintf(
            p, "%s{\"key\":\"k%d\",\"type\":\"%s\",\"label\":\"K%d\"}", i ? "," : "", i, type, i);
    return apr_pstrcat(p, "[", apr_array_pstrcat(p, a, 0), "]", NULL);
}

/* The largest answers the limits allow (100 fields, each a textarea of
 * FS_LENGTH_MAX characters that are all line ends, and a template of
 * FS_CONFIRM_BODY_MAX characters that are all placeholders) are written
 * in bounded memory and cut at FS_MAIL_TEXT_MAX: the old concatenation per
 * line and per placeholder grew with the square of the input (gigabytes
 * for far less). */
static void largest_inputs(void **state) {
    apr_pool_t *p = *state;
    const int nf = 100;
    const fs_fieldset *fs = fs_fieldset_from_json(p, J(p, many_fields(p, nf, "textarea")));
    json_object *data = fs_json_own(p, json_object_new_object());
    char *lines = apr_palloc(p, FS_LENGTH_MAX + 1);
    memset(lines, '\n', FS_LENGTH_MAX);
    lines[FS_LENGTH_MAX] = '\0';
    for (int i = 0; i < nf; i++)
        json_object_object_add(data, apr_psprintf(p, "k%d", i), json_object_new_string(lines));
    long before = peak_kb();
    apr_pool_t *q;
    apr_pool_create(&q, p);
    char *text = fs_notify_answers_text(q, fs, data);
    assert_true(strlen(text) <= FS_MAIL_TEXT_MAX + strlen(FS_MAIL_TEXT_CUT));
    assert_true(strlen(text) > FS_MAIL_TEXT_MAX - 8);
    assert_non_null(strstr(text, FS_MAIL_TEXT_CUT));
    assert_memory_equal(text, "K0:\n  \n  \n", 10);
    apr_pool_destroy(q);

    /* the confirmation body: 833 placeholders of a 100,000-character answer */
    char *tmpl = apr_palloc(p, FS_CONFIRM_BODY_MAX + 1);
    memset(tmpl, ' ', FS_CONFIRM_BODY_MAX);
    for (int i = 0; i + 6 <= FS_CONFIRM_BODY_MAX; i += 6)
        memcpy(tmpl + i, "{{k7}}", 6);
    tmpl[FS_CONFIRM_BODY_MAX] = '\0';
    apr_pool_create(&q, p);
    char *body = fs_notify_fill(q, tmpl, fs, data);
    assert_int_equal(strlen(body), FS_MAIL_TEXT_MAX + strlen(FS_MAIL_TEXT_CUT));
    apr_pool_destroy(q);
    /* a few times the cap at most (the buffer doubles; the input is
     * 10 MB): far from the square of the input */
    assert_true(peak_kb() - before < 64 * 1024);
}

static const struct CMUnitTest tests[] = {FS_TEST(notify_parse), FS_TEST(confirmation_parse),
                                          FS_TEST(fields_check), FS_TEST(answers_text),
                                          FS_TEST(fill),         FS_TEST(header_text),
                                          FS_TEST(text_cap),     FS_TEST(largest_inputs)};
FS_TEST_MAIN(tests)
