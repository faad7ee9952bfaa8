/* fs_csv: quoting, neutralisation, values and rows. */
#include "fs_csv.h"
#include "fs_json.h"
#include "fs_test.h"

static void cells(void **state) {
    apr_pool_t *p = *state;
    assert_string_equal(fs_csv_cell(p, "plain"), "plain");
    assert_string_equal(fs_csv_cell(p, ""), "");
    assert_string_equal(fs_csv_cell(p, NULL), "");
    assert_string_equal(fs_csv_cell(p, "a,b"), "\"a,b\"");
    assert_string_equal(fs_csv_cell(p, "say \"hi\""), "\"say \"\"hi\"\"\"");
    assert_string_equal(fs_csv_cell(p, "two\nlines"), "\"two\nlines\"");
    assert_string_equal(fs_csv_cell(p, "cr\rhere"), "\"cr\rhere\"");
    assert_string_equal(fs_csv_cell(p, "caf\xc3\xa9"), "caf\xc3\xa9");
    assert_string_equal(fs_csv_cell(p, "a;b"), "\"a;b\""); /* ';' separates in some locales */
}

static void neutralised(void **state) {
    apr_pool_t *p = *state;
    assert_string_equal(fs_csv_cell(p, "=1+2"), "'=1+2");
    assert_string_equal(fs_csv_cell(p, "+1"), "'+1");
    assert_string_equal(fs_csv_cell(p, "-1"), "'-1");
    assert_string_equal(fs_csv_cell(p, "@SUM(A1)"), "'@SUM(A1)");
    assert_string_equal(fs_csv_cell(p, "\tx"), "'\tx");
    assert_string_equal(fs_csv_cell(p, "\rx"), "\"'\rx\"");
    assert_string_equal(fs_csv_cell(p, "=HYPERLINK(\"http://x\",\"y\")"),
                        "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"");
    assert_string_equal(fs_csv_cell(p, "a=b"), "a=b"); /* only the first character */
    assert_string_equal(fs_csv_cell(p, " =x"), " =x");
}

/* ';' first, and formulas after a line break */
static void neutralised_lines(void **state) {
    apr_pool_t *p = *state;
    assert_string_equal(fs_csv_cell(p, ";=1+2"), "\"';=1+2\"");
    assert_string_equal(fs_csv_cell(p, ";"), "\"';\"");
    assert_string_equal(fs_csv_cell(p, "a\n=1+2"), "\"a\n'=1+2\"");
    assert_string_equal(fs_csv_cell(p, "a\r\n=1+2"), "\"a\r\n'=1+2\"");
    assert_string_equal(fs_csv_cell(p, "a\r@x"), "\"a\r'@x\"");
    assert_string_equal(fs_csv_cell(p, "a\n  \t-1"), "\"a\n  \t'-1\"");
    assert_string_equal(fs_csv_cell(p, "a\n+1\nb\n;x"), "\"a\n'+1\nb\n';x\"");
    assert_string_equal(fs_csv_cell(p, "=a\n=b"), "\"'=a\n'=b\"");
    assert_string_equal(fs_csv_cell(p, "\n\n=x"), "\"\n\n'=x\"");
    assert_string_equal(fs_csv_cell(p, "a\n=\"q\""), "\"a\n'=\"\"q\"\"\"");
    /* a line that does not start with a trigger is left alone */
    assert_string_equal(fs_csv_cell(p, "a\nb=1"), "\"a\nb=1\"");
    assert_string_equal(fs_csv_cell(p, "a\n"), "\"a\n\"");
    assert_string_equal(fs_csv_cell(p, "a\n  "), "\"a\n  \"");
}

static json_object *parse(apr_pool_t *p, const char *s) {
    return fs_json_parse_trusted(p, s);
}

static void values(void **state) {
    apr_pool_t *p = *state;
    json_object *o = parse(p, "{\"s\":\"-x\",\"n\":-3,\"d\":1.5,\"t\":true,\"f\":false,"
                              "\"z\":null,\"a\":[\"x\",\"=y\",\"a,b\"],\"e\":[],"
                              "\"o\":{\"k\":1}}");
    assert_string_equal(fs_csv_value(p, fs_json_get(o, "s")), "'-x");
    assert_string_equal(fs_csv_value(p, fs_json_get(o, "n")), "-3");
    assert_string_equal(fs_csv_value(p, fs_json_get(o, "d")), "1.5");
    assert_string_equal(fs_csv_value(p, fs_json_get(o, "t")), "true");
    assert_string_equal(fs_csv_value(p, fs_json_get(o, "f")), "false");
    assert_string_equal(fs_csv_value(p, fs_json_get(o, "z")), "");
    assert_string_equal(fs_csv_value(p, fs_json_get(o, "missing")), "");
    assert_string_equal(fs_csv_value(p, fs_json_get(o, "a")), "\"x; =y; a,b\"");
    assert_string_equal(fs_csv_value(p, fs_json_get(o, "e")), "");
    assert_string_equal(fs_csv_value(p, fs_json_get(o, "o")), "\"{\"\"k\"\":1}\"");
    json_object *first = parse(p, "{\"a\":[\"=x\",\"b\"]}");
    assert_string_equal(fs_csv_value(p, fs_json_get(first, "a")), "\"'=x; b\"");
    json_object *lines = parse(p, "{\"s\":\"ok\\n=cmd()\",\"a\":[\"x\\n@y\"]}");
    assert_string_equal(fs_csv_value(p, fs_json_get(lines, "s")), "\"ok\n'=cmd()\"");
    assert_string_equal(fs_csv_value(p, fs_json_get(lines, "a")), "\"x\n'@y\"");
}

static void rows(void **state) {
    apr_pool_t *p = *state;
    apr_array_header_t *buf = apr_array_make(p, 64, 1);
    const char *r1[] = {"id", "name"};
    const char *r2[] = {"1", "\"a,b\""};
    const char *r3[] = {"", ""};
    fs_csv_row(buf, r1, 2);
    fs_csv_row(buf, r2, 2);
    fs_csv_row(buf, r3, 2);
    assert_int_equal(buf->nelts, (int)strlen("id,name\r\n1,\"a,b\"\r\n,\r\n"));
    assert_memory_equal(buf->elts, "id,name\r\n1,\"a,b\"\r\n,\r\n", buf->nelts);
}

/* fs_csv_scan reads back what fs_csv_row writes: quoted separators and
 * line breaks stay inside their cell. */
static void scan(void **state) {
    apr_pool_t *p = *state;
    apr_array_header_t *h;
    int n;
    const char *doc = "id,\"a,\"\"b\"\"\",c\r\n1,\"x\r\ny\",\r\n2,,\"\"\r\n";
    fs_csv_scan(p, doc, strlen(doc), &h, &n);
    assert_int_equal(h->nelts, 3);
    assert_string_equal(APR_ARRAY_IDX(h, 0, const char *), "id");
    assert_string_equal(APR_ARRAY_IDX(h, 1, const char *), "a,\"b\"");
    assert_string_equal(APR_ARRAY_IDX(h, 2, const char *), "c");
    assert_int_equal(n, 2);
    fs_csv_scan(p, "id,name\r\n", 9, &h, &n); /* a header alone */
    assert_int_equal(h->nelts, 2);
    assert_int_equal(n, 0);
    fs_csv_scan(p, "a\nb\nc", 5, &h, &n); /* no line break at the end */
    assert_int_equal(h->nelts, 1);
    assert_int_equal(n, 2);
    fs_csv_scan(p, "", 0, &h, &n);
    assert_int_equal(h->nelts, 0);
    assert_int_equal(n, 0);
}

/* The cells fs_csv_value writes for the keys of the object json-c parses
 * from json (every cell of a row that fails to parse: empty), each after a
 * comma: what fs_csv_put_answers must write, byte for byte. */
static char *slow_answers(apr_pool_t *p, const char *json, const char *const *keys, int n) {
    json_object *o = fs_json_parse_trusted(p, json);
    apr_array_header_t *b = apr_array_make(p, 64, 1);
    for (int f = 0; f < n; f++) {
        fs_csv_put(b, ",", 1);
        const char *c = fs_csv_value(p, fs_json_get(o, keys[f]));
        fs_csv_put(b, c, strlen(c));
    }
    fs_csv_put(b, "", 1);
    return b->elts;
}

/* fs_csv_put_answers on json, or the slow path when it gives up, as the
 * CSV export does; also checks that a refusal leaves buf as it was. */
static char *fast_answers(apr_pool_t *p, const char *json, const char *const *keys, int n,
                          int *fast) {
    apr_array_header_t *b = apr_array_make(p, 4, 1), *scratch = apr_array_make(p, 4, 1);
    fs_csv_put(b, "x", 1);
    *fast = !fs_csv_put_answers(b, scratch, p, json, keys, n);
    if (!*fast) {
        assert_int_equal(b->nelts, 1);
        return slow_answers(p, json, keys, n);
    }
    fs_csv_put(b, "", 1);
    return b->elts + 1;
}

static void answers_equal(apr_pool_t *p, const char *json, int want_fast) {
    const char *keys[] = {"s", "n", "d", "t", "f", "z", "a", "o", "missing", "e", "q"};
    int fast;
    char *got = fast_answers(p, json, keys, 11, &fast);
    char *want = slow_answers(p, json, keys, 11);
    if (strcmp(got, want))
        fail_msg("%s: got [%s], want [%s]", json, got, want);
    if (want_fast >= 0 && fast != want_fast)
        fail_msg("%s: fast path %d, expected %d", json, fast, want_fast);
}

/* The answers read straight from jsonb's text are the cells json-c's
 * objects give, for every kind of value and every escape. */
static void answers(void **state) {
    apr_pool_t *p = *state;
    answers_equal(p, "{}", 1);
    answers_equal(p, "{\"s\": \"plain\"}", 1);
    answers_equal(p,
                  "{\"a\": [\"x\", \"=y\"], \"d\": 1.5, \"e\": [], \"f\": false, \"n\": -3, "
                  "\"o\": {\"k\": 1}, \"s\": \"-x\", \"t\": true, \"z\": null}",
                  1);
    answers_equal(p, "{\"s\": \"q \\\"x\\\" back\\\\slash\\/ \\b\\f\\n=a\\r\\t;,\"}", 1);
    answers_equal(p, "{\"s\": \"ctl \\u0001\\u001f\\u007f\"}", 1);
    answers_equal(p, "{\"s\": \"caf\xc3\xa9 \\u00e9 \\ud83d\\ude00\"}", 1); /* via json-c */
    answers_equal(p, "{\"s\": \"=1+2\", \"q\": \"a\\n@b\", \"t\": \"\\tx\"}", 1);
    answers_equal(p, "{\"n\": 0, \"d\": -0, \"e\": 0.0, \"q\": -0.5, \"t\": 123456789012345678}",
                  1);
    answers_equal(p, "{\"n\": 1234567890123456789, \"d\": 99999999999999999999999}", 1);
    answers_equal(p, "{\"n\": 1e400, \"d\": 1.5E+3, \"e\": 0.1234567890123456789}", -1);
    answers_equal(p, "{\"n\": 1e400}", -1);
    answers_equal(p, "{\"s\" : \"spaced\" ,\"n\":1}", 1);
    answers_equal(p, "{\"k\\u0073\": \"escaped key\"}", 0);
    answers_equal(p, "{\"s\": \"x\"} trailing", 0);
    answers_equal(p, "[1, 2]", 0);
    answers_equal(p, "{\"s\": \"unterminated}", 0);
    answers_equal(
        p, "{\"o\": [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}", 0);
    answers_equal(
        p, "{\"a\": [{\"name\": \"f.pdf\", \"url\": \"/u\", \"sha256\": \"00\"}, \"x;y\"]}", 1);
    answers_equal(p, "{\"s\": \"\", \"t\": \" \", \"n\": \"\\\"\"}", 1);
    /* random objects over these keys and values */
    const char *vals[] = {"\"a\"",
                          "\"=x\"",
                          "\"a,b\"",
                          "\"\\\"\\n\\r\"",
                          "\"-1\"",
                          "1",
                          "-2",
                          "3.25",
                          "true",
                          "false",
                          "null",
                          "[]",
                          "[\"u\", \"v\"]",
                          "{\"k\": \"v\"}",
                          "\"\\u0041\"",
                          "\"\\n+x\"",
                          "\"\\t\"",
                          "0",
                          "-0.5",
                          "\"caf\xc3\xa9\""};
    const char *ks[] = {"s", "n", "d", "t", "f", "z", "a", "o", "e", "q", "other"};
    srand(25);
    for (int i = 0; i < 2000; i++) {
        apr_array_header_t *j = apr_array_make(p, 64, 1);
        fs_csv_put(j, "{", 1);
        int m = rand() % 8;
        for (int k = 0; k < m; k++) {
            const char *key = ks[(k * 3 + rand()) % 11], *v = vals[rand() % 20];
            if (k)
                fs_csv_put(j, ", ", 2);
            fs_csv_put(j, "\"", 1);
            fs_csv_put(j, key, strlen(key));
            fs_csv_put(j, "\": ", 3);
            fs_csv_put(j, v, strlen(v));
        }
        fs_csv_put(j, "}", 2); /* with its NUL */
        answers_equal(p, j->elts, -1);
    }
}

static const struct CMUnitTest tests[] = {
    FS_TEST(cells),  FS_TEST(neutralised), FS_TEST(neutralised_lines),
    FS_TEST(values), FS_TEST(rows),        FS_TEST(scan),
    FS_TEST(answers)};
FS_TEST_MAIN(tests)
