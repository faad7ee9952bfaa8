/* fs_oauth: the pure logic of the token endpoint (RFC 6749, RFC 8693):
 * reading a token request from application/x-www-form-urlencoded or JSON,
 * HTTP Basic client credentials, OAuth error problems, scope narrowing and
 * the rules of token exchange (delegation). No httpd headers; all memory
 * from the pool passed in. */
#ifndef FS_OAUTH_H
#define FS_OAUTH_H

#include <apr_pools.h>
#include <json.h>

#include "fs_error.h"
#include "fs_scope.h"

#define FS_GRANT_CLIENT_CREDENTIALS "client_credentials"
#define FS_GRANT_TOKEN_EXCHANGE "urn:ietf:params:oauth:grant-type:token-exchange"
#define FS_GRANT_AUTHORIZATION_CODE "authorization_code"
#define FS_GRANT_REFRESH_TOKEN "refresh_token"
#define FS_TOKEN_TYPE_ACCESS "urn:ietf:params:oauth:token-type:access_token"

/* Delegation depth: a root key is 0, each exchange adds one. */
#define FS_OAUTH_MAX_DEPTH 4
/* The longest expires_in a token exchange accepts (365 days). */
#define FS_OAUTH_MAX_EXPIRES_IN 31536000LL
/* actor and name: 1..100 characters. */
#define FS_OAUTH_LABEL_MAX 100

/* The parameters of one token request. NULL: absent, or sent empty (RFC
 * 6749 3.1: a parameter without a value is treated as omitted). */
typedef struct fs_token_request {
    const char *grant_type, *client_id, *client_secret, *scope;
    const char *subject_token, *subject_token_type, *requested_token_type;
    const char *actor_token, *actor, *expires_in, *name;
    /* authorization_code and refresh_token */
    const char *code, *redirect_uri, *code_verifier, *refresh_token, *resource;
} fs_token_request;

/* A problem for an OAuth error code (invalid_request, invalid_client,
 * invalid_grant, invalid_scope, unsupported_grant_type): the slug of the
 * same name (invalid-request, ...) and the members error and
 * error_description (the detail). */
fs_error *fs_oauth_error(apr_pool_t *p, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Adds error and error_description to a problem that was raised by a
 * generic helper (415, 413, 400, 429, 503, 500 ...), unless it has them:
 * 4xx -> invalid_request (401 -> invalid_client), 429 and 503 ->
 * temporarily_unavailable, other 5xx -> server_error. */
void fs_oauth_decorate(apr_pool_t *p, fs_error *e);

/* Parses an application/x-www-form-urlencoded body (len bytes, need not
 * be NUL-terminated). Any parameter given twice, a malformed %-escape,
 * invalid UTF-8 or a NUL is invalid_request. Unknown parameters are
 * ignored (RFC 6749 3.2). */
fs_error *fs_token_request_parse_form(apr_pool_t *p, const char *body, apr_size_t len,
                                      fs_token_request *req);

/* The JSON convenience form: an object whose members are strings
 * (expires_in may also be a non-negative integer). Another type is
 * invalid_request; unknown members are ignored. */
fs_error *fs_token_request_from_json(apr_pool_t *p, json_object *o, fs_token_request *req);

/* HTTP Basic client authentication (RFC 6749 2.3.1): header is the whole
 * Authorization value. Returns 1 when it is a Basic header at all (*is_basic
 * is then set); on success *id and *secret are the form-decoded parts and
 * the result is 1. A Basic header that cannot be decoded returns 0 with
 * *is_basic = 1. Not Basic: 0 with *is_basic = 0. */
int fs_basic_credentials(apr_pool_t *p, const char *header, int *is_basic, const char **id,
                         const char **secret);

/* Narrowing: requested is the OAuth scope string (NULL: everything
 * granted). An unknown token, or a scope or form constraint that granted
 * does not hold, is invalid_scope (with requiredScope for the latter).
 * *out is the narrowed set; a copy of granted when requested is NULL. */
fs_error *fs_oauth_narrow(apr_pool_t *p, const fs_scopes *granted, const char *requested,
                          fs_scopes **out);

/* What token exchange needs to know about the subject credential. */
typedef struct fs_exchange_parent {
    int depth;
    apr_int64_t expires; /* epoch seconds; 0: never */
    const fs_scopes *scopes;
    const char *actor; /* may be NULL */
} fs_exchange_parent;

/* The delegated credential that token exchange may mint. */
typedef struct fs_exchange_grant {
    fs_scopes *scopes;
    apr_int64_t expires;  /* epoch seconds */
    long long expires_in; /* seconds from now */
    int depth;
    const char *actor; /* the label given, else the parent's (may be NULL) */
    const char *name;  /* given, else the actor, else "delegated" */
} fs_exchange_grant;

/* The rules of token exchange that need no subject: the token types,
 * actor_token, actor, name and the syntax and range of expires_in. NULL
 * when fine, else invalid_request. */
fs_error *fs_oauth_exchange_check_request(apr_pool_t *p, const fs_token_request *req);

/* The rules of delegation: subject_token_type and requested_token_type
 * (when given) must be the access-token URN; actor_token is not
 * supported; depth at most FS_OAUTH_MAX_DEPTH; scope narrows the parent's;
 * actor and name are 1..100 characters without control characters;
 * expires_in is 1..FS_OAUTH_MAX_EXPIRES_IN and never beyond the parent's
 * expiry; omitted, it is default_lifetime cut to the parent's expiry.
 * now is epoch seconds. A breach is invalid_request (invalid_scope for the
 * scope). */
fs_error *fs_oauth_exchange(apr_pool_t *p, const fs_exchange_parent *parent,
                            const fs_token_request *req, apr_int64_t now,
                            long long default_lifetime, fs_exchange_grant *out);

#endif
