/* links: respondent links' tokens and URLs, and prefill (links.h). */
#include "http/links.h"
#include "fs_coerce.h"
#include "fs_idempotency.h"
#include "fs_json.h"
#include "fs_link.h"
#include "fs_secret.h"
#include "fs_store_links.h"
#include "fs_urlencoded.h"
#include "http/request.h"
#include "runtime/config.h"
#include "runtime/request_ctx.h"

#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

/* the seal's scope: a token is sealed under a key of its own */
#define SEAL_SCOPE "link-token"

const char *formsvc_link_token_hash(request_rec *r, const char *token) {
    formsvc_srv *c = formsvc_conf(r->server);
    return fs_secret_hash(r->pool, c->pepper, c->pepper_len, token);
}

const char *formsvc_link_seal(request_rec *r, const char *link_id, const char *token) {
    formsvc_srv *c = formsvc_conf(r->server);
    return fs_idem_seal(r->pool, c->pepper, c->pepper_len, SEAL_SCOPE, link_id, token);
}

const char *formsvc_link_open(request_rec *r, const char *link_id, const char *sealed) {
    formsvc_srv *c = formsvc_conf(r->server);
    return fs_idem_open(r->pool, c->pepper, c->pepper_len, SEAL_SCOPE, link_id, sealed);
}

const char *formsvc_link_url(request_rec *r, const char *ref, const char *token) {
    /* tokens are base62 after their prefix: nothing to escape */
    return apr_pstrcat(r->pool, formsvc_base_url(r), "/f/", ref, "?" FORMSVC_LINK_PARAM "=", token,
                       NULL);
}

fs_error *formsvc_link_from_request(request_rec *r, const char *form_id, formsvc_link **out) {
    const char *token;
    *out = NULL;
    fs_error *e = formsvc_arg(r, FORMSVC_LINK_PARAM, &token);
    if (e || !token)
        return e;
    /* a malformed token never reaches the database */
    fs_link_public *l = NULL;
    if (fs_link_token_well_formed(token) &&
        (e = fs_store_link_find(formsvc_store(r), form_id, formsvc_link_token_hash(r, token), &l)))
        return e;
    if (!l)
        return fs_error_make(r->pool, "not-found", "This link does not belong to this form.");
    if (!strcmp(l->state, "expired"))
        return fs_error_make(r->pool, "link-expired",
                             "This link has expired or was withdrawn by the form's owner.");
    if (!strcmp(l->state, "used"))
        return fs_error_make(r->pool, "link-used",
                             "This link has already been used as many times as it allows.");
    formsvc_link *k = apr_pcalloc(r->pool, sizeof(*k));
    k->id = l->id;
    k->token = token;
    k->prefill = fs_json_parse_trusted(r->pool, l->prefill);
    k->ask_id = l->ask_id;
    *out = k;
    return NULL;
}

json_object *formsvc_prefill_values(request_rec *r, const fs_fieldset *fs,
                                    const formsvc_link *link) {
    json_object *o = fs_json_own(r->pool, json_object_new_object());
    apr_array_header_t *pairs;
    json_object *all = NULL;
    int spam;
    if (r->args && *r->args && !fs_urlencoded_parse(r->pool, r->args, strlen(r->args), &pairs) &&
        !fs_coerce(r->pool, fs, pairs, 0, &all, &spam) && all) {
        /* only what the query names: fs_coerce also answers false for
         * optional booleans left out */
        for (int i = 0; i < pairs->nelts; i++) {
            const fs_pair *pr = &APR_ARRAY_IDX(pairs, i, fs_pair);
            json_object *v;
            if (!fs_fieldset_find(fs, pr->name) || !json_object_object_get_ex(all, pr->name, &v) ||
                json_object_object_get_ex(o, pr->name, NULL))
                continue;
            /* the link's own parameter is no answer */
            if (!strcmp(pr->name, FORMSVC_LINK_PARAM) && fs_link_token_well_formed(pr->value))
                continue;
            json_object_object_add(o, pr->name, json_object_get(v));
        }
    }
    if (link && link->prefill) {
        json_object_object_foreach(link->prefill, k, v) {
            json_object_object_add(o, k, json_object_get(v));
        }
    }
    return o;
}

int formsvc_link_personal(request_rec *r, int json) {
    if (!r->args || !*r->args)
        return 0;
    if (!json)
        return 1;
    for (const char *a = r->args; a; a = strchr(a, '&'), a = a ? a + 1 : NULL)
        if (!strncmp(a, FORMSVC_LINK_PARAM "=", sizeof(FORMSVC_LINK_PARAM)))
            return 1;
    return 0;
}
