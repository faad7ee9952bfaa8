/* public_respond: the answers of a public POST: the responders (pages for
 * an HTML post, problem+json otherwise, public_post.h), the answer to a
 * stored submission and the replay of an Idempotency-Key record.
 * Memory: everything from r->pool. */
#include "fs_html.h"
#include "fs_json.h"
#include "http/i18n.h"
#include "public/public_post.h"

#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

static fs_error *key_reused(request_rec *r) {
    return fs_error_make(r->pool, "validation-failed",
                         "This Idempotency-Key was used with a different request in the last 24 "
                         "hours.");
}

static fs_error *form_closed(request_rec *r) {
    return fs_error_make(r->pool, "form-closed",
                         "This form is closed and takes no more submissions.");
}

static int json_invalid(request_rec *r, post *s, fs_error *e) {
    (void)s;
    return formsvc_pub_problem(r, e);
}

static int json_closed(request_rec *r, post *s) {
    (void)s;
    return formsvc_pub_problem(r, form_closed(r));
}

static int json_not_open(request_rec *r, post *s, const char *opens) {
    (void)s;
    return formsvc_pub_problem(r, formsvc_pub_form_not_open(r, opens));
}

static int json_later(request_rec *r, post *s, fs_error *e, const char *notice) {
    (void)s;
    (void)notice;
    return formsvc_pub_problem(r, e);
}

const responder formsvc_post_json = {json_invalid, json_closed, json_not_open, json_later};

static int html_invalid(request_rec *r, post *s, fs_error *e) {
    /* 413: a file over its size, said by the field like a 422 */
    return formsvc_pub_html_page(r, e->status == 413 ? 413 : 422, &s->pb, s->obj, e, NULL);
}

static int html_closed(request_rec *r, post *s) {
    return formsvc_pub_closed_page(r, 409, &s->pb);
}

static int html_not_open(request_rec *r, post *s, const char *opens) {
    return formsvc_pub_not_open_page(r, 409, &s->pb, opens);
}

/* The form again with everything typed and a notice; without a form (the
 * database away and no cached copy) a page that says so. */
static int html_later(request_rec *r, post *s, fs_error *e, const char *notice) {
    if (!s->have_form)
        return formsvc_pub_unavailable_page(r);
    int retry = e->retry_after > 0 ? e->retry_after : e->status == 503 ? 5 : 0;
    if (retry)
        apr_table_setn(r->err_headers_out, "Retry-After", apr_itoa(r->pool, retry));
    if (e->status >= 500)
        FORMSVC_LOG(r, APLOG_WARNING, 00702, "%d %s: form %s given back with the answers",
                    e->status, e->slug, s->pb.f.id);
    if (!notice)
        notice = fs_tr(formsvc_pub_locale(r, &s->pb),
                       e->status == 429 ? "notice.rate_limited" : "notice.unsaved");
    formsvc_post_pages_restore(r, s); /* a step: the answers of its other pages too */
    return formsvc_pub_html_page(r, e->status, &s->pb, s->obj, NULL, notice);
}

const responder formsvc_post_html = {html_invalid, html_closed, html_not_open, html_later};

/* A problem that is passing when the database is away (503), final
 * otherwise. */
int formsvc_post_refuse(request_rec *r, post *s, const responder *out, fs_error *e) {
    return e->status == 503 ? out->later(r, s, e, NULL) : formsvc_pub_problem(r, e);
}

/* The answer to a stored submission, new or replayed: a 303 to the thanks
 * page (or the form's redirect) for an HTML post, else the JSON body with
 * its Location. A replay answers as the first request was answered. */
int formsvc_post_answer(request_rec *r, post *s, int status, const char *location, const char *body,
                        int replayed) {
    if (replayed)
        apr_table_setn(r->headers_out, "Idempotent-Replayed", "true");
    if (status == 303) {
        /* the thanks page with the edit link's token (public_edit.c) */
        location = formsvc_edit_thanks_location(r, &s->pb, location, body);
        apr_table_setn(r->headers_out, "Location", location);
        apr_table_setn(r->headers_out, "Cache-Control", "no-store");
        formsvc_pub_page_headers(r, &s->pb);
        const fs_locale *loc = formsvc_pub_locale(r, &s->pb);
        return formsvc_send_html(r, 303,
                                 fs_html_message_in(r->pool, loc, fs_tr(loc, "thanks.title"),
                                                    fs_tr(loc, "thanks.title"),
                                                    fs_tr(loc, "thanks.received")));
    }
    formsvc_pub_cors(r);
    if (location && *location)
        apr_table_setn(r->headers_out, "Location", location);
    return formsvc_pub_send_body(r, status, "application/json", body, 0);
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
        *loc = formsvc_pub_thanks_url(r, s->pb.f.id);
    json_object *o;
    if (*body && strstr(*body, "\"metadata\"") &&
        !fs_json_parse_object(r->pool, *body, strlen(*body), &o) &&
        json_object_object_get_ex(o, "metadata", NULL)) {
        json_object_object_del(o, "metadata");
        *body = fs_json_str(r->pool, o);
    }
}

/* Answers a repeat from the Idempotency-Key record of s; NO_RECORD (and
 * nothing sent) when there is none. */
int formsvc_post_replay(request_rec *r, post *s, const responder *out) {
    int found, st;
    const char *h, *loc, *body;
    fs_error *e = formsvc_public_idem_get(r, s->pb.f.id, s->ikey, &found, &h, &st, &loc, &body);
    if (e)
        return formsvc_post_refuse(r, s, out, e);
    if (!found)
        return NO_RECORD;
    if (strcmp(h, s->hash)) {
        if (s->html && s->partial_key && !strcmp(s->ikey, s->partial_key))
            return formsvc_post_partial_sent(r, s); /* its filling-in was sent */
        if (s->html && s->pb.token && !strcmp(s->ikey, s->pb.token)) {
            /* the page was sent before with other answers: these are
             * given back, on a page with a fresh token that sends them */
            s->pb.token = NULL;
            return out->later(r, s, key_reused(r),
                              fs_tr(formsvc_pub_locale(r, &s->pb), "notice.resent"));
        }
        return formsvc_pub_problem(r, key_reused(r));
    }
    replay_repair(r, s, st, &loc, &body);
    return formsvc_post_answer(r, s, st, loc, body, 1);
}
