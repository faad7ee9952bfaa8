/* idempotency: Idempotency-Key for the POST endpoints of /v1 (/v1/forms,
 * /v1/keys). The public submission POST /f/... has its own records,
 * written in the submission's statement (public.h, public_idempotency.c).
 *
 * Use:
 *     formsvc_idem *idem;
 *     int rc = formsvc_idem_begin(r, scope, body, len, &idem);
 *     if (rc != FORMSVC_IDEM_PROCEED) return rc;   // answered: replay or problem
 *     ... on failure: return formsvc_idem_problem(r, idem, e);
 *     ... on success: if ((e = formsvc_idem_record(r, idem, 201, "application/json", json)))
 *                         return formsvc_send_problem(r, e);
 *                     then send the answer as usual.
 * scope is the calling credential's key id (records belong to the
 * credential that made them: another credential of the same account, even
 * a broader one, never gets them replayed; formsvc_idem_begin enforces
 * this whenever a bearer principal is present). idem is NULL when the
 * request carried no Idempotency-Key; every function accepts NULL and
 * then does nothing.
 *
 * With a key, formsvc_idem_begin opens a transaction on the request's
 * connection and claims the key in it; every store call of the handler
 * until formsvc_idem_record runs in it, and formsvc_idem_record writes the
 * answer and commits. So the claim, the work and the answer's record are
 * stored together or not at all: a retry finds either the answer (and
 * gets it replayed, even after a 504 outcome-unknown whose commit did
 * land) or nothing (and runs). Failure paths roll back (the claim goes
 * too, so a corrected retry with the same key runs); the request's pool
 * rolls back whatever is left open. A second request while the first is
 * still running gets 409 conflict with Retry-After, at once. Records live
 * 24 hours; their bodies are sealed (fs_idempotency.h). */
#ifndef FORMSVC_IDEMPOTENCY_H
#define FORMSVC_IDEMPOTENCY_H

#include <httpd.h>

#include "fs_error.h"

#define FORMSVC_IDEM_PROCEED (-1000)

typedef struct formsvc_idem formsvc_idem;

/* body/len: what identifies the request besides method and path (for JSON,
 * the canonical serialisation of the parsed body). Returns
 * FORMSVC_IDEM_PROCEED, or the handler's return value after answering
 * (replay, 400 malformed key, 422 same key with another body, 409 in
 * progress, 503). */
int formsvc_idem_begin(request_rec *r, const char *scope, const char *body, apr_size_t len,
                       formsvc_idem **out);

/* Records the answer about to be sent (status 2xx/3xx; Location is taken
 * from r->headers_out) and commits the request's transaction. NULL when
 * committed; otherwise the problem to answer instead (nothing stored: 503
 * or 500; 504 outcome-unknown when the commit was sent and its outcome
 * did not come back, the answer then being either stored with its record
 * or not at all). Another status rolls back and returns NULL. */
fs_error *formsvc_idem_record(request_rec *r, formsvc_idem *st, int status,
                              const char *content_type, const char *body);

/* Rolls back (the claim with the rest) and sends the problem. */
int formsvc_idem_problem(request_rec *r, formsvc_idem *st, fs_error *e);
/* Rolls back only (the claim with the rest). */
void formsvc_idem_release(request_rec *r, formsvc_idem *st);

#endif
