/* handle_authorize: the OAuth 2.1 authorization code flow's pages and
 * registration: GET and POST /oauth/authorize (the page where the
 * account's owner signs in, with a code mailed to the account's verified
 * address or a key pasted once, and approves or denies a client) and POST
 * /oauth/register (RFC 7591 dynamic registration of public clients). The
 * rules (PKCE, redirect URIs, parameters) are core/fs_authorize.c; the
 * page is fs_html_authorize; the token endpoint's side is handle_token.c.
 *
 * The page's session is a cookie (32 random bytes; only its keyed hash is
 * stored, in oauth_logins). Every POST carries a CSRF token, the keyed
 * hash of that cookie, compared in constant time: a post from another
 * site has the cookie but cannot know the token. The page is never framed
 * (frame-ancestors 'none'). */
#include "fs_authorize.h"
#include "fs_code.h"
#include "fs_html.h"
#include "fs_json.h"
#include "fs_oauth.h"
#include "fs_ratelimit.h"
#include "fs_scope.h"
#include "fs_secret.h"
#include "fs_store_grants.h"
#include "fs_urlencoded.h"
#include "fs_util.h"
#include "http/audit.h"
#include "http/auth.h"
#include "http/i18n.h"
#include "http/request.h"
#include "http/response.h"
#include "http/router.h"
#include "runtime/config.h"
#include "runtime/config_accounts.h"
#include "runtime/log.h"
#include "runtime/mail.h"
#include "runtime/ratelimit.h"
#include "runtime/request_ctx.h"

#include <apr_lib.h>
#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

/* An authorization code lives this long (OAuth 2.1: short; RFC 6749
 * 4.1.2 says at most 10 minutes). */
#define CODE_LIFETIME 60
/* The page's posts are small: the request again plus one input. */
#define AUTHZ_MAX_BODY 16384
#define COOKIE_NAME "formsvc_oauth"

/* One authorization request being served. */
typedef struct authz {
    fs_authz_request q;
    fs_app_row *app;
    fs_scopes *scopes;
    const fs_locale *loc;
    const char *session; /* the cookie's value */
    const char *csrf;
    apr_array_header_t *pairs; /* what was posted (or the query) */
} authz;

static const char *keyed(request_rec *r, const char *kind, const char *v) {
    formsvc_srv *c = formsvc_conf(r->server);
    return fs_secret_hash(r->pool, c->pepper, c->pepper_len,
                          apr_pstrcat(r->pool, kind, ":", v, NULL));
}

static const char *pair(const apr_array_header_t *pairs, const char *name) {
    for (int i = 0; pairs && i < pairs->nelts; i++) {
        const fs_pair *pr = &APR_ARRAY_IDX(pairs, i, fs_pair);
        if (!strcmp(pr->name, name))
            return pr->value;
    }
    return NULL;
}

/* The session cookie's value, when it looks like one of ours. */
static const char *session_cookie(request_rec *r) {
    const char *h = apr_table_get(r->headers_in, "Cookie");
    const char *want = COOKIE_NAME "=";
    while (h && *h) {
        while (*h == ' ' || *h == ';')
            h++;
        if (!strncmp(h, want, strlen(want))) {
            const char *v = h + strlen(want);
            apr_size_t n = strcspn(v, "; ");
            if (n != 43)
                return NULL;
            char *s = apr_pstrndup(r->pool, v, n);
            for (apr_size_t i = 0; i < n; i++)
                if (!apr_isalnum(s[i]) && s[i] != '-' && s[i] != '_')
                    return NULL;
            return s;
        }
        h = strchr(h, ';');
    }
    return NULL;
}

static const char *new_session(request_rec *r) {
    unsigned char raw[32];
    if (!fs_random_bytes(raw, sizeof(raw)))
        return NULL;
    const char *v = fs_b64url_encode(r->pool, raw, sizeof(raw));
    formsvc_srv *c = formsvc_conf(r->server);
    int tls = !strncasecmp(formsvc_base_url(r), "https:", 6);
    apr_table_addn(r->err_headers_out, "Set-Cookie",
                   apr_psprintf(r->pool,
                                COOKIE_NAME "=%s; Path=%s/oauth/; Max-Age=1800; HttpOnly; "
                                            "SameSite=Lax%s",
                                v, c->base_path, tls ? "; Secure" : ""));
    return v;
}

/* An error page (the client or its redirect URI cannot be trusted, so
 * nothing goes back to it: RFC 6749 4.1.2.1). */
static int error_page(request_rec *r, const authz *a, int status, const char *key) {
    const char *title = fs_tr(a->loc, "oauth.error_title");
    return formsvc_send_link_page(
        r, status, "'none'", fs_html_message_in(r->pool, a->loc, title, title, fs_tr(a->loc, key)));
}

/* A problem met while the page is served: the person reads a page, never
 * problem+json. Logged as every problem is; a 429 or 503 says when to come
 * back. Other problems (a client's malformed post) stay problems. */
static int trouble(request_rec *r, const authz *a, fs_error *e) {
    if (e->status != 429 && e->status < 500)
        return formsvc_send_problem(r, e);
    formsvc_log_problem(r, e, r->uri);
    int retry = e->retry_after > 0 ? e->retry_after : e->status == 503 ? 5 : 0;
    if (retry)
        apr_table_setn(r->err_headers_out, "Retry-After", apr_itoa(r->pool, retry));
    return error_page(r, a, e->status,
                      e->status == 429 ? "oauth.rate_limited" : "oauth.unavailable");
}

/* The redirect back to the client with an error (RFC 6749 4.1.2.1), the
 * state and the issuer (RFC 9207). */
static int redirect_error(request_rec *r, const authz *a, const char *error, const char *desc) {
    apr_table_setn(r->headers_out, "Location",
                   fs_url_with_query(r->pool, a->q.redirect_uri, "error", error,
                                     "error_description", desc, "state", a->q.state, "iss",
                                     formsvc_base_url(r), NULL));
    apr_table_setn(r->headers_out, "Referrer-Policy", "no-referrer");
    return formsvc_send_empty(r, HTTP_SEE_OTHER);
}

/* Checks the request; OK when it may be shown, else the answer sent. */
static int check_request(request_rec *r, authz *a, int *sent) {
    *sent = 0;
    fs_authz_request_read(a->pairs, &a->q);
    const char *dup = a->q.dup;
    fs_error *e = NULL;
    if (dup && (!strcmp(dup, "client_id") || !strcmp(dup, "redirect_uri"))) {
        *sent = 1;
        return error_page(r, a, 400, "oauth.error_client");
    }
    if (a->q.client_id && fs_id_valid(a->q.client_id, "app_"))
        e = fs_store_app_get(formsvc_store(r), a->q.client_id, &a->app);
    if (e) {
        *sent = 1;
        return trouble(r, a, e);
    }
    json_object *uris = a->app ? fs_json_parse_trusted(r->pool, a->app->redirect_uris_json) : NULL;
    if (!a->app || !a->q.redirect_uri || !fs_redirect_uri_registered(uris, a->q.redirect_uri)) {
        *sent = 1;
        return error_page(r, a, 400, "oauth.error_client");
    }
    /* from here on, errors go back to the client */
    const char *error = NULL, *desc = NULL;
    const char *bad = NULL;
    if (dup) {
        error = "invalid_request";
        desc = apr_psprintf(r->pool, "The parameter %s is given more than once.", dup);
    } else if (!a->q.response_type || strcmp(a->q.response_type, "code")) {
        error = "unsupported_response_type";
        desc = "response_type must be code.";
    } else if (!a->q.code_challenge) {
        error = "invalid_request";
        desc = "code_challenge is required (PKCE, S256).";
    } else if (!a->q.code_challenge_method || strcmp(a->q.code_challenge_method, "S256")) {
        error = "invalid_request";
        desc = "code_challenge_method must be S256 (plain is not supported).";
    } else if (!fs_pkce_challenge_valid(a->q.code_challenge)) {
        error = "invalid_request";
        desc = "code_challenge must be the base64url SHA-256 of a code_verifier (43 characters).";
    } else if (a->q.resource && strcmp(a->q.resource, formsvc_base_url(r)) &&
               strcmp(a->q.resource, apr_pstrcat(r->pool, formsvc_base_url(r), "/mcp", NULL))) {
        error = "invalid_target";
        desc = "resource must be this API's base URL or its MCP endpoint.";
    } else {
        const char *s = a->q.scope;
        if (!s) {
            /* everything the account can do, as a list: a grant is never
             * an owner credential */
            s = "";
            for (unsigned bit = 1; bit & FS_SC_ALL; bit <<= 1)
                s = apr_pstrcat(r->pool, s, *s ? " " : "", fs_scope_name(bit), NULL);
        }
        a->scopes = fs_scopes_from_string(r->pool, s, &bad);
        if (!a->scopes || (!a->scopes->bits && !a->scopes->full)) {
            error = "invalid_scope";
            desc = bad ? apr_psprintf(r->pool, "Unknown scope %s.", bad) : "scope names no scope.";
        }
    }
    if (error) {
        *sent = 1;
        return redirect_error(r, a, error, desc);
    }
    return OK;
}

/* The lines of what the client asks for, in the page's language. */
static const char *const *scope_lines(request_rec *r, const authz *a) {
    apr_array_header_t *l = apr_array_make(r->pool, 12, sizeof(const char *));
    unsigned named = a->scopes->full ? FS_SC_ALL : a->scopes->named;
    for (unsigned bit = 1; bit & FS_SC_ALL; bit <<= 1) {
        if (!(named & bit))
            continue;
        char *k = apr_pstrcat(r->pool, "oauth.scope_", fs_scope_name(bit), NULL);
        for (char *c = k; *c; c++)
            if (*c == ':')
                *c = '_';
        APR_ARRAY_PUSH(l, const char *) = fs_tr(a->loc, k);
    }
    APR_ARRAY_PUSH(l, const char *) = NULL;
    return (const char *const *)l->elts;
}

/* The titles of the forms a form: constraint names (the id where the
 * account has no such form), joined; NULL without constraints. */
static const char *form_titles(request_rec *r, const authz *a, const char *user_id) {
    apr_array_header_t *f = a->scopes->forms;
    if (!f || !f->nelts)
        return NULL;
    json_object *ids = fs_json_own(r->pool, json_object_new_array());
    for (int i = 0; i < f->nelts; i++)
        json_object_array_add(ids, json_object_new_string(APR_ARRAY_IDX(f, i, const char *)));
    const char *json = NULL;
    if (user_id)
        fs_store_form_titles(formsvc_store(r), user_id, fs_json_str(r->pool, ids), &json);
    json_object *t = json ? fs_json_parse_trusted(r->pool, json) : NULL;
    const char *out = "";
    for (int i = 0; i < f->nelts; i++) {
        const char *id = APR_ARRAY_IDX(f, i, const char *);
        json_object *v = t ? fs_json_get(t, id) : NULL;
        const char *name = v ? apr_psprintf(r->pool, "“%s”", json_object_get_string(v)) : id;
        out = apr_pstrcat(r->pool, out, i ? fs_tr(a->loc, "page.list_separator") : "", name, NULL);
    }
    return out;
}

static int send_page(request_rec *r, authz *a, int status, int step, const char *email,
                     const char *user_id, const char *error) {
    const char *hidden[] = {"response_type",
                            a->q.response_type,
                            "client_id",
                            a->q.client_id,
                            "redirect_uri",
                            a->q.redirect_uri,
                            "scope",
                            a->q.scope,
                            "state",
                            a->q.state,
                            "code_challenge",
                            a->q.code_challenge,
                            "code_challenge_method",
                            a->q.code_challenge_method,
                            "resource",
                            a->q.resource,
                            NULL};
    fs_authz_page pg = {a->loc,
                        step,
                        apr_pstrcat(r->pool, formsvc_base_url(r), "/oauth/authorize", NULL),
                        hidden,
                        a->csrf,
                        a->app->name,
                        fs_redirect_uri_host(r->pool, a->q.redirect_uri),
                        scope_lines(r, a),
                        form_titles(r, a, user_id),
                        email,
                        error};
    apr_table_setn(r->headers_out, "Cache-Control", "no-store");
    /* the approval's 303 goes to the client's origin: form-action must
     * allow it (browsers apply it to a post's redirects) */
    const char *ru = a->q.redirect_uri;
    const char *origin = apr_pstrndup(r->pool, ru,
                                      (apr_size_t)(strstr(ru, "://") - ru) + 3 +
                                          strcspn(strstr(ru, "://") + 3, "/?#"));
    apr_table_setn(r->headers_out, "Content-Security-Policy",
                   apr_psprintf(r->pool,
                                "default-src 'none'; style-src %s; frame-ancestors 'none'; "
                                "form-action 'self' %s; base-uri 'none'",
                                fs_html_style_src(r->pool), origin));
    apr_table_setn(r->headers_out, "X-Frame-Options", "DENY");
    apr_table_setn(r->headers_out, "Referrer-Policy", "no-referrer");
    apr_table_mergen(r->headers_out, "Vary", "Accept-Language");
    return formsvc_send_html(r, status, fs_html_authorize(r->pool, &pg));
}

/* The page for the session's state: the approval when it is signed in,
 * else the sign-in. */
static int show(request_rec *r, authz *a, int status, const char *error) {
    fs_login_row *l = NULL;
    fs_error *e = fs_store_login_get(formsvc_store(r), keyed(r, "oauth-session", a->session), &l);
    if (e)
        return trouble(r, a, e);
    if (l)
        return send_page(r, a, status, FS_AUTHZ_CONSENT, l->email, l->user_id, error);
    return send_page(r, a, status, FS_AUTHZ_SIGNIN, NULL, NULL, error);
}

/* GET /oauth/authorize */
static int formsvc_h_authorize(request_rec *r, const char *const *caps) {
    (void)caps;
    authz a = {0};
    a.loc = formsvc_locale_negotiated(r);
    const char *q = r->args ? r->args : "";
    fs_error *e = fs_urlencoded_parse(r->pool, q, strlen(q), &a.pairs);
    if (e)
        return error_page(r, &a, 400, "oauth.error_client");
    int sent;
    int rc = check_request(r, &a, &sent);
    if (sent)
        return rc;
    a.session = session_cookie(r);
    if (!a.session && !(a.session = new_session(r)))
        return trouble(r, &a, fs_error_internal(r->pool, "no random bytes for a session"));
    a.csrf = keyed(r, "oauth-csrf", a.session);
    return show(r, &a, 200, NULL);
}

static int is_form_type(const char *ct) {
    if (!ct)
        return 0;
    apr_size_t n = strcspn(ct, ";");
    while (n > 0 && ct[n - 1] == ' ')
        n--;
    return n == 33 && !strncasecmp(ct, "application/x-www-form-urlencoded", 33);
}

/* After a proof: the session moves to a new cookie (and so a new CSRF
 * token), then the approval page. */
static int proven(request_rec *r, authz *a, const char *old_hash) {
    const char *fresh = new_session(r);
    if (!fresh)
        return trouble(r, a, fs_error_internal(r->pool, "no random bytes for a session"));
    fs_error *e =
        fs_store_login_rotate(formsvc_store(r), old_hash, keyed(r, "oauth-session", fresh));
    if (e)
        return trouble(r, a, e);
    a->session = fresh;
    a->csrf = keyed(r, "oauth-csrf", fresh);
    return show(r, a, 200, NULL);
}

/* The approval: a grant and its code, then back to the client. */
static int approve(request_rec *r, authz *a, fs_login_row *l) {
    formsvc_srv *c = formsvc_conf(r->server);
    if (l->proven_by) {
        /* a pasted key grants at most what it holds, while it lives (its
         * expiry cuts the tokens: fs_creator_end) */
        const char *missing = NULL;
        fs_error *verr = fs_error_validation(r->pool);
        fs_scopes *ks = fs_scopes_from_json(r->pool, fs_json_parse_trusted(r->pool, l->key_scopes),
                                            "", 0, verr);
        if (!l->key_active)
            return send_page(r, a, 403, FS_AUTHZ_SIGNIN, NULL, NULL,
                             fs_tr(a->loc, "oauth.key_wrong"));
        if (!ks || !fs_scopes_subset(r->pool, a->scopes, ks, &missing))
            return send_page(r, a, 403, FS_AUTHZ_CONSENT, l->email, l->user_id,
                             fs_tr(a->loc, "oauth.key_narrow"));
    }
    const char *gid = fs_id_new(r->pool, "grt_");
    const char *code = fs_secret_generate(r->pool, "svco_");
    if (!gid || !code)
        return trouble(r, a, fs_error_internal(r->pool, "no random bytes for a code"));
    json_object *sj = fs_json_own(r->pool, fs_scopes_to_json(a->scopes));
    fs_new_grant g = {gid,
                      l->user_id,
                      a->app->id,
                      fs_json_str(r->pool, sj),
                      l->proven_by,
                      keyed(r, "oauth-code", code),
                      a->q.redirect_uri,
                      a->q.code_challenge,
                      CODE_LIFETIME};
    int made;
    fs_error *e =
        fs_store_grant_create(formsvc_store(r), &g, c->tier[l->verified ? 1 : 0].grants, &made);
    if (e)
        return trouble(r, a, e);
    if (!made)
        return send_page(r, a, 403, FS_AUTHZ_CONSENT, l->email, l->user_id,
                         fs_tr(a->loc, "oauth.quota"));
    formsvc_audit_as(r, l->user_id, l->proven_by, NULL, NULL, "grant.created", gid);
    apr_table_setn(r->headers_out, "Location",
                   fs_url_with_query(r->pool, a->q.redirect_uri, "code", code, "state", a->q.state,
                                     "iss", formsvc_base_url(r), NULL));
    apr_table_setn(r->headers_out, "Referrer-Policy", "no-referrer");
    return formsvc_send_empty(r, HTTP_SEE_OTHER);
}

/* POST /oauth/authorize: a step of the page */
static int formsvc_h_authorize_post(request_rec *r, const char *const *caps) {
    (void)caps;
    authz a = {0};
    a.loc = formsvc_locale_negotiated(r);
    if (!is_form_type(apr_table_get(r->headers_in, "Content-Type")))
        return formsvc_send_problem(r, fs_error_make(r->pool, "unsupported-media-type", NULL));
    char *buf;
    apr_size_t len;
    fs_error *e = formsvc_read_body(r, AUTHZ_MAX_BODY, &buf, &len);
    if (!e)
        e = fs_urlencoded_parse(r->pool, buf ? buf : "", len, &a.pairs);
    if (e)
        return trouble(r, &a, e);
    int sent;
    int rc = check_request(r, &a, &sent);
    if (sent)
        return rc;
    /* the CSRF token: the keyed hash of this browser's session cookie */
    a.session = session_cookie(r);
    const char *csrf = pair(a.pairs, "csrf");
    if (!a.session || !csrf ||
        !fs_secret_equal(csrf, (a.csrf = keyed(r, "oauth-csrf", a.session)))) {
        FORMSVC_LOG(r, APLOG_INFO, 00560, "authorize page: a post without a valid CSRF token");
        if (!a.session && !(a.session = new_session(r)))
            return trouble(r, &a, fs_error_internal(r->pool, "no random bytes for a session"));
        a.csrf = keyed(r, "oauth-csrf", a.session);
        return send_page(r, &a, 403, FS_AUTHZ_SIGNIN, NULL, NULL, fs_tr(a.loc, "oauth.session"));
    }
    const char *sh = keyed(r, "oauth-session", a.session);
    const char *step = pair(a.pairs, "step");
    step = step ? step : "";
    if (!strcmp(step, "email")) {
        const char *email = pair(a.pairs, "email");
        if (!email || !fs_email_valid(email))
            return send_page(r, &a, 422, FS_AUTHZ_SIGNIN, NULL, NULL,
                             fs_tr(a.loc, "oauth.email_wrong"));
        if ((e = formsvc_ratelimit_address(r, FORMSVC_RL_RECOVER, "oauth"))) {
            if (e->status != 429)
                return trouble(r, &a, e);
            /* the sign-in again, saying why: a key still works */
            formsvc_log_problem(r, e, r->uri);
            if (e->retry_after > 0)
                apr_table_setn(r->err_headers_out, "Retry-After",
                               apr_itoa(r->pool, e->retry_after));
            return send_page(r, &a, 429, FS_AUTHZ_SIGNIN, NULL, NULL,
                             fs_tr(a.loc, "oauth.rate_limited"));
        }
        char *code = fs_code_generate(r->pool);
        if (!code)
            return trouble(r, &a, fs_error_internal(r->pool, "no random bytes for a code"));
        const char *text = apr_psprintf(
            r->pool,
            "Hello,\n\n"
            "someone asked to let the application \"%s\" use the formsvc account of\n"
            "this e-mail address. The sign-in code is:\n\n"
            "    %s\n\n"
            "It works once, for 10 minutes, on the page that asked for it. If you did not\n"
            "ask for this, ignore this message: nothing is shared without the code.\n",
            a.app->name, code);
        const char *mid;
        char *msg = formsvc_mail_message(r, email, "Sign-in code", text, &mid);
        formsvc_acct *acct = formsvc_conf(r->server)->acct;
        fs_mail_limits lim = {acct->mails_per_day, acct->resend_interval};
        fs_queued_mail mail = {mid, msg};
        /* an address the mail system cannot carry: nothing to send, and
         * the page says what it says for any address */
        if (msg && (e = fs_store_login_send(formsvc_store(r), sh, email, &lim,
                                            keyed(r, "oauth-login", code), &mail)))
            return trouble(r, &a, e);
        return send_page(r, &a, 200, FS_AUTHZ_CODE, email, NULL, NULL);
    }
    if (!strcmp(step, "code")) {
        const char *typed = pair(a.pairs, "code");
        const char *result = "none";
        if (typed && *typed &&
            (e = fs_store_login_confirm(formsvc_store(r), sh,
                                        keyed(r, "oauth-login", fs_code_normalize(r->pool, typed)),
                                        &result)))
            return trouble(r, &a, e);
        if (strcmp(result, "ok"))
            return send_page(r, &a, 422, FS_AUTHZ_CODE, pair(a.pairs, "email"), NULL,
                             fs_tr(a.loc, "oauth.code_wrong"));
        return proven(r, &a, sh);
    }
    if (!strcmp(step, "key")) {
        const char *key = pair(a.pairs, "key");
        formsvc_principal *who = NULL;
        if (!key || !*key || (e = formsvc_authenticate_secret(r, key, &who))) {
            if (e && e->status >= 500)
                return trouble(r, &a, e);
            return send_page(r, &a, 422, FS_AUTHZ_SIGNIN, "", NULL,
                             fs_tr(a.loc, "oauth.key_wrong"));
        }
        if ((e = fs_store_login_key(formsvc_store(r), sh, who->user_id, who->key_id)))
            return trouble(r, &a, e);
        return proven(r, &a, sh);
    }
    if (!strcmp(step, "consent")) {
        fs_login_row *l = NULL;
        if ((e = fs_store_login_get(formsvc_store(r), sh, &l)))
            return trouble(r, &a, e);
        if (!l)
            return send_page(r, &a, 403, FS_AUTHZ_SIGNIN, NULL, NULL,
                             fs_tr(a.loc, "oauth.session"));
        const char *d = pair(a.pairs, "decision");
        if (d && !strcmp(d, "approve"))
            return approve(r, &a, l);
        return redirect_error(r, &a, "access_denied", "The account's owner denied the request.");
    }
    return show(r, &a, 400, NULL);
}

/* POST /oauth/register (RFC 7591): a public client */
static int formsvc_h_register(request_rec *r, const char *const *caps) {
    (void)caps;
    formsvc_srv *c = formsvc_conf(r->server);
    fs_error *e = formsvc_ratelimit_address(r, FORMSVC_RL_REGISTER, NULL);
    json_object *body = NULL;
    if (!e)
        e = formsvc_read_json(r, 0, &body);
    fs_registration reg;
    if (!e)
        e = fs_registration_parse(r->pool, body, &reg);
    if (e) {
        fs_oauth_decorate(r->pool, e);
        return formsvc_send_problem(r, e);
    }
    const char *addr =
        fs_rl_address_key(r->pool, c->pepper, c->pepper_len, "oauth-register", r->useragent_ip);
    const char *id = fs_id_new(r->pool, "app_");
    if (!addr || !id)
        return formsvc_send_problem(r, fs_error_internal(r->pool, "no random id or address key"));
    fs_new_app app = {id, reg.client_name, fs_json_str(r->pool, reg.redirect_uris), reg.client_uri,
                      addr};
    const char *created;
    if ((e = fs_store_app_register(formsvc_store(r), &app, &created)))
        return formsvc_send_problem(r, e);
    json_object *o = fs_json_own(r->pool, json_object_new_object());
    json_object_object_add(o, "client_id", json_object_new_string(id));
    json_object_object_add(o, "client_id_issued_at",
                           json_object_new_int64(apr_time_sec(apr_time_now())));
    json_object_object_add(o, "client_name", json_object_new_string(reg.client_name));
    json_object_object_add(o, "redirect_uris", json_object_get(reg.redirect_uris));
    if (reg.client_uri)
        json_object_object_add(o, "client_uri", json_object_new_string(reg.client_uri));
    json_object *g = json_object_new_array();
    json_object_array_add(g, json_object_new_string(FS_GRANT_AUTHORIZATION_CODE));
    json_object_array_add(g, json_object_new_string(FS_GRANT_REFRESH_TOKEN));
    json_object_object_add(o, "grant_types", g);
    json_object *rt = json_object_new_array();
    json_object_array_add(rt, json_object_new_string("code"));
    json_object_object_add(o, "response_types", rt);
    json_object_object_add(o, "token_endpoint_auth_method", json_object_new_string("none"));
    return formsvc_send_obj(r, 201, o);
}

const formsvc_route formsvc_routes_authorize[] = {
    {M_GET, "/oauth/authorize", formsvc_h_authorize, 0, 0},
    {M_POST, "/oauth/authorize", formsvc_h_authorize_post, 0, 0},
    {M_POST, "/oauth/register", formsvc_h_register, 0, 0},
    {0, NULL, NULL, 0, 0}};
