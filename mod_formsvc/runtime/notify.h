/* notify: the mail of submissions (settings.notify and settings.confirmation):
 * the queue the mail worker drains (jobs of sql/0028 → messages in the
 * outbox) and the signed one-click unsubscribe links. */
#ifndef FORMSVC_NOTIFY_H
#define FORMSVC_NOTIFY_H

#include <httpd.h>

#include "runtime/worker.h"

/* For the mail worker's task list (mail.c). */
extern const formsvc_queue formsvc_notify_queue;
extern const formsvc_sweep formsvc_notify_sweep;

/* The MAC of an unsubscribe link for recipient id (hex, keyed by the
 * pepper), in p. */
const char *formsvc_notify_unsub_mac(apr_pool_t *p, server_rec *s, const char *id);
/* The token of a confirmation link hashed for the store, in p. */
const char *formsvc_notify_token_hash(apr_pool_t *p, server_rec *s, const char *token);

#endif
