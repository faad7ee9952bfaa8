/* handle_erasures: POST /v1/erasures {"email": ...}, a respondent's
 * erasure request that the owner received (docs/privacy.md): every
 * submission of the account's forms whose email field answers that
 * address goes, with its files. */
#include "fs_json.h"
#include "fs_secret.h"
#include "fs_store_account.h"
#include "fs_util.h"
#include "http/audit.h"
#include "http/auth.h"
#include "http/request.h"
#include "http/response.h"
#include "http/router.h"

#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

static int formsvc_h_erasures(request_rec *r, const char *const *caps) {
    (void)caps;
    formsvc_principal *who = formsvc_req_get(r)->who;
    /* an erasure spans every form of the account: a credential limited to
     * some forms may not make one */
    if (!who->scopes->full && who->scopes->forms && who->scopes->forms->nelts)
        return formsvc_send_problem(
            r, fs_error_make(r->pool, "forbidden",
                             "An erasure spans every form of the account; this credential is "
                             "limited to some forms."));
    json_object *body;
    fs_error *e = formsvc_read_json(r, 0, &body);
    if (e)
        return formsvc_send_problem(r, e);
    fs_error *verr = fs_error_validation(r->pool);
    static const char *const allowed[] = {"email", NULL};
    const char *email = NULL;
    if (!json_object_is_type(body, json_type_object))
        fs_error_add(r->pool, verr, "", "type", "The body must be a JSON object.");
    else {
        fs_json_unknown_members(r->pool, body, allowed, verr);
        email = fs_json_email_member(r->pool, body, verr);
    }
    if (verr->errors)
        return formsvc_send_problem(r, verr);
    const char *evid = fs_id_new(r->pool, "evt_");
    if (!evid)
        return formsvc_send_problem(r, fs_error_internal(r->pool, "no random bytes for an id"));
    int count;
    const char *forms;
    if ((e = fs_store_erasure(formsvc_store(r), who->user_id, email, evid, &count, &forms)))
        return formsvc_send_problem(r, e);
    /* the address is what is being erased: neither the audit entry nor the
     * event names it */
    formsvc_audit(r, "submissions.erased", count ? evid : NULL);
    json_object *out = fs_json_own(r->pool, json_object_new_object());
    json_object_object_add(out, "deleted", json_object_new_int(count));
    json_object *fa = json_tokener_parse(forms);
    json_object_object_add(out, "formIds", fa ? fa : json_object_new_array());
    json_object_object_add(out, "eventId", count ? json_object_new_string(evid) : NULL);
    return formsvc_send_obj(r, 200, out);
}

const formsvc_route formsvc_routes_erasures[] = {
    {M_POST, "/v1/erasures", formsvc_h_erasures, FS_SC_SUBMISSIONS_WRITE, 1},
    {0, NULL, NULL, 0, 0}};
