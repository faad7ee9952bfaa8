/* public_partial: partial answers of a public form of several pages
 * (settings.partial, sql/0059, docs/public-forms.md "Save and continue
 * later"). At each Next the answers so far are stored as one row per
 * filling-in, updated in place; "save and continue later" stores them and
 * shows the resume URL; GET /f/{ref}?resume=<token> restores the answers
 * and the page reached; the last page's Submit completes the row (the
 * submission takes its id: public_store.c). The token travels from step
 * to step in the hidden input FS_RESUME_NAME; its secret is compared with
 * the stored keyed hash in constant time and never logged.
 * Memory: everything from r->pool. */
#include "fs_captcha.h"
#include "fs_form.h"
#include "fs_json.h"
#include "fs_mail.h"
#include "fs_partial.h"
#include "fs_secret.h"
#include "fs_spam.h"
#include "fs_store_partials.h"
#include "fs_urlencoded.h"
#include "fs_util.h"
#include "fs_validate.h"
#include "public/public_post.h"
#include "runtime/mail.h"
#include "runtime/ratelimit.h"

#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

/* The value of the first pair named name, or NULL. */
static const char *pair(const post *s, const char *name) {
    for (int i = 0; s->pairs && i < s->pairs->nelts; i++) {
        const fs_pair *pr = &APR_ARRAY_IDX(s->pairs, i, fs_pair);
        if (!strcmp(pr->name, name))
            return pr->value;
    }
    return NULL;
}

int formsvc_partial_on(const pub *pb) {
    json_object *v = fs_json_get(pb->settings, "partial");
    return v && json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v) && pb->fs &&
           pb->fs->npages > 1;
}

static int days_of(const pub *pb) {
    json_object *v = fs_json_get(pb->settings, "partialExpiresDays");
    int d = v && json_object_is_type(v, json_type_int) ? json_object_get_int(v) : 0;
    return d >= 1 && d <= FS_PARTIAL_DAYS_MAX ? d : FS_PARTIAL_DAYS_DEFAULT;
}

/* The resume URL of token: the page's own address (with its respondent
 * link) and the token, built from the action's path and query. */
static const char *resume_url(request_rec *r, const pub *pb, const char *token) {
    return apr_pstrcat(r->pool, pb->action, strchr(pb->action, '?') ? "&" : "?",
                       FS_RESUME_PARAM "=", token, NULL);
}

/* The day (YYYY-MM-DD, UTC) of an RFC 3339 time. */
static const char *day_of(request_rec *r, const char *ts) {
    return ts ? apr_pstrndup(r->pool, ts, 10) : NULL;
}

void formsvc_partial_page(request_rec *r, pub *pb, fs_page *pg) {
    if (!formsvc_partial_on(pb) || pg->page < 0)
        return;
    pg->can_save = 1;
    if (pb->resume) {
        pg->resume = pb->resume;
        pg->resume_url = resume_url(r, pb, pb->resume);
        pg->resume_until = day_of(r, pb->resume_until);
    }
}

/* What a token names. */
enum { TOKEN_NONE, TOKEN_OK, TOKEN_FORGED };

/* The partial token names for pb's form: TOKEN_OK (*out set), TOKEN_NONE
 * (well formed, but no such partial: expired, completed or never made),
 * TOKEN_FORGED (malformed, or another secret than the partial's). *e on a
 * database failure. */
static int open_token(request_rec *r, const pub *pb, const char *token, fs_partial **out,
                      const char **id, fs_error **e) {
    const char *secret;
    *out = NULL;
    *e = NULL;
    if (!fs_partial_token_parse(r->pool, token, id, &secret))
        return TOKEN_FORGED;
    fs_partial *pt;
    if ((*e = fs_store_partial_get(formsvc_store(r), *id, pb->f.id, &pt)))
        return TOKEN_NONE;
    if (!pt)
        return TOKEN_NONE;
    const formsvc_srv *c = formsvc_conf(r->server);
    const char *h = fs_secret_hash(r->pool, c->pepper, c->pepper_len, secret);
    if (!h || !pt->resume_hash || !fs_secret_equal(h, pt->resume_hash))
        return TOKEN_FORGED;
    *out = pt;
    return TOKEN_OK;
}

/* A resume token that cannot be used: a page that says so, with a link
 * to the form's start. */
static int refused(request_rec *r, pub *pb, int status) {
    const fs_locale *loc = formsvc_pub_locale(r, pb);
    const char *start =
        pb->link ? pb->action : apr_pstrcat(r->pool, formsvc_base_url(r), "/f/", pb->f.id, NULL);
    return formsvc_pub_send_html(r, status, pb,
                                 fs_html_message_link(r->pool, loc, pb->f.title,
                                                      fs_tr(loc, "partial.invalid.title"),
                                                      fs_tr(loc, "partial.invalid.message"), start,
                                                      fs_tr(loc, "pages.restart")),
                                 0);
}

int formsvc_post_partial_sent(request_rec *r, post *s) {
    return refused(r, &s->pb, 409);
}

/* The Idempotency-Key of a filling-in's Submit: "partial " and the keyed
 * hash of its resume secret (what submission_partials keeps of it), the
 * same for every page of the filling-in in whatever browser, so that it
 * is stored once; NULL without random bytes. The secret itself is never
 * stored. */
static const char *filling_key(request_rec *r, const char *secret) {
    const formsvc_srv *c = formsvc_conf(r->server);
    const char *h = secret ? fs_secret_hash(r->pool, c->pepper, c->pepper_len, secret) : NULL;
    return h ? apr_pstrcat(r->pool, "partial ", h, NULL) : NULL;
}

/* Whether the filling-in whose resume secret is secret was sent already
 * (its Submit's idempotency record, kept 24 hours, exists). */
static fs_error *filling_sent(request_rec *r, const pub *pb, const char *secret, int *sent) {
    const char *k = filling_key(r, secret), *h, *loc, *body;
    int st;
    *sent = 0;
    return k ? formsvc_public_idem_get(r, pb->f.id, k, sent, &h, &st, &loc, &body) : NULL;
}

static void not_stored(request_rec *r, const pub *pb, fs_error *e) {
    FORMSVC_LOG(r, APLOG_WARNING, 00350, "partial answers of form %s not stored: %s", pb->f.id,
                e->detail ? e->detail : e->slug);
}

/* Stores s->obj as the partial of this filling-in at page: sets
 * s->pb.resume. 0 when the step goes on (stored, or the database away:
 * the sealed state still carries the answers; *e then says why), else
 * the page sent (*rc). */
static int keep(request_rec *r, post *s, int page, int *rc, fs_error **e) {
    pub *pb = &s->pb;
    const char *token = pair(s, FS_RESUME_NAME), *id = NULL, *secret = NULL;
    int named = 0;
    const formsvc_srv *c = formsvc_conf(r->server);
    *e = NULL;
    if (token && *token) {
        fs_partial *pt;
        int t = open_token(r, pb, token, &pt, &id, e);
        if (*e)
            return 0;
        if (t == TOKEN_FORGED) {
            *rc = refused(r, pb, 400);
            return 1;
        }
        if (t == TOKEN_OK) {
            fs_partial_token_parse(r->pool, token, &id, &secret);
            named = 1;
        } else { /* completed (a step after Back from the last page), or expired */
            int done = 0;
            if ((*e = fs_store_partial_done(formsvc_store(r), id, pb->f.id, &done)))
                return 0;
            if (done) {
                *rc = refused(r, pb, 409);
                return 1;
            }
            token = NULL; /* expired and swept: a new filling-in */
        }
    }
    if (!token) { /* a new row, counted like a submission against the address's rate */
        if (!s->limited && (*e = formsvc_ratelimit_address(r, FORMSVC_RL_SUBMIT, pb->f.id))) {
            *rc = formsvc_post_html.later(r, s, *e, NULL);
            return 1;
        }
        s->limited = 1;
        /* the filling-in's row when a concurrent step made it already */
        id = fs_id_new(r->pool, "sub_");
        secret = fs_partial_secret(r->pool, c->pepper, c->pepper_len, pb->f.id, pb->token);
        if (!id || !secret) {
            *e = fs_error_internal(r->pool, "no random bytes for a partial");
            return 0;
        }
        /* this page's filling-in sent already (its resume URL finished in
         * another browser, then this page's first step posted again):
         * no second row */
        int sent = 0;
        if (pb->token && (*e = filling_sent(r, pb, secret, &sent)))
            return 0;
        if (sent) {
            *rc = refused(r, pb, 409);
            return 1;
        }
    }
    fs_partial_save in = {id,
                          named,
                          pb->f.id,
                          fs_secret_hash(r->pool, c->pepper, c->pepper_len, secret),
                          fs_json_str(r->pool, s->obj),
                          page,
                          pb->f.version,
                          pb->link ? pb->link->id : NULL,
                          days_of(pb),
                          fs_id_new(r->pool, "evt_")};
    fs_partial_outcome o;
    const char *until, *row;
    if ((*e = fs_store_partial_save(formsvc_store(r), &in, &o, &row, &until)))
        return 0;
    if (o == FS_PARTIAL_GONE) {
        *rc = formsvc_post_html.closed(r, s);
        return 1;
    }
    if (o != FS_PARTIAL_SAVED) { /* sent already, or another's */
        *rc = refused(r, pb, o == FS_PARTIAL_DONE ? 409 : 400);
        return 1;
    }
    pb->resume = fs_partial_token(r->pool, row, secret);
    pb->resume_until = until;
    return 0;
}

void formsvc_post_partial_carry(post *s) {
    const char *token = pair(s, FS_RESUME_NAME);
    if (token && *token && formsvc_partial_on(&s->pb))
        s->pb.resume = token; /* checked when it is next used */
}

int formsvc_post_partial_asked(const post *s) {
    const char *v = pair(s, FS_NAV_NAME);
    return v && (!strcmp(v, FS_NAV_SAVE) || !strcmp(v, FS_NAV_AUTOSAVE)) &&
           formsvc_partial_on(&s->pb);
}

/* The answers so far as the bot checks flag them (public_captcha.c: a
 * spamScore at or above settings.spamThreshold, here without the time to
 * fill, as a step may come seconds after its page): they are not kept,
 * as a filled honeypot's are not, so that a bot cannot put into the
 * owner's partials (and their submission.partial events) what the checks
 * keep out of the submissions. */
static int flagged(const post *s) {
    int th = fs_spam_threshold(s->pb.settings);
    return th && fs_spam_score(s->pb.fs, s->obj, s->spam, -1) >= th;
}

int formsvc_post_partial_step(request_rec *r, post *s, int page, int *rc) {
    if (!formsvc_partial_on(&s->pb) || s->spam || s->dry || flagged(s))
        return 0;
    fs_error *e;
    if (keep(r, s, page, rc, &e))
        return 1;
    if (e)
        not_stored(r, &s->pb, e);
    return 0;
}

/* The address a resume URL goes to: the answer of
 * settings.confirmation.emailField, else of the first e-mail field, when
 * it is an address; NULL when there is none. */
static const char *address_of(request_rec *r, const pub *pb, json_object *answers) {
    const char *ef = formsvc_pub_copy_field((pub *)pb);
    for (int i = -1; i < pb->fs->n; i++) {
        const fs_field *f = i < 0 ? (ef ? fs_fieldset_find(pb->fs, ef) : NULL) : &pb->fs->f[i];
        if (!f || f->type != FS_FT_EMAIL)
            continue;
        json_object *v = fs_json_get(answers, f->key);
        const char *a =
            v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
        a = a ? fs_trim(r->pool, a) : NULL;
        if (a && fs_email_valid(a) && fs_mail_mailbox(r->pool, a))
            return a;
    }
    return NULL;
}

/* Mails url to the respondent's address, if the answers have one
 * ("save and continue later" is the asking): the sentence the saved page
 * adds ("" when there is no address). */
static const char *mail_resume(request_rec *r, pub *pb, json_object *answers, const char *url) {
    const char *to = address_of(r, pb, answers);
    if (!to)
        return "";
    const fs_locale *loc = formsvc_pub_locale(r, pb);
    const char *date = day_of(r, pb->resume_until), *id;
    const char *subject = fs_trf(r->pool, loc, "partial.mail.subject", "title", pb->f.title, NULL);
    const char *body = fs_trf(r->pool, loc, "partial.mail.body", "title", pb->f.title, "url", url,
                              "date", date, NULL);
    char *msg = formsvc_mail_message(r, to, subject, body, &id);
    const formsvc_srv *c = formsvc_conf(r->server);
    const int caps[3] = {c->tier[0].notifications, c->tier[1].notifications,
                         c->acct->confirmations_per_address};
    int queued = 0;
    fs_error *e = msg ? fs_store_partial_mail(formsvc_store(r), pb->f.id, to,
                                              fs_mail_mailbox(r->pool, to), id, msg, caps, &queued)
                      : fs_error_internal(r->pool, "the resume mail could not be composed");
    if (e) {
        FORMSVC_LOG(r, APLOG_WARNING, 00351, "the resume URL of form %s was not mailed: %s",
                    pb->f.id, e->detail ? e->detail : e->slug);
        queued = 0;
    }
    return apr_pstrcat(r->pool, " ",
                       queued ? fs_trf(r->pool, loc, "partial.mailed", "address", to, NULL)
                              : fs_tr(loc, "partial.mail_limited"),
                       NULL);
}

int formsvc_post_partial_save(request_rec *r, post *s, int page) {
    pub *pb = &s->pb;
    const fs_locale *loc = formsvc_pub_locale(r, pb);
    /* the answers of the page as they stand, those with errors left out */
    fs_error *bad = fs_pages_errors_on(r->pool, pb->fs, page, fs_validate(r->pool, pb->fs, s->obj));
    for (int i = 0; bad && bad->errors && i < bad->errors->nelts; i++) {
        const fs_field_error *fe = &APR_ARRAY_IDX(bad->errors, i, fs_field_error);
        if (!fe->pointer || fe->pointer[0] != '/')
            continue;
        char *k = apr_pstrdup(r->pool, fe->pointer + 1), *slash = strchr(k, '/');
        if (slash)
            *slash = '\0';
        json_object_object_del(s->obj, k);
    }
    const char *nav = pair(s, FS_NAV_NAME);
    int script = nav && !strcmp(nav, FS_NAV_AUTOSAVE); /* the page's script: JSON */
    if (s->spam || flagged(s)) { /* a bot is told what a person is, nothing stored */
        pb->page = page;
        return script ? formsvc_pub_send_body(r, 200, "application/json", "{}", 0)
                      : formsvc_pub_html_page(r, 200, pb, s->obj, NULL, NULL);
    }
    int rc;
    fs_error *e;
    if (keep(r, s, page, &rc, &e))
        return rc;
    if (e) {
        not_stored(r, pb, e);
        return script ? formsvc_pub_problem(r, e)
                      : formsvc_post_refuse(r, s, &formsvc_post_html, e);
    }
    const char *url = resume_url(r, pb, pb->resume);
    if (script) {
        json_object *o = fs_json_own(r->pool, json_object_new_object());
        json_object_object_add(o, "resume", json_object_new_string(pb->resume));
        json_object_object_add(o, "resumeUrl", json_object_new_string(url));
        json_object_object_add(o, "expiresAt", json_object_new_string(pb->resume_until));
        return formsvc_pub_send_body(r, 200, "application/json", fs_json_str(r->pool, o), 0);
    }
    const char *mailed = mail_resume(r, pb, s->obj, url);
    return formsvc_pub_send_html(
        r, 200, pb,
        fs_html_message_link(r->pool, loc, pb->f.title, fs_tr(loc, "partial.saved.title"),
                             apr_pstrcat(r->pool,
                                         fs_trf(r->pool, loc, "partial.saved.message", "date",
                                                day_of(r, pb->resume_until), "url", url, NULL),
                                         mailed, NULL),
                             url, fs_tr(loc, "partial.continue")),
        0);
}

/* The filling-in's key (filling_key) replaces the key of s that is its
 * page's submission token; a key the request sent is kept. */
static void use_filling_key(request_rec *r, post *s, const char *token) {
    const char *id, *secret, *k;
    if (!s->ikey || !s->pb.token || strcmp(s->ikey, s->pb.token) ||
        !fs_partial_token_parse(r->pool, token, &id, &secret) || !(k = filling_key(r, secret)))
        return;
    s->ikey = s->partial_key = k;
}

int formsvc_post_partial_complete(request_rec *r, post *s, int *rc) {
    const char *token = pair(s, FS_RESUME_NAME), *id;
    if (!formsvc_partial_on(&s->pb) || !token || !*token || s->dry)
        return 0;
    fs_partial *pt;
    fs_error *e;
    int t = open_token(r, &s->pb, token, &pt, &id, &e);
    if (e) {
        *rc = formsvc_post_refuse(r, s, &formsvc_post_html, e);
        return 1;
    }
    if (t == TOKEN_FORGED) {
        *rc = refused(r, &s->pb, 400);
        return 1;
    }
    /* a completion of the filling-in elsewhere is then replayed (step_replay) */
    use_filling_key(r, s, token);
    if (t == TOKEN_OK) { /* the submission takes the partial's id (files chose theirs) */
        s->partial_id = pt->id;
        if (!s->sid)
            s->sid = pt->id;
        return 0;
    }
    /* no partial of that id: completed already (this page's own Submit
     * sent twice, or the resume URL finished in another browser while
     * this page stayed open), or expired and swept */
    int done = 0;
    if ((e = fs_store_partial_done(formsvc_store(r), id, s->pb.f.id, &done))) {
        *rc = formsvc_post_refuse(r, s, &formsvc_post_html, e);
        return 1;
    }
    if (!done) /* expired, or completed under its files' id: the key decides */
        return 0;
    /* a repeat of this page's Submit is answered as the first was; any
     * other Submit of a filling-in that was sent stores nothing */
    if (s->ikey && s->hash && (*rc = formsvc_post_replay(r, s, &formsvc_post_html)) != NO_RECORD)
        return 1;
    *rc = refused(r, &s->pb, 409);
    return 1;
}

int formsvc_partial_resume_asked(request_rec *r) {
    const char *token = NULL;
    return !formsvc_arg(r, FS_RESUME_PARAM, &token) && token;
}

int formsvc_partial_resume_get(request_rec *r, const char *ref) {
    pub pb;
    int cached;
    fs_error *e = formsvc_pub_load(r, ref, &pb, &cached, ROW_DB);
    if (e)
        return formsvc_pub_load_failed(r, e, 1);
    if ((e = formsvc_pub_take_link(r, &pb)))
        return formsvc_pub_link_refused(r, &pb, e, 1);
    if (strcmp(pb.f.status, "published"))
        return formsvc_pub_closed_page(r, 200, &pb);
    const char *opens = formsvc_pub_opens_later(&pb);
    if (opens)
        return formsvc_pub_not_open_page(r, 200, &pb, opens);
    const char *token = NULL, *id;
    fs_partial *pt = NULL;
    if ((e = formsvc_arg(r, FS_RESUME_PARAM, &token)) || !token)
        return refused(r, &pb, 404);
    int t = formsvc_partial_on(&pb) ? open_token(r, &pb, token, &pt, &id, &e) : TOKEN_NONE;
    if (e)
        return formsvc_pub_load_failed(r, e, 1);
    if (t != TOKEN_OK)
        return refused(r, &pb, 404);
    json_object *values = NULL;
    if (fs_json_parse_object(r->pool, pt->data, strlen(pt->data), &values))
        values = NULL;
    /* the page reached, unless the form has changed since (its answers
     * are kept, checked again page by page from the first) */
    int same = pt->form_version && pb.f.version && !strcmp(pt->form_version, pb.f.version);
    pb.page = same && pt->page >= 0 && pt->page < pb.fs->npages ? pt->page : 0;
    pb.resume = token;
    pb.resume_until = pt->expires_at;
    return formsvc_pub_html_page(r, 200, &pb, values, NULL, NULL);
}
