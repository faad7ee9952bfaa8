/* handle_notify: the pages behind the links of notification mail, and the
 * owner's view of a form's recipients.
 *
 * GET /notify/confirm?token= shows a button; POST /notify/confirm spends
 * the token (a mail scanner that fetches links confirms nothing).
 * GET /notify/unsubscribe?u=<id>.<mac> shows a button; POST to the same
 * URL unsubscribes at once: RFC 8058's one-click POST (body
 * List-Unsubscribe=One-Click) and the button's form alike.
 * GET /v1/forms/{id}/notify (forms:read): settings.notify's recipients
 * with their state and the account's notifications of the day. */
#include "fs_html.h"
#include "fs_json.h"
#include "fs_negotiate.h"
#include "fs_redact.h"
#include "fs_secret.h"
#include "fs_store_mail.h"
#include "http/auth.h"
#include "http/forms_access.h"
#include "http/quota.h"
#include "http/request.h"
#include "http/response.h"
#include "http/router.h"
#include "runtime/notify.h"
#include "runtime/request_ctx.h"

#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

static int page(request_rec *r, int status, const char *title, const char *text) {
    return formsvc_send_link_page(r, status, "'none'",
                                  fs_html_message(r->pool, title, title, text));
}

static int try_later(request_rec *r, fs_error *e) {
    formsvc_log_problem(r, e, NULL);
    return page(r, e->status, "Try again later",
                "The service cannot answer at the moment. Please open the link again in a few "
                "minutes.");
}

/* A small form-encoded body (the buttons' forms, RFC 8058's POST); any
 * other type or a body too large reads as empty. */
static const char *body_param(request_rec *r, const char *name) {
    const char *ct = apr_table_get(r->headers_in, "Content-Type");
    char *buf;
    apr_size_t len;
    if (formsvc_read_body(r, 2048, &buf, &len) || !buf ||
        !fs_media_is(ct, "application/x-www-form-urlencoded"))
        return NULL;
    return fs_query_get(r->pool, buf, len, name, NULL);
}

static int confirm_link(request_rec *r, const char *const *caps) {
    (void)caps;
    const char *token;
    if (r->header_only)
        return page(r, 200, "Confirm notifications", "Open this link to confirm.");
    if (formsvc_arg(r, "token", &token) || !token || strlen(token) != 43)
        return page(r, 400, "Link not valid",
                    "This confirmation link is incomplete. Open the link from the e-mail "
                    "exactly as it was sent.");
    return formsvc_send_link_page(
        r, 200, "'self'",
        fs_html_confirm(r->pool, "Confirm notifications",
                        "Press the button to receive the submissions of a form at this address. "
                        "Every mail has a link to stop them.",
                        "confirm", "token", token, "Send me the submissions"));
}

static int confirm_post(request_rec *r, const char *const *caps) {
    (void)caps;
    const char *token = body_param(r, "token");
    if (formsvc_req_get(r)->body_answered)
        return AP_FILTER_ERROR;
    if (!token || strlen(token) != 43)
        return page(r, 400, "Link not valid",
                    "Open the link from the e-mail and press the button on its page.");
    const char *email, *title;
    fs_error *e = fs_store_notify_confirm(
        formsvc_store(r), formsvc_notify_token_hash(r->pool, r->server, token), &email, &title);
    if (e)
        return try_later(r, e);
    if (!email)
        return page(r, 400, "Link not valid",
                    "This link has expired, was already used, or the address was removed from "
                    "the form's notifications. Ask the form's owner to add it again.");
    return page(r, 200, "Notifications confirmed",
                apr_psprintf(r->pool,
                             "%s will receive the submissions of the form \"%s\". Every mail "
                             "has a link to stop them.",
                             email, title));
}

/* The recipient id of a u=<id>.<mac> whose MAC is right, else NULL. */
static const char *unsub_id(request_rec *r, const char *u) {
    const char *dot = u ? strchr(u, '.') : NULL;
    if (!dot || dot - u > 64)
        return NULL;
    const char *id = apr_pstrndup(r->pool, u, (apr_size_t)(dot - u));
    if (!fs_id_valid(id, "nrc_") ||
        !fs_secret_equal(dot + 1, formsvc_notify_unsub_mac(r->pool, r->server, id)))
        return NULL;
    return id;
}

static int unsub_not_valid(request_rec *r) {
    return page(r, 400, "Link not valid",
                "This unsubscribe link is incomplete or not valid. Open the link from the "
                "e-mail exactly as it was sent.");
}

static int unsubscribe_link(request_rec *r, const char *const *caps) {
    (void)caps;
    const char *u;
    if (r->header_only)
        return page(r, 200, "Stop notifications", "Open this link to stop the notifications.");
    if (formsvc_arg(r, "u", &u) || !unsub_id(r, u))
        return unsub_not_valid(r);
    return formsvc_send_link_page(
        r, 200, "'self'",
        fs_html_confirm(r->pool, "Stop notifications",
                        "Press the button and this address receives no more of these mails "
                        "(the submissions of this form, or the questions of the account that "
                        "sent it).",
                        "unsubscribe", "u", u, "Stop these mails"));
}

static int unsubscribe_post(request_rec *r, const char *const *caps) {
    (void)caps;
    const char *u = NULL;
    if (formsvc_arg(r, "u", &u) || !u) /* the one-click POST keeps the link's query */
        u = body_param(r, "u");
    if (formsvc_req_get(r)->body_answered)
        return AP_FILTER_ERROR;
    const char *id = unsub_id(r, u);
    if (!id)
        return unsub_not_valid(r);
    const char *email, *title;
    int ask;
    fs_error *e = fs_store_notify_unsubscribe(formsvc_store(r), id, &email, &title, &ask);
    if (e)
        return try_later(r, e);
    if (!email)
        return page(r, 200, "Unsubscribed",
                    "This address receives no submissions of this form any more (the form "
                    "was deleted).");
    if (ask) /* the mail of an ask (handle_asks.c) */
        return page(r, 200, "Unsubscribed",
                    apr_psprintf(r->pool,
                                 "%s is mailed no more questions from the account that asked "
                                 "\"%s\".",
                                 email, title));
    return page(r, 200, "Unsubscribed",
                apr_psprintf(r->pool,
                             "%s receives no more submissions of the form \"%s\". If its owner "
                             "adds the address again, it is asked to confirm first.",
                             email, title));
}

static int recipients(request_rec *r, const char *const *caps) {
    formsvc_form *f;
    fs_error *e = formsvc_form_load(r, caps[0], &f);
    formsvc_principal *who = formsvc_req_get(r)->who;
    const char *json = NULL;
    int sent = 0;
    if (!e)
        e = fs_store_notify_recipients(formsvc_store(r), f->id, who->user_id, &json);
    if (!e)
        e = fs_store_mail_sent_today(formsvc_store(r), who->user_id, &sent);
    if (e)
        return formsvc_send_problem(r, e);
    json_object *o = fs_json_own(r->pool, json_object_new_object());
    json_object *mode = fs_json_get(fs_json_get(f->settings, "notify"), "mode");
    json_object_object_add(o, "mode",
                           json_object_new_string(mode ? json_object_get_string(mode) : "off"));
    json_object_object_add(o, "recipients",
                           json_object_get(fs_json_parse_trusted(r->pool, json ? json : "[]")));
    json_object *q = json_object_new_object();
    json_object_object_add(q, "limit",
                           json_object_new_int(formsvc_tier_of(r, who->verified)->notifications));
    json_object_object_add(q, "used", json_object_new_int(sent));
    json_object_object_add(o, "notificationsToday", q);
    return formsvc_send_obj(r, 200, o);
}

const formsvc_route formsvc_routes_notify[] = {
    {M_GET, "/notify/confirm", confirm_link, 0, 0},
    {M_POST, "/notify/confirm", confirm_post, 0, 0},
    {M_GET, "/notify/unsubscribe", unsubscribe_link, 0, 0},
    {M_POST, "/notify/unsubscribe", unsubscribe_post, 0, 0},
    {M_GET, "/v1/forms/{id}/notify", recipients, FS_SC_FORMS_READ, 1},
    {0, NULL, NULL, 0, 0}};
