/* audit: writing the audit trail (audit.h); GET /v1/audit reads it
 * (handle_audit.c). */
#include "http/audit.h"
#include "fs_secret.h"
#include "fs_store_oauth.h"
#include "http/auth.h"
#include "runtime/log.h"
#include "runtime/request_ctx.h"

#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

/* form_id: the form the record concerns (NULL: none; a form-scoped
 * credential reads only records about its forms). */
static void audit_write(request_rec *r, const char *user_id, const char *credential_id,
                        const char *client_id, const char *actor, const char *action,
                        const char *target_id, const char *form_id) {
    const char *id = fs_id_new(r->pool, "aud_");
    if (!id) {
        FORMSVC_LOG(r, APLOG_ERR, 00501, "audit record %s not written: no random id", action);
        return;
    }
    fs_audit_record rec = {id,    user_id, credential_id, client_id,
                           actor, action,  target_id,     form_id};
    fs_error *e = fs_store_audit_insert(formsvc_store(r), &rec);
    if (e)
        FORMSVC_LOG(r, APLOG_ERR, 00502, "audit record %s of %s not written (%s)", action,
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
