/* idempotency: claiming keys, replaying and recording answers. */
#include "http/idempotency.h"
#include "fs_idempotency.h"
#include "fs_store_files.h"
#include "fs_store_forms.h"
#include "http/auth.h"
#include "http/response.h"
#include "runtime/config.h"
#include "runtime/log.h"
#include "runtime/request_ctx.h"

#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

struct formsvc_idem {
    const char *scope, *key;
    fs_tx *tx; /* the transaction of the claim, the work and the answer;
                * NULL once committed or rolled back */
};

static int replay(request_rec *r, formsvc_idem *st, const fs_idem_record *rec) {
    formsvc_srv *c = formsvc_conf(r->server);
    int status = rec->status;
    const char *plain =
        fs_idem_open(r->pool, c->pepper, c->pepper_len, st->scope, st->key, rec->body);
    const char *nl = plain ? strchr(plain, '\n') : NULL;
    if (!nl)
        return formsvc_send_problem(
            r, fs_error_internal(r->pool, "the Idempotency-Key record cannot be opened (was the "
                                          "pepper changed?)"));
    const char *ctype = apr_pstrndup(r->pool, plain, (apr_size_t)(nl - plain));
    const char *body = nl + 1;
    apr_table_setn(r->headers_out, "Idempotent-Replayed", "true");
    if (rec->location)
        apr_table_setn(r->headers_out, "Location", rec->location);
    apr_table_setn(r->headers_out, "Cache-Control", "no-store");
    apr_table_setn(r->headers_out, "X-Content-Type-Options", "nosniff");
    return formsvc_send_body(r, status, *ctype ? ctype : NULL, body, strlen(body));
}

int formsvc_idem_begin(request_rec *r, const char *scope, const char *body, apr_size_t len,
                       formsvc_idem **out) {
    *out = NULL;
    const char *key = apr_table_get(r->headers_in, "Idempotency-Key");
    if (!key)
        return FORMSVC_IDEM_PROCEED;
    if (!fs_idem_key_valid(key))
        return formsvc_send_problem(
            r, fs_error_make(r->pool, "malformed-request",
                             "Idempotency-Key must be 1 to 255 visible ASCII characters."));
    /* /v1 records belong to the credential that made them (api.md 3), so
     * a replay never hands one credential another's answer (a secret) */
    formsvc_principal *who = formsvc_req_get(r)->who;
    if (who)
        scope = who->key_id;
    formsvc_idem *st = apr_pcalloc(r->pool, sizeof(*st));
    st->scope = scope;
    st->key = key;
    const char *path = formsvc_req_get(r)->path;
    const char *fp = fs_idem_fingerprint(r->pool, r->method, path ? path : r->uri, body, len);
    if (!fp)
        return formsvc_send_problem(
            r, fs_error_internal(r->pool, "the request's fingerprint cannot be computed"));
    fs_store *store = formsvc_store(r);
    if (fs_store_idem_purge(store)) {
        /* purging is housekeeping (outside the transaction: its row locks
         * would be held to the end of the request); the claim below
         * reports real trouble */
    }
    /* The claim, the work and the answer's record commit together or not
     * at all: a claim is seen by others only with the answer it led to,
     * and a request that fails, or whose session dies, leaves nothing
     * behind that could block the key. */
    fs_error *e = fs_store_tx_begin(store, r->pool, &st->tx);
    if (e)
        return formsvc_send_problem(r, e);
    int claimed;
    if ((e = fs_store_idem_claim(store, scope, key, fp, &claimed))) {
        fs_store_tx_rollback(st->tx);
        return formsvc_send_problem(r, e);
    }
    if (claimed) {
        *out = st;
        return FORMSVC_IDEM_PROCEED;
    }
    fs_store_tx_rollback(st->tx);
    st->tx = NULL;
    fs_idem_record *rec;
    if ((e = fs_store_idem_get(store, scope, key, &rec)))
        return formsvc_send_problem(r, e);
    if (rec && strcmp(rec->request_hash, fp)) {
        e = fs_error_validation(r->pool);
        e->detail = "This Idempotency-Key was already used with a different request in the "
                    "last 24 hours; use a new key for a new request.";
        fs_error_add(r->pool, e, "", "unique",
                     "The body differs from the first request with this Idempotency-Key.");
        return formsvc_send_problem(r, e);
    }
    /* no record: another request with the key holds it and has not
     * committed yet (or one just expired); status 0: a claim committed
     * alone by an earlier release's module */
    if (!rec || rec->status == 0) {
        e = fs_error_make(r->pool, "conflict",
                          "A request with this Idempotency-Key is still being processed; "
                          "retry in a moment.");
        e->retry_after = 1;
        return formsvc_send_problem(r, e);
    }
    return replay(r, st, rec);
}

void formsvc_idem_release(request_rec *r, formsvc_idem *st) {
    (void)r;
    if (!st || !st->tx)
        return;
    fs_store_tx_rollback(st->tx); /* the claim goes with everything else */
    st->tx = NULL;
}

fs_error *formsvc_idem_record(request_rec *r, formsvc_idem *st, int status,
                              const char *content_type, const char *body) {
    if (!st || !st->tx)
        return NULL;
    if (status < 200 || status >= 400) {
        formsvc_idem_release(r, st);
        return NULL;
    }
    formsvc_srv *c = formsvc_conf(r->server);
    const char *plain =
        apr_pstrcat(r->pool, content_type ? content_type : "", "\n", body ? body : "", NULL);
    const char *sealed = fs_idem_seal(r->pool, c->pepper, c->pepper_len, st->scope, st->key, plain);
    fs_error *e = NULL;
    int stored = 0;
    if (!sealed)
        e = fs_error_internal(r->pool, "the Idempotency-Key record cannot be sealed");
    else if (!(e = fs_store_idem_store(formsvc_store(r), st->scope, st->key, status,
                                       apr_table_get(r->headers_out, "Location"), sealed,
                                       &stored)) &&
             !stored)
        e = fs_error_internal(r->pool, "the Idempotency-Key claim is gone from its transaction");
    if (!e) {
        e = fs_store_tx_commit(st->tx);
        st->tx = NULL;
    }
    if (e) {
        formsvc_idem_release(r, st); /* nothing of the request is stored (or 504) */
        /* the problem goes out instead of the answer, without its headers */
        apr_table_unset(r->headers_out, "Location");
        apr_table_unset(r->headers_out, "ETag");
    }
    return e;
}

int formsvc_idem_problem(request_rec *r, formsvc_idem *st, fs_error *e) {
    formsvc_idem_release(r, st);
    return formsvc_send_problem(r, e);
}
