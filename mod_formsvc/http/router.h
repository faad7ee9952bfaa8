/* router: claims our URIs and maps path and method to a handler of a route
 * table (router.c). Each handle_*.c exports one table. */
#ifndef FORMSVC_ROUTER_H
#define FORMSVC_ROUTER_H

#include <httpd.h>

/* Route handlers. caps are the {placeholders} of the matched pattern. */
typedef int formsvc_handler(request_rec *r, const char *const *caps);

typedef struct formsvc_route {
    int method;          /* M_GET, ... */
    const char *pattern; /* "/v1/keys/{id}" relative to the base path */
    formsvc_handler *fn;
    unsigned scope; /* scope bit required; 0: none */
    int auth;       /* 1: bearer credential required */
} formsvc_route;

/* Route tables, one per handler file, each ending with {0, NULL}; the
 * router walks them in the order of its tables[] (router.c). */
extern const formsvc_route formsvc_routes_ops[];
extern const formsvc_route formsvc_routes_account[];
extern const formsvc_route formsvc_routes_export[];   /* GET /v1/me/export */
extern const formsvc_route formsvc_routes_erasures[]; /* POST /v1/erasures */
extern const formsvc_route formsvc_routes_keys[];
extern const formsvc_route formsvc_routes_clients[];
extern const formsvc_route formsvc_routes_token[];
extern const formsvc_route formsvc_routes_audit[];
extern const formsvc_route formsvc_routes_verify[];
extern const formsvc_route formsvc_routes_notify[];
extern const formsvc_route formsvc_routes_forms[];
extern const formsvc_route formsvc_routes_fields[];
extern const formsvc_route formsvc_routes_submissions[];
extern const formsvc_route formsvc_routes_public[];
extern const formsvc_route formsvc_routes_mcp[];
extern const formsvc_route formsvc_routes_mcp_stream[];
extern const formsvc_route formsvc_routes_openapi[];
extern const formsvc_route formsvc_routes_webhooks[];
extern const formsvc_route formsvc_routes_stats[];
extern const formsvc_route formsvc_routes_insights[];
extern const formsvc_route formsvc_routes_links[];
extern const formsvc_route formsvc_routes_metrics[];
extern const formsvc_route formsvc_routes_files[]; /* uploaded files (files.c) */
extern const formsvc_route formsvc_routes_asks[];  /* asks (handle_asks.c) */
/* /oauth/authorize, /oauth/register (handle_authorize.c) */
extern const formsvc_route formsvc_routes_authorize[];
extern const formsvc_route formsvc_routes_grants[]; /* /v1/me/grants */
/* post_config: parses the embedded OpenAPI document once (handle_openapi.c). */
int formsvc_openapi_post_config(apr_pool_t *pconf, server_rec *s);

/* The route for method and path (relative to the base path), or NULL;
 * caps receive its placeholders, *allow the methods the path has. */
const formsvc_route *formsvc_route_lookup(request_rec *r, int method, const char *path,
                                          const char **caps, const char **allow);
/* The route of r itself (its method and formsvc_req path), looked up once
 * per request and kept in its formsvc_req: force_authn, the handler and
 * the metrics of log_transaction all ask. caps (4 entries) and *allow as
 * formsvc_route_lookup's; both may be NULL. */
const formsvc_route *formsvc_request_route(request_rec *r, const char **caps, const char **allow);
/* 1 when r goes to a route that needs a bearer credential (the
 * force_authn hook asks before the handler runs). */
int formsvc_route_needs_auth(request_rec *r);

/* Hooks (registered by mod_formsvc.c). */
/* force_authn: OK (run authentication) when a Bearer credential comes to
 * a route that needs one. */
int formsvc_force_authn(request_rec *r);
/* post_config, after formsvc_metrics_post_config: names every route's
 * counters (formsvc_metrics_name_route). */
int formsvc_router_post_config(apr_pool_t *pconf, server_rec *s);
/* log_transaction: counts a request under our paths by its route
 * (formsvc_metrics_count). */
int formsvc_count_request(request_rec *r);
int formsvc_redact_request(request_rec *r);
/* log_transaction: the request line, query and Referer without credential
 * values, for httpd's own log formats (%r, %q, %{Referer}i). */
int formsvc_redact_for_log(request_rec *r);
int formsvc_translate(request_rec *r);
int formsvc_map_to_storage(request_rec *r);
int formsvc_handler_hook(request_rec *r);

#endif
