/* handle_webhooks: GET /v1/events (cursor feed with long polling) and
 * /v1/webhooks: create (secret shown once), list, get, change, delete,
 * test, and the deliveries of one webhook (list, retry). */
#include "fs_json.h"
#include "fs_secret.h"
#include "fs_store_links.h"
#include "fs_store_webhooks.h"
#include "fs_util.h"
#include "fs_webhook.h"
#include "http/asks.h"
#include "http/audit.h"
#include "http/auth.h"
#include "http/forms_access.h"
#include "http/quota.h"
#include "http/request.h"
#include "http/response.h"
#include "http/router.h"
#include "runtime/config.h"
#include "runtime/request_ctx.h"
#include "runtime/webhooks.h"

#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

#define EVENTS_WAIT_MAX 30
#define EVENTS_POLL_MS 500

/* The event types, of the feed and of webhooks alike: FS_EVENT_TYPES
 * (fs_webhook.h), as a sentence for problems. */
#define EVENT_TYPE_NAMES FS_EVENT_TYPES(FS_EVENT_TYPE_NAME, ", ")

/* Event types whose data is a submission's answers: they need
 * submissions:read wherever they go. */
static int carries_answers(const char *type) {
    return fs_event_type_answers(type);
}

/* 1 when the caller's form: constraints let it see something of form_id
 * (NULL: of every form, which only an unconstrained caller sees). */
static int form_visible(request_rec *r, const char *form_id) {
    fs_scopes *sc = formsvc_req_get(r)->who->scopes;
    if (sc->full || sc->forms->nelts == 0)
        return 1;
    for (int i = 0; form_id && i < sc->forms->nelts; i++)
        if (!strcmp(APR_ARRAY_IDX(sc->forms, i, const char *), form_id))
            return 1;
    return 0;
}

/* The events feed's limit and cursor: ?cursor= (the opaque cursor of every list) or
 * its alias ?after=, which takes that cursor or an event id as such (what
 * nextCursor was before it became opaque). *after: the event id, or NULL
 * for the oldest kept; or a 400 problem (malformed, foreign, or naming no
 * event of the account). */
static fs_error *events_cursor(request_rec *r, const char *user_id, int *limit,
                               const char **after) {
    const char *cur, *alias;
    fs_error *e = formsvc_paging(r, "events", "evt_", limit, &cur);
    if (!e)
        e = formsvc_arg(r, "after", &alias);
    if (e)
        return e;
    *after = cur;
    if (alias && *alias) {
        if (cur)
            return fs_error_make(r->pool, "malformed-request",
                                 "Give the cursor as cursor or as after, not both.");
        *after =
            fs_id_valid(alias, "evt_") ? alias : fs_cursor_decode(r->pool, "events", alias, "evt_");
        if (!*after)
            return fs_error_make(r->pool, "malformed-request",
                                 "after must be a cursor of this feed or the id of an event of "
                                 "this account.");
    }
    if (*after) {
        int exists;
        if ((e = fs_store_event_exists(formsvc_store(r), user_id, *after, &exists)))
            return e;
        if (!exists)
            return fs_error_make(r->pool, "malformed-request",
                                 "The cursor names no event of this account (events are kept 30 "
                                 "days).");
    }
    return NULL;
}

/* GET /v1/events?cursor=&limit=&wait=&formId=&type=&linkId=&askId= (after=
 * is an alias of cursor). formId keeps the events of one form (404 for a
 * form the caller cannot see), linkId those of the submissions made through
 * one respondent link of the account (404 for another's, or for one of
 * another form than formId), askId those of one ask (404 for another
 * account's): its ask.* events and the submission.created of its link, type
 * those of one type (the types carrying answers need submissions:read: 403,
 * rather than a feed that stays empty).
 * Oldest first after the cursor; nextCursor is the cursor of the last
 * event returned (or the one given, unchanged, when there is none), so a
 * client loops with cursor=nextCursor; Link rel="next" when more events
 * are there now. With wait > 0 and nothing to return, the request polls
 * the database every 500 ms until an event arrives, the child stops or wait seconds have
 * passed, holding no database connection between polls; when this child
 * already has its bound of waiting requests (event_waits.c) it answers at
 * once with Formsvc-Wait: busy. */
static int formsvc_h_events(request_rec *r, const char *const *caps) {
    (void)caps;
    int limit, wait = 0;
    const char *w, *after, *form_id, *type, *link_id, *ask_id;
    fs_error *e;
    if ((e = formsvc_arg(r, "wait", &w)) || (e = formsvc_arg(r, "formId", &form_id)) ||
        (e = formsvc_arg(r, "type", &type)) || (e = formsvc_arg(r, "linkId", &link_id)) ||
        (e = formsvc_arg(r, "askId", &ask_id)))
        return formsvc_send_problem(r, e);
    if (link_id && !fs_id_valid(link_id, "lnk_")) {
        fs_error *verr = fs_error_validation(r->pool);
        fs_error_add(r->pool, verr, "/linkId", "format",
                     "linkId must be the id of a respondent link (lnk_...).");
        return formsvc_send_problem(r, verr);
    }
    if (type) {
        if (!fs_event_type_known(type)) {
            fs_error *verr = fs_error_validation(r->pool);
            fs_error_add(r->pool, verr, "/type", "enum", "type is one of " EVENT_TYPE_NAMES ".");
            return formsvc_send_problem(r, verr);
        }
        if (carries_answers(type) && (e = formsvc_need_scope(r, FS_SC_SUBMISSIONS_READ)))
            return formsvc_send_problem(r, e);
    }
    if (w) {
        char *end;
        long v = strtol(w, &end, 10);
        if (!*w || *end || v < 0 || v > EVENTS_WAIT_MAX) {
            fs_error *verr = fs_error_validation(r->pool);
            fs_error_add(r->pool, verr, "/wait",
                         *w && !*end ? (v < 0 ? "minimum" : "maximum") : "type",
                         "wait must be an integer number of seconds from 0 to 30.");
            return formsvc_send_problem(r, verr);
        }
        wait = (int)v;
    }
    formsvc_principal *who = formsvc_req_get(r)->who;
    if ((e = events_cursor(r, who->user_id, &limit, &after)))
        return formsvc_send_problem(r, e);
    const char *forms = formsvc_form_constraints(r);
    if (link_id) { /* one link: the account's, of formId when given; its form then */
        const char *of;
        if ((e = fs_store_link_form(formsvc_store(r), who->user_id, link_id, &of)))
            return formsvc_send_problem(r, e);
        if (!of || (form_id && strcmp(of, form_id)))
            return formsvc_send_problem(r, fs_error_make(r->pool, "not-found", "No such link."));
        form_id = of;
    }
    if (form_id) { /* one form: the caller's, and within its form: constraints */
        formsvc_form *form;
        if ((e = formsvc_form_load(r, form_id, &form)))
            return formsvc_send_problem(r, e);
        json_object *one = fs_json_own(r->pool, json_object_new_array());
        json_object_array_add(one, json_object_new_string(form_id));
        forms = fs_json_str(r->pool, one);
    }
    if (ask_id) { /* one ask: the caller's */
        const char *ask_form;
        if ((e = formsvc_ask_form(r, ask_id, &ask_form)))
            return formsvc_send_problem(r, e);
        if (!form_visible(r, ask_form))
            return formsvc_send_problem(r, fs_error_make(r->pool, "not-found", "No such ask."));
    }
    /* the types that carry answers (FS_EVENT_TYPES): only for a caller
     * that may read submissions (docs/webhooks.md) */
    int subs = fs_scopes_has(who->scopes, FS_SC_SUBMISSIONS_READ);
    apr_time_t deadline = apr_time_now() + apr_time_from_sec(wait);
    fs_list_page page;
    if ((e = fs_store_event_list(formsvc_store(r), who->user_id, forms, subs, type, link_id, ask_id,
                                 after, limit, &page)))
        return formsvc_send_problem(r, e);
    if (page.n == 0 && wait > 0) {
        /* A bounded number of requests may sleep in this child, and none
         * holds a database connection while it does: query, give the
         * connection back, sleep, take one again. */
        formsvc_event_wait *held = formsvc_event_wait_begin(r, who->user_id);
        if (!held)
            apr_table_setn(r->headers_out, "Formsvc-Wait", "busy");
        for (apr_time_t now = apr_time_now();
             held && page.n == 0 && now < deadline && !r->connection->aborted &&
             !formsvc_event_wait_stopping();
             now = apr_time_now()) {
            formsvc_db_release(r);
            apr_interval_time_t nap = apr_time_from_msec(EVENTS_POLL_MS);
            apr_sleep(deadline - now < nap ? deadline - now : nap);
            if ((e = fs_store_event_list(formsvc_store(r), who->user_id, forms, subs, type, link_id,
                                         ask_id, after, limit, &page)))
                return formsvc_send_problem(r, e);
        }
        formsvc_event_wait_end(r, held);
    }
    json_object *o = fs_json_own(r->pool, json_object_new_object());
    json_object *arr = json_object_new_array();
    json_object_object_add(o, "data", arr);
    for (int i = 0; i < page.n; i++)
        json_object_array_add(arr, json_tokener_parse(page.items[i].json));
    const char *next = page.n ? page.items[page.n - 1].id : after;
    const char *cur = next ? fs_cursor_encode(r->pool, "events", next) : NULL;
    json_object_object_add(o, "nextCursor", cur ? json_object_new_string(cur) : NULL);
    json_object_object_add(o, "hasMore", json_object_new_boolean(page.more));
    if (page.more)
        formsvc_link_next(r, cur);
    return formsvc_send_obj(r, 200, o);
}

static int not_found(request_rec *r) {
    return formsvc_send_problem(r, fs_error_make(r->pool, "not-found", "No such webhook."));
}

/* The events member: a non-empty array of distinct known types. */
static json_object *parse_events(request_rec *r, json_object *v, fs_error *verr) {
    if (!v) {
        fs_error_add(r->pool, verr, "/events", "required", "events is required.");
        return NULL;
    }
    if (!json_object_is_type(v, json_type_array)) {
        fs_error_add(r->pool, verr, "/events", "type", "events must be an array of event types.");
        return NULL;
    }
    size_t n = json_object_array_length(v);
    if (n == 0) {
        fs_error_add(r->pool, verr, "/events", "minItems", "events must name at least one type.");
        return NULL;
    }
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        json_object *it = json_object_array_get_idx(v, i);
        const char *ptr = apr_psprintf(r->pool, "/events/%lu", (unsigned long)i);
        if (!json_object_is_type(it, json_type_string)) {
            fs_error_add(r->pool, verr, ptr, "type", "An event type is a string.");
            bad = 1;
            continue;
        }
        const char *t = json_object_get_string(it);
        if (!fs_event_type_known(t)) {
            fs_error_add(r->pool, verr, ptr, "enum", "Event types are " EVENT_TYPE_NAMES ".");
            bad = 1;
            continue;
        }
        for (size_t j = 0; j < i; j++) {
            json_object *o = json_object_array_get_idx(v, j);
            if (json_object_is_type(o, json_type_string) && !strcmp(json_object_get_string(o), t)) {
                fs_error_add(r->pool, verr, ptr, "unique", "An event type is listed twice.");
                bad = 1;
                break;
            }
        }
    }
    return bad ? NULL : v;
}

/* The url member: required, a string that fs_webhook_url_check accepts
 * (https, no private or loopback target unless allowed...). */
static const char *parse_url(request_rec *r, json_object *uv, fs_error *verr) {
    if (!uv) {
        fs_error_add(r->pool, verr, "/url", "required", "url is required.");
        return NULL;
    }
    if (!json_object_is_type(uv, json_type_string)) {
        fs_error_add(r->pool, verr, "/url", "type", "url must be a string.");
        return NULL;
    }
    const char *why = fs_webhook_url_check(r->pool, json_object_get_string(uv),
                                           formsvc_webhook_allow_private(), NULL);
    if (why) {
        fs_error_add(r->pool, verr, "/url", "format", "%s.", why);
        return NULL;
    }
    return json_object_get_string(uv);
}

/* 403 unless the caller may read submissions when events (an array of
 * event types) routes a type that carries answers somewhere
 * (submission.created, submission.updated, ask.answered). */
static fs_error *need_submissions(request_rec *r, json_object *events) {
    for (size_t i = 0; events && i < json_object_array_length(events); i++)
        if (carries_answers(json_object_get_string(json_object_array_get_idx(events, i))))
            return formsvc_need_scope(r, FS_SC_SUBMISSIONS_READ);
    return NULL;
}

static int formsvc_h_webhooks_create(request_rec *r, const char *const *caps) {
    (void)caps;
    json_object *body;
    fs_error *e = formsvc_read_json(r, 0, &body);
    if (e)
        return formsvc_send_problem(r, e);
    static const char *const allowed[] = {"url", "events", "formId", NULL};
    formsvc_principal *who = formsvc_req_get(r)->who;
    fs_error *verr = fs_error_validation(r->pool);
    const char *url = parse_url(r, fs_json_get(body, "url"), verr), *form_id = NULL;
    json_object *ev = parse_events(r, fs_json_get(body, "events"), verr);
    json_object *fv = fs_json_get(body, "formId");
    if (fv && !json_object_is_type(fv, json_type_null)) {
        formsvc_form *f;
        if (!json_object_is_type(fv, json_type_string))
            fs_error_add(r->pool, verr, "/formId", "type", "formId must be a form id or null.");
        else if (formsvc_form_load(r, json_object_get_string(fv), &f))
            fs_error_add(r->pool, verr, "/formId", "enum", "formId names no form of the account.");
        else
            form_id = f->id;
    } else if (!form_visible(r, NULL)) {
        fs_error_add(r->pool, verr, "/formId", "required",
                     "A credential limited to some forms must name one of them in formId.");
    }
    fs_json_unknown_members(r->pool, body, allowed, verr);
    if (verr->errors)
        return formsvc_send_problem(r, verr);
    /* routing submission data somewhere is reading it */
    if ((e = need_submissions(r, ev)))
        return formsvc_send_problem(r, e);
    formsvc_srv *c = formsvc_conf(r->server);
    int limit = c->tier[who->verified ? 1 : 0].webhooks;
    const char *id = fs_id_new(r->pool, "whk_");
    const char *secret = fs_webhook_secret_new(r->pool);
    const char *sealed =
        id && secret ? fs_webhook_seal(r->pool, c->pepper, c->pepper_len, id, secret) : NULL;
    if (!sealed)
        return formsvc_send_problem(
            r, fs_error_internal(r->pool, "no random bytes for a webhook's id or secret, or "
                                          "the secret cannot be sealed"));
    /* created_by: a webhook registered by a delegate dies with it (sql/0019) */
    fs_new_webhook w = {id,      who->user_id, url,        fs_json_str(r->pool, ev),
                        form_id, sealed,       who->key_id};
    const char *made;
    if ((e = fs_store_webhook_create(formsvc_store(r), &w, limit, &made)))
        return formsvc_send_problem(r, e);
    if (!made) {
        int n;
        if ((e = fs_store_webhook_count(formsvc_store(r), who->user_id, &n)))
            return formsvc_send_problem(r, e);
        return formsvc_send_problem(
            r, formsvc_quota_exceeded(r, "webhooks", limit, apr_itoa(r->pool, n)));
    }
    formsvc_audit_form(r, "webhook.created", id, form_id);
    json_object *o = fs_json_own(r->pool, json_tokener_parse(made));
    json_object_object_add(o, "secret", json_object_new_string(secret));
    apr_table_setn(r->headers_out, "Location",
                   apr_pstrcat(r->pool, formsvc_base_url(r), "/v1/webhooks/", id, NULL));
    return formsvc_send_obj(r, 201, o);
}

static int formsvc_h_webhooks_list(request_rec *r, const char *const *caps) {
    (void)caps;
    int limit;
    const char *after;
    fs_error *e = formsvc_paging(r, "webhooks", "whk_", &limit, &after);
    if (e)
        return formsvc_send_problem(r, e);
    fs_list_page page;
    if ((e = fs_store_webhook_list(formsvc_store(r), formsvc_req_get(r)->who->user_id,
                                   formsvc_form_constraints(r), after, limit, &page)))
        return formsvc_send_problem(r, e);
    return formsvc_send_page(r, "webhooks", &page);
}

/* The caller's webhook: its representation and the form it is limited to
 * (NULL: every form), or a problem (404 for a malformed id, another
 * account's webhook, or one outside the caller's form: constraints). */
static fs_error *load(request_rec *r, const char *id, const char **json, const char **form_id) {
    if (!fs_id_valid(id, "whk_"))
        return fs_error_make(r->pool, "not-found", "No such webhook.");
    fs_error *e =
        fs_store_webhook_get(formsvc_store(r), formsvc_req_get(r)->who->user_id, id, json, form_id);
    if (e)
        return e;
    if (!*json || !form_visible(r, *form_id))
        return fs_error_make(r->pool, "not-found", "No such webhook.");
    return NULL;
}

static int formsvc_h_webhooks_get(request_rec *r, const char *const *caps) {
    const char *json, *form_id;
    fs_error *e = load(r, caps[0], &json, &form_id);
    if (e)
        return formsvc_send_problem(r, e);
    return formsvc_send_json(r, 200, json);
}

static int formsvc_h_webhooks_delete(request_rec *r, const char *const *caps) {
    const char *json, *form_id;
    fs_error *e = load(r, caps[0], &json, &form_id);
    if (e)
        return formsvc_send_problem(r, e);
    int deleted;
    if ((e = fs_store_webhook_delete(formsvc_store(r), formsvc_req_get(r)->who->user_id, caps[0],
                                     formsvc_tree_root(r), &deleted)))
        return formsvc_send_problem(r, e);
    if (!deleted)
        return not_found(r);
    formsvc_audit_form(r, "webhook.deleted", caps[0], form_id);
    return formsvc_send_empty(r, 204);
}

static int formsvc_h_webhooks_deliveries(request_rec *r, const char *const *caps) {
    const char *json, *form_id;
    fs_error *e = load(r, caps[0], &json, &form_id);
    if (e)
        return formsvc_send_problem(r, e);
    int limit;
    const char *after;
    if ((e = formsvc_paging(r, "deliveries", "dlv_", &limit, &after)))
        return formsvc_send_problem(r, e);
    fs_list_page page;
    if ((e = fs_store_delivery_list(formsvc_store(r), formsvc_req_get(r)->who->user_id, caps[0],
                                    after, limit, &page)))
        return formsvc_send_problem(r, e);
    return formsvc_send_page(r, "deliveries", &page);
}

/* PATCH /v1/webhooks/{id} {url?, events?, enabled?, status?}: each member
 * checked as at creation; status "active" resumes a paused webhook (its
 * pending deliveries go out now), "paused" pauses it; a delegate changes
 * only webhooks of its tree (others 404). A webhook that ends up with a type that carries
 * answers (submission.created, submission.updated, ask.answered), or is pointed elsewhere
 * while it has one, needs submissions:read as at creation. */
static int formsvc_h_webhooks_patch(request_rec *r, const char *const *caps) {
    const char *json, *form_id;
    json_object *body;
    fs_error *e = load(r, caps[0], &json, &form_id);
    if (!e)
        e = formsvc_read_json(r, 0, &body);
    if (e)
        return formsvc_send_problem(r, e);
    static const char *const allowed[] = {"url", "events", "enabled", "status", NULL};
    fs_error *verr = fs_error_validation(r->pool);
    fs_json_unknown_members(r->pool, body, allowed, verr);
    fs_webhook_change c = {NULL, NULL, -1, NULL};
    json_object *v, *ev = NULL;
    if (json_object_object_get_ex(body, "url", &v))
        c.url = parse_url(r, v ? v : fs_json_own(r->pool, json_object_new_int(0)), verr);
    if (json_object_object_get_ex(body, "events", &v) &&
        (ev = parse_events(r, v ? v : fs_json_own(r->pool, json_object_new_int(0)), verr)))
        c.events_json = fs_json_str(r->pool, ev);
    if (json_object_object_get_ex(body, "enabled", &v)) {
        if (!json_object_is_type(v, json_type_boolean))
            fs_error_add(r->pool, verr, "/enabled", "type", "enabled must be true or false.");
        else
            c.enabled = json_object_get_boolean(v);
    }
    if (json_object_object_get_ex(body, "status", &v)) {
        const char *st = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
        if (strcmp(st, "active") && strcmp(st, "paused"))
            fs_error_add(r->pool, verr, "/status",
                         json_object_is_type(v, json_type_string) ? "enum" : "type",
                         "status must be \"active\" (resume) or \"paused\".");
        else
            c.status = st;
    }
    if (verr->errors)
        return formsvc_send_problem(r, verr);
    if (!ev)
        ev = fs_json_get(fs_json_parse_trusted(r->pool, json), "events");
    if ((c.url || c.events_json) && (e = need_submissions(r, ev)))
        return formsvc_send_problem(r, e);
    const char *made;
    formsvc_principal *who = formsvc_req_get(r)->who;
    if ((e = fs_store_webhook_update(formsvc_store(r), who->user_id, caps[0], formsvc_tree_root(r),
                                     &c, &made)))
        return formsvc_send_problem(r, e);
    if (!made)
        return not_found(r);
    formsvc_audit_form(r, "webhook.updated", caps[0], form_id);
    return formsvc_send_json(r, 200, made);
}

/* Sends the claimed delivery dl now and answers with the delivery as
 * recorded. */
static int send_now(request_rec *r, const char *webhook_id, const fs_delivery *dl) {
    formsvc_webhook_send_now(r, dl);
    const char *json;
    fs_error *e = fs_store_delivery_get(formsvc_store(r), webhook_id, dl->id, &json);
    if (e)
        return formsvc_send_problem(r, e);
    if (!json) /* the webhook was deleted meanwhile */
        return not_found(r);
    return formsvc_send_json(r, 200, json);
}

/* POST /v1/webhooks/{id}/test: a signed webhook.test event delivered to
 * this webhook now (also when it is disabled); 200 with the delivery and
 * its attempt. A delegate tests only webhooks of its tree. */
static int formsvc_h_webhooks_test(request_rec *r, const char *const *caps) {
    const char *json, *form_id;
    fs_error *e = load(r, caps[0], &json, &form_id);
    if (e)
        return formsvc_send_problem(r, e);
    fs_delivery *dl;
    if ((e = fs_store_webhook_test(formsvc_store(r), formsvc_req_get(r)->who->user_id, caps[0],
                                   formsvc_tree_root(r), formsvc_webhook_lease(), &dl)))
        return formsvc_send_problem(r, e);
    if (!dl)
        return not_found(r);
    return send_now(r, caps[0], dl);
}

/* POST /v1/webhooks/{id}/deliveries/{did}/retry: a succeeded or failed
 * delivery sent again now (409 invalid-state while it is pending: the
 * worker has it); 200 with the delivery and the new attempt. */
static int formsvc_h_delivery_retry(request_rec *r, const char *const *caps) {
    const char *json, *form_id;
    fs_error *e = load(r, caps[0], &json, &form_id);
    if (e)
        return formsvc_send_problem(r, e);
    if (!fs_id_valid(caps[1], "dlv_"))
        return formsvc_send_problem(r, fs_error_make(r->pool, "not-found", "No such delivery."));
    const char *status;
    fs_delivery *dl;
    if ((e = fs_store_delivery_retry(formsvc_store(r), formsvc_req_get(r)->who->user_id, caps[0],
                                     caps[1], formsvc_tree_root(r), formsvc_webhook_lease(),
                                     &status, &dl)))
        return formsvc_send_problem(r, e);
    if (!status)
        return formsvc_send_problem(r, fs_error_make(r->pool, "not-found", "No such delivery."));
    if (!dl)
        return formsvc_send_problem(
            r, fs_error_make(r->pool, "invalid-state",
                             "The delivery is pending: it is queued and will be attempted at its "
                             "nextAttemptAt. Retry a delivery once it has succeeded or failed."));
    return send_now(r, caps[0], dl);
}

const formsvc_route formsvc_routes_webhooks[] = {
    {M_GET, "/v1/events", formsvc_h_events, FS_SC_WEBHOOKS_READ, 1},
    {M_GET, "/v1/webhooks", formsvc_h_webhooks_list, FS_SC_WEBHOOKS_READ, 1},
    {M_POST, "/v1/webhooks", formsvc_h_webhooks_create, FS_SC_WEBHOOKS_WRITE, 1},
    {M_GET, "/v1/webhooks/{id}", formsvc_h_webhooks_get, FS_SC_WEBHOOKS_READ, 1},
    {M_DELETE, "/v1/webhooks/{id}", formsvc_h_webhooks_delete, FS_SC_WEBHOOKS_WRITE, 1},
    {M_PATCH, "/v1/webhooks/{id}", formsvc_h_webhooks_patch, FS_SC_WEBHOOKS_WRITE, 1},
    {M_POST, "/v1/webhooks/{id}/test", formsvc_h_webhooks_test, FS_SC_WEBHOOKS_WRITE, 1},
    {M_POST, "/v1/webhooks/{id}/deliveries/{did}/retry", formsvc_h_delivery_retry,
     FS_SC_WEBHOOKS_WRITE, 1},
    {M_GET, "/v1/webhooks/{id}/deliveries", formsvc_h_webhooks_deliveries, FS_SC_WEBHOOKS_READ, 1},
    {0, NULL, NULL, 0, 0}};
