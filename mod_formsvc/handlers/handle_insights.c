/* handle_insights: GET /v1/forms/{id}/insights?since=&until=, the answers
 * of a form summed up per question for a range of UTC days (docs/forms.md
 * "Insights"): how many submissions, how many answered each question, the
 * distribution of options (select, multiselect, boolean, consent), of
 * rating and scale values, numbers' min, median, mean and max. Read from the per-day
 * answer counts (sql/0050: insight_counts and the tally not yet rolled
 * up), never from the submissions. Scope submissions:read: the figures
 * come from the answers. */
#include "fs_fieldset.h"
#include "fs_json.h"
#include "fs_scope.h"
#include "fs_store_partials.h"
#include "fs_store_stats.h"
#include "fs_util.h"
#include "http/auth.h"
#include "http/forms_access.h"
#include "http/request.h"
#include "http/response.h"
#include "http/router.h"
#include "runtime/request_ctx.h"

#include <apr_strings.h>
#include <stdlib.h>

APLOG_USE_MODULE(formsvc);

#define DAY_S 86400
#define DAYS_MAX 366
#define DAYS_DEFAULT 30

/* YYYY-MM-DD of the UTC day numbered day (days since 1970-01-01). */
static const char *day_text(apr_pool_t *p, long long day) {
    apr_time_exp_t x;
    apr_time_exp_gmt(&x, apr_time_from_sec((apr_time_t)day * DAY_S));
    return apr_psprintf(p, "%04d-%02d-%02d", x.tm_year + 1900, x.tm_mon + 1, x.tm_mday);
}

/* since and until (RFC 3339; until exclusive) to the days they touch:
 * [*first, *end) in days since the epoch; 422 with every bad one. Default:
 * the 30 days that end with today's. */
static fs_error *read_range(request_rec *r, long long *first, long long *end) {
    const char *v[2], *names[2] = {"since", "until"};
    apr_time_t t[2];
    int given[2] = {0, 0};
    fs_error *verr = fs_error_validation(r->pool);
    for (int i = 0; i < 2; i++) {
        fs_error *bad = formsvc_arg(r, names[i], &v[i]);
        if (bad)
            return bad;
        if (!v[i])
            continue;
        if (!fs_time_parse_rfc3339(v[i], &t[i]) || t[i] < 0)
            fs_error_add(r->pool, verr, apr_pstrcat(r->pool, "/", names[i], NULL), "format",
                         "%s must be an RFC 3339 timestamp such as 2026-11-21T00:00:00Z "
                         "(encode + as %%2B in a query string).",
                         names[i]);
        else
            given[i] = 1;
    }
    if (verr->errors)
        return verr;
    long long until_s = given[1] ? apr_time_sec(t[1]) : apr_time_sec(apr_time_now()) + 1;
    /* the day of the last instant before until, and the day after it */
    *end = (until_s - 1) / DAY_S + 1;
    *first = given[0] ? apr_time_sec(t[0]) / DAY_S : *end - DAYS_DEFAULT;
    if (given[0] && given[1] && t[0] >= t[1])
        fs_error_add(r->pool, verr, "/until", "minimum", "until must be later than since.");
    else if (*end - *first > DAYS_MAX)
        fs_error_add(r->pool, verr, "/since", "maximum",
                     "At most %d days: move since closer to until.", DAYS_MAX);
    return verr->errors ? verr : NULL;
}

/* A number's text (as jsonb wrote it) as a JSON number: an integer when
 * it is one. */
static json_object *number(const char *v) {
    if (!strpbrk(v, ".eE"))
        return json_object_new_int64(apr_atoi64(v));
    return json_object_new_double(strtod(v, NULL));
}

/* The rows [*i, n) of key: added to q as the field's type asks. */
static void one_question(apr_pool_t *p, json_object *q, const char *type, json_object *field,
                         const fs_insight_row *rows, int n, int at, long long submissions) {
    long long answered = 0, nums = 0;
    int num_first = -1, num_last = -1;
    double sum = 0;
    json_object *opts = NULL;
    /* a consent is a boolean that can only be true: its count of true */
    int yesno = !strcmp(type, "boolean") || !strcmp(type, "consent");
    int choice = !strcmp(type, "select") || !strcmp(type, "multiselect") || yesno;
    if (choice) {
        /* every option of the field, zeros too, in the field's order */
        opts = json_object_new_array();
        json_object *defined = fs_json_get(field, "options");
        if (yesno) {
            defined = fs_json_own(p, json_object_new_array());
            json_object_array_add(defined, json_object_new_string("true"));
            json_object_array_add(defined, json_object_new_string("false"));
        }
        for (size_t k = 0; defined && k < json_object_array_length(defined); k++) {
            json_object *o = json_object_array_get_idx(defined, k);
            json_object *val =
                json_object_is_type(o, json_type_object) ? fs_json_get(o, "value") : o;
            json_object *item = json_object_new_object();
            json_object_object_add(item, "value",
                                   json_object_new_string(json_object_get_string(val)));
            json_object_object_add(item, "count", json_object_new_int64(0));
            json_object_array_add(opts, item);
        }
    }
    for (int i = at; i < n && !strcmp(rows[i].key, rows[at].key); i++) {
        const fs_insight_row *x = &rows[i];
        if (!strcmp(x->kind, "ans"))
            answered += x->n;
        else if (!strcmp(x->kind, "opt") && opts) {
            int found = 0;
            for (size_t k = 0; k < json_object_array_length(opts) && !found; k++) {
                json_object *item = json_object_array_get_idx(opts, k);
                if (!strcmp(json_object_get_string(fs_json_get(item, "value")), x->value)) {
                    json_object_object_add(item, "count", json_object_new_int64(x->n));
                    found = 1;
                }
            }
            if (!found) { /* an option the field no longer has */
                json_object *item = json_object_new_object();
                json_object_object_add(item, "value", json_object_new_string(x->value));
                json_object_object_add(item, "count", json_object_new_int64(x->n));
                json_object_array_add(opts, item);
            }
        } else if (!strcmp(x->kind, "num")) {
            if (num_first < 0)
                num_first = i;
            num_last = i;
            nums += x->n;
            sum += strtod(x->value, NULL) * (double)x->n;
        }
    }
    json_object_object_add(q, "answered", json_object_new_int64(answered));
    json_object_object_add(
        q, "answerRate",
        submissions > 0
            ? json_object_new_double(
                  (double)(long long)((double)answered * 10000 / (double)submissions + 0.5) / 10000)
            : NULL);
    if (opts) {
        if (yesno) /* true and false as JSON booleans */
            for (size_t k = 0; k < json_object_array_length(opts); k++) {
                json_object *item = json_object_array_get_idx(opts, k);
                const char *v = json_object_get_string(fs_json_get(item, "value"));
                json_object_object_add(item, "value", json_object_new_boolean(!strcmp(v, "true")));
            }
        json_object_object_add(q, "options", opts);
    }
    int numeric = !strcmp(type, "number") || !strcmp(type, "integer") || !strcmp(type, "rating") ||
                  !strcmp(type, "scale");
    if (!numeric)
        return;
    json_object_object_add(q, "min", num_first >= 0 ? number(rows[num_first].value) : NULL);
    json_object_object_add(q, "max", num_last >= 0 ? number(rows[num_last].value) : NULL);
    json_object_object_add(q, "mean", nums ? json_object_new_double(sum / (double)nums) : NULL);
    /* the lower median: the value at position ceil(nums / 2) in order,
     * exact (the counts are per value) */
    json_object *median = NULL;
    long long seen = 0, want = (nums + 1) / 2;
    for (int i = num_first; num_first >= 0 && i <= num_last; i++) {
        if (strcmp(rows[i].kind, "num"))
            continue;
        seen += rows[i].n;
        if (seen >= want) {
            median = number(rows[i].value);
            break;
        }
    }
    json_object_object_add(q, "median", median);
    if (!strcmp(type, "rating") || !strcmp(type, "scale")) { /* the histogram: every value given */
        json_object *h = json_object_new_array();
        for (int i = num_first; num_first >= 0 && i <= num_last; i++) {
            json_object *item = json_object_new_object();
            json_object_object_add(item, "value", number(rows[i].value));
            json_object_object_add(item, "count", json_object_new_int64(rows[i].n));
            json_object_array_add(h, item);
        }
        json_object_object_add(q, "histogram", h);
    }
}

/* The first row of key (rows are sorted by key), or n. */
static int rows_of(const fs_insight_row *rows, int n, const char *key) {
    int at = 0;
    while (at < n && strcmp(rows[at].key, key))
        at++;
    return at;
}

/* qsort: more answers first, then by value */
static int by_count(const void *a, const void *b) {
    const fs_insight_row *x = *(const fs_insight_row *const *)a,
                         *y = *(const fs_insight_row *const *)b;
    if (x->n != y->n)
        return x->n > y->n ? -1 : 1;
    return strcmp(x->value, y->value);
}

/* A matrix's rows (sql/0063: items "<key>.<row>" of kind opt): q.rows
 * [{key, label, options: [{value, count}]}], every column of every row in
 * the field's order, zeros too. A ranking's places (kind place, value
 * "<place>:<option>"): q.options [{value, count, meanPlace}] in the
 * field's order (count: the answers that ranked it; meanPlace null when
 * none did). An address's countries (sql/0067): q.countries
 * [{value, count}], the codes given, most answers first. */
static void choice_question(apr_pool_t *p, json_object *q, const char *type, json_object *field,
                            const fs_insight_row *rows, int n) {
    const char *key = json_object_get_string(fs_json_get(field, "key"));
    if (!strcmp(type, "matrix")) {
        json_object *out = json_object_new_array();
        json_object *rdefs = fs_json_get(field, "rows"), *cdefs = fs_json_get(field, "columns");
        for (size_t r = 0; rdefs && r < json_object_array_length(rdefs); r++) {
            json_object *rd = json_object_array_get_idx(rdefs, r);
            const char *rk = json_object_get_string(fs_json_get(rd, "key"));
            const char *ck = apr_pstrcat(p, key, ".", rk, NULL);
            int at = rows_of(rows, n, ck);
            json_object *row = json_object_new_object(), *opts = json_object_new_array();
            json_object_object_add(row, "key", json_object_new_string(rk ? rk : ""));
            json_object_object_add(row, "label", json_object_get(fs_json_get(rd, "label")));
            for (size_t c = 0; cdefs && c < json_object_array_length(cdefs); c++) {
                const char *cv = json_object_get_string(
                    fs_json_get(json_object_array_get_idx(cdefs, c), "value"));
                long long count = 0;
                for (int i = at; i < n && !strcmp(rows[i].key, ck); i++)
                    if (!strcmp(rows[i].kind, "opt") && cv && !strcmp(rows[i].value, cv))
                        count = rows[i].n;
                json_object *item = json_object_new_object();
                json_object_object_add(item, "value", json_object_new_string(cv ? cv : ""));
                json_object_object_add(item, "count", json_object_new_int64(count));
                json_object_array_add(opts, item);
            }
            json_object_object_add(row, "options", opts);
            json_object_array_add(out, row);
        }
        json_object_object_add(q, "rows", out);
    } else if (!strcmp(type, "ranking")) {
        json_object *out = json_object_new_array(), *odefs = fs_json_get(field, "options");
        int at = rows_of(rows, n, key);
        for (size_t k = 0; odefs && k < json_object_array_length(odefs); k++) {
            const char *ov =
                json_object_get_string(fs_json_get(json_object_array_get_idx(odefs, k), "value"));
            long long times = 0, sum = 0;
            for (int i = at; ov && i < n && !strcmp(rows[i].key, key); i++) {
                const char *colon = strchr(rows[i].value, ':');
                if (!strcmp(rows[i].kind, "place") && colon && !strcmp(colon + 1, ov)) {
                    times += rows[i].n;
                    sum += apr_atoi64(rows[i].value) * rows[i].n;
                }
            }
            json_object *item = json_object_new_object();
            json_object_object_add(item, "value", json_object_new_string(ov ? ov : ""));
            json_object_object_add(item, "count", json_object_new_int64(times));
            json_object_object_add(item, "meanPlace",
                                   times ? json_object_new_double((double)sum / (double)times)
                                         : NULL);
            json_object_array_add(out, item);
        }
        json_object_object_add(q, "options", out);
    } else if (!strcmp(type, "address")) {
        /* the countries given (sql/0067: items "<key>.country" of kind
         * opt), most answers first, then by code; none given: [] */
        const char *ck = apr_pstrcat(p, key, ".country", NULL);
        int at = rows_of(rows, n, ck), end = at;
        while (end < n && !strcmp(rows[end].key, ck))
            end++;
        const fs_insight_row **by = apr_pcalloc(p, sizeof(*by) * (size_t)(end - at + 1));
        int m = 0;
        for (int i = at; i < end; i++)
            if (!strcmp(rows[i].kind, "opt"))
                by[m++] = &rows[i];
        qsort(by, (size_t)m, sizeof(*by), by_count);
        json_object *out = json_object_new_array();
        for (int i = 0; i < m; i++) {
            json_object *item = json_object_new_object();
            json_object_object_add(item, "value", json_object_new_string(by[i]->value));
            json_object_object_add(item, "count", json_object_new_int64(by[i]->n));
            json_object_array_add(out, item);
        }
        json_object_object_add(q, "countries", out);
    }
}

/* settings.partial (sql/0059): where the unfinished partial answers
 * stand now, per page of the form as served (the drop-off): {unfinished,
 * pages: [{page (1-based), key, title, stopped}]}, stopped being how many
 * have reached that page and gone no further yet. NULL when the form does
 * not keep partials. */
static fs_error *partials(request_rec *r, formsvc_form *form, json_object **out) {
    json_object *v = fs_json_get(form->settings, "partial");
    *out = NULL;
    if (!v || !json_object_get_boolean(v))
        return NULL;
    const fs_fieldset *fs = fs_fieldset_from_json(r->pool, form->fields);
    long long *counts;
    int n;
    fs_error *e = fs_store_partial_pages(formsvc_store(r), form->id,
                                         formsvc_req_get(r)->who->user_id, &counts, &n);
    if (e)
        return e;
    long long total = 0;
    json_object *o = json_object_new_object(), *pages = json_object_new_array();
    int np = fs && fs->npages > 0 ? fs->npages : 1;
    for (int q = 0; q < np || q < n; q++) {
        long long c = q < n ? counts[q] : 0;
        total += c;
        json_object *pg = json_object_new_object();
        json_object_object_add(pg, "page", json_object_new_int(q + 1));
        const fs_fieldpage *fp = fs && q < fs->npages ? &fs->pages[q] : NULL;
        json_object_object_add(pg, "key", fp && fp->key ? json_object_new_string(fp->key) : NULL);
        json_object_object_add(pg, "title",
                               fp && fp->title ? json_object_new_string(fp->title) : NULL);
        json_object_object_add(pg, "stopped", json_object_new_int64(c));
        json_object_array_add(pages, pg);
    }
    json_object_object_add(o, "unfinished", json_object_new_int64(total));
    json_object_object_add(o, "pages", pages);
    *out = o;
    return NULL;
}

static int formsvc_h_insights(request_rec *r, const char *const *caps) {
    formsvc_form *form;
    long long first, end;
    fs_error *e = read_range(r, &first, &end);
    if (!e)
        e = formsvc_form_load(r, caps[0], &form);
    if (e)
        return formsvc_send_problem(r, e);
    fs_insight_row *rows;
    int n;
    if ((e = fs_store_insights(formsvc_store(r), form->id, day_text(r->pool, first),
                               day_text(r->pool, end), &rows, &n)))
        return formsvc_send_problem(r, e);
    long long submissions = 0;
    for (int i = 0; i < n; i++)
        if (!strcmp(rows[i].kind, "sub"))
            submissions += rows[i].n;
    json_object *o = fs_json_own(r->pool, json_object_new_object());
    json_object_object_add(o, "formId", json_object_new_string(form->id));
    json_object_object_add(o, "since",
                           json_object_new_string(apr_pstrcat(r->pool, day_text(r->pool, first),
                                                              "T00:00:00.000Z", NULL)));
    json_object_object_add(o, "until",
                           json_object_new_string(apr_pstrcat(r->pool, day_text(r->pool, end),
                                                              "T00:00:00.000Z", NULL)));
    json_object_object_add(o, "submissions", json_object_new_int64(submissions));
    json_object *qs = json_object_new_array();
    json_object_object_add(o, "questions", qs);
    for (size_t f = 0; f < json_object_array_length(form->fields); f++) {
        json_object *field = json_object_array_get_idx(form->fields, f);
        const char *key = json_object_get_string(fs_json_get(field, "key"));
        const char *type = json_object_get_string(fs_json_get(field, "type"));
        if (type && !strcmp(type, "page"))
            continue; /* layout, not a question */
        json_object *q = json_object_new_object();
        json_object_object_add(q, "key", json_object_new_string(key));
        json_object_object_add(q, "type", json_object_new_string(type));
        json_object *label = fs_json_get(field, "label");
        json_object_object_add(q, "label", label ? json_object_get(label) : NULL);
        int at = 0; /* a key's rows are together (sorted by key) */
        while (at < n && strcmp(rows[at].key, key))
            at++;
        one_question(r->pool, q, type, field, rows, n, at, submissions);
        choice_question(r->pool, q, type ? type : "", field, rows, n);
        json_object_array_add(qs, q);
    }
    json_object *pt;
    if ((e = partials(r, form, &pt)))
        return formsvc_send_problem(r, e);
    if (pt)
        json_object_object_add(o, "partials", pt);
    return formsvc_send_obj(r, 200, o);
}

const formsvc_route formsvc_routes_insights[] = {
    {M_GET, "/v1/forms/{id}/insights", formsvc_h_insights, FS_SC_SUBMISSIONS_READ, 1},
    {0, NULL, NULL, 0, 0}};
