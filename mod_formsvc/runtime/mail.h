/* mail: queueing mail in the outbox (the request's statement does it) and
 * the worker thread of each httpd child that delivers it. */
#ifndef FORMSVC_MAIL_H
#define FORMSVC_MAIL_H

#include <httpd.h>

#include "fs_mail.h"

/* Builds an RFC 5322 message from the configured sender; NULL when the
 * recipient cannot be mailed. *id gets a fresh outbox id. */
char *formsvc_mail_message(request_rec *r, const char *to, const char *subject, const char *body,
                           const char **id);
/* The same outside a request (the workers), in p; unsubscribe: the URL of
 * List-Unsubscribe (RFC 8058), or NULL. */
char *formsvc_mail_compose(apr_pool_t *p, server_rec *s, const char *to, const char *subject,
                           const char *body, const char *unsubscribe, const char **id);

/* check_config: every mail directory (FormsvcMailTransport file, or the
 * default spool) exists or can be made by this process, so that configtest
 * fails where the start would (FS00690). */
int formsvc_mail_check_config(apr_pool_t *ptemp, server_rec *s);
/* post_config: reads the SMTP password, makes the mail directory (owned
 * by the child user). child_init: starts the delivery worker. */
int formsvc_mail_post_config(apr_pool_t *pconf, server_rec *s);
void formsvc_mail_child_init(apr_pool_t *pchild, server_rec *s);

#endif
