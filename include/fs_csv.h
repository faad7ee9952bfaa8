/* fs_csv: RFC 4180 CSV, with spreadsheet formula neutralisation.
 *
 * A cell is quoted when it holds a comma, a semicolon (the separator of
 * spreadsheets in many locales), a double quote, CR or LF (quotes doubled
 * inside). A text cell that begins with =, +, -, @, ;, a tab or a CR is
 * prefixed with a single quote ('), so that spreadsheet programs show it
 * instead of running it as a formula (OWASP "CSV injection"); so is every
 * line inside a cell whose first non-blank character (after spaces and
 * tabs) is =, +, -, @ or ;: the quote goes right before that character.
 * Numbers are written as they are (a negative number is not a formula).
 * Rows end with CRLF. */
#ifndef FS_CSV_H
#define FS_CSV_H

#include <apr_pools.h>
#include <apr_tables.h>
#include <json.h>

/* One text cell, escaped (and neutralised), in p. NULL gives "". */
char *fs_csv_cell(apr_pool_t *p, const char *text);

/* One cell from a JSON value of a submission: strings as text cells,
 * numbers as they are, booleans true/false, null or absent empty, arrays
 * (multiselect answers) their items joined with "; ". In p. */
char *fs_csv_value(apr_pool_t *p, json_object *v);
/* An array answer's items as one text, unescaped, joined with "; " (a
 * string as it is, an uploaded file as "name <url>", anything else its
 * JSON): what fs_csv_value writes for it before escaping, and the XLSX's
 * text for it (fs_xlsx.c). In p; "" for an empty array. */
char *fs_csv_join(apr_pool_t *p, json_object *array);

/* Appends the cells (already escaped) joined by commas and CRLF to buf. */
void fs_csv_row(apr_array_header_t *buf, const char *const *cells, int n);

/* Appends n bytes to buf as they are (a comma, CRLF, a cell already
 * escaped). buf is an array of bytes; it grows by doubling in its pool. */
void fs_csv_put(apr_array_header_t *buf, const char *bytes, apr_size_t n);

/* Appends the cell of a text (escaped and neutralised as fs_csv_cell does)
 * to buf, without a copy of it anywhere else. NULL appends nothing (an
 * empty cell). */
void fs_csv_put_cell(apr_array_header_t *buf, const char *text);

/* Appends to buf, for each of the n keys, a comma and the cell of the
 * object's member of that key, exactly as fs_csv_value writes it for the
 * value json-c parses from json (an absent key: an empty cell). json is the
 * text of a JSON object as PostgreSQL writes jsonb; it is read without
 * building JSON objects (a list or an object member, and a number json-c
 * would not write back as it is, still go through json-c, in p). scratch
 * (an array of bytes) holds a string while it is unescaped; reuse it.
 * Returns 0, or -1 with buf as it was when json is not such a text (NULL,
 * or anything json-c would refuse): the caller then parses it with json-c
 * and writes fs_csv_value's cells, which is what this equals. */
int fs_csv_put_answers(apr_array_header_t *buf, apr_array_header_t *scratch, apr_pool_t *p,
                       const char *json, const char *const *keys, int n);

/* Reads back a CSV document of len bytes (RFC 4180, as fs_csv_row writes
 * it): *header gets the cells of its first record, unquoted (const char *
 * in p; an empty array for an empty document), *rows the number of records
 * after it. A record is ended by LF outside quotes (CR before it ignored);
 * a last record without one counts too. */
void fs_csv_scan(apr_pool_t *p, const char *s, apr_size_t len, apr_array_header_t **header,
                 int *rows);

#endif
