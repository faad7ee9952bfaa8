/* tally: the background rollup of submission counts (sql/0024). */
#ifndef FORMSVC_TALLY_H
#define FORMSVC_TALLY_H

#include <httpd.h>

/* child_init: starts this child's rollup thread. */
void formsvc_tally_child_init(apr_pool_t *pchild, server_rec *s);

#endif
