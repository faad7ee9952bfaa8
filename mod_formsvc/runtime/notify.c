/* notify: the jobs of sql/0028 become mail. The mail worker (mail.c)
 * drains them as a formsvc_queue: claim (a batch of jobs under a lease of
 * five minutes), deliver (here: write the messages, no database), record
 * (fs_mail_done: the daily quotas and the outbox, one transaction). A run
 * that fails before it records leaves the jobs to the next lease.
 *
 * Links in the mail are absolute: FormsvcBaseURL, else this server's name
 * and port. Confirmation tokens are random and stored as keyed hashes;
 * unsubscribe links carry the recipient id and an HMAC of it under the
 * pepper, so they need no stored secret and never expire. */
#include "runtime/notify.h"
#include "fs_code.h"
#include "fs_edit.h"
#include "fs_json.h"
#include "fs_mail.h"
#include "fs_notify.h"
#include "fs_secret.h"
#include "fs_store_mail.h"
#include "fs_util.h"
#include "runtime/config.h"
#include "runtime/config_accounts.h"
#include "runtime/log.h"
#include "runtime/mail.h"
#include "runtime/worker.h"

#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

#define LEASE_SECONDS 300
/* Jobs claimed at once: their messages wait in memory until they are
 * recorded together (worker.c), at most BATCH x 10 recipients x a message
 * of FS_MAIL_TEXT_MAX bytes of text (about 1 MB encoded, at worst). */
#define BATCH 10

/* HMAC under the pepper of "<purpose>:<value>": one purpose's MACs are
 * never valid as another's. */
static const char *keyed(apr_pool_t *p, server_rec *s, const char *purpose, const char *v) {
    formsvc_srv *c = formsvc_conf(s);
    return fs_secret_hash(p, c->pepper, c->pepper_len, apr_pstrcat(p, purpose, ":", v, NULL));
}

const char *formsvc_notify_unsub_mac(apr_pool_t *p, server_rec *s, const char *id) {
    return keyed(p, s, "notify-unsub", id);
}

const char *formsvc_notify_token_hash(apr_pool_t *p, server_rec *s, const char *token) {
    return keyed(p, s, "notify", token);
}

static const char *base_url(apr_pool_t *p, server_rec *s) {
    formsvc_srv *c = formsvc_conf(s);
    if (c->base_url)
        return c->base_url;
    return apr_psprintf(p, "http://%s:%u%s", s->server_hostname ? s->server_hostname : "localhost",
                        s->port ? (unsigned)s->port : 80u, c->base_path);
}

/* What one claimed job needs while its messages are written. */
typedef struct job_ctx {
    apr_pool_t *p;
    server_rec *s;
    const char *base;
    json_object *msgs; /* the array for fs_mail_done, owned by p */
} job_ctx;

static const char *str(json_object *o, const char *k) {
    json_object *v = fs_json_get(o, k);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* Adds one message to the batch; a recipient that cannot be mailed (a bad
 * address) is left out. The message is written in a pool of its own,
 * gone once json-c holds its copy: a job's memory is its messages, not
 * every step of writing them. */
static void add_msg(job_ctx *x, const char *kind, const char *to, const char *subject,
                    const char *body, const char *unsub, json_object *extra) {
    const char *id;
    apr_pool_t *mp;
    apr_pool_create(&mp, x->p);
    char *text = formsvc_mail_compose(mp, x->s, to, fs_notify_header_text(mp, subject, 900), body,
                                      unsub, &id);
    if (!text) {
        apr_pool_destroy(mp);
        json_object_put(extra);
        return;
    }
    json_object *o = extra ? extra : json_object_new_object();
    json_object_object_add(o, "id", json_object_new_string(id));
    json_object_object_add(o, "to", json_object_new_string(to));
    /* what the per-address cap counts (sql/0038): x+tag@ is x@ */
    const char *mailbox = fs_mail_mailbox(mp, to);
    json_object_object_add(o, "mailbox", json_object_new_string(mailbox ? mailbox : to));
    json_object_object_add(o, "kind", json_object_new_string(kind));
    json_object_object_add(o, "message", json_object_new_string(text));
    json_object_array_add(x->msgs, o);
    apr_pool_destroy(mp);
}

static const fs_fieldset *fields_of(job_ctx *x, json_object *form) {
    return fs_fieldset_from_json(x->p, fs_json_get(form, "fields"));
}

static const char *unsub_url(job_ctx *x, const char *rid) {
    return apr_pstrcat(x->p, x->base, "/notify/unsubscribe?u=", rid, ".",
                       formsvc_notify_unsub_mac(x->p, x->s, rid), NULL);
}

static const char *footer(job_ctx *x, const char *title, const char *unsub) {
    return apr_pstrcat(x->p,
                       "\n-- \nYou receive this because this address was added to the "
                       "notifications of the form \"",
                       title,
                       "\" and confirmed.\n"
                       "Stop these mails: ",
                       unsub, "\n", NULL);
}

/* 'address': asks a pending recipient to agree. */
static void write_address(job_ctx *x, json_object *pl) {
    json_object *rc = fs_json_get(pl, "recipient");
    const char *rid = str(rc, "id"), *to = str(rc, "email");
    const char *title = str(fs_json_get(pl, "form"), "title");
    if (!rid || !to || !title || !json_object_get_boolean(fs_json_get(rc, "pending")))
        return;
    const char *token = fs_code_token(x->p);
    if (!token)
        return;
    json_object *extra = json_object_new_object();
    json_object_object_add(extra, "recipientId", json_object_new_string(rid));
    json_object_object_add(extra, "tokenHash",
                           json_object_new_string(formsvc_notify_token_hash(x->p, x->s, token)));
    const char *link = apr_pstrcat(x->p, x->base, "/notify/confirm?token=", token, NULL);
    add_msg(x, "address", to, apr_pstrcat(x->p, "Confirm notifications of \"", title, "\"", NULL),
            apr_pstrcat(x->p, "The owner of the form \"", title,
                        "\" asked to send its submissions to this address.\n\n"
                        "To agree, open this link and press the button on its page (valid 7 "
                        "days):\n",
                        link,
                        "\n\nIf you did not expect this, ignore this mail: nothing is sent to "
                        "this address unless it agrees.\n",
                        NULL),
            NULL, extra);
}

/* One submission's answers and where it is, appended to t (at most
 * FS_MAIL_TEXT_MAX bytes in all). fs: the form's fields, read once per
 * job. */
static void submission_text(job_ctx *x, fs_notify_text *t, json_object *form, const fs_fieldset *fs,
                            json_object *sub) {
    const char *fid = str(form, "id"), *sid = str(sub, "id");
    fs_notify_answers_add(t, fs, fs_json_get(sub, "data"));
    fs_notify_text_add(t, apr_pstrcat(x->p, "\nSubmission ", sid ? sid : "", " at ",
                                      str(sub, "createdAt"), "\n", x->base, "/v1/forms/",
                                      fid ? fid : "", "/submissions/", sid ? sid : "", "\n", NULL));
}

/* 'each': the submission to every confirmed recipient. */
static void write_each(job_ctx *x, json_object *pl) {
    json_object *form = fs_json_get(pl, "form"), *sub = fs_json_get(pl, "submission");
    json_object *rcs = fs_json_get(pl, "recipients");
    const char *title = str(form, "title");
    if (!title || !sub || !rcs || !json_object_is_type(rcs, json_type_array))
        return;
    fs_notify_text t;
    fs_notify_text_init(&t, x->p, FS_MAIL_TEXT_MAX);
    submission_text(x, &t, form, fields_of(x, form), sub);
    const char *text = fs_notify_text_done(&t);
    for (size_t i = 0; i < json_object_array_length(rcs); i++) {
        json_object *rc = json_object_array_get_idx(rcs, i);
        const char *rid = str(rc, "id"), *to = str(rc, "email");
        if (!rid || !to)
            continue;
        const char *u = unsub_url(x, rid);
        add_msg(x, "notify", to, apr_pstrcat(x->p, "New submission: ", title, NULL),
                apr_pstrcat(x->p, "A new submission to \"", title, "\":\n\n", text,
                            footer(x, title, u), NULL),
                u, NULL);
    }
}

/* {"submissionIds": [...]}: the submissions a digest lists in full, kept
 * with its message (sql/0079) so that deleting one of them deletes the
 * message that carries its answers. A new object: add_msg takes it. */
static json_object *listed_ids(json_object *subs) {
    json_object *o = json_object_new_object(), *ids = json_object_new_array();
    for (size_t i = 0; i < json_object_array_length(subs); i++) {
        const char *sid = str(json_object_array_get_idx(subs, i), "id");
        if (sid)
            json_object_array_add(ids, json_object_new_string(sid));
    }
    json_object_object_add(o, "submissionIds", ids);
    return o;
}

/* 'digest': the submissions of an ended hour, the first
 * FS_DIGEST_LIST_MAX in full. */
static void write_digest(job_ctx *x, json_object *pl) {
    json_object *form = fs_json_get(pl, "form"), *subs = fs_json_get(pl, "submissions");
    json_object *rcs = fs_json_get(pl, "recipients");
    const char *title = str(form, "title"), *fid = str(form, "id");
    long total = (long)json_object_get_int64(fs_json_get(pl, "total"));
    if (!title || !fid || total < 1 || !subs || !json_object_is_type(subs, json_type_array) ||
        !rcs || !json_object_is_type(rcs, json_type_array))
        return;
    size_t n = json_object_array_length(subs);
    const fs_fieldset *fs = fields_of(x, form);
    fs_notify_text t;
    fs_notify_text_init(&t, x->p, FS_MAIL_TEXT_MAX);
    for (size_t i = 0; i < n && !t.cut; i++) {
        if (i)
            fs_notify_text_add(&t, "\n----\n\n");
        submission_text(x, &t, form, fs, json_object_array_get_idx(subs, i));
    }
    const char *text = fs_notify_text_done(&t);
    if ((long)n < total)
        text = apr_psprintf(x->p, "%s\n... and %ld more: %s/v1/forms/%s/submissions\n", text,
                            total - (long)n, x->base, fid);
    for (size_t i = 0; i < json_object_array_length(rcs); i++) {
        json_object *rc = json_object_array_get_idx(rcs, i);
        const char *rid = str(rc, "id"), *to = str(rc, "email");
        if (!rid || !to)
            continue;
        const char *u = unsub_url(x, rid);
        add_msg(x, "notify", to,
                apr_psprintf(x->p, "%ld new submission%s: %s", total, total == 1 ? "" : "s", title),
                apr_psprintf(x->p, "%ld new submission%s to \"%s\" in the last hour:\n\n%s%s",
                             total, total == 1 ? "" : "s", title, text, footer(x, title, u)),
                u, listed_ids(subs));
    }
}

/* The respondent's copy of a form whose answers may be changed after
 * sending (settings.allowEdits, fs_edit.h; the store leaves it out of
 * link-only forms): a paragraph with the private edit link, else "". */
static const char *edit_text(job_ctx *x, json_object *form, json_object *sub) {
    int hours = fs_edit_hours(form); /* fs_mail_form_json has allowEdits at the top */
    const char *fid = str(form, "id"), *sid = str(sub, "id");
    if (!hours || !fid || !sid)
        return "";
    formsvc_srv *c = formsvc_conf(x->s);
    const char *tok = fs_edit_token(x->p, c->pepper, c->pepper_len, fid, sid);
    if (!tok)
        return "";
    return apr_psprintf(x->p,
                        "\n\nYou can change your answers for %s after sending them with "
                        "this private link (keep it to yourself: whoever has it can see and "
                        "change your answers):\n%s/f/%s?" FS_EDIT_PARAM "=%s",
                        hours == 1 ? "an hour" : apr_psprintf(x->p, "%d hours", hours), x->base,
                        fid, tok);
}

/* 'confirmation': the respondent's copy, to the address of the form's
 * emailField, with {{key}} filled in (fs_notify_fill). */
static void write_confirmation(job_ctx *x, json_object *pl) {
    json_object *form = fs_json_get(pl, "form"), *sub = fs_json_get(pl, "submission");
    json_object *c = fs_json_get(form, "confirmation");
    const char *title = str(form, "title"), *ef = str(c, "emailField");
    const char *subj = str(c, "subject"), *body = str(c, "body");
    if (!title || !ef || !subj || !body || !sub)
        return;
    const fs_fieldset *fields = fields_of(x, form);
    json_object *data = fs_json_get(sub, "data");
    const char *to = fs_notify_answer(x->p, fields, data, ef);
    if (!*to || !fs_email_valid(to))
        return;
    add_msg(x, "confirmation", to, fs_notify_fill(x->p, subj, fields, data),
            apr_pstrcat(x->p, fs_notify_fill(x->p, body, fields, data), edit_text(x, form, sub),
                        "\n\n-- \nSent for the form \"", title,
                        "\" because this address was entered in it.\n", NULL),
            NULL, NULL);
}

typedef struct outcome {
    const char *msgs; /* JSON array for fs_mail_done */
} outcome;

static int claim(apr_pool_t *p, server_rec *s, fs_store *st, void **items) {
    (void)s;
    fs_mail_jobs *b = apr_pcalloc(p, sizeof(*b));
    if (fs_store_mail_claim(st, LEASE_SECONDS, BATCH, b))
        return 0;
    *items = b->job;
    return b->n;
}

/* The messages of job i, written in a pool of their own that is gone when
 * it returns: what stays in ip until record is the array of messages as
 * text, at most recipients x (a message of FS_MAIL_TEXT_MAX bytes of text,
 * encoded). */
static const void *deliver(apr_pool_t *ip, server_rec *s, void *items, int i) {
    const fs_mail_job *j = (const fs_mail_job *)items + i;
    apr_pool_t *jp;
    apr_pool_create(&jp, ip);
    job_ctx x = {jp, s, base_url(jp, s), fs_json_own(jp, json_object_new_array())};
    json_object *pl = j->payload ? fs_json_parse_trusted(jp, j->payload) : NULL;
    if (pl) { /* no payload: the submission went meanwhile; the job is done */
        if (!strcmp(j->kind, "address"))
            write_address(&x, pl);
        else if (!strcmp(j->kind, "each"))
            write_each(&x, pl);
        else if (!strcmp(j->kind, "digest"))
            write_digest(&x, pl);
        else if (!strcmp(j->kind, "confirmation"))
            write_confirmation(&x, pl);
    }
    outcome *o = apr_pcalloc(ip, sizeof(*o));
    o->msgs = fs_json_str(ip, x.msgs);
    apr_pool_destroy(jp);
    return o;
}

static void record(apr_pool_t *ip, server_rec *s, fs_store *st, void *items, int i,
                   const void *out) {
    (void)ip;
    const fs_mail_job *j = (const fs_mail_job *)items + i;
    const outcome *o = out;
    formsvc_srv *c = formsvc_conf(s);
    fs_mail_caps caps = {c->tier[0].notifications, c->tier[1].notifications,
                         c->acct->confirmations_per_address};
    int queued, dropped;
    if (!o || fs_store_mail_done(st, j, o->msgs, &caps, &queued, &dropped))
        return; /* the store logged it; the lease runs out and the job goes again */
    if (dropped)
        FORMSVC_SLOG(s, APLOG_INFO, 0, 03310,
                     "%d %s mail(s) of account %s not sent: a daily mail quota is reached", dropped,
                     j->kind, j->user_id);
}

const formsvc_queue formsvc_notify_queue = {claim, deliver, record};
const formsvc_sweep formsvc_notify_sweep = {fs_store_mail_sweep};
