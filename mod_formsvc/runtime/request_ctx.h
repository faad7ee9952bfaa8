/* request_ctx: the per-request context of the module (r->request_config)
 * and the database connection and store of a request. Runtime parts use
 * them without knowing the http layer: the cache barrier asks whether a
 * request is ours, a rate limit or the batch queue stores on the
 * request's connection. What fills the context (authentication, the
 * router, an internal dispatch) is the http layer's (http/request.h). */
#ifndef FORMSVC_REQUEST_CTX_H
#define FORMSVC_REQUEST_CTX_H

#include <httpd.h>

#include "fs_error.h"
#include "fs_store.h"

/* Per-request state kept in r->request_config. */
typedef struct formsvc_req {
    int ours;                        /* under our base path */
    const char *path;                /* r->uri with the base path removed */
    struct formsvc_principal *who;   /* NULL until authenticated (http/auth.h) */
    fs_error *auth_error;            /* why authentication failed (for the error page) */
    fs_db *db;                       /* acquired lazily */
    fs_store *store;                 /* formsvc_store(): made once, takes db as needed */
    struct formsvc_capture *capture; /* set during an internal dispatch (http/capture.h) */
    int body_answered;               /* httpd's input filter answered a body error itself */
    struct formsvc_route_hit *route; /* formsvc_request_route()'s answer, once found */
} formsvc_req;

/* r's context, made (zeroed, in r->pool) on first use. */
formsvc_req *formsvc_req_get(request_rec *r);

/* Database: the mod_dbd connection of this request, or a 503 problem. */
fs_error *formsvc_db(request_rec *r, fs_db **db);
/* Gives the request's connection back to mod_dbd's pool now (a long poll
 * before it sleeps, a response before it is written to the client); the
 * next store call takes one again. No operation when none is held, nor
 * while the connection is inside a transaction (it stays). */
void formsvc_db_release(request_rec *r);
/* The store of this request, for the typed functions of fs_store_*.h:
 * results in r->pool, the connection taken (formsvc_db) when a statement
 * first needs it. A failure's cause is logged by formsvc_send_problem. */
fs_store *formsvc_store(request_rec *r);

#endif
