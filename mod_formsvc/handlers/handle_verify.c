/* handle_verify: e-mail verification (POST /v1/verify/send, POST
 * /v1/verify/confirm, the GET /verify?token= link and the POST /verify its
 * page's button sends), account recovery (POST
 * /v1/recover, POST /v1/recover/confirm) and GET /readyz/outbox.
 *
 * Codes: 8 characters (fs_code), valid 24 hours, single use, stored as
 * HMAC-SHA-256 under the pepper, void after 5 wrong tries; a new code
 * replaces the old one. Mail is queued in the outbox by the same SQL
 * statement that stores the code, and delivered by the worker (mail.c).
 * Recovery answers the same whether or not the address has an account. */
#include "fs_code.h"
#include "fs_html.h"
#include "fs_json.h"
#include "fs_negotiate.h"
#include "fs_redact.h"
#include "fs_secret.h"
#include "fs_store_verify.h"
#include "fs_util.h"
#include "http/auth.h"
#include "http/request.h"
#include "http/response.h"
#include "http/router.h"
#include "runtime/config.h"
#include "runtime/config_accounts.h"
#include "runtime/log.h"
#include "runtime/mail.h"
#include "runtime/metrics.h"
#include "runtime/request_ctx.h"

#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

static const char *hash_of(request_rec *r, const char *kind, const char *v) {
    formsvc_srv *c = formsvc_conf(r->server);
    return fs_secret_hash(r->pool, c->pepper, c->pepper_len,
                          apr_pstrcat(r->pool, kind, ":", v, NULL));
}

/* A string member: required, of type string; adds errors to verr. */
static const char *string_member(request_rec *r, json_object *body, const char *name,
                                 fs_error *verr) {
    json_object *v = fs_json_get(body, name);
    const char *ptr = apr_pstrcat(r->pool, "/", name, NULL);
    if (!v) {
        fs_error_add(r->pool, verr, ptr, "required", "%s is required.", name);
        return NULL;
    }
    if (!json_object_is_type(v, json_type_string)) {
        fs_error_add(r->pool, verr, ptr, "type", "%s must be a string.", name);
        return NULL;
    }
    return json_object_get_string(v);
}

/* A wrong code: "enum" (the value is not the one accepted), a code of the
 * contract's list, like every other errors[].code. */
static fs_error *code_problem(request_rec *r, const char *detail) {
    fs_error *e = fs_error_validation(r->pool);
    fs_error_add(r->pool, e, "/code", "enum", "%s", detail);
    return e;
}

/* POST /v1/verify/send */
static int formsvc_h_verify_send(request_rec *r, const char *const *caps) {
    (void)caps;
    formsvc_principal *who = formsvc_req_get(r)->who;
    json_object *body;
    fs_error *e = formsvc_read_json(r, 1, &body);
    if (e)
        return formsvc_send_problem(r, e);
    fs_error *verr = fs_error_validation(r->pool);
    static const char *const allowed[] = {NULL};
    fs_json_unknown_members(r->pool, body, allowed, verr);
    if (verr->errors)
        return formsvc_send_problem(r, verr);
    const char *email;
    int verified;
    if ((e = fs_store_user_contact(formsvc_store(r), who->user_id, &email, &verified)))
        return formsvc_send_problem(r, e);
    if (!email)
        return formsvc_send_problem(r, fs_error_make(r->pool, "unauthorized", NULL));
    if (verified)
        return formsvc_send_problem(
            r, fs_error_make(r->pool, "already-verified", "This account is already verified."));
    char *code = fs_code_generate(r->pool), *token = fs_code_token(r->pool);
    if (!code || !token)
        return formsvc_send_problem(
            r, fs_error_internal(r->pool, "no random bytes for a verification code"));
    const char *link = apr_pstrcat(r->pool, formsvc_base_url(r), "/verify?token=", token, NULL);
    const char *text =
        apr_psprintf(r->pool,
                     "Hello,\n\n"
                     "your code to verify this e-mail address is:\n\n"
                     "    %s\n\n"
                     "Or open this link to verify it at once:\n\n"
                     "    %s\n\n"
                     "The code and the link work once, for 24 hours. A new request replaces them.\n"
                     "If you did not ask for this, you can ignore this message.\n",
                     code, link);
    const char *mid;
    char *msg = formsvc_mail_message(r, email, "Verify your e-mail address", text, &mid);
    if (!msg) /* FormsvcMailFrom is checked at startup: the address is the cause */
        return formsvc_send_problem(
            r, fs_error_make(r->pool, "conflict",
                             "The account's address cannot be used as a mail recipient."));
    formsvc_acct *acct = formsvc_conf(r->server)->acct;
    fs_mail_limits lim = {acct->mails_per_day, acct->resend_interval};
    fs_queued_mail mail = {mid, msg};
    fs_verify_sent *sent;
    if ((e = fs_store_verify_send(formsvc_store(r), who->user_id, &lim, hash_of(r, "code", code),
                                  hash_of(r, "token", token), &mail, &sent)))
        return formsvc_send_problem(r, e);
    if (!sent)
        return formsvc_send_problem(r, fs_error_make(r->pool, "unauthorized", NULL));
    const char *state = sent->state;
    if (!strcmp(state, "verified"))
        return formsvc_send_problem(
            r, fs_error_make(r->pool, "already-verified", "This account is already verified."));
    if (strcmp(state, "sent")) {
        int wait = sent->wait;
        if (wait < 1)
            wait = 1;
        if (!strcmp(state, "day"))
            e = fs_error_make(r->pool, "rate-limited",
                              "This account or its address has had %d verification or recovery "
                              "mails in the last 24 hours; a new one can be sent in %d seconds.",
                              acct->mails_per_day, wait);
        else
            e = fs_error_make(r->pool, "rate-limited",
                              "A verification mail was sent moments ago; a new one can be sent "
                              "in %d seconds.",
                              wait);
        e->retry_after = wait;
        formsvc_metric_inc(FORMSVC_M_LIMITED_RATE);
        return formsvc_send_problem(r, e);
    }
    json_object *out = fs_json_own(r->pool, json_object_new_object());
    json_object_object_add(out, "sentTo", json_object_new_string(sent->email));
    json_object_object_add(out, "expiresAt", json_object_new_string(sent->expires_at));
    return formsvc_send_obj(r, 202, out);
}

/* POST /v1/verify/confirm {code} */
static int formsvc_h_verify_confirm(request_rec *r, const char *const *caps) {
    (void)caps;
    formsvc_principal *who = formsvc_req_get(r)->who;
    json_object *body;
    fs_error *e = formsvc_read_json(r, 0, &body);
    if (e)
        return formsvc_send_problem(r, e);
    fs_error *verr = fs_error_validation(r->pool);
    static const char *const allowed[] = {"code", NULL};
    fs_json_unknown_members(r->pool, body, allowed, verr);
    const char *typed = string_member(r, body, "code", verr);
    if (verr->errors)
        return formsvc_send_problem(r, verr);
    /* Something that cannot be a code still costs a try. */
    const char *code = fs_code_normalize(r->pool, typed);
    fs_verify_result *vr;
    if ((e = fs_store_verify_confirm(formsvc_store(r), who->user_id,
                                     hash_of(r, "code", code ? code : typed), &vr)))
        return formsvc_send_problem(r, e);
    if (!vr)
        return formsvc_send_problem(r, fs_error_make(r->pool, "unauthorized", NULL));
    const char *result = vr->result;
    if (vr->already)
        return formsvc_send_problem(
            r, fs_error_make(r->pool, "already-verified", "This account is already verified."));
    if (!strcmp(result, "ok")) {
        FORMSVC_LOG(r, APLOG_INFO, 00621, "account %s verified", who->user_id);
        json_object *out = fs_json_own(r->pool, json_object_new_object());
        json_object_object_add(out, "user", json_tokener_parse(vr->user_json));
        return formsvc_send_obj(r, 200, out);
    }
    if (!strcmp(result, "wrong")) {
        int left = vr->tries_left;
        return formsvc_send_problem(
            r,
            code_problem(r, left > 0 ? apr_psprintf(r->pool, "The code is wrong; %d %s left.", left,
                                                    left == 1 ? "try" : "tries")
                                     : "The code is wrong, and that was the last try: it is void "
                                       "now. Request a new one with POST /v1/verify/send."));
    }
    return formsvc_send_problem(
        r, code_problem(r, "There is no valid code: it expired, was used, or was voided after "
                           "5 wrong tries. Request a new one with POST /v1/verify/send."));
}

static int html_page(request_rec *r, int status, const char *title, const char *text) {
    return formsvc_send_link_page(r, status, "'none'",
                                  fs_html_message(r->pool, title, title, text));
}

/* The page GET /verify answers for a well-formed token: a button that
 * POSTs the token to /verify. Nothing changes on GET, so a mail scanner or
 * link preview that fetches the link does not spend it. */
static int confirm_page(request_rec *r, const char *token) {
    return formsvc_send_link_page(
        r, 200, "'self'",
        fs_html_confirm(r->pool, "Verify your address",
                        "Press the button to verify the e-mail address of your formsvc account.",
                        "verify", "token", token, "Verify my address"));
}

static int link_not_valid(request_rec *r) {
    return html_page(r, 400, "Link not valid",
                     "This verification link is incomplete or not valid. Open the link "
                     "from the e-mail exactly as it was sent, or request a new one.");
}

/* GET /verify?token=... (public): the link in the mail. Shows the button of
 * confirm_page; the token is spent by POST /verify only. */
static int formsvc_h_verify_link(request_rec *r, const char *const *caps) {
    (void)caps;
    if (r->header_only) /* HEAD (link checkers) must not spend the token */
        return html_page(r, 200, "Verify your address", "Open this link to verify.");
    const char *token;
    if (formsvc_arg(r, "token", &token) || !token || strlen(token) != 43)
        return link_not_valid(r);
    return confirm_page(r, token);
}

/* POST /verify (public), form-encoded token=...: verifies, once. */
static int formsvc_h_verify_post(request_rec *r, const char *const *caps) {
    (void)caps;
    const char *ct = apr_table_get(r->headers_in, "Content-Type");
    if (!fs_media_is(ct, "application/x-www-form-urlencoded"))
        return html_page(r, 415, "Link not valid",
                         "Open the link from the e-mail and press the button on its page.");
    char *buf;
    apr_size_t len;
    fs_error *e = formsvc_read_body(r, 1024, &buf, &len);
    if (e) {
        if (formsvc_req_get(r)->body_answered) /* httpd has answered */
            return AP_FILTER_ERROR;
        return html_page(r, e->status, "Link not valid",
                         "Open the link from the e-mail and press the button on its page.");
    }
    const char *token = fs_query_get(r->pool, buf ? buf : "", buf ? len : 0, "token", NULL);
    if (!token || strlen(token) != 43)
        return link_not_valid(r);
    const char *email;
    e = fs_store_verify_token(formsvc_store(r), hash_of(r, "token", token), &email);
    if (e) {
        formsvc_log_problem(r, e, NULL);
        return html_page(r, e->status, "Try again later",
                         "The service cannot verify addresses at the moment. Please open the "
                         "link again in a few minutes.");
    }
    if (!email)
        return html_page(r, 400, "Link not valid",
                         "This verification link has expired, was already used, or was "
                         "replaced by a newer one. Request a new one if the address is not "
                         "verified yet.");
    return html_page(r, 200, "Address verified",
                     apr_psprintf(r->pool,
                                  "%s is verified. The account's full quotas apply now, and "
                                  "it can be recovered by e-mail.",
                                  email));
}

/* POST /v1/recover {email} (public): 202 whatever the address. */
static int formsvc_h_recover(request_rec *r, const char *const *caps) {
    (void)caps;
    static const char *const allowed[] = {"email", NULL};
    const char *email;
    fs_error *e = formsvc_read_email_request(r, FORMSVC_RL_RECOVER, allowed, NULL, &email, NULL);
    if (e)
        return formsvc_send_problem(r, e);
    /* The same work for every address: a code, a message, one statement. */
    char *code = fs_code_generate(r->pool);
    if (!code)
        return formsvc_send_problem(
            r, fs_error_internal(r->pool, "no random bytes for a recovery code"));
    const char *text = apr_psprintf(
        r->pool,
        "Hello,\n\n"
        "someone asked to recover the account of this e-mail address. The recovery\n"
        "code is:\n\n"
        "    %s\n\n"
        "It works once, for 24 hours: send it with the address to POST /v1/recover/confirm\n"
        "to receive a new API key. If you did not ask for this, ignore this message;\n"
        "nothing changes without the code.\n",
        code);
    const char *mid;
    char *msg = formsvc_mail_message(r, email, "Account recovery code", text, &mid);
    if (!msg) /* an address the mail system cannot carry: nothing to send */
        return formsvc_send_json(r, 202, "{\"status\":\"accepted\"}");
    formsvc_acct *acct = formsvc_conf(r->server)->acct;
    fs_mail_limits lim = {acct->mails_per_day, acct->resend_interval};
    fs_queued_mail mail = {mid, msg};
    if ((e = fs_store_recover_send(formsvc_store(r), email, &lim, hash_of(r, "code", code), &mail)))
        return formsvc_send_problem(r, e);
    return formsvc_send_json(r, 202, "{\"status\":\"accepted\"}");
}

/* POST /v1/recover/confirm {email, code, revokeExistingKeys?} (public) */
static int formsvc_h_recover_confirm(request_rec *r, const char *const *caps) {
    (void)caps;
    static const char *const allowed[] = {"email", "code", "revokeExistingKeys", NULL};
    json_object *body;
    const char *email;
    fs_error *verr,
        *e = formsvc_read_email_request(r, FORMSVC_RL_RECOVER, allowed, &body, &email, &verr);
    if (e)
        return formsvc_send_problem(r, e);
    const char *typed = string_member(r, body, "code", verr);
    json_object *rv = fs_json_get(body, "revokeExistingKeys");
    if (rv && !json_object_is_type(rv, json_type_boolean))
        fs_error_add(r->pool, verr, "/revokeExistingKeys", "type",
                     "revokeExistingKeys must be true or false.");
    if (verr->errors)
        return formsvc_send_problem(r, verr);
    formsvc_srv *c = formsvc_conf(r->server);
    const char *code = fs_code_normalize(r->pool, typed);
    const char *kid = fs_id_new(r->pool, "key_");
    const char *secret = fs_secret_generate(r->pool, c->key_prefix);
    if (!kid || !secret)
        return formsvc_send_problem(
            r, fs_error_internal(r->pool, "no random bytes for a new key's id or secret"));
    int revoke = rv && json_object_get_boolean(rv);
    fs_new_secret ks = {kid, fs_secret_display_prefix(r->pool, secret),
                        fs_secret_hash(r->pool, c->pepper, c->pepper_len, secret)};
    fs_recovered rec;
    if ((e = fs_store_recover_confirm(formsvc_store(r), email,
                                      hash_of(r, "code", code ? code : typed), &ks, revoke, &rec)))
        return formsvc_send_problem(r, e);
    if (strcmp(rec.result, "ok") || !rec.key_json)
        /* the same answer for a wrong code, no code, an unknown or an
         * unverified address */
        return formsvc_send_problem(
            r, code_problem(r, "The code is wrong or no longer valid for this address. Codes "
                               "work once, for 24 hours, and 5 wrong tries void them."));
    FORMSVC_LOG(r, APLOG_NOTICE, 00622, "account recovered with an e-mailed code; new key %s", kid);
    if (revoke) {
        /* see fs_store_recover_sweep; the new secret is not out yet */
        const char *uid = json_object_get_string(
            json_object_object_get(fs_json_parse_trusted(r->pool, rec.user_json), "id"));
        /* the recovery itself committed (and revoked all it saw): hand out
         * the key even if this second pass fails */
        if ((e = fs_store_recover_sweep(formsvc_store(r), uid, kid)))
            FORMSVC_LOG(r, APLOG_ERR, 02000,
                        "account recovery: sweep of credentials made meanwhile failed (%s)",
                        e->cause ? e->cause : e->slug);
    }
    json_object *out = fs_json_own(r->pool, json_object_new_object());
    json_object *key = json_tokener_parse(rec.key_json);
    json_object_object_add(key, "secret", json_object_new_string(secret));
    json_object_object_add(out, "user", json_tokener_parse(rec.user_json));
    json_object_object_add(out, "apiKey", key);
    apr_table_setn(r->headers_out, "Location",
                   apr_pstrcat(r->pool, formsvc_base_url(r), "/v1/me", NULL));
    return formsvc_send_obj(r, 201, out);
}

/* GET /readyz/outbox (public): 503 when mail is stuck. The figures only
 * to those who may read /metrics; anyone else gets the status alone. */
#define OUTBOX_STUCK_SECONDS 300
static int formsvc_h_outbox(request_rec *r, const char *const *caps) {
    (void)caps;
    fs_outbox_status ob;
    fs_error *e = fs_store_outbox_status(formsvc_store(r), &ob);
    if (e)
        return formsvc_send_problem(r, e);
    apr_int64_t pending = ob.pending, age = ob.oldest_seconds, failed = ob.failed_day;
    int stuck = pending > 0 && age > OUTBOX_STUCK_SECONDS;
    if (!formsvc_metrics_allowed(r)) {
        if (!stuck)
            return formsvc_send_json(r, 200, "{\"status\":\"ok\"}");
        e = fs_error_make(r->pool, "service-unavailable", "The mail outbox is stuck.");
        e->retry_after = 60;
        return formsvc_send_problem(r, e);
    }
    if (stuck) {
        e = fs_error_make(r->pool, "service-unavailable",
                          "The mail outbox is stuck: %" APR_INT64_T_FMT " messages wait, the "
                          "oldest for %" APR_INT64_T_FMT " seconds.",
                          pending, age);
        e->retry_after = 60;
        fs_error_set_int(r->pool, e, "pending", pending);
        fs_error_set_int(r->pool, e, "oldestPendingSeconds", age);
        fs_error_set_int(r->pool, e, "failedLastDay", failed);
        return formsvc_send_problem(r, e);
    }
    return formsvc_send_json(r, 200,
                             apr_psprintf(r->pool,
                                          "{\"status\":\"ok\",\"pending\":%" APR_INT64_T_FMT
                                          ",\"oldestPendingSeconds\":%" APR_INT64_T_FMT
                                          ",\"failedLastDay\":%" APR_INT64_T_FMT "}",
                                          pending, age, failed));
}

const formsvc_route formsvc_routes_verify[] = {
    {M_POST, "/v1/verify/send", formsvc_h_verify_send, FS_SC_ACCOUNT_WRITE, 1},
    {M_POST, "/v1/verify/confirm", formsvc_h_verify_confirm, FS_SC_ACCOUNT_WRITE, 1},
    {M_GET, "/verify", formsvc_h_verify_link, 0, 0},
    {M_POST, "/verify", formsvc_h_verify_post, 0, 0},
    {M_POST, "/v1/recover", formsvc_h_recover, 0, 0},
    {M_POST, "/v1/recover/confirm", formsvc_h_recover_confirm, 0, 0},
    {M_GET, "/readyz/outbox", formsvc_h_outbox, 0, 0},
    {0, NULL, NULL, 0, 0}};
