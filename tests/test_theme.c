/* fs_theme: colour parsing, WCAG 2 luminance and contrast, settings.theme. */
#include "fs_form.h"
#include "fs_json.h"
#include "fs_test.h"
#include "fs_theme.h"

#include <apr_strings.h>

static const unsigned char WHITE[3] = {255, 255, 255}, BLACK[3] = {0, 0, 0};

static void colors(void **state) {
    (void)state;
    unsigned char c[3] = {1, 2, 3};
    assert_true(fs_color_parse("#1D4ed8", c));
    assert_int_equal(c[0], 0x1d);
    assert_int_equal(c[1], 0x4e);
    assert_int_equal(c[2], 0xd8);
    assert_true(fs_color_parse("#fa0", c));
    assert_int_equal(c[0], 0xff);
    assert_int_equal(c[1], 0xaa);
    assert_int_equal(c[2], 0x00);
    static const char *const bad[] = {"",         "#",          "1d4ed8", "#1d4ed", "#1d4ed8f",
                                      "#ggg",     "#12345g",    " #123",  "#123 ",  "red",
                                      "#1d4ed80", "rgb(0,0,0)", "#-12",   NULL};
    for (int i = 0; bad[i]; i++) {
        c[0] = 7;
        if (fs_color_parse(bad[i], c))
            fail_msg("accepted: %s", bad[i]);
        assert_int_equal(c[0], 7);
    }
    assert_false(fs_color_parse(NULL, c));
}

static void luminance(void **state) {
    (void)state;
    assert_float_equal(fs_color_luminance(WHITE), 1.0, 1e-12);
    assert_float_equal(fs_color_luminance(BLACK), 0.0, 1e-12);
    /* values from the WCAG 2 formula computed with IEEE pow() */
    unsigned char g[3] = {0x76, 0x76, 0x76};
    assert_float_equal(fs_color_luminance(g), 0.18116424424986022, 1e-12);
    unsigned char dark[3] = {10, 10, 10}; /* the linear segment */
    assert_float_equal(fs_color_luminance(dark), 10 / 255.0 / 12.92, 1e-12);
    assert_float_equal(fs_color_contrast(WHITE, BLACK), 21.0, 1e-9);
    assert_float_equal(fs_color_contrast(BLACK, WHITE), 21.0, 1e-9);
    assert_float_equal(fs_color_contrast(WHITE, WHITE), 1.0, 1e-12);
    unsigned char c[3];
    struct {
        const char *hex;
        double ratio;
    } known[] = {{"#767676", 4.542224959605253},
                 {"#777777", 4.478089453577214},
                 {"#1d4ed8", 6.701618401398807},
                 {"#1a56db", 6.180228824928861},
                 {"#ff0000", 3.9984767707539985}};
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        assert_true(fs_color_parse(known[i].hex, c));
        assert_float_equal(fs_color_contrast(c, WHITE), known[i].ratio, 1e-9);
    }
    /* monotonic over the grey ramp (Newton's root never goes backwards) */
    double last = -1;
    for (int v = 0; v < 256; v++) {
        unsigned char x[3] = {(unsigned char)v, (unsigned char)v, (unsigned char)v};
        double l = fs_color_luminance(x);
        assert_true(l > last);
        last = l;
    }
}

static const char *code_at(const fs_error *e, const char *ptr) {
    for (int i = 0; e->errors && i < e->errors->nelts; i++) {
        const fs_field_error *fe = &APR_ARRAY_IDX(e->errors, i, fs_field_error);
        if (!strcmp(fe->pointer, ptr))
            return fe->code;
    }
    return "(none)";
}

static json_object *parse(apr_pool_t *p, const char *json, fs_error *e) {
    return fs_json_own(p, fs_settings_parse(p, fs_json_parse_trusted(p, json), "/settings", e));
}

static void theme_settings(void **state) {
    apr_pool_t *p = *state;
    fs_error *e = fs_error_validation(p);
    json_object *s = parse(
        p, "{\"theme\":{\"accentColor\":\"#1D4ED8\",\"logoUrl\":\"https://cdn.example/l.png\"}}",
        e);
    assert_null(e->errors);
    assert_string_equal(fs_json_str(p, fs_json_get(s, "theme")),
                        "{\"accentColor\":\"#1d4ed8\",\"logoUrl\":\"https://cdn.example/l.png\"}");
    s = parse(p, "{\"theme\":{\"accentColor\":\"#767676\"}}", e);
    assert_null(e->errors);
    s = parse(p, "{\"theme\":null}", e);
    assert_null(e->errors);
    assert_false(json_object_object_get_ex(s, "theme", NULL));
    s = parse(p, "{\"theme\":{}}", e);
    assert_null(e->errors);
    assert_false(json_object_object_get_ex(s, "theme", NULL));
    /* 4.48:1 is not enough */
    assert_null(parse(p, "{\"theme\":{\"accentColor\":\"#777777\"}}", e));
    assert_string_equal(code_at(e, "/settings/theme/accentColor"), "minimum");
    assert_non_null(strstr(APR_ARRAY_IDX(e->errors, 0, fs_field_error).detail, "4.47:1"));
    e = fs_error_validation(p);
    assert_null(parse(p,
                      "{\"theme\":{\"accentColor\":\"blue\",\"logoUrl\":\"http://x.example/l.png\","
                      "\"font\":\"x\"}}",
                      e));
    assert_string_equal(code_at(e, "/settings/theme/accentColor"), "format");
    assert_string_equal(code_at(e, "/settings/theme/logoUrl"), "format");
    assert_string_equal(code_at(e, "/settings/theme/font"), "unknown");
    static const char *const bad_logo[] = {
        "javascript:alert(1)",         "https://x.example/a b.png",
        "https://x.example;img-src *", "https://u:p@x.example/l.png",
        "https://x.example/l.png\"",   "data:image/png;base64,AA",
        "//x.example/l.png",           NULL};
    for (int i = 0; bad_logo[i]; i++) {
        e = fs_error_validation(p);
        json_object *t = json_object_new_object(), *th = json_object_new_object();
        json_object_object_add(th, "logoUrl", json_object_new_string(bad_logo[i]));
        json_object_object_add(t, "theme", th);
        fs_json_own(p, t);
        if (fs_settings_parse(p, t, "/settings", e))
            fail_msg("accepted: %s", bad_logo[i]);
        assert_string_equal(code_at(e, "/settings/theme/logoUrl"), "format");
    }
    e = fs_error_validation(p);
    assert_null(parse(p, "{\"theme\":[1]}", e));
    assert_string_equal(code_at(e, "/settings/theme"), "type");
    e = fs_error_validation(p);
    assert_null(parse(p, "{\"theme\":{\"accentColor\":1}}", e));
    assert_string_equal(code_at(e, "/settings/theme/accentColor"), "type");
}

static const struct CMUnitTest tests[] = {FS_TEST(colors), FS_TEST(luminance),
                                          FS_TEST(theme_settings)};
FS_TEST_MAIN(tests)
