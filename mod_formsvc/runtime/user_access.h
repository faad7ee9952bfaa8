/* user_access: what httpd's User (the children) must be able to use,
 * checked when the configuration is read (check_config) by the parent,
 * which runs as root and cannot ask access(). */
#ifndef FORMSVC_USER_ACCESS_H
#define FORMSVC_USER_ACCESS_H

#include <httpd.h>
#include <apr_pools.h>

/* check_config: warns (FS00341) when httpd's User could not make files in
 * FormsvcUploadTempDir (the parent runs as root and cannot ask access()):
 * uploads past memory and XLSX exports would all be 503. A warning, not a
 * refusal: ACLs are not read. Said under configtest and once per start. */
void formsvc_upload_dir_check(apr_pool_t *ptemp, server_rec *s);

/* check_config: warns (FS00343) when httpd's User could not run the
 * program of a FormsvcMailTransport sendmail (root may: the directive's
 * own check passed): every mail would fail. Said as FS00341. */
void formsvc_sendmail_check(apr_pool_t *ptemp, server_rec *s);

#endif
