/* handle_token: POST /v1/token (RFC 6749 client_credentials, RFC 8693
 * token exchange), GET /.well-known/oauth-authorization-server (RFC
 * 8414) and GET /.well-known/oauth-protected-resource[/mcp] (RFC 9728). Parsing and the rules live
 * in core/fs_oauth.c; this file reads the request, authenticates the client or the subject, calls
 * the store and answers. Every error is a problem document that also carries the OAuth members
 * error and error_description. */
#include "fs_authorize.h"
#include "fs_json.h"
#include "fs_oauth.h"
#include "fs_redact.h"
#include "fs_secret.h"
#include "fs_store_account.h"
#include "fs_store_grants.h"
#include "fs_store_oauth.h"
#include "fs_util.h"
#include "http/audit.h"
#include "http/auth.h"
#include "http/quota.h"
#include "http/request.h"
#include "http/response.h"
#include "http/router.h"
#include "runtime/config.h"
#include "runtime/config_accounts.h"
#include "runtime/log.h"
#include "runtime/metrics.h"
#include "runtime/ratelimit.h"
#include "runtime/request_ctx.h"

#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

/* Brute-force brake: failed client authentications per client address
 * and fixed window. Past the limit, client_credentials requests from that
 * address are 429 until the window ends. */
#define TOKEN_FAILURE_LIMIT 20
#define TOKEN_FAILURE_WINDOW 60
/* The largest token request body; a real one is a few hundred bytes. */
#define TOKEN_MAX_BODY 16384

static int oauth_problem(request_rec *r, fs_error *e) {
    fs_oauth_decorate(r->pool, e);
    return formsvc_send_problem(r, e);
}

static int is_form_type(const char *ct) {
    if (!ct)
        return 0;
    apr_size_t n = strcspn(ct, ";");
    while (n > 0 && ct[n - 1] == ' ')
        n--;
    return n == 33 && !strncasecmp(ct, "application/x-www-form-urlencoded", 33);
}

/* Reads the token request from a form-encoded or JSON body. */
static fs_error *read_request(request_rec *r, fs_token_request *req) {
    const char *ct = apr_table_get(r->headers_in, "Content-Type");
    if (!is_form_type(ct)) {
        json_object *body;
        fs_error *e = formsvc_read_json(r, 0, &body);
        if (e)
            return e;
        return fs_token_request_from_json(r->pool, body, req);
    }
    char *buf;
    apr_size_t len;
    fs_error *e = formsvc_read_body(r, TOKEN_MAX_BODY, &buf, &len);
    if (e)
        return e;
    return fs_token_request_parse_form(r->pool, buf ? buf : "", len, req);
}

static apr_int64_t now_sec(void) {
    return apr_time_sec(apr_time_now());
}

static fs_error *invalid_client(request_rec *r, const char *detail) {
    fs_error *e = fs_oauth_error(r->pool, "invalid_client", "%s", detail);
    /* RFC 6749 5.2: 401 names the scheme the client can authenticate with */
    e->www_authenticate = "Basic realm=\"formsvc\"";
    return e;
}

/* Counts one failed client authentication of this address (addr: its
 * counter key, fs_rl_address_key). */
static void count_failure(request_rec *r, const char *addr, apr_int64_t win) {
    int count;
    fs_error *e = fs_store_token_fail(formsvc_store(r), addr, win, &count);
    if (e)
        FORMSVC_LOG(r, APLOG_WARNING, 00511, "token failure not counted (%s)",
                    e->cause ? e->cause : e->slug);
    else if (count == TOKEN_FAILURE_LIMIT)
        FORMSVC_LOG(r, APLOG_NOTICE, 00512,
                    "token endpoint: %d failed client authentications from %s; "
                    "refusing it for the rest of the minute",
                    TOKEN_FAILURE_LIMIT, fs_rl_client_key(r->pool, r->useragent_ip));
}

static int send_token(request_rec *r, const char *secret, long long expires_in,
                      const fs_scopes *scopes, json_object *key) {
    json_object *o = fs_json_own(r->pool, json_object_new_object());
    json_object_object_add(o, "access_token", json_object_new_string(secret));
    if (key)
        json_object_object_add(o, "issued_token_type",
                               json_object_new_string(FS_TOKEN_TYPE_ACCESS));
    json_object_object_add(o, "token_type", json_object_new_string("Bearer"));
    json_object_object_add(o, "expires_in", json_object_new_int64(expires_in));
    json_object_object_add(o, "scope",
                           json_object_new_string(fs_scopes_to_string(r->pool, scopes)));
    if (key)
        json_object_object_add(o, "key", json_object_get(key));
    return formsvc_send_obj(r, 200, o);
}

static int client_credentials(request_rec *r, const fs_token_request *req) {
    formsvc_srv *c = formsvc_conf(r->server);
    int is_basic;
    const char *bid, *bsecret;
    int basic_ok = fs_basic_credentials(r->pool, apr_table_get(r->headers_in, "Authorization"),
                                        &is_basic, &bid, &bsecret);
    const char *id = req->client_id, *secret = req->client_secret;
    if (is_basic) {
        if (req->client_secret || (req->client_id && basic_ok && strcmp(req->client_id, bid)))
            return oauth_problem(r, fs_oauth_error(r->pool, "invalid_request",
                                                   "Client credentials were given both by HTTP "
                                                   "Basic and in the body; use one."));
        id = bid;
        secret = bsecret;
    }
    apr_int64_t now = now_sec();
    apr_int64_t win = now / TOKEN_FAILURE_WINDOW;
    /* one round trip: the client row and this address's failures (an IPv6
     * client counted by its /64, stored only as a keyed hash) */
    const char *addr =
        fs_rl_address_key(r->pool, c->pepper, c->pepper_len, "token-failures", r->useragent_ip);
    if (!addr)
        return oauth_problem(
            r, fs_error_internal(r->pool, "the client address cannot be hashed (HMAC failed)"));
    fs_client_auth ca;
    fs_error *e = fs_store_client_auth(formsvc_store(r), addr, win, id ? id : "", &ca);
    if (e)
        return oauth_problem(r, e);
    if (ca.failures >= TOKEN_FAILURE_LIMIT) {
        e = fs_error_make(r->pool, "rate-limited",
                          "Too many failed client authentications from this address; "
                          "try again later.");
        e->retry_after = (int)(TOKEN_FAILURE_WINDOW - now % TOKEN_FAILURE_WINDOW);
        formsvc_metric_inc(FORMSVC_M_LIMITED_RATE);
        return oauth_problem(r, e);
    }
    if (is_basic && !basic_ok) {
        count_failure(r, addr, win);
        return oauth_problem(r, invalid_client(r, "The HTTP Basic credentials cannot be "
                                                  "decoded as client_id:client_secret."));
    }
    if (!id || !secret) {
        return oauth_problem(r, invalid_client(r, "Client authentication is required: "
                                                  "client_id and client_secret by HTTP "
                                                  "Basic or in the body."));
    }
    const char *user_id = ca.user_id, *stored = ca.secret_hash;
    int ok = fs_id_valid(id, "cli_") && fs_secret_well_formed(secret, c->client_prefix) &&
             user_id && stored;
    if (ok) {
        const char *hash = fs_secret_hash(r->pool, c->pepper, c->pepper_len, secret);
        ok = hash && fs_secret_equal(hash, stored) && ca.active;
    }
    if (!ok) {
        count_failure(r, addr, win);
        FORMSVC_LOG(r, APLOG_INFO, 00513, "token endpoint: client authentication failed");
        return oauth_problem(r, invalid_client(r, "Client authentication failed: unknown or "
                                                  "deleted client, or wrong secret."));
    }
    apr_table_setn(r->notes, "formsvc-credential", apr_pstrdup(r->pool, id));
    fs_error *verr = fs_error_validation(r->pool);
    fs_scopes *granted =
        fs_scopes_from_json(r->pool, fs_json_parse_trusted(r->pool, ca.scopes_json), "", 0, verr);
    if (!granted)
        return oauth_problem(
            r, fs_error_internal(r->pool, "the stored scopes of client %s cannot be read", id));
    fs_scopes *scopes;
    if ((e = fs_oauth_narrow(r->pool, granted, req->scope, &scopes)))
        return oauth_problem(r, e);
    const char *kid = fs_id_new(r->pool, "key_");
    const char *token = fs_secret_generate(r->pool, c->key_prefix);
    if (!kid || !token)
        return oauth_problem(
            r, fs_error_internal(r->pool, "no random bytes for a new token's id or secret"));
    json_object *sj = fs_scopes_to_json(scopes);
    const char *sjs = sj ? fs_json_str(r->pool, fs_json_own(r->pool, sj)) : NULL;
    fs_new_token nt = {{kid, fs_secret_display_prefix(r->pool, token),
                        fs_secret_hash(r->pool, c->pepper, c->pepper_len, token)},
                       id,
                       sjs,
                       c->token_lifetime};
    int issued;
    const char *owner;
    apr_int64_t expires_in;
    if ((e = fs_store_token_issue(formsvc_store(r), &nt, &issued, &owner, &expires_in)))
        return oauth_problem(r, e);
    if (!issued)
        return oauth_problem(r, invalid_client(r, "The client was deleted."));
    formsvc_audit_as(r, user_id, id, id, NULL, "token.issued", kid);
    /* shorter than the lifetime when the client's registering delegate
     * ends sooner (sql/0019) */
    return send_token(r, token, expires_in, scopes, NULL);
}

static int token_exchange(request_rec *r, const fs_token_request *req) {
    formsvc_srv *c = formsvc_conf(r->server);
    const char *auth = apr_table_get(r->headers_in, "Authorization");
    if (req->client_id || req->client_secret || (auth && strncasecmp(auth, "Bearer ", 7)))
        return oauth_problem(r, fs_oauth_error(r->pool, "invalid_request",
                                               "Token exchange takes no client credentials: "
                                               "the subject token authenticates it."));
    fs_error *e = fs_oauth_exchange_check_request(r->pool, req);
    if (e)
        return oauth_problem(r, e);
    const char *subject = req->subject_token ? req->subject_token : formsvc_bearer_of(r);
    if (!subject)
        return oauth_problem(r, fs_oauth_error(r->pool, "invalid_request",
                                               "subject_token (with subject_token_type) or an "
                                               "Authorization: Bearer credential is required."));
    formsvc_principal *who;
    if ((e = formsvc_authenticate_secret(r, subject, &who))) {
        if (e->status == 401)
            e = fs_oauth_error(r->pool, "invalid_grant",
                               "The subject token is unknown, expired or revoked.");
        return oauth_problem(r, e);
    }
    formsvc_req_get(r)->who = who;
    apr_table_setn(r->notes, "formsvc-credential", who->key_id);
    if (who->actor)
        apr_table_setn(r->notes, "formsvc-actor", who->actor);
    fs_exchange_parent parent = {who->depth, who->expires, who->scopes, who->actor};
    fs_exchange_grant g;
    if ((e = fs_oauth_exchange(r->pool, &parent, req, now_sec(), c->token_lifetime, &g)))
        return oauth_problem(r, e);
    int limit = c->tier[who->verified ? 1 : 0].keys;
    const char *kid = fs_id_new(r->pool, "key_");
    const char *token = fs_secret_generate(r->pool, c->key_prefix);
    if (!kid || !token)
        return oauth_problem(
            r, fs_error_internal(r->pool, "no random bytes for a new token's id or secret"));
    json_object *sj = fs_scopes_to_json(g.scopes);
    const char *sjs = sj ? fs_json_str(r->pool, fs_json_own(r->pool, sj)) : NULL;
    fs_new_delegate d = {{kid, fs_secret_display_prefix(r->pool, token),
                          fs_secret_hash(r->pool, c->pepper, c->pepper_len, token)},
                         who->key_id,
                         g.name,
                         sjs,
                         fs_time_format(r->pool, apr_time_from_sec(g.expires)),
                         g.actor,
                         g.depth};
    const char *made;
    if ((e = fs_store_token_exchange(formsvc_store(r), &d, limit, &made)))
        return oauth_problem(r, e);
    if (!made) {
        int active;
        if ((e = fs_store_key_count_active(formsvc_store(r), who->user_id, &active)))
            return oauth_problem(r, e);
        if (active >= limit)
            return oauth_problem(
                r, formsvc_quota_exceeded(r, "keys", limit, apr_itoa(r->pool, active)));
        return oauth_problem(r, fs_oauth_error(r->pool, "invalid_grant",
                                               "The subject token was revoked or expired."));
    }
    formsvc_audit(r, "token.exchanged", kid);
    json_object *key = fs_json_parse_trusted(r->pool, made);
    return send_token(r, token, g.expires_in, g.scopes, key);
}

/* A refresh token lives this long unused; each use makes a new one. */
#define REFRESH_LIFETIME (30 * 86400)

static const char *grant_hash(request_rec *r, const char *kind, const char *v) {
    formsvc_srv *c = formsvc_conf(r->server);
    return fs_secret_hash(r->pool, c->pepper, c->pepper_len,
                          apr_pstrcat(r->pool, kind, ":", v, NULL));
}

/* Revokes a grant whose code or refresh token came back a second time
 * (RFC 6749 4.1.2, RFC 9700 4.14.2): someone else may hold it. */
static void revoke_reused(request_rec *r, const char *grant_id, const char *what) {
    const char *json;
    fs_error *e = fs_store_grant_revoke(formsvc_store(r), NULL, grant_id, NULL, &json);
    /* twice: see DELETE /v1/me/grants/{id} (handle_grants.c) */
    if (!e)
        e = fs_store_grant_revoke_tokens(formsvc_store(r), grant_id, NULL);
    if (!e)
        e = fs_store_grant_revoke_tokens(formsvc_store(r), grant_id, NULL);
    if (e)
        FORMSVC_LOG(r, APLOG_ERR, 00561, "grant %s not revoked after a reused %s (%s)", grant_id,
                    what, e->cause ? e->cause : e->slug);
    else
        FORMSVC_LOG(r, APLOG_NOTICE, 00562, "a %s was used twice: grant %s revoked", what,
                    grant_id);
}

/* The public client of a grant: client_id in the body (or HTTP Basic
 * with an empty secret); never a secret. */
static fs_error *public_client(request_rec *r, const fs_token_request *req, const char **id) {
    int is_basic;
    const char *bid = NULL, *bsecret = NULL;
    int ok = fs_basic_credentials(r->pool, apr_table_get(r->headers_in, "Authorization"), &is_basic,
                                  &bid, &bsecret);
    *id = req->client_id;
    if (is_basic && ok && (!bsecret || !*bsecret) && (!*id || !strcmp(*id, bid)))
        *id = bid;
    else if (is_basic || req->client_secret)
        return invalid_client(r, "This grant is for public clients (registered with "
                                 "token_endpoint_auth_method none): send client_id only.");
    if (!*id)
        return fs_oauth_error(r->pool, "invalid_request", "client_id is required.");
    return NULL;
}

/* Issues the grant's access and refresh tokens. */
static int grant_tokens(request_rec *r, const char *grant_id, const char *client_id) {
    formsvc_srv *c = formsvc_conf(r->server);
    const char *kid = fs_id_new(r->pool, "key_");
    const char *token = fs_secret_generate(r->pool, c->key_prefix);
    const char *refresh = fs_secret_generate(r->pool, "svcr_");
    if (!kid || !token || !refresh)
        return oauth_problem(
            r, fs_error_internal(r->pool, "no random bytes for a new token's id or secret"));
    fs_grant_tokens t = {{kid, fs_secret_display_prefix(r->pool, token),
                          fs_secret_hash(r->pool, c->pepper, c->pepper_len, token)},
                         grant_hash(r, "oauth-refresh", refresh),
                         c->token_lifetime,
                         REFRESH_LIFETIME};
    const char *user_id, *scopes_json;
    apr_int64_t expires_in;
    fs_error *e =
        fs_store_grant_issue(formsvc_store(r), grant_id, &t, &user_id, &scopes_json, &expires_in);
    if (e)
        return oauth_problem(r, e);
    if (!scopes_json)
        return oauth_problem(r, fs_oauth_error(r->pool, "invalid_grant",
                                               "The grant was revoked, or the key that approved "
                                               "it ended."));
    formsvc_audit_as(r, user_id, client_id, NULL, NULL, "token.issued", kid);
    fs_error *verr = fs_error_validation(r->pool);
    fs_scopes *sc =
        fs_scopes_from_json(r->pool, fs_json_parse_trusted(r->pool, scopes_json), "", 0, verr);
    json_object *o = fs_json_own(r->pool, json_object_new_object());
    json_object_object_add(o, "access_token", json_object_new_string(token));
    json_object_object_add(o, "token_type", json_object_new_string("Bearer"));
    json_object_object_add(o, "expires_in", json_object_new_int64(expires_in));
    json_object_object_add(o, "refresh_token", json_object_new_string(refresh));
    json_object_object_add(o, "scope",
                           json_object_new_string(sc ? fs_scopes_to_string(r->pool, sc) : ""));
    return formsvc_send_obj(r, 200, o);
}

/* grant_type=authorization_code (OAuth 2.1 with PKCE) */
static int authorization_code(request_rec *r, const fs_token_request *req) {
    const char *client_id;
    fs_error *e = public_client(r, req, &client_id);
    if (e)
        return oauth_problem(r, e);
    if (!req->code || !req->redirect_uri || !req->code_verifier)
        return oauth_problem(r, fs_oauth_error(r->pool, "invalid_request",
                                               "code, redirect_uri and code_verifier are "
                                               "required."));
    apr_table_setn(r->notes, "formsvc-credential", apr_pstrdup(r->pool, client_id));
    fs_taken *t;
    if ((e = fs_store_code_take(formsvc_store(r), grant_hash(r, "oauth-code", req->code), &t)))
        return oauth_problem(r, e);
    if (!t)
        return oauth_problem(r, fs_oauth_error(r->pool, "invalid_grant", "Unknown code."));
    if (t->reused) {
        revoke_reused(r, t->grant_id, "authorization code");
        return oauth_problem(r, fs_oauth_error(r->pool, "invalid_grant",
                                               "The code was used before; the tokens it "
                                               "issued are revoked."));
    }
    if (t->expired)
        return oauth_problem(r, fs_oauth_error(r->pool, "invalid_grant", "The code expired."));
    if (strcmp(t->app_id, client_id))
        return oauth_problem(
            r, fs_oauth_error(r->pool, "invalid_grant", "The code was issued to another client."));
    if (strcmp(t->redirect_uri, req->redirect_uri))
        return oauth_problem(r, fs_oauth_error(r->pool, "invalid_grant",
                                               "redirect_uri differs from the authorization "
                                               "request's."));
    if (!fs_pkce_s256_match(req->code_verifier, t->challenge))
        return oauth_problem(r, fs_oauth_error(r->pool, "invalid_grant",
                                               "code_verifier does not match the "
                                               "code_challenge (S256)."));
    return grant_tokens(r, t->grant_id, client_id);
}

/* grant_type=refresh_token: each refresh token works once; the next comes
 * with the new access token. */
static int refresh_token(request_rec *r, const fs_token_request *req) {
    const char *client_id;
    fs_error *e = public_client(r, req, &client_id);
    if (e)
        return oauth_problem(r, e);
    if (!req->refresh_token)
        return oauth_problem(
            r, fs_oauth_error(r->pool, "invalid_request", "refresh_token is required."));
    apr_table_setn(r->notes, "formsvc-credential", apr_pstrdup(r->pool, client_id));
    fs_taken *t;
    if ((e = fs_store_refresh_take(formsvc_store(r),
                                   grant_hash(r, "oauth-refresh", req->refresh_token), &t)))
        return oauth_problem(r, e);
    if (!t)
        return oauth_problem(r, fs_oauth_error(r->pool, "invalid_grant", "Unknown refresh token."));
    if (strcmp(t->app_id, client_id))
        return oauth_problem(r, fs_oauth_error(r->pool, "invalid_grant",
                                               "The refresh token was issued to another client."));
    if (t->reused) {
        revoke_reused(r, t->grant_id, "refresh token");
        return oauth_problem(r, fs_oauth_error(r->pool, "invalid_grant",
                                               "The refresh token was used before; the grant is "
                                               "revoked."));
    }
    if (t->expired)
        return oauth_problem(
            r, fs_oauth_error(r->pool, "invalid_grant", "The refresh token expired."));
    return grant_tokens(r, t->grant_id, client_id);
}

static int formsvc_h_token(request_rec *r, const char *const *caps) {
    (void)caps;
    apr_table_setn(r->headers_out, "Pragma", "no-cache");
    /* Every token request counts against FormsvcRateLimit token (per client
     * address), before the body is read; failed client authentications
     * have their own, stricter count below. */
    fs_error *e = formsvc_ratelimit_address(r, FORMSVC_RL_TOKEN, NULL);
    if (e)
        return oauth_problem(r, e);
    /* RFC 6749 2.3.1: credentials only in the body or Authorization, never
     * in the URL, where logs and proxies keep them */
    const char *in_url = fs_query_credential(r->pool, r->args);
    if (in_url)
        return oauth_problem(
            r, fs_oauth_error(r->pool, "invalid_request",
                              "%s must not be sent in the query string; send it in the "
                              "form-encoded body (or client credentials by HTTP Basic "
                              "authentication).",
                              in_url));
    fs_token_request req;
    e = read_request(r, &req);
    if (e)
        return oauth_problem(r, e);
    if (!req.grant_type)
        return oauth_problem(r,
                             fs_oauth_error(r->pool, "invalid_request", "grant_type is required."));
    if (!strcmp(req.grant_type, FS_GRANT_CLIENT_CREDENTIALS))
        return client_credentials(r, &req);
    if (!strcmp(req.grant_type, FS_GRANT_TOKEN_EXCHANGE))
        return token_exchange(r, &req);
    if (!strcmp(req.grant_type, FS_GRANT_AUTHORIZATION_CODE))
        return authorization_code(r, &req);
    if (!strcmp(req.grant_type, FS_GRANT_REFRESH_TOKEN))
        return refresh_token(r, &req);
    return oauth_problem(
        r, fs_oauth_error(r->pool, "unsupported_grant_type",
                          "grant_type must be client_credentials, "
                          "authorization_code, refresh_token or " FS_GRANT_TOKEN_EXCHANGE "."));
}

/* RFC 8414 authorization server metadata. */
static int formsvc_h_as_metadata(request_rec *r, const char *const *caps) {
    (void)caps;
    const char *base = formsvc_base_url(r);
    json_object *o = fs_json_own(r->pool, json_object_new_object());
    json_object_object_add(o, "issuer", json_object_new_string(base));
    json_object_object_add(o, "token_endpoint",
                           json_object_new_string(apr_pstrcat(r->pool, base, "/v1/token", NULL)));
    json_object *g = json_object_new_array();
    json_object_array_add(g, json_object_new_string(FS_GRANT_CLIENT_CREDENTIALS));
    json_object_array_add(g, json_object_new_string(FS_GRANT_TOKEN_EXCHANGE));
    json_object_array_add(g, json_object_new_string(FS_GRANT_AUTHORIZATION_CODE));
    json_object_array_add(g, json_object_new_string(FS_GRANT_REFRESH_TOKEN));
    json_object_object_add(o, "grant_types_supported", g);
    json_object_object_add(
        o, "authorization_endpoint",
        json_object_new_string(apr_pstrcat(r->pool, base, "/oauth/authorize", NULL)));
    json_object_object_add(
        o, "registration_endpoint",
        json_object_new_string(apr_pstrcat(r->pool, base, "/oauth/register", NULL)));
    json_object *cm = json_object_new_array();
    json_object_array_add(cm, json_object_new_string("S256"));
    json_object_object_add(o, "code_challenge_methods_supported", cm);
    json_object_object_add(o, "authorization_response_iss_parameter_supported",
                           json_object_new_boolean(1));
    json_object *m = json_object_new_array();
    json_object_array_add(m, json_object_new_string("client_secret_basic"));
    json_object_array_add(m, json_object_new_string("client_secret_post"));
    json_object_array_add(m, json_object_new_string("none"));
    json_object_object_add(o, "token_endpoint_auth_methods_supported", m);
    json_object *s = json_object_new_array();
    for (unsigned bit = 1; bit & FS_SC_ALL; bit <<= 1)
        json_object_array_add(s, json_object_new_string(fs_scope_name(bit)));
    json_object_object_add(o, "scopes_supported", s);
    json_object *rt = json_object_new_array();
    json_object_array_add(rt, json_object_new_string("code"));
    json_object_object_add(o, "response_types_supported", rt);
    json_object_object_add(
        o, "service_documentation",
        json_object_new_string(apr_pstrcat(r->pool, base, "/openapi.json", NULL)));
    return formsvc_send_obj(r, 200, o);
}

/* RFC 9728 protected resource metadata of resource {base}{path}: the
 * authorization server is this module (its issuer is the base URL, whose
 * RFC 8414 metadata is served above), bearer credentials in the
 * Authorization header only. */
static int resource_metadata(request_rec *r, const char *path) {
    const char *base = formsvc_base_url(r);
    json_object *o = fs_json_own(r->pool, json_object_new_object());
    json_object_object_add(o, "resource",
                           json_object_new_string(apr_pstrcat(r->pool, base, path, NULL)));
    json_object *as = json_object_new_array();
    json_object_array_add(as, json_object_new_string(base));
    json_object_object_add(o, "authorization_servers", as);
    json_object *s = json_object_new_array();
    for (unsigned bit = 1; bit & FS_SC_ALL; bit <<= 1)
        json_object_array_add(s, json_object_new_string(fs_scope_name(bit)));
    json_object_object_add(o, "scopes_supported", s);
    json_object *m = json_object_new_array();
    json_object_array_add(m, json_object_new_string("header"));
    json_object_object_add(o, "bearer_methods_supported", m);
    json_object_object_add(o, "resource_name",
                           json_object_new_string(*path ? "formsvc MCP server" : "formsvc API"));
    json_object_object_add(
        o, "resource_documentation",
        json_object_new_string(apr_pstrcat(r->pool, base, "/openapi.json", NULL)));
    return formsvc_send_obj(r, 200, o);
}

/* GET /.well-known/oauth-protected-resource: the REST API at the base URL */
static int formsvc_h_pr_metadata(request_rec *r, const char *const *caps) {
    (void)caps;
    return resource_metadata(r, "");
}

/* GET /.well-known/oauth-protected-resource/mcp: the MCP endpoint, where
 * its 401 points (WWW-Authenticate resource_metadata, auth.c) */
static int formsvc_h_pr_metadata_mcp(request_rec *r, const char *const *caps) {
    (void)caps;
    return resource_metadata(r, "/mcp");
}

const formsvc_route formsvc_routes_token[] = {
    {M_POST, "/v1/token", formsvc_h_token, 0, 0},
    {M_GET, "/.well-known/oauth-authorization-server", formsvc_h_as_metadata, 0, 0},
    {M_GET, "/.well-known/oauth-protected-resource", formsvc_h_pr_metadata, 0, 0},
    {M_GET, "/.well-known/oauth-protected-resource/mcp", formsvc_h_pr_metadata_mcp, 0, 0},
    {0, NULL, NULL, 0, 0}};
