/* handle_clients: /v1/clients: register, list, get, delete (revoking every
 * access token of the client and whatever was delegated from them). */
#include "fs_json.h"
#include "fs_secret.h"
#include "fs_store_oauth.h"
#include "fs_util.h"
#include "http/audit.h"
#include "http/auth.h"
#include "http/forms_access.h"
#include "http/quota.h"
#include "http/request.h"
#include "http/response.h"
#include "http/router.h"
#include "runtime/config.h"
#include "runtime/request_ctx.h"

#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

static fs_error *no_such_client(request_rec *r) {
    return fs_error_make(r->pool, "not-found", "No such client.");
}

static int formsvc_h_clients_create(request_rec *r, const char *const *caps) {
    (void)caps;
    json_object *body;
    fs_error *e = formsvc_read_json(r, 1, &body);
    if (e)
        return formsvc_send_problem(r, e);
    formsvc_principal *who = formsvc_req_get(r)->who;
    fs_error *verr = fs_error_validation(r->pool);
    static const char *const allowed[] = {"name", "scopes", NULL};
    fs_json_unknown_members(r->pool, body, allowed, verr);
    const char *name = NULL;
    json_object *nv = fs_json_get(body, "name");
    if (nv && !json_object_is_type(nv, json_type_null)) {
        if (!json_object_is_type(nv, json_type_string))
            fs_error_add(r->pool, verr, "/name", "type", "name must be a string.");
        else {
            const char *n = json_object_get_string(nv);
            apr_size_t len = fs_utf8_length(n);
            if (len < 1)
                fs_error_add(r->pool, verr, "/name", "minLength", "name must not be empty.");
            else if (len > 100)
                fs_error_add(r->pool, verr, "/name", "maxLength",
                             "name has at most 100 characters.");
            else if (fs_has_control(n))
                fs_error_add(r->pool, verr, "/name", "pattern",
                             "name must not contain control characters.");
            else
                name = n;
        }
    }
    json_object *sv = NULL;
    fs_scopes *scopes;
    if (!json_object_object_get_ex(body, "scopes", &sv))
        scopes = who->scopes; /* omitted: the caller's own */
    else                      /* null: full access (subject to the subset rule) */
        scopes = fs_scopes_from_json(r->pool, sv, "/scopes", 1, verr);
    if ((e = formsvc_scope_forms_exist(r, sv, verr)))
        return formsvc_send_problem(r, e);
    if (verr->errors)
        return formsvc_send_problem(r, verr);
    const char *missing;
    if (!fs_scopes_subset(r->pool, scopes, who->scopes, &missing))
        return formsvc_send_problem(
            r, formsvc_scope_problem(r, missing,
                                     "A credential cannot register a client broader than "
                                     "itself: it does not hold %s.",
                                     missing));
    formsvc_srv *c = formsvc_conf(r->server);
    int limit = c->tier[who->verified ? 1 : 0].clients;
    const char *cid = fs_id_new(r->pool, "cli_");
    const char *secret = fs_secret_generate(r->pool, c->client_prefix);
    if (!cid || !secret)
        return formsvc_send_problem(
            r, fs_error_internal(r->pool, "no random bytes for a new client's id or secret"));
    json_object *sj = fs_scopes_to_json(scopes);
    const char *sjs = sj ? fs_json_str(r->pool, fs_json_own(r->pool, sj)) : NULL;
    fs_new_client nc = {{cid, fs_secret_display_prefix(r->pool, secret),
                         fs_secret_hash(r->pool, c->pepper, c->pepper_len, secret)},
                        who->user_id,
                        name,
                        sjs,
                        who->key_id};
    const char *made;
    if ((e = fs_store_client_create(formsvc_store(r), &nc, limit, &made)))
        return formsvc_send_problem(r, e);
    if (!made) {
        int active;
        if ((e = fs_store_client_count_active(formsvc_store(r), who->user_id, &active)))
            return formsvc_send_problem(r, e);
        return formsvc_send_problem(
            r, formsvc_quota_exceeded(r, "clients", limit, apr_itoa(r->pool, active)));
    }
    formsvc_audit(r, "client.created", cid);
    json_object *out = fs_json_own(r->pool, json_tokener_parse(made));
    json_object_object_add(out, "secret", json_object_new_string(secret));
    apr_table_setn(r->headers_out, "Location",
                   apr_pstrcat(r->pool, formsvc_base_url(r), "/v1/clients/", cid, NULL));
    return formsvc_send_obj(r, 201, out);
}

static int formsvc_h_clients_list(request_rec *r, const char *const *caps) {
    (void)caps;
    int limit;
    const char *after;
    fs_error *e = formsvc_paging(r, "clients", "cli_", &limit, &after);
    if (e)
        return formsvc_send_problem(r, e);
    int inc;
    if ((e = formsvc_bool_arg(r, "includeRevoked", &inc)))
        return formsvc_send_problem(r, e);
    fs_list_page page;
    if ((e = fs_store_client_list(formsvc_store(r), formsvc_req_get(r)->who->user_id, inc, after,
                                  limit, &page)))
        return formsvc_send_problem(r, e);
    return formsvc_send_page(r, "clients", &page);
}

/* Loads a client of the caller's account; 404 when missing or foreign. */
static fs_error *load_client(request_rec *r, const char *id, fs_client_row **c) {
    *c = NULL;
    if (!fs_id_valid(id, "cli_"))
        return no_such_client(r);
    fs_error *e = fs_store_client_get(formsvc_store(r), formsvc_req_get(r)->who->user_id, id, c);
    if (e)
        return e;
    if (!*c)
        return no_such_client(r);
    return NULL;
}

static int formsvc_h_clients_get(request_rec *r, const char *const *caps) {
    fs_client_row *cl;
    fs_error *e = load_client(r, caps[0], &cl);
    if (e)
        return formsvc_send_problem(r, e);
    return formsvc_send_json(r, 200, cl->json);
}

static int formsvc_h_clients_delete(request_rec *r, const char *const *caps) {
    fs_client_row *cl;
    fs_error *e = load_client(r, caps[0], &cl);
    if (e)
        return formsvc_send_problem(r, e);
    /* a caller may delete only clients no broader than itself */
    fs_error *verr = fs_error_validation(r->pool);
    fs_scopes *target =
        fs_scopes_from_json(r->pool, fs_json_parse_trusted(r->pool, cl->scopes_json), "", 0, verr);
    const char *missing;
    if (!target)
        return formsvc_send_problem(
            r, fs_error_internal(r->pool, "the stored scopes of %s cannot be read", caps[0]));
    if (!fs_scopes_subset(r->pool, target, formsvc_req_get(r)->who->scopes, &missing))
        return formsvc_send_problem(
            r, formsvc_scope_problem(
                   r, missing, "This client is broader than the calling credential (it holds %s).",
                   missing));
    int was_active = cl->active;
    const char *json;
    if ((e = fs_store_client_revoke(formsvc_store(r), formsvc_req_get(r)->who->user_id, caps[0],
                                    formsvc_tree_root(r), &json)))
        return formsvc_send_problem(r, e);
    if (!json)
        return formsvc_send_problem(r, no_such_client(r));
    /* A separate statement, after the client is marked: see
     * fs_store_client_revoke. Run again on every DELETE, so a retry after
     * a failure here finishes the job. */
    if ((e = fs_store_client_revoke_tokens(formsvc_store(r), caps[0], NULL)))
        return formsvc_send_problem(r, e);
    if (was_active)
        formsvc_audit(r, "client.deleted", caps[0]);
    return formsvc_send_json(r, 200, json);
}

const formsvc_route formsvc_routes_clients[] = {
    {M_POST, "/v1/clients", formsvc_h_clients_create, FS_SC_CLIENTS_WRITE, 1},
    {M_GET, "/v1/clients", formsvc_h_clients_list, FS_SC_CLIENTS_READ, 1},
    {M_GET, "/v1/clients/{id}", formsvc_h_clients_get, FS_SC_CLIENTS_READ, 1},
    {M_DELETE, "/v1/clients/{id}", formsvc_h_clients_delete, FS_SC_CLIENTS_WRITE, 1},
    {0, NULL, NULL, 0, 0}};
