/* views: counting views of public form pages without a
 * database write per GET. Each child counts in a table of its own memory
 * (fixed size, made at child start: nothing is allocated on the request
 * path), and a worker task adds the counts to form_views (sql/0031) every
 * VIEWS_FLUSH_SECONDS with one statement. Figures therefore lag by up to
 * that much; counts a flush could not write are kept for the next one. */
#ifndef FORMSVC_VIEWS_H
#define FORMSVC_VIEWS_H

#include <httpd.h>

#define FORMSVC_VIEWS_FLUSH_SECONDS 2

/* One view of form_id's page, in the UTC hour of the request. Cheap: a
 * short lock, no allocation, no database. */
void formsvc_views_count(request_rec *r, const char *form_id);

/* child_init: the table and the flushing worker. */
void formsvc_views_child_init(apr_pool_t *pchild, server_rec *s);

#endif
