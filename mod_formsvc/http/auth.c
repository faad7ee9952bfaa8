/* auth: bearer authentication in httpd's check_authn hook and the
 * formsvc-scope authorization provider.
 *
 * For our own routes, force_authn (router.c) makes httpd run authentication whenever a
 * Bearer credential is sent to a route that needs one; a route that needs
 * one and gets none is refused by the router with a 401 problem. A failure
 * inside authentication (bad credential, database down) is answered through
 * an internal error document (/.formsvc/error) so that it, too, is a
 * problem+json. Elsewhere, "AuthType Bearer" plus "Require formsvc-scope
 * forms:read" guards any <Location> with the same credentials. */
#include "http/auth.h"
#include "fs_json.h"
#include "fs_secret.h"
#include "fs_store_account.h"
#include "http/cred_cache.h"
#include "http/request.h"
#include "runtime/config.h"
#include "runtime/log.h"
#include "runtime/request_ctx.h"
#include "runtime/schema_check.h"

#include <ap_provider.h>
#include <apr_strings.h>
#include <http_core.h>
#include <mod_auth.h>

APLOG_USE_MODULE(formsvc);

const char *formsvc_bearer_of(request_rec *r) {
    const char *h = apr_table_get(r->headers_in, "Authorization");
    if (!h || strncasecmp(h, "Bearer ", 7) != 0)
        return NULL;
    h += 7;
    while (*h == ' ')
        h++;
    return h;
}

static int auth_type_is_bearer(request_rec *r) {
    const char *t = ap_auth_type(r);
    return t && !strcasecmp(t, "Bearer");
}

fs_error *formsvc_authenticate_secret(request_rec *r, const char *secret, formsvc_principal **who) {
    formsvc_srv *c = formsvc_conf(r->server);
    *who = NULL;
    fs_error *bad =
        fs_error_make(r->pool, "unauthorized", "The credential is unknown, expired or revoked.");
    bad->www_authenticate = "Bearer realm=\"formsvc\", error=\"invalid_token\"";
    /* The checksum refuses typos and foreign strings without a query. */
    if (!fs_secret_well_formed(secret, c->key_prefix))
        return bad;
    const char *hash = fs_secret_hash(r->pool, c->pepper, c->pepper_len, secret);
    if (!hash)
        return fs_error_internal(r->pool, "the secret cannot be hashed (OpenSSL HMAC failed)");
    /* a credential verified before, from memory (cred_cache.h) */
    formsvc_cred_ticket ticket;
    if (formsvc_cred_cache_get(r, hash, who, &ticket))
        return NULL;
    fs_credential *cred;
    fs_error *e = fs_store_authenticate(formsvc_store(r), hash, &cred);
    if (e)
        return e;
    if (!cred || !fs_secret_equal(cred->secret_hash, hash))
        return bad;
    formsvc_principal *p = apr_pcalloc(r->pool, sizeof(*p));
    p->key_id = cred->key_id;
    p->user_id = cred->user_id;
    json_object *sj = fs_json_parse_trusted(r->pool, cred->scopes_json);
    fs_error *verr = fs_error_validation(r->pool);
    p->scopes = fs_scopes_from_json(r->pool, sj, "", 0, verr);
    if (!p->scopes)
        return fs_error_internal(r->pool, "the stored scopes of %s cannot be read", p->key_id);
    p->depth = cred->depth;
    p->actor = cred->actor;
    p->client_id = cred->client_id;
    p->verified = cred->verified;
    p->expires = cred->expires;
    p->parent_key_id = cred->parent_key_id;
    if (cred->touch_due) {
        /* lastUsedAt is a hint: a failure here does not fail the request */
        fs_error *te = fs_store_key_touch(formsvc_store(r), p->key_id);
        if (te)
            FORMSVC_LOG(r, APLOG_WARNING, 00202, "lastUsedAt not refreshed for %s (%s)", p->key_id,
                        te->cause ? te->cause : te->slug);
    }
    formsvc_cred_cache_put(r, &ticket, p); /* forms and credentials from memory */
    *who = p;
    return NULL;
}

int formsvc_principal_is_owner(const formsvc_principal *p) {
    return p && !p->parent_key_id && !p->client_id && p->scopes && p->scopes->full;
}

const char *formsvc_tree_root(request_rec *r) {
    formsvc_principal *who = formsvc_req_get(r)->who;
    return formsvc_principal_is_owner(who) ? NULL : who->key_id;
}

int formsvc_check_authn(request_rec *r) {
    formsvc_req *q = formsvc_req_get(r);
    if (!q->ours && !auth_type_is_bearer(r))
        return DECLINED;
    const char *secret = formsvc_bearer_of(r);
    formsvc_srv *c = formsvc_conf(r->server);
    ap_custom_response(r, HTTP_UNAUTHORIZED,
                       apr_pstrcat(r->pool, c->base_path, "/.formsvc/error", NULL));
    ap_custom_response(r, HTTP_SERVICE_UNAVAILABLE,
                       apr_pstrcat(r->pool, c->base_path, "/.formsvc/error", NULL));
    ap_custom_response(r, HTTP_INTERNAL_SERVER_ERROR,
                       apr_pstrcat(r->pool, c->base_path, "/.formsvc/error", NULL));
    /* a database that does not fit the module (schema behind, another
     * pepper): 503 before any key is looked up (schema_check.h) */
    fs_error *gate = q->ours ? formsvc_gate(r, q->path) : NULL;
    if (gate) {
        q->auth_error = gate;
        return HTTP_SERVICE_UNAVAILABLE;
    }
    if (!secret) {
        q->auth_error = fs_error_make(r->pool, "unauthorized",
                                      "This resource needs Authorization: Bearer <secret>.");
        q->auth_error->www_authenticate = "Bearer realm=\"formsvc\"";
        if (auth_type_is_bearer(r))
            ap_note_auth_failure(r);
        return HTTP_UNAUTHORIZED;
    }
    formsvc_principal *who;
    fs_error *e = formsvc_authenticate_secret(r, secret, &who);
    if (e) {
        q->auth_error = e;
        if (e->status == 401) {
            /* never the secret itself in a log line */
            FORMSVC_LOG(r, APLOG_INFO, 00201, "bearer credential refused");
            /* our own routes carry the challenge in the problem; others
             * (AuthType Bearer) through httpd's note_auth_failure */
            if (auth_type_is_bearer(r))
                ap_note_auth_failure(r);
        }
        return e->status;
    }
    q->who = who;
    r->user = (char *)who->user_id;
    r->ap_auth_type = (char *)"Bearer";
    apr_table_setn(r->notes, "formsvc-credential", who->key_id);
    if (who->actor)
        apr_table_setn(r->notes, "formsvc-actor", who->actor);
    apr_table_setn(r->subprocess_env, "FORMSVC_CREDENTIAL", who->key_id);
    return OK;
}

/* The authorization provider: "Require formsvc-scope forms:read ..."; every
 * scope named must be granted. */
static const char *scope_parse(cmd_parms *cmd, const char *line, const void **parsed) {
    const char *bad = NULL;
    fs_scopes *sc = fs_scopes_from_string(cmd->pool, line, &bad);
    if (!sc)
        return apr_psprintf(cmd->pool, "Require formsvc-scope: unknown scope %s", bad);
    if (!sc->named && sc->forms->nelts == 0)
        return "Require formsvc-scope needs at least one scope";
    *parsed = sc;
    return NULL;
}

static authz_status scope_check(request_rec *r, const char *line, const void *parsed) {
    (void)line;
    if (!r->user)
        return AUTHZ_DENIED_NO_USER;
    request_rec *top = r;
    formsvc_req *q = formsvc_req_get(top);
    while (!q->who && top->main) {
        top = top->main;
        q = formsvc_req_get(top);
    }
    if (!q->who)
        return AUTHZ_DENIED; /* authenticated by someone else: no scopes */
    const fs_scopes *need = parsed;
    if (!fs_scopes_has(q->who->scopes, need->bits))
        return AUTHZ_DENIED;
    for (int i = 0; i < need->forms->nelts; i++)
        if (!fs_scopes_allows_form(q->who->scopes, APR_ARRAY_IDX(need->forms, i, const char *)))
            return AUTHZ_DENIED;
    return AUTHZ_GRANTED;
}

static const authz_provider scope_provider = {scope_check, scope_parse};

const char *formsvc_resource_metadata_url(request_rec *r, const char *path) {
    const char *base = formsvc_base_url(r), *bp = formsvc_conf(r->server)->base_path;
    apr_size_t n = strlen(base), bl = strlen(bp);
    /* the base URL ends with the base path: what is before is the origin */
    const char *origin =
        n >= bl && !strcmp(base + n - bl, bp) ? apr_pstrndup(r->pool, base, n - bl) : base;
    return apr_pstrcat(r->pool, origin, "/.well-known/oauth-protected-resource", bp, path, NULL);
}

const char *formsvc_challenge(request_rec *r, const char *challenge) {
    /* an ErrorDocument (the 401 of check_authn) runs as an internal
     * redirect: the path asked for is the original request's */
    request_rec *orig = r;
    while (orig->prev)
        orig = orig->prev;
    formsvc_req *q = formsvc_req_get(orig);
    if (!challenge || !q->ours || !q->path || strcmp(q->path, "/mcp"))
        return challenge;
    return apr_psprintf(r->pool, "%s, resource_metadata=\"%s\"", challenge,
                        formsvc_resource_metadata_url(r, "/mcp"));
}

static void note_failure(request_rec *r, const char *auth_type) {
    (void)auth_type;
    if (!apr_table_get(r->err_headers_out, "WWW-Authenticate"))
        apr_table_setn(r->err_headers_out, "WWW-Authenticate", "Bearer realm=\"formsvc\"");
}

int formsvc_note_auth_failure(request_rec *r, const char *auth_type) {
    if (!auth_type || strcasecmp(auth_type, "Bearer"))
        return DECLINED;
    note_failure(r, auth_type);
    return OK;
}

void formsvc_register_authz(apr_pool_t *p) {
    ap_register_auth_provider(p, AUTHZ_PROVIDER_GROUP, "formsvc-scope", AUTHZ_PROVIDER_VERSION,
                              &scope_provider, AP_AUTH_INTERNAL_PER_CONF);
}

fs_error *formsvc_need_scope(request_rec *r, unsigned bit) {
    formsvc_principal *who = formsvc_req_get(r)->who;
    if (who && fs_scopes_has(who->scopes, bit))
        return NULL;
    const char *name = fs_scope_name(bit);
    fs_error *e = formsvc_scope_problem(r, name, "This operation needs the scope %s.", name);
    e->www_authenticate = apr_psprintf(
        r->pool, "Bearer realm=\"formsvc\", error=\"insufficient_scope\", scope=\"%s\"", name);
    return e;
}

fs_error *formsvc_scope_problem(request_rec *r, const char *scope, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    const char *detail = apr_pvsprintf(r->pool, fmt, ap);
    va_end(ap);
    fs_error *e = fs_error_make(r->pool, "insufficient-scope", "%s", detail);
    fs_error_set_str(r->pool, e, "requiredScope", scope);
    return e;
}
