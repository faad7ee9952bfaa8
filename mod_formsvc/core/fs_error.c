/* fs_error: building problems and rendering them as problem+json. */
#include "fs_error.h"
#include "fs_json.h"

#include <stdarg.h>
#include <apr_strings.h>
#include <string.h>

static const fs_problem_type catalogue[] = {
    {"malformed-request", 400, "Malformed request",
     "The request body or query string could not be parsed: invalid JSON, a "
     "top-level value that is not an object, a duplicate member name, nesting "
     "deeper than 32 levels, invalid UTF-8, or a malformed cursor."},
    {"unauthorized", 401, "Unauthorized",
     "No credential was given, or the credential is unknown, expired or "
     "revoked. Send Authorization: Bearer <secret>."},
    {"insufficient-scope", 403, "Insufficient scope",
     "The credential is valid but lacks the scope this operation needs; "
     "requiredScope names it."},
    {"quota-exceeded", 403, "Quota exceeded",
     "A count quota of the account is reached; quota, limit and used say "
     "which. Verifying the account lifts the reduced quotas."},
    {"forbidden", 403, "Forbidden", "The server understood the request but refuses it."},
    {"not-found", 404, "Not found", "No such resource, or one this credential may not see."},
    {"method-not-allowed", 405, "Method not allowed",
     "The resource exists but not with this method; the Allow header lists "
     "the methods it takes."},
    {"not-acceptable", 406, "Not acceptable",
     "None of the media types the Accept header asks for can be served."},
    {"conflict", 409, "Conflict", "The request conflicts with the current state of the resource."},
    {"email-taken", 409, "E-mail address taken",
     "An account with this e-mail address already exists."},
    {"slug-taken", 409, "Slug taken", "Another form already uses this slug."},
    {"invalid-state", 409, "Invalid state", "The resource's state does not allow this transition."},
    {"already-verified", 409, "Already verified", "The account is already verified."},
    {"form-closed", 409, "Form closed", "The form is closed and takes no more submissions."},
    {"form-not-open", 409, "Form not open yet",
     "The form takes submissions from its opensAt (a member of this document and of the "
     "form's JSON view); send the answers again from then."},
    {"link-used", 409, "Link used up",
     "The respondent link has taken as many submissions as its maxUses allows."},
    {"link-expired", 410, "Link expired",
     "The respondent link has passed its expiresAt or was deleted by the form's owner."},
    {"link-required", 403, "Link required",
     "The form takes answers only through the respondent links its owner hands out (an ask's "
     "form, or settings.linkRequired): open the link you were given."},
    {"form-deleted", 410, "Form deleted",
     "The account that owned this form was erased; the form and its submissions are gone "
     "or about to be."},
    {"duplicate-submission", 409, "Duplicate submission",
     "The form's owner accepts one submission per value of some fields (settings.uniqueBy), "
     "and a submission with the same values was already received; this one was not stored."},
    {"request-timeout", 408, "Request timeout",
     "The request body did not arrive in time (the server's read timeout); "
     "nothing was done. Send it again."},
    {"precondition-failed", 412, "Precondition failed",
     "If-Match did not match the resource's current ETag; fetch it again."},
    {"precondition-required", 428, "Precondition required",
     "This change needs If-Match with the resource's current ETag (read it first), so that it "
     "applies only to the state it was decided on."},
    {"payload-too-large", 413, "Payload too large",
     "The request body is larger than the server accepts."},
    {"unsupported-media-type", 415, "Unsupported media type",
     "The request body's Content-Type is not one this operation accepts."},
    {"validation-failed", 422, "Validation failed",
     "One or more members break a rule; errors lists each with a JSON "
     "Pointer, a code and a detail."},
    {"rate-limited", 429, "Too many requests",
     "A rate limit was reached; retry after retryAfter seconds."},
    {"invalid-request", 400, "Invalid token request",
     "The token endpoint refused the request (OAuth error invalid_request): a "
     "required parameter is missing, a parameter is repeated or malformed, "
     "client credentials were sent both by HTTP Basic and in the body, or a "
     "delegation rule (depth, expires_in, actor) is broken."},
    {"invalid-client", 401, "Invalid client",
     "Client authentication failed (OAuth error invalid_client): unknown or "
     "deleted client, wrong secret, or no client credentials."},
    {"invalid-grant", 400, "Invalid grant",
     "The subject token of a token exchange is unknown, expired or revoked "
     "(OAuth error invalid_grant)."},
    {"invalid-scope", 400, "Invalid scope",
     "The requested scope names an unknown token or is broader than what "
     "the client or subject credential holds (OAuth error invalid_scope)."},
    {"unsupported-grant-type", 400, "Unsupported grant type",
     "The token endpoint supports grant_type client_credentials and "
     "urn:ietf:params:oauth:grant-type:token-exchange only."},
    {"internal", 500, "Internal server error",
     "Something failed on the server. It has been logged."},
    {"service-unavailable", 503, "Service unavailable",
     "The database cannot be reached at the moment; retry after retryAfter "
     "seconds. Nothing was written."},
    {"outcome-unknown", 504, "Outcome unknown",
     "The database stopped answering after it was asked to commit this "
     "request's write: it may or may not have been stored. Look before "
     "repeating it, or repeat it with the same Idempotency-Key."},
    {"captcha-failed", 403, "Captcha failed",
     "The form asks for a bot check (settings.captcha) and the submission carried no token, or "
     "one its provider refused; nothing was stored. Pass the check again and send the answers "
     "with the new token."},
    {"edit-expired", 410, "Edit link expired",
     "The edit link of a submission is past the form's settings.allowEdits.untilHours, counted "
     "from the submission's createdAt; the answers can no longer be changed. Nothing was "
     "changed."},
};

#define N_CATALOGUE (int)(sizeof(catalogue) / sizeof(catalogue[0]))

const fs_problem_type *fs_problem_lookup(const char *slug) {
    for (int i = 0; slug && i < N_CATALOGUE; i++)
        if (strcmp(catalogue[i].slug, slug) == 0)
            return &catalogue[i];
    return NULL;
}

const fs_problem_type *fs_problem_catalogue(int *count) {
    *count = N_CATALOGUE;
    return catalogue;
}

const fs_problem_type *fs_problem_for_status(int status) {
    switch (status) {
    case 400: return fs_problem_lookup("malformed-request");
    case 401: return fs_problem_lookup("unauthorized");
    case 403: return fs_problem_lookup("forbidden");
    case 404: return fs_problem_lookup("not-found");
    case 405: return fs_problem_lookup("method-not-allowed");
    case 406: return fs_problem_lookup("not-acceptable");
    case 408: return fs_problem_lookup("request-timeout");
    case 409: return fs_problem_lookup("conflict");
    case 412: return fs_problem_lookup("precondition-failed");
    case 413: return fs_problem_lookup("payload-too-large");
    case 428: return fs_problem_lookup("precondition-required");
    case 415: return fs_problem_lookup("unsupported-media-type");
    case 422: return fs_problem_lookup("validation-failed");
    case 429: return fs_problem_lookup("rate-limited");
    case 503: return fs_problem_lookup("service-unavailable");
    default: return fs_problem_lookup("internal");
    }
}

fs_error *fs_error_make(apr_pool_t *p, const char *slug, const char *fmt, ...) {
    fs_error *e = apr_pcalloc(p, sizeof(*e));
    const fs_problem_type *t = fs_problem_lookup(slug);
    e->slug = t ? t->slug : "internal";
    e->status = t ? t->status : 500;
    if (!t)
        e->cause = apr_psprintf(p, "a problem of the unknown type %s", slug ? slug : "(null)");
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        e->detail = apr_pvsprintf(p, fmt, ap);
        va_end(ap);
    }
    if (e->status == 503)
        e->retry_after = 5;
    return e;
}

fs_error *fs_error_internal(apr_pool_t *p, const char *fmt, ...) {
    fs_error *e = fs_error_make(p, "internal", NULL);
    va_list ap;
    va_start(ap, fmt);
    e->cause = apr_pvsprintf(p, fmt, ap);
    va_end(ap);
    return e;
}

fs_error *fs_error_validation(apr_pool_t *p) {
    return fs_error_make(p, "validation-failed", "One or more members are invalid; see errors.");
}

void fs_error_add(apr_pool_t *p, fs_error *e, const char *pointer, const char *code,
                  const char *fmt, ...) {
    if (!e->errors)
        e->errors = apr_array_make(p, 4, sizeof(fs_field_error));
    fs_field_error *fe = apr_array_push(e->errors);
    va_list ap;
    va_start(ap, fmt);
    fe->detail = apr_pvsprintf(p, fmt, ap);
    va_end(ap);
    fe->pointer = pointer;
    fe->code = code;
    fe->msg = fe->label = fe->n = NULL;
}

void fs_error_add_msg(apr_pool_t *p, fs_error *e, const char *pointer, const char *code,
                      const char *msg, const char *label, const char *n, const char *detail) {
    fs_error_add(p, e, pointer, code, "%s", detail);
    fs_field_error *fe = &APR_ARRAY_IDX(e->errors, e->errors->nelts - 1, fs_field_error);
    fe->msg = msg;
    fe->label = label;
    fe->n = n;
}

static json_object *extra_of(apr_pool_t *p, fs_error *e) {
    if (!e->extra)
        e->extra = fs_json_own(p, json_object_new_object());
    return e->extra;
}

void fs_error_set_str(apr_pool_t *p, fs_error *e, const char *k, const char *v) {
    json_object_object_add(extra_of(p, e), k, json_object_new_string(v));
}

void fs_error_set_int(apr_pool_t *p, fs_error *e, const char *k, long long v) {
    json_object_object_add(extra_of(p, e), k, json_object_new_int64(v));
}

char *fs_problem_render(apr_pool_t *p, const fs_error *e, const char *base_url,
                        const char *instance) {
    const fs_problem_type *t = fs_problem_lookup(e->slug);
    if (!t)
        t = fs_problem_for_status(e->status);
    json_object *o = fs_json_own(p, json_object_new_object());
    json_object_object_add(
        o, "type", json_object_new_string(apr_pstrcat(p, base_url, "/problems/", t->slug, NULL)));
    json_object_object_add(o, "title", json_object_new_string(t->title));
    json_object_object_add(o, "status", json_object_new_int(e->status));
    if (e->detail)
        json_object_object_add(o, "detail", json_object_new_string(e->detail));
    if (instance)
        json_object_object_add(o, "instance", json_object_new_string(instance));
    if (e->errors) {
        json_object *arr = json_object_new_array();
        for (int i = 0; i < e->errors->nelts; i++) {
            const fs_field_error *fe = &APR_ARRAY_IDX(e->errors, i, fs_field_error);
            json_object *it = json_object_new_object();
            json_object_object_add(it, "pointer", json_object_new_string(fe->pointer));
            json_object_object_add(it, "code", json_object_new_string(fe->code));
            json_object_object_add(it, "detail", json_object_new_string(fe->detail));
            if (fe->msg) { /* what a client needs to say detail in another language */
                json_object *args = json_object_new_object();
                json_object_object_add(args, "label", json_object_new_string(fe->label));
                if (fe->n)
                    json_object_object_add(args, "n", json_object_new_string(fe->n));
                json_object_object_add(it, "messageCode", json_object_new_string(fe->msg));
                json_object_object_add(it, "messageParams", args);
            }
            json_object_array_add(arr, it);
        }
        json_object_object_add(o, "errors", arr);
    }
    if (e->retry_after > 0 && (e->status == 429 || e->status == 503))
        json_object_object_add(o, "retryAfter", json_object_new_int(e->retry_after));
    if (e->extra) {
        /* extras add members; they never replace one written above */
        json_object_object_foreach(e->extra, k, v) {
            if (!json_object_object_get_ex(o, k, NULL))
                json_object_object_add(o, k, json_object_get(v));
        }
    }
    return fs_json_str(p, o);
}
