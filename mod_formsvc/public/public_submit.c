/* public_submit: POST /f/{ref}, a submission to a public form, in one
 * forward pass through named steps (formsvc_h_public_post):
 *
 *   parse (public_parse.c) -> [multipart: gate and read the body] ->
 *   resolve the form (this child's memory or the database; the page's
 *   token checked once; the answers coerced) -> replay (an Idempotency-Key
 *   answered as the first time) -> gate (open, link, rate) -> check
 *   (files, validation; a dry run ends here) -> keep (the files, then the
 *   submission: the child's batch, or a transaction of its own with
 *   files) -> answer.
 *
 * A form from memory is a guess the database confirms: when it would
 * refuse the answers, the form is resolved again from the database
 * (afresh, once); when the statement that stores the submission finds the
 * form changed (stale), it is resolved again and the later steps run
 * again, at most three times, then 409. A step says what comes next
 * (step); what it decided for the request stays in the pass.
 * Memory: post and pass live in the handler's frame, everything they
 * point to in r->pool; uploaded files are spooled and ended by files.h. */
#include "fs_coerce.h"
#include "fs_json.h"
#include "fs_logic_rules.h"
#include "fs_scores.h"
#include "fs_secret.h"
#include "fs_unique.h"
#include "fs_util.h"
#include "fs_validate.h"
#include "http/files.h"
#include "http/owner_cache.h"
#include "public/public_post.h"
#include "public/public_scores.h"
#include "runtime/metrics.h"
#include "runtime/ratelimit.h"
#include "runtime/submit_batch.h"

#include <apr_strings.h>

/* What a step decided. */
typedef enum {
    STEP_ON,     /* nothing sent: the next step */
    STEP_SENT,   /* answered: the handler returns pass.rc */
    STEP_AFRESH, /* the form from memory would refuse: resolve it from the database */
    STEP_STALE,  /* the form changed under the submission, nothing stored: resolve it again */
} step;

/* What the pass decided for the request, kept when the form is resolved
 * again. Lives in the handler's frame. */
typedef struct pass {
    const char *ref;      /* the form's id or slug, as requested */
    const responder *out; /* pages or problems, chosen once */
    int from;             /* ROW_*: where resolve reads the form */
    int rc;               /* once STEP_SENT: what the handler returns */
    /* the page's submission token, checked once for the form token_for
     * (the id of the form resolved; NULL: not checked yet) */
    const char *token_for, *token;
    /* the respondent link, taken once for the form link_for (NULL: not
     * taken yet); link is NULL when the request carries none */
    const char *link_for;
    const formsvc_link *link;
    int asked; /* the Idempotency-Key record was looked up (replay) */
} pass;

static step sent(pass *p, int rc) {
    p->rc = rc;
    return STEP_SENT;
}

/* Stores the checked submission: one statement, committed before any 2xx;
 * it also counts the owner's quota, closes the form at maxSubmissions and
 * records the Idempotency-Key. */
static step store(request_rec *r, post *s, pass *p) {
    int erc, eo = formsvc_edit_store(r, s, &erc); /* an edit (public_edit.c) */
    if (eo == EDIT_SENT)
        return sent(p, erc);
    if (eo == EDIT_STALE)
        return STEP_STALE;
    const responder *out = p->out;
    pub *pb = &s->pb;
    formsvc_srv *c = formsvc_conf(r->server);
    const char *sid = s->sid ? s->sid : fs_id_new(r->pool, "sub_");
    const char *evid = fs_id_new(r->pool, "evt_");
    if (!sid || !evid)
        return sent(p, formsvc_pub_problem(
                           r, fs_error_internal(r->pool, "no random bytes for a submission id")));
    /* the ending the answers reach (settings.endings): its redirectUrl,
     * or the thanks page with its message; none: the form's own */
    json_object *ending = fs_ending_reached(pb->settings, s->obj);
    const char *ending_key = ending ? json_object_get_string(fs_json_get(ending, "key")) : NULL;
    const char *redirect =
        ending ? formsvc_pub_ending_url(r, ending) : formsvc_pub_redirect_url(r, pb);
    /* what the server calculates from the answers (fs_scores.h), never
     * read from the request: stored with the submission; the score goes
     * to the thanks page in a signed query (public_scores.h) */
    json_object *calc =
        fs_json_own(r->pool, fs_calculated(r->pool, pb->settings, pb->fields, pb->fs, s->obj));
    json_object *shown = fs_json_own(r->pool, formsvc_pub_score_shown(pb, calc));
    const char *sq = formsvc_pub_score_query(r, pb->f.id, calc);
    const char *thanks = formsvc_pub_thanks_url(r, pb->f.id);
    if (ending_key) /* a key is [a-z0-9_]: nothing to escape */
        thanks = apr_pstrcat(r->pool, thanks, "?ending=", ending_key, NULL);
    if (sq)
        thanks = apr_pstrcat(r->pool, thanks, ending_key ? "&" : "?", sq, NULL);
    const char *location = s->html ? (redirect ? redirect : thanks)
                                   : apr_pstrcat(r->pool, formsvc_base_url(r), "/v1/forms/",
                                                 pb->f.id, "/submissions/", sid, NULL);
    fs_new_submission ns = {
        pb->f.id, sid, fs_json_str(r->pool, s->obj), s->spam, c->tier[0].submissions_month,
        c->tier[1].submissions_month, s->ikey, s->hash, s->html ? 303 : 201, location,
        pb->link ? pb->link->id : NULL,
        /* spam is neither checked nor counted against settings.uniqueBy */
        s->spam ? NULL : fs_unique_hash(r->pool, pb->settings, pb->fields, s->obj), pb->f.version,
        evid, ending_key, calc ? fs_json_str(r->pool, calc) : NULL,
        shown ? fs_json_str(r->pool, shown) : NULL,
        s->partial_id,         /* the partial answers it completes, or NULL */
        s->spam_score,         /* the bot checks' (public_captcha.c) */
        s->captcha_unchecked}; /* ... and whether the captcha could be checked */
    fs_submit_result sr;
    /* the form row is locked first only when a count can close it */
    int exact = fs_json_get(pb->settings, "maxSubmissions") != NULL;
    /* stored with the child's other submissions of the moment
     * (submit_batch.h), except one whose files are in this transaction */
    fs_error *e = s->up ? fs_store_public_submit(formsvc_store(r), &ns, exact, &sr)
                        : formsvc_submit(r, &ns, exact, &sr);
    if (e || sr.outcome != FS_SUBMIT_OK)
        formsvc_upload_rollback(s->up); /* ended before the answer, whatever it is */
    if (e)
        return sent(p, formsvc_post_refuse(r, s, out, e));
    if (sr.outcome == FS_SUBMIT_GONE)
        return sent(p,
                    formsvc_pub_problem(r, fs_error_make(r->pool, "not-found", "No such form.")));
    if (sr.outcome == FS_SUBMIT_STALE)
        return STEP_STALE;
    if (sr.outcome == FS_SUBMIT_CLOSED)
        return sent(p, out->closed(r, s));
    if (sr.outcome == FS_SUBMIT_LINK_USED || sr.outcome == FS_SUBMIT_LINK_EXPIRED)
        return sent(p, formsvc_pub_link_refused(
                           r, pb,
                           sr.outcome == FS_SUBMIT_LINK_USED
                               ? fs_error_make(r->pool, "link-used",
                                               "This link has already been used as many times "
                                               "as it allows.")
                               : fs_error_make(r->pool, "link-expired",
                                               "This link has expired or was withdrawn by the "
                                               "form's owner."),
                           s->html));
    if (sr.outcome == FS_SUBMIT_DUPLICATE) {
        /* settings.uniqueBy: problem+json, or the form again with a notice */
        const char *what = fs_unique_labels(r->pool, pb->settings, pb->fields);
        e = fs_error_make(r->pool, "duplicate-submission",
                          "A submission with the same %s was already received.", what);
        return sent(p, out->later(r, s, e,
                                  fs_trf(r->pool, formsvc_pub_locale(r, pb), "notice.duplicate",
                                         "fields", what, NULL)));
    }
    if (sr.outcome == FS_SUBMIT_QUOTA) {
        e = fs_error_make(r->pool, "rate-limited",
                          "The form's owner has reached this month's submission quota.");
        e->retry_after = sr.month_left;
        formsvc_metric_inc(FORMSVC_M_LIMITED_QUOTA);
        return sent(p, out->later(r, s, e, fs_tr(formsvc_pub_locale(r, pb), "notice.quota")));
    }
    if (sr.outcome == FS_SUBMIT_REPLAY) {
        /* a concurrent request with the same Idempotency-Key won */
        int rc = formsvc_post_replay(r, s, out);
        return sent(p, rc != NO_RECORD ? rc
                                       : formsvc_pub_problem(
                                             r, fs_error_make(r->pool, "conflict",
                                                              "A request with this Idempotency-Key "
                                                              "is in progress; retry.")));
    }
    if (s->up && (e = formsvc_upload_commit(s->up))) /* uploaded files */
        return sent(p, formsvc_post_refuse(r, s, out, e));
    formsvc_metric_inc(FORMSVC_M_SUBMISSIONS); /* stored */
    if (!s->spam)
        formsvc_owner_count_changed(r->pool, pb->f.id);
    return sent(p, formsvc_post_answer(r, s, s->html ? 303 : 201, location, sr.json, 0));
}

/* The body against the form's own limit (formsvc_post_body_max), once
 * the form is known; a JSON body past it is only for a form with a file
 * field (its files in base64, up to FormsvcFileMaxJSONBody). A multipart
 * body was read against it as it came. */
static fs_error *body_fits(request_rec *r, post *s) {
    apr_off_t max = formsvc_post_body_max(r, s);
    if (s->kind == BODY_MULTIPART || s->len <= (apr_size_t)max ||
        (s->kind == BODY_JSON && fs_fieldset_has_files(s->pb.fs)))
        return NULL;
    return fs_error_make(r->pool, "payload-too-large",
                         "The body is larger than %" APR_OFF_T_FMT " bytes.", max);
}

/* The answer to a refused request: a body past a limit (413) is a page
 * for a person, anything else (and anything for a program) the problem. */
static int too_large(request_rec *r, const post *s, fs_error *e) {
    return s->html && e->status == 413 ? formsvc_pub_too_large_page(r, e)
                                       : formsvc_pub_problem(r, e);
}

/* the files of a checked submission, written in the
 * transaction that store() then commits (or rolls back); their values
 * become their metadata. */
static fs_error *files_store(request_rec *r, post *s) {
    if (s->kind == BODY_MULTIPART && s->up) { /* spooled as they came */
        formsvc_upload_values(s->up, s->obj);
        if (!formsvc_upload_any(s->up)) {
            s->up = NULL;
            return NULL;
        }
        return formsvc_upload_save(s->up);
    }
    if (s->kind != BODY_JSON || !fs_fieldset_has_files(s->pb.fs))
        return NULL;
    s->sid = fs_id_new(r->pool, "sub_");
    if (!s->sid)
        return fs_error_internal(r->pool, "no random bytes for a submission id");
    s->up = formsvc_upload_new(r, s->pb.fs, s->pb.f.id, s->sid);
    fs_error *e = formsvc_upload_json(s->up, s->obj);
    if (!e && formsvc_upload_any(s->up))
        e = formsvc_upload_save(s->up);
    if (!formsvc_upload_any(s->up))
        s->up = NULL;
    return e;
}

/* A multipart body, read before anything else is asked of the database and
 * with no pooled connection held while it arrives (a slow client must not
 * hold one; an open transaction would also hide every later event from
 * the feed). First, without reading it: the form (from this child's
 * memory when it is there), whether it takes submissions now and the
 * address's rate; a body over the form's limits is refused by its
 * Content-Length (formsvc_multipart_read). Then the body, its files
 * checked and spooled (files.h). STEP_ON when the pass goes on; else
 * the answer is sent. A request with an Idempotency-Key to a form that is
 * not open is read (its files dropped) so that a repeat is still
 * answered as the first time. */
static step read_multipart(request_rec *r, post *s, pass *p) {
    const responder *out = p->out;
    const char *ref = p->ref;
    /* an answer before the body closes the connection: httpd would
     * otherwise wait for the whole body to discard it */
    ap_conn_keepalive_e keep = r->connection->keepalive;
    r->connection->keepalive = AP_CONN_CLOSE;
    int cached;
    fs_error *e = formsvc_pub_load(r, ref, &s->pb, &cached, s->dry ? ROW_DB : ROW_MEMORY);
    s->have_form = !e || cached;
    if (e && !s->have_form)
        return sent(p, formsvc_post_refuse(r, s, out, e));
    if (e) { /* the database is away: the answers are read to give the form back */
        formsvc_db_release(r);
        r->connection->keepalive = keep;
        fs_error *be = formsvc_post_multipart_body(r, s, 0);
        if (be)
            return sent(p, formsvc_pub_problem(r, be));
        fs_coerce(r->pool, s->pb.fs, s->pairs, s->pb.honeypot, &s->obj, &s->spam);
        formsvc_pub_keep_link(r, &s->pb);
        return sent(p, formsvc_post_refuse(r, s, out, e));
    }
    int open = !strcmp(s->pb.f.status, "published") && !formsvc_pub_opens_later(&s->pb);
    if (!open && !s->dry && !s->ikey) { /* a refusal comes from the stored form */
        if ((e = formsvc_pub_load(r, ref, &s->pb, &cached, ROW_REFILL)))
            return sent(p, formsvc_post_refuse(r, s, out, e));
        open = !strcmp(s->pb.f.status, "published") && !formsvc_pub_opens_later(&s->pb);
    }
    if (!open && !s->ikey) {
        if (strcmp(s->pb.f.status, "published"))
            return sent(p, out->closed(r, s));
        return sent(p, out->not_open(r, s, formsvc_pub_opens_later(&s->pb)));
    }
    if (open && (e = formsvc_ratelimit_address(r, FORMSVC_RL_SUBMIT, s->pb.f.id)))
        return sent(p, out->later(r, s, e, NULL));
    s->limited = open; /* counted once, however often the form is read */
    s->read_version = s->pb.f.version ? s->pb.f.version : "";
    s->read_files = fs_fieldset_has_files(s->pb.fs);
    s->files_dropped = s->read_files && !open;
    formsvc_db_release(r); /* nothing held while the body arrives */
    r->connection->keepalive = keep;
    fs_error *be = formsvc_post_multipart_body(r, s, open);
    return be ? sent(p, formsvc_pub_problem(r, be)) : STEP_ON;
}

/* The page's submission token (formsvc_post_token), checked once for the
 * form it names: a form resolved again gets the token checked before. */
static step step_token(request_rec *r, post *s, pass *p) {
    if (p->token_for && !strcmp(p->token_for, s->pb.f.id)) {
        s->pb.token = p->token;
        return STEP_ON;
    }
    fs_error *e = formsvc_post_token(r, s);
    if (e)
        return sent(p, formsvc_pub_problem(r, e));
    p->token_for = s->pb.f.id;
    p->token = s->pb.token;
    return STEP_ON;
}

/* The form, from where p->from says: from memory only for what the
 * database checks again, so a JSON body to a form with file fields (its
 * files go into the submission's transaction) reads it from the
 * database. Then the page's token and the answers as the form's fields
 * take them. The database away: the form given back from the last-known
 * copy when there is one (formsvc_pub_load), else a 503. */
static step step_resolve(request_rec *r, post *s, pass *p) {
    int cached;
    fs_error *e = formsvc_pub_load(r, p->ref, &s->pb, &cached, p->from);
    if (!e && p->from == ROW_MEMORY && s->kind == BODY_JSON && fs_fieldset_has_files(s->pb.fs)) {
        p->from = ROW_REFILL;
        e = formsvc_pub_load(r, p->ref, &s->pb, &cached, p->from);
    }
    s->have_form = !e || cached;
    step st;
    fs_error *big = !e ? body_fits(r, s) : NULL; /* before its answers are taken */
    if (big)
        return p->from == ROW_MEMORY ? STEP_AFRESH : sent(p, too_large(r, s, big));
    if (s->have_form && (st = step_token(r, s, p)) != STEP_ON)
        return st;
    if (s->have_form && s->kind != BODY_JSON) {
        fs_coerce(r->pool, s->pb.fs, s->pairs, s->pb.honeypot, &s->obj, &s->spam);
        s->paged = 0; /* the posted page only, until step_pages merges it */
    }
    if (e) {
        if (s->have_form)
            formsvc_pub_keep_link(r, &s->pb);
        return sent(p, formsvc_post_refuse(r, s, p->out, e));
    }
    return STEP_ON;
}

/* A repeat is answered as the first time, before any other check: asked
 * once, and again after the form changed under the submission (a
 * concurrent request with the same key may have been stored meanwhile). */
static step step_replay(request_rec *r, post *s, pass *p) {
    if (!s->ikey || p->asked)
        return STEP_ON;
    if (!s->hash) /* a multipart body's was taken on the way */
        s->hash = formsvc_post_request_hash(r, s->kind, s->pb.f.id, s->dry, s->buf, s->len);
    int rc = formsvc_post_replay(r, s, p->out);
    if (rc != NO_RECORD)
        return sent(p, rc);
    p->asked = 1;
    return STEP_ON;
}

/* The respondent link of the request, taken once for the form (a form
 * resolved again gets the link taken before; the statement that stores
 * the submission checks its uses and expiry again). */
static step step_link(request_rec *r, post *s, pass *p) {
    if (p->link_for && !strcmp(p->link_for, s->pb.f.id)) {
        if (p->link)
            formsvc_pub_use_link(r, &s->pb, p->link);
        formsvc_edit_action(r, &s->pb); /* an edit's pages post the edit token */
        return STEP_ON;
    }
    fs_error *e = formsvc_pub_take_link(r, &s->pb);
    if (e) {
        /* the request with the same Idempotency-Key that used the link up
         * may have committed since the replay step: its answer, then */
        int rc = s->ikey && e->status == 409 ? formsvc_post_replay(r, s, p->out) : NO_RECORD;
        if (rc != NO_RECORD)
            return sent(p, rc);
        return sent(p, e->status == 503 ? p->out->later(r, s, e, NULL)
                                        : formsvc_pub_link_refused(r, &s->pb, e, s->html));
    }
    p->link_for = s->pb.f.id;
    p->link = s->pb.link;
    formsvc_edit_action(r, &s->pb);
    return STEP_ON;
}

/* Whether the form takes this submission now: the form a multipart
 * body's files were checked against, open, the link, the address's rate
 * (counted once). A refusal from memory is a guess: STEP_AFRESH. */
static step step_gate(request_rec *r, post *s, pass *p) {
    int mem = p->from == ROW_MEMORY;
    /* a multipart body was read before (read_multipart); its files were
     * checked against the form of read_version, which must still hold */
    if (s->kind == BODY_MULTIPART && (s->read_files || fs_fieldset_has_files(s->pb.fs)) &&
        s->read_version && strcmp(s->read_version, s->pb.f.version ? s->pb.f.version : ""))
        return mem ? STEP_AFRESH : STEP_STALE;
    if (strcmp(s->pb.f.status, "published"))
        return sent(p, p->out->closed(r, s));
    const char *opens = formsvc_pub_opens_later(&s->pb);
    if (opens)
        return mem ? STEP_AFRESH : sent(p, p->out->not_open(r, s, opens));
    if (s->files_dropped) /* the form opened while the body arrived: nothing stored */
        return STEP_STALE;
    step st = step_link(r, s, p);
    if (st != STEP_ON)
        return st;
    fs_error *e;
    if (!s->limited && (e = formsvc_ratelimit_address(r, FORMSVC_RL_SUBMIT, s->pb.f.id)))
        return sent(p, p->out->later(r, s, e, NULL));
    s->limited = 1; /* counted once, however often the form is read */
    return STEP_ON;
}

/* A step of a form of several pages (public_pages.c): Back and Next are
 * answered here, after the form's state and the link are checked as the
 * gate checks them (they store nothing, so they are not counted against
 * the address's rate); Submit goes on with every answer. */
static step step_pages(request_rec *r, post *s, pass *p) {
    if (!formsvc_post_is_step(s))
        return STEP_ON;
    int mem = p->from == ROW_MEMORY;
    if (strcmp(s->pb.f.status, "published"))
        return sent(p, p->out->closed(r, s));
    const char *opens = formsvc_pub_opens_later(&s->pb);
    if (opens)
        return mem ? STEP_AFRESH : sent(p, p->out->not_open(r, s, opens));
    step st = step_link(r, s, p);
    if (st != STEP_ON)
        return st;
    int rc, o = formsvc_post_pages(r, s, mem, &rc);
    return o == PAGES_ON ? STEP_ON : o == PAGES_AFRESH ? STEP_AFRESH : sent(p, rc);
}

/* The answers against the form: the files' sizes and the validator. A
 * refusal from memory is a guess: STEP_AFRESH. A dry run ends here. */
static step step_check(request_rec *r, post *s, pass *p) {
    int mem = p->from == ROW_MEMORY;
    fs_error *e;
    if ((e = body_fits(r, s)))
        return mem ? STEP_AFRESH : sent(p, too_large(r, s, e));
    if (s->file_err && s->file_err->status == 503) /* no room for the files: later */
        return sent(p, p->out->later(r, s, s->file_err, NULL));
    if (s->file_err) /* which file failed and why, other answers kept */
        return mem ? STEP_AFRESH : sent(p, p->out->invalid(r, s, s->file_err));
    if (s->up)
        formsvc_upload_stubs(s->up, s->obj); /* the files as fs_validate counts them */
    if ((e = fs_validate(r->pool, s->pb.fs, s->obj)))
        return mem ? STEP_AFRESH : sent(p, p->out->invalid(r, s, e));
    if (s->dry) {
        formsvc_pub_cors(r);
        return sent(p, formsvc_pub_send_body(r, 200, "application/json", "{\"valid\":true}", 0));
    }
    return STEP_ON;
}

/* The bot checks (public_captcha.c): the captcha, the spam score. */
static step step_bots(request_rec *r, post *s, pass *p) {
    int rc;
    return formsvc_post_bots(r, s, p->out, &rc) ? sent(p, rc) : STEP_ON;
}

/* The files (uploaded, files.h), then the submission (store). */
static step step_keep(request_rec *r, post *s, pass *p) {
    fs_error *e = files_store(r, s);
    if (e)
        return sent(p, e->status == 422 || (e->status == 413 && e->errors)
                           ? p->out->invalid(r, s, e)
                       : e->status == 413 ? p->out->later(r, s, e, e->detail) /* storage quota */
                                          : formsvc_post_refuse(r, s, p->out, e));
    return store(r, s, p);
}

/* A stale submission may be checked again when nothing of it was
 * spooled when it first was: no files in its transaction, no multipart
 * body whose files were checked (or dropped) against the form read
 * before it arrived. */
static int may_retry(const post *s) {
    return !s->up && !(s->kind == BODY_MULTIPART && (s->read_files || s->files_dropped));
}

int formsvc_h_public_post(request_rec *r, const char *const *caps) {
    post s;
    fs_error *e = formsvc_post_parse(r, &s);
    if (e)
        return too_large(r, &s, e);
    /* the form from memory first; a dry run stores nothing the statement
     * could confirm, so it reads the database */
    pass p = {.ref = caps[0],
              .out = s.html ? &formsvc_post_html : &formsvc_post_json,
              .from = s.dry ? ROW_DB : ROW_MEMORY};
    step st = s.kind == BODY_MULTIPART ? read_multipart(r, &s, &p) : STEP_ON;
    if (st == STEP_ON)
        st = step_resolve(r, &s, &p);
    int stale = 0, again = -1; /* again: whether a stale one may be checked again */
    for (;;) {
        if (st == STEP_ON)
            st = step_pages(r, &s, &p);
        if (st == STEP_ON)
            st = step_replay(r, &s, &p);
        if (st == STEP_ON)
            st = step_gate(r, &s, &p);
        if (st == STEP_ON)
            st = step_check(r, &s, &p);
        if (st == STEP_ON)
            st = step_bots(r, &s, &p);
        if (st == STEP_ON)
            st = step_keep(r, &s, &p);
        if (st == STEP_SENT)
            return p.rc;
        if (st == STEP_STALE) {
            if (again < 0) /* decided when the first is stale */
                again = may_retry(&s);
            if (stale == 3 || !again)
                return p.out->later(r, &s,
                                    fs_error_make(r->pool, "conflict",
                                                  "The form changed while this submission was "
                                                  "being stored; nothing was stored. Check the "
                                                  "form and send it again."),
                                    NULL);
            stale++;
            formsvc_metric_inc(FORMSVC_M_MEM_ROW_STALE);
            p.asked = 0;
        }
        /* afresh (from memory, at most once) or stale: from the database */
        p.from = ROW_REFILL;
        st = step_resolve(r, &s, &p);
    }
}
