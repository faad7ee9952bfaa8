/* fs_xlsx: cells written through libxlsxwriter; what each call says. The
 * cells themselves are read back with openpyxl in t/63_export_xlsx.t. */
#include "fs_json.h"
#include "fs_test.h"
#include "fs_xlsx.h"

#include <apr_file_io.h>
#include <apr_strings.h>
#include <stdio.h>
#include <unistd.h>

/* a new workbook in a fresh file of the temporary directory */
static fs_xlsx *workbook(apr_pool_t *p, const char **path) {
    const char *dir;
    assert_int_equal(apr_temp_dir_get(&dir, p), APR_SUCCESS);
    char *tpl = apr_pstrcat(p, dir, "/test-xlsx-XXXXXX", NULL);
    apr_file_t *f;
    assert_int_equal(
        apr_file_mktemp(&f, tpl, APR_FOPEN_CREATE | APR_FOPEN_WRITE | APR_FOPEN_EXCL, p),
        APR_SUCCESS);
    apr_file_close(f);
    *path = tpl;
    fs_xlsx *x = fs_xlsx_open(p, tpl, dir, "Sheet");
    assert_non_null(x);
    return x;
}

/* s repeated n times */
static const char *times(apr_pool_t *p, const char *s, int n) {
    size_t l = strlen(s);
    char *out = apr_palloc(p, l * (size_t)n + 1), *o = out;
    for (int i = 0; i < n; i++, o += l)
        memcpy(o, s, l);
    *o = '\0';
    return out;
}

static void cells(void **state) {
    apr_pool_t *p = *state;
    const char *path;
    fs_xlsx *x = workbook(p, &path);
    assert_int_equal(fs_xlsx_heading(x, 0, 0, "id"), 0);
    assert_int_equal(fs_xlsx_text(x, 1, 0, "=1+1"), 0);
    assert_int_equal(fs_xlsx_text(x, 1, 1, NULL), 0);
    assert_int_equal(fs_xlsx_number(x, 1, 2, -3.5), 0);
    assert_int_equal(fs_xlsx_bool(x, 1, 3, 1), 0);
    /* the longest cell, in characters (é is two bytes): whole */
    assert_int_equal(fs_xlsx_text(x, 2, 0, times(p, "\xc3\xa9", FS_XLSX_MAX_CHARS)), 0);
    /* one character more: cut, and said */
    assert_int_equal(fs_xlsx_text(x, 2, 1, times(p, "\xc3\xa9", FS_XLSX_MAX_CHARS + 1)), 1);
    assert_int_equal(fs_xlsx_text(x, 2, 2, times(p, "\xf0\x9f\x8e\x89", 40000)), 1);
    assert_int_equal(fs_xlsx_close(x), 0);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char magic[4] = {0};
    assert_int_equal(fread(magic, 1, 4, f), 4);
    fclose(f);
    assert_memory_equal(magic, "PK\x03\x04", 4); /* a zip */
    unlink(path);
}

static void dates(void **state) {
    apr_pool_t *p = *state;
    const char *path;
    fs_xlsx *x = workbook(p, &path);
    uint32_t row = 0;
    static const char *const good[] = {"2024-02-29", "1900-01-01", "9999-12-31", "2026-11-27"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        assert_int_equal(fs_xlsx_date(x, row++, 0, good[i]), 0);
    static const char *const bad[] = {
        "2023-02-29",           "1899-12-31", "2024-13-01", "2024-04-31", "2024-1-01",
        "2024-01-01T00:00:00Z", "",           "abcd-ef-gh", "2024-00-10", "2024-01-00"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(fs_xlsx_date(x, row, 0, bad[i]), 1);
    assert_int_equal(fs_xlsx_date(x, row, 0, NULL), 1);
    assert_int_equal(fs_xlsx_close(x), 0);
    unlink(path);
}

static void values(void **state) {
    apr_pool_t *p = *state;
    const char *path;
    fs_xlsx *x = workbook(p, &path);
    json_object *o = fs_json_parse_trusted(
        p, "{\"n\":42,\"d\":3.25,\"big\":12345678901234567890,\"b\":false,\"s\":\"=SUM(A1)\","
           "\"date\":\"2024-02-29\",\"notdate\":\"tomorrow\",\"a\":[\"x\",\"y\"],\"e\":[],"
           "\"o\":{\"k\":1},\"z\":null,\"long\":\"\"}");
    assert_non_null(o);
    uint16_t c = 0;
    static const char *const keys[] = {"n", "d", "big", "b", "s",      "notdate",
                                       "a", "e", "o",   "z", "missing"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        assert_int_equal(fs_xlsx_value(x, p, 0, c++, fs_json_get(o, keys[i]), 1), 0);
    assert_int_equal(fs_xlsx_value(x, p, 0, c++, fs_json_get(o, "date"), 1), 0);
    assert_int_equal(fs_xlsx_value(x, p, 0, c++, fs_json_get(o, "date"), 0), 0);
    json_object *l = fs_json_own(p, json_object_new_string(times(p, "a", FS_XLSX_MAX_CHARS + 5)));
    assert_int_equal(fs_xlsx_value(x, p, 0, c++, l, 0), 1);
    assert_int_equal(fs_xlsx_close(x), 0);
    unlink(path);
}

/* a workbook never closed is freed with its pool (valgrind: no leak) and
 * writes nothing */
static void not_closed(void **state) {
    apr_pool_t *p = *state, *sub;
    apr_pool_create(&sub, p);
    const char *path;
    fs_xlsx *x = workbook(sub, &path);
    assert_int_equal(fs_xlsx_text(x, 0, 0, "never written"), 0);
    path = apr_pstrdup(p, path);
    apr_pool_destroy(sub);
    apr_finfo_t fi;
    assert_int_equal(apr_stat(&fi, path, APR_FINFO_SIZE, p), APR_SUCCESS);
    assert_int_equal(fi.size, 0);
    unlink(path);
}

static const struct CMUnitTest tests[] = {FS_TEST(cells), FS_TEST(dates), FS_TEST(values),
                                          FS_TEST(not_closed)};
FS_TEST_MAIN(tests)
