/* request_id: see request_id.h. */
#include "runtime/request_id.h"
#include "fs_util.h"
#include "runtime/config.h"

#include <http_protocol.h>
#include <http_request.h>

#define NOTE "formsvc-request-id"

const char *formsvc_request_id(request_rec *r) {
    for (; r; r = r->main ? r->main : r->prev) {
        const char *id = apr_table_get(r->notes, NOTE);
        if (id)
            return id;
    }
    return NULL;
}

/* Runs for every request read from a client and for internal redirects
 * (which keep the id of the request they continue). */
int formsvc_request_id_assign(request_rec *r) {
    if (!formsvc_conf(r->server)->enabled)
        return DECLINED;
    const char *id = r->prev ? formsvc_request_id(r->prev) : NULL;
    if (!id)
        id = apr_table_get(r->subprocess_env, "UNIQUE_ID"); /* mod_unique_id */
    if (!id)
        id = r->log_id; /* already made for an error-log line (%L) */
    if (!id) {
        unsigned char raw[15];
        ap_random_insecure_bytes(raw, sizeof raw); /* an id, not a secret */
        id = fs_b64url_encode(r->pool, raw, sizeof raw);
    }
    apr_table_setn(r->notes, NOTE, id);
    if (!r->log_id)
        r->log_id = id;
    /* err_headers_out: kept on error answers and internal redirects */
    apr_table_setn(r->err_headers_out, "X-Request-Id", id);
    return DECLINED;
}
