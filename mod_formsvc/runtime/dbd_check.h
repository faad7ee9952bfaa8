/* dbd_check: mod_dbd's pool sizes, checked when the configuration is read
 * (check_config, so also by `apache2 -t`). */
#ifndef FORMSVC_DBD_CHECK_H
#define FORMSVC_DBD_CHECK_H

#include <httpd.h>
#include <apr_pools.h>

/* OK, or HTTP_INTERNAL_SERVER_ERROR after FS00342 when the main server or
 * a <VirtualHost> has DBDMin, DBDKeep and DBDMax (its own or the main
 * server's, else mod_dbd's defaults 1, 2, 10) out of order: mod_dbd then
 * makes no connection pool (AH00633, AH00636 in every child) and the
 * service answers every request that needs the database with 503. */
int formsvc_dbd_check(apr_pool_t *ptemp, server_rec *s);

#endif
