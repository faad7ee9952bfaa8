/* audit: writing the audit trail (audit.c). Reading it is GET /v1/audit
 * (handle_audit.c). */
#ifndef FORMSVC_AUDIT_H
#define FORMSVC_AUDIT_H

#include <httpd.h>

/* Records that the calling credential did action (e.g. "form.published")
 * to target_id. A failure is logged, never turned into an error: the write
 * it records has already committed. No operation without a principal. */
void formsvc_audit(request_rec *r, const char *action, const char *target_id);
/* The same, naming the form the record concerns (form_id NULL: the target
 * itself when it is a form, else none); form-scoped credentials read only
 * the records of their forms. */
void formsvc_audit_form(request_rec *r, const char *action, const char *target_id,
                        const char *form_id);
/* The same for a request without a bearer principal (the token endpoint). */
void formsvc_audit_as(request_rec *r, const char *user_id, const char *credential_id,
                      const char *client_id, const char *actor, const char *action,
                      const char *target_id);

#endif
