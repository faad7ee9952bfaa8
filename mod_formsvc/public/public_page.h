/* public_page: what the public routes share (public_page.c): the form as
 * served (pub), loading it, and every page, problem and header the
 * public side sends; and the routes' handlers for the table in
 * public_routes.c. Everything returned is in r->pool (json-c objects
 * through a pool cleanup); NULL means "none" as each function says. */
#ifndef FORMSVC_PUBLIC_PAGE_H
#define FORMSVC_PUBLIC_PAGE_H

#include "fs_fieldset.h"
#include "fs_html.h"
#include "fs_locale.h"
#include "http/links.h"
#include "http/request.h"
#include "http/response.h"
#include "http/router.h"
#include "public/public.h"
#include "runtime/config.h"
#include "runtime/log.h"
#include "runtime/request_ctx.h"

/* One public form, ready to serve. */
typedef struct pub {
    formsvc_pubform f;
    fs_fieldset *fs;
    json_object *fields, *settings;
    const char *action; /* absolute URL the form posts to */
    int honeypot;
    const char *accent;       /* settings.theme.accentColor, or NULL */
    const char *logo_url;     /* settings.theme.logoUrl when https and fs_url_origin vouches */
    const char *ancestors;    /* settings.embed's origins (fs_embed_frame_ancestors), or NULL */
    const formsvc_link *link; /* the respondent link of the request, or NULL */
    /* the submission token a form page of this request carries: the one
     * posted (a page given back keeps it), NULL for a fresh one */
    const char *token;
    /* a form of several pages (fs_pages.h): the page a form page of this
     * request shows (the page of the first error when it has errors), and
     * whether an earlier step filled the honeypot (kept in the state) */
    int page, spam;
    json_object *trail; /* the pages shown before page (fs_pagestate), or NULL */
    /* partial answers (settings.partial, public_partial.c): the resume
     * token of the filling-in this page continues and the time (RFC 3339)
     * its answers are kept until; NULL: none yet */
    const char *resume, *resume_until;
} pub;

/* Where formsvc_pub_load reads a form: the database (ROW_DB); this
 * child's memory first (ROW_MEMORY), only for what the database checks
 * again (a submission's version, form_cache.h); or the database, keeping
 * the row in memory (ROW_REFILL, after the memory's row proved old). */
enum { ROW_DB, ROW_MEMORY, ROW_REFILL };

/* Loads a published or closed form by id or slug into *pb: 404 problem
 * when there is none; a 503 problem when the database is away, with
 * *cached set when this process still has a copy (then pb is filled
 * from it). */
fs_error *formsvc_pub_load(request_rec *r, const char *ref, pub *pb, int *cached, int from);

/* A string of the form's settings, or NULL. */
const char *formsvc_pub_setting(pub *pb, const char *k);
/* The language of the form's pages: settings.locale, or Accept-Language
 * for "auto" (which adds it to Vary). */
const fs_locale *formsvc_pub_locale(request_rec *r, pub *pb);
/* An ending's redirectUrl (settings.endings) when fs_redirect_url_valid
 * accepts it, else NULL. */
const char *formsvc_pub_ending_url(request_rec *r, json_object *ending);
/* settings.redirectUrl when fs_redirect_url_valid accepts it, else NULL. */
const char *formsvc_pub_redirect_url(request_rec *r, pub *pb);
/* settings.confirmation.emailField, or NULL. */
const char *formsvc_pub_copy_field(pub *pb);
/* settings.opensAt when it is still ahead, else NULL. */
const char *formsvc_pub_opens_later(pub *pb);
/* The form-not-open problem (opensAt in it). */
fs_error *formsvc_pub_form_not_open(request_rec *r, const char *opens);
/* The URL of form id's thanks page. */
const char *formsvc_pub_thanks_url(request_rec *r, const char *id);

/* The page's security headers (CSP, framing, referrer); pb may be NULL
 * (a page without a form). */
void formsvc_pub_page_headers(request_rec *r, pub *pb);
/* The entity tag of a representation (a form page's token left out). */
const char *formsvc_pub_etag(request_rec *r, const char *body, apr_size_t len);
/* Sends body; cacheable: an ETag and 304 on If-None-Match, else no-store. */
int formsvc_pub_send_body(request_rec *r, int status, const char *ctype, const char *body,
                          int cacheable);
/* What formsvc_pub_send_body's cacheable may also be: not cacheable, but
 * kept by the browser for its Back and Forward (Cache-Control: private,
 * no-cache, no ETag) rather than no-store. */
#define PUB_HISTORY 2
/* Sends an HTML page with formsvc_pub_page_headers (pb may be NULL). */
int formsvc_pub_send_html(request_rec *r, int status, pub *pb, const char *html, int cacheable);
/* CORS headers of the public routes. */
void formsvc_pub_cors(request_rec *r);
/* A problem+json answer with the public routes' headers. */
int formsvc_pub_problem(request_rec *r, fs_error *e);
/* The form page of pb (values, errors and notice may be NULL). On a form
 * of several pages: the page pb->page, or the first with an error of
 * errors (only those are shown), with the answers in values sealed into
 * its state. */
fs_page formsvc_pub_page_of(request_rec *r, pub *pb, json_object *values, const fs_error *errors,
                            const char *notice);
int formsvc_pub_html_page(request_rec *r, int status, pub *pb, json_object *values,
                          const fs_error *errors, const char *notice);
/* The page of a closed form; of a form that opens later. */
int formsvc_pub_closed_page(request_rec *r, int status, pub *pb);
int formsvc_pub_not_open_page(request_rec *r, int status, pub *pb, const char *opens);
/* A step of a form of several pages refused (its state is not this
 * form's, has expired, or was made for another version of the form): a
 * page that says so with a link to the form's start (html), else a
 * problem. which: FS_PAGESTATE_BAD, FS_PAGESTATE_EXPIRED, or -1 for a
 * changed form. */
int formsvc_pub_state_refused(request_rec *r, pub *pb, int which, int html);
/* 503 without a form: a page in the respondent's language. */
int formsvc_pub_unavailable_page(request_rec *r);
/* 404 and 410 of a form as a page in the browser's language; other
 * problems as problem+json. */
int formsvc_pub_missing_page(request_rec *r, fs_error *e);
/* The state page q of pb carries (sealed into it by its render, measured
 * before a step goes there: the same bytes): the answers of the other
 * pages among values, the trail of the pages shown before q, an expiry
 * FS_PAGESTATE_TTL_SECONDS from now. In r->pool. */
fs_pagestate formsvc_page_state_for(request_rec *r, const pub *pb, int q, int spam,
                                    json_object *values);
/* 413 of a form post as a page in the browser's language. */
int formsvc_pub_too_large_page(request_rec *r, fs_error *e);
/* A load failure's answer: pages when html (503, 404, 410), else the problem. */
int formsvc_pub_load_failed(request_rec *r, fs_error *e, int html);

/* The respondent link of the request (?l=) for the loaded form: sets
 * pb->link and adds it to pb->action; a problem when it cannot be used
 * (or when the request carries none and the form needs one), NULL (and
 * nothing set) when the request carries none. */
fs_error *formsvc_pub_take_link(request_rec *r, pub *pb);
/* 1 when the form takes answers only through a respondent link
 * (settings.linkRequired: an ask's form); a request without one is then
 * refused with formsvc_pub_link_missing (403 link-required). */
int formsvc_pub_link_required(pub *pb);
fs_error *formsvc_pub_link_missing(request_rec *r);
/* Link lk (taken before for this form) goes with pb: pb->link, pb->action. */
void formsvc_pub_use_link(request_rec *r, pub *pb, const formsvc_link *lk);
/* Where the page of an ask's link (pb->link, its ask_id set) posts its
 * decline button. */
const char *formsvc_pub_decline_url(request_rec *r, pub *pb);
/* The database is away: the link as sent goes into pb->action unchecked. */
void formsvc_pub_keep_link(request_rec *r, pub *pb);
/* A link that cannot be used: a page for people (html), a problem otherwise. */
int formsvc_pub_link_refused(request_rec *r, pub *pb, fs_error *e, int html);

/* Partial answers (public_partial.c): 1 when pb keeps them
 * (settings.partial on a form of several pages); the page pg of pb gets
 * its resume token, URL and "save and continue later" button; a GET
 * with ?resume= (asked) restores the answers and the page reached, or
 * says the link cannot be used. */
int formsvc_partial_on(const pub *pb);
void formsvc_partial_page(request_rec *r, pub *pb, fs_page *pg);
int formsvc_partial_resume_asked(request_rec *r);
int formsvc_partial_resume_get(request_rec *r, const char *ref);

/* Editing after sending (public_edit.c, settings.allowEdits): whether
 * the request carries an edit token (?edit=); the edit page of a GET
 * with one (the form with the submission's answers, or a page that says
 * the link cannot be used: 404, 410); pb->action carrying the request's
 * well-formed edit token, so that every page of the edit posts it; and
 * the thanks page's sentence about the edit link (*url set), or NULL. */
int formsvc_edit_asked(request_rec *r);
int formsvc_edit_get(request_rec *r, const char *ref);
void formsvc_edit_action(request_rec *r, pub *pb);
const char *formsvc_edit_thanks_message(request_rec *r, pub *pb, const fs_locale *loc,
                                        const char **url);
/* The routes' handlers (public_routes.c): public_view.c and public_submit.c. */
formsvc_handler formsvc_h_public_get, formsvc_h_public_thanks, formsvc_h_public_options,
    formsvc_h_embed_js, formsvc_h_public_post, formsvc_h_public_decline, formsvc_h_public_declined;

#endif
