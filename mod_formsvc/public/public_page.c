/* public_page: the public form as served, and every page and problem the
 * public routes send (public_page.h): loading a form (the database, this
 * child's memory, the last-known copy), the pages' security headers and
 * entity tags, the form page, the closed, not-yet-open and unavailable
 * pages, the respondent link of a request, the thanks page's URL.
 * Memory: everything from r->pool; json-c objects are owned by the pool
 * (fs_json_parse_trusted, fs_json_own). */
#include "public/public_page.h"
#include "fs_captcha.h"
#include "fs_embed.h"
#include "fs_form.h"
#include "fs_html.h"
#include "fs_html_parts.h"
#include "fs_idempotency.h"
#include "fs_json.h"
#include "fs_link.h"
#include "fs_pages.h"
#include "fs_partial.h"
#include "fs_secret.h"
#include "fs_util.h"
#include "http/files.h"
#include "http/i18n.h"
#include "http/links.h"
#include "public/form_cache.h"

#include <apr_strings.h>
#include <http_core.h>
#include <openssl/sha.h>

APLOG_USE_MODULE(formsvc);

const char *formsvc_pub_setting(pub *pb, const char *k) {
    json_object *v = fs_json_get(pb->settings, k);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* The language of the form's pages: settings.locale, or
 * Accept-Language for "auto" (which adds it to Vary). Asked only when a
 * page is rendered: the JSON view and problems are English. */
const fs_locale *formsvc_pub_locale(request_rec *r, pub *pb) {
    return formsvc_locale_for(r, formsvc_pub_setting(pb, "locale"));
}

static void prepare(request_rec *r, pub *pb) {
    pb->fields = fs_json_parse_trusted(r->pool, pb->f.fields);
    pb->settings = fs_json_parse_trusted(r->pool, pb->f.settings);
    pb->fs = fs_fieldset_from_json(r->pool, pb->fields);
    fs_fieldset_logic(r->pool, pb->fs, pb->settings); /* page jumps */
    formsvc_files_ceilings(pb->fs);                   /* uploaded files */
    json_object *hp = fs_json_get(pb->settings, "honeypot");
    pb->honeypot =
        !(hp && json_object_is_type(hp, json_type_boolean) && !json_object_get_boolean(hp));
    pb->action = apr_pstrcat(r->pool, formsvc_base_url(r), "/f/", pb->f.id, NULL);
    /* branding, checked again before it reaches a header */
    json_object *th = fs_json_get(pb->settings, "theme");
    json_object *ac = fs_json_get(th, "accentColor"), *lu = fs_json_get(th, "logoUrl");
    if (ac && json_object_is_type(ac, json_type_string))
        pb->accent = json_object_get_string(ac);
    if (lu && json_object_is_type(lu, json_type_string) &&
        !strncmp(json_object_get_string(lu), "https://", 8) &&
        fs_url_origin(r->pool, json_object_get_string(lu)))
        pb->logo_url = json_object_get_string(lu);
    pb->ancestors = fs_embed_frame_ancestors(r->pool, pb->settings);
}

/* Loads a published or closed form by id or slug: 404 problem when there
 * is none, 410 form-deleted when its account is being erased; a 503 problem when the database is
 * away, with *cached set when this process still has a copy (then pb is filled from it). */
fs_error *formsvc_pub_load(request_rec *r, const char *ref, pub *pb, int *cached, int from) {
    memset(pb, 0, sizeof(*pb));
    *cached = 0;
    /* no id or slug is longer, or other than UTF-8 (the database would
     * refuse such bytes in a parameter as an error, not as no row) */
    if (strlen(ref) > 100 || !fs_utf8_valid(ref, strlen(ref)))
        return fs_error_make(r->pool, "not-found", "No such form.");
    fs_lru_stamp stamp = {0, 0};
    if (from != ROW_DB)
        stamp = formsvc_form_row_stamp(r, ref);
    if (from == ROW_MEMORY && formsvc_form_row_get(r, ref, stamp, &pb->f)) {
        if (!strcmp(pb->f.status, "deleted"))
            return fs_error_make(r->pool, "form-deleted", NULL);
        prepare(r, pb);
        return NULL;
    }
    fs_public_form *row;
    fs_error *e = fs_store_public_form(formsvc_store(r), ref, &row);
    if (e) {
        if (e->status == 503 && formsvc_public_cache_get(r->pool, ref, &pb->f)) {
            if (pb->f.status && !strcmp(pb->f.status, "deleted"))
                return fs_error_make(r->pool, "form-deleted", NULL);
            *cached = 1;
            prepare(r, pb);
        }
        return e;
    }
    if (!row)
        return fs_error_make(r->pool, "not-found", "No such form.");
    pb->f = *row;
    /* apr_dbd's pgsql driver gives SQL NULL as "": no slug, no description */
    if (pb->f.slug && !*pb->f.slug)
        pb->f.slug = NULL;
    if (pb->f.description && !*pb->f.description)
        pb->f.description = NULL;
    if (!strcmp(pb->f.status, "deleted")) { /* its account is being erased */
        formsvc_public_cache_put(&pb->f);   /* the outage copy says so too */
        if (from != ROW_DB)
            formsvc_form_row_put(r, ref, stamp, &pb->f);
        return fs_error_make(r->pool, "form-deleted", NULL);
    }
    formsvc_public_cache_put(&pb->f);
    if (from != ROW_DB)
        formsvc_form_row_put(r, ref, stamp, &pb->f);
    prepare(r, pb);
    return NULL;
}

/* The redirect URL of the form's settings, or NULL when there is none or
 * it is not one fs_redirect_url_valid accepts (a value stored before the
 * rule was tightened is ignored, never copied into a header). */
const char *formsvc_pub_redirect_url(request_rec *r, pub *pb) {
    const char *u = formsvc_pub_setting(pb, "redirectUrl");
    return u && fs_redirect_url_valid(r->pool, u) ? u : NULL;
}

const char *formsvc_pub_ending_url(request_rec *r, json_object *ending) {
    json_object *u = fs_json_get(ending, "redirectUrl");
    const char *s = json_object_is_type(u, json_type_string) ? json_object_get_string(u) : NULL;
    return s && fs_redirect_url_valid(r->pool, s) ? s : NULL;
}

/* The captcha provider of the form's settings.captcha (fs_captcha.h), or NULL. */
static const fs_captcha_provider *captcha_of(pub *pb) {
    const char *site_key;
    return pb ? fs_captcha_of(pb->settings, &site_key) : NULL;
}

/* " " and the provider's sources src, or "" when it has none. */
static const char *more(request_rec *r, const char *src) {
    return src && *src ? apr_pstrcat(r->pool, " ", src, NULL) : "";
}

/* The page's scripts and what they may reach: the embedded form's
 * height script, the partial answers' autosave (public_partial.c) and
 * where it posts, the captcha widget's provider (its script, frames and
 * connections: only on a form with settings.captcha); "" for none. */
static const char *script_src(request_rec *r, pub *pb) {
    const char *emb = pb && pb->ancestors ? fs_embed_page_script_src(r->pool) : NULL;
    const char *part = pb && formsvc_partial_on(pb) ? fs_partial_script_src(r->pool) : NULL;
    const char *sig = pb && fs_html_signature_on(pb->fs) ? fs_html_signature_script_src(r->pool)
                                                         : NULL; /* signature pads */
    const fs_captcha_provider *cv = captcha_of(pb);
    if (!emb && !part && !sig && !cv)
        return "";
    const char *to = part ? fs_url_origin(r->pool, pb->action) : NULL;
    const char *cs = cv ? more(r, cv->connect_src) : "";
    const char *fr = cv ? more(r, cv->frame_src) : "";
    return apr_pstrcat(r->pool, " script-src", emb ? " " : "", emb ? emb : "", part ? " " : "",
                       part ? part : "", sig ? " " : "", sig ? sig : "",
                       cv ? more(r, cv->script_src) : "", ";", part || *cs ? " connect-src" : "",
                       part ? " 'self'" : "", to ? " " : "", to ? to : "", cs,
                       part || *cs ? ";" : "", *fr ? " frame-src" : "", fr, *fr ? ";" : "", NULL);
}

void formsvc_pub_page_headers(request_rec *r, pub *pb) {
    /* only origins fs_url_origin vouches for reach the policy */
    const char *fa = pb ? fs_url_origin(r->pool, pb->action) : NULL;
    /* the origins a submission may be redirected to: settings.redirectUrl's
     * and each ending's (settings.endings), once each, after fa */
    const char *ros = "";
    json_object *en = pb ? fs_json_get(pb->settings, "endings") : NULL;
    size_t nen = en && json_object_is_type(en, json_type_array) ? json_object_array_length(en) : 0;
    for (size_t i = 0; pb && i <= nen; i++) {
        const char *ru = i == 0 ? formsvc_pub_redirect_url(r, pb)
                                : formsvc_pub_ending_url(r, json_object_array_get_idx(en, i - 1));
        const char *ro = ru ? fs_url_origin(r->pool, ru) : NULL;
        if (ro && (!fa || strcmp(ro, fa)) &&
            !strstr(apr_pstrcat(r->pool, ros, " ", NULL), apr_pstrcat(r->pool, " ", ro, " ", NULL)))
            ros = apr_pstrcat(r->pool, ros, " ", ro, NULL);
    }
    /* the form's own style sheet by its hash, its logo's origin */
    const char *tcss = pb ? fs_html_theme_css(r->pool, pb->accent) : NULL;
    const char *lo = pb && pb->logo_url ? fs_url_origin(r->pool, pb->logo_url) : NULL;
    /* the origins that may frame the form, and then the script
     * that tells the frame's parent the page's height */
    const char *anc = pb ? pb->ancestors : NULL;
    /* form-action also governs where a submission may be redirected */
    apr_table_setn(r->headers_out, "Content-Security-Policy",
                   apr_psprintf(r->pool,
                                "default-src 'none'; style-src %s%s%s%s;%s%s form-action %s%s; "
                                "frame-ancestors %s; base-uri 'none'",
                                fs_html_style_src(r->pool), tcss ? " " : "",
                                tcss ? fs_html_css_src(r->pool, tcss) : "",
                                captcha_of(pb) ? more(r, captcha_of(pb)->style_src) : "",
                                lo ? apr_pstrcat(r->pool, " img-src ", lo, ";", NULL) : "",
                                script_src(r, pb), fa ? fa : "'self'", ros, anc ? anc : "'none'"));
    /* X-Frame-Options cannot name several origins: DENY agrees with
     * frame-ancestors 'none'; an embeddable form sends none (browsers that
     * know frame-ancestors ignore it anyway) */
    if (!anc)
        apr_table_setn(r->headers_out, "X-Frame-Options", "DENY");
    apr_table_setn(r->headers_out, "X-Content-Type-Options", "nosniff");
    apr_table_setn(r->headers_out, "Referrer-Policy", "no-referrer");
}

/* An entity tag from the representation's bytes, but for a form page's
 * submission token: new in every answer, it is no change of the page. */
const char *formsvc_pub_etag(request_rec *r, const char *body, apr_size_t len) {
    unsigned char md[SHA256_DIGEST_LENGTH];
    long at = fs_html_token_at(body, len);
    fs_sha256 *h = at >= 0 ? fs_sha256_new(r->pool) : NULL;
    const unsigned char *d = NULL;
    if (h) {
        fs_sha256_update(h, body, (apr_size_t)at);
        fs_sha256_update(h, body + at + FS_FORM_TOKEN_LEN,
                         len - (apr_size_t)at - FS_FORM_TOKEN_LEN);
        d = fs_sha256_final(h, r->pool);
    }
    if (d)
        memcpy(md, d, sizeof(md));
    else
        SHA256((const unsigned char *)body, len, md);
    return apr_pstrcat(r->pool, "\"", fs_b64url_encode(r->pool, md, 18), "\"", NULL);
}

/* Sends a representation: cacheable ones (GET 200) carry an ETag and
 * answer If-None-Match with 304. */
int formsvc_pub_send_body(request_rec *r, int status, const char *ctype, const char *body,
                          int cacheable) {
    apr_size_t len = strlen(body);
    apr_table_setn(r->headers_out, "X-Content-Type-Options", "nosniff");
    /* A form page with a submission token has no ETag, so a browser never
     * revalidates it (304) into the page it kept, whose token a post may
     * have used already: a second tab, or the form opened again to fill it
     * in once more, would carry that token, and the same answers again
     * were a replay (the thanks page, nothing stored), other answers the
     * "already sent from this page" notice. Each answer is a fresh page. */
    if (cacheable == 1 && fs_html_token_at(body, len) >= 0) {
        apr_table_setn(r->headers_out, "Cache-Control", "no-cache");
    } else if (cacheable == 1) {
        apr_table_setn(r->headers_out, "Cache-Control", "no-cache");
        apr_table_setn(r->headers_out, "ETag", formsvc_pub_etag(r, body, len));
        r->status = status; /* ap_meets_conditions looks at it */
        int rc = ap_meets_conditions(r);
        if (rc != OK)
            return rc; /* 304 */
    } else {
        apr_table_setn(r->headers_out, "Cache-Control",
                       cacheable == PUB_HISTORY ? "private, no-cache" : "no-store");
    }
    return formsvc_send_body(r, status, ctype, body, len);
}

int formsvc_pub_send_html(request_rec *r, int status, pub *pb, const char *html, int cacheable) {
    formsvc_pub_page_headers(r, pb);
    return formsvc_pub_send_body(r, status, "text/html; charset=utf-8", html, cacheable);
}

void formsvc_pub_cors(request_rec *r) {
    apr_table_setn(r->err_headers_out, "Access-Control-Allow-Origin", "*");
    apr_table_setn(r->err_headers_out, "Access-Control-Expose-Headers",
                   "ETag, Location, Retry-After, Idempotent-Replayed");
}

int formsvc_pub_problem(request_rec *r, fs_error *e) {
    formsvc_pub_cors(r);
    apr_table_setn(r->err_headers_out, "Referrer-Policy", "no-referrer");
    return formsvc_send_problem(r, e);
}

/* settings.confirmation.emailField: a copy of the answers is mailed to
 * the address entered there (http/notify.c); NULL when none is. */
const char *formsvc_pub_copy_field(pub *pb) {
    json_object *c = fs_json_get(pb->settings, "confirmation");
    json_object *f = fs_json_get(c, "emailField");
    return f && json_object_is_type(f, json_type_string) ? json_object_get_string(f) : NULL;
}

fs_pagestate formsvc_page_state_for(request_rec *r, const pub *pb, int q, int spam,
                                    json_object *values) {
    /* the pages shown before q: those of the trail before it */
    json_object *trail = fs_json_own(r->pool, json_object_new_array());
    for (size_t i = 0; pb->trail && i < json_object_array_length(pb->trail); i++) {
        json_object *e = json_object_array_get_idx(pb->trail, i);
        if (json_object_get_int(e) < q)
            json_object_array_add(trail, json_object_get(e));
    }
    /* q's own answers are in its inputs; the state carries the others */
    fs_pagestate st = {pb->f.version,
                       apr_time_sec(apr_time_now()) + FS_PAGESTATE_TTL_SECONDS,
                       q,
                       spam,
                       fs_pages_carried(r->pool, pb->fs, q, values),
                       trail};
    return st;
}

/* The page of a form of several pages that pg shows: pb->page, or the
 * first with one of the errors (then only its errors), its buttons, and
 * the answers sealed into its state (none on a first page without
 * answers, so that it stays the page every respondent gets). */
static void page_of_pages(request_rec *r, pub *pb, fs_page *pg) {
    const fs_fieldset *fs = pb->fs;
    int q = pb->page >= 0 && pb->page < fs->npages ? pb->page : 0;
    int first = pg->errors ? fs_pages_first_error(fs, pg->errors) : -1;
    if (first >= 0) { /* errors of no question (a script's) are all shown */
        q = first;
        pg->errors = fs_pages_errors_on(r->pool, fs, q, pg->errors);
    }
    fs_pagestate st = formsvc_page_state_for(r, pb, q, pb->spam, pg->values);
    pg->page = q;
    pg->has_back = json_object_array_length(st.trail) || fs_pages_step(fs, q, -1, pg->values) >= 0;
    pg->has_next = fs_pages_step(fs, q, 1, pg->values) >= 0;
    fs_pages_progress(fs, q, pg->values, &pg->progress_n, &pg->progress_total);
    if (q == 0 && !pb->spam && (!pg->values || !json_object_object_length(pg->values)))
        return;
    if (formsvc_page_state_seal(r, pb->f.id, &st, &pg->state) != FS_PAGESTATE_OK)
        pg->state = "-"; /* too many answers to carry, or no random bytes: the
                            post of this page is refused as a broken state */
}

/* The form page of pb with the owner's text and branding. */
fs_page formsvc_pub_page_of(request_rec *r, pub *pb, json_object *values, const fs_error *errors,
                            const char *notice) {
    fs_page pg = {pb->f.title,
                  pb->f.description,
                  pb->fs,
                  values,
                  errors,
                  pb->action,
                  notice,
                  pb->honeypot,
                  formsvc_pub_locale(r, pb),
                  formsvc_pub_setting(pb, "submitLabel"),
                  pb->accent,
                  pb->logo_url,
                  pb->ancestors != NULL,
                  formsvc_pub_copy_field(pb),
                  pb->token ? pb->token : formsvc_form_token_new(r, pb->f.id),
                  pb->link && pb->link->ask_id ? formsvc_pub_decline_url(r, pb) : NULL,
                  0,
                  0,
                  0,
                  NULL,
                  NULL,
                  NULL,
                  NULL,
                  0,
                  NULL,
                  NULL,
                  0,
                  0};
    pg.captcha = fs_captcha_of(pb->settings, &pg.captcha_site_key); /* settings.captcha */
    if (pb->fs->npages > 1) {
        page_of_pages(r, pb, &pg);
        formsvc_partial_page(r, pb, &pg); /* settings.partial */
    }
    return pg;
}

int formsvc_pub_html_page(request_rec *r, int status, pub *pb, json_object *values,
                          const fs_error *errors, const char *notice) {
    fs_page pg = formsvc_pub_page_of(r, pb, values, errors, notice);
    /* The page a form post answers with (the next page, the page again
     * with its errors or a notice) is kept by the browser for its history
     * (private, never in a shared cache), so that its Back and Forward
     * show it again: a no-store answer to a post is not kept, and Back to
     * it was the browser's "Confirm form resubmission" (ERR_CACHE_MISS).
     * Pages that carry a credential (a respondent link's, a resume or an
     * edit token) stay no-store. */
    int history = r->method_number == M_POST && !pb->link && !pb->resume && !formsvc_edit_asked(r);
    return formsvc_pub_send_html(r, status, pb, fs_html_form(r->pool, &pg),
                                 history ? PUB_HISTORY : 0);
}

int formsvc_pub_closed_page(request_rec *r, int status, pub *pb) {
    const fs_locale *loc = formsvc_pub_locale(r, pb);
    const char *msg =
        formsvc_pub_setting(pb, "closedMessage"); /* the owner's, escaped by fs_html */
    return formsvc_pub_send_html(
        r, status, pb,
        fs_html_message_in(r->pool, loc, pb->f.title, pb->f.title,
                           msg && *msg ? msg : fs_tr(loc, "closed.message")),
        status == 200);
}

/* settings.opensAt when it is still ahead, else NULL. */
const char *formsvc_pub_opens_later(pub *pb) {
    const char *o = formsvc_pub_setting(pb, "opensAt");
    apr_time_t t;
    return o && fs_time_parse_rfc3339(o, &t) && t > apr_time_now() ? o : NULL;
}

/* The page of a form that is not open yet: when it opens, in UTC. */
int formsvc_pub_not_open_page(request_rec *r, int status, pub *pb, const char *opens) {
    const fs_locale *loc = formsvc_pub_locale(r, pb);
    const char *date = apr_pstrndup(r->pool, opens, 10),
               *time = apr_pstrndup(r->pool, opens + 11, 5);
    return formsvc_pub_send_html(r, status, pb,
                                 fs_html_message_in(r->pool, loc, pb->f.title, pb->f.title,
                                                    fs_trf(r->pool, loc, "notopen.message", "date",
                                                           date, "time", time, NULL)),
                                 status == 200);
}

fs_error *formsvc_pub_form_not_open(request_rec *r, const char *opens) {
    fs_error *e =
        fs_error_make(r->pool, "form-not-open", "This form takes submissions from %s.", opens);
    fs_error_set_str(r->pool, e, "opensAt", opens);
    return e;
}

int formsvc_pub_state_refused(request_rec *r, pub *pb, int which, int html) {
    const char *why = which == FS_PAGESTATE_EXPIRED ? "expired" : which < 0 ? "changed" : "invalid";
    int status = which < 0 ? 409 : 400;
    if (!html) {
        fs_error *e =
            which < 0
                ? fs_error_make(r->pool, "conflict",
                                "The form changed since this page was made: open it again.")
                : fs_error_make(r->pool, "malformed-request",
                                "The page's state (%s) is %s: open the form again.", FS_STATE_NAME,
                                which == FS_PAGESTATE_EXPIRED ? "past its expiry"
                                                              : "not one of this form's");
        return formsvc_pub_problem(r, e);
    }
    const fs_locale *loc = formsvc_pub_locale(r, pb);
    /* the start of the form, through the link when the request has one */
    const char *start =
        pb->link ? pb->action : apr_pstrcat(r->pool, formsvc_base_url(r), "/f/", pb->f.id, NULL);
    return formsvc_pub_send_html(
        r, status, pb,
        fs_html_message_link(r->pool, loc, pb->f.title,
                             fs_tr(loc, apr_pstrcat(r->pool, "pages.", why, ".title", NULL)),
                             fs_tr(loc, apr_pstrcat(r->pool, "pages.", why, ".message", NULL)),
                             start, fs_tr(loc, "pages.restart")),
        0);
}

/* No form to ask for a language: the respondent's Accept-Language. */
int formsvc_pub_unavailable_page(request_rec *r) {
    apr_table_setn(r->err_headers_out, "Retry-After", "5");
    FORMSVC_LOG(r, APLOG_WARNING, 00701, "503 service-unavailable (page) for %s", r->uri);
    const fs_locale *loc = formsvc_locale_negotiated(r);
    return formsvc_pub_send_html(r, 503, NULL,
                                 fs_html_message_in(r->pool, loc, fs_tr(loc, "unavailable.title"),
                                                    fs_tr(loc, "unavailable.title"),
                                                    fs_tr(loc, "unavailable.message")),
                                 0);
}

/* A form that is not there, for a person: 404 (no such form) or 410 (its
 * owner's account was erased) as a page in the browser's language, with the
 * same status and type the problem would carry; anything else stays the
 * problem. Logged as every problem is. */
int formsvc_pub_missing_page(request_rec *r, fs_error *e) {
    if (e->status != 404 && e->status != 410)
        return formsvc_pub_problem(r, e);
    formsvc_log_problem(r, e, r->uri);
    const fs_locale *loc = formsvc_locale_negotiated(r);
    const char *k = e->status == 410 ? "deleted" : "missing";
    const char *title = fs_tr(loc, apr_pstrcat(r->pool, k, ".title", NULL));
    apr_table_setn(r->err_headers_out, "Referrer-Policy", "no-referrer");
    return formsvc_pub_send_html(
        r, e->status, NULL,
        fs_html_message_in(r->pool, loc, title, title,
                           fs_tr(loc, apr_pstrcat(r->pool, k, ".message", NULL))),
        0);
}

/* A form post past the body limit, for a person: a 413 page in the
 * browser's language that says to go back and shorten the answers (the
 * browser's Back keeps what was typed), rather than the problem+json a
 * browser would show as raw text. Logged as every problem is. */
int formsvc_pub_too_large_page(request_rec *r, fs_error *e) {
    formsvc_log_problem(r, e, r->uri);
    const fs_locale *loc = formsvc_locale_negotiated(r);
    const char *title = fs_tr(loc, "toolarge.title");
    apr_table_setn(r->err_headers_out, "Referrer-Policy", "no-referrer");
    apr_table_setn(r->err_headers_out, "Cache-Control", "no-store");
    return formsvc_pub_send_html(
        r, 413, NULL,
        fs_html_message_in(r->pool, loc, title, title, fs_tr(loc, "toolarge.message")), 0);
}

/* What a page's load failure answers: for a person (html) a page (the
 * database away, no such form, a deleted one), else the problem. */
int formsvc_pub_load_failed(request_rec *r, fs_error *e, int html) {
    if (!html)
        return formsvc_pub_problem(r, e);
    return e->status == 503 ? formsvc_pub_unavailable_page(r) : formsvc_pub_missing_page(r, e);
}

/* Takes the respondent link of the request (?l=) for the loaded form: it
 * prefills the page and goes with the submission, so the form posts to a
 * URL that carries it. A problem when the link is unknown, used up or
 * expired. */
fs_error *formsvc_pub_take_link(request_rec *r, pub *pb) {
    formsvc_link *lk;
    fs_error *e = formsvc_link_from_request(r, pb->f.id, &lk);
    if (!e && !lk && formsvc_pub_link_required(pb))
        return formsvc_pub_link_missing(r);
    if (e || !lk)
        return e;
    formsvc_pub_use_link(r, pb, lk);
    return NULL;
}

const char *formsvc_pub_decline_url(request_rec *r, pub *pb) {
    return apr_pstrcat(r->pool, formsvc_base_url(r), "/f/",
                       pb->f.slug && *pb->f.slug ? pb->f.slug : pb->f.id,
                       "/decline?" FORMSVC_LINK_PARAM "=", pb->link->token, NULL);
}

void formsvc_pub_use_link(request_rec *r, pub *pb, const formsvc_link *lk) {
    pb->link = lk;
    pb->action = apr_pstrcat(r->pool, pb->action, "?" FORMSVC_LINK_PARAM "=", lk->token, NULL);
}

int formsvc_pub_link_required(pub *pb) {
    json_object *v = fs_json_get(pb->settings, "linkRequired");
    return v && json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v);
}

fs_error *formsvc_pub_link_missing(request_rec *r) {
    return fs_error_make(r->pool, "link-required",
                         "This form takes answers only through the link its owner sent; "
                         "open that link.");
}

/* The database is away and the form comes from the last-known copy: the
 * link cannot be checked, but the page given back must still post through
 * it, so that the retry is made with the link. */
void formsvc_pub_keep_link(request_rec *r, pub *pb) {
    const char *token;
    if (!formsvc_arg(r, FORMSVC_LINK_PARAM, &token) && fs_link_token_well_formed(token))
        pb->action = apr_pstrcat(r->pool, pb->action, "?" FORMSVC_LINK_PARAM "=", token, NULL);
}

/* A link that cannot be used: a page for people, a problem otherwise. */
int formsvc_pub_link_refused(request_rec *r, pub *pb, fs_error *e, int html) {
    if (!html || e->status >= 500)
        return formsvc_pub_problem(r, e);
    const fs_locale *loc = formsvc_pub_locale(r, pb);
    const char *which = e->status == 409   ? "used"
                        : e->status == 410 ? "expired"
                        : e->status == 403 ? "required"
                                           : "invalid";
    return formsvc_pub_send_html(
        r, e->status, pb,
        fs_html_message_in(r->pool, loc, pb->f.title,
                           fs_tr(loc, apr_pstrcat(r->pool, "link.", which, ".title", NULL)),
                           fs_tr(loc, apr_pstrcat(r->pool, "link.", which, ".message", NULL))),
        0);
}
/* The thanks page of form id: built from the form's path, never from the
 * action, whose query (a respondent link) would come before the path. */
const char *formsvc_pub_thanks_url(request_rec *r, const char *id) {
    return apr_pstrcat(r->pool, formsvc_base_url(r), "/f/", id, "/thanks", NULL);
}
