/* public_edit: editing after sending (settings.allowEdits, sql/0065,
 * docs/public-forms.md "Changing the answers"). A form that allows edits
 * puts a private edit link on its thanks page: /f/{id}?edit=<token>
 * (fs_edit.h). Opening it shows the form filled with the submission's
 * current answers (every page of a form of several pages); the page
 * posts to the same address, and the post goes through every check a
 * submission goes through (public_submit.c) until it would be stored:
 * there formsvc_edit_store makes a new version of the same submission
 * instead. Edits are offered on forms without linkRequired; the files
 * sent are kept (an edit shows and checks the form without its file
 * fields). The token is never logged (the query parameter is a
 * credential's, fs_redact.h). Memory: everything from r->pool. */
#include "fs_edit.h"
#include "fs_json.h"
#include "fs_logic_rules.h"
#include "fs_scores.h"
#include "fs_secret.h"
#include "fs_store_edits.h"
#include "fs_unique.h"
#include "fs_util.h"
#include "http/files.h"
#include "public/public_post.h"
#include "public/public_scores.h"

#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

/* untilHours when pb's form takes edits from its respondents, else 0. */
static int edit_hours(const pub *pb) {
    if (!pb->settings || !pb->fs || formsvc_pub_link_required((pub *)pb))
        return 0;
    return fs_edit_hours(pb->settings);
}

/* What an edit keeps as it was sent: files, and signatures (a typed name
 * with, maybe, a drawn image stored as a file). */
static int kept_as_sent(const char *type) {
    return type && (!strcmp(type, "file") || !strcmp(type, "signature"));
}

/* The keys of the file and signature fields of pb's form as stored
 * (pb->f.fields: also after without_files), in p; NULL when it has none. */
static apr_array_header_t *file_keys(apr_pool_t *p, const pub *pb) {
    json_object *fields = pb->f.fields ? fs_json_parse_trusted(p, pb->f.fields) : NULL;
    apr_array_header_t *keys = NULL;
    for (size_t i = 0; fields && json_object_is_type(fields, json_type_array) &&
                       i < json_object_array_length(fields);
         i++) {
        json_object *f = json_object_array_get_idx(fields, i);
        const char *t = json_object_get_string(fs_json_get(f, "type"));
        const char *k = json_object_get_string(fs_json_get(f, "key"));
        if (k && kept_as_sent(t)) {
            if (!keys)
                keys = apr_array_make(p, 2, sizeof(const char *));
            APR_ARRAY_PUSH(keys, const char *) = k;
        }
    }
    return keys;
}

/* An edit keeps the files and signatures sent (a file cannot be shown
 * again in a page, and replacing them is not offered): pb's form as the
 * edit shows and checks it, without those fields (a page left with no
 * question goes too).
 * formsvc_edit_store puts the stored files' answers back. */
static void without_files(request_rec *r, pub *pb) {
    if (!pb->fs || !fs_fieldset_has_files(pb->fs) || !pb->fields)
        return;
    json_object *kept = fs_json_own(r->pool, json_object_new_array());
    for (size_t i = 0; i < json_object_array_length(pb->fields); i++) {
        json_object *f = json_object_array_get_idx(pb->fields, i);
        const char *t = json_object_get_string(fs_json_get(f, "type"));
        if (!kept_as_sent(t))
            json_object_array_add(kept, json_object_get(f));
    }
    pb->fields = kept;
    pb->fs = fs_fieldset_from_json(r->pool, kept);
    fs_fieldset_logic(r->pool, pb->fs, pb->settings);
    formsvc_files_ceilings(pb->fs);
}

static const formsvc_srv *conf(request_rec *r) {
    return formsvc_conf(r->server);
}

/* The edit token of the request (?edit=), or NULL. */
static const char *asked_token(request_rec *r) {
    const char *t = NULL;
    return !formsvc_arg(r, FS_EDIT_PARAM, &t) && t ? t : NULL;
}

int formsvc_edit_asked(request_rec *r) {
    /* a value of another shape is a prefill of a field keyed "edit" */
    return fs_edit_token_well_formed(asked_token(r));
}

/* The edit address of submission sid of pb's form: the form's own
 * address (with its respondent link) and the token. */
static const char *edit_url(request_rec *r, const pub *pb, const char *sid) {
    const char *tok = fs_edit_token(r->pool, conf(r)->pepper, conf(r)->pepper_len, pb->f.id, sid);
    if (!tok)
        return NULL;
    const char *base = apr_pstrcat(r->pool, formsvc_base_url(r), "/f/", pb->f.id, NULL);
    return apr_pstrcat(r->pool, base, "?" FS_EDIT_PARAM "=", tok, NULL);
}

/* A link that cannot edit: 404 (malformed, forged, another form's, no
 * such submission, the form takes no edits) or 410 (its time is over),
 * a page in the form's language with a link to the form's start; the
 * same for every cause of one status, so nothing tells which. */
static int refused(request_rec *r, pub *pb, int status) {
    const fs_locale *loc = formsvc_pub_locale(r, pb);
    const char *start = apr_pstrcat(r->pool, formsvc_base_url(r), "/f/", pb->f.id, NULL);
    const char *which = status == 410 ? "edit.expired" : "edit.invalid";
    return formsvc_pub_send_html(
        r, status, pb,
        fs_html_message_link(r->pool, loc, pb->f.title,
                             fs_tr(loc, apr_pstrcat(r->pool, which, ".title", NULL)),
                             fs_tr(loc, apr_pstrcat(r->pool, which, ".message", NULL)), start,
                             fs_tr(loc, "pages.restart")),
        0);
}

/* The problem of a refused link for a JSON client. */
static int refused_json(request_rec *r, int status) {
    return formsvc_pub_problem(
        r,
        status == 410
            ? fs_error_make(r->pool, "edit-expired", "The time to change this submission is over.")
            : fs_error_make(r->pool, "not-found", "This edit link is not valid for this form."));
}

int formsvc_edit_get(request_rec *r, const char *ref) {
    pub pb;
    int cached;
    fs_error *e = formsvc_pub_load(r, ref, &pb, &cached, ROW_DB);
    if (e)
        return formsvc_pub_load_failed(r, e, 1);
    if (strcmp(pb.f.status, "published"))
        return formsvc_pub_closed_page(r, 200, &pb);
    int hours = edit_hours(&pb);
    const char *sid = hours ? fs_edit_token_check(r->pool, conf(r)->pepper, conf(r)->pepper_len,
                                                  pb.f.id, asked_token(r))
                            : NULL;
    if (!sid)
        return refused(r, &pb, 404);
    const char *data;
    int open;
    if ((e = fs_store_edit_get(formsvc_store(r), sid, pb.f.id, hours, &data, &open)))
        return formsvc_pub_load_failed(r, e, 1);
    if (!data)
        return refused(r, &pb, 404);
    if (!open)
        return refused(r, &pb, 410);
    json_object *values = NULL;
    if (fs_json_parse_object(r->pool, data, strlen(data), &values))
        values = NULL;
    formsvc_edit_action(r, &pb);
    apr_table_setn(r->headers_out, "Referrer-Policy", "no-referrer");
    const fs_locale *loc = formsvc_pub_locale(r, &pb);
    const char *notice = fs_tr(loc, "edit.notice");
    if (file_keys(r->pool, &pb))
        notice = apr_pstrcat(r->pool, notice, " ", fs_tr(loc, "edit.files"), NULL);
    return formsvc_pub_html_page(r, 200, &pb, values, NULL, notice);
}

void formsvc_edit_action(request_rec *r, pub *pb) {
    const char *t = asked_token(r);
    if (!t || !edit_hours(pb) || strstr(pb->action, "?" FS_EDIT_PARAM "=") ||
        strstr(pb->action, "&" FS_EDIT_PARAM "="))
        return;
    /* only a well-formed token goes into the page (escaped there anyway) */
    if (!fs_edit_token_check(r->pool, conf(r)->pepper, conf(r)->pepper_len, pb->f.id, t))
        return;
    pb->action = apr_pstrcat(r->pool, pb->action, strchr(pb->action, '?') ? "&" : "?",
                             FS_EDIT_PARAM "=", t, NULL);
    /* an edit is of answers sent already: no partial answers are kept at
     * its page steps (settings.partial, public_partial.c), no "save and
     * continue later"; this request's copy of the settings only */
    if (pb->settings)
        json_object_object_del(pb->settings, "partial");
    without_files(r, pb);
}

/* The submission's public view after an edit: what its respondent sent
 * (never the owner's state, note or tags). */
static const char *respondent_view(request_rec *r, const char *json) {
    json_object *o, *out = fs_json_own(r->pool, json_object_new_object());
    if (!json || fs_json_parse_object(r->pool, json, strlen(json), &o))
        return "{}";
    static const char *const keep[] = {"id",      "formId",    "formVersion", "data", "createdAt",
                                       "version", "updatedAt", "ending",      NULL};
    for (const char *const *k = keep; *k; k++) {
        json_object *v = fs_json_get(o, *k);
        if (v)
            json_object_object_add(out, *k, json_object_get(v));
    }
    return fs_json_str(r->pool, out);
}

/* An edit whose answers the bot checks flag (public_captcha.c: the
 * honeypot filled, or a spamScore at or above settings.spamThreshold)
 * changes nothing: the submission keeps its answers, spam flag and score
 * (an edit neither turns a submission into spam nor lets answers the
 * checks would flag into the owner's list through a link that a clean
 * first submission earned). The respondent is answered as after an edit,
 * so that a bot learns nothing. */
static int spam_answer(request_rec *r, post *s, const char *sid) {
    pub *pb = &s->pb;
    if (!s->html) {
        json_object *o = fs_json_own(r->pool, json_object_new_object());
        json_object_object_add(o, "id", json_object_new_string(sid));
        json_object_object_add(o, "formId", json_object_new_string(pb->f.id));
        json_object_object_add(o, "data", json_object_get(s->obj));
        formsvc_pub_cors(r);
        return formsvc_pub_send_body(r, 200, "application/json", fs_json_str(r->pool, o), 0);
    }
    return formsvc_post_answer(r, s, 303, formsvc_pub_thanks_url(r, pb->f.id),
                               apr_pstrcat(r->pool, "{\"id\":\"", sid, "\"}", NULL), 0);
}

int formsvc_edit_store(request_rec *r, post *s, int *rc) {
    const char *token = asked_token(r);
    if (!token)
        return EDIT_NONE;
    pub *pb = &s->pb;
    const responder *out = s->html ? &formsvc_post_html : &formsvc_post_json;
    int hours = edit_hours(pb);
    const char *sid =
        hours ? fs_edit_token_check(r->pool, conf(r)->pepper, conf(r)->pepper_len, pb->f.id, token)
              : NULL;
    if (!sid) {
        *rc = s->html ? refused(r, pb, 404) : refused_json(r, 404);
        return EDIT_SENT;
    }
    if (s->up) { /* nothing of an edit is uploaded (without_files) */
        formsvc_upload_rollback(s->up);
        s->up = NULL;
    }
    if (s->spam) {
        *rc = spam_answer(r, s, sid);
        return EDIT_SENT;
    }
    apr_array_header_t *fk = file_keys(r->pool, pb);
    if (fk) { /* the files sent are kept: their answers as stored */
        const char *data;
        int open;
        json_object *old;
        fs_error *ge = fs_store_edit_get(formsvc_store(r), sid, pb->f.id, hours, &data, &open);
        if (ge) {
            *rc = formsvc_post_refuse(r, s, out, ge);
            return EDIT_SENT;
        }
        if (data && !fs_json_parse_object(r->pool, data, strlen(data), &old))
            for (int i = 0; i < fk->nelts; i++) {
                const char *k = APR_ARRAY_IDX(fk, i, const char *);
                json_object *v = fs_json_get(old, k);
                if (v)
                    json_object_object_add(s->obj, k, json_object_get(v));
            }
    }
    json_object *ending = fs_ending_reached(pb->settings, s->obj);
    /* a quiz's score and the variables, worked out again from the new
     * answers (fs_scores.h), as a submission's are */
    json_object *calc =
        fs_json_own(r->pool, fs_calculated(r->pool, pb->settings, pb->fields, pb->fs, s->obj));
    fs_edit ed = {pb->f.id,
                  sid,
                  fs_json_str(r->pool, s->obj),
                  fs_unique_hash(r->pool, pb->settings, pb->fields, s->obj), /* not spam */
                  ending ? json_object_get_string(fs_json_get(ending, "key")) : NULL,
                  pb->f.version,
                  hours,
                  fs_id_new(r->pool, "evt_"),
                  calc ? fs_json_str(r->pool, calc) : NULL};
    if (!ed.event_id) {
        *rc = formsvc_pub_problem(r, fs_error_internal(r->pool, "no random bytes for an event"));
        return EDIT_SENT;
    }
    fs_edit_outcome o;
    const char *json;
    fs_error *e = fs_store_edit_save(formsvc_store(r), &ed, &o, &json);
    if (e) {
        FORMSVC_LOG(r, APLOG_WARNING, 00340, "edit of submission %s of form %s not stored: %s", sid,
                    pb->f.id, e->detail ? e->detail : e->slug);
        *rc = formsvc_post_refuse(r, s, out, e);
        return EDIT_SENT;
    }
    if (o == FS_EDIT_STALE)
        return EDIT_STALE;
    if (o == FS_EDIT_GONE || o == FS_EDIT_EXPIRED) {
        int st = o == FS_EDIT_GONE ? 404 : 410;
        *rc = s->html ? refused(r, pb, st) : refused_json(r, st);
        return EDIT_SENT;
    }
    if (o == FS_EDIT_DUPLICATE) {
        const char *what = fs_unique_labels(r->pool, pb->settings, pb->fields);
        e = fs_error_make(r->pool, "duplicate-submission",
                          "A submission with the same %s was already received.", what);
        *rc = out->later(
            r, s, e,
            fs_trf(r->pool, formsvc_pub_locale(r, pb), "notice.duplicate", "fields", what, NULL));
        return EDIT_SENT;
    }
    if (!s->html) {
        formsvc_pub_cors(r);
        *rc = formsvc_pub_send_body(r, 200, "application/json", respondent_view(r, json), 0);
        return EDIT_SENT;
    }
    /* the thanks page (with the ending reached), which shows the link again */
    const char *ek = ed.ending;
    const char *redirect =
        ending ? formsvc_pub_ending_url(r, ending) : formsvc_pub_redirect_url(r, pb);
    const char *thanks = formsvc_pub_thanks_url(r, pb->f.id);
    if (ek)
        thanks = apr_pstrcat(r->pool, thanks, "?ending=", ek, NULL);
    const char *sq = formsvc_pub_score_query(r, pb->f.id, calc);
    if (sq)
        thanks = apr_pstrcat(r->pool, thanks, ek ? "&" : "?", sq, NULL);
    *rc = formsvc_post_answer(r, s, 303, redirect ? redirect : thanks,
                              apr_pstrcat(r->pool, "{\"id\":\"", sid, "\"}", NULL), 0);
    return EDIT_SENT;
}

const char *formsvc_edit_thanks_location(request_rec *r, pub *pb, const char *location,
                                         const char *body) {
    const char *thanks = formsvc_pub_thanks_url(r, pb->f.id);
    apr_size_t tl = strlen(thanks);
    json_object *o;
    if (!location || strncmp(location, thanks, tl) || (location[tl] && location[tl] != '?') ||
        !edit_hours(pb) || !body || fs_json_parse_object(r->pool, body, strlen(body), &o))
        return location;
    const char *sid = json_object_get_string(fs_json_get(o, "id"));
    if (!sid || !fs_id_valid(sid, "sub_"))
        return location;
    const char *tok = fs_edit_token(r->pool, conf(r)->pepper, conf(r)->pepper_len, pb->f.id, sid);
    return tok ? apr_pstrcat(r->pool, location, location[tl] ? "&" : "?", FS_EDIT_PARAM "=", tok,
                             NULL)
               : location;
}

const char *formsvc_edit_thanks_message(request_rec *r, pub *pb, const fs_locale *loc,
                                        const char **url) {
    *url = NULL;
    const char *t = asked_token(r);
    int hours = t ? edit_hours(pb) : 0;
    const char *sid =
        hours ? fs_edit_token_check(r->pool, conf(r)->pepper, conf(r)->pepper_len, pb->f.id, t)
              : NULL;
    const char *data;
    int open;
    if (!sid || fs_store_edit_get(formsvc_store(r), sid, pb->f.id, hours, &data, &open) || !data ||
        !open)
        return NULL;
    *url = edit_url(r, pb, sid);
    return !*url ? NULL
           : hours == 1
               ? fs_tr(loc, "edit.link.one")
               : fs_trf(r->pool, loc, "edit.link", "hours", apr_itoa(r->pool, hours), NULL);
}
