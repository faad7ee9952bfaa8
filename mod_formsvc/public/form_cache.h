/* form_cache: published and closed public forms served from memory (GET
 * and HEAD /f/{ref}, both the JSON view and the HTML page), per httpd
 * child, invalidated as cache.h describes.
 *
 * The handler calls formsvc_form_cache_serve first; on a miss it loads and
 * renders the form as always and calls formsvc_form_cache_fill once the
 * form is known to be public: the answer it then sends (status 200, the
 * headers the handler set, the body) is recorded on its way out by an
 * output filter and kept under the request's base URL, media type and
 * reference. Never kept: drafts and deleted forms (the handler finds
 * none), HEAD and 304 answers (no body), and, neither kept nor served,
 * HTML pages requested with a query string (it may prefill fields) and
 * anything requested with a respondent link (formsvc_link_personal).
 * An entry lives at most FormsvcFormCacheTTL, never past the form's
 * closesAt nor past its opensAt while that is ahead (the page changes
 * then), and at most 0.5 s for a form with maxSubmissions (submissions
 * do not touch the form row, so nothing notifies when it fills). */
#ifndef FORMSVC_FORM_CACHE_H
#define FORMSVC_FORM_CACHE_H

#include <httpd.h>

#include "fs_lru.h"
#include "fs_negotiate.h"
#include "public/public.h"

/* What a miss remembers for the fill. Lives in the handler's frame. */
typedef struct formsvc_form_ticket {
    int on;   /* the cache may be filled from this request */
    int json; /* JSON view, else the HTML page */
    const char *key, *ref;
    fs_lru_stamp stamp;       /* read before the form was */
    apr_table_t *out0, *err0; /* the headers set before the handler's own */
} formsvc_form_ticket;

/* Answers the request from the cache (returns what the handler returns:
 * OK, or a status such as 304); DECLINED when it cannot, with *t ready
 * for formsvc_form_cache_fill. m is the negotiated media type. */
int formsvc_form_cache_serve(request_rec *r, const char *ref, fs_media m, formsvc_form_ticket *t);
/* The form is public (published or closed): keep the answer about to be
 * sent. status, settings (JSON text) and fields (JSON text) as loaded. */
void formsvc_form_cache_fill(request_rec *r, const formsvc_form_ticket *t, const char *id,
                             const char *slug, const char *status, const char *settings,
                             const char *fields);

/* the row of a published form as submissions need it (fields,
 * settings, version), so that a POST costs one statement, not two. The
 * submission statement refuses the row when the form's version moved on
 * (FS_SUBMIT_STALE), and the handler then checks the answers again
 * against the form read afresh: a row from here is a guess the database
 * confirms, never the last word. Kept under the same key and stamp as the
 * rendered answers, for FormsvcFormCacheTTL or until closesAt.
 * The stamp is read first (formsvc_form_row_stamp), before the lookup
 * or the database read whose row formsvc_form_row_put then keeps;
 * formsvc_form_row_get: 1 and *out (strings in r->pool) on a hit. */
fs_lru_stamp formsvc_form_row_stamp(request_rec *r, const char *ref);
int formsvc_form_row_get(request_rec *r, const char *ref, fs_lru_stamp stamp, formsvc_pubform *out);
void formsvc_form_row_put(request_rec *r, const char *ref, fs_lru_stamp stamp,
                          const formsvc_pubform *f);

/* insert_filter (registered by mod_formsvc.c): the filter that notes a
 * public POST's effect on the form's cached page. */
void formsvc_form_cache_insert_filter(request_rec *r);
/* Registers the output filters FORMSVC_FORM_CAPTURE and FORMSVC_FORM_POSTED. */
void formsvc_form_cache_filters(void);

#endif
