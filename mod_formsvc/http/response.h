/* response: every answer of the module leaves through formsvc_send_body
 * (or, for a body sent in pieces, formsvc_send_start/_more), so that an
 * internal dispatch (dispatch.h) can keep any handler's answer in its
 * capture instead of sending it. The other functions here are the shapes
 * handlers use: JSON, problem+json, HTML pages of fs_html, empty answers,
 * list pages. All return the value a handler returns (OK). */
#ifndef FORMSVC_RESPONSE_H
#define FORMSVC_RESPONSE_H

#include <httpd.h>
#include <json.h>

#include "fs_error.h"
#include "fs_store.h"

/* The one way out: status, media type (NULL: none) and body of len bytes
 * (NULL: no body and no Content-Length, as for 204 or 303 without a page).
 * body must be NUL-terminated and live as long as the request. Sets
 * Content-Length; writes nothing for HEAD. Headers are the caller's. The
 * request's pooled database connection goes back first (unless inside a
 * transaction): none waits while the client reads. */
int formsvc_send_body(request_rec *r, int status, const char *type, const char *body,
                      apr_size_t len);

/* A body sent in pieces (a CSV export): start sets status and type (no
 * Content-Length); each piece follows with formsvc_send_more, flushed to
 * the client when flush is set, after the request's pooled database
 * connection went back (a store call for the next piece takes one again).
 * Nothing is written for HEAD. In a capture the pieces are joined. */
int formsvc_send_start(request_rec *r, int status, const char *type);
void formsvc_send_more(request_rec *r, const char *buf, apr_size_t len, int flush);
/* Breaks off a started answer that cannot be completed: the connection is
 * closed so that the client sees an incomplete transfer rather than a
 * short body (in a capture: a 500 with no body). */
void formsvc_send_cut(request_rec *r);

/* JSON (application/json), Cache-Control: no-store, nosniff. */
int formsvc_send_json(request_rec *r, int status, const char *json);
int formsvc_send_obj(request_rec *r, int status, json_object *o);
/* Logs a 5xx once, with the request: 503 as a warning (FS00102), any
 * other as an error with the problem's cause (FS00103). instance: the
 * path to name (NULL: r->uri). Answers that are not problem documents
 * (HTML pages) call it themselves; formsvc_send_problem always does. */
void formsvc_log_problem(request_rec *r, const fs_error *e, const char *instance);
/* problem+json of e, with its WWW-Authenticate and Retry-After; 5xx are
 * logged (formsvc_log_problem). */
int formsvc_send_problem(request_rec *r, fs_error *e);
/* No body, Cache-Control: no-store. */
int formsvc_send_empty(request_rec *r, int status);
/* An HTML page (an fs_html document) as text/html; charset=utf-8, nosniff.
 * The caller sets Content-Security-Policy (style-src fs_html_style_src)
 * and caching. */
int formsvc_send_html(request_rec *r, int status, const char *html);
/* A page opened from a link in a mail, whose URL carries a token: never
 * cached, never sent on as a Referer, never framed, styled only by
 * fs_html's sheet, its forms posting only to form_action (a CSP source
 * list such as "'self'", or "'none'"). */
int formsvc_send_link_page(request_rec *r, int status, const char *form_action, const char *html);

/* Sets Link: <the same URL with cursor=cursor>; rel="next" (RFC 8288),
 * keeping every query parameter but cursor and after. */
void formsvc_link_next(request_rec *r, const char *cursor);
/* Sends {"data": [...], "nextCursor": ...} with a Link header when more
 * items follow the page. */
int formsvc_send_page(request_rec *r, const char *kind, const fs_list_page *page);

#endif
