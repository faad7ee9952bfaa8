/* fs_authorize: the pure rules of the OAuth 2.1 authorization code flow:
 * PKCE (RFC 7636, S256 only), redirect URIs (exact match; https, or an
 * http loopback address for native apps, RFC 8252), the parameters of an
 * authorization request, the redirect back to the client and dynamic
 * client registration's metadata (RFC 7591). No httpd headers; all memory
 * from the pool passed in. */
#ifndef FS_AUTHORIZE_H
#define FS_AUTHORIZE_H

#include <apr_pools.h>
#include <apr_tables.h>
#include <json.h>

#include "fs_error.h"

/* The parameters of GET /oauth/authorize (and of the page's posts, which
 * carry them again). NULL: absent or empty. */
typedef struct fs_authz_request {
    const char *response_type, *client_id, *redirect_uri, *scope, *state;
    const char *code_challenge, *code_challenge_method, *resource;
    const char *dup; /* the first of these given twice, or NULL */
} fs_authz_request;

/* Fills req from pairs (fs_pair, fs_urlencoded_parse). Linear in the
 * number of pairs. */
void fs_authz_request_read(const apr_array_header_t *pairs, fs_authz_request *req);

/* A code_verifier (43..128 of [A-Za-z0-9-._~]) or a code_challenge (the
 * S256 of one: 43 base64url characters). */
int fs_pkce_verifier_valid(const char *v);
int fs_pkce_challenge_valid(const char *c);
/* Is challenge base64url(SHA-256(verifier))? Compared in constant time. */
int fs_pkce_s256_match(const char *verifier, const char *challenge);

/* NULL when uri may be registered as a redirect URI: absolute, no
 * fragment, no userinfo, at most 2000 bytes, and https, or http to a
 * loopback host (localhost, 127.0.0.1, [::1]) for native apps; else why
 * not (a sentence). */
const char *fs_redirect_uri_problem(apr_pool_t *p, const char *uri);
/* Is uri one of the registered ones (a JSON array of strings), exactly? */
int fs_redirect_uri_registered(json_object *registered, const char *uri);
/* The host (and port when given) of a redirect URI, for the page. */
const char *fs_redirect_uri_host(apr_pool_t *p, const char *uri);

/* uri with the query parameters name=value appended (pairs of const char
 * *, ending with NULL; a NULL value skips its pair), percent-encoded;
 * "?" or "&" as the URI needs (RFC 6749 4.1.2). */
char *fs_url_with_query(apr_pool_t *p, const char *uri, ...);

/* A dynamic registration (RFC 7591): redirect_uris (1..10, each allowed
 * by fs_redirect_uri_problem), client_name (1..100 characters, else
 * "MCP client"), client_uri (an https URL, optional),
 * token_endpoint_auth_method (none only), grant_types (a subset of
 * authorization_code and refresh_token), response_types (code only).
 * Other members are ignored. A breach: an RFC 7591 error
 * (invalid_redirect_uri or invalid_client_metadata) as a 400 problem. */
typedef struct fs_registration {
    json_object *redirect_uris; /* owned by p (fs_json_own) */
    const char *client_name, *client_uri;
} fs_registration;
fs_error *fs_registration_parse(apr_pool_t *p, json_object *body, fs_registration *out);

#endif
