/* handle_audit: GET /v1/audit, the audit trail (written by audit.c),
 * paged, filtered by ?actor= and ?credential=. */
#include "fs_json.h"
#include "fs_secret.h"
#include "fs_store_oauth.h"
#include "fs_util.h"
#include "http/auth.h"
#include "http/forms_access.h"
#include "http/request.h"
#include "http/response.h"
#include "http/router.h"
#include "runtime/request_ctx.h"

#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

static int formsvc_h_audit_list(request_rec *r, const char *const *caps) {
    (void)caps;
    int limit;
    const char *after;
    fs_error *e = formsvc_paging(r, "audit", "aud_", &limit, &after);
    if (e)
        return formsvc_send_problem(r, e);
    const char *actor, *cred;
    if ((e = formsvc_arg(r, "actor", &actor)) || (e = formsvc_arg(r, "credential", &cred)))
        return formsvc_send_problem(r, e);
    fs_error *verr = fs_error_validation(r->pool);
    if (actor && (!fs_utf8_valid(actor, strlen(actor)) || fs_utf8_length(actor) < 1 ||
                  fs_utf8_length(actor) > 100 || fs_has_control(actor)))
        fs_error_add(r->pool, verr, "/actor", "pattern",
                     "actor is a label of 1 to 100 characters.");
    if (cred && !fs_id_valid(cred, "key_") && !fs_id_valid(cred, "cli_"))
        fs_error_add(r->pool, verr, "/credential", "pattern",
                     "credential is a key id (key_...) or a client id (cli_...).");
    if (verr->errors)
        return formsvc_send_problem(r, verr);
    /* a form-scoped credential reads only the records about its forms */
    const char *forms = formsvc_form_constraints(r);
    fs_list_page page;
    if ((e = fs_store_audit_list(formsvc_store(r), formsvc_req_get(r)->who->user_id, actor, cred,
                                 forms, after, limit, &page)))
        return formsvc_send_problem(r, e);
    return formsvc_send_page(r, "audit", &page);
}

const formsvc_route formsvc_routes_audit[] = {
    {M_GET, "/v1/audit", formsvc_h_audit_list, FS_SC_ACCOUNT_READ, 1}, {0, NULL, NULL, 0, 0}};
