/* public_post: what the files of POST /f/{ref} share (public_parse.c,
 * public_respond.c, public_submit.c): the submission as the request
 * states it (post), the responders that refuse it, and the steps each of
 * those files gives the handler. A post lives in the handler's frame;
 * everything it points to is in r->pool. */
#ifndef FORMSVC_PUBLIC_POST_H
#define FORMSVC_PUBLIC_POST_H

#include "http/files.h"
#include "public/public_page.h"

/* The encoding of the body. */
enum { BODY_JSON, BODY_URLENCODED, BODY_MULTIPART };

/* A submission as the request states it, parsed once, without the
 * database; then the form and what was decided about it. */
typedef struct post {
    int kind;         /* BODY_* */
    int html;         /* an HTML form post that does not prefer JSON: answer with pages */
    int dry;          /* ?dryRun=true */
    const char *ikey; /* Idempotency-Key, or NULL */
    const char *hash; /* of the request, when ikey is set (request_hash) */
    char *buf;        /* the body as received */
    apr_size_t len;
    json_object *obj;          /* the answers: the JSON body, or the pairs coerced */
    apr_array_header_t *pairs; /* urlencoded and multipart bodies */
    int spam;                  /* the honeypot was filled in */
    pub pb;                    /* the form, once loaded */
    int have_form;             /* pb is filled (from the database or the cache) */
    int limited;               /* the address's rate limit has counted it */
    const char *sid;           /* the submission's id, chosen early when files come */
    formsvc_upload *up;        /* its files, or NULL */
    const char *boundary;      /* multipart: read once the form is known (multipart_body) */
    fs_error *file_err;        /* multipart: the first problem with a file */
    const char *read_version;  /* multipart: the form's version its files were checked against */
    int read_files;            /* multipart: that form has file fields */
    int files_dropped;         /* multipart: read for a form not open, its files dropped */
    int paged;              /* a step of a form of several pages: obj holds every answer so far */
    const char *partial_id; /* the partial answers the Submit completes (public_partial.c) */
    int captcha_passed;     /* settings.captcha: the token was checked (public_captcha.c) */
    int captcha_unchecked;  /* ... or could not be, and FormsvcCaptchaFailOpen let it in */
    int spam_score;         /* fs_spam_score of the answers (public_captcha.c) */
    /* the Submit's Idempotency-Key when it is its filling-in's
     * (settings.partial: public_partial.c), else NULL */
    const char *partial_key;
} post;

/* The answers that refuse a submission in a way its sender can act on.
 * Chosen once per request: pages for an HTML post, problem+json for
 * everything else. Every other refusal is problem+json for both. */
typedef struct responder {
    /* e: fs_validate's validation-failed problem */
    int (*invalid)(request_rec *r, post *s, fs_error *e);
    /* the form does not take submissions (any more) */
    int (*closed)(request_rec *r, post *s);
    /* the form takes submissions from opens (settings.opensAt) */
    int (*not_open)(request_rec *r, post *s, const char *opens);
    /* a passing refusal (503 the database is away, 429 a rate or the
     * owner's quota): try again later with the same answers. notice is
     * what the page says; NULL for the one that fits e->status. */
    int (*later)(request_rec *r, post *s, fs_error *e, const char *notice);
} responder;

/* The responders: problem+json; pages (public_respond.c). */
extern const responder formsvc_post_json, formsvc_post_html;

/* formsvc_post_replay: no record, nothing sent. */
#define NO_RECORD (-1)

/* public_parse.c */
/* Everything that can be said about the request without the database:
 * its media type, dryRun, Idempotency-Key and body (not a multipart
 * body's). A problem when any of them is wrong. */
fs_error *formsvc_post_parse(request_rec *r, post *s);
/* The page's submission token of an HTML post, checked for s->pb
 * (sets s->pb.token, and s->ikey when the post sends none); a problem
 * when it is not one of this form's. */
fs_error *formsvc_post_token(request_rec *r, post *s);
/* A multipart body for s->pb: take, its files are checked and spooled. */
fs_error *formsvc_post_multipart_body(request_rec *r, post *s, int take);
/* The most bytes of answers a post to s's form may carry (files aside):
 * FormsvcMaxBodySubmission when the configuration sets it; by default the
 * larger of its 64 KiB and what the form's questions can take at their
 * longest (fs_fieldset_body_max), at most the ceiling every body is read
 * against before the form is known (formsvc_post_body_ceiling). */
apr_off_t formsvc_post_body_max(request_rec *r, const post *s);
/* What a body is read against before its form is known: the larger of
 * FormsvcMaxBodySubmission and FormsvcFileMaxJSONBody. */
apr_off_t formsvc_post_body_ceiling(request_rec *r);
/* The hash an Idempotency-Key record keeps of the request. */
const char *formsvc_post_request_hash(request_rec *r, int kind, const char *form_id, int dry,
                                      const char *body, apr_size_t len);

/* public_pages.c: a form of several pages (fs_pages.h) */
/* Is s a step of one: an HTML form post with FS_NAV_NAME or FS_STATE_NAME? */
int formsvc_post_is_step(const post *s);
enum { PAGES_ON, PAGES_SENT, PAGES_AFRESH };
/* A step of s->pb, its gate passed: the state opened (refused with a
 * page when it is not this form's, has expired or names another version
 * of the form: PAGES_AFRESH when the form came from memory, which may be
 * the older one), the page's answers merged into it. Back shows the page
 * before; Next checks the page's answers (the page again with its
 * errors) and shows the page after; Submit on the last page leaves every
 * answer in s->obj and goes on (PAGES_ON) to be checked and stored as
 * one submission. PAGES_SENT: answered, the handler returns *rc. Not a
 * step: PAGES_ON, nothing done. */
int formsvc_post_pages(request_rec *r, post *s, int from_memory, int *rc);
/* A step refused in passing (503, 429) before formsvc_post_pages merged
 * it: its answers so far and its page, so that the page given back keeps
 * them; nothing when its state does not open. */
void formsvc_post_pages_restore(request_rec *r, post *s);

/* public_partial.c: partial answers (settings.partial) of a step */
/* The resume token s posts goes on to the page it gets back (checked
 * only when the answers are next stored). */
void formsvc_post_partial_carry(post *s);
/* Is s the "save and continue later" button of a form that keeps them? */
int formsvc_post_partial_asked(const post *s);
/* Next (or Back) has checked page's answers and shows page: s->obj is
 * stored as the partial of this filling-in (s->pb.resume set). 0: go on
 * (also when the database failed: logged, the sealed state still carries
 * the answers); 1: a page was sent instead (*rc): a forged resume token,
 * the answers sent already, the address's rate. */
int formsvc_post_partial_step(request_rec *r, post *s, int page, int *rc);
/* "Save and continue later" on page: its answers without those in error
 * stored, and a page with the resume URL sent (its status returned). */
int formsvc_post_partial_save(request_rec *r, post *s, int page);
/* Submit: the partial the post's resume token names becomes the
 * submission (s->partial_id, s->sid). 0: go on; 1: refused (*rc). */
int formsvc_post_partial_complete(request_rec *r, post *s, int *rc);
/* The page that says s's filling-in was sent already (409). */
int formsvc_post_partial_sent(request_rec *r, post *s);

/* public_captcha.c: the bot checks of checked answers, before they are
 * stored: the captcha token with its provider (settings.captcha), then
 * s->spam_score, s->spam set at or above settings.spamThreshold. 0: go
 * on; 1: refused, the answer sent (*rc). */
int formsvc_post_bots(request_rec *r, post *s, const responder *out, int *rc);

/* public_respond.c */
/* A problem that is passing (503) through out->later, final otherwise. */
int formsvc_post_refuse(request_rec *r, post *s, const responder *out, fs_error *e);
/* The answer to a stored submission, new or replayed. */
int formsvc_post_answer(request_rec *r, post *s, int status, const char *location, const char *body,
                        int replayed);
/* Answers a repeat from the Idempotency-Key record of s; NO_RECORD (and
 * nothing sent) when there is none. */
int formsvc_post_replay(request_rec *r, post *s, const responder *out);

/* public_edit.c: editing after sending (settings.allowEdits) */
enum { EDIT_NONE, EDIT_SENT, EDIT_STALE };
/* Where a checked post would be stored: when it carries an edit token
 * (?edit=), the submission it names gets the answers as a new version
 * and the answer is sent (EDIT_SENT, *rc), or the form changed
 * (EDIT_STALE: resolve it again); EDIT_NONE: not an edit. */
int formsvc_edit_store(request_rec *r, post *s, int *rc);
/* location with the edit token of the submission in body (its "id")
 * when it is the thanks page of pb's form and the form takes edits. */
const char *formsvc_edit_thanks_location(request_rec *r, pub *pb, const char *location,
                                         const char *body);

#endif
