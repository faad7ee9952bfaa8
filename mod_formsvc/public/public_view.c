/* public_view: the public routes that read, GET and HEAD /f/{ref} (the
 * HTML page or the JSON view with its schema, chosen by Accept; the
 * answer from this child's memory first, form_cache.h), GET
 * /f/{ref}/thanks, the CORS preflight (OPTIONS /f/{ref}) and
 * GET /f/embed.js. Memory: everything from r->pool. */
#include "fs_embed.h"
#include "fs_html.h"
#include "fs_json.h"
#include "fs_link.h"
#include "fs_negotiate.h"
#include "fs_schema.h"
#include "fs_scores.h"
#include "fs_store_asks.h"
#include "http/i18n.h"
#include "http/links.h"
#include "http/request.h"
#include "public/form_cache.h"
#include "public/public_page.h"
#include "public/public_scores.h"
#include "runtime/views.h"

#include <apr_strings.h>
#include <http_core.h>

/* ---- GET / HEAD ------------------------------------------------------ */

static json_object *view(request_rec *r, pub *pb) {
    json_object *o = fs_json_own(r->pool, json_object_new_object());
    json_object_object_add(o, "id", json_object_new_string(pb->f.id));
    json_object_object_add(o, "slug", pb->f.slug ? json_object_new_string(pb->f.slug) : NULL);
    json_object_object_add(o, "title", json_object_new_string(pb->f.title));
    json_object_object_add(o, "description",
                           pb->f.description ? json_object_new_string(pb->f.description) : NULL);
    json_object_object_add(o, "status", json_object_new_string(pb->f.status));
    const char *opens = formsvc_pub_setting(pb, "opensAt"); /* only when set */
    if (opens)
        json_object_object_add(o, "opensAt", json_object_new_string(opens));
    /* a quiz's correct answers and options' scores are the owner's */
    json_object *pf = fs_quiz_public_fields(pb->fields);
    json_object_object_add(o, "fields", pf ? pf : json_object_get(pb->fields));
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
    const char *copy = formsvc_pub_copy_field(pb);
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
    if (pb->link && pb->link->ask_id) { /* an ask's link: the person may decline */
        json_object *d = json_object_new_object();
        json_object_object_add(d, "method", json_object_new_string("POST"));
        json_object_object_add(d, "action", json_object_new_string(formsvc_pub_decline_url(r, pb)));
        json_object_object_add(o, "decline", d);
    }
    json_object_object_add(o, "schema",
                           json_object_get(fs_schema_for(r->pool, pb->fs, NULL, pb->f.title)));
    return o;
}

/* Fields take their value from the page's query string, and from the
 * respondent link's prefill (links.h). */
static json_object *query_values(request_rec *r, pub *pb) {
    return formsvc_prefill_values(r, pb->fs, pb->link);
}
int formsvc_h_public_get(request_rec *r, const char *const *caps) {
    apr_table_mergen(r->err_headers_out, "Vary", "Accept");
    fs_media m = fs_negotiate(apr_table_get(r->headers_in, "Accept"));
    if (m == FS_MEDIA_HTML && formsvc_partial_resume_asked(r)) /* a resume URL */
        return formsvc_partial_resume_get(r, caps[0]);
    /* the answer from memory, or a ticket to keep it (form_cache.h) */
    formsvc_form_ticket ticket;
    int rc = formsvc_form_cache_serve(r, caps[0], m, &ticket);
    if (rc != DECLINED)
        return rc;
    pub pb;
    int cached;
    fs_error *e = formsvc_pub_load(r, caps[0], &pb, &cached, ROW_DB);
    if (e) {
        if (e->status == 503 && m == FS_MEDIA_HTML) {
            if (!cached)
                return formsvc_pub_unavailable_page(r);
            const char *token = NULL;
            if (formsvc_pub_link_required(&pb) &&
                (formsvc_arg(r, FORMSVC_LINK_PARAM, &token) || !token))
                return formsvc_pub_link_refused(r, &pb, formsvc_pub_link_missing(r), 1);
            apr_table_setn(r->err_headers_out, "Retry-After", "5");
            formsvc_pub_keep_link(r, &pb);
            return formsvc_pub_html_page(r, 503, &pb, query_values(r, &pb), NULL,
                                         fs_tr(formsvc_pub_locale(r, &pb), "notice.degraded"));
        }
        return formsvc_pub_load_failed(r, e, m == FS_MEDIA_HTML);
    }
    if (m == FS_MEDIA_NONE)
        return formsvc_pub_problem(
            r, fs_error_make(r->pool, "not-acceptable",
                             "This form is served as text/html or application/json."));
    if ((e = formsvc_pub_take_link(r, &pb)))
        return formsvc_pub_link_refused(r, &pb, e, m == FS_MEDIA_HTML);
    formsvc_form_cache_fill(r, &ticket, pb.f.id, pb.f.slug, pb.f.status, pb.f.settings,
                            pb.f.fields); /* forms and credentials from memory */
    if (m == FS_MEDIA_JSON) {
        formsvc_pub_cors(r);
        apr_table_setn(r->headers_out, "Referrer-Policy", "no-referrer");
        /* a link's view is its holder's own: no-store */
        return formsvc_pub_send_body(r, 200, "application/json", fs_json_str(r->pool, view(r, &pb)),
                                     !pb.link);
    }
    if (strcmp(pb.f.status, "published"))
        return formsvc_pub_closed_page(r, 200, &pb);
    const char *opens = formsvc_pub_opens_later(&pb);
    if (opens)
        return formsvc_pub_not_open_page(r, 200, &pb, opens);
    if (!r->header_only)
        formsvc_views_count(r, pb.f.id); /* counted in memory, flushed later */
    fs_page pg = formsvc_pub_page_of(r, &pb, query_values(r, &pb), NULL, NULL);
    return formsvc_pub_send_html(r, 200, &pb, fs_html_form(r->pool, &pg), !pb.link);
}

int formsvc_h_public_thanks(request_rec *r, const char *const *caps) {
    apr_table_mergen(r->err_headers_out, "Vary", "Accept");
    fs_media m = fs_negotiate(apr_table_get(r->headers_in, "Accept"));
    pub pb;
    int cached;
    fs_error *e = formsvc_pub_load(r, caps[0], &pb, &cached, ROW_DB);
    if (e && !cached)
        return formsvc_pub_load_failed(r, e, m == FS_MEDIA_HTML);
    const char *msg = formsvc_pub_setting(&pb, "confirmationMessage");
    /* ?ending=<key>: the message of that ending (settings.endings), when
     * it has one; an unknown key is the form's own message */
    const char *ek = NULL;
    if (!formsvc_arg(r, "ending", &ek) && ek) {
        json_object *en = fs_json_get(pb.settings, "endings");
        for (size_t i = 0;
             en && json_object_is_type(en, json_type_array) && i < json_object_array_length(en);
             i++) {
            json_object *e = json_object_array_get_idx(en, i), *m = fs_json_get(e, "message");
            if (!strcmp(json_object_get_string(fs_json_get(e, "key")) ?: "", ek) &&
                json_object_is_type(m, json_type_string))
                msg = json_object_get_string(m);
        }
    }
    /* the owner's message as written; else ours, in English for JSON */
    const fs_locale *loc =
        m == FS_MEDIA_HTML ? formsvc_pub_locale(r, &pb) : formsvc_locale_for(r, NULL);
    if (!msg || !*msg)
        msg = fs_tr(loc, "thanks.message");
    msg = formsvc_pub_score_message(r, &pb, loc, msg); /* a quiz's score (public_scores.h) */
    if (m == FS_MEDIA_NONE)
        return formsvc_pub_problem(
            r, fs_error_make(r->pool, "not-acceptable",
                             "This page is served as text/html or application/json."));
    if (m == FS_MEDIA_JSON) {
        json_object *o = fs_json_own(r->pool, json_object_new_object());
        json_object_object_add(o, "formId", json_object_new_string(pb.f.id));
        json_object_object_add(o, "message", json_object_new_string(msg));
        formsvc_pub_cors(r);
        return formsvc_pub_send_body(r, 200, "application/json", fs_json_str(r->pool, o), 1);
    }
    return formsvc_pub_send_html(r, 200, &pb,
                                 fs_html_message_in(r->pool, loc, pb.f.title, pb.f.title, msg), 1);
}

/* ---- OPTIONS (CORS preflight) ---------------------------------------- */

int formsvc_h_public_options(request_rec *r, const char *const *caps) {
    (void)caps;
    formsvc_pub_cors(r);
    apr_table_setn(r->headers_out, "Access-Control-Allow-Methods", "GET, HEAD, POST, OPTIONS");
    apr_table_setn(r->headers_out, "Access-Control-Allow-Headers",
                   "Content-Type, Accept, Idempotency-Key");
    apr_table_setn(r->headers_out, "Access-Control-Max-Age", "86400");
    apr_table_setn(r->headers_out, "Allow", "GET, HEAD, POST, OPTIONS");
    apr_table_setn(r->headers_out, "Vary", "Origin, Access-Control-Request-Headers");
    return formsvc_send_empty(r, 204);
}

/* ---- GET /f/embed.js ------------------------------------------------- */

/* The host page's listener (fs_embed.h). No form id or slug has a dot, so
 * the path is never a form's. Cross-origin readable (SRI needs CORS). */
int formsvc_h_embed_js(request_rec *r, const char *const *caps) {
    (void)caps;
    apr_table_setn(r->err_headers_out, "Access-Control-Allow-Origin", "*");
    apr_table_setn(r->headers_out, "Cross-Origin-Resource-Policy", "cross-origin");
    apr_table_setn(r->headers_out, "Cache-Control", "public, max-age=86400");
    apr_table_setn(r->headers_out, "X-Content-Type-Options", "nosniff");
    const char *js = fs_embed_js();
    apr_table_setn(r->headers_out, "ETag", formsvc_pub_etag(r, js, strlen(js)));
    r->status = HTTP_OK; /* ap_meets_conditions looks at it */
    int rc = ap_meets_conditions(r);
    if (rc != OK)
        return rc; /* 304 */
    return formsvc_send_body(r, 200, "text/javascript; charset=utf-8", js, strlen(js));
}

/* ---- the decline button of an ask's link -------------------------------- */

/* POST /f/{ref}/decline?l=<token>: the person declines the ask the link
 * was made for (a plain form post: no script, no body); a 303 to the
 * declined page, or the link's refusal page when the ask was answered
 * (409), expired or was declined before (410), or the token is no ask's
 * link of this form (404). The token is the capability, as for an answer. */
int formsvc_h_public_decline(request_rec *r, const char *const *caps) {
    pub pb;
    int cached;
    fs_error *e = formsvc_pub_load(r, caps[0], &pb, &cached, ROW_DB);
    if (e)
        return formsvc_pub_load_failed(r, e, 1);
    const char *token, *status = NULL;
    if ((e = formsvc_arg(r, FORMSVC_LINK_PARAM, &token)))
        return formsvc_pub_problem(r, e);
    if (token && fs_link_token_well_formed(token) &&
        (e = fs_store_ask_decline(formsvc_store(r), pb.f.id, formsvc_link_token_hash(r, token),
                                  &status)))
        return formsvc_pub_load_failed(r, e, 1);
    if (!status)
        return formsvc_pub_link_refused(
            r, &pb, fs_error_make(r->pool, "not-found", "This link does not belong to this form."),
            1);
    if (!strcmp(status, "answered"))
        return formsvc_pub_link_refused(
            r, &pb, fs_error_make(r->pool, "link-used", "This question was already answered."), 1);
    if (strcmp(status, "declined") || r->method_number != M_POST)
        return formsvc_pub_link_refused(
            r, &pb,
            fs_error_make(r->pool, "link-expired", "This question has expired or was declined."),
            1);
    const char *ref = pb.f.slug && *pb.f.slug ? pb.f.slug : pb.f.id;
    apr_table_setn(r->headers_out, "Location",
                   apr_pstrcat(r->pool, formsvc_base_url(r), "/f/", ref, "/declined", NULL));
    apr_table_setn(r->headers_out, "Cache-Control", "no-store");
    formsvc_pub_page_headers(r, &pb);
    const fs_locale *loc = formsvc_pub_locale(r, &pb);
    return formsvc_send_html(r, 303,
                             fs_html_message_in(r->pool, loc, fs_tr(loc, "declined.title"),
                                                fs_tr(loc, "declined.title"),
                                                fs_tr(loc, "declined.message")));
}

/* GET /f/{ref}/declined: where the decline button lands. */
int formsvc_h_public_declined(request_rec *r, const char *const *caps) {
    pub pb;
    int cached;
    fs_error *e = formsvc_pub_load(r, caps[0], &pb, &cached, ROW_DB);
    if (e && !cached)
        return formsvc_pub_load_failed(r, e, 1);
    const fs_locale *loc = formsvc_pub_locale(r, &pb);
    return formsvc_pub_send_html(r, 200, &pb,
                                 fs_html_message_in(r->pool, loc, pb.f.title,
                                                    fs_tr(loc, "declined.title"),
                                                    fs_tr(loc, "declined.message")),
                                 1);
}
