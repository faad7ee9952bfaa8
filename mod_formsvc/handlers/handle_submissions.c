/* handle_submissions: the owner's side of submissions: list (JSON pages,
 * or the whole set as CSV with Accept: text/csv, streamed in batches),
 * get one, change its owner's state (status, tags, note; If-Match), delete
 * one. */
#include "fs_csv.h"
#include "fs_field_more.h"
#include "fs_json.h"
#include "fs_owner_state.h"
#include "fs_scores.h"
#include "fs_secret.h"
#include "fs_store_asks.h"
#include "fs_store_edits.h"
#include "fs_store_forms.h"
#include "fs_store_links.h"
#include "fs_store_partials.h"
#include "fs_store_retention.h"
#include "fs_util.h"
#include "http/asks.h"
#include "http/audit.h"
#include "http/auth.h"
#include "http/forms_access.h"
#include "http/owner_cache.h"
#include "http/request.h"
#include "http/response.h"
#include "http/router.h"
#include "http/subs_columns.h"
#include "http/subs_export.h"
#include "runtime/log.h"
#include "runtime/request_ctx.h"
#include "runtime/retention.h"

#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

/* A CSV export is read in batches as every export is (subs_export.h). */

static fs_error *no_submission(request_rec *r) {
    return fs_error_make(r->pool, "not-found", "No such submission.");
}

/* The form caps[0] names, for a submission id caps[1] of the right form:
 * NULL, or the problem to send (a 404 for an id that cannot be one). */
static fs_error *load_for_submission(request_rec *r, const char *const *caps, formsvc_form **form) {
    fs_error *e = formsvc_form_load(r, caps[0], form);
    if (!e && !fs_id_valid(caps[1], "sub_"))
        e = no_submission(r);
    return e;
}

/* q of one media type under an Accept header: the q of the most specific
 * range that matches it (type/subtype > type/asterisk > asterisk/asterisk), 0 when none. */
static double accept_q(request_rec *r, const char *accept, const char *type) {
    char *list = apr_pstrdup(r->pool, accept), *last = NULL;
    const char *slash = strchr(type, '/');
    apr_size_t tl = (apr_size_t)(slash - type);
    int best = -1;
    double q_best = 0;
    for (char *item = apr_strtok(list, ",", &last); item; item = apr_strtok(NULL, ",", &last)) {
        char *plast = NULL;
        char *range = apr_strtok(item, ";", &plast);
        if (!range)
            continue;
        apr_collapse_spaces(range, range); /* returns the end, not the start */
        double q = 1;
        for (char *par = apr_strtok(NULL, ";", &plast); par; par = apr_strtok(NULL, ";", &plast)) {
            apr_collapse_spaces(par, par);
            if (!strncasecmp(par, "q=", 2))
                q = atof(par + 2);
        }
        int spec = -1;
        if (!strcasecmp(range, type))
            spec = 2;
        else if (strlen(range) == tl + 2 && !strncasecmp(range, type, tl) && range[tl] == '/' &&
                 range[tl + 1] == '*')
            spec = 1;
        else if (!strcmp(range, "*/*"))
            spec = 0;
        if (spec > best) {
            best = spec;
            q_best = q;
        }
    }
    return best < 0 ? 0 : q_best;
}

/* What the list is served as: the media type of highest q under Accept;
 * on a tie the first of JSON, CSV, JSON Lines, XLSX (docs/api.md). */
enum { SUBS_NONE = -1, SUBS_JSON, SUBS_CSV, SUBS_JSONL, SUBS_XLSX };
static int wants_format(request_rec *r) {
    const char *accept = apr_table_get(r->headers_in, "Accept");
    if (!accept || !*accept)
        return SUBS_JSON;
    static const char *const types[] = {"application/json", "text/csv", FORMSVC_JSONL_TYPE,
                                        FORMSVC_XLSX_TYPE};
    int best = SUBS_NONE;
    double q_best = 0;
    for (int i = 0; i < (int)(sizeof types / sizeof types[0]); i++) {
        double q = accept_q(r, accept, types[i]);
        if (q > q_best) {
            q_best = q;
            best = i;
        }
    }
    return best;
}

typedef struct {
    const char *spam, *since, *until, *link_id, *ask_id, *status, *tag;
} sub_filter;

/* ?linkId=: the id of one of the account's respondent links to the form
 * (withdrawn ones too: their submissions stay). *link_id NULL when not
 * given; a 422 for what cannot be a link id, a 404 for a link that is not
 * this form's. */
static fs_error *read_link_filter(request_rec *r, const char *form_id, const char **link_id) {
    const char *v, *of;
    fs_error *e = formsvc_arg(r, "linkId", &v);
    *link_id = NULL;
    if (e || !v)
        return e;
    if (!fs_id_valid(v, "lnk_")) {
        fs_error *verr = fs_error_validation(r->pool);
        fs_error_add(r->pool, verr, "/linkId", "format",
                     "linkId must be the id of a respondent link (lnk_...).");
        return verr;
    }
    if ((e = fs_store_link_form(formsvc_store(r), formsvc_req_get(r)->who->user_id, v, &of)))
        return e;
    if (!of || (form_id && strcmp(of, form_id)))
        return fs_error_make(r->pool, "not-found", "No such link.");
    *link_id = v;
    return NULL;
}

/* ?askId=: the id of one of the account's asks whose form is this one
 * (the submission through its link). *ask_id NULL when not given; a 422
 * for what cannot be an ask id, a 404 for another account's ask or an
 * ask of another form. */
static fs_error *read_ask_filter(request_rec *r, const char *form_id, const char **ask_id) {
    const char *v, *of;
    fs_error *e = formsvc_arg(r, "askId", &v);
    *ask_id = NULL;
    if (e || !v)
        return e;
    if (!fs_id_valid(v, "ask_")) {
        fs_error *verr = fs_error_validation(r->pool);
        fs_error_add(r->pool, verr, "/askId", "format",
                     "askId must be the id of an ask (ask_...).");
        return verr;
    }
    if ((e = formsvc_ask_form(r, v, &of)))
        return e;
    if (!of || (form_id && strcmp(of, form_id)))
        return fs_error_make(r->pool, "not-found", "No such ask.");
    *ask_id = v;
    return NULL;
}

static fs_error *read_filter(request_rec *r, const char *form_id, sub_filter *f) {
    const char *spam, *v[2];
    fs_error *bad = formsvc_arg(r, "spam", &spam);
    if (!bad)
        bad = formsvc_arg(r, "since", &v[0]);
    if (!bad)
        bad = formsvc_arg(r, "until", &v[1]);
    if (!bad)
        bad = read_link_filter(r, form_id, &f->link_id);
    if (!bad)
        bad = read_ask_filter(r, form_id, &f->ask_id);
    if (!bad)
        bad = formsvc_arg(r, "status", &f->status);
    if (!bad)
        bad = formsvc_arg(r, "tag", &f->tag);
    if (bad)
        return bad;
    fs_error *verr = fs_error_validation(r->pool);
    if (f->status && !fs_owner_status_valid(f->status))
        fs_error_add(r->pool, verr, "/status", "enum",
                     "status is new, in_progress, done or rejected.");
    if (f->tag) {
        const char *t = fs_tag_normalise(r->pool, f->tag);
        if (!t)
            fs_error_add(r->pool, verr, "/tag", "pattern",
                         "A tag is 1 to %d characters of letters a-z, digits and - _ : . , "
                         "beginning with a letter or digit.",
                         FS_TAG_MAX_LEN);
        f->tag = t;
    }
    f->spam = "f";
    if (spam && !strcmp(spam, "true"))
        f->spam = "t";
    else if (spam && strcmp(spam, "false"))
        fs_error_add(r->pool, verr, "/spam", "type", "spam is true or false.");
    const char *names[2] = {"since", "until"};
    const char **outs[2] = {&f->since, &f->until};
    for (int i = 0; i < 2; i++) {
        apr_time_t t;
        *outs[i] = NULL;
        if (!v[i])
            continue;
        if (!fs_time_parse_rfc3339(v[i], &t))
            fs_error_add(r->pool, verr, apr_pstrcat(r->pool, "/", names[i], NULL), "format",
                         "%s must be an RFC 3339 timestamp such as 2026-11-21T00:00:00Z "
                         "(encode + as %%2B in a query string).",
                         names[i]);
        else
            *outs[i] = apr_psprintf(r->pool, "%s", fs_time_format(r->pool, t));
    }
    return verr->errors ? verr : NULL;
}

/* ?completed=true (the default: what every client before partial
 * answers saw) or false: the partial answers of the form, newest first,
 * as JSON only and with no other filter (they are neither spam-checked
 * nor the owner's to tag yet). */
static fs_error *read_completed(request_rec *r, const sub_filter *f, int csv, int *completed) {
    const char *v;
    fs_error *e = formsvc_arg(r, "completed", &v);
    *completed = 1;
    if (e || !v)
        return e;
    fs_error *verr = fs_error_validation(r->pool);
    if (!strcmp(v, "false"))
        *completed = 0;
    else if (strcmp(v, "true"))
        fs_error_add(r->pool, verr, "/completed", "type", "completed is true or false.");
    else
        return NULL;
    if (!verr->errors && (csv || f->since || f->until || f->link_id || f->ask_id || f->status ||
                          f->tag || f->spam[0] == 't'))
        fs_error_add(r->pool, verr, "/completed", "enum",
                     "completed=false lists partial answers as JSON, with no other filter.");
    return verr->errors ? verr : NULL;
}

static int send_csv(request_rec *r, formsvc_form *form, const sub_filter *flt) {
    int with_spam = flt->spam[0] == 't';
    fs_sub_filter which = {form->id,    formsvc_req_get(r)->who->user_id,
                           with_spam,   flt->since,
                           flt->until,  flt->link_id,
                           flt->status, flt->tag,
                           flt->ask_id};
    /* the columns, as the XLSX export has them (http/subs_columns.h) */
    formsvc_sub_cols cols;
    fs_error *le = formsvc_sub_cols_make(r, form, with_spam, &cols);
    if (le)
        return formsvc_send_problem(r, le);
    const int links = cols.links, asked = cols.asked, owned = cols.owned, ended = cols.ended;
    const int ncalc = cols.ncalc, scored = cols.scored, parted = cols.parted, ncols = cols.n;
    const char **keys = cols.keys;
    const size_t nf = (size_t)cols.nq;
    const char **cells = apr_pcalloc(r->pool, sizeof(char *) * (size_t)ncols);
    for (int i = 0; i < ncols; i++)
        cells[i] = fs_csv_cell(r->pool, cols.names[i]);
    const char *after = NULL;
    int started = 0, limit = FORMSVC_SUBS_FIRST;
    /* one buffer for every batch's CSV, and one for a string being
     * unescaped: the export's memory is the largest batch, whatever its
     * length */
    apr_array_header_t *buf = apr_array_make(r->pool, FORMSVC_SUBS_BATCH_BYTES, 1);
    apr_array_header_t *scratch = apr_array_make(r->pool, 1024, 1);
    for (;;) {
        apr_pool_t *sub;
        apr_pool_create(&sub, r->pool);
        fs_sub_batch rs;
        fs_error *e =
            fs_store_sub_export(fs_store_sub(formsvc_store(r), sub), &which, after, limit, &rs);
        if (e) {
            apr_pool_destroy(sub);
            if (!started)
                return formsvc_send_problem(r, e);
            /* the status line is gone: cut the response short so the
             * client sees an incomplete transfer rather than a short file */
            FORMSVC_LOG(r, APLOG_ERR, 00410, "CSV export of %s cut short: %s", form->id,
                        e->cause ? e->cause : e->slug);
            formsvc_send_cut(r);
            return OK;
        }
        buf->nelts = 0;
        if (!started) {
            formsvc_subs_download_headers(r, form, "csv");
            formsvc_send_start(r, 200, "text/csv; charset=utf-8; header=present");
            if (r->header_only) {
                apr_pool_destroy(sub);
                return OK;
            }
            fs_csv_row(buf, cells, ncols);
            started = 1;
        }
        /* each row written straight into buf: the answers read from their
         * jsonb text (fs_csv_put_answers), json-c only for what it leaves */
        for (int i = 0; i < rs.n; i++) {
            const fs_sub_export_row *x = &rs.rows[i];
            fs_csv_put_cell(buf, x->id);
            fs_csv_put(buf, ",", 1);
            fs_csv_put_cell(buf, x->created_at);
            fs_csv_put(buf, ",", 1);
            fs_csv_put_cell(buf, x->form_version);
            if (with_spam)
                fs_csv_put(buf, x->spam ? ",true" : ",false", x->spam ? 5 : 6);
            if (parted || fs_csv_put_answers(buf, scratch, sub, x->data, keys, (int)nf)) {
                json_object *data = fs_json_parse_trusted(sub, x->data);
                for (size_t f = 0; f < nf; f++) {
                    const char *v = fs_csv_value(sub, fs_field_column_value(data, keys[f]));
                    fs_csv_put(buf, ",", 1);
                    fs_csv_put(buf, v, strlen(v));
                }
            }
            if (links) {
                fs_csv_put(buf, ",", 1);
                fs_csv_put_cell(buf, x->link_id);
                /* compact, as the API writes JSON (jsonb's text has spaces) */
                json_object *m = x->link_metadata && *x->link_metadata
                                     ? fs_json_parse_trusted(sub, x->link_metadata)
                                     : NULL;
                fs_csv_put(buf, ",", 1);
                fs_csv_put_cell(buf, m ? fs_json_str(sub, m) : NULL);
            }
            if (asked) {
                fs_csv_put(buf, ",", 1);
                fs_csv_put_cell(buf, x->ask_id);
            }
            if (owned) {
                fs_csv_put(buf, ",", 1);
                fs_csv_put_cell(buf, x->status);
                fs_csv_put(buf, ",", 1);
                fs_csv_put_cell(buf, x->tags);
                fs_csv_put(buf, ",", 1);
                fs_csv_put_cell(buf, x->note);
            }
            if (ended) {
                fs_csv_put(buf, ",", 1);
                fs_csv_put_cell(buf, x->ending);
            }
            const char **cv =
                ncalc ? fs_scores_csv_values(sub, cols.calc, ncalc, x->calculated) : NULL;
            for (int k = 0; k < ncalc; k++) {
                fs_csv_put(buf, ",", 1);
                fs_csv_put(buf, cv[k], strlen(cv[k]));
            }
            if (scored) {
                fs_csv_put(buf, ",", 1);
                fs_csv_put_cell(buf, x->spam_score);
            }
            fs_csv_put(buf, "\r\n", 2);
        }
        int more = rs.n == limit;
        limit = formsvc_subs_next_limit(limit, (apr_size_t)buf->nelts);
        formsvc_send_more(r, buf->elts, (apr_size_t)buf->nelts, more);
        if (more)
            after = apr_pstrdup(r->pool, rs.rows[rs.n - 1].id);
        apr_pool_destroy(sub);
        if (!more || r->connection->aborted)
            break;
    }
    return OK;
}

static int formsvc_h_subs_list(request_rec *r, const char *const *caps) {
    formsvc_form *form;
    fs_error *e = formsvc_form_load(r, caps[0], &form);
    if (e)
        return formsvc_send_problem(r, e);
    int format = wants_format(r), csv = format == SUBS_CSV;
    if (format == SUBS_NONE)
        return formsvc_send_problem(
            r, fs_error_make(r->pool, "not-acceptable",
                             "Submissions are served as application/json, text/csv, "
                             "application/x-ndjson or " FORMSVC_XLSX_TYPE "."));
    sub_filter flt;
    if ((e = read_filter(r, form->id, &flt)))
        return formsvc_send_problem(r, e);
    int completed;
    if ((e = read_completed(r, &flt, csv || format == SUBS_XLSX, &completed)))
        return formsvc_send_problem(r, e);
    if (csv)
        return send_csv(r, form, &flt);
    if (format == SUBS_JSONL || format == SUBS_XLSX) {
        fs_sub_filter which = {form->id,           formsvc_req_get(r)->who->user_id,
                               flt.spam[0] == 't', flt.since,
                               flt.until,          flt.link_id,
                               flt.status,         flt.tag,
                               flt.ask_id};
        return format == SUBS_XLSX ? formsvc_subs_send_xlsx(r, form, &which)
                                   : formsvc_subs_send_jsonl(r, form, &which, completed);
    }
    int limit;
    const char *after;
    if ((e = formsvc_paging(r, "subs", "sub_", &limit, &after)))
        return formsvc_send_problem(r, e);
    if (!completed) { /* partial answers (settings.partial, sql/0059) */
        fs_list_page page;
        if ((e = fs_store_partial_list(formsvc_store(r), form->id, formsvc_req_get(r)->who->user_id,
                                       after, limit, &page)))
            return formsvc_send_problem(r, e);
        apr_table_setn(r->headers_out, "Vary", "Accept");
        return formsvc_send_page(r, "subs", &page);
    }
    fs_sub_filter which = {form->id,           formsvc_req_get(r)->who->user_id,
                           flt.spam[0] == 't', flt.since,
                           flt.until,          flt.link_id,
                           flt.status,         flt.tag,
                           flt.ask_id};
    fs_list_page page;
    if ((e = fs_store_sub_list(formsvc_store(r), &which, after, limit, &page)))
        return formsvc_send_problem(r, e);
    apr_table_setn(r->headers_out, "Vary", "Accept");
    return formsvc_send_page(r, "subs", &page);
}

static int formsvc_h_subs_get(request_rec *r, const char *const *caps) {
    formsvc_form *form;
    fs_error *e = load_for_submission(r, caps, &form);
    if (e)
        return formsvc_send_problem(r, e);
    const char *json;
    if ((e = fs_store_sub_get(formsvc_store(r), formsvc_req_get(r)->who->user_id, form->id, caps[1],
                              &json)))
        return formsvc_send_problem(r, e);
    if (!json)
        return formsvc_send_problem(r, no_submission(r));
    formsvc_set_etag(r, formsvc_version_of(r, json));
    return formsvc_send_json(r, 200, json);
}

static fs_error *stale_submission(request_rec *r, int current) {
    formsvc_set_etag(r, current);
    return fs_error_make(r->pool, "precondition-failed",
                         "If-Match does not match the submission's current ETag \"%d\"; fetch it "
                         "again and reapply the change.",
                         current);
}

/* PATCH /v1/forms/{id}/submissions/{sid} {status?, tags?, note?}: the
 * owner's state of a submission, behind If-Match (its ETag, the version in
 * its JSON): 428 without, 412 when it is not current. Writes a
 * submission.updated event in the same statement. The body is read before
 * any connection is taken. */
static int formsvc_h_subs_patch(request_rec *r, const char *const *caps) {
    if (formsvc_if_match_absent(r))
        return formsvc_send_problem(
            r, fs_error_make(r->pool, "precondition-required",
                             "Send If-Match with the submission's ETag (GET it first): a change "
                             "of its state applies only to the state it was read in."));
    json_object *body;
    fs_error *e = formsvc_read_json(r, 0, &body);
    if (e)
        return formsvc_send_problem(r, e);
    fs_error *verr = fs_error_validation(r->pool);
    fs_owner_change c;
    if (!fs_owner_change_parse(r->pool, body, &c, verr))
        return formsvc_send_problem(r, verr);
    formsvc_form *form;
    if ((e = load_for_submission(r, caps, &form)))
        return formsvc_send_problem(r, e);
    const char *uid = formsvc_req_get(r)->who->user_id, *json;
    if ((e = fs_store_sub_get(formsvc_store(r), uid, form->id, caps[1], &json)))
        return formsvc_send_problem(r, e);
    if (!json)
        return formsvc_send_problem(r, no_submission(r));
    int version = formsvc_version_of(r, json), before;
    if (!formsvc_if_match_ok(r, version))
        return formsvc_send_problem(r, stale_submission(r, version));
    if ((e = fs_store_sub_update(formsvc_store(r), uid, form->id, caps[1], version, &c, &before,
                                 &json)))
        return formsvc_send_problem(r, e);
    if (!before)
        return formsvc_send_problem(r, no_submission(r));
    if (!json) /* changed by another request since it was read */
        return formsvc_send_problem(r, stale_submission(r, before));
    formsvc_audit_form(r, "submission.updated", caps[1], form->id);
    formsvc_set_etag(r, formsvc_version_of(r, json));
    return formsvc_send_json(r, 200, json);
}

static int formsvc_h_subs_delete(request_rec *r, const char *const *caps) {
    formsvc_form *form;
    fs_error *e = load_for_submission(r, caps, &form);
    if (e)
        return formsvc_send_problem(r, e);
    int deleted;
    if ((e = fs_store_sub_delete(formsvc_store(r), formsvc_req_get(r)->who->user_id, form->id,
                                 caps[1], &deleted)))
        return formsvc_send_problem(r, e);
    if (!deleted)
        return formsvc_send_problem(r, no_submission(r));
    formsvc_owner_count_changed(r->pool, form->id);
    formsvc_audit_form(r, "submission.deleted", caps[1], form->id);
    return formsvc_send_empty(r, HTTP_NO_CONTENT);
}

/* DELETE /v1/forms/{id}/submissions?before=<RFC 3339>: the form's
 * submissions created before that time. At most FORMSVC_RETENTION_BATCH
 * go at once (200, {"deleted": n}); a larger set is queued for the
 * retention task (202, {"purgeId": ...}), which finishes it in batches.
 * Either way a submissions.deleted event with the count follows. */
static int formsvc_h_subs_delete_before(request_rec *r, const char *const *caps) {
    formsvc_form *form;
    const char *before;
    fs_error *e = formsvc_form_load(r, caps[0], &form);
    if (!e)
        e = formsvc_arg(r, "before", &before);
    if (e)
        return formsvc_send_problem(r, e);
    apr_time_t t;
    if (!before || !fs_time_parse_rfc3339(before, &t)) {
        fs_error *verr = fs_error_validation(r->pool);
        fs_error_add(r->pool, verr, "/before", before ? "format" : "required",
                     "before must be an RFC 3339 timestamp such as 2026-11-21T00:00:00Z "
                     "(encode + as %%2B in a query string): the submissions created before it "
                     "are deleted.");
        return formsvc_send_problem(r, verr);
    }
    const char *purge_id = fs_id_new(r->pool, "prg_"), *outcome;
    int deleted;
    if ((e = fs_store_purge_request(formsvc_store(r), purge_id, formsvc_req_get(r)->who->user_id,
                                    form->id, fs_time_format(r->pool, t), FORMSVC_RETENTION_BATCH,
                                    &outcome, &deleted)))
        return formsvc_send_problem(r, e);
    if (!outcome || !strcmp(outcome, "not_found"))
        return formsvc_send_problem(r, fs_error_make(r->pool, "not-found", "No such form."));
    json_object *o = json_object_new_object();
    fs_json_own(r->pool, o);
    if (!strcmp(outcome, "queued")) {
        formsvc_audit_form(r, "submissions.delete_queued", purge_id, form->id);
        json_object_object_add(o, "purgeId", json_object_new_string(purge_id));
        json_object_object_add(o, "status", json_object_new_string("queued"));
        return formsvc_send_obj(r, HTTP_ACCEPTED, o);
    }
    formsvc_owner_count_changed(r->pool, form->id);
    formsvc_audit_form(r, "submissions.deleted", form->id, form->id);
    json_object_object_add(o, "deleted", json_object_new_int(deleted));
    json_object_object_add(o, "status", json_object_new_string("done"));
    return formsvc_send_obj(r, HTTP_OK, o);
}

/* GET /v1/forms/{id}/submissions/export/link?format=csv|xlsx|jsonl and
 * the list's filters: where to download the whole export (the MCP tool
 * get_export_url): the list's URL with those filters, the Accept header
 * that picks the format, and the credential to send. The filters are
 * checked as the list checks them; nothing is signed into the URL, so it
 * is no secret and gives nothing by itself (docs/mcp.md). */
static int formsvc_h_subs_export_link(request_rec *r, const char *const *caps) {
    static const char *const formats[][3] = {
        {"csv", "text/csv", "text/csv; charset=utf-8; header=present"},
        {"xlsx", FORMSVC_XLSX_TYPE, FORMSVC_XLSX_TYPE},
        {"jsonl", FORMSVC_JSONL_TYPE, FORMSVC_JSONL_TYPE}};
    formsvc_form *form;
    fs_error *e = formsvc_form_load(r, caps[0], &form);
    if (e)
        return formsvc_send_problem(r, e);
    const char *format;
    if ((e = formsvc_arg(r, "format", &format)))
        return formsvc_send_problem(r, e);
    int which = -1;
    for (int i = 0; i < 3 && format; i++)
        if (!strcmp(format, formats[i][0]))
            which = i;
    fs_error *verr = fs_error_validation(r->pool);
    if (which < 0)
        fs_error_add(r->pool, verr, "/format", format ? "enum" : "required",
                     "format is csv, xlsx or jsonl.");
    sub_filter flt;
    if ((e = read_filter(r, form->id, &flt)))
        return formsvc_send_problem(r, e);
    if (verr->errors)
        return formsvc_send_problem(r, verr);
    /* completed=false as the export of that format takes it (JSON Lines
     * only), so that the URL given is one that answers */
    int completed;
    if ((e = read_completed(r, &flt, which != 2, &completed)))
        return formsvc_send_problem(r, e);
    /* the query as given, without format: the list's own parameters */
    apr_array_header_t *kept = apr_array_make(r->pool, 8, sizeof(const char *));
    char *a = apr_pstrdup(r->pool, r->args ? r->args : ""), *last = NULL;
    for (char *kv = apr_strtok(a, "&", &last); kv; kv = apr_strtok(NULL, "&", &last))
        if (strncmp(kv, "format=", 7) && strcmp(kv, "format")) {
            APR_ARRAY_PUSH(kept, const char *) = kept->nelts ? "&" : "?";
            APR_ARRAY_PUSH(kept, const char *) = kv;
        }
    const char *query = apr_array_pstrcat(r->pool, kept, 0);
    json_object *out = fs_json_own(r->pool, json_object_new_object());
    json_object_object_add(
        out, "url",
        json_object_new_string(apr_pstrcat(r->pool, formsvc_base_url(r), "/v1/forms/", form->id,
                                           "/submissions", query, NULL)));
    json_object_object_add(out, "method", json_object_new_string("GET"));
    json_object *h = json_object_new_object();
    json_object_object_add(h, "Accept", json_object_new_string(formats[which][1]));
    json_object_object_add(out, "headers", h);
    json_object_object_add(out, "mediaType", json_object_new_string(formats[which][2]));
    json_object_object_add(
        out, "authentication",
        json_object_new_string("Authorization: Bearer <a credential of this account with "
                               "submissions:read>"));
    return formsvc_send_obj(r, 200, out);
}

/* GET /v1/forms/{id}/submissions/{sid}/versions: the versions of the
 * submission's answers (settings.allowEdits: each edit by its respondent
 * makes one, sql/0065), newest first, paged as other lists. */
static int formsvc_h_subs_versions(request_rec *r, const char *const *caps) {
    formsvc_form *form;
    fs_error *e = load_for_submission(r, caps, &form);
    if (e)
        return formsvc_send_problem(r, e);
    int limit;
    const char *after;
    if ((e = formsvc_paging(r, "versions", "ver_", &limit, &after)))
        return formsvc_send_problem(r, e);
    fs_list_page page;
    if ((e = fs_store_versions_list(formsvc_store(r), caps[1], form->id,
                                    formsvc_req_get(r)->who->user_id, after, limit, &page)))
        return formsvc_send_problem(r, e);
    if (!page.n && !after)
        return formsvc_send_problem(r, no_submission(r));
    return formsvc_send_page(r, "versions", &page);
}

const formsvc_route formsvc_routes_submissions[] = {
    {M_GET, "/v1/forms/{id}/submissions", formsvc_h_subs_list, FS_SC_SUBMISSIONS_READ, 1},
    {M_DELETE, "/v1/forms/{id}/submissions", formsvc_h_subs_delete_before, FS_SC_SUBMISSIONS_WRITE,
     1},
    {M_GET, "/v1/forms/{id}/submissions/{sid}", formsvc_h_subs_get, FS_SC_SUBMISSIONS_READ, 1},
    {M_PATCH, "/v1/forms/{id}/submissions/{sid}", formsvc_h_subs_patch, FS_SC_SUBMISSIONS_WRITE, 1},
    {M_DELETE, "/v1/forms/{id}/submissions/{sid}", formsvc_h_subs_delete, FS_SC_SUBMISSIONS_WRITE,
     1},
    {M_GET, "/v1/forms/{id}/submissions/export/link", formsvc_h_subs_export_link,
     FS_SC_SUBMISSIONS_READ, 1},
    {M_GET, "/v1/forms/{id}/submissions/{sid}/versions", formsvc_h_subs_versions,
     FS_SC_SUBMISSIONS_READ, 1},
    {0, NULL, NULL, 0, 0}};
