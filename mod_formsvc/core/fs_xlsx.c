/* fs_xlsx: a worksheet through libxlsxwriter, constant memory. */
#include "fs_xlsx.h"
#include "fs_csv.h"
#include "fs_json.h"
#include "fs_util.h"

#include <apr_lib.h>
#include <apr_strings.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xlsxwriter.h>

struct fs_xlsx {
    lxw_workbook *wb; /* NULL once closed */
    lxw_worksheet *ws;
    lxw_format *bold, *date;
    apr_pool_t *p;
    /* libxlsxwriter's temporary file of the rows (unlinked): it closes
     * it only when packing reaches the worksheet, and never when the
     * workbook is freed unpacked, so this one is closed here then */
    FILE *rows;
    int err; /* errno of the last failure; 0 when unknown */
};

static apr_status_t free_workbook(void *data) {
    fs_xlsx *x = data;
    if (x->wb) {
        if (x->rows)
            fclose(x->rows);
        lxw_workbook_free(x->wb);
    }
    x->wb = NULL;
    x->rows = NULL;
    return APR_SUCCESS;
}

fs_xlsx *fs_xlsx_open(apr_pool_t *p, const char *path, const char *tmpdir, const char *sheet) {
    lxw_workbook_options o = {.constant_memory = LXW_TRUE,
                              .tmpdir = tmpdir ? apr_pstrdup(p, tmpdir) : NULL,
                              /* a zip past 4 GB stays readable */
                              .use_zip64 = LXW_TRUE};
    fs_xlsx *x = apr_pcalloc(p, sizeof *x);
    x->p = p;
    x->wb = workbook_new_opt(path, &o);
    if (!x->wb)
        return NULL;
    apr_pool_cleanup_register(p, x, free_workbook, apr_pool_cleanup_null);
    x->ws = workbook_add_worksheet(x->wb, sheet);
    x->bold = workbook_add_format(x->wb);
    x->date = workbook_add_format(x->wb);
    if (!x->ws || !x->bold || !x->date)
        return NULL;
    x->rows = x->ws->optimize_tmpfile;
    format_set_bold(x->bold);
    format_set_num_format(x->date, "yyyy-mm-dd");
    return x;
}

/* s cut to at most FS_XLSX_MAX_CHARS UTF-8 characters: s itself when it
 * is no longer, else a copy in p; *cut says which */
static const char *bounded(apr_pool_t *p, const char *s, int *cut) {
    size_t chars = 0;
    const unsigned char *c = (const unsigned char *)s;
    *cut = 0;
    for (; *c; c++) {
        if ((*c & 0xC0) == 0x80)
            continue; /* a continuation byte: part of the character before */
        if (chars == FS_XLSX_MAX_CHARS) {
            *cut = 1;
            return apr_pstrmemdup(p, s, (apr_size_t)((const char *)c - s));
        }
        chars++;
    }
    return s;
}

static int hex4(const char *s) {
    for (int i = 0; i < 4; i++)
        if (!apr_isxdigit(s[i]))
            return 0;
    return 1;
}

/* s as a cell's XML may carry it, in one pass: s itself when nothing needs
 * a change, else a copy in p. libxlsxwriter escapes control characters as
 * _xHHHH_ but writes the rest as it is given, and two things of valid
 * UTF-8 go wrong: U+FFFE and U+FFFF are no XML characters (the workbook
 * would not open), replaced by U+FFFD; and a spreadsheet reads _xHHHH_ in
 * any text as that escape, so text that holds one as typed ("_x0041_",
 * which would show as "A") gets its underscore escaped (_x005F_). */
static const char *xml_text(apr_pool_t *p, const char *s) {
    const char *c = s;
    for (; *c; c++)
        if ((c[0] == '\xEF' && c[1] == '\xBF' && (c[2] == '\xBE' || c[2] == '\xBF')) ||
            (c[0] == '_' && c[1] == 'x' && hex4(c + 2) && c[6] == '_'))
            break;
    if (!*c)
        return s;
    /* each escape adds 6 bytes and takes at least 6 ("_x0000_x0000_"
     * holds two): at most twice the length */
    size_t n = strlen(s);
    char *out = apr_palloc(p, 2 * n + 1), *o = out;
    memcpy(o, s, (size_t)(c - s));
    o += c - s;
    while (*c) {
        if (c[0] == '\xEF' && c[1] == '\xBF' && (c[2] == '\xBE' || c[2] == '\xBF')) {
            memcpy(o, "\xEF\xBF\xBD", 3);
            o += 3;
            c += 3;
        } else if (c[0] == '_' && c[1] == 'x' && hex4(c + 2) && c[6] == '_') {
            memcpy(o, "_x005F_", 7); /* the underscore; "xHHHH_" follows as text */
            o += 7;
            c++;
        } else {
            *o++ = *c++;
        }
    }
    *o = '\0';
    return out;
}

static int text_in(fs_xlsx *x, uint32_t row, uint16_t col, const char *s, lxw_format *f) {
    if (!s)
        return 0;
    int cut;
    const char *t = bounded(x->p, xml_text(x->p, s), &cut);
    return worksheet_write_string(x->ws, row, col, t, f) == LXW_NO_ERROR ? cut : -1;
}

int fs_xlsx_text(fs_xlsx *x, uint32_t row, uint16_t col, const char *s) {
    return text_in(x, row, col, s, NULL);
}

int fs_xlsx_heading(fs_xlsx *x, uint32_t row, uint16_t col, const char *s) {
    return text_in(x, row, col, s, x->bold);
}

int fs_xlsx_number(fs_xlsx *x, uint32_t row, uint16_t col, double v) {
    return worksheet_write_number(x->ws, row, col, v, NULL) == LXW_NO_ERROR ? 0 : -1;
}

int fs_xlsx_bool(fs_xlsx *x, uint32_t row, uint16_t col, int v) {
    return worksheet_write_boolean(x->ws, row, col, v, NULL) == LXW_NO_ERROR ? 0 : -1;
}

static int digits(const char *s, int n) {
    for (int i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return 0;
    return 1;
}

int fs_xlsx_date(fs_xlsx *x, uint32_t row, uint16_t col, const char *s) {
    if (!s || strlen(s) != 10 || !digits(s, 4) || s[4] != '-' || !digits(s + 5, 2) || s[7] != '-' ||
        !digits(s + 8, 2))
        return 1;
    int y = atoi(s), m = atoi(s + 5), d = atoi(s + 8);
    if (y < 1900 || !fs_date_valid(y, m, d)) /* a spreadsheet's dates begin in 1900 */
        return 1;
    lxw_datetime dt = {.year = y, .month = m, .day = d};
    return worksheet_write_datetime(x->ws, row, col, &dt, x->date) == LXW_NO_ERROR ? 0 : -1;
}

int fs_xlsx_value(fs_xlsx *x, apr_pool_t *p, uint32_t row, uint16_t col, json_object *v,
                  int as_date) {
    if (!v)
        return 0;
    switch (json_object_get_type(v)) {
    case json_type_null: return 0;
    case json_type_boolean: return fs_xlsx_bool(x, row, col, json_object_get_boolean(v));
    case json_type_int: {
        int64_t n = json_object_get_int64(v);
        if (n > (1LL << 53) || n < -(1LL << 53)) /* a double would round it */
            return text_in(x, row, col, fs_json_str(p, v), NULL);
        return fs_xlsx_number(x, row, col, (double)n);
    }
    case json_type_double: {
        double d = json_object_get_double(v);
        if (!isfinite(d))
            return text_in(x, row, col, fs_json_str(p, v), NULL);
        return fs_xlsx_number(x, row, col, d);
    }
    case json_type_string: {
        const char *s = json_object_get_string(v);
        if (as_date) {
            int r = fs_xlsx_date(x, row, col, s);
            if (r <= 0)
                return r;
        }
        return text_in(x, row, col, s, NULL);
    }
    case json_type_array: /* as fs_csv_value joins them, unescaped */
        return json_object_array_length(v) ? text_in(x, row, col, fs_csv_join(p, v), NULL) : 0;
    case json_type_object: return text_in(x, row, col, fs_json_str(p, v), NULL);
    }
    return 0;
}

apr_off_t fs_xlsx_rows_bytes(fs_xlsx *x) {
    if (!x->wb || !x->rows)
        return -1;
    /* the row being filled goes to the file now (packing would write it
     * first: it then finds nothing left), so every row is counted and
     * a write that failed is seen, ferror being kept until cleared */
    lxw_worksheet_write_single_row(x->ws);
    errno = 0;
    if (fflush(x->rows) != 0 || ferror(x->rows)) {
        x->err = errno ? errno : EIO;
        return -1;
    }
    long n = ftell(x->rows);
    if (n < 0) {
        x->err = errno;
        return -1;
    }
    return (apr_off_t)n;
}

int fs_xlsx_errno(const fs_xlsx *x) {
    return x->err;
}

int fs_xlsx_close(fs_xlsx *x) {
    lxw_workbook *wb = x->wb;
    if (!wb)
        return -1;
    /* which file the rows are in: packing closes it once it has copied
     * the rows; a failure before that leaves it open (and its disk
     * held) unless closed here. A second descriptor of it (keep) holds
     * the unlinked file while libxlsxwriter packs, so that its inode
     * cannot be given to another file meanwhile: the rows' descriptor
     * number naming that inode afterwards means it was not closed. */
    struct stat before;
    int fd = x->rows ? fileno(x->rows) : -1;
    int keep = fd >= 0 ? dup(fd) : -1;
    if (keep >= 0 && fstat(keep, &before) != 0) {
        close(keep);
        keep = -1;
    }
    x->wb = NULL; /* workbook_close frees it, whatever it returns */
    apr_pool_cleanup_kill(x->p, x, free_workbook);
    errno = 0;
    lxw_error rc = workbook_close(wb);
    x->err = errno;
    if (rc != LXW_NO_ERROR && keep >= 0) {
        struct stat now;
        if (fstat(fd, &now) == 0 && now.st_dev == before.st_dev && now.st_ino == before.st_ino)
            fclose(x->rows);
    }
    if (keep >= 0)
        close(keep);
    x->rows = NULL;
    if (rc != LXW_NO_ERROR && !x->err)
        x->err = EIO;
    return rc == LXW_NO_ERROR ? 0 : -1;
}
