/* fs_file and the file parts of fs_multipart. */
#include "fs_file.h"
#include "fs_json.h"
#include "fs_multipart.h"
#include "fs_test.h"

#include <apr_strings.h>

static void accept_entries(void **state) {
    (void)state;
    assert_true(fs_file_accept_entry_valid("image/png"));
    assert_true(fs_file_accept_entry_valid("image/*"));
    assert_true(fs_file_accept_entry_valid(".csv"));
    assert_true(fs_file_accept_entry_valid("application/vnd.ms-excel"));
    assert_false(fs_file_accept_entry_valid("png"));
    assert_false(fs_file_accept_entry_valid("."));
    assert_false(fs_file_accept_entry_valid("/png"));
    assert_false(fs_file_accept_entry_valid("image/"));
    assert_false(fs_file_accept_entry_valid("*/*x"));
    assert_false(fs_file_accept_entry_valid(".c v"));
}

static void accepted(void **state) {
    apr_pool_t *p = *state;
    json_object *a =
        fs_json_own(p, json_tokener_parse("[\"image/*\", \".csv\", \"application/pdf\"]"));
    assert_true(fs_file_accepted(a, "x.png", "image/png"));
    assert_true(fs_file_accepted(a, "data.CSV", "application/octet-stream"));
    assert_true(fs_file_accepted(a, "a", "application/pdf"));
    assert_false(fs_file_accepted(a, "a.exe", "application/x-msdownload"));
    assert_false(
        fs_file_accepted(a, ".csv", "text/plain")); /* an extension needs a name before it */
    assert_true(fs_file_accepted(NULL, "a.exe", "application/x-msdownload"));
}

/* Format characters (Unicode Cf) are dropped from file names: they change
 * how a name is shown without being seen. */
static void names_without_format_chars(void **state) {
    apr_pool_t *p = *state;
    struct {
        const char *in, *out;
    } cases[] = {
        /* U+202E RIGHT-TO-LEFT OVERRIDE: "invoice<RLO>gpj.exe" shows as "invoiceexe.jpg" */
        {"invoice\u202Egpj.exe", "invoicegpj.exe"},
        {"in\u200Bvoice.pdf", "invoice.pdf"},               /* ZERO WIDTH SPACE */
        {"a\u2066b\u2067c\u2068d\u2069e.txt", "abcde.txt"}, /* the isolates */
        {"\uFEFFbom.txt", "bom.txt"},                       /* BYTE ORDER MARK */
        {"x\u061Cy.txt", "xy.txt"},                         /* ARABIC LETTER MARK */
        {"l\u200Er\u200F.txt", "lr.txt"},                   /* LRM, RLM */
        {"soft\u00ADhyphen.txt", "softhyphen.txt"},
        {"tag\U000E0001.txt", "tag.txt"}, /* LANGUAGE TAG */
        {"\u202E.hidden", "hidden"},      /* dropped before a leading dot */
        {"\u200B", "file"},               /* nothing left */
        {"c1\xC2\x85x.txt", "c1_x.txt"},  /* U+0085, a C1 control: as C0 ones */
        /* ordinary letters beyond ASCII survive */
        {"Gr\u00FC\u00DFe.pdf", "Gr\u00FC\u00DFe.pdf"},
        {"\u0633\u0644\u0627\u0645.txt", "\u0633\u0644\u0627\u0645.txt"},
        {"\u65E5\u672C.txt", "\u65E5\u672C.txt"},
        {"\U0001F600.png", "\U0001F600.png"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        assert_string_equal(fs_file_safe_name(p, cases[i].in, strlen(cases[i].in)), cases[i].out);
    assert_true(fs_file_format_char(0x202E));
    assert_true(fs_file_format_char(0x200B));
    for (unsigned int cp = 0x2066; cp <= 0x2069; cp++)
        assert_true(fs_file_format_char(cp));
    assert_true(fs_file_format_char(0xFEFF));
    assert_true(fs_file_format_char(0x061C));
    assert_false(fs_file_format_char('a'));
    assert_false(fs_file_format_char(0xE9));
    assert_false(fs_file_format_char(0x2065)); /* unassigned between the two ranges */
    assert_false(fs_file_format_char(0x1F600));
}

static void names_and_types(void **state) {
    apr_pool_t *p = *state;
    const char *n = "C:\\Users\\ada\\..\\cv;\"x\".pdf";
    assert_string_equal(fs_file_safe_name(p, n, strlen(n)), "cv__x_.pdf");
    assert_string_equal(fs_file_safe_name(p, "../../.hidden", 13), "hidden");
    assert_string_equal(fs_file_safe_name(p, "a\r\nb", 4), "a__b");
    assert_string_equal(fs_file_safe_name(p, "", 0), "file");
    assert_string_equal(fs_file_safe_name(p, "\xff.txt", 5), "\xEF\xBF\xBD.txt");
    char longn[600];
    memset(longn, 'a', sizeof(longn));
    assert_int_equal(strlen(fs_file_safe_name(p, longn, sizeof(longn))), FS_FILE_NAME_MAX);
    assert_string_equal(fs_file_media_type(p, "Image/PNG; q=1"), "image/png");
    assert_string_equal(fs_file_media_type(p, NULL), "application/octet-stream");
    assert_string_equal(fs_file_media_type(p, "nonsense"), "application/octet-stream");
    assert_string_equal(fs_file_media_type(p, "a/b/c"), "application/octet-stream");
}

static int checks(const char *type, const char *data, apr_size_t n, apr_size_t step) {
    fs_file_check c;
    fs_file_check_init(&c, type);
    for (apr_size_t i = 0; i < n; i += step)
        fs_file_check_feed(&c, (const unsigned char *)data + i, n - i < step ? n - i : step);
    return fs_file_check_done(&c);
}

static void magic(void **state) {
    (void)state;
    static const char png[] = "\x89PNG\r\n\x1a\n....";
    for (apr_size_t step = 1; step < 5; step++) {
        assert_true(checks("image/png", png, sizeof(png) - 1, step));
        assert_false(checks("image/jpeg", png, sizeof(png) - 1, step));
        assert_true(checks("image/jpeg", "\xff\xd8\xff\xe0", 4, step));
        assert_true(checks("image/gif", "GIF89a..", 8, step));
        assert_true(checks("image/webp", "RIFF\0\0\0\0WEBPVP8 ", 16, step));
        assert_false(checks("image/webp", "RIFF\0\0\0\0WAVE", 12, step));
        assert_true(checks("application/pdf", "%PDF-1.7", 8, step));
        assert_false(checks("application/pdf", "%PDF", 4, step));
        assert_true(
            checks("application/vnd.openxmlformats-officedocument.wordprocessingml.document",
                   "PK\x03\x04....", 8, step));
        assert_true(checks("text/csv", "a,\xc3\xa9\n", 5, step)); /* é split across feeds */
        assert_false(checks("text/plain", "a\xc3", 2, step));     /* cut in a character */
        assert_false(checks("text/plain", "a\0b", 3, step));
        assert_false(checks("application/json", "\xff", 1, step));
        assert_true(checks("application/octet-stream", "\0\xff", 2, step));
    }
    assert_true(checks("text/plain", "", 0, 1));
    assert_false(checks("image/png", "", 0, 1));
}

/* a PNG's first chunk (IHDR of w x h) and last (IEND), with data between */
static apr_size_t png_of(char *out, unsigned long w, unsigned long h, const char *extra) {
    static const char sig[] = "\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR";
    apr_size_t n = 0;
    memcpy(out, sig, 16);
    n = 16;
    for (int i = 3; i >= 0; i--)
        out[n++] = (char)(w >> (8 * i));
    for (int i = 3; i >= 0; i--)
        out[n++] = (char)(h >> (8 * i));
    memcpy(out + n, "\x08\0\0\0\0CRC!....IDAT", 17); /* the rest of IHDR, a chunk */
    n += 17;
    memcpy(out + n, "\0\0\0\0IEND\xae\x42\x60\x82", 12);
    n += 12;
    if (extra) {
        memcpy(out + n, extra, strlen(extra));
        n += strlen(extra);
    }
    return n;
}

static int png_checks(const char *data, apr_size_t n, apr_size_t step, int max) {
    fs_file_check c;
    fs_file_check_init(&c, "image/png");
    fs_file_check_png_bounds(&c, max);
    for (apr_size_t i = 0; i < n; i += step)
        fs_file_check_feed(&c, (const unsigned char *)data + i, n - i < step ? n - i : step);
    return fs_file_check_done(&c);
}

static void png_bounds(void **state) {
    (void)state;
    char b[128];
    for (apr_size_t step = 1; step < 30; step += 3) {
        apr_size_t n = png_of(b, 600, 150, NULL);
        assert_true(png_checks(b, n, step, 4096));
        assert_true(checks("image/png", b, n, step)); /* without bounds: the magic only */
        n = png_of(b, 4096, 4096, NULL);
        assert_true(png_checks(b, n, step, 4096));
        n = png_of(b, 15000, 15000, NULL); /* a bomb: a small file, a huge image */
        assert_false(png_checks(b, n, step, 4096));
        assert_true(checks("image/png", b, n, step));
        n = png_of(b, 0, 10, NULL);
        assert_false(png_checks(b, n, step, 4096));
        n = png_of(b, 10, 4097, NULL);
        assert_false(png_checks(b, n, step, 4096));
        n = png_of(b, 10, 10, "<html>"); /* something after IEND */
        assert_false(png_checks(b, n, step, 4096));
        assert_false(png_checks("\x89PNG\r\n\x1a\n....", 12, step, 4096)); /* no IHDR */
        n = png_of(b, 10, 10, NULL);
        memcpy(b + 12, "IDAT", 4); /* another chunk first */
        assert_false(png_checks(b, n, step, 4096));
    }
}

static void base64(void **state) {
    (void)state;
    static const char *ok[] = {"", "QQ==", "QUI=", "QUJD", "QUJDRA==", "+/+/"};
    static const char *bad[] = {"Q", "QQ=", "QQ=A", "Q===", "=QQQ", "QUJD\n", "QU JD", "QUJ-"};
    for (size_t i = 0; i < sizeof(ok) / sizeof(*ok); i++)
        assert_true(fs_file_base64_valid(ok[i], strlen(ok[i])));
    for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
        assert_false(fs_file_base64_valid(bad[i], strlen(bad[i])));
    assert_int_equal(fs_file_base64_len(0), 0);
    assert_int_equal(fs_file_base64_len(1), 4);
    assert_int_equal(fs_file_base64_len(3), 4);
    assert_int_equal(fs_file_base64_len(2000), 2668);
}

static void sha(void **state) {
    apr_pool_t *p = *state;
    fs_sha256 *h = fs_sha256_new(p);
    fs_sha256_update(h, "ab", 2);
    fs_sha256_update(h, "c", 1);
    assert_string_equal(fs_sha256_hex(h, p),
                        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

/* the file parts of a multipart body, fed a byte at a time */
typedef struct got {
    apr_pool_t *p;
    char *log, *content;
    apr_size_t n, max_chunk;
} got;

static fs_error *g_begin(void *b, const char *name, const char *filename, const char *ctype) {
    got *g = b;
    g->log = apr_pstrcat(g->p, g->log, "begin ", name, " ", filename, " ", ctype ? ctype : "-", ";",
                         NULL);
    return NULL;
}
static fs_error *g_data(void *b, const char *buf, apr_size_t len) {
    got *g = b;
    memcpy(g->content + g->n, buf, len);
    g->n += len;
    if (len > g->max_chunk)
        g->max_chunk = len;
    return NULL;
}
static fs_error *g_end(void *b) {
    got *g = b;
    g->log = apr_pstrcat(g->p, g->log, "end;", NULL);
    return NULL;
}

static void multipart_files(void **state) {
    apr_pool_t *p = *state;
    static const char body[] =
        "--XyZ\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nvalue\r\n"
        "--XyZ\r\nContent-Disposition: form-data; name=\"f\"; "
        "filename=\"C:\\dir\\x.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n"
        "\0\r\n--XyX\r\n--X\r\n"
        "--XyZ\r\nContent-Disposition: form-data; name=\"g\"; filename=\"\"\r\n\r\n"
        "\r\n--XyZ--\r\n";
    apr_size_t len = sizeof(body) - 1;
    for (apr_size_t step = 1; step <= 64; step *= 4) {
        fs_multipart_limits lim = {1024, 16, 10};
        fs_multipart *mp = fs_multipart_new(p, "XyZ", &lim);
        got g = {p, "", apr_palloc(p, 300), 0, 0};
        fs_multipart_files cb = {&g, g_begin, g_data, g_end};
        fs_multipart_on_files(mp, &cb);
        for (apr_size_t i = 0; i < len; i += step)
            assert_null(fs_multipart_feed(mp, body + i, len - i < step ? len - i : step));
        apr_array_header_t *pairs;
        assert_null(fs_multipart_finish(mp, &pairs));
        assert_int_equal(pairs->nelts, 1);
        assert_string_equal(g.log, "begin f C:\\dir\\x.bin application/octet-stream;end;");
        assert_int_equal(g.n, 13); /* delimiter-like bytes are content; the delimiter is not */
        assert_memory_equal(g.content, "\0\r\n--XyX\r\n--X", 13);
    }
    /* without the callbacks a file part is still refused */
    fs_multipart_limits lim = {1024, 4096, 10};
    fs_multipart *mp = fs_multipart_new(p, "XyZ", &lim);
    fs_error *e = fs_multipart_feed(mp, body, len);
    assert_non_null(e);
    assert_int_equal(e->status, 400);
}

static const struct CMUnitTest tests[] = {
    FS_TEST(accept_entries),  FS_TEST(accepted),
    FS_TEST(names_and_types), FS_TEST(names_without_format_chars),
    FS_TEST(magic),           FS_TEST(base64),
    FS_TEST(png_bounds),      FS_TEST(sha),
    FS_TEST(multipart_files),
};
FS_TEST_MAIN(tests)
