/* fs_negotiate: Accept with q-values and specificity. */
#include "fs_negotiate.h"
#include "fs_test.h"

static void defaults_to_html(void **state) {
    (void)state;
    assert_int_equal(fs_negotiate(NULL), FS_MEDIA_HTML);
    assert_int_equal(fs_negotiate(""), FS_MEDIA_HTML);
    assert_int_equal(fs_negotiate("*/*"), FS_MEDIA_HTML);
    assert_int_equal(fs_negotiate("text/*"), FS_MEDIA_HTML);
    assert_int_equal(fs_negotiate("text/html,application/xhtml+xml,application/xml;q=0.9,"
                                  "image/avif,image/webp,*/*;q=0.8"),
                     FS_MEDIA_HTML);
}

static void json_when_asked(void **state) {
    (void)state;
    assert_int_equal(fs_negotiate("application/json"), FS_MEDIA_JSON);
    assert_int_equal(fs_negotiate("APPLICATION/JSON; charset=utf-8"), FS_MEDIA_JSON);
    assert_int_equal(fs_negotiate("application/*"), FS_MEDIA_JSON);
    assert_int_equal(fs_negotiate("text/html;q=0.5, application/json"), FS_MEDIA_JSON);
    assert_int_equal(fs_negotiate("application/json;q=0.9, text/html;q=0.8"), FS_MEDIA_JSON);
    assert_int_equal(fs_negotiate("*/*;q=0.1, application/json"), FS_MEDIA_JSON);
}

static void specificity_wins(void **state) {
    (void)state;
    /* the exact range's q=0 refuses HTML even though * / * allows it */
    assert_int_equal(fs_negotiate("text/html;q=0, */*"), FS_MEDIA_JSON);
    assert_int_equal(fs_negotiate("*/*, application/json;q=0"), FS_MEDIA_HTML);
    assert_int_equal(fs_negotiate("text/*;q=0.2, text/html;q=0.9, application/json;q=0.5"),
                     FS_MEDIA_HTML);
    assert_int_equal(fs_negotiate("application/json;q=1.0, text/html;q=1"), FS_MEDIA_HTML);
}

static void nothing_acceptable(void **state) {
    (void)state;
    assert_int_equal(fs_negotiate("image/png"), FS_MEDIA_NONE);
    assert_int_equal(fs_negotiate("application/xml, text/plain"), FS_MEDIA_NONE);
    assert_int_equal(fs_negotiate("text/html;q=0, application/json;q=0"), FS_MEDIA_NONE);
    assert_int_equal(fs_negotiate("*/*;q=0"), FS_MEDIA_NONE);
    /* malformed ranges are skipped */
    assert_int_equal(fs_negotiate("garbage"), FS_MEDIA_NONE);
    assert_int_equal(fs_negotiate("text/html;q=2"), FS_MEDIA_NONE);
    assert_int_equal(fs_negotiate("text/html;q=abc, application/json"), FS_MEDIA_JSON);
    assert_int_equal(fs_negotiate(",,,;;/"), FS_MEDIA_NONE);
}

static void content_types(void **state) {
    (void)state;
    assert_true(fs_media_is("application/json", "application/json"));
    assert_true(fs_media_is("Application/JSON; charset=utf-8", "application/json"));
    assert_true(fs_media_is("application/json \t; x=y", "application/json"));
    assert_false(fs_media_is(NULL, "application/json"));
    assert_false(fs_media_is("application/jsonx", "application/json"));
    assert_false(fs_media_is("application/json x", "application/json"));
    assert_false(fs_media_is("application/merge-patch+json", "application/json"));
    assert_false(fs_media_is("text/html", "application/json"));

    assert_true(fs_media_utf8(NULL));
    assert_true(fs_media_utf8("application/json"));
    assert_true(fs_media_utf8("application/json; charset=utf-8"));
    assert_true(fs_media_utf8("application/json;charset=\"UTF-8\""));
    assert_true(fs_media_utf8("multipart/form-data; boundary=x; charset=utf-8"));
    assert_true(fs_media_utf8("application/json; format=flowed"));
    assert_false(fs_media_utf8("application/json; charset=latin1"));
    assert_false(fs_media_utf8("application/json; charset=utf-16"));
    assert_false(fs_media_utf8("application/json; charset=utf-8x"));
    assert_false(fs_media_utf8("application/json; charset=\"utf-8"));
    assert_false(fs_media_utf8("application/json; charset=utf-8; charset=latin1"));
    assert_false(fs_media_utf8("application/json; charset=utf-8;charset=utf-8"));
    assert_true(fs_media_utf8("application/json; charset=utf-8; format=flowed"));
}

static const struct CMUnitTest tests[] = {
    FS_TEST(defaults_to_html),   FS_TEST(json_when_asked), FS_TEST(specificity_wins),
    FS_TEST(nothing_acceptable), FS_TEST(content_types),
};
FS_TEST_MAIN(tests)
