/* handle_asks: /v1/asks: ask a person in one call (create: a form from a
 * JSON Schema, a single-use link, the mail to the person), get (with
 * ?wait= a long poll until the ask is answered, declined or expired) and
 * list (docs/api.md, "Asks"). */
#include "fs_ask.h"
#include "fs_json.h"
#include "fs_link.h"
#include "fs_mail.h"
#include "fs_notify.h"
#include "fs_secret.h"
#include "fs_store_asks.h"
#include "http/asks.h"
#include "http/audit.h"
#include "http/auth.h"
#include "http/forms_access.h"
#include "http/idempotency.h"
#include "http/links.h"
#include "http/quota.h"
#include "http/request.h"
#include "http/response.h"
#include "http/router.h"
#include "runtime/config.h"
#include "runtime/config_accounts.h"
#include "runtime/mail.h"
#include "runtime/notify.h"
#include "runtime/request_ctx.h"
#include "runtime/webhooks.h"

#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

#define ASKS_WAIT_MAX 30 /* seconds, as GET /v1/events */
#define ASKS_POLL_MS 500

/* Asks are the account's: a credential limited to particular forms
 * (form: constraints) neither makes nor reads them. */
static fs_error *unconstrained(request_rec *r, const char *scope) {
    if (!formsvc_form_constraints(r))
        return NULL;
    return formsvc_scope_problem(r, scope,
                                 "A credential limited to particular forms (form: constraints) "
                                 "cannot use asks.");
}

/* ?wait=: whole seconds from 0 to ASKS_WAIT_MAX (0 when absent). */
static fs_error *wait_arg(request_rec *r, int *wait) {
    const char *w;
    *wait = 0;
    fs_error *e = formsvc_arg(r, "wait", &w);
    if (e || !w)
        return e;
    char *end;
    long v = strtol(w, &end, 10);
    if (!*w || *end || v < 0 || v > ASKS_WAIT_MAX) {
        fs_error *verr = fs_error_validation(r->pool);
        fs_error_add(r->pool, verr, "/wait", *w && !*end ? (v < 0 ? "minimum" : "maximum") : "type",
                     "wait must be an integer number of seconds from 0 to 30.");
        return verr;
    }
    *wait = (int)v;
    return NULL;
}

/* While *a is pending, reads it again every ASKS_POLL_MS until it is not,
 * the child stops or wait seconds have passed, holding no database
 * connection between reads; a child that already holds its bound of
 * waiting requests (event_waits.c, shared with GET /v1/events) does not
 * wait and says so (Formsvc-Wait: busy). A 404 when the ask went meanwhile
 * (its form was deleted). */
static fs_error *wait_while_pending(request_rec *r, const char *id, int wait, fs_ask_row **a) {
    if (wait <= 0 || strcmp((*a)->status, "pending"))
        return NULL;
    apr_time_t deadline = apr_time_now() + apr_time_from_sec(wait);
    formsvc_principal *who = formsvc_req_get(r)->who;
    formsvc_event_wait *held = formsvc_event_wait_begin(r, who->user_id);
    if (!held)
        apr_table_setn(r->headers_out, "Formsvc-Wait", "busy");
    fs_error *e = NULL;
    for (apr_time_t now = apr_time_now();
         held && !strcmp((*a)->status, "pending") && now < deadline && !r->connection->aborted &&
         !formsvc_event_wait_stopping();
         now = apr_time_now()) {
        formsvc_db_release(r);
        apr_interval_time_t nap = apr_time_from_msec(ASKS_POLL_MS);
        apr_sleep(deadline - now < nap ? deadline - now : nap);
        fs_ask_row *again;
        if ((e = fs_store_ask_get(formsvc_store(r), who->user_id, formsvc_tree_root(r), id,
                                  &again)))
            break;
        if (!again) {
            e = fs_error_make(r->pool, "not-found", "No such ask.");
            break;
        }
        *a = again;
    }
    formsvc_event_wait_end(r, held);
    return e;
}

/* The mail of an ask to a->to, for the outbox: the message, the link (url)
 * and a "stop these mails" link that unsubscribes a recipient made for it
 * (handle_notify.c's page; the store then mails that address no more of
 * the account's asks). Fills a's mail members; 1 when done, 0 when no
 * id or message could be made. */
static int ask_mail(request_rec *r, fs_new_ask *a, const char *url) {
    formsvc_srv *c = formsvc_conf(r->server);
    a->recipient_id = fs_id_new(r->pool, "nrc_");
    a->mailbox = fs_mail_mailbox(r->pool, a->to);
    if (!a->recipient_id || !a->mailbox)
        return 0;
    const char *unsub =
        apr_pstrcat(r->pool, formsvc_base_url(r), "/notify/unsubscribe?u=", a->recipient_id, ".",
                    formsvc_notify_unsub_mac(r->pool, r->server, a->recipient_id), NULL);
    const char *body =
        apr_pstrcat(r->pool, a->message, "\n\nAnswer here (the link works once, until ",
                    a->expires_at, "):\n", url,
                    "\n\nIf you would rather not answer, the page has a Decline button.\n"
                    "\n-- \nYou receive this because an account of ",
                    formsvc_base_url(r),
                    " asked you this question.\n"
                    "Stop mails of this account's questions: ",
                    unsub, "\n", NULL);
    a->mail = formsvc_mail_compose(r->pool, r->server, a->to,
                                   fs_notify_header_text(r->pool, a->title, 900), body, unsub,
                                   &a->mail_id);
    a->cap = formsvc_tier_of(r, formsvc_req_get(r)->who->verified)->notifications;
    a->per_address = c->acct->confirmations_per_address;
    return a->mail != NULL;
}

/* POST /v1/asks?wait=N: with wait, the answer comes when the ask is no
 * longer pending or wait has passed (201 either way, with the ask as it
 * is then); an Idempotency-Key replay answers the ask as it was made. */
static int formsvc_h_asks_create(request_rec *r, const char *const *caps) {
    (void)caps;
    json_object *body;
    int wait;
    fs_error *e = wait_arg(r, &wait);
    /* waiting returns the answer: only to a caller that may read it */
    if (!e && wait > 0)
        e = formsvc_need_scope(r, FS_SC_SUBMISSIONS_READ);
    if (!e)
        e = formsvc_read_json(r, 0, &body);
    if (!e)
        e = unconstrained(r, "forms:write");
    if (e)
        return formsvc_send_problem(r, e);
    formsvc_principal *who = formsvc_req_get(r)->who;
    const char *canon = fs_json_str(r->pool, body);
    formsvc_idem *idem;
    int rc = formsvc_idem_begin(r, who->key_id, canon, strlen(canon), &idem);
    if (rc != FORMSVC_IDEM_PROCEED)
        return rc;
    fs_error *verr = fs_error_validation(r->pool);
    fs_ask_spec spec;
    if (!fs_ask_parse(r->pool, body, apr_time_now(), NULL, verr, &spec)) {
        /* too many questions is a quota, as for fields */
        if (spec.nfields > 0 && (e = formsvc_fields_quota(r, spec.nfields, 0)))
            return formsvc_idem_problem(r, idem, e);
        return formsvc_idem_problem(r, idem, verr);
    }
    if ((e = formsvc_fields_quota(r, spec.nfields, 0)))
        return formsvc_idem_problem(r, idem, e);
    const formsvc_tier *tier = formsvc_tier_of(r, who->verified);
    if (spec.to && tier->notifications <= 0) {
        e = formsvc_quota_exceeded(r, "notifications", tier->notifications, "0");
        e->detail = apr_pstrcat(r->pool, e->detail,
                                " Mailing the link (to) needs a verified account: verify the "
                                "address with POST /v1/verify/send first, or leave to out and "
                                "give the person the url.",
                                NULL);
        return formsvc_idem_problem(r, idem, e);
    }
    const char *id = fs_id_new(r->pool, "ask_"), *form_id = fs_id_new(r->pool, "frm_"),
               *link_id = fs_id_new(r->pool, "lnk_"), *token = fs_link_token_new(r->pool);
    const char *sealed =
        id && form_id && link_id && token ? formsvc_link_seal(r, link_id, token) : NULL;
    if (!sealed)
        return formsvc_idem_problem(
            r, idem,
            fs_error_internal(r->pool, "no random bytes for an ask's ids or token, or "
                                       "the token cannot be sealed"));
    fs_new_ask na = {id,
                     who->user_id,
                     form_id,
                     spec.title,
                     fs_json_str(r->pool, spec.fields),
                     link_id,
                     formsvc_link_token_hash(r, token),
                     sealed,
                     spec.expires_at,
                     spec.message,
                     spec.to,
                     spec.metadata_json,
                     who->key_id,
                     NULL,
                     NULL,
                     NULL,
                     NULL,
                     0,
                     0};
    if (spec.to && !ask_mail(r, &na, formsvc_link_url(r, form_id, token)))
        return formsvc_idem_problem(
            r, idem, fs_error_internal(r->pool, "no random bytes for a mail, or no message"));
    const char *json, *quota, *used;
    if ((e = fs_store_ask_create(formsvc_store(r), &na, tier->forms, tier->asks, &json, &quota,
                                 &used)))
        return formsvc_idem_problem(r, idem, e);
    if (!json && quota && !strcmp(quota, "refused"))
        return formsvc_idem_problem(
            r, idem,
            fs_error_make(r->pool, "conflict",
                          "%s asked for no more mail of this account's questions: leave to out "
                          "and give the person the url another way.",
                          spec.to));
    if (!json && quota && !strcmp(quota, "address"))
        quota = "mailsPerAddress";
    if (!json)
        return formsvc_idem_problem(
            r, idem,
            quota ? formsvc_quota_exceeded(r, quota,
                                           !strcmp(quota, "forms")           ? tier->forms
                                           : !strcmp(quota, "asks")          ? tier->asks
                                           : !strcmp(quota, "notifications") ? na.cap
                                                                             : na.per_address,
                                           used)
                  : fs_error_internal(r->pool, "fs_ask_create answered no outcome it defines"));
    json_object *o = fs_json_parse_trusted(r->pool, json);
    json_object_object_add(o, "url", json_object_new_string(formsvc_link_url(r, form_id, token)));
    const char *out = fs_json_str(r->pool, o);
    apr_table_setn(r->headers_out, "Location",
                   apr_pstrcat(r->pool, formsvc_base_url(r), "/v1/asks/", id, NULL));
    if ((e = formsvc_idem_record(r, idem, 201, "application/json", out)))
        return formsvc_send_problem(r, e); /* nothing is stored, or 504 */
    formsvc_audit_form(r, "ask.created", id, form_id);
    fs_ask_row *a = NULL;
    if (wait > 0 &&
        !(e = fs_store_ask_get(formsvc_store(r), who->user_id, formsvc_tree_root(r), id, &a)) &&
        a && !(e = wait_while_pending(r, id, wait, &a)))
        return formsvc_send_obj(r, 201, formsvc_ask_obj(r, a));
    if (e)
        return formsvc_send_problem(r, e);
    return formsvc_send_json(r, 201, out);
}

/* GET /v1/asks/{id}?wait=N: with wait > 0 and the ask pending, the answer
 * comes when it is answered, declined or expired, or wait has passed. */
static int formsvc_h_asks_get(request_rec *r, const char *const *caps) {
    int wait;
    fs_ask_row *a;
    fs_error *e = unconstrained(r, "submissions:read");
    if (!e)
        e = wait_arg(r, &wait);
    if (!e)
        e = formsvc_ask_load(r, caps[0], &a);
    if (!e)
        e = wait_while_pending(r, caps[0], wait, &a);
    if (e)
        return formsvc_send_problem(r, e);
    return formsvc_send_obj(r, 200, formsvc_ask_obj(r, a));
}

static int formsvc_h_asks_list(request_rec *r, const char *const *caps) {
    (void)caps;
    int limit;
    const char *after, *status;
    fs_error *e = unconstrained(r, "submissions:read");
    if (!e)
        e = formsvc_paging(r, "asks", "ask_", &limit, &after);
    if (!e)
        e = formsvc_arg(r, "status", &status);
    if (e)
        return formsvc_send_problem(r, e);
    if (status && strcmp(status, "pending") && strcmp(status, "answered") &&
        strcmp(status, "declined") && strcmp(status, "expired")) {
        e = fs_error_validation(r->pool);
        fs_error_add(r->pool, e, "/status", "enum",
                     "status is pending, answered, declined or expired.");
        return formsvc_send_problem(r, e);
    }
    fs_ask_page ap;
    if ((e = fs_store_ask_list(formsvc_store(r), formsvc_req_get(r)->who->user_id,
                               formsvc_tree_root(r), status, after, limit, &ap)))
        return formsvc_send_problem(r, e);
    fs_list_page page = {ap.n, apr_pcalloc(r->pool, sizeof(fs_list_item) * (apr_size_t)(ap.n + 1)),
                         ap.more};
    for (int i = 0; i < ap.n; i++) {
        page.items[i].id = ap.rows[i].id;
        page.items[i].json = fs_json_str(r->pool, formsvc_ask_obj(r, &ap.rows[i]));
    }
    return formsvc_send_page(r, "asks", &page);
}

const formsvc_route formsvc_routes_asks[] = {
    {M_GET, "/v1/asks", formsvc_h_asks_list, FS_SC_SUBMISSIONS_READ, 1},
    {M_POST, "/v1/asks", formsvc_h_asks_create, FS_SC_FORMS_WRITE, 1},
    {M_GET, "/v1/asks/{id}", formsvc_h_asks_get, FS_SC_SUBMISSIONS_READ, 1},
    {0, NULL, NULL, 0, 0}};
