/* subs_export: a form's submissions as a whole file, besides the CSV of
 * handle_submissions.c: JSON Lines (application/x-ndjson), streamed in
 * batches as the CSV is, and XLSX, written to a temporary file and then
 * streamed (docs/api.md, docs/performance.md). */
#ifndef FORMSVC_SUBS_EXPORT_H
#define FORMSVC_SUBS_EXPORT_H

#include "fs_store_forms.h"
#include "http/forms_access.h"

#include <httpd.h>

#define FORMSVC_XLSX_TYPE "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
#define FORMSVC_JSONL_TYPE "application/x-ndjson"

/* Every export (CSV, JSON Lines, XLSX) is read in batches of rows, each
 * its own keyset statement on a connection given back before the batch is
 * written: from FORMSVC_SUBS_FIRST rows, doubled up to 500 while a batch's
 * text stays under half of FORMSVC_SUBS_BATCH_BYTES, halved when it passes
 * it, so that an export holds about one batch of that size in memory.
 * formsvc_subs_next_limit is the next batch's size after one of bytes. */
#define FORMSVC_SUBS_FIRST 50
#define FORMSVC_SUBS_BATCH_BYTES (256 * 1024)
int formsvc_subs_next_limit(int limit, apr_size_t bytes);
/* A whole export's headers: an attachment named <form>-submissions.<ext>,
 * no-store, nosniff, Vary: Accept. */
void formsvc_subs_download_headers(request_rec *r, const formsvc_form *form, const char *ext);

/* Every submission which selects (or, completed 0, every partial answer of
 * the form), newest first, one line each: exactly the objects of the JSON
 * list's items. Read in batches, each on a connection given back before the
 * batch is written. */
int formsvc_subs_send_jsonl(request_rec *r, const formsvc_form *form, const fs_sub_filter *which,
                            int completed);

/* The submissions which selects as one worksheet: the CSV's columns and
 * cells, typed (fs_xlsx.h). The workbook is written to a file of
 * FormsvcUploadTempDir, batch by batch, then sent from it; the file is
 * unlinked before the first byte is sent (and by r->pool's cleanup on any
 * path before that). */
int formsvc_subs_send_xlsx(request_rec *r, const formsvc_form *form, const fs_sub_filter *which);

#endif
