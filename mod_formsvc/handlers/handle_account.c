/* handle_account: POST /v1/signup and GET /v1/me. */
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

const formsvc_route formsvc_routes_account[] = {
    {M_POST, "/v1/signup", formsvc_h_signup, 0, 0},
    {M_GET, "/v1/me", formsvc_h_me, FS_SC_ACCOUNT_READ, 1},
    {0, NULL, NULL, 0, 0}};
