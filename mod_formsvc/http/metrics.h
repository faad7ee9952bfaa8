/* metrics: counters summed over every child of this httpd, for GET
 * {base}/metrics (Prometheus text format 0.0.4; docs/operations.md).
 *
 * They live in one anonymous shared-memory segment made in the parent's
 * post_config and kept in the process pool, so children inherit it and a
 * graceful (or plain) restart keeps counting where it was; only stopping
 * httpd starts them from zero (formsvc_metrics_start_time_seconds says
 * when). Every update is one atomic add on that memory: no lock on the
 * request path. Route slots are named by method and pattern, assigned in
 * the parent when the configuration is read. */
#ifndef FORMSVC_METRICS_H
#define FORMSVC_METRICS_H

#include "glue.h"

/* Event counters. The four FORMSVC_M_DB_STMT_* are in the order of
 * fs_store.h's FS_DB_COUNT_* (the store counts them itself). */
typedef enum formsvc_metric {
    FORMSVC_M_SUBMISSIONS,          /* public submissions stored */
    FORMSVC_M_SUBMIT_BATCHES,       /* statements that stored a batch of them (submit_batch.h) */
    FORMSVC_M_WEBHOOK_DELIVERED,    /* webhook delivery attempts answered 2xx */
    FORMSVC_M_WEBHOOK_FAILED,       /* ... that failed */
    FORMSVC_M_MAIL_SENT,            /* outbox messages handed to the transport */
    FORMSVC_M_MAIL_FAILED,          /* ... attempts that failed */
    FORMSVC_M_FORM_CACHE_HIT,       /* public form served from the outage copy */
    FORMSVC_M_FORM_CACHE_MISS,      /* ... no copy to serve */
    FORMSVC_M_FORM_COPY_FRESH,      /* outage copy already current: not rewritten */
    FORMSVC_M_FORM_COPY_WRITTEN,    /* ... written */
    FORMSVC_M_DB_WAITS,             /* requests that waited for a pooled connection */
    FORMSVC_M_DB_WAIT_TIMEOUTS,     /* ... and got none within FormsvcDBTimeout */
    FORMSVC_M_DB_DOWN_FAST,         /* answered 503 at once: database being probed */
    FORMSVC_M_DB_OPEN_FAILED,       /* mod_dbd gave no connection */
    FORMSVC_M_DB_STMT_UNAVAILABLE,  /* statements: database unreachable or silent */
    FORMSVC_M_DB_STMT_BUSY,         /* ... cancelled (statement/lock timeout) */
    FORMSVC_M_DB_STMT_ERROR,        /* ... other errors (500) */
    FORMSVC_M_DB_STMT_RENEWED,      /* sessions renewed and re-prepared */
    FORMSVC_M_LOG_SUPPRESSED,       /* log lines held back as repeats (log.h) */
    FORMSVC_M_MEM_FORM_HIT,         /* public form answered from memory (form_cache.h) */
    FORMSVC_M_MEM_FORM_MISS,        /* ... read from the database */
    FORMSVC_M_MEM_ROW_HIT,          /* a submission checked against the form from memory */
    FORMSVC_M_MEM_ROW_MISS,         /* ... against the form read from the database */
    FORMSVC_M_MEM_ROW_STALE,        /* ... from memory, but the form had changed: checked again */
    FORMSVC_M_MEM_CRED_HIT,         /* credential verified from memory (cred_cache.h) */
    FORMSVC_M_MEM_CRED_MISS,        /* ... verified by the database */
    FORMSVC_M_MEM_OWNER_HIT,        /* owner's GET of a form from memory (owner_cache.h) */
    FORMSVC_M_MEM_OWNER_MISS,       /* ... read from the database */
    FORMSVC_M_CACHE_FLUSH_LISTENER, /* a child's caches flushed: its listener (re)connected */
    FORMSVC_M_CACHE_FLUSH_BARRIER,  /* a machine's caches flushed: a write's barrier failed */
    FORMSVC_M_N
} formsvc_metric;

/* Adds one to a counter. No operation before post_config made the memory. */
void formsvc_metric_inc(formsvc_metric m);

/* Calls fn for every route of every table, in the router's order
 * (router.c). */
void formsvc_routes_each(void (*fn)(const formsvc_route *rt, void *ctx), void *ctx);

/* 1 when r may read the operator's figures (/metrics, the numbers of
 * /readyz/outbox): a Require that applies to its URL granted it, or,
 * without one, it comes from the machine itself (127.0.0.0/8, ::1) and
 * carries none of the headers in which a proxy names another client
 * (Forwarded, X-Forwarded-For, X-Real-IP, ...) that mod_remoteip has not
 * consumed. */
int formsvc_metrics_allowed(request_rec *r);

/* The /metrics route table (listed in router.c). */
extern const formsvc_route formsvc_routes_metrics[];

/* post_config: makes or finds the segment, names the route slots. */
int formsvc_metrics_post_config(apr_pool_t *pconf, server_rec *s);
/* log_transaction hook (requests by route, method and status; latency). */
void formsvc_metrics_hooks(apr_pool_t *p);

#endif
