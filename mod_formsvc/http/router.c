/* router: claims our URIs, maps path and method to a handler, answers 404
 * and 405 as problems, and checks the route's scope. */
#include "http/router.h"
#include "fs_redact.h"
#include "fs_util.h"
#include "http/auth.h"
#include "http/quota.h"
#include "http/response.h"
#include "runtime/config.h"
#include "runtime/log.h"
#include "runtime/metrics.h"
#include "runtime/request_ctx.h"
#include "runtime/schema_check.h"

#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

static const formsvc_route *const tables[] = {
    formsvc_routes_ops,         formsvc_routes_account,   formsvc_routes_keys,
    formsvc_routes_clients,     formsvc_routes_token,     formsvc_routes_audit,
    formsvc_routes_verify,      formsvc_routes_forms,     formsvc_routes_fields,
    formsvc_routes_submissions, formsvc_routes_public,    formsvc_routes_mcp,
    formsvc_routes_mcp_stream,  formsvc_routes_openapi,   formsvc_routes_webhooks,
    formsvc_routes_metrics,     formsvc_routes_stats,     formsvc_routes_insights,
    formsvc_routes_links,       formsvc_routes_files, /* uploaded files */
    formsvc_routes_notify,      formsvc_routes_export,    formsvc_routes_erasures,
    formsvc_routes_asks,        formsvc_routes_authorize, formsvc_routes_grants,
};
#define N_TABLES (int)(sizeof(tables) / sizeof(tables[0]))

/* Top-level path families that belong to the service. */
static int our_path(const char *path) {
    static const char *const roots[] = {
        "/v1",           "/f",       "/problems",
        "/healthz",      "/readyz",  "/mcp",
        "/openapi.json", "/verify",  "/.well-known/oauth-authorization-server",
        "/.formsvc",     "/metrics", "/.well-known/oauth-protected-resource",
        "/notify",       "/oauth"};
    for (unsigned i = 0; i < sizeof(roots) / sizeof(roots[0]); i++) {
        apr_size_t n = strlen(roots[i]);
        if (strncmp(path, roots[i], n) == 0 && (path[n] == '\0' || path[n] == '/'))
            return 1;
    }
    return 0;
}

/* Every request gets a note "formsvc-request": its request line with the
 * values of credential query parameters (fs_redact) replaced, for the
 * shipped LogFormat's %<{formsvc-request}n in place of %r: a verification
 * token or a client_secret in a URL never lands in the access log. */
int formsvc_redact_request(request_rec *r) {
    if (!r->the_request)
        return DECLINED;
    const char *red = fs_redact_request_line(r->pool, r->the_request);
    apr_table_setn(r->notes, "formsvc-request", red);
    /* httpd's core refuses a path it cannot normalise (".." above the
     * root, a bad %-escape) with 400 and writes the whole target to the
     * error log, query included (AH10244): an edit link or a resume URL
     * mistyped so would put its secret there. Such a request with
     * something to redact is refused here first, with the same 400, and
     * logged with its line as redacted. */
    if (red != r->the_request && r->parsed_uri.path && formsvc_conf(r->server)->enabled) {
        char *path = apr_pstrdup(r->pool, r->parsed_uri.path);
        if (!ap_normalize_path(path,
                               AP_NORMALIZE_NOT_ABOVE_ROOT | AP_NORMALIZE_DECODE_UNRESERVED)) {
            FORMSVC_LOG(r, APLOG_INFO, 00360, "invalid URI path, refused with 400: %s", red);
            return HTTP_BAD_REQUEST;
        }
    }
    return DECLINED;
}

/* target (a URL or a query with its '?') with the values of credential
 * parameters replaced; target itself when there is nothing to replace. */
static const char *redact_target(apr_pool_t *p, const char *target) {
    const char *line = apr_pstrcat(p, "X ", target, " Y", NULL);
    const char *red = fs_redact_request_line(p, line);
    if (red == line)
        return target;
    apr_size_t n = strlen(red);
    return n >= 4 ? apr_pstrmemdup(p, red + 2, n - 4) : target;
}

/* log_transaction, before mod_log_config writes the line: on a host that
 * serves the service, the request line, the query and the Referer of the
 * request (and of each internal redirect it went through) lose the values
 * of credential parameters, so that httpd's own formats (Debian's
 * `combined`: %r and %{Referer}i; %q, %U%q) write no verification token,
 * link token or client secret. The request is answered: nothing reads
 * these fields after the log. */
int formsvc_redact_for_log(request_rec *r) {
    for (request_rec *x = r; x; x = x->next) {
        if (!formsvc_conf(x->server)->enabled)
            continue;
        const char *v = apr_table_get(x->notes, "formsvc-request");
        if (v)
            x->the_request = (char *)v;
        else if (x->the_request)
            x->the_request = (char *)fs_redact_request_line(x->pool, x->the_request);
        if (x->args && *x->args) {
            const char *q = redact_target(x->pool, apr_pstrcat(x->pool, "?", x->args, NULL));
            x->args = (char *)q + 1;
        }
        if (x->unparsed_uri)
            x->unparsed_uri = (char *)redact_target(x->pool, x->unparsed_uri);
        const char *ref = apr_table_get(x->headers_in, "Referer");
        if (ref && strchr(ref, '?') && !strchr(ref, ' '))
            apr_table_setn(x->headers_in, "Referer", redact_target(x->pool, ref));
    }
    return DECLINED;
}

/* RFC 8414 and RFC 9728 put the well-known path in front of the path of
 * the issuer or resource: with a base path (/api) the metadata of issuer
 * {base} and of resource {base}/mcp live at the host's root, outside the
 * base path. These exact URIs are ours too; the path they map to, or NULL. */
static const char *root_well_known(request_rec *r, const char *base_path) {
    static const char *const names[] = {"/.well-known/oauth-authorization-server",
                                        "/.well-known/oauth-protected-resource"};
    if (!*base_path)
        return NULL; /* the base is the root: the usual mapping */
    for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        apr_size_t n = strlen(names[i]), bl = strlen(base_path);
        if (strncmp(r->uri, names[i], n) || strncmp(r->uri + n, base_path, bl))
            continue;
        const char *rest = r->uri + n + bl;
        if (!*rest)
            return names[i];
        if (i == 1 && !strcmp(rest, "/mcp"))
            return apr_pstrcat(r->pool, names[i], rest, NULL);
    }
    return NULL;
}

int formsvc_translate(request_rec *r) {
    formsvc_srv *c = formsvc_conf(r->server);
    if (!c->enabled) /* Formsvc Off on this host */
        return DECLINED;
    if (!r->uri)
        return DECLINED;
    apr_size_t bl = strlen(c->base_path);
    const char *path = root_well_known(r, c->base_path);
    if (!path) {
        if (strncmp(r->uri, c->base_path, bl) != 0)
            return DECLINED;
        path = r->uri + bl;
    }
    if (!our_path(path))
        return DECLINED;
    formsvc_req *q = formsvc_req_get(r);
    q->ours = 1;
    q->path = path;
    r->handler = "formsvc";
    r->filename = apr_pstrcat(r->pool, "formsvc:", r->uri, NULL);
    return OK;
}

int formsvc_map_to_storage(request_rec *r) {
    /* Our resources are not files: skip the <Directory> walk (as mod_proxy
     * does); <Location> sections still apply. */
    return formsvc_req_get(r)->ours ? OK : DECLINED;
}

/* Methods in the order Allow lists them, with httpd's method numbers.
 * Names come from this table and not from ap_method_name_of: httpd's
 * registry maps both "GET" and "HEAD" to M_GET and is walked in hash order,
 * so it answers "HEAD" for M_GET after some starts and "GET" after others. */
static const struct {
    int number;
    const char *name;
} allow_order[] = {{M_GET, "GET"},     {M_GET, "HEAD"},      {M_POST, "POST"},      {M_PUT, "PUT"},
                   {M_PATCH, "PATCH"}, {M_DELETE, "DELETE"}, {M_OPTIONS, "OPTIONS"}};

/* The Allow value for a set of method numbers (bit m set for method m),
 * "GET, HEAD, POST" and so on in the fixed order above; NULL when empty. */
static const char *allow_value(apr_pool_t *p, apr_uint64_t methods) {
    const char *allow = NULL;
    for (unsigned i = 0; i < sizeof(allow_order) / sizeof(allow_order[0]); i++)
        if (methods & ((apr_uint64_t)1 << allow_order[i].number))
            allow = allow ? apr_pstrcat(p, allow, ", ", allow_order[i].name, NULL)
                          : allow_order[i].name;
    return allow;
}

/* The route for method and path, or NULL; *allow collects the methods that
 * would match the path, for 405. Also used by the internal dispatch of
 * dispatch.c (MCP tools). */
const formsvc_route *formsvc_route_lookup(request_rec *r, int method, const char *path,
                                          const char **caps, const char **allow) {
    apr_uint64_t methods = 0;
    const formsvc_route *hit = NULL;
    for (int t = 0; t < N_TABLES; t++) {
        for (const formsvc_route *rt = tables[t]; rt->pattern; rt++) {
            const char *tmp[4] = {0};
            if (!fs_route_match(r->pool, rt->pattern, path, tmp))
                continue;
            methods |= (apr_uint64_t)1 << rt->method; /* M_* numbers are below 64 */
            if (!hit && rt->method == method) {
                hit = rt;
                memcpy(caps, tmp, sizeof(tmp));
            }
        }
    }
    *allow = allow_value(r->pool, methods);
    return hit;
}

struct formsvc_route_hit {
    int method;
    const char *path; /* the q->path it was found for */
    const formsvc_route *rt;
    const char *caps[4];
    const char *allow;
};

const formsvc_route *formsvc_request_route(request_rec *r, const char **caps, const char **allow) {
    formsvc_req *q = formsvc_req_get(r);
    struct formsvc_route_hit *h = q->route;
    if (!h || h->method != r->method_number || h->path != q->path) {
        h = apr_pcalloc(r->pool, sizeof(*h));
        h->method = r->method_number;
        h->path = q->path;
        h->rt = formsvc_route_lookup(r, h->method, h->path, h->caps, &h->allow);
        q->route = h;
    }
    if (caps)
        memcpy(caps, h->caps, sizeof(h->caps));
    if (allow)
        *allow = h->allow;
    return h->rt;
}

int formsvc_route_needs_auth(request_rec *r) {
    formsvc_req *q = formsvc_req_get(r);
    if (!q->ours)
        return 0;
    const formsvc_route *rt = formsvc_request_route(r, NULL, NULL);
    return rt && rt->auth;
}

int formsvc_force_authn(request_rec *r) {
    if (formsvc_bearer_of(r) && formsvc_route_needs_auth(r))
        return OK;
    return DECLINED;
}

int formsvc_handler_hook(request_rec *r) {
    if (!r->handler || strcmp(r->handler, "formsvc"))
        return DECLINED;
    formsvc_req *q = formsvc_req_get(r);
    if (!q->ours) {
        /* SetHandler formsvc outside our paths: nothing to serve. */
        return DECLINED;
    }
    const char *caps[4] = {0}, *allow = NULL;
    /* HEAD is GET without a body: httpd gives it M_GET */
    const formsvc_route *rt = formsvc_request_route(r, caps, &allow);
    if (!rt) {
        if (allow) {
            apr_table_setn(r->err_headers_out, "Allow", allow);
            return formsvc_send_problem(r, fs_error_make(r->pool, "method-not-allowed",
                                                         "%s is not allowed here; use %s.",
                                                         r->method, allow));
        }
        return formsvc_send_problem(
            r, fs_error_make(r->pool, "not-found", "There is nothing at this address."));
    }
    fs_error *gate = formsvc_gate(r, q->path); /* schema_check.h */
    if (gate)
        return formsvc_send_problem(r, gate);
    if (rt->auth) {
        if (!q->who) {
            fs_error *e =
                q->auth_error
                    ? q->auth_error
                    : fs_error_make(r->pool, "unauthorized",
                                    "This operation needs Authorization: Bearer <secret>.");
            if (!e->www_authenticate)
                e->www_authenticate = "Bearer realm=\"formsvc\"";
            return formsvc_send_problem(r, e);
        }
        fs_error *rl = formsvc_ratelimit_account(r);
        if (rl)
            return formsvc_send_problem(r, rl);
        if (rt->scope) {
            fs_error *e = formsvc_need_scope(r, rt->scope);
            if (e)
                return formsvc_send_problem(r, e);
        }
    }
    return rt->fn(r, caps);
}

int formsvc_router_post_config(apr_pool_t *pconf, server_rec *s) {
    (void)s;
    /* each route's counters in /metrics, keyed by the route's address */
    for (int t = 0; t < N_TABLES; t++)
        for (const formsvc_route *rt = tables[t]; rt->pattern; rt++)
            formsvc_metrics_name_route(pconf, rt, rt->method, rt->pattern);
    return OK;
}

int formsvc_count_request(request_rec *r) {
    formsvc_req *q = ap_get_module_config(r->request_config, &formsvc_module);
    if (q && q->ours && q->path)
        formsvc_metrics_count(r, formsvc_request_route(r, NULL, NULL));
    return DECLINED;
}
