/* handle_audit: the audit trail. formsvc_audit() records what the calling
 * credential did; GET /v1/audit lists it, paged, filtered by ?actor= and
 * ?credential=. */
#include "forms.h"
#include "fs_json.h"
#include "fs_secret.h"
#include "fs_store_oauth.h"
#include "fs_util.h"
#include "glue.h"

#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

/* form_id: the form the record concerns (NULL: none; a form-scoped
 * credential reads only records about its forms). */
static void audit_write(request_rec *r, const char *user_id, const char *credential_id,
                        const char *client_id, const char *actor, const char *action,
                        const char *target_id, const char *form_id) {
    const char *id = fs_id_new(r->pool, "aud_");
    if (!id) {
        FORMSVC_LOG(r, APLOG_ERR, 10501, "audit record %s not written: no random id", action);
        return;
    }
    fs_audit_record rec = {id, user_id, credential_id, client_id, actor, action, target_id, form_id};
    fs_error *e = fs_store_audit_insert(formsvc_store(r), &rec);
    if (e)
        FORMSVC_LOG(r, APLOG_ERR, 10502, "audit record %s of %s not written (%s)", action,
                    target_id ? target_id : "-", e->cause ? e->cause : e->slug);
}

/* A record whose target is a form is about that form. */
static const char *form_of(const char *target_id) {
    return target_id && !strncmp(target_id, "frm_", 4) ? target_id : NULL;
}

void formsvc_audit_as(request_rec *r, const char *user_id, const char *credential_id,
                      const char *client_id, const char *actor, const char *action,
                      const char *target_id) {
    audit_write(r, user_id, credential_id, client_id, actor, action, target_id, form_of(target_id));
}

void formsvc_audit_form(request_rec *r, const char *action, const char *target_id,
                        const char *form_id) {
    formsvc_principal *who = formsvc_req_get(r)->who;
    if (!who)
        return;
    audit_write(r, who->user_id, who->key_id, who->client_id, who->actor, action, target_id,
                form_id ? form_id : form_of(target_id));
}

void formsvc_audit(request_rec *r, const char *action, const char *target_id) {
    formsvc_audit_form(r, action, target_id, NULL);
}

static int formsvc_h_audit_list(request_rec *r, const char *const *caps) {
    (void)caps;
    int limit;
    const char *after;
    fs_error *e = formsvc_paging(r, "audit", "aud_", &limit, &after);
    if (e)
        return formsvc_send_problem(r, e);
    const char *actor = formsvc_arg(r, "actor"), *cred = formsvc_arg(r, "credential");
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
