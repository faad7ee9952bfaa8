/* handle_public: the respondent's side, /f/{id} and /f/{slug}.
 *
 * GET and HEAD negotiate between the HTML page and the JSON view; POST
 * takes JSON, urlencoded and multipart bodies, which all become one json-c
 * object checked by the one validator (fs_validate); OPTIONS answers CORS
 * preflights; /f/{id}/thanks is the page after an HTML submission.
 * An HTML respondent (a form post that does not prefer JSON) gets pages:
 * the form again with errors (422), a closed notice (409), the form again
 * with a notice when the answers repeat a submission (409, settings.uniqueBy),
 * when the database is away (503) or the rate is exceeded (429). Everything else is JSON or
 * problem+json. */
#include "fs_coerce.h"
#include "fs_embed.h"
#include "fs_form.h"
#include "fs_html.h"
#include "fs_idempotency.h"
#include "fs_json.h"
#include "fs_link.h"
#include "fs_multipart.h"
#include "fs_negotiate.h"
#include "fs_schema.h"
#include "fs_secret.h"
#include "fs_unique.h"
#include "fs_urlencoded.h"
#include "fs_util.h"
#include "fs_validate.h"
#include "http/files.h"
#include "http/i18n.h"
#include "http/links.h"
#include "http/owner_cache.h"
#include "http/request.h"
#include "http/response.h"
#include "http/router.h"
#include "public/form_cache.h"
#include "public/public.h"
#include "runtime/config.h"
#include "runtime/config_accounts.h"
#include "runtime/log.h"
#include "runtime/metrics.h"
#include "runtime/ratelimit.h"
#include "runtime/request_ctx.h"
#include "runtime/submit_batch.h"
#include "runtime/views.h"

#include <apr_strings.h>
#include <http_core.h>
#include <openssl/sha.h>

APLOG_USE_MODULE(formsvc);

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
} pub;

enum { BODY_JSON, BODY_URLENCODED, BODY_MULTIPART };

static const char *setting_str(pub *pb, const char *k) {
    json_object *v = fs_json_get(pb->settings, k);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* The language of the form's pages: settings.locale, or
 * Accept-Language for "auto" (which adds it to Vary). Asked only when a
 * page is rendered: the JSON view and problems are English. */
static const fs_locale *loc_of(request_rec *r, pub *pb) {
    return formsvc_locale_for(r, setting_str(pb, "locale"));
}

static void prepare(request_rec *r, pub *pb) {
    pb->fields = fs_json_parse_trusted(r->pool, pb->f.fields);
    pb->settings = fs_json_parse_trusted(r->pool, pb->f.settings);
    pb->fs = fs_fieldset_from_json(r->pool, pb->fields);
    formsvc_files_ceilings(pb->fs); /* uploaded files */
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

/* Where load reads a form: the database (ROW_DB); this child's memory
 * first (ROW_MEMORY), only for what the database checks again (a
 * submission's version, form_cache.h); or the database, keeping the row
 * in memory (ROW_REFILL, after the memory's row proved old). */
enum { ROW_DB, ROW_MEMORY, ROW_REFILL };

/* Loads a published or closed form by id or slug: 404 problem when there
 * is none; a 503 problem when the database is away, with *cached set when
 * this process still has a copy (then pb is filled from it). */
static fs_error *load(request_rec *r, const char *ref, pub *pb, int *cached, int from) {
    memset(pb, 0, sizeof(*pb));
    *cached = 0;
    if (strlen(ref) > 100)
        return fs_error_make(r->pool, "not-found", "No such form.");
    fs_lru_stamp stamp = {0, 0};
    if (from != ROW_DB)
        stamp = formsvc_form_row_stamp(r, ref);
    if (from == ROW_MEMORY && formsvc_form_row_get(r, ref, stamp, &pb->f)) {
        prepare(r, pb);
        return NULL;
    }
    fs_public_form *row;
    fs_error *e = fs_store_public_form(formsvc_store(r), ref, &row);
    if (e) {
        if (e->status == 503 && formsvc_public_cache_get(r->pool, ref, &pb->f)) {
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
    formsvc_public_cache_put(&pb->f);
    if (from != ROW_DB)
        formsvc_form_row_put(r, ref, stamp, &pb->f);
    prepare(r, pb);
    return NULL;
}

/* The redirect URL of the form's settings, or NULL when there is none or
 * it is not one fs_redirect_url_valid accepts (a value stored before the
 * rule was tightened is ignored, never copied into a header). */
static const char *redirect_url(request_rec *r, pub *pb) {
    const char *u = setting_str(pb, "redirectUrl");
    return u && fs_redirect_url_valid(r->pool, u) ? u : NULL;
}

static void page_headers(request_rec *r, pub *pb) {
    /* only origins fs_url_origin vouches for reach the policy */
    const char *fa = pb ? fs_url_origin(r->pool, pb->action) : NULL;
    const char *ru = pb ? redirect_url(r, pb) : NULL;
    const char *ro = ru ? fs_url_origin(r->pool, ru) : NULL;
    /* the form's own style sheet by its hash, its logo's origin */
    const char *tcss = pb ? fs_html_theme_css(r->pool, pb->accent) : NULL;
    const char *lo = pb && pb->logo_url ? fs_url_origin(r->pool, pb->logo_url) : NULL;
    /* the origins that may frame the form, and then the script
     * that tells the frame's parent the page's height */
    const char *anc = pb ? pb->ancestors : NULL;
    /* form-action also governs where a submission may be redirected */
    apr_table_setn(r->headers_out, "Content-Security-Policy",
                   apr_psprintf(r->pool,
                                "default-src 'none'; style-src %s%s%s;%s%s form-action %s%s%s; "
                                "frame-ancestors %s; base-uri 'none'",
                                fs_html_style_src(r->pool), tcss ? " " : "",
                                tcss ? fs_html_css_src(r->pool, tcss) : "",
                                lo ? apr_pstrcat(r->pool, " img-src ", lo, ";", NULL) : "",
                                anc ? apr_pstrcat(r->pool, " script-src ",
                                                  fs_embed_page_script_src(r->pool), ";", NULL)
                                    : "",
                                fa ? fa : "'self'", ro && (!fa || strcmp(ro, fa)) ? " " : "",
                                ro && (!fa || strcmp(ro, fa)) ? ro : "", anc ? anc : "'none'"));
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
static const char *etag_of(request_rec *r, const char *body, apr_size_t len) {
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
static int send_body(request_rec *r, int status, const char *ctype, const char *body,
                     int cacheable) {
    apr_size_t len = strlen(body);
    apr_table_setn(r->headers_out, "X-Content-Type-Options", "nosniff");
    if (cacheable) {
        apr_table_setn(r->headers_out, "Cache-Control", "no-cache");
        apr_table_setn(r->headers_out, "ETag", etag_of(r, body, len));
        r->status = status; /* ap_meets_conditions looks at it */
        int rc = ap_meets_conditions(r);
        if (rc != OK)
            return rc; /* 304 */
    } else {
        apr_table_setn(r->headers_out, "Cache-Control", "no-store");
    }
    return formsvc_send_body(r, status, ctype, body, len);
}

static int send_html(request_rec *r, int status, pub *pb, const char *html, int cacheable) {
    page_headers(r, pb);
    return send_body(r, status, "text/html; charset=utf-8", html, cacheable);
}

static void cors(request_rec *r) {
    apr_table_setn(r->err_headers_out, "Access-Control-Allow-Origin", "*");
    apr_table_setn(r->err_headers_out, "Access-Control-Expose-Headers",
                   "ETag, Location, Retry-After, Idempotent-Replayed");
}

static int problem(request_rec *r, fs_error *e) {
    cors(r);
    apr_table_setn(r->err_headers_out, "Referrer-Policy", "no-referrer");
    return formsvc_send_problem(r, e);
}

/* settings.confirmation.emailField: a copy of the answers is mailed to
 * the address entered there (http/notify.c); NULL when none is. */
static const char *copy_field(pub *pb) {
    json_object *c = fs_json_get(pb->settings, "confirmation");
    json_object *f = fs_json_get(c, "emailField");
    return f && json_object_is_type(f, json_type_string) ? json_object_get_string(f) : NULL;
}

/* The form page of pb with the owner's text and branding. */
static fs_page page_of(request_rec *r, pub *pb, json_object *values, const fs_error *errors,
                       const char *notice) {
    fs_page pg = {pb->f.title,
                  pb->f.description,
                  pb->fs,
                  values,
                  errors,
                  pb->action,
                  notice,
                  pb->honeypot,
                  loc_of(r, pb),
                  setting_str(pb, "submitLabel"),
                  pb->accent,
                  pb->logo_url,
                  pb->ancestors != NULL,
                  copy_field(pb),
                  pb->token ? pb->token : formsvc_form_token_new(r, pb->f.id)};
    return pg;
}

static int html_page(request_rec *r, int status, pub *pb, json_object *values,
                     const fs_error *errors, const char *notice) {
    fs_page pg = page_of(r, pb, values, errors, notice);
    return send_html(r, status, pb, fs_html_form(r->pool, &pg), 0);
}

static int closed_page(request_rec *r, int status, pub *pb) {
    const fs_locale *loc = loc_of(r, pb);
    const char *msg = setting_str(pb, "closedMessage"); /* the owner's, escaped by fs_html */
    return send_html(r, status, pb,
                     fs_html_message_in(r->pool, loc, pb->f.title, pb->f.title,
                                        msg && *msg ? msg : fs_tr(loc, "closed.message")),
                     status == 200);
}

/* settings.opensAt when it is still ahead, else NULL. */
static const char *opens_later(pub *pb) {
    const char *o = setting_str(pb, "opensAt");
    apr_time_t t;
    return o && fs_time_parse_rfc3339(o, &t) && t > apr_time_now() ? o : NULL;
}

/* The page of a form that is not open yet: when it opens, in UTC. */
static int not_open_page(request_rec *r, int status, pub *pb, const char *opens) {
    const fs_locale *loc = loc_of(r, pb);
    const char *date = apr_pstrndup(r->pool, opens, 10),
               *time = apr_pstrndup(r->pool, opens + 11, 5);
    return send_html(r, status, pb,
                     fs_html_message_in(
                         r->pool, loc, pb->f.title, pb->f.title,
                         fs_trf(r->pool, loc, "notopen.message", "date", date, "time", time, NULL)),
                     status == 200);
}

static fs_error *form_not_open(request_rec *r, const char *opens) {
    fs_error *e =
        fs_error_make(r->pool, "form-not-open", "This form takes submissions from %s.", opens);
    fs_error_set_str(r->pool, e, "opensAt", opens);
    return e;
}

/* No form to ask for a language: the respondent's Accept-Language. */
static int unavailable_page(request_rec *r) {
    apr_table_setn(r->err_headers_out, "Retry-After", "5");
    FORMSVC_LOG(r, APLOG_WARNING, 00701, "503 service-unavailable (page) for %s", r->uri);
    const fs_locale *loc = formsvc_locale_negotiated(r);
    return send_html(r, 503, NULL,
                     fs_html_message_in(r->pool, loc, fs_tr(loc, "unavailable.title"),
                                        fs_tr(loc, "unavailable.title"),
                                        fs_tr(loc, "unavailable.message")),
                     0);
}

/* ---- GET / HEAD ------------------------------------------------------ */

static json_object *view(request_rec *r, pub *pb) {
    json_object *o = fs_json_own(r->pool, json_object_new_object());
    json_object_object_add(o, "id", json_object_new_string(pb->f.id));
    json_object_object_add(o, "slug", pb->f.slug ? json_object_new_string(pb->f.slug) : NULL);
    json_object_object_add(o, "title", json_object_new_string(pb->f.title));
    json_object_object_add(o, "description",
                           pb->f.description ? json_object_new_string(pb->f.description) : NULL);
    json_object_object_add(o, "status", json_object_new_string(pb->f.status));
    const char *opens = setting_str(pb, "opensAt"); /* only when set */
    if (opens)
        json_object_object_add(o, "opensAt", json_object_new_string(opens));
    json_object_object_add(o, "fields", json_object_get(pb->fields));
    json_object *sub = json_object_new_object(), *ct = json_object_new_array();
    json_object_object_add(sub, "method", json_object_new_string("POST"));
    json_object_object_add(sub, "action", json_object_new_string(pb->action));
    json_object_array_add(ct, json_object_new_string("application/json"));
    json_object_array_add(ct, json_object_new_string("application/x-www-form-urlencoded"));
    json_object_array_add(ct, json_object_new_string("multipart/form-data"));
    json_object_object_add(sub, "contentTypes", ct);
    /* A 503 or a lost connection can hide a stored submission: only a key
     * makes the client's retry safe, so the view says so. */
    json_object_object_add(sub, "idempotencyKeyHeader", json_object_new_string("Idempotency-Key"));
    json_object_object_add(
        sub, "description",
        json_object_new_string(
            "POST the answers as one of contentTypes. Send an Idempotency-Key header (1 to 255 "
            "visible ASCII characters, new for each submission) and repeat the same request with "
            "the same key after a timeout, a network error or a 503: a repeat within 24 hours "
            "returns the first answer and never stores the submission twice."));
    json_object_object_add(o, "submit", sub);
    const char *copy = copy_field(pb);
    if (copy) { /* the respondent's address gets a copy (settings.confirmation) */
        json_object *cm = json_object_new_object();
        json_object_object_add(cm, "emailField", json_object_new_string(copy));
        json_object_object_add(
            cm, "description",
            json_object_new_string("After a stored submission, a plain-text copy "
                                   "of the answers is mailed to the address "
                                   "given in emailField."));
        json_object_object_add(o, "confirmationMail", cm);
    }
    if (pb->link)
        json_object_object_add(o, "prefill", json_object_get(pb->link->prefill));
    json_object_object_add(o, "schema",
                           json_object_get(fs_schema_for(r->pool, pb->fs, NULL, pb->f.title)));
    return o;
}

/* Fields take their value from the page's query string, and from the
 * respondent link's prefill (links.h). */
static json_object *query_values(request_rec *r, pub *pb) {
    return formsvc_prefill_values(r, pb->fs, pb->link);
}

/* Takes the respondent link of the request (?l=) for the loaded form: it
 * prefills the page and goes with the submission, so the form posts to a
 * URL that carries it. A problem when the link is unknown, used up or
 * expired. */
static fs_error *take_link(request_rec *r, pub *pb) {
    formsvc_link *lk;
    fs_error *e = formsvc_link_from_request(r, pb->f.id, &lk);
    if (e || !lk)
        return e;
    pb->link = lk;
    pb->action = apr_pstrcat(r->pool, pb->action, "?" FORMSVC_LINK_PARAM "=", lk->token, NULL);
    return NULL;
}

/* The database is away and the form comes from the last-known copy: the
 * link cannot be checked, but the page given back must still post through
 * it, so that the retry is made with the link. */
static void keep_link(request_rec *r, pub *pb) {
    const char *token;
    if (!formsvc_arg(r, FORMSVC_LINK_PARAM, &token) && fs_link_token_well_formed(token))
        pb->action = apr_pstrcat(r->pool, pb->action, "?" FORMSVC_LINK_PARAM "=", token, NULL);
}

/* A link that cannot be used: a page for people, a problem otherwise. */
static int link_refused(request_rec *r, pub *pb, fs_error *e, int html) {
    if (!html || e->status >= 500)
        return problem(r, e);
    const fs_locale *loc = loc_of(r, pb);
    const char *which = e->status == 409 ? "used" : e->status == 410 ? "expired" : "invalid";
    return send_html(
        r, e->status, pb,
        fs_html_message_in(r->pool, loc, pb->f.title,
                           fs_tr(loc, apr_pstrcat(r->pool, "link.", which, ".title", NULL)),
                           fs_tr(loc, apr_pstrcat(r->pool, "link.", which, ".message", NULL))),
        0);
}

static int formsvc_h_public_get(request_rec *r, const char *const *caps) {
    apr_table_mergen(r->err_headers_out, "Vary", "Accept");
    fs_media m = fs_negotiate(apr_table_get(r->headers_in, "Accept"));
    /* the answer from memory, or a ticket to keep it (form_cache.h) */
    formsvc_form_ticket ticket;
    int rc = formsvc_form_cache_serve(r, caps[0], m, &ticket);
    if (rc != DECLINED)
        return rc;
    pub pb;
    int cached;
    fs_error *e = load(r, caps[0], &pb, &cached, ROW_DB);
    if (e) {
        if (e->status == 503 && m == FS_MEDIA_HTML) {
            if (!cached)
                return unavailable_page(r);
            apr_table_setn(r->err_headers_out, "Retry-After", "5");
            keep_link(r, &pb);
            return html_page(r, 503, &pb, query_values(r, &pb), NULL,
                             fs_tr(loc_of(r, &pb), "notice.degraded"));
        }
        return problem(r, e);
    }
    if (m == FS_MEDIA_NONE)
        return problem(r, fs_error_make(r->pool, "not-acceptable",
                                        "This form is served as text/html or application/json."));
    if ((e = take_link(r, &pb)))
        return link_refused(r, &pb, e, m == FS_MEDIA_HTML);
    formsvc_form_cache_fill(r, &ticket, pb.f.id, pb.f.slug, pb.f.status, pb.f.settings,
                            pb.f.fields); /* forms and credentials from memory */
    if (m == FS_MEDIA_JSON) {
        cors(r);
        apr_table_setn(r->headers_out, "Referrer-Policy", "no-referrer");
        /* a link's view is its holder's own: no-store */
        return send_body(r, 200, "application/json", fs_json_str(r->pool, view(r, &pb)), !pb.link);
    }
    if (strcmp(pb.f.status, "published"))
        return closed_page(r, 200, &pb);
    const char *opens = opens_later(&pb);
    if (opens)
        return not_open_page(r, 200, &pb, opens);
    if (!r->header_only)
        formsvc_views_count(r, pb.f.id); /* counted in memory, flushed later */
    fs_page pg = page_of(r, &pb, query_values(r, &pb), NULL, NULL);
    return send_html(r, 200, &pb, fs_html_form(r->pool, &pg), !pb.link);
}

static int formsvc_h_public_thanks(request_rec *r, const char *const *caps) {
    apr_table_mergen(r->err_headers_out, "Vary", "Accept");
    fs_media m = fs_negotiate(apr_table_get(r->headers_in, "Accept"));
    pub pb;
    int cached;
    fs_error *e = load(r, caps[0], &pb, &cached, ROW_DB);
    if (e && !cached)
        return e->status == 503 && m == FS_MEDIA_HTML ? unavailable_page(r) : problem(r, e);
    const char *msg = setting_str(&pb, "confirmationMessage");
    /* the owner's message as written; else ours, in English for JSON */
    const fs_locale *loc = m == FS_MEDIA_HTML ? loc_of(r, &pb) : formsvc_locale_for(r, NULL);
    if (!msg || !*msg)
        msg = fs_tr(loc, "thanks.message");
    if (m == FS_MEDIA_NONE)
        return problem(r, fs_error_make(r->pool, "not-acceptable",
                                        "This page is served as text/html or application/json."));
    if (m == FS_MEDIA_JSON) {
        json_object *o = fs_json_own(r->pool, json_object_new_object());
        json_object_object_add(o, "formId", json_object_new_string(pb.f.id));
        json_object_object_add(o, "message", json_object_new_string(msg));
        cors(r);
        return send_body(r, 200, "application/json", fs_json_str(r->pool, o), 1);
    }
    return send_html(r, 200, &pb, fs_html_message_in(r->pool, loc, pb.f.title, pb.f.title, msg), 1);
}

/* ---- OPTIONS (CORS preflight) ---------------------------------------- */

static int formsvc_h_public_options(request_rec *r, const char *const *caps) {
    (void)caps;
    cors(r);
    apr_table_setn(r->headers_out, "Access-Control-Allow-Methods", "GET, HEAD, POST, OPTIONS");
    apr_table_setn(r->headers_out, "Access-Control-Allow-Headers",
                   "Content-Type, Accept, Idempotency-Key");
    apr_table_setn(r->headers_out, "Access-Control-Max-Age", "86400");
    apr_table_setn(r->headers_out, "Allow", "GET, HEAD, POST, OPTIONS");
    apr_table_setn(r->headers_out, "Vary", "Origin, Access-Control-Request-Headers");
    return formsvc_send_empty(r, 204);
}

/* ---- POST ------------------------------------------------------------ */

/* A submission as the request states it, parsed once, without the
 * database; then the form and what was decided about it. */
typedef struct post {
    int kind;         /* BODY_* */
    int html;         /* an HTML form post that does not prefer JSON: answer with pages */
    int dry;          /* ?dryRun=true */
    const char *ikey; /* Idempotency-Key, or NULL */
    const char *hash; /* of the request, when ikey is set (request_hash) */
    char *buf;        /* the body as received */
    apr_size_t len;
    json_object *obj;          /* the answers: the JSON body, or the pairs coerced */
    apr_array_header_t *pairs; /* urlencoded and multipart bodies */
    int spam;                  /* the honeypot was filled in */
    pub pb;                    /* the form, once loaded */
    int have_form;             /* pb is filled (from the database or the cache) */
    int limited;               /* the address's rate limit has counted it */
    const char *sid;           /* the submission's id, chosen early when files come */
    formsvc_upload *up;        /* its files, or NULL */
    const char *boundary;      /* multipart: read once the form is known (multipart_body) */
    fs_error *file_err;        /* multipart: the first problem with a file */
    const char *read_version;  /* multipart: the form's version its files were checked against */
    int read_files;            /* multipart: that form has file fields */
    int files_dropped;         /* multipart: read for a form not open, its files dropped */
} post;

static fs_error *key_reused(request_rec *r) {
    return fs_error_make(r->pool, "validation-failed",
                         "This Idempotency-Key was used with a different request in the last 24 "
                         "hours.");
}

static fs_error *form_closed(request_rec *r) {
    return fs_error_make(r->pool, "form-closed",
                         "This form is closed and takes no more submissions.");
}

/* Everything that can be said about the request without the database:
 * its media type, dryRun, Idempotency-Key and body. A problem when any of
 * them is wrong. */
static fs_error *post_parse(request_rec *r, post *s) {
    memset(s, 0, sizeof(*s));
    const char *ct = apr_table_get(r->headers_in, "Content-Type");
    if (fs_media_is(ct, "application/json") && fs_media_utf8(ct))
        s->kind = BODY_JSON;
    else if (fs_media_is(ct, "application/x-www-form-urlencoded"))
        s->kind = BODY_URLENCODED;
    else if (fs_media_is(ct, "multipart/form-data")) {
        s->kind = BODY_MULTIPART;
        if (!(s->boundary = fs_multipart_boundary(r->pool, ct)))
            return fs_error_make(r->pool, "malformed-request",
                                 "multipart/form-data needs a valid boundary parameter "
                                 "(RFC 2046).");
    } else {
        return fs_error_make(r->pool, "unsupported-media-type",
                             "Send application/json, application/x-www-form-urlencoded or "
                             "multipart/form-data (UTF-8).");
    }
    s->html = s->kind != BODY_JSON &&
              fs_negotiate(apr_table_get(r->headers_in, "Accept")) != FS_MEDIA_JSON;
    const char *dr;
    fs_error *e = formsvc_arg(r, "dryRun", &dr);
    if (e)
        return e;
    if (dr && strcmp(dr, "true") && strcmp(dr, "false"))
        return fs_error_make(r->pool, "malformed-request", "dryRun is true or false.");
    s->dry = dr && !strcmp(dr, "true");
    s->ikey = apr_table_get(r->headers_in, "Idempotency-Key");
    if (s->ikey && !fs_idem_key_valid(s->ikey))
        return fs_error_make(r->pool, "malformed-request",
                             "Idempotency-Key is 1 to 255 visible ASCII characters.");

    if (s->kind == BODY_MULTIPART)
        return NULL; /* read once the form is known: multipart_body */
    formsvc_srv *c = formsvc_conf(r->server);
    /* a JSON body may carry files in base64: the larger limit
     * here, the form's own once it is known (files_fit) */
    apr_off_t max = c->max_body_submission;
    if (s->kind == BODY_JSON && formsvc_file_json_max() > max)
        max = formsvc_file_json_max();
    if ((e = formsvc_read_body(r, max, &s->buf, &s->len)))
        return e;
    if (s->kind == BODY_JSON) {
        if (s->len == 0)
            return fs_error_make(r->pool, "malformed-request", "A JSON body is required.");
        return fs_json_parse_object(r->pool, s->buf, s->len, &s->obj);
    }
    return fs_urlencoded_parse(r->pool, s->buf, s->len, &s->pairs);
}

/* The submission token of the page an HTML post comes from (the hidden
 * input FS_TOKEN_NAME): the post's Idempotency-Key when it sends none
 * (a multipart body only when its hash was taken on the way), and the
 * token the pages given back carry, so that their retry is the same
 * request. A token that is not one of this form through this request's
 * link (another form's, another link's, made up) is refused. */
static fs_error *form_token(request_rec *r, post *s) {
    const char *tok = NULL;
    for (int i = 0; s->pairs && i < s->pairs->nelts; i++) {
        const fs_pair *pr = &APR_ARRAY_IDX(s->pairs, i, fs_pair);
        if (strcmp(pr->name, FS_TOKEN_NAME))
            continue;
        if (tok && strcmp(tok, pr->value))
            tok = "";
        else
            tok = pr->value;
    }
    if (!tok)
        return NULL;
    if (!formsvc_form_token_valid(r, s->pb.f.id, tok))
        return fs_error_make(r->pool, "malformed-request",
                             "The submission token (%s) is not one of this form's pages: open "
                             "the form again and send it from there.",
                             FS_TOKEN_NAME);
    s->pb.token = tok;
    if (!s->ikey && (s->kind != BODY_MULTIPART || s->hash))
        s->ikey = tok;
    return NULL;
}

/* What the request hash covers before the body bytes, in every body
 * encoding. The link the request comes through is part of the request:
 * the same key through another link is a different request (422), not a
 * replay. Its token is what the request carries (the link's id is not
 * known before the database is asked). One that cannot be decoded is
 * hashed as "%": no submission was ever stored through it (take_link
 * refuses it), so it replays nothing. Without a link the head is what it
 * always was, so records stored before keep replaying. */
static const char *request_head(request_rec *r, int kind, const char *form_id, int dry) {
    const char *link = NULL;
    if (formsvc_arg(r, FORMSVC_LINK_PARAM, &link))
        link = "%";
    return link ? apr_psprintf(r->pool, "POST /f/%s %d %d " FORMSVC_LINK_PARAM "=%s\n", form_id,
                               kind, dry, link)
                : apr_psprintf(r->pool, "POST /f/%s %d %d\n", form_id, kind, dry);
}

/* A multipart body, read as it arrives once the form is known:
 * with take, the files of a form with file fields are checked and
 * spooled for the submission's transaction (files.h), else dropped (the
 * form came from the outage copy, or is not open); the request hash is
 * taken on the way. */
static fs_error *multipart_body(request_rec *r, post *s, int take) {
    formsvc_srv *c = formsvc_conf(r->server);
    int files = fs_fieldset_has_files(s->pb.fs);
    apr_off_t max = c->max_body_submission + (files ? formsvc_files_max_body(s->pb.fs) : 0);
    /* a closed form's files are read and dropped: it answers 409 (or a
     * replay) without storing anything */
    if (files && take) {
        if (!(s->sid = fs_id_new(r->pool, "sub_")))
            return fs_error_internal(r->pool, "no random bytes for a submission id");
        s->up = formsvc_upload_new(r, s->pb.fs, s->pb.f.id, s->sid);
    }
    /* a page's post may carry its submission token (form_token) */
    fs_sha256 *h = s->ikey || s->html ? fs_sha256_new(r->pool) : NULL;
    if (h) { /* as request_hash, the link included */
        const char *head = request_head(r, s->kind, s->pb.f.id, s->dry);
        fs_sha256_update(h, head, strlen(head));
    }
    fs_error *e = formsvc_multipart_read(r, s->boundary, c->max_body_submission, max, files, s->up,
                                         h, &s->pairs, &s->file_err);
    const unsigned char *md = h && !e ? fs_sha256_final(h, r->pool) : NULL;
    if (md)
        s->hash = fs_b64url_encode(r->pool, md, 32);
    return e;
}

static const char *request_hash(request_rec *r, int kind, const char *form_id, int dry,
                                const char *body, apr_size_t len) {
    unsigned char md[SHA256_DIGEST_LENGTH];
    const char *head = request_head(r, kind, form_id, dry);
    apr_size_t hl = strlen(head);
    unsigned char *all = apr_palloc(r->pool, hl + len);
    memcpy(all, head, hl);
    memcpy(all + hl, body, len);
    SHA256(all, hl + len, md);
    return fs_b64url_encode(r->pool, md, sizeof(md));
}

/* The answers that refuse a submission in a way its sender can act on.
 * Chosen once per request: pages for an HTML post, problem+json for
 * everything else. Every other refusal is problem+json for both. */
typedef struct responder {
    /* e: fs_validate's validation-failed problem */
    int (*invalid)(request_rec *r, post *s, fs_error *e);
    /* the form does not take submissions (any more) */
    int (*closed)(request_rec *r, post *s);
    /* the form takes submissions from opens (settings.opensAt) */
    int (*not_open)(request_rec *r, post *s, const char *opens);
    /* a passing refusal (503 the database is away, 429 a rate or the
     * owner's quota): try again later with the same answers. notice is
     * what the page says; NULL for the one that fits e->status. */
    int (*later)(request_rec *r, post *s, fs_error *e, const char *notice);
} responder;

static int json_invalid(request_rec *r, post *s, fs_error *e) {
    (void)s;
    return problem(r, e);
}

static int json_closed(request_rec *r, post *s) {
    (void)s;
    return problem(r, form_closed(r));
}

static int json_not_open(request_rec *r, post *s, const char *opens) {
    (void)s;
    return problem(r, form_not_open(r, opens));
}

static int json_later(request_rec *r, post *s, fs_error *e, const char *notice) {
    (void)s;
    (void)notice;
    return problem(r, e);
}

static const responder json_responder = {json_invalid, json_closed, json_not_open, json_later};

static int html_invalid(request_rec *r, post *s, fs_error *e) {
    /* 413: a file over its size, said by the field like a 422 */
    return html_page(r, e->status == 413 ? 413 : 422, &s->pb, s->obj, e, NULL);
}

static int html_closed(request_rec *r, post *s) {
    return closed_page(r, 409, &s->pb);
}

static int html_not_open(request_rec *r, post *s, const char *opens) {
    return not_open_page(r, 409, &s->pb, opens);
}

/* The form again with everything typed and a notice; without a form (the
 * database away and no cached copy) a page that says so. */
static int html_later(request_rec *r, post *s, fs_error *e, const char *notice) {
    if (!s->have_form)
        return unavailable_page(r);
    int retry = e->retry_after > 0 ? e->retry_after : e->status == 503 ? 5 : 0;
    if (retry)
        apr_table_setn(r->err_headers_out, "Retry-After", apr_itoa(r->pool, retry));
    if (e->status >= 500)
        FORMSVC_LOG(r, APLOG_WARNING, 00702, "%d %s: form %s given back with the answers",
                    e->status, e->slug, s->pb.f.id);
    if (!notice)
        notice =
            fs_tr(loc_of(r, &s->pb), e->status == 429 ? "notice.rate_limited" : "notice.unsaved");
    return html_page(r, e->status, &s->pb, s->obj, NULL, notice);
}

static const responder html_responder = {html_invalid, html_closed, html_not_open, html_later};

/* A problem that is passing when the database is away (503), final
 * otherwise. */
static int refuse(request_rec *r, post *s, const responder *out, fs_error *e) {
    return e->status == 503 ? out->later(r, s, e, NULL) : problem(r, e);
}

/* The answer to a stored submission, new or replayed: a 303 to the thanks
 * page (or the form's redirect) for an HTML post, else the JSON body with
 * its Location. A replay answers as the first request was answered. */
static int answer(request_rec *r, post *s, int status, const char *location, const char *body,
                  int replayed) {
    if (replayed)
        apr_table_setn(r->headers_out, "Idempotent-Replayed", "true");
    if (status == 303) {
        apr_table_setn(r->headers_out, "Location", location);
        apr_table_setn(r->headers_out, "Cache-Control", "no-store");
        page_headers(r, &s->pb);
        const fs_locale *loc = loc_of(r, &s->pb);
        return formsvc_send_html(r, 303,
                                 fs_html_message_in(r->pool, loc, fs_tr(loc, "thanks.title"),
                                                    fs_tr(loc, "thanks.title"),
                                                    fs_tr(loc, "thanks.received")));
    }
    cors(r);
    if (location && *location)
        apr_table_setn(r->headers_out, "Location", location);
    return send_body(r, status, "application/json", body, 0);
}

/* The thanks page of form id: built from the form's path, never from the
 * action, whose query (a respondent link) would come before the path. */
static const char *thanks_url(request_rec *r, const char *id) {
    return apr_pstrcat(r->pool, formsvc_base_url(r), "/f/", id, "/thanks", NULL);
}

/* A record stored by an earlier release may hold what is no longer
 * answered: a 303 to "<action>?l=<token>/thanks" (the thanks page, then)
 * and the link's metadata in the body (the owner's, never the
 * respondent's). Answered as the record would be written today. */
static void replay_repair(request_rec *r, post *s, int status, const char **loc,
                          const char **body) {
    const char *form = apr_pstrcat(r->pool, formsvc_base_url(r), "/f/", s->pb.f.id, "?", NULL);
    apr_size_t n = *loc ? strlen(*loc) : 0, fl = strlen(form);
    if (status == 303 && n > fl + 7 && !strncmp(*loc, form, fl) && !strcmp(*loc + n - 7, "/thanks"))
        *loc = thanks_url(r, s->pb.f.id);
    json_object *o;
    if (*body && strstr(*body, "\"metadata\"") &&
        !fs_json_parse_object(r->pool, *body, strlen(*body), &o) &&
        json_object_object_get_ex(o, "metadata", NULL)) {
        json_object_object_del(o, "metadata");
        *body = fs_json_str(r->pool, o);
    }
}

#define NO_RECORD (-1)
#define STALE (-2)  /* post_form: the form changed under the submission */
#define AFRESH (-3) /* post_form: the form from memory has files; read it afresh */

/* Answers a repeat from the Idempotency-Key record of s; NO_RECORD (and
 * nothing sent) when there is none. */
static int replay(request_rec *r, post *s, const responder *out) {
    int found, st;
    const char *h, *loc, *body;
    fs_error *e = formsvc_public_idem_get(r, s->pb.f.id, s->ikey, &found, &h, &st, &loc, &body);
    if (e)
        return refuse(r, s, out, e);
    if (!found)
        return NO_RECORD;
    if (strcmp(h, s->hash)) {
        if (s->html && s->pb.token && !strcmp(s->ikey, s->pb.token)) {
            /* the page was sent before with other answers: these are
             * given back, on a page with a fresh token that sends them */
            s->pb.token = NULL;
            return out->later(r, s, key_reused(r), fs_tr(loc_of(r, &s->pb), "notice.resent"));
        }
        return problem(r, key_reused(r));
    }
    replay_repair(r, s, st, &loc, &body);
    return answer(r, s, st, loc, body, 1);
}

/* Stores the checked submission: one statement, committed before any 2xx;
 * it also counts the owner's quota, closes the form at maxSubmissions and
 * records the Idempotency-Key. */
static int store(request_rec *r, post *s, const responder *out) {
    pub *pb = &s->pb;
    formsvc_srv *c = formsvc_conf(r->server);
    const char *sid = s->sid ? s->sid : fs_id_new(r->pool, "sub_");
    const char *evid = fs_id_new(r->pool, "evt_");
    if (!sid || !evid)
        return problem(r, fs_error_internal(r->pool, "no random bytes for a submission id"));
    const char *redirect = redirect_url(r, pb);
    const char *location = s->html ? (redirect ? redirect : thanks_url(r, pb->f.id))
                                   : apr_pstrcat(r->pool, formsvc_base_url(r), "/v1/forms/",
                                                 pb->f.id, "/submissions/", sid, NULL);
    fs_new_submission ns = {pb->f.id, sid, fs_json_str(r->pool, s->obj), s->spam,
                            c->tier[0].submissions_month, c->tier[1].submissions_month, s->ikey,
                            s->hash, s->html ? 303 : 201, location, pb->link ? pb->link->id : NULL,
                            /* spam is neither checked nor counted against settings.uniqueBy */
                            s->spam ? NULL
                                    : fs_unique_hash(r->pool, pb->settings, pb->fields, s->obj),
                            pb->f.version, evid};
    fs_submit_result sr;
    /* the form row is locked first only when a count can close it */
    int exact = fs_json_get(pb->settings, "maxSubmissions") != NULL;
    /* stored with the child's other submissions of the moment
     * (submit_batch.h), except one whose files are in this transaction */
    fs_error *e = s->up ? fs_store_public_submit(formsvc_store(r), &ns, exact, &sr)
                        : formsvc_submit(r, &ns, exact, &sr);
    if (e || sr.outcome != FS_SUBMIT_OK)
        formsvc_upload_rollback(s->up); /* ended before the answer, whatever it is */
    if (e)
        return refuse(r, s, out, e);
    if (sr.outcome == FS_SUBMIT_GONE)
        return problem(r, fs_error_make(r->pool, "not-found", "No such form."));
    if (sr.outcome == FS_SUBMIT_STALE)
        return STALE;
    if (sr.outcome == FS_SUBMIT_CLOSED)
        return out->closed(r, s);
    if (sr.outcome == FS_SUBMIT_LINK_USED || sr.outcome == FS_SUBMIT_LINK_EXPIRED)
        return link_refused(r, pb,
                            sr.outcome == FS_SUBMIT_LINK_USED
                                ? fs_error_make(r->pool, "link-used",
                                                "This link has already been used as many times "
                                                "as it allows.")
                                : fs_error_make(r->pool, "link-expired",
                                                "This link has expired or was withdrawn by the "
                                                "form's owner."),
                            s->html);
    if (sr.outcome == FS_SUBMIT_DUPLICATE) {
        /* settings.uniqueBy: problem+json, or the form again with a notice */
        const char *what = fs_unique_labels(r->pool, pb->settings, pb->fields);
        e = fs_error_make(r->pool, "duplicate-submission",
                          "A submission with the same %s was already received.", what);
        return out->later(r, s, e,
                          fs_trf(r->pool, loc_of(r, pb), "notice.duplicate", "fields", what, NULL));
    }
    if (sr.outcome == FS_SUBMIT_QUOTA) {
        e = fs_error_make(r->pool, "rate-limited",
                          "The form's owner has reached this month's submission quota.");
        e->retry_after = sr.month_left;
        formsvc_metric_inc(FORMSVC_M_LIMITED_QUOTA);
        return out->later(r, s, e, fs_tr(loc_of(r, pb), "notice.quota"));
    }
    if (sr.outcome == FS_SUBMIT_REPLAY) {
        /* a concurrent request with the same Idempotency-Key won */
        int rc = replay(r, s, out);
        return rc != NO_RECORD ? rc
                               : problem(r, fs_error_make(r->pool, "conflict",
                                                          "A request with this Idempotency-Key "
                                                          "is in progress; retry."));
    }
    if (s->up && (e = formsvc_upload_commit(s->up))) /* uploaded files */
        return refuse(r, s, out, e);
    formsvc_metric_inc(FORMSVC_M_SUBMISSIONS); /* stored */
    if (!s->spam)
        formsvc_owner_count_changed(r->pool, pb->f.id);
    return answer(r, s, s->html ? 303 : 201, location, sr.json, 0);
}

/* a JSON body over the plain submission limit is only for a
 * form with a file field. */
static fs_error *files_fit(request_rec *r, post *s) {
    if (s->kind == BODY_JSON && s->len > (apr_size_t)formsvc_conf(r->server)->max_body_submission &&
        !fs_fieldset_has_files(s->pb.fs))
        return fs_error_make(r->pool, "payload-too-large",
                             "The body is larger than %" APR_OFF_T_FMT " bytes.",
                             formsvc_conf(r->server)->max_body_submission);
    return NULL;
}

/* the files of a checked submission, written in the
 * transaction that store() then commits (or rolls back); their values
 * become their metadata. */
static fs_error *files_store(request_rec *r, post *s) {
    if (s->kind == BODY_MULTIPART && s->up) { /* spooled as they came */
        formsvc_upload_values(s->up, s->obj);
        if (!formsvc_upload_any(s->up)) {
            s->up = NULL;
            return NULL;
        }
        return formsvc_upload_save(s->up);
    }
    if (s->kind != BODY_JSON || !fs_fieldset_has_files(s->pb.fs))
        return NULL;
    s->sid = fs_id_new(r->pool, "sub_");
    if (!s->sid)
        return fs_error_internal(r->pool, "no random bytes for a submission id");
    s->up = formsvc_upload_new(r, s->pb.fs, s->pb.f.id, s->sid);
    fs_error *e = formsvc_upload_json(s->up, s->obj);
    if (!e && formsvc_upload_any(s->up))
        e = formsvc_upload_save(s->up);
    if (!formsvc_upload_any(s->up))
        s->up = NULL;
    return e;
}

#define READ (-4) /* multipart_first: the body is in s; post_form goes on */

/* A multipart body, read before anything else is asked of the database and
 * with no pooled connection held while it arrives (a slow client must not
 * hold one; an open transaction would also hide every later event from
 * the feed). First, without reading it: the form (from this child's
 * memory when it is there), whether it takes submissions now and the
 * address's rate; a body over the form's limits is refused by its
 * Content-Length (formsvc_multipart_read). Then the body, its files
 * checked and spooled (files.h). READ when post_form goes on; else the
 * answer is sent. A request with an Idempotency-Key to a form that is
 * not open is read (its files dropped) so that a repeat is still
 * answered as the first time. */
static int multipart_first(request_rec *r, post *s, const responder *out, const char *ref) {
    /* an answer before the body closes the connection: httpd would
     * otherwise wait for the whole body to discard it */
    ap_conn_keepalive_e keep = r->connection->keepalive;
    r->connection->keepalive = AP_CONN_CLOSE;
    int cached;
    fs_error *e = load(r, ref, &s->pb, &cached, s->dry ? ROW_DB : ROW_MEMORY);
    s->have_form = !e || cached;
    if (e && !s->have_form)
        return refuse(r, s, out, e);
    if (e) { /* the database is away: the answers are read to give the form back */
        formsvc_db_release(r);
        r->connection->keepalive = keep;
        fs_error *be = multipart_body(r, s, 0);
        if (be)
            return problem(r, be);
        fs_coerce(r->pool, s->pb.fs, s->pairs, s->pb.honeypot, &s->obj, &s->spam);
        keep_link(r, &s->pb);
        return refuse(r, s, out, e);
    }
    int open = !strcmp(s->pb.f.status, "published") && !opens_later(&s->pb);
    if (!open && !s->dry && !s->ikey) { /* a refusal comes from the stored form */
        if ((e = load(r, ref, &s->pb, &cached, ROW_REFILL)))
            return refuse(r, s, out, e);
        open = !strcmp(s->pb.f.status, "published") && !opens_later(&s->pb);
    }
    if (!open && !s->ikey) {
        if (strcmp(s->pb.f.status, "published"))
            return out->closed(r, s);
        return out->not_open(r, s, opens_later(&s->pb));
    }
    if (open && (e = formsvc_ratelimit_address(r, FORMSVC_RL_SUBMIT, s->pb.f.id)))
        return out->later(r, s, e, NULL);
    s->limited = open; /* counted once, however often the form is read */
    s->read_version = s->pb.f.version ? s->pb.f.version : "";
    s->read_files = fs_fieldset_has_files(s->pb.fs);
    s->files_dropped = s->read_files && !open;
    formsvc_db_release(r); /* nothing held while the body arrives */
    r->connection->keepalive = keep;
    fs_error *be = multipart_body(r, s, open);
    return be ? problem(r, be) : READ;
}

/* The checks and the store of a parsed submission to the form ref, read
 * from where from says (load). A form from memory only ever leads to a
 * stored submission (which the statement's version check confirms):
 * AFRESH, nothing answered, when it would refuse the answers, has file
 * fields (a JSON body) or is not the form a multipart body's files were
 * checked against, so that every refusal comes from the stored form; STALE,
 * nothing stored or answered, when the statement found the form changed
 * since it was read. */
static int post_form(request_rec *r, post *s, const responder *out, const char *ref, int from) {
    int cached;
    fs_error *e = load(r, ref, &s->pb, &cached, from);
    s->have_form = !e || cached;
    if (!e && from == ROW_MEMORY && s->kind == BODY_JSON && fs_fieldset_has_files(s->pb.fs))
        return AFRESH; /* files go into the submission's transaction */
    fs_error *be;
    if (s->have_form && (be = form_token(r, s)))
        return problem(r, be);
    if (s->have_form && s->kind != BODY_JSON)
        fs_coerce(r->pool, s->pb.fs, s->pairs, s->pb.honeypot, &s->obj, &s->spam);
    if (e) {
        if (s->have_form)
            keep_link(r, &s->pb);
        return refuse(r, s, out, e);
    }

    /* a repeat is answered as the first time, before any other check */
    if (s->ikey) {
        if (!s->hash) /* multipart_body took it on the way */
            s->hash = request_hash(r, s->kind, s->pb.f.id, s->dry, s->buf, s->len);
        int rc = replay(r, s, out);
        if (rc != NO_RECORD)
            return rc;
    }
    /* a multipart body was read before (multipart_first); its files were
     * checked against the form of read_version, which must still hold */
    if (s->kind == BODY_MULTIPART && (s->read_files || fs_fieldset_has_files(s->pb.fs)) &&
        s->read_version && strcmp(s->read_version, s->pb.f.version ? s->pb.f.version : ""))
        return from == ROW_MEMORY ? AFRESH : STALE;
    if (strcmp(s->pb.f.status, "published"))
        return out->closed(r, s);
    const char *opens = opens_later(&s->pb);
    if (opens)
        return from == ROW_MEMORY ? AFRESH : out->not_open(r, s, opens);
    if (s->files_dropped) /* the form opened while the body arrived: nothing stored */
        return STALE;
    if ((e = take_link(r, &s->pb))) {
        /* the request with the same Idempotency-Key that used the link up
         * may have committed since the check above: its answer, then */
        int rc = s->ikey && e->status == 409 ? replay(r, s, out) : NO_RECORD;
        if (rc != NO_RECORD)
            return rc;
        return e->status == 503 ? out->later(r, s, e, NULL) : link_refused(r, &s->pb, e, s->html);
    }
    if (!s->limited && (e = formsvc_ratelimit_address(r, FORMSVC_RL_SUBMIT, s->pb.f.id)))
        return out->later(r, s, e, NULL);
    s->limited = 1; /* counted once, however often the form is read */
    if ((e = files_fit(r, s)))
        return from == ROW_MEMORY ? AFRESH : problem(r, e);
    if (s->file_err) /* which file failed and why, other answers kept */
        return from == ROW_MEMORY ? AFRESH : out->invalid(r, s, s->file_err);
    if (s->up)
        formsvc_upload_stubs(s->up, s->obj); /* the files as fs_validate counts them */
    if ((e = fs_validate(r->pool, s->pb.fs, s->obj)))
        return from == ROW_MEMORY ? AFRESH : out->invalid(r, s, e);
    if (s->dry) {
        cors(r);
        return send_body(r, 200, "application/json", "{\"valid\":true}", 0);
    }
    if ((e = files_store(r, s))) /* uploaded files */
        return e->status == 422 || (e->status == 413 && e->errors) ? out->invalid(r, s, e)
               : e->status == 413 ? out->later(r, s, e, e->detail) /* the storage quota */
                                  : refuse(r, s, out, e);
    return store(r, s, out);
}

static int formsvc_h_public_post(request_rec *r, const char *const *caps) {
    post s;
    fs_error *e = post_parse(r, &s);
    if (e)
        return problem(r, e);
    const responder *out = s.html ? &html_responder : &json_responder;
    if (s.kind == BODY_MULTIPART) {
        int rc = multipart_first(r, &s, out, caps[0]);
        if (rc != READ)
            return rc;
    }
    /* the form from memory first; when it changed meanwhile,
     * or would refuse the answers, they are checked again against the
     * form as stored. A multipart body's files were checked as it
     * arrived, against the form multipart_first read, whose version the
     * submission's statement confirms (a changed form: nothing stored,
     * the conflict below); a dry run stores nothing to confirm. */
    int rc = post_form(r, &s, out, caps[0], s.dry ? ROW_DB : ROW_MEMORY);
    if (rc == AFRESH)
        rc = post_form(r, &s, out, caps[0], ROW_REFILL);
    /* a multipart body is in memory (its files spooled): checked again
     * when it has no files */
    int again = !s.up && !(s.kind == BODY_MULTIPART && (s.read_files || s.files_dropped));
    for (int tries = 0; rc == STALE && again && tries < 3; tries++) {
        formsvc_metric_inc(FORMSVC_M_MEM_ROW_STALE);
        rc = post_form(r, &s, out, caps[0], ROW_REFILL);
    }
    if (rc == STALE)
        return out->later(r, &s,
                          fs_error_make(r->pool, "conflict",
                                        "The form changed while this submission was being "
                                        "stored; nothing was stored. Check the form and send "
                                        "it again."),
                          NULL);
    return rc;
}

/* ---- GET /f/embed.js ------------------------------------------------- */

/* The host page's listener (fs_embed.h). No form id or slug has a dot, so
 * the path is never a form's. Cross-origin readable (SRI needs CORS). */
static int formsvc_h_embed_js(request_rec *r, const char *const *caps) {
    (void)caps;
    apr_table_setn(r->err_headers_out, "Access-Control-Allow-Origin", "*");
    apr_table_setn(r->headers_out, "Cross-Origin-Resource-Policy", "cross-origin");
    apr_table_setn(r->headers_out, "Cache-Control", "public, max-age=86400");
    apr_table_setn(r->headers_out, "X-Content-Type-Options", "nosniff");
    const char *js = fs_embed_js();
    apr_table_setn(r->headers_out, "ETag", etag_of(r, js, strlen(js)));
    r->status = HTTP_OK; /* ap_meets_conditions looks at it */
    int rc = ap_meets_conditions(r);
    if (rc != OK)
        return rc; /* 304 */
    return formsvc_send_body(r, 200, "text/javascript; charset=utf-8", js, strlen(js));
}

const formsvc_route formsvc_routes_public[] = {
    {M_GET, "/f/embed.js", formsvc_h_embed_js, 0, 0}, /* before /f/{ref} */
    {M_GET, "/f/{ref}", formsvc_h_public_get, 0, 0},
    {M_POST, "/f/{ref}", formsvc_h_public_post, 0, 0},
    {M_OPTIONS, "/f/{ref}", formsvc_h_public_options, 0, 0},
    {M_GET, "/f/{ref}/thanks", formsvc_h_public_thanks, 0, 0},
    {0, NULL, NULL, 0, 0}};
