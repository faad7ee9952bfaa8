/* webhooks: the start of the delivery
 * worker of each httpd child (webhooks_worker.c), and what the
 * handlers of /v1/events and /v1/webhooks share (handle_webhooks.c). */
#ifndef FORMSVC_WEBHOOKS_H
#define FORMSVC_WEBHOOKS_H

#include <httpd.h>
#include <http_config.h>

#include "fs_store_webhooks.h"

/* 1 when private and loopback targets (and plain http) are allowed
 * (FormsvcWebhookAllowPrivate, runtime/config_global.h; like
 * FormsvcEventWaits, the bound of event_waits.c, a server-wide setting). */
int formsvc_webhook_allow_private(void);

/* One GET /v1/events request allowed to sleep in this httpd child. */
typedef struct formsvc_event_wait formsvc_event_wait;
/* Takes a wait for user_id, held until formsvc_event_wait_end or the end
 * of r->pool; NULL when this child already has its bound of waiting
 * requests in all or for this account (then answer at once). */
formsvc_event_wait *formsvc_event_wait_begin(request_rec *r, const char *user_id);
/* Gives the wait back. No operation when w is NULL. */
void formsvc_event_wait_end(request_rec *r, formsvc_event_wait *w);
/* Whether this child is stopping (stop, restart, graceful or not): a
 * waiting request answers then rather than sleep out its wait, which would
 * hold the child past httpd's patience (SIGKILL at stop) or a graceful
 * stop for up to the whole wait. */
int formsvc_event_wait_stopping(void);

/* Sends a delivery claimed for this request (the test and retry routes)
 * now, as the worker would (signed, the same timeout and target checks),
 * and records the outcome: a failure is retried by the worker with the
 * usual backoff. Holds no database connection while it waits. */
void formsvc_webhook_send_now(request_rec *r, const fs_delivery *dl);
/* The lease of a claimed delivery, in seconds. */
int formsvc_webhook_lease(void);

/* child_init: starts the delivery worker (webhooks_worker.c). */
void formsvc_webhook_child_init(apr_pool_t *pchild, server_rec *s);

#endif
