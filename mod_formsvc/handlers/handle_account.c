/* handle_account: POST /v1/signup, GET /v1/me and DELETE /v1/me. */
#include "fs_json.h"
#include "fs_secret.h"
#include "fs_store_account.h"
#include "fs_util.h"
#include "http/auth.h"
#include "http/files.h"
#include "http/quota.h"
#include "http/request.h"
#include "http/response.h"
#include "http/router.h"
#include "runtime/config.h"
#include "runtime/config_accounts.h"
#include "runtime/request_ctx.h"

#include <apr_strings.h>
#include <string.h>

APLOG_USE_MODULE(formsvc);

static int formsvc_h_signup(request_rec *r, const char *const *caps) {
    (void)caps;
    static const char *const allowed[] = {"email", NULL};
    const char *email;
    fs_error *e = formsvc_read_email_request(r, FORMSVC_RL_SIGNUP, allowed, NULL, &email, NULL);
    if (e)
        return formsvc_send_problem(r, e);

    formsvc_srv *c = formsvc_conf(r->server);
    const char *uid = fs_id_new(r->pool, "usr_"), *kid = fs_id_new(r->pool, "key_");
    const char *secret = fs_secret_generate(r->pool, c->key_prefix);
    if (!uid || !kid || !secret)
        return formsvc_send_problem(
            r, fs_error_internal(r->pool, "no random bytes for a new account's ids or secret"));
    fs_new_secret ks = {kid, fs_secret_display_prefix(r->pool, secret),
                        fs_secret_hash(r->pool, c->pepper, c->pepper_len, secret)};
    const char *user_json, *key_json;
    if ((e = fs_store_signup(formsvc_store(r), uid, email, &ks, &user_json, &key_json)))
        return formsvc_send_problem(r, e);
    if (!user_json)
        return formsvc_send_problem(
            r, fs_error_make(r->pool, "email-taken",
                             "An account with this e-mail address already exists."));
    json_object *out = fs_json_own(r->pool, json_object_new_object());
    json_object *key = json_tokener_parse(key_json);
    json_object_object_add(key, "secret", json_object_new_string(secret));
    json_object_object_add(out, "user", json_tokener_parse(user_json));
    json_object_object_add(out, "apiKey", key);
    apr_table_setn(r->headers_out, "Location",
                   apr_pstrcat(r->pool, formsvc_base_url(r), "/v1/me", NULL));
    return formsvc_send_obj(r, 201, out);
}

static int formsvc_h_me(request_rec *r, const char *const *caps) {
    (void)caps;
    formsvc_principal *who = formsvc_req_get(r)->who;
    const char *user_json, *key_json;
    int active_keys;
    fs_error *e = fs_store_me(formsvc_store(r), who->user_id, who->key_id, &user_json, &key_json,
                              &active_keys);
    if (e)
        return formsvc_send_problem(r, e);
    if (!user_json)
        return formsvc_send_problem(r, fs_error_make(r->pool, "unauthorized", NULL));
    json_object *out = fs_json_own(r->pool, json_object_new_object());
    json_object_object_add(out, "user", json_tokener_parse(user_json));
    json_object_object_add(out, "credential", json_tokener_parse(key_json));
    json_object *q = formsvc_quota_json(r, who, &e);
    if (!q)
        return formsvc_send_problem(r, e);
    json_object_object_add(out, "quota", q);
    json_object *st = formsvc_files_storage_json(r, who->user_id, &e); /* uploaded files */
    if (!st)
        return formsvc_send_problem(r, e);
    json_object_object_add(out, "storage", st);
    return formsvc_send_obj(r, 200, out);
}

/* DELETE /v1/me {"confirm": "<the account's address>"}: the account is
 * erased. Owner key only. Every credential is refused from the answer on,
 * the public forms answer 410 form-deleted, nothing more is sent for it;
 * the rows go in the background (sql/0042, docs/privacy.md). */
static int formsvc_h_me_delete(request_rec *r, const char *const *caps) {
    (void)caps;
    formsvc_principal *who = formsvc_req_get(r)->who;
    if (!formsvc_principal_is_owner(who))
        return formsvc_send_problem(
            r, fs_error_make(r->pool, "forbidden",
                             "Only an owner key (no parent, no client, full access) can erase "
                             "the account."));
    json_object *body;
    fs_error *e = formsvc_read_json(r, 1, &body);
    if (e)
        return formsvc_send_problem(r, e);
    fs_error *verr = fs_error_validation(r->pool);
    static const char *const allowed[] = {"confirm", NULL};
    const char *confirm = NULL;
    if (body && !json_object_is_type(body, json_type_object))
        fs_error_add(r->pool, verr, "", "type", "The body must be a JSON object.");
    else {
        if (body)
            fs_json_unknown_members(r->pool, body, allowed, verr);
        json_object *cv = body ? fs_json_get(body, "confirm") : NULL;
        if (!cv)
            fs_error_add(r->pool, verr, "/confirm", "required",
                         "confirm must be the account's e-mail address.");
        else
            confirm = fs_json_text(r->pool, cv, "/confirm", "confirm", 1, 254, 0, verr);
    }
    if (verr->errors)
        return formsvc_send_problem(r, verr);
    while (*confirm == ' ' || *confirm == '\t')
        confirm++;
    char *c = apr_pstrdup(r->pool, confirm);
    for (apr_size_t n = strlen(c); n && (c[n - 1] == ' ' || c[n - 1] == '\t'); n--)
        c[n - 1] = '\0';
    /* the audit entry goes with the account: none is written */
    fs_account_erase_result res;
    if ((e = fs_store_account_erase(formsvc_store(r), who->user_id, c, &res)))
        return formsvc_send_problem(r, e);
    if (res.outcome == FS_ERASE_GONE)
        return formsvc_send_problem(r, fs_error_make(r->pool, "unauthorized", NULL));
    if (res.outcome == FS_ERASE_MISMATCH) {
        fs_error_add(r->pool, verr, "/confirm", "const",
                     "confirm must be the account's e-mail address.");
        return formsvc_send_problem(r, verr);
    }
    json_object *out = fs_json_own(r->pool, json_object_new_object());
    json_object_object_add(out, "status", json_object_new_string("erasing"));
    json_object_object_add(
        out, "detail",
        json_object_new_string(
            "The account is being erased. Every key, access token and client of it is refused "
            "from now on, its public forms answer 410, and no webhook or mail is sent for it any "
            "more. Its forms, submissions, files, links, keys, clients, webhooks, events, audit "
            "entries and mail are deleted in the background within minutes; the address may "
            "sign up again at once."));
    json_object_object_add(out, "revokedCredentials", json_object_new_int(res.credentials));
    json_object_object_add(out, "revokedClients", json_object_new_int(res.clients));
    json_object_object_add(out, "forms", json_object_new_int(res.forms));
    json_object_object_add(out, "disabledWebhooks", json_object_new_int(res.webhooks));
    json_object_object_add(out, "cancelledMail", json_object_new_int(res.mail_jobs + res.mails));
    return formsvc_send_obj(r, 202, out);
}

const formsvc_route formsvc_routes_account[] = {
    {M_POST, "/v1/signup", formsvc_h_signup, 0, 0},
    {M_GET, "/v1/me", formsvc_h_me, FS_SC_ACCOUNT_READ, 1},
    {M_DELETE, "/v1/me", formsvc_h_me_delete, FS_SC_ACCOUNT_WRITE, 1},
    {0, NULL, NULL, 0, 0}};
