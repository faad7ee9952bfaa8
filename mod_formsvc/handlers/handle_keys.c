/* handle_keys: /v1/keys: list, create, get, revoke (cascading), roll. */
#include "fs_json.h"
#include "fs_oauth.h"
#include "fs_secret.h"
#include "fs_store_account.h"
#include "fs_store_oauth.h"
#include "fs_util.h"
#include "http/audit.h"
#include "http/auth.h"
#include "http/forms_access.h"
#include "http/idempotency.h"
#include "http/quota.h"
#include "http/request.h"
#include "http/response.h"
#include "http/router.h"
#include "runtime/config.h"
#include "runtime/request_ctx.h"

#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

static int not_found(request_rec *r) {
    return formsvc_send_problem(r, fs_error_make(r->pool, "not-found", "No such key."));
}

static int formsvc_h_keys_list(request_rec *r, const char *const *caps) {
    (void)caps;
    int limit;
    const char *after;
    fs_error *e = formsvc_paging(r, "keys", "key_", &limit, &after);
    if (e)
        return formsvc_send_problem(r, e);
    int inc;
    if ((e = formsvc_bool_arg(r, "includeRevoked", &inc)))
        return formsvc_send_problem(r, e);
    const char *tree = formsvc_tree_root(r); /* a delegate lists its own tree */
    fs_list_page page;
    if ((e = fs_store_key_list(formsvc_store(r), formsvc_req_get(r)->who->user_id, inc, after, tree,
                               limit, &page)))
        return formsvc_send_problem(r, e);
    return formsvc_send_page(r, "keys", &page);
}

/* Validates name, scopes and expiresAt of a new credential against the
 * caller; fills the outputs or returns a problem (422 or 403). */
static fs_error *formsvc_key_request(request_rec *r, json_object *body, const char **name,
                                     fs_scopes **scopes, const char **expires_at) {
    formsvc_principal *who = formsvc_req_get(r)->who;
    fs_error *verr = fs_error_validation(r->pool);
    json_object *nv = fs_json_get(body, "name");
    *name = NULL;
    if (!nv)
        fs_error_add(r->pool, verr, "/name", "required", "name is required.");
    else
        *name = fs_json_text(r->pool, nv, "/name", "name", 1, 100, 0, verr);
    json_object *sv = NULL;
    *scopes = NULL;
    if (!json_object_object_get_ex(body, "scopes", &sv))
        *scopes = who->scopes; /* omitted: the caller's own */
    else if (!sv)
        *scopes = fs_scopes_full(r->pool); /* explicit null: full access */
    else
        *scopes = fs_scopes_from_json(r->pool, sv, "/scopes", 1, verr);
    json_object *xv = fs_json_get(body, "expiresAt");
    *expires_at = NULL;
    if (xv && !json_object_is_type(xv, json_type_null)) {
        apr_time_t t;
        if (!json_object_is_type(xv, json_type_string))
            fs_error_add(r->pool, verr, "/expiresAt", "type",
                         "expiresAt must be an RFC 3339 timestamp string or null.");
        else if (!fs_time_parse_rfc3339(json_object_get_string(xv), &t))
            fs_error_add(r->pool, verr, "/expiresAt", "format",
                         "expiresAt must be an RFC 3339 timestamp such as 2027-01-01T00:00:00Z.");
        else if (t <= apr_time_now())
            fs_error_add(r->pool, verr, "/expiresAt", "minimum",
                         "expiresAt must be in the future.");
        else if (who->expires && apr_time_sec(t) > who->expires)
            fs_error_add(r->pool, verr, "/expiresAt", "maximum",
                         "expiresAt is later than the calling credential's own expiry.");
        else
            *expires_at = fs_time_format(r->pool, t);
    } else if (who->expires) {
        /* a child never outlives its parent */
        *expires_at = fs_time_format(r->pool, apr_time_from_sec(who->expires));
    }
    fs_error *e = formsvc_scope_forms_exist(r, sv, verr);
    if (e)
        return e;
    if (verr->errors)
        return verr;
    const char *missing;
    if (!fs_scopes_subset(r->pool, *scopes, who->scopes, &missing))
        return formsvc_scope_problem(r, missing,
                                     "A credential cannot mint one broader than itself: "
                                     "it does not hold %s.",
                                     missing);
    return NULL;
}

static int formsvc_h_keys_create(request_rec *r, const char *const *caps) {
    (void)caps;
    json_object *body;
    fs_error *e = formsvc_read_json(r, 0, &body);
    if (e)
        return formsvc_send_problem(r, e);
    static const char *const allowed[] = {"name", "scopes", "expiresAt", NULL};
    const char *name, *expires;
    fs_scopes *scopes;
    formsvc_principal *who = formsvc_req_get(r)->who;
    const char *canon = fs_json_str(r->pool, body);
    formsvc_idem *idem;
    int rc = formsvc_idem_begin(r, who->key_id, canon, strlen(canon), &idem);
    if (rc != FORMSVC_IDEM_PROCEED)
        return rc;
    e = formsvc_key_request(r, body, &name, &scopes, &expires);
    if (e) {
        if (e->status == 422)
            fs_json_unknown_members(r->pool, body, allowed, e);
        return formsvc_idem_problem(r, idem, e);
    }
    fs_error *verr = fs_error_validation(r->pool);
    fs_json_unknown_members(r->pool, body, allowed, verr);
    if (verr->errors)
        return formsvc_idem_problem(r, idem, verr);
    formsvc_srv *c = formsvc_conf(r->server);
    int limit = c->tier[who->verified ? 1 : 0].keys;
    const char *kid = fs_id_new(r->pool, "key_");
    const char *secret = fs_secret_generate(r->pool, c->key_prefix);
    if (!kid || !secret)
        return formsvc_idem_problem(
            r, idem, fs_error_internal(r->pool, "no random bytes for a new key's id or secret"));
    json_object *sj = fs_scopes_to_json(scopes);
    const char *sjs = sj ? fs_json_str(r->pool, fs_json_own(r->pool, sj)) : NULL;
    fs_new_secret ks = {kid, fs_secret_display_prefix(r->pool, secret),
                        fs_secret_hash(r->pool, c->pepper, c->pepper_len, secret)};
    const char *made;
    if (formsvc_principal_is_owner(who)) {
        /* an owner key makes an account key: no parent */
        fs_new_key k = {ks, who->user_id, name, sjs, expires};
        if ((e = fs_store_key_create(formsvc_store(r), &k, limit, &made)))
            return formsvc_idem_problem(r, idem, e);
    } else {
        /* A delegate's key is its child, in its revocation tree: made by
         * the token exchange statement, which holds the caller FOR SHARE so
         * that a revocation in progress finishes first and sweeps it. */
        if (who->depth + 1 > FS_OAUTH_MAX_DEPTH) {
            fs_error *derr = fs_error_validation(r->pool);
            fs_error_add(r->pool, derr, "", "maximum",
                         "A key made by this credential would be a delegation of depth %d; "
                         "the limit is %d.",
                         who->depth + 1, FS_OAUTH_MAX_DEPTH);
            return formsvc_idem_problem(r, idem, derr);
        }
        fs_new_delegate d = {ks, who->key_id, name, sjs, expires, who->actor, who->depth + 1};
        if ((e = fs_store_token_exchange(formsvc_store(r), &d, limit, &made)))
            return formsvc_idem_problem(r, idem, e);
    }
    if (!made) {
        int active;
        if ((e = fs_store_key_count_active(formsvc_store(r), who->user_id, &active)))
            return formsvc_idem_problem(r, idem, e);
        if (!formsvc_principal_is_owner(who) && active < limit)
            return formsvc_idem_problem(
                r, idem,
                fs_error_make(r->pool, "invalid-state",
                              "The calling credential was revoked or expired."));
        return formsvc_idem_problem(
            r, idem, formsvc_quota_exceeded(r, "keys", limit, apr_itoa(r->pool, active)));
    }
    formsvc_audit(r, "key.created", kid);
    json_object *key = fs_json_own(r->pool, json_tokener_parse(made));
    json_object_object_add(key, "secret", json_object_new_string(secret));
    apr_table_setn(r->headers_out, "Location",
                   apr_pstrcat(r->pool, formsvc_base_url(r), "/v1/keys/", kid, NULL));
    const char *out = fs_json_str(r->pool, key);
    if ((e = formsvc_idem_record(r, idem, 201, "application/json", out)))
        return formsvc_send_problem(r, e); /* the key is not stored, or 504 */
    return formsvc_send_json(r, 201, out);
}

/* Loads a key the caller may see: any key of the account for an owner
 * key, the caller itself and its revocation tree for a delegate; 404 when
 * missing, foreign or outside the tree (as for form: constraints, a
 * delegate cannot tell those apart). */
static fs_error *load_key(request_rec *r, const char *id, fs_key_row **k) {
    *k = NULL;
    if (!fs_id_valid(id, "key_"))
        return fs_error_make(r->pool, "not-found", "No such key.");
    fs_error *e = fs_store_key_get(formsvc_store(r), formsvc_req_get(r)->who->user_id, id,
                                   formsvc_tree_root(r), k);
    if (e)
        return e;
    if (!*k)
        return fs_error_make(r->pool, "not-found", "No such key.");
    return NULL;
}

/* A caller may revoke or roll only keys no broader than itself. */
static fs_error *may_manage(request_rec *r, const char *scopes_json) {
    fs_error *verr = fs_error_validation(r->pool);
    fs_scopes *target =
        fs_scopes_from_json(r->pool, fs_json_parse_trusted(r->pool, scopes_json), "", 0, verr);
    const char *missing;
    if (!target)
        return fs_error_internal(r->pool, "the stored scopes of a key cannot be read");
    if (!fs_scopes_subset(r->pool, target, formsvc_req_get(r)->who->scopes, &missing))
        return formsvc_scope_problem(r, missing,
                                     "This key is broader than the calling credential "
                                     "(it holds %s).",
                                     missing);
    return NULL;
}

static int formsvc_h_keys_get(request_rec *r, const char *const *caps) {
    fs_key_row *k;
    fs_error *e = load_key(r, caps[0], &k);
    if (e)
        return e->status == 404 ? not_found(r) : formsvc_send_problem(r, e);
    return formsvc_send_json(r, 200, k->json);
}

static int formsvc_h_keys_revoke(request_rec *r, const char *const *caps) {
    fs_key_row *k;
    fs_error *e = load_key(r, caps[0], &k);
    if (!e)
        e = may_manage(r, k->scopes_json);
    if (e)
        return formsvc_send_problem(r, e);
    const char *json;
    if ((e = fs_store_key_revoke(formsvc_store(r), formsvc_req_get(r)->who->user_id, caps[0],
                                 &json)))
        return formsvc_send_problem(r, e);
    if (!json)
        return not_found(r);
    if ((e = fs_store_key_revoke_sweep(formsvc_store(r), caps[0], NULL)))
        return formsvc_send_problem(r, e);
    formsvc_audit(r, "key.revoked", caps[0]);
    return formsvc_send_json(r, 200, json);
}

static int formsvc_h_keys_roll(request_rec *r, const char *const *caps) {
    json_object *body;
    fs_error *e = formsvc_read_json(r, 1, &body);
    if (e)
        return formsvc_send_problem(r, e);
    fs_error *verr = fs_error_validation(r->pool);
    static const char *const allowed[] = {"expiresIn", NULL};
    fs_json_unknown_members(r->pool, body, allowed, verr);
    long long grace = 86400;
    json_object *gv = fs_json_get(body, "expiresIn");
    if (gv) {
        if (!json_object_is_type(gv, json_type_int))
            fs_error_add(r->pool, verr, "/expiresIn", "type", "expiresIn is an integer (seconds).");
        else {
            grace = json_object_get_int64(gv);
            if (grace < 0 || grace > 7 * 86400)
                fs_error_add(r->pool, verr, "/expiresIn", grace < 0 ? "minimum" : "maximum",
                             "expiresIn is from 0 to 604800 seconds (7 days).");
        }
    }
    if (verr->errors)
        return formsvc_send_problem(r, verr);
    fs_key_row *k;
    e = load_key(r, caps[0], &k);
    if (!e)
        e = may_manage(r, k->scopes_json);
    if (e)
        return formsvc_send_problem(r, e);
    if (!k->active)
        return formsvc_send_problem(
            r, fs_error_make(r->pool, "invalid-state",
                             "Only an active key can be rolled; this one is revoked or expired."));
    if (k->rolled)
        return formsvc_send_problem(
            r, fs_error_make(r->pool, "invalid-state",
                             "This key was already rolled; roll its successor instead."));
    formsvc_srv *c = formsvc_conf(r->server);
    formsvc_principal *who = formsvc_req_get(r)->who;
    const char *kid = fs_id_new(r->pool, "key_");
    const char *secret = fs_secret_generate(r->pool, c->key_prefix);
    if (!kid || !secret)
        return formsvc_send_problem(
            r, fs_error_internal(r->pool, "no random bytes for a new key's id or secret"));
    fs_new_secret next = {kid, fs_secret_display_prefix(r->pool, secret),
                          fs_secret_hash(r->pool, c->pepper, c->pepper_len, secret)};
    const char *json;
    /* who->key_id: the new key never outlives the caller */
    if ((e = fs_store_key_roll(formsvc_store(r), who->user_id, caps[0], who->key_id, grace, &next,
                               &json)))
        return formsvc_send_problem(r, e);
    if (!json)
        return formsvc_send_problem(
            r, fs_error_make(r->pool, "invalid-state",
                             "The key was rolled or revoked meanwhile, or what it was delegated "
                             "from is gone; it cannot be rolled."));
    formsvc_audit(r, "key.rolled", caps[0]);
    json_object *key = fs_json_own(r->pool, json_tokener_parse(json));
    json_object_object_add(key, "secret", json_object_new_string(secret));
    apr_table_setn(r->headers_out, "Location",
                   apr_pstrcat(r->pool, formsvc_base_url(r), "/v1/keys/", kid, NULL));
    return formsvc_send_obj(r, 201, key);
}

const formsvc_route formsvc_routes_keys[] = {
    {M_GET, "/v1/keys", formsvc_h_keys_list, FS_SC_KEYS_READ, 1},
    {M_POST, "/v1/keys", formsvc_h_keys_create, FS_SC_KEYS_WRITE, 1},
    {M_GET, "/v1/keys/{id}", formsvc_h_keys_get, FS_SC_KEYS_READ, 1},
    {M_DELETE, "/v1/keys/{id}", formsvc_h_keys_revoke, FS_SC_KEYS_WRITE, 1},
    {M_POST, "/v1/keys/{id}/roll", formsvc_h_keys_roll, FS_SC_KEYS_WRITE, 1},
    {0, NULL, NULL, 0, 0}};
