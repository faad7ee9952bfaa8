/* webhooks: the directive of webhook targets, the hooks that start the
 * delivery worker of each httpd child (webhooks_worker.c), and what the
 * handlers of /v1/events and /v1/webhooks share (handle_webhooks.c). */
#ifndef FORMSVC_WEBHOOKS_H
#define FORMSVC_WEBHOOKS_H

#include "glue.h"

/* FormsvcWebhookAllowPrivate On|Off (global; default Off). */
const char *formsvc_set_webhook_private(cmd_parms *cmd, void *d, int on);
/* 1 when private and loopback targets (and plain http) are allowed. */
int formsvc_webhook_allow_private(void);

#define FORMSVC_WEBHOOK_CMDS                                                                       \
    AP_INIT_FLAG("FormsvcWebhookAllowPrivate", formsvc_set_webhook_private, NULL, RSRC_CONF,       \
                 "On: webhooks may target private, loopback and link-local addresses "             \
                 "and use plain http (for development and tests; default Off)")

/* Registers the pre_config (reset the directive) and child_init (start the
 * delivery worker) hooks. */
void formsvc_webhook_hooks(apr_pool_t *p);

#endif
