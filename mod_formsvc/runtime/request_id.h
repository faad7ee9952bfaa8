/* request_id: one id per request, the same everywhere it is shown: the
 * X-Request-Id response header, the request note formsvc-request-id (for
 * the access log: %{formsvc-request-id}n), the request's log id (%L in
 * ErrorLogFormat, so every error-log line of the request, ours and other
 * modules', can carry it) and the requestId member of problem documents.
 * With mod_unique_id loaded it is that module's UNIQUE_ID; otherwise 20
 * random base64url characters. Only on hosts where the service is on. */
#ifndef FORMSVC_REQUEST_ID_H
#define FORMSVC_REQUEST_ID_H

#include <httpd.h>

/* The id of r (of its initial request for internal redirects and
 * subrequests); NULL when the service is off on r's host. */
const char *formsvc_request_id(request_rec *r);

/* post_read_request, after mod_unique_id's: gives r its id. */
int formsvc_request_id_assign(request_rec *r);

#endif
