/* auth: who is calling. Bearer authentication in httpd's check_authn hook
 * and the formsvc-scope authorization provider (auth.c). */
#ifndef FORMSVC_AUTH_H
#define FORMSVC_AUTH_H

#include <httpd.h>

#include "fs_error.h"
#include "fs_scope.h"

/* Who is calling: set by the authentication hook, in the request pool. */
typedef struct formsvc_principal {
    const char *user_id, *key_id, *actor, *client_id;
    const char *parent_key_id; /* NULL for a root key or an access token */
    fs_scopes *scopes;
    int depth;
    int verified;
    apr_int64_t expires; /* epoch seconds, 0 = never */
} formsvc_principal;

/* 1 for an owner key: no parent, no client, full access (the signup key,
 * a recovered key, a full-access key made by an owner key). It acts for
 * the account; every other credential is a delegate, confined to its own
 * revocation tree (docs/api.md, "Delegation rules"). */
int formsvc_principal_is_owner(const formsvc_principal *p);
/* The calling delegate's key id, or NULL when the caller is an owner key:
 * the argument of the statements that confine a delegate to its tree. */
const char *formsvc_tree_root(request_rec *r);

/* Authenticates a bearer secret; fills *who or returns a problem. */
fs_error *formsvc_authenticate_secret(request_rec *r, const char *secret, formsvc_principal **who);

/* The credential of an "Authorization: Bearer" header (after the spaces
 * that follow the scheme), or NULL when the request has none. Owned by
 * r's headers. */
const char *formsvc_bearer_of(request_rec *r);

/* The URL of the RFC 9728 metadata of the protected resource {base}{path}
 * (path "" or "/mcp"): the origin, the well-known path, then the path of
 * the resource (router.c claims it). In r->pool. */
const char *formsvc_resource_metadata_url(request_rec *r, const char *path);
/* challenge (a WWW-Authenticate value) with resource_metadata added when
 * the request is one to the MCP endpoint, whose clients discover the
 * authorization server from it (MCP 2025-06-18); challenge as it is
 * otherwise. */
const char *formsvc_challenge(request_rec *r, const char *challenge);

/* Checks the principal has the scope; 403 problem otherwise. */
fs_error *formsvc_need_scope(request_rec *r, unsigned bit);
/* A 403 insufficient-scope problem: requiredScope names scope (a token
 * or constraint the caller lacks), detail is fmt (printf) for people. */
fs_error *formsvc_scope_problem(request_rec *r, const char *scope, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Hooks (registered by mod_formsvc.c). */
int formsvc_check_authn(request_rec *r);
/* note_auth_failure: WWW-Authenticate for AuthType Bearer. */
int formsvc_note_auth_failure(request_rec *r, const char *auth_type);
/* Registers the formsvc-scope authorization provider. */
void formsvc_register_authz(apr_pool_t *p);

#endif
