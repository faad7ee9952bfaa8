/* quota: limits and use of an account, for GET /v1/me and the handlers:
 * the figures, and the one shape of a quota-exceeded problem. */
#include "http/quota.h"
#include "fs_json.h"
#include "fs_store_mail.h"
#include "fs_store_ops.h"
#include "http/auth.h"
#include "runtime/config.h"
#include "runtime/metrics.h"
#include "runtime/ratelimit.h"
#include "runtime/request_ctx.h"

#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

const formsvc_tier *formsvc_tier_of(request_rec *r, int verified) {
    return &formsvc_conf(r->server)->tier[verified ? 1 : 0];
}

static json_object *item(int limit, long long used) {
    json_object *it = json_object_new_object();
    json_object_object_add(it, "limit", json_object_new_int(limit));
    json_object_object_add(it, "used", json_object_new_int64(used));
    return it;
}

json_object *formsvc_quota_json(request_rec *r, const formsvc_principal *who, fs_error **err) {
    const char *usage;
    *err = fs_store_account_usage(formsvc_store(r), who->user_id, &usage);
    if (*err)
        return NULL;
    json_object *u = usage ? fs_json_parse_trusted(r->pool, usage) : NULL;
    if (!u) {
        *err = fs_error_internal(r->pool, "fs_account_usage gave no usage for %s", who->user_id);
        return NULL;
    }
#define USED(k) json_object_get_int64(fs_json_get(u, k))
    const formsvc_tier *t = formsvc_tier_of(r, who->verified);
    json_object *q = json_object_new_object();
    json_object_object_add(q, "tier",
                           json_object_new_string(who->verified ? "verified" : "unverified"));
    json_object *lim = json_object_new_object();
    json_object_object_add(lim, "forms", item(t->forms, USED("forms")));
    /* fields: a limit per form; used is the largest form's count */
    json_object_object_add(lim, "fields", item(t->fields, USED("fields")));
    json_object *s = item(t->submissions_month, USED("submissions"));
    json_object *reset = fs_json_get(u, "monthResetsAt");
    json_object_object_add(s, "resetsAt", reset ? json_object_get(reset) : NULL);
    json_object_object_add(lim, "submissions", s);
    json_object_object_add(lim, "keys", item(t->keys, USED("keys")));
    json_object_object_add(lim, "clients", item(t->clients, USED("clients")));
    json_object_object_add(lim, "webhooks", item(t->webhooks, USED("webhooks")));
    json_object_object_add(lim, "grants", item(t->grants, USED("grants")));
    const char *au = apr_table_get(r->notes, "formsvc-api-used");
    const char *ar = apr_table_get(r->notes, "formsvc-api-reset");
    json_object *rq = item(t->requests_minute, au ? atoll(au) : 0);
    json_object_object_add(rq, "windowSeconds", json_object_new_int(60));
    json_object_object_add(rq, "resetsIn", json_object_new_int(ar ? atoi(ar) : 60));
    json_object_object_add(lim, "requests", rq);
    /* notification and confirmation mail of the UTC day (sql/0028) */
    int sent = 0;
    if ((*err = fs_store_mail_sent_today(formsvc_store(r), who->user_id, &sent))) {
        json_object_put(q);
        json_object_put(lim);
        return NULL;
    }
    json_object_object_add(lim, "notifications", item(t->notifications, sent));
#undef USED
    json_object_object_add(q, "limits", lim);
    return q;
}

fs_error *formsvc_quota_exceeded(request_rec *r, const char *quota, int limit, const char *used) {
    fs_error *e = fs_error_make(r->pool, "quota-exceeded",
                                "The account has reached its %s quota (%d).", quota, limit);
    fs_error_set_str(r->pool, e, "quota", quota);
    fs_error_set_int(r->pool, e, "limit", limit);
    fs_error_set_int(r->pool, e, "used", used ? apr_atoi64(used) : limit);
    return e;
}

fs_error *formsvc_fields_quota(request_rec *r, int wanted, int now) {
    formsvc_srv *c = formsvc_conf(r->server);
    int limit = c->tier[formsvc_req_get(r)->who->verified ? 1 : 0].fields;
    if (wanted <= limit)
        return NULL;
    fs_error *e =
        fs_error_make(r->pool, "quota-exceeded",
                      "A form of this account holds at most %d fields (%d asked).", limit, wanted);
    fs_error_set_str(r->pool, e, "quota", "fields");
    fs_error_set_int(r->pool, e, "limit", limit);
    fs_error_set_int(r->pool, e, "used", now);
    return e;
}

fs_error *formsvc_ratelimit_account(request_rec *r) {
    const formsvc_principal *who = formsvc_req_get(r)->who;
    if (!who)
        return NULL;
    const formsvc_tier *t = formsvc_tier_of(r, who->verified);
    fs_rl_result res;
    fs_error *e = formsvc_ratelimit_check(r, apr_pstrcat(r->pool, "api:", who->user_id, NULL),
                                          t->requests_minute, 60, &res);
    formsvc_ratelimit_headers(r, &res);
    /* for GET /v1/me */
    apr_table_setn(r->notes, "formsvc-api-used",
                   apr_itoa(r->pool, res.limit < 0 ? 0 : res.limit - res.remaining));
    apr_table_setn(r->notes, "formsvc-api-reset", apr_itoa(r->pool, res.reset));
    if (e && e->status == 429)
        formsvc_metric_inc(FORMSVC_M_LIMITED_QUOTA);
    return e;
}
