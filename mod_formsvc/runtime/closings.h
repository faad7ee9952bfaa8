/* closings: form.closed events of forms that close by themselves when their
 * closesAt passes (sql/0050). */
#ifndef FORMSVC_CLOSINGS_H
#define FORMSVC_CLOSINGS_H

#include <httpd.h>

/* child_init: starts this child's closings thread. */
void formsvc_closings_child_init(apr_pool_t *pchild, server_rec *s);

#endif
