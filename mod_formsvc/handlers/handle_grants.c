/* handle_grants: GET /v1/me/grants and DELETE /v1/me/grants/{id}: what
 * each application a person authorized on the authorize page may do, and
 * taking it back. An owner key sees and revokes every grant of the
 * account; a delegate only the grants approved with a key of its own
 * revocation tree (as for clients). Revoking a grant revokes every access
 * token it issued (and their delegated tokens); its refresh tokens stop
 * working with it. */
#include "fs_json.h"
#include "fs_scope.h"
#include "fs_secret.h"
#include "fs_store_grants.h"
#include "http/audit.h"
#include "http/auth.h"
#include "http/request.h"
#include "http/response.h"
#include "http/router.h"
#include "runtime/log.h"
#include "runtime/request_ctx.h"

#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

/* GET /v1/me/grants */
static int formsvc_h_grants_list(request_rec *r, const char *const *caps) {
    (void)caps;
    formsvc_principal *who = formsvc_req_get(r)->who;
    int limit, include_revoked = 0;
    const char *after;
    fs_error *e = formsvc_paging(r, "grants", "grt_", &limit, &after);
    if (!e)
        e = formsvc_bool_arg(r, "includeRevoked", &include_revoked);
    fs_list_page page;
    if (!e)
        e = fs_store_grant_list(formsvc_store(r), who->user_id, include_revoked,
                                formsvc_tree_root(r), after, limit, &page);
    if (e)
        return formsvc_send_problem(r, e);
    return formsvc_send_page(r, "grants", &page);
}

/* DELETE /v1/me/grants/{id} */
static int formsvc_h_grants_delete(request_rec *r, const char *const *caps) {
    formsvc_principal *who = formsvc_req_get(r)->who;
    const char *json = NULL;
    fs_error *e = NULL;
    if (fs_id_valid(caps[0], "grt_"))
        e = fs_store_grant_revoke(formsvc_store(r), who->user_id, caps[0], formsvc_tree_root(r),
                                  &json);
    if (e)
        return formsvc_send_problem(r, e);
    if (!json)
        return formsvc_send_problem(r, fs_error_make(r->pool, "not-found", NULL));
    /* after the grant's row is marked (a token being issued holds it), so
     * this statement sees every token it issued; then once more, for a
     * token exchange under one of them that was in flight (it held its
     * parent, so the first pass waited for it, but could not see its
     * child): after the first pass no parent is active, so none follows */
    int n;
    if ((e = fs_store_grant_revoke_tokens(formsvc_store(r), caps[0], &n)) ||
        (e = fs_store_grant_revoke_tokens(formsvc_store(r), caps[0], &n)))
        return formsvc_send_problem(r, e);
    formsvc_audit(r, "grant.revoked", caps[0]);
    return formsvc_send_json(r, 200, json);
}

const formsvc_route formsvc_routes_grants[] = {
    {M_GET, "/v1/me/grants", formsvc_h_grants_list, FS_SC_ACCOUNT_READ, 1},
    {M_DELETE, "/v1/me/grants/{id}", formsvc_h_grants_delete, FS_SC_ACCOUNT_WRITE, 1},
    {0, NULL, NULL, 0, 0}};
