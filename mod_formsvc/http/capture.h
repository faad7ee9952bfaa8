/* capture: what an internal dispatch (dispatch.c) hands a handler and
 * keeps of its answer. While formsvc_req.capture is set, request.c reads
 * the body from in_body instead of the client and response.c stores the
 * answer here instead of sending it. A leaf header: the files on either
 * side of the capture include it, not each other. */
#ifndef FORMSVC_CAPTURE_H
#define FORMSVC_CAPTURE_H

#include <apr.h>
#include <apr_tables.h>

typedef struct formsvc_capture {
    /* in: the request body handed to the handler; NULL means no body */
    const char *in_body;
    apr_size_t in_len;
    /* out: what the handler answered; status 0 if it answered nothing */
    int status;
    const char *type; /* "application/json", "application/problem+json", NULL */
    const char *body; /* NUL-terminated, in the request pool; NULL for an empty answer */
    /* out: the handler's response headers (Formsvc-Wait, Location, ...) */
    apr_table_t *headers;
    /* a body sent in pieces (formsvc_send_more) grows here; body points
     * into it. NULL until the first piece */
    apr_array_header_t *pieces;
} formsvc_capture;

#endif
