/* fs_xlsx: one worksheet of an XLSX workbook written through libxlsxwriter
 * in its constant-memory mode: a row is kept in memory only until the next
 * row begins, then written to a temporary file of libxlsxwriter's (in
 * tmpdir, unlinked as soon as it is made), and fs_xlsx_close packs the
 * workbook (a zip) into the file at path. Rows must come in order, each
 * row's cells left to right.
 *
 * Cells are typed: text is always a text cell (an inline string: no cell
 * is ever a formula, whatever it begins with), numbers are numbers,
 * booleans booleans, dates (YYYY-MM-DD) dates shown as yyyy-mm-dd. */
#ifndef FS_XLSX_H
#define FS_XLSX_H

#include <apr_pools.h>
#include <json.h>
#include <stdint.h>

/* The rows of a worksheet (the header row included) and the characters of
 * a cell, as the format allows. */
#define FS_XLSX_MAX_ROWS 1048576
#define FS_XLSX_MAX_CHARS 32767

typedef struct fs_xlsx fs_xlsx;

/* A workbook at path with one worksheet named sheet; its temporary files
 * in tmpdir (NULL: the system's). NULL when it cannot be made. A workbook
 * not closed by fs_xlsx_close is freed (without writing path) when p is
 * cleared. */
fs_xlsx *fs_xlsx_open(apr_pool_t *p, const char *path, const char *tmpdir, const char *sheet);

/* A text cell; NULL writes nothing (an empty cell). Text longer than
 * FS_XLSX_MAX_CHARS characters is cut there (on a character boundary).
 * Returns 1 when it was cut, 0 when not, -1 when libxlsxwriter failed. */
int fs_xlsx_text(fs_xlsx *x, uint32_t row, uint16_t col, const char *s);

/* A bold text cell (the header row). */
int fs_xlsx_heading(fs_xlsx *x, uint32_t row, uint16_t col, const char *s);

/* A number cell, a boolean cell: 0, or -1 when libxlsxwriter failed. */
int fs_xlsx_number(fs_xlsx *x, uint32_t row, uint16_t col, double v);
int fs_xlsx_bool(fs_xlsx *x, uint32_t row, uint16_t col, int v);

/* A date cell when s is a simple date (YYYY-MM-DD, a real day of years
 * 1900 to 9999, the span Excel shows): 0; 1 when it is not (nothing
 * written); -1 when libxlsxwriter failed. */
int fs_xlsx_date(fs_xlsx *x, uint32_t row, uint16_t col, const char *s);

/* The cell of an answer, typed as its JSON value is: null or NULL writes
 * nothing; a boolean a boolean; a number a number (an integer beyond
 * 2^53, which a spreadsheet's double cannot hold, as its text); a string
 * text, or a date when as_date and it is a simple date; an array its items
 * joined with "; " as fs_csv_value joins them (an uploaded file as its
 * name and URL), an object its JSON text. Text as fs_xlsx_text (p holds
 * what is joined). Returns as fs_xlsx_text. */
int fs_xlsx_value(fs_xlsx *x, apr_pool_t *p, uint32_t row, uint16_t col, json_object *v,
                  int as_date);

/* The bytes of the rows' XML written so far (every row given until now
 * included), in libxlsxwriter's temporary file: packing copies them once
 * more into the worksheet's XML before zipping it, so closing needs about
 * that much free space again in tmpdir. -1 when a write of the rows
 * failed (a full disk: libxlsxwriter does not say so itself, and would
 * pack what was written), fs_xlsx_errno says why. */
apr_off_t fs_xlsx_rows_bytes(fs_xlsx *x);

/* Packs the workbook into path and frees it, with its temporary files,
 * whatever happens: 0, or -1 when it could not be written (path may then
 * hold part of it: the caller removes it; fs_xlsx_errno says why). */
int fs_xlsx_close(fs_xlsx *x);

/* errno of the last failure of fs_xlsx_rows_bytes or fs_xlsx_close (EIO
 * when libxlsxwriter gave none), 0 before any. */
int fs_xlsx_errno(const fs_xlsx *x);

#endif
