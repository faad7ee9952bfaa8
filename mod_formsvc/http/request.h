/* request: reading what the client sent (body, query parameters, paging)
 * and the base URL. The per-request context and the request's database
 * connection and store are runtime/request_ctx.h's (included); the answers
 * are response.h's, the scope checks auth.h's. */
#ifndef FORMSVC_REQUEST_H
#define FORMSVC_REQUEST_H

#include <httpd.h> /* before the other httpd headers */

#include <http_config.h>
#include <http_log.h>
#include <http_protocol.h>
#include <http_request.h>
#include <json.h>

#include "fs_error.h"
#include "fs_store.h"
#include "runtime/config.h"
#include "runtime/request_ctx.h"

/* The base URL to put in absolute links and problem types. */
const char *formsvc_base_url(request_rec *r);

/* Reads the body as JSON object: 415 unless JSON, 413 over max, 400 when
 * malformed. A missing body gives an empty object when optional. */
fs_error *formsvc_read_json(request_rec *r, int optional, json_object **out);
/* The public requests that name an account by its address (signup,
 * recover, recover/confirm) begin alike: the caller's address counted
 * against the rate-limit rule (FORMSVC_RL_*, ratelimit.h), the JSON body
 * read, members outside allowed (NULL-terminated) refused, and its
 * "email" member checked (fs_json_email_member) into *email. Returns the
 * problem to send: a rate limit, a body that cannot be read, or, when
 * verr is NULL, the member errors. With verr, the member errors stay in
 * *verr (a validation problem, perhaps without errors) for the caller to
 * add its own; *body is then the request's object. */
fs_error *formsvc_read_email_request(request_rec *r, int rule, const char *const *allowed,
                                     json_object **body, const char **email, fs_error **verr);
/* Reads the raw body up to max bytes (413 beyond). A body that cannot be
 * read is answered as httpd would (ap_map_http_request_error): 408 when
 * the client is too slow, 413 over LimitRequestBody, 400 otherwise. */
fs_error *formsvc_read_body(request_rec *r, apr_off_t max, char **buf, apr_size_t *len);

/* Query parameter name: its first occurrence, decoded as urlencoded text
 * (fs_form_decode), in *out (request pool); *out is NULL when it is
 * absent. A value that cannot be decoded (a bad %-escape, a NUL, invalid
 * UTF-8) is a 400 malformed-request problem naming the parameter. */
fs_error *formsvc_arg(request_rec *r, const char *name, const char **out);

/* A query flag: absent or "false" is 0, "true" is 1, anything else 422. */
fs_error *formsvc_bool_arg(request_rec *r, const char *name, int *out);

/* Paging: limit (1..100, default 20) and the decoded cursor id. */
fs_error *formsvc_paging(request_rec *r, const char *kind, const char *id_prefix, int *limit,
                         const char **after);

/* Log with a stable message number of our own (log.h). */
#include "runtime/log.h"

#endif
