/* upload_dir_check: a check of FormsvcUploadTempDir made when the
 * configuration is read (check_config). */
#ifndef FORMSVC_UPLOAD_DIR_CHECK_H
#define FORMSVC_UPLOAD_DIR_CHECK_H

#include <httpd.h>
#include <apr_pools.h>

/* check_config: warns (FS00341) when httpd's User could not make files in
 * FormsvcUploadTempDir (the parent runs as root and cannot ask access()):
 * uploads past memory and XLSX exports would all be 503. A warning, not a
 * refusal: ACLs are not read. Said under configtest and once per start. */
void formsvc_upload_dir_check(apr_pool_t *ptemp, server_rec *s);

#endif
