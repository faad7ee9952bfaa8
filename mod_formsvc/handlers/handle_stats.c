/* handle_stats: GET /v1/forms/{id}/stats, a form's analytics (docs/forms.md
 * "Analytics"): page views (views.h: counted in each child's memory, written
 * every few seconds), submissions and spam per hour or day, and the
 * conversion rate. Scope forms:read: figures about the form, not the
 * answers (no submission's content is read). */
#include "fs_json.h"
#include "fs_scope.h"
#include "fs_store_stats.h"
#include "fs_util.h"
#include "http/forms_access.h"
#include "http/request.h"
#include "http/response.h"
#include "http/router.h"
#include "runtime/request_ctx.h"
#include "runtime/views.h"

#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

#define DAY_MAX 366  /* intervals per answer */
#define HOUR_MAX 744 /* 31 days */

typedef struct stats_query {
    const char *unit; /* "day" or "hour" */
    apr_time_t since, until;
} stats_query;

/* The query parameters; 422 with every bad one. */
static fs_error *read_query(request_rec *r, stats_query *q) {
    const char *v[3];
    const char *names[3] = {"since", "until", "interval"};
    for (int i = 0; i < 3; i++) {
        fs_error *bad = formsvc_arg(r, names[i], &v[i]);
        if (bad)
            return bad;
    }
    fs_error *verr = fs_error_validation(r->pool);
    q->unit = "day";
    if (v[2] && !strcmp(v[2], "hour"))
        q->unit = "hour";
    else if (v[2] && strcmp(v[2], "day"))
        fs_error_add(r->pool, verr, "/interval", "enum", "interval is day or hour.");
    apr_time_t step = apr_time_from_sec(!strcmp(q->unit, "day") ? 86400 : 3600);
    long max = !strcmp(q->unit, "day") ? DAY_MAX : HOUR_MAX;
    apr_time_t *outs[2] = {&q->since, &q->until};
    int given[2] = {0, 0};
    for (int i = 0; i < 2; i++) {
        if (!v[i])
            continue;
        if (!fs_time_parse_rfc3339(v[i], outs[i]) || *outs[i] < 0)
            fs_error_add(r->pool, verr, apr_pstrcat(r->pool, "/", names[i], NULL), "format",
                         "%s must be an RFC 3339 timestamp such as 2026-11-21T00:00:00Z "
                         "(encode + as %%2B in a query string).",
                         names[i]);
        else
            given[i] = 1;
    }
    if (verr->errors)
        return verr;
    if (!given[1])
        q->until = apr_time_now();
    if (!given[0]) /* the 30 days, or 24 hours, that end with until's */
        q->since = q->until - q->until % step - (!strcmp(q->unit, "day") ? 29 : 23) * step;
    if (q->since >= q->until) {
        fs_error_add(r->pool, verr, "/until", "minimum", "until must be later than since.");
        return verr;
    }
    apr_time_t lo = q->since - q->since % step; /* UTC: days are 86400 s */
    if ((q->until - lo + step - 1) / step > max)
        fs_error_add(r->pool, verr, "/since", "maximum",
                     "At most %ld intervals of a %s: move since closer to until.", max, q->unit);
    return verr->errors ? verr : NULL;
}

/* submissions / views, rounded to 4 places; NULL (JSON null) without views. */
static json_object *rate(long long subs, long long views) {
    if (views <= 0)
        return NULL;
    return json_object_new_double((double)(long long)((double)subs * 10000 / (double)views + 0.5) /
                                  10000);
}

static json_object *figures(long long views, long long subs, long long spam) {
    json_object *o = json_object_new_object();
    json_object_object_add(o, "views", json_object_new_int64(views));
    json_object_object_add(o, "submissions", json_object_new_int64(subs));
    json_object_object_add(o, "spam", json_object_new_int64(spam));
    json_object_object_add(o, "conversionRate", rate(subs, views));
    return o;
}

static int formsvc_h_form_stats(request_rec *r, const char *const *caps) {
    formsvc_form *form;
    fs_error *e = formsvc_form_load(r, caps[0], &form); /* 404 for others' forms */
    stats_query q;
    if (!e)
        e = read_query(r, &q);
    if (e)
        return formsvc_send_problem(r, e);
    fs_stats_row *rows;
    int n;
    const char *since = fs_time_format(r->pool, q.since), *until = fs_time_format(r->pool, q.until);
    apr_time_t step = apr_time_from_sec(!strcmp(q.unit, "day") ? 86400 : 3600);
    e = fs_store_form_stats(formsvc_store(r), form->id,
                            fs_time_format(r->pool, q.since - q.since % step), until, q.unit, &rows,
                            &n);
    if (e)
        return formsvc_send_problem(r, e);
    json_object *o = fs_json_own(r->pool, json_object_new_object());
    json_object *data = json_object_new_array();
    long long tv = 0, ts = 0, tp = 0;
    for (int i = 0; i < n; i++) {
        json_object *it = figures(rows[i].views, rows[i].submissions, rows[i].spam);
        json_object *start = json_object_new_string(rows[i].start);
        /* start first: easier to read */
        json_object *row = json_object_new_object();
        json_object_object_add(row, "start", start);
        json_object_object_foreach(it, k, val) {
            json_object_object_add(row, k, json_object_get(val));
        }
        json_object_put(it);
        json_object_array_add(data, row);
        tv += rows[i].views;
        ts += rows[i].submissions;
        tp += rows[i].spam;
    }
    json_object_object_add(o, "formId", json_object_new_string(form->id));
    json_object_object_add(o, "interval", json_object_new_string(q.unit));
    json_object_object_add(o, "since", json_object_new_string(since));
    json_object_object_add(o, "until", json_object_new_string(until));
    json_object_object_add(o, "viewsLagSeconds",
                           json_object_new_int(FORMSVC_VIEWS_FLUSH_SECONDS + 1));
    json_object_object_add(o, "totals", figures(tv, ts, tp));
    json_object_object_add(o, "data", data);
    apr_table_setn(r->headers_out, "Cache-Control", "no-store");
    return formsvc_send_json(r, 200, fs_json_str(r->pool, o));
}

const formsvc_route formsvc_routes_stats[] = {
    {M_GET, "/v1/forms/{id}/stats", formsvc_h_form_stats, FS_SC_FORMS_READ, 1},
    {0, NULL, NULL, 0, 0}};
