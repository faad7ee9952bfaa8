/* public_submit: POST /f/{ref}, a submission to a public form: checked
 * against the form (from this child's memory, confirmed by the statement
 * that stores it, or from the database), stored with the child's other
 * submissions of the moment (runtime/submit_batch.h) or, with files, in
 * a transaction of its own. Memory: everything from r->pool; uploaded
 * files are spooled and ended by files.h. */
#include "fs_coerce.h"
#include "fs_json.h"
#include "fs_secret.h"
#include "fs_unique.h"
#include "fs_util.h"
#include "fs_validate.h"
#include "http/files.h"
#include "http/owner_cache.h"
#include "public/public_post.h"
#include "runtime/metrics.h"
#include "runtime/ratelimit.h"
#include "runtime/submit_batch.h"

#include <apr_strings.h>

/* Stores the checked submission: one statement, committed before any 2xx;
 * it also counts the owner's quota, closes the form at maxSubmissions and
 * records the Idempotency-Key. */
static int store(request_rec *r, post *s, const responder *out) {
    pub *pb = &s->pb;
    formsvc_srv *c = formsvc_conf(r->server);
    const char *sid = s->sid ? s->sid : fs_id_new(r->pool, "sub_");
    const char *evid = fs_id_new(r->pool, "evt_");
    if (!sid || !evid)
        return formsvc_pub_problem(
            r, fs_error_internal(r->pool, "no random bytes for a submission id"));
    const char *redirect = formsvc_pub_redirect_url(r, pb);
    const char *location = s->html ? (redirect ? redirect : formsvc_pub_thanks_url(r, pb->f.id))
                                   : apr_pstrcat(r->pool, formsvc_base_url(r), "/v1/forms/",
                                                 pb->f.id, "/submissions/", sid, NULL);
    fs_new_submission ns = {pb->f.id, sid, fs_json_str(r->pool, s->obj), s->spam,
                            c->tier[0].submissions_month, c->tier[1].submissions_month, s->ikey,
                            s->hash, s->html ? 303 : 201, location, pb->link ? pb->link->id : NULL,
                            /* spam is neither checked nor counted against settings.uniqueBy */
                            s->spam ? NULL
                                    : fs_unique_hash(r->pool, pb->settings, pb->fields, s->obj),
                            pb->f.version, evid};
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
        return formsvc_post_refuse(r, s, out, e);
    if (sr.outcome == FS_SUBMIT_GONE)
        return formsvc_pub_problem(r, fs_error_make(r->pool, "not-found", "No such form."));
    if (sr.outcome == FS_SUBMIT_STALE)
        return STALE;
    if (sr.outcome == FS_SUBMIT_CLOSED)
        return out->closed(r, s);
    if (sr.outcome == FS_SUBMIT_LINK_USED || sr.outcome == FS_SUBMIT_LINK_EXPIRED)
        return formsvc_pub_link_refused(
            r, pb,
            sr.outcome == FS_SUBMIT_LINK_USED
                ? fs_error_make(r->pool, "link-used",
                                "This link has already been used as many times "
                                "as it allows.")
                : fs_error_make(r->pool, "link-expired",
                                "This link has expired or was withdrawn by the "
                                "form's owner."),
            s->html);
    if (sr.outcome == FS_SUBMIT_DUPLICATE) {
        /* settings.uniqueBy: problem+json, or the form again with a notice */
        const char *what = fs_unique_labels(r->pool, pb->settings, pb->fields);
        e = fs_error_make(r->pool, "duplicate-submission",
                          "A submission with the same %s was already received.", what);
        return out->later(
            r, s, e,
            fs_trf(r->pool, formsvc_pub_locale(r, pb), "notice.duplicate", "fields", what, NULL));
    }
    if (sr.outcome == FS_SUBMIT_QUOTA) {
        e = fs_error_make(r->pool, "rate-limited",
                          "The form's owner has reached this month's submission quota.");
        e->retry_after = sr.month_left;
        formsvc_metric_inc(FORMSVC_M_LIMITED_QUOTA);
        return out->later(r, s, e, fs_tr(formsvc_pub_locale(r, pb), "notice.quota"));
    }
    if (sr.outcome == FS_SUBMIT_REPLAY) {
        /* a concurrent request with the same Idempotency-Key won */
        int rc = formsvc_post_replay(r, s, out);
        return rc != NO_RECORD
                   ? rc
                   : formsvc_pub_problem(r, fs_error_make(r->pool, "conflict",
                                                          "A request with this Idempotency-Key "
                                                          "is in progress; retry."));
    }
    if (s->up && (e = formsvc_upload_commit(s->up))) /* uploaded files */
        return formsvc_post_refuse(r, s, out, e);
    formsvc_metric_inc(FORMSVC_M_SUBMISSIONS); /* stored */
    if (!s->spam)
        formsvc_owner_count_changed(r->pool, pb->f.id);
    return formsvc_post_answer(r, s, s->html ? 303 : 201, location, sr.json, 0);
}

/* a JSON body over the plain submission limit is only for a
 * form with a file field. */
static fs_error *files_fit(request_rec *r, post *s) {
    if (s->kind == BODY_JSON && s->len > (apr_size_t)formsvc_conf(r->server)->max_body_submission &&
        !fs_fieldset_has_files(s->pb.fs))
        return fs_error_make(r->pool, "payload-too-large",
                             "The body is larger than %" APR_OFF_T_FMT " bytes.",
                             formsvc_conf(r->server)->max_body_submission);
    return NULL;
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
 * checked and spooled (files.h). READ when post_form goes on; else the
 * answer is sent. A request with an Idempotency-Key to a form that is
 * not open is read (its files dropped) so that a repeat is still
 * answered as the first time. */
static int multipart_first(request_rec *r, post *s, const responder *out, const char *ref) {
    /* an answer before the body closes the connection: httpd would
     * otherwise wait for the whole body to discard it */
    ap_conn_keepalive_e keep = r->connection->keepalive;
    r->connection->keepalive = AP_CONN_CLOSE;
    int cached;
    fs_error *e = formsvc_pub_load(r, ref, &s->pb, &cached, s->dry ? ROW_DB : ROW_MEMORY);
    s->have_form = !e || cached;
    if (e && !s->have_form)
        return formsvc_post_refuse(r, s, out, e);
    if (e) { /* the database is away: the answers are read to give the form back */
        formsvc_db_release(r);
        r->connection->keepalive = keep;
        fs_error *be = formsvc_post_multipart_body(r, s, 0);
        if (be)
            return formsvc_pub_problem(r, be);
        fs_coerce(r->pool, s->pb.fs, s->pairs, s->pb.honeypot, &s->obj, &s->spam);
        formsvc_pub_keep_link(r, &s->pb);
        return formsvc_post_refuse(r, s, out, e);
    }
    int open = !strcmp(s->pb.f.status, "published") && !formsvc_pub_opens_later(&s->pb);
    if (!open && !s->dry && !s->ikey) { /* a refusal comes from the stored form */
        if ((e = formsvc_pub_load(r, ref, &s->pb, &cached, ROW_REFILL)))
            return formsvc_post_refuse(r, s, out, e);
        open = !strcmp(s->pb.f.status, "published") && !formsvc_pub_opens_later(&s->pb);
    }
    if (!open && !s->ikey) {
        if (strcmp(s->pb.f.status, "published"))
            return out->closed(r, s);
        return out->not_open(r, s, formsvc_pub_opens_later(&s->pb));
    }
    if (open && (e = formsvc_ratelimit_address(r, FORMSVC_RL_SUBMIT, s->pb.f.id)))
        return out->later(r, s, e, NULL);
    s->limited = open; /* counted once, however often the form is read */
    s->read_version = s->pb.f.version ? s->pb.f.version : "";
    s->read_files = fs_fieldset_has_files(s->pb.fs);
    s->files_dropped = s->read_files && !open;
    formsvc_db_release(r); /* nothing held while the body arrives */
    r->connection->keepalive = keep;
    fs_error *be = formsvc_post_multipart_body(r, s, open);
    return be ? formsvc_pub_problem(r, be) : READ;
}

/* The checks and the store of a parsed submission to the form ref, read
 * from where from says (load). A form from memory only ever leads to a
 * stored submission (which the statement's version check confirms):
 * AFRESH, nothing answered, when it would refuse the answers, has file
 * fields (a JSON body) or is not the form a multipart body's files were
 * checked against, so that every refusal comes from the stored form; STALE,
 * nothing stored or answered, when the statement found the form changed
 * since it was read. */
static int post_form(request_rec *r, post *s, const responder *out, const char *ref, int from) {
    int cached;
    fs_error *e = formsvc_pub_load(r, ref, &s->pb, &cached, from);
    s->have_form = !e || cached;
    if (!e && from == ROW_MEMORY && s->kind == BODY_JSON && fs_fieldset_has_files(s->pb.fs))
        return AFRESH; /* files go into the submission's transaction */
    fs_error *be;
    if (s->have_form && (be = formsvc_post_token(r, s)))
        return formsvc_pub_problem(r, be);
    if (s->have_form && s->kind != BODY_JSON)
        fs_coerce(r->pool, s->pb.fs, s->pairs, s->pb.honeypot, &s->obj, &s->spam);
    if (e) {
        if (s->have_form)
            formsvc_pub_keep_link(r, &s->pb);
        return formsvc_post_refuse(r, s, out, e);
    }

    /* a repeat is answered as the first time, before any other check */
    if (s->ikey) {
        if (!s->hash) /* multipart_body took it on the way */
            s->hash = formsvc_post_request_hash(r, s->kind, s->pb.f.id, s->dry, s->buf, s->len);
        int rc = formsvc_post_replay(r, s, out);
        if (rc != NO_RECORD)
            return rc;
    }
    /* a multipart body was read before (multipart_first); its files were
     * checked against the form of read_version, which must still hold */
    if (s->kind == BODY_MULTIPART && (s->read_files || fs_fieldset_has_files(s->pb.fs)) &&
        s->read_version && strcmp(s->read_version, s->pb.f.version ? s->pb.f.version : ""))
        return from == ROW_MEMORY ? AFRESH : STALE;
    if (strcmp(s->pb.f.status, "published"))
        return out->closed(r, s);
    const char *opens = formsvc_pub_opens_later(&s->pb);
    if (opens)
        return from == ROW_MEMORY ? AFRESH : out->not_open(r, s, opens);
    if (s->files_dropped) /* the form opened while the body arrived: nothing stored */
        return STALE;
    if ((e = formsvc_pub_take_link(r, &s->pb))) {
        /* the request with the same Idempotency-Key that used the link up
         * may have committed since the check above: its answer, then */
        int rc = s->ikey && e->status == 409 ? formsvc_post_replay(r, s, out) : NO_RECORD;
        if (rc != NO_RECORD)
            return rc;
        return e->status == 503 ? out->later(r, s, e, NULL)
                                : formsvc_pub_link_refused(r, &s->pb, e, s->html);
    }
    if (!s->limited && (e = formsvc_ratelimit_address(r, FORMSVC_RL_SUBMIT, s->pb.f.id)))
        return out->later(r, s, e, NULL);
    s->limited = 1; /* counted once, however often the form is read */
    if ((e = files_fit(r, s)))
        return from == ROW_MEMORY ? AFRESH : formsvc_pub_problem(r, e);
    if (s->file_err) /* which file failed and why, other answers kept */
        return from == ROW_MEMORY ? AFRESH : out->invalid(r, s, s->file_err);
    if (s->up)
        formsvc_upload_stubs(s->up, s->obj); /* the files as fs_validate counts them */
    if ((e = fs_validate(r->pool, s->pb.fs, s->obj)))
        return from == ROW_MEMORY ? AFRESH : out->invalid(r, s, e);
    if (s->dry) {
        formsvc_pub_cors(r);
        return formsvc_pub_send_body(r, 200, "application/json", "{\"valid\":true}", 0);
    }
    if ((e = files_store(r, s))) /* uploaded files */
        return e->status == 422 || (e->status == 413 && e->errors) ? out->invalid(r, s, e)
               : e->status == 413 ? out->later(r, s, e, e->detail) /* the storage quota */
                                  : formsvc_post_refuse(r, s, out, e);
    return store(r, s, out);
}

int formsvc_h_public_post(request_rec *r, const char *const *caps) {
    post s;
    fs_error *e = formsvc_post_parse(r, &s);
    if (e)
        return formsvc_pub_problem(r, e);
    const responder *out = s.html ? &formsvc_post_html : &formsvc_post_json;
    if (s.kind == BODY_MULTIPART) {
        int rc = multipart_first(r, &s, out, caps[0]);
        if (rc != READ)
            return rc;
    }
    /* the form from memory first; when it changed meanwhile,
     * or would refuse the answers, they are checked again against the
     * form as stored. A multipart body's files were checked as it
     * arrived, against the form multipart_first read, whose version the
     * submission's statement confirms (a changed form: nothing stored,
     * the conflict below); a dry run stores nothing to confirm. */
    int rc = post_form(r, &s, out, caps[0], s.dry ? ROW_DB : ROW_MEMORY);
    if (rc == AFRESH)
        rc = post_form(r, &s, out, caps[0], ROW_REFILL);
    /* a multipart body is in memory (its files spooled): checked again
     * when it has no files */
    int again = !s.up && !(s.kind == BODY_MULTIPART && (s.read_files || s.files_dropped));
    for (int tries = 0; rc == STALE && again && tries < 3; tries++) {
        formsvc_metric_inc(FORMSVC_M_MEM_ROW_STALE);
        rc = post_form(r, &s, out, caps[0], ROW_REFILL);
    }
    if (rc == STALE)
        return out->later(r, &s,
                          fs_error_make(r->pool, "conflict",
                                        "The form changed while this submission was being "
                                        "stored; nothing was stored. Check the form and send "
                                        "it again."),
                          NULL);
    return rc;
}
