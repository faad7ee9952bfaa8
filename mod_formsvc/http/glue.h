/* glue: what the httpd-facing files share: the per-request context, the
 * principal from authentication, and the helpers that read requests and
 * write answers. */
#ifndef FORMSVC_GLUE_H
#define FORMSVC_GLUE_H

#include <httpd.h>
#include <http_config.h>
#include <http_log.h>
#include <http_protocol.h>
#include <http_request.h>
#include <json.h>

#include "config.h"
#include "fs_error.h"
#include "fs_scope.h"
#include "fs_store.h"

/* Who is calling: set by the authentication hook. */
typedef struct formsvc_principal {
    const char *user_id, *key_id, *actor, *client_id;
    const char *parent_key_id; /* NULL for a root key or an access token */
    fs_scopes *scopes;
    int depth;
    int verified;
    apr_int64_t expires; /* epoch seconds, 0 = never */
} formsvc_principal;

/* Per-request state kept in r->request_config. */
typedef struct formsvc_req {
    int ours;                 /* under our base path */
    const char *path;         /* r->uri with the base path removed */
    formsvc_principal *who;   /* NULL until authenticated */
    fs_error *auth_error;     /* why authentication failed (for the error page) */
    fs_db *db;                /* acquired lazily */
    fs_store *store;          /* formsvc_store(): made once, takes db as needed */
    struct formsvc_capture *capture; /* set during an internal dispatch (dispatch.h) */
    int body_answered;        /* httpd's input filter answered a body error itself */
} formsvc_req;

formsvc_req *formsvc_req_get(request_rec *r);
/* The base URL to put in absolute links and problem types. */
const char *formsvc_base_url(request_rec *r);

/* Database: the mod_dbd connection of this request, or a 503 problem. */
fs_error *formsvc_db(request_rec *r, fs_db **db);
/* Gives the request's connection back to mod_dbd's pool now (a long poll
 * before it sleeps); the next store call takes one again. Never inside a
 * transaction. No operation when none is held. */
void formsvc_db_release(request_rec *r);
/* The store of this request, for the typed functions of fs_store_*.h:
 * results in r->pool, the connection taken (formsvc_db) when a statement
 * first needs it. A failure's cause is logged by formsvc_send_problem. */
fs_store *formsvc_store(request_rec *r);

/* Responses. All return the value a handler returns (OK or DONE). */
int formsvc_send_json(request_rec *r, int status, const char *json);
int formsvc_send_obj(request_rec *r, int status, json_object *o);
/* Logs a 5xx once, with the request: 503 as a warning (AH10102), any
 * other as an error with the problem's cause (AH10103). instance: the
 * path to name (NULL: r->uri). Answers that are not problem documents
 * (HTML pages) call it themselves; formsvc_send_problem always does. */
void formsvc_log_problem(request_rec *r, const fs_error *e, const char *instance);
int formsvc_send_problem(request_rec *r, fs_error *e);
int formsvc_send_empty(request_rec *r, int status);

/* Reads the body as JSON object: 415 unless JSON, 413 over max, 400 when
 * malformed. A missing body gives an empty object when optional. */
fs_error *formsvc_read_json(request_rec *r, int optional, json_object **out);
/* Reads the raw body up to max bytes (413 beyond). A body that cannot be
 * read is answered as httpd would (ap_map_http_request_error): 408 when
 * the client is too slow, 413 over LimitRequestBody, 400 otherwise. */
fs_error *formsvc_read_body(request_rec *r, apr_off_t max, char **buf, apr_size_t *len);

/* Query parameter (first occurrence, decoded), NULL when absent. */
const char *formsvc_arg(request_rec *r, const char *name);

/* A query flag: absent or "false" is 0, "true" is 1, anything else 422. */
fs_error *formsvc_bool_arg(request_rec *r, const char *name, int *out);

/* Paging: limit (1..100, default 20) and the decoded cursor id. */
fs_error *formsvc_paging(request_rec *r, const char *kind, const char *id_prefix,
                         int *limit, const char **after);
/* Sends {"data": [...], "nextCursor": ...} with a Link header when more
 * items follow the page. */
int formsvc_send_page(request_rec *r, const char *kind, const fs_list_page *page);

/* Log with a stable message number. */
#define FORMSVC_LOG(r, level, no, ...) \
    ap_log_rerror(APLOG_MARK, level, 0, r, "AH" #no ": " __VA_ARGS__)

/* Route handlers. caps are the {placeholders} of the matched pattern. */
typedef int formsvc_handler(request_rec *r, const char *const *caps);

typedef struct formsvc_route {
    int method;          /* M_GET, ... */
    const char *pattern; /* "/v1/keys/{id}" relative to the base path */
    formsvc_handler *fn;
    unsigned scope;      /* scope bit required; 0: none */
    int auth;            /* 1: bearer credential required */
} formsvc_route;

/* 1 for an owner key: no parent, no client, full access (the signup key,
 * a recovered key, a full-access key made by an owner key). It acts for
 * the account; every other credential is a delegate, confined to its own
 * revocation tree (docs/api.md, "Delegation rules"). */
int formsvc_principal_is_owner(const formsvc_principal *p);
/* The calling delegate's key id, or NULL when the caller is an owner key:
 * the argument of the statements that confine a delegate to its tree. */
const char *formsvc_tree_root(request_rec *r);

/* Checks the principal has the scope; 403 problem otherwise. */
fs_error *formsvc_need_scope(request_rec *r, unsigned bit);

/* Route tables, one per handler file, each ending with {0, NULL}; the
 * router walks them in the order of routes.c. */
extern const formsvc_route formsvc_routes_ops[];
extern const formsvc_route formsvc_routes_account[];
extern const formsvc_route formsvc_routes_keys[];
extern const formsvc_route formsvc_routes_clients[];
extern const formsvc_route formsvc_routes_token[];
extern const formsvc_route formsvc_routes_audit[];
extern const formsvc_route formsvc_routes_verify[];
extern const formsvc_route formsvc_routes_forms[];
extern const formsvc_route formsvc_routes_fields[];
extern const formsvc_route formsvc_routes_submissions[];
extern const formsvc_route formsvc_routes_public[];
extern const formsvc_route formsvc_routes_mcp[];
extern const formsvc_route formsvc_routes_openapi[];

/* The route for method and path (relative to the base path), or NULL;
 * caps receive its placeholders, *allow the methods the path has. */
const formsvc_route *formsvc_route_lookup(request_rec *r, int method, const char *path,
                                          const char **caps, const char **allow);
extern const formsvc_route formsvc_routes_webhooks[];

/* Shared request helpers of the handlers. */
/* Adds an "unknown" error for every member of o not in allowed (NULL-ended). */
void formsvc_unknown_members(request_rec *r, json_object *o, const char *const *allowed,
                             fs_error *verr);
/* The "email" member of a body: required string, trimmed, at most 254
 * bytes, a plausible address; NULL after adding an item to verr. */
const char *formsvc_email_member(request_rec *r, json_object *body, fs_error *verr);
/* 403 quota-exceeded with quota, limit and used. */
fs_error *formsvc_quota_exceeded(request_rec *r, const char *quota, int limit, const char *used);

/* Audit trail (handle_audit.c): records that the calling credential did
 * action (e.g. "form.published") to target_id. A failure is logged, never
 * turned into an error: the write it records has already committed. */
void formsvc_audit(request_rec *r, const char *action, const char *target_id);
/* The same, naming the form the record concerns (form_id NULL: the target
 * itself when it is a form, else none); form-scoped credentials read only
 * the records of their forms. */
void formsvc_audit_form(request_rec *r, const char *action, const char *target_id,
                        const char *form_id);
/* The same for a request without a bearer principal (the token endpoint). */
void formsvc_audit_as(request_rec *r, const char *user_id, const char *credential_id,
                      const char *client_id, const char *actor, const char *action,
                      const char *target_id);
/* Hooks of the public form side (public_cache.c). */
void formsvc_public_hooks(apr_pool_t *p);

/* Router and auth hooks. */
int formsvc_redact_request(request_rec *r);
int formsvc_translate(request_rec *r);
int formsvc_map_to_storage(request_rec *r);
int formsvc_handler_hook(request_rec *r);
int formsvc_force_authn(request_rec *r);
int formsvc_check_authn(request_rec *r);
void formsvc_register_authz(apr_pool_t *p);
/* Authenticates a bearer secret; fills *who or returns a problem. */
fs_error *formsvc_authenticate_secret(request_rec *r, const char *secret,
                                      formsvc_principal **who);

/* The schema version this module needs: the highest sql/NNNN_ number,
 * passed in by Makefile.apxs. */
#ifndef FS_SCHEMA_VERSION
#error "FS_SCHEMA_VERSION must be defined by the build"
#endif
/* The release (the file VERSION), generated into the build by Makefile.apxs. */
#include "fs_version.h"

#endif
