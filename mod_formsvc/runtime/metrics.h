/* metrics: counters summed over every child of this httpd, for GET
 * {base}/metrics (handlers/handle_metrics.c; Prometheus text format 0.0.4; docs/operations.md).
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

#include <httpd.h>
#include <apr_buckets.h>

#include "fs_store.h"

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
    FORMSVC_M_LIMITED_RATE,         /* 429: an address's rate limit, a brake on attempts */
    FORMSVC_M_LIMITED_QUOTA,        /* 429: an account's requests a minute, an owner's month */
    FORMSVC_M_BATCH_SIZE_1,         /* batches of 1 submission (formsvc_metric_batch) */
    FORMSVC_M_BATCH_SIZE_2,         /* ... of 2 */
    FORMSVC_M_BATCH_SIZE_4,         /* ... of 3 to 4 */
    FORMSVC_M_BATCH_SIZE_8,         /* ... of 5 to 8 */
    FORMSVC_M_BATCH_SIZE_16,        /* ... of 9 to 16 */
    FORMSVC_M_BATCH_SIZE_32,        /* ... of 17 to 32 */
    FORMSVC_M_BATCH_SIZE_64,        /* ... of 33 to 64 (the most a batch takes) */
    FORMSVC_M_BATCH_SIZE_SUM,       /* submissions in those batches */
    FORMSVC_M_N
} formsvc_metric;

/* Adds one to a counter. No operation before post_config made the memory. */
void formsvc_metric_inc(formsvc_metric m);
/* Counts a batch of n submissions stored together in the histogram. */
void formsvc_metric_batch(int n);

/* Gauges of this child (one slot per live child in the shared memory,
 * each reported with its pid): connections of mod_dbd's pool that a
 * request or worker holds, that are open (held or idle), the most it
 * opens (DBDMax), requests in a long poll and open MCP streams. No operation before the
 * child has a slot (formsvc_metrics_child_init). */
typedef enum formsvc_gauge {
    FORMSVC_G_DB_HELD,
    FORMSVC_G_DB_OPEN,
    FORMSVC_G_DB_MAX,
    FORMSVC_G_LONGPOLL_WAITERS,
    FORMSVC_G_MCP_STREAMS, /* open MCP streams (GET /mcp) */
    FORMSVC_G_N
} formsvc_gauge;
void formsvc_gauge_add(formsvc_gauge g, int delta);
void formsvc_gauge_set(formsvc_gauge g, int v);
/* child_init: takes a slot for this child (given back with pchild). */
void formsvc_metrics_child_init(apr_pool_t *pchild, server_rec *s);

/* post_config, after formsvc_metrics_post_config: gives the route known as
 * key (any address that stays the same for the configuration's life: the
 * router passes its routes') the slot of method and pattern (relative to
 * the base path), found again after a restart or taken anew. A route
 * without a slot (none left) is counted as unmatched. */
void formsvc_metrics_name_route(apr_pool_t *pconf, const void *key, int method,
                                const char *pattern);
/* log_transaction, for a request under our paths: counts r's answer (its
 * final status, the time since the request line) under the route named
 * key (NULL: none matched). */
void formsvc_metrics_count(request_rec *r, const void *key);

/* 1 when r may read the operator's figures (/metrics, the numbers of
 * /readyz/outbox): a Require that applies to its URL granted it, or,
 * without one, it comes from the machine itself (127.0.0.0/8, ::1) and
 * carries none of the headers in which a proxy names another client
 * (Forwarded, X-Forwarded-For, X-Real-IP, ...) that mod_remoteip has not
 * consumed. */
int formsvc_metrics_allowed(request_rec *r);

/* The text of GET /metrics (Prometheus text format 0.0.4), in p, with its
 * length in *len: the counters, each live child's gauges and, when st's
 * database answers, the outbox and the webhook backlog. NULL when the
 * shared memory could not be made. */
const char *formsvc_metrics_text(apr_pool_t *p, apr_bucket_alloc_t *ba, fs_store *st,
                                 apr_size_t *len);

/* post_config: makes or finds the segment. */
int formsvc_metrics_post_config(apr_pool_t *pconf, server_rec *s);

#endif
