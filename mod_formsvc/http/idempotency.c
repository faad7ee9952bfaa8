/* idempotency: claiming keys, replaying and recording answers. */
#include "idempotency.h"
#include "fs_idempotency.h"

#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

struct formsvc_idem {
    const char *scope, *key;
    int done; /* recorded or released */
};

static int replay(request_rec *r, formsvc_idem *st, fs_rows *rs) {
    formsvc_srv *c = formsvc_conf(r->server);
    int status = atoi(FS_CELL(rs, 0, 1));
    const char *plain =
        fs_idem_open(r->pool, c->pepper, c->pepper_len, st->scope, st->key, FS_CELL(rs, 0, 3));
    const char *nl = plain ? strchr(plain, '\n') : NULL;
    if (!nl) {
        FORMSVC_LOG(r, APLOG_ERR, 10401, "idempotency record cannot be opened");
        return formsvc_send_problem(r, fs_error_make(r->pool, "internal", NULL));
    }
    const char *ctype = apr_pstrndup(r->pool, plain, (apr_size_t)(nl - plain));
    const char *body = nl + 1;
    apr_table_setn(r->headers_out, "Idempotent-Replayed", "true");
    if (FS_CELL(rs, 0, 2))
        apr_table_setn(r->headers_out, "Location", FS_CELL(rs, 0, 2));
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
        return formsvc_send_problem(r, fs_error_make(r->pool, "internal", NULL));
    fs_rows *rs;
    const char *a0[] = {NULL};
    if (formsvc_query(r, "fs_idem_purge", 0, a0, &rs)) {
        /* purging is housekeeping; the claim below reports real trouble */
    }
    const char *args[] = {scope, key, fp};
    fs_error *e = formsvc_query(r, "fs_idem_claim", 3, args, &rs);
    if (e)
        return formsvc_send_problem(r, e);
    if (rs->nrows == 1) {
        *out = st;
        return FORMSVC_IDEM_PROCEED;
    }
    const char *a2[] = {scope, key};
    if ((e = formsvc_query(r, "fs_idem_get", 2, a2, &rs)))
        return formsvc_send_problem(r, e);
    if (rs->nrows != 1) /* expired between the two statements: very rare */
        return formsvc_send_problem(
            r, fs_error_make(r->pool, "conflict",
                             "The Idempotency-Key changed state; retry the request."));
    if (strcmp(FS_CELL(rs, 0, 0), fp)) {
        e = fs_error_validation(r->pool);
        e->detail = "This Idempotency-Key was already used with a different request in the "
                    "last 24 hours; use a new key for a new request.";
        fs_error_add(r->pool, e, "", "unique",
                     "The body differs from the first request with this Idempotency-Key.");
        return formsvc_send_problem(r, e);
    }
    if (atoi(FS_CELL(rs, 0, 1)) == 0) {
        e = fs_error_make(r->pool, "conflict",
                          "A request with this Idempotency-Key is still being processed; "
                          "retry in a moment.");
        e->retry_after = 1;
        return formsvc_send_problem(r, e);
    }
    return replay(r, st, rs);
}

void formsvc_idem_release(request_rec *r, formsvc_idem *st) {
    if (!st || st->done)
        return;
    st->done = 1;
    const char *args[] = {st->scope, st->key};
    fs_rows *rs;
    if (formsvc_query(r, "fs_idem_release", 2, args, &rs))
        FORMSVC_LOG(r, APLOG_WARNING, 10402,
                    "idempotency claim not released; it lapses after a minute");
}

void formsvc_idem_record(request_rec *r, formsvc_idem *st, int status, const char *content_type,
                         const char *body) {
    if (!st || st->done)
        return;
    if (status < 200 || status >= 400) {
        formsvc_idem_release(r, st);
        return;
    }
    formsvc_srv *c = formsvc_conf(r->server);
    const char *plain =
        apr_pstrcat(r->pool, content_type ? content_type : "", "\n", body ? body : "", NULL);
    const char *sealed = fs_idem_seal(r->pool, c->pepper, c->pepper_len, st->scope, st->key, plain);
    if (!sealed) {
        formsvc_idem_release(r, st);
        return;
    }
    const char *args[] = {apr_itoa(r->pool, status), apr_table_get(r->headers_out, "Location"),
                          sealed, st->scope, st->key};
    fs_rows *rs;
    st->done = 1;
    if (formsvc_query(r, "fs_idem_store", 5, args, &rs) || rs->nrows != 1) {
        FORMSVC_LOG(r, APLOG_WARNING, 10403, "idempotency record not stored");
        st->done = 0;
        formsvc_idem_release(r, st);
    }
}

int formsvc_idem_problem(request_rec *r, formsvc_idem *st, fs_error *e) {
    formsvc_idem_release(r, st);
    return formsvc_send_problem(r, e);
}
