/* public_idempotency: reading Idempotency-Key records of public
 * submissions. They are written by fs_public_submit, in the same statement
 * as the submission, so a record exists exactly when its submission does.
 * And the one-time submission tokens of form pages, which an HTML post
 * uses as its Idempotency-Key. */
#include "fs_html.h"
#include "fs_idempotency.h"
#include "http/links.h"
#include "http/request.h"
#include "public/public.h"
#include "runtime/config.h"
#include "runtime/request_ctx.h"

#include <apr_strings.h>

fs_error *formsvc_public_idem_get(request_rec *r, const char *form_id, const char *key, int *found,
                                  const char **hash, int *status, const char **location,
                                  const char **body) {
    fs_idem_record *rec;
    *found = 0;
    fs_error *e = fs_store_public_idem_get(formsvc_store(r), form_id, key, &rec);
    if (e)
        return e;
    if (rec) {
        *found = 1;
        *hash = rec->request_hash;
        *status = rec->status;
        *location = rec->location;
        *body = rec->body;
    }
    return NULL;
}

/* The link a page is bound to: the request's l parameter as sent, "" when
 * there is none, "%" when it cannot be decoded (then no token matches). */
static const char *token_link(request_rec *r) {
    const char *l = NULL;
    if (formsvc_arg(r, FORMSVC_LINK_PARAM, &l))
        return "%";
    return l ? l : "";
}

const char *formsvc_form_token_new(request_rec *r, const char *form_id) {
    formsvc_srv *c = formsvc_conf(r->server);
    return fs_idem_form_token(r->pool, c->pepper, c->pepper_len, form_id, token_link(r));
}

int formsvc_form_token_valid(request_rec *r, const char *form_id, const char *token) {
    formsvc_srv *c = formsvc_conf(r->server);
    return fs_idem_form_token_valid(c->pepper, c->pepper_len, form_id, token_link(r), token);
}

void formsvc_form_token_renew(request_rec *r, const char *form_id, char *page, apr_size_t len) {
    long at = fs_html_token_at(page, len);
    const char *t = at >= 0 ? formsvc_form_token_new(r, form_id) : NULL;
    if (t && strlen(t) == FS_FORM_TOKEN_LEN)
        memcpy(page + at, t, FS_FORM_TOKEN_LEN);
    else if (at >= 0) /* no random bytes: a page whose token no post passes */
        memset(page + at, '0', FS_FORM_TOKEN_LEN);
}

int formsvc_page_state_seal(request_rec *r, const char *form_id, fs_pagestate *st,
                            const char **out) {
    formsvc_srv *c = formsvc_conf(r->server);
    st->expires = apr_time_sec(apr_time_now()) + FS_PAGESTATE_TTL_SECONDS;
    return fs_pagestate_seal(r->pool, c->pepper, c->pepper_len, form_id, token_link(r), st, out);
}

int formsvc_page_state_open(request_rec *r, const char *form_id, const char *sealed,
                            fs_pagestate *st) {
    formsvc_srv *c = formsvc_conf(r->server);
    return fs_pagestate_open(r->pool, c->pepper, c->pepper_len, form_id, token_link(r), sealed,
                             apr_time_sec(apr_time_now()), st);
}
