/* subs_export: JSON Lines and XLSX exports of a form's submissions. */
#include "http/subs_export.h"
#include "fs_field_more.h"
#include "fs_json.h"
#include "fs_scores.h"
#include "fs_store_asks.h"
#include "fs_store_links.h"
#include "fs_store_partials.h"
#include "fs_xlsx.h"
#include "http/auth.h"
#include "http/response.h"
#include "http/subs_columns.h"
#include "runtime/config_global.h"
#include "runtime/export_slots.h"
#include "runtime/log.h"
#include "runtime/request_ctx.h"

#include <apr_file_io.h>
#include <apr_strings.h>
#include <errno.h>
#include <fcntl.h>
#include <http_protocol.h>
#include <sys/statvfs.h>
#include <unistd.h>

APLOG_USE_MODULE(formsvc);

#define FIRST FORMSVC_SUBS_FIRST
#define BATCH 500
#define BATCH_BYTES FORMSVC_SUBS_BATCH_BYTES
/* the file is sent in pieces of this size */
#define SEND_CHUNK (64 * 1024)

int formsvc_subs_next_limit(int limit, apr_size_t bytes) {
    if (bytes > BATCH_BYTES && limit > 1)
        return limit / 2;
    if (bytes < BATCH_BYTES / 2 && limit < BATCH)
        return limit * 2 > BATCH ? BATCH : limit * 2;
    return limit;
}

void formsvc_subs_download_headers(request_rec *r, const formsvc_form *form, const char *ext) {
    apr_table_setn(
        r->headers_out, "Content-Disposition",
        apr_psprintf(r->pool, "attachment; filename=\"%s-submissions.%s\"", form->id, ext));
    apr_table_setn(r->headers_out, "Cache-Control", "no-store");
    apr_table_setn(r->headers_out, "X-Content-Type-Options", "nosniff");
    apr_table_setn(r->headers_out, "Vary", "Accept");
}

/* ---- JSON Lines ---------------------------------------------------------- */

int formsvc_subs_send_jsonl(request_rec *r, const formsvc_form *form, const fs_sub_filter *which,
                            int completed) {
    const char *after = NULL;
    int started = 0, limit = FIRST;
    apr_array_header_t *buf = apr_array_make(r->pool, BATCH_BYTES, 1);
    for (;;) {
        apr_pool_t *sub;
        apr_pool_create(&sub, r->pool);
        fs_store *st = fs_store_sub(formsvc_store(r), sub);
        fs_list_page page;
        fs_error *e =
            completed ? fs_store_sub_list(st, which, after, limit, &page)
                      : fs_store_partial_list(st, form->id, which->user_id, after, limit, &page);
        if (e) {
            apr_pool_destroy(sub);
            if (!started)
                return formsvc_send_problem(r, e);
            /* the status line is gone: an incomplete transfer, not a
             * short file */
            FORMSVC_LOG(r, APLOG_ERR, 00430, "JSON Lines export of %s cut short: %s", form->id,
                        e->cause ? e->cause : e->slug);
            formsvc_send_cut(r);
            return OK;
        }
        if (!started) {
            formsvc_subs_download_headers(r, form, "jsonl");
            formsvc_send_start(r, 200, FORMSVC_JSONL_TYPE);
            started = 1;
            if (r->header_only) {
                apr_pool_destroy(sub);
                return OK;
            }
        }
        buf->nelts = 0;
        for (int i = 0; i < page.n; i++) {
            /* each item as the JSON list writes it (formsvc_send_page:
             * json-c's text, which holds no raw newline), one a line */
            json_object *o = fs_json_parse_trusted(sub, page.items[i].json);
            const char *text = o ? fs_json_str(sub, o) : page.items[i].json;
            apr_size_t n = strlen(text);
            apr_array_header_t piece = {sub, 1, (int)n, (int)n, (char *)text};
            apr_array_cat(buf, &piece);
            APR_ARRAY_PUSH(buf, char) = '\n';
        }
        limit = formsvc_subs_next_limit(limit, (apr_size_t)buf->nelts);
        formsvc_send_more(r, buf->elts, (apr_size_t)buf->nelts, page.more);
        if (page.more)
            after = apr_pstrdup(r->pool, page.items[page.n - 1].id);
        int more = page.more;
        apr_pool_destroy(sub);
        if (!more || r->connection->aborted)
            return OK;
    }
}

/* ---- XLSX ------------------------------------------------------------------ */

static int heading(fs_xlsx *x, uint16_t *col, const char *s) {
    return fs_xlsx_heading(x, 0, (*col)++, s) < 0;
}

static int header_row(fs_xlsx *x, const formsvc_sub_cols *c) {
    uint16_t col = 0;
    int bad = 0;
    for (int i = 0; i < c->n; i++)
        bad |= heading(x, &col, c->names[i]);
    return bad ? -1 : 0;
}

/* One submission's row; -1 when libxlsxwriter failed. *cut counts the
 * cells cut at the format's length. */
static int data_row(fs_xlsx *x, apr_pool_t *p, uint32_t row, const formsvc_sub_cols *c,
                    const fs_sub_export_row *s, int *cut) {
    uint16_t col = 0;
    int bad = 0;
#define CELL(expr)                                                                                 \
    do {                                                                                           \
        int v_ = (expr);                                                                           \
        if (v_ < 0)                                                                                \
            bad = 1;                                                                               \
        else                                                                                       \
            *cut += v_;                                                                            \
    } while (0)
    CELL(fs_xlsx_text(x, row, col++, s->id));
    CELL(fs_xlsx_text(x, row, col++, s->created_at));
    CELL(fs_xlsx_number(x, row, col++, atof(s->form_version)));
    if (c->with_spam)
        CELL(fs_xlsx_bool(x, row, col++, s->spam));
    json_object *data = fs_json_parse_trusted(p, s->data);
    for (int i = 0; i < c->nq; i++)
        CELL(fs_xlsx_value(x, p, row, col++, fs_field_column_value(data, c->keys[i]),
                           c->as_date[i]));
    if (c->links) {
        CELL(fs_xlsx_text(x, row, col++, s->link_id && *s->link_id ? s->link_id : NULL));
        /* compact, as the API writes JSON (jsonb's text has spaces) */
        json_object *m = s->link_metadata && *s->link_metadata
                             ? fs_json_parse_trusted(p, s->link_metadata)
                             : NULL;
        CELL(fs_xlsx_text(x, row, col++, m ? fs_json_str(p, m) : NULL));
    }
    if (c->asked)
        CELL(fs_xlsx_text(x, row, col++, s->ask_id));
    if (c->owned) {
        CELL(fs_xlsx_text(x, row, col++, s->status));
        CELL(fs_xlsx_text(x, row, col++, s->tags));
        CELL(fs_xlsx_text(x, row, col++, s->note));
    }
    if (c->ended)
        CELL(fs_xlsx_text(x, row, col++, s->ending));
    if (c->ncalc) { /* numbers as numbers, texts as text cells */
        json_object **v = fs_scores_values(p, c->calc, c->ncalc, s->calculated);
        for (int i = 0; i < c->ncalc; i++)
            CELL(fs_xlsx_value(x, p, row, col++, v[i], 0));
    }
    if (c->scored) {
        if (s->spam_score && *s->spam_score)
            CELL(fs_xlsx_number(x, row, col++, atof(s->spam_score)));
        else
            col++;
    }
#undef CELL
    return bad ? -1 : 0;
}

/* r->pool's cleanup of the workbook's file: removed on every path (the
 * file is unlinked before sending, so this finds nothing then) */
static apr_status_t remove_file(void *path) {
    unlink(path);
    return APR_SUCCESS;
}

/* A 500 whose cause (logged with it by formsvc_send_problem, FS00103)
 * says what failed; nothing of the server's files goes to the client. */
static int xlsx_failed(request_rec *r, const formsvc_form *form, const char *what,
                       apr_status_t rv) {
    fs_error *e =
        fs_error_make(r->pool, "internal", "The spreadsheet of the submissions could not be made.");
    e->cause = apr_psprintf(r->pool, "XLSX export of %s: %s: %pm", form->id, what, &rv);
    return formsvc_send_problem(r, e);
}

/* The temporary directory could not take the export (missing, not
 * writable, full): said in the log with the directory, its free space
 * and the reason, so the operator can act; a 503 to the client, before
 * any byte of the file. Nothing written there is left behind. */
static int xlsx_no_room(request_rec *r, const formsvc_form *form, const char *dir, const char *what,
                        int err) {
    struct statvfs v;
    const char *free_mb = statvfs(dir, &v) == 0
                              ? apr_psprintf(r->pool, "%" APR_UINT64_T_FMT " MB free there",
                                             (apr_uint64_t)v.f_bavail * v.f_frsize / 1048576)
                              : "free space unknown";
    apr_status_t rv = APR_FROM_OS_ERROR(err ? err : EIO);
    FORMSVC_LOG(r, APLOG_ERR, 00380,
                "XLSX export of %s: cannot %s in %s (FormsvcUploadTempDir): %pm; %s", form->id,
                what, dir, &rv, free_mb);
    fs_error *e = fs_error_make(r->pool, "service-unavailable",
                                "The server has no room to make the spreadsheet now; try again "
                                "later, or take CSV or JSON Lines, which need no disk.");
    e->retry_after = 30;
    return formsvc_send_problem(r, e);
}

/* Reserves bytes in the workbook's file at path for its packing:
 * libxlsxwriter copies the rows into the worksheet's XML and zips it
 * without checking its writes of the copy, so a disk that fills then
 * (and is freed before the zip is written, say by another export that
 * failed) would give a complete-looking file with rows missing. The
 * reservation is given back when libxlsxwriter opens the file to write
 * the zip, just before it needs the room. 0, or an errno. */
static int xlsx_reserve(const char *path, apr_off_t bytes) {
    int fd = open(path, O_WRONLY);
    if (fd < 0)
        return errno;
    int rc = posix_fallocate(fd, 0, (off_t)bytes);
    close(fd);
    return rc;
}

int formsvc_subs_send_xlsx(request_rec *r, const formsvc_form *form, const fs_sub_filter *which) {
    /* at most FormsvcXlsxExports at once, server-wide (each holds disk
     * for its length); the slot goes back with r->pool */
    if (!formsvc_export_slot_take(r)) {
        FORMSVC_LOG(r, APLOG_WARNING, 00432,
                    "XLSX export of %s refused: FormsvcXlsxExports (%d) exports run already",
                    form->id, formsvc_global_conf()->xlsx_exports);
        fs_error *busy = fs_error_make(r->pool, "service-unavailable",
                                       "Too many spreadsheet exports are being made now; try "
                                       "again shortly, or take CSV or JSON Lines, which are "
                                       "not limited.");
        busy->retry_after = 10;
        return formsvc_send_problem(r, busy);
    }
    formsvc_sub_cols c; /* the CSV's columns (http/subs_columns.h) */
    fs_error *e = formsvc_sub_cols_make(r, form, which->spam, &c);
    if (e)
        return formsvc_send_problem(r, e);
    const char *dir = formsvc_global_conf()->upload_tmp_dir;
    if (!dir)
        dir = "/tmp";
    /* the name says whose it is: formsvc-xlsx-<pid of the child>- */
    char *path = apr_psprintf(r->pool, "%s/formsvc-xlsx-%ld-XXXXXX", dir, (long)getpid());
    apr_file_t *f;
    apr_status_t rv =
        apr_file_mktemp(&f, path, APR_FOPEN_CREATE | APR_FOPEN_WRITE | APR_FOPEN_EXCL, r->pool);
    if (rv != APR_SUCCESS)
        return xlsx_no_room(r, form, dir, "make a file", APR_TO_OS_ERROR(rv));
    apr_pool_cleanup_register(r->pool, path, remove_file, apr_pool_cleanup_null);
    apr_file_close(f); /* libxlsxwriter writes it again by name when closing */
    apr_pool_t *wp;    /* the workbook's memory: its formats and one row */
    apr_pool_create(&wp, r->pool);
    fs_xlsx *x = fs_xlsx_open(wp, path, dir, "Submissions");
    if (!x || header_row(x, &c) < 0)
        return xlsx_failed(r, form, "cannot start the workbook", APR_EGENERAL);
    const char *after = NULL;
    int limit = FIRST, cut = 0;
    uint32_t row = 1;
    apr_off_t rows_xml = 0; /* the rows' XML so far, after each batch */
    for (;;) {
        apr_pool_t *sub;
        apr_pool_create(&sub, r->pool);
        fs_sub_batch rs;
        e = fs_store_sub_export(fs_store_sub(formsvc_store(r), sub), which, after, limit, &rs);
        /* the connection goes back while the batch is written */
        formsvc_db_release(r);
        if (e) {
            apr_pool_destroy(sub);
            return formsvc_send_problem(r, e);
        }
        if (row + (uint32_t)rs.n > FS_XLSX_MAX_ROWS) {
            apr_pool_destroy(sub);
            fs_error *verr = fs_error_validation(r->pool);
            fs_error_add(r->pool, verr, "/since", "too-many-rows",
                         "A worksheet holds at most %d submissions: narrow the export with "
                         "since and until, or take it as text/csv or application/x-ndjson.",
                         FS_XLSX_MAX_ROWS - 1);
            return formsvc_send_problem(r, verr);
        }
        apr_size_t bytes = 0;
        for (int i = 0; i < rs.n; i++) {
            apr_pool_t *rp; /* what one row's cells need */
            apr_pool_create(&rp, sub);
            bytes += strlen(rs.rows[i].data);
            int bad = data_row(x, rp, row++, &c, &rs.rows[i], &cut);
            apr_pool_destroy(rp);
            if (bad) {
                apr_pool_destroy(sub);
                return xlsx_failed(r, form, "cannot write a row", APR_EGENERAL);
            }
        }
        int more = rs.n == limit;
        limit = formsvc_subs_next_limit(limit, bytes);
        if (more)
            after = apr_pstrdup(r->pool, rs.rows[rs.n - 1].id);
        apr_pool_destroy(sub);
        /* a disk that filled is seen at the batch it filled at */
        if ((rows_xml = fs_xlsx_rows_bytes(x)) < 0)
            return xlsx_no_room(r, form, dir, "write the rows", fs_xlsx_errno(x));
        if (!more)
            break;
        if (r->connection->aborted)
            return OK;
    }
    /* the copy of the rows, the zip being written as the copy is read
     * (smaller than the XML), and 1 MB for the workbook's other parts */
    int err = xlsx_reserve(path, rows_xml + 1024 * 1024);
    if (err)
        return xlsx_no_room(r, form, dir,
                            apr_psprintf(r->pool,
                                         "reserve %" APR_OFF_T_FMT " MB to pack the workbook",
                                         rows_xml / 1048576 + 1),
                            err);
    if (fs_xlsx_close(x) < 0)
        return xlsx_no_room(r, form, dir, "pack the workbook", fs_xlsx_errno(x));
    apr_pool_destroy(wp);
    apr_finfo_t fi;
    if ((rv = apr_file_open(&f, path, APR_FOPEN_READ, 0, r->pool)) != APR_SUCCESS ||
        (rv = apr_file_info_get(&fi, APR_FINFO_SIZE, f)) != APR_SUCCESS)
        return xlsx_failed(r, form, "cannot read the workbook", rv);
    /* only the descriptor names it now: nothing is left behind, whatever
     * happens to the request or the child while it is sent */
    unlink(path);
    if (cut)
        apr_table_setn(r->headers_out, "Formsvc-Cells-Cut", apr_itoa(r->pool, cut));
    formsvc_subs_download_headers(r, form, "xlsx");
    ap_set_content_length(r, fi.size);
    formsvc_send_start(r, 200, FORMSVC_XLSX_TYPE);
    if (r->header_only)
        return OK;
    char *chunk = apr_palloc(r->pool, SEND_CHUNK);
    for (apr_off_t left = fi.size; left > 0 && !r->connection->aborted;) {
        apr_size_t n = SEND_CHUNK;
        if ((rv = apr_file_read(f, chunk, &n)) != APR_SUCCESS || n == 0) {
            FORMSVC_LOG(r, APLOG_ERR, 00431, "XLSX export of %s cut short: %pm", form->id, &rv);
            formsvc_send_cut(r);
            return OK;
        }
        left -= (apr_off_t)n;
        formsvc_send_more(r, chunk, n, 1);
    }
    return OK;
}
