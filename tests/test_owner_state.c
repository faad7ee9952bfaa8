/* fs_owner_state: the owner's status, tags and note of a submission. */
#include "fs_json.h"
#include "fs_owner_state.h"
#include "fs_test.h"

#include <string.h>

static json_object *obj(apr_pool_t *p, const char *s) {
    return fs_json_own(p, json_tokener_parse(s));
}

static int parse(apr_pool_t *p, const char *body, fs_owner_change *c, fs_error **verr) {
    *verr = fs_error_validation(p);
    return fs_owner_change_parse(p, obj(p, body), c, *verr);
}

static void statuses(void **state) {
    (void)state;
    assert_true(fs_owner_status_valid("new"));
    assert_true(fs_owner_status_valid("in_progress"));
    assert_true(fs_owner_status_valid("done"));
    assert_true(fs_owner_status_valid("rejected"));
    assert_false(fs_owner_status_valid("Done"));
    assert_false(fs_owner_status_valid(""));
    assert_false(fs_owner_status_valid(NULL));
}

static void tags(void **state) {
    apr_pool_t *p = *state;
    assert_string_equal(fs_tag_normalise(p, "VIP"), "vip");
    assert_string_equal(fs_tag_normalise(p, "a:b.c_d-e"), "a:b.c_d-e");
    assert_string_equal(fs_tag_normalise(p, "9lives"), "9lives");
    char max[FS_TAG_MAX_LEN + 2];
    memset(max, 'a', FS_TAG_MAX_LEN);
    max[FS_TAG_MAX_LEN] = '\0';
    assert_non_null(fs_tag_normalise(p, max));
    max[FS_TAG_MAX_LEN] = 'a';
    max[FS_TAG_MAX_LEN + 1] = '\0';
    assert_null(fs_tag_normalise(p, max)); /* 33 characters */
    assert_null(fs_tag_normalise(p, ""));
    assert_null(fs_tag_normalise(p, "-x"));
    assert_null(fs_tag_normalise(p, "a b"));
    assert_null(fs_tag_normalise(p, "caf\xc3\xa9"));
    assert_null(fs_tag_normalise(p, NULL));
}

static void change(void **state) {
    apr_pool_t *p = *state;
    fs_owner_change c;
    fs_error *verr;
    assert_true(parse(p, "{\"status\":\"done\",\"tags\":[\"B\",\"a\",\"b\"],\"note\":\"x\\ny\"}",
                      &c, &verr));
    assert_string_equal(c.status, "done");
    assert_string_equal(c.tags_json, "[\"b\",\"a\"]");
    assert_true(c.note_set);
    assert_string_equal(c.note, "x\ny");
    assert_true(parse(p, "{\"note\":null}", &c, &verr));
    assert_true(c.note_set);
    assert_null(c.note);
    assert_null(c.status);
    assert_null(c.tags_json);
    assert_true(parse(p, "{\"tags\":[]}", &c, &verr));
    assert_string_equal(c.tags_json, "[]");
    assert_false(parse(p, "{}", &c, &verr));
    assert_false(parse(p, "{\"status\":\"open\",\"x\":1}", &c, &verr));
    assert_int_equal(verr->errors->nelts, 2);
}

static void limits(void **state) {
    apr_pool_t *p = *state;
    fs_owner_change c;
    fs_error *verr;
    /* 20 tags, then 21 */
    char buf[512] = "{\"tags\":[";
    for (int i = 0; i < 21; i++) {
        char t[16];
        snprintf(t, sizeof t, "%s\"t%d\"", i ? "," : "", i);
        if (i == 20) {
            char ok[sizeof buf + 2];
            snprintf(ok, sizeof ok, "%s]}", buf);
            assert_true(parse(p, ok, &c, &verr));
        }
        strcat(buf, t);
    }
    strcat(buf, "]}");
    assert_false(parse(p, buf, &c, &verr));
    /* a note of FS_NOTE_MAX characters of two bytes each, then one more */
    size_t n = FS_NOTE_MAX;
    char *note = apr_palloc(p, 2 * (n + 1) + 32);
    strcpy(note, "{\"note\":\"");
    char *w = note + strlen(note);
    for (size_t i = 0; i < n; i++) {
        *w++ = '\xc3';
        *w++ = '\xa9';
    }
    strcpy(w, "\"}");
    assert_true(parse(p, note, &c, &verr));
    assert_int_equal(fs_utf8_length(c.note), FS_NOTE_MAX);
    strcpy(w, "\xc3\xa9\"}");
    assert_false(parse(p, note, &c, &verr));
}

int main(void) {
    const struct CMUnitTest tests[] = {FS_TEST(statuses), FS_TEST(tags), FS_TEST(change),
                                       FS_TEST(limits)};
    apr_initialize();
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    apr_terminate();
    return rc;
}
