/* public_pages: the steps of a public form of several pages (fs_pages.h)
 * posted by a browser without script: Back, Next (the page's answers
 * checked) and the last page's Submit, which goes on as one submission
 * of every answer (public_submit.c). The answers so far travel in the
 * page's sealed state (public_idempotency.c seals and opens it); no step
 * but Submit asks the database for more than the form and the link.
 * Memory: everything from r->pool. */
#include "fs_json.h"
#include "fs_pages.h"
#include "fs_urlencoded.h"
#include "fs_validate.h"
#include "http/i18n.h"
#include "public/public_post.h"

#include <apr_strings.h>

/* The value of the first pair named name, or NULL. */
static const char *pair(const post *s, const char *name) {
    for (int i = 0; s->pairs && i < s->pairs->nelts; i++) {
        const fs_pair *pr = &APR_ARRAY_IDX(s->pairs, i, fs_pair);
        if (!strcmp(pr->name, name))
            return pr->value;
    }
    return NULL;
}

int formsvc_post_is_step(const post *s) {
    return s->kind != BODY_JSON && (pair(s, FS_NAV_NAME) || pair(s, FS_STATE_NAME));
}

/* The form's page q with every answer so far, status 200 (422 with the
 * page's errors). */
static int show(request_rec *r, post *s, int q, int status, fs_error *errors) {
    s->pb.page = q;
    s->pb.spam = s->spam;
    return formsvc_pub_html_page(r, status, &s->pb, s->obj, errors, NULL);
}

/* The notice of a Back step whose post carried a file for a file field
 * (a multipart page): the file is not kept (a browser cannot be given a
 * file back), and the page Back shows says so rather than the file
 * input being empty, without a word, when the person comes back. */
static const char *files_left(request_rec *r, post *s) {
    if (!formsvc_upload_any(s->up))
        return NULL;
    json_object *o = formsvc_upload_stubs(s->up, fs_json_own(r->pool, json_object_new_object()));
    json_object_object_foreach(o, k, v) {
        (void)v;
        const fs_field *f = fs_fieldset_find(s->pb.fs, k);
        if (f && f->type == FS_FT_FILE)
            return fs_tr(formsvc_pub_locale(r, &s->pb), "notice.files_left");
    }
    return NULL;
}

/* A 422 asking to shorten the longest text answer of page when the
 * answers so far are too long for the state of page q (the page a step
 * goes to, another one; measured as its render seals it,
 * formsvc_page_state_for), at most FS_PAGESTATE_PLAIN_MAX bytes. The person
 * stays on page, everything typed kept, rather than going on with
 * answers no later step could read. NULL when they fit, or when the step
 * stays on page (q is page, or -1). */
static fs_error *too_long(request_rec *r, post *s, int page, int q) {
    if (q < 0 || q == page)
        return NULL;
    fs_pagestate st = formsvc_page_state_for(r, &s->pb, q, s->spam, s->obj);
    apr_size_t excess = fs_pagestate_excess(r->pool, &st);
    return excess ? fs_pages_carry_error(r->pool, s->pb.fs, page, s->obj, excess) : NULL;
}

/* What merge says of a state past its expiry whose answers it merged
 * all the same (expired less than FS_PAGESTATE_RESTORE_SECONDS ago). */
#define STATE_STALE (-2)

/* Opens the state of s (none: the first page, no answers yet) and merges
 * the posted page into it: s->obj holds every answer so far, *page the
 * page posted. FS_PAGESTATE_* of the state, -1 when it names another
 * version of the form, or STATE_STALE (merged: the step is not taken). */
static int merge(request_rec *r, post *s, int *page) {
    const char *sealed = pair(s, FS_STATE_NAME);
    fs_pagestate st = {NULL, 0, 0, 0, NULL, NULL};
    int stale = 0;
    *page = 0;
    if (sealed) {
        int o = formsvc_page_state_open(r, s->pb.f.id, sealed, &st);
        if (o == FS_PAGESTATE_EXPIRED &&
            st.expires + FS_PAGESTATE_RESTORE_SECONDS >= apr_time_sec(apr_time_now()))
            o = FS_PAGESTATE_OK, stale = 1; /* authentic, only late */
        if (o != FS_PAGESTATE_OK)
            return o;
        if (strcmp(st.version, s->pb.f.version ? s->pb.f.version : ""))
            return -1;
        if (st.page < 0 || st.page >= s->pb.fs->npages)
            return FS_PAGESTATE_BAD;
        *page = st.page;
    }
    s->spam |= st.spam;
    s->pb.trail = st.trail;
    s->obj = fs_pages_merge(r->pool, s->pb.fs, *page, st.answers, s->obj);
    s->paged = 1;
    return stale ? STATE_STALE : FS_PAGESTATE_OK;
}

int formsvc_post_pages(request_rec *r, post *s, int from_memory, int *rc) {
    if (!formsvc_post_is_step(s))
        return PAGES_ON;
    const fs_fieldset *fs = s->pb.fs;
    int nav = fs_nav_of(pair(s, FS_NAV_NAME));
    int save = nav == FS_NAV_BAD && formsvc_post_partial_asked(s); /* public_partial.c */
    if (nav == FS_NAV_BAD && !save) {
        *rc = formsvc_pub_state_refused(r, &s->pb, FS_PAGESTATE_BAD, s->html);
        return PAGES_SENT;
    }
    formsvc_post_partial_carry(s); /* settings.partial: the resume token goes on */
    int page, o = merge(r, s, &page);
    if (o == -1 && from_memory)
        return PAGES_AFRESH; /* the stored form may be the state's */
    if (o == STATE_STALE && s->html) {
        /* a page left open past its state's expiry: the page it was,
         * with every answer so far and a fresh state, and what to do;
         * no step taken, nothing stored (a program gets the problem) */
        s->pb.page = page;
        s->pb.spam = s->spam;
        *rc = formsvc_pub_html_page(r, 409, &s->pb, s->obj, NULL,
                                    fs_tr(formsvc_pub_locale(r, &s->pb), "notice.stale"));
        return PAGES_SENT;
    }
    if (o == STATE_STALE)
        o = FS_PAGESTATE_EXPIRED;
    if (o != FS_PAGESTATE_OK) {
        *rc = formsvc_pub_state_refused(r, &s->pb, o, s->html);
        return PAGES_SENT;
    }
    if (fs->npages <= 1) { /* one page (now): a Back or Next shows it */
        if (nav == FS_NAV_SUBMIT || nav == FS_NAV_NONE)
            return PAGES_ON;
        *rc = show(r, s, 0, 200, NULL);
        return PAGES_SENT;
    }
    if (save) {
        *rc = formsvc_post_partial_save(r, s, page);
        return PAGES_SENT;
    }
    if (nav == FS_NAV_BACK) { /* nothing checked: everything typed kept */
        /* the page shown before this one (show keeps the trail before it) */
        size_t n = s->pb.trail ? json_object_array_length(s->pb.trail) : 0;
        int q = n ? json_object_get_int(json_object_array_get_idx(s->pb.trail, n - 1))
                  : fs_pages_step(fs, page, -1, s->obj);
        fs_error *te = too_long(r, s, page, q);
        const char *left = te ? NULL : files_left(r, s);
        if (left) {
            s->pb.page = q >= 0 ? q : page;
            s->pb.spam = s->spam;
            *rc = formsvc_pub_html_page(r, 200, &s->pb, s->obj, NULL, left);
            return PAGES_SENT;
        }
        *rc = te ? show(r, s, page, 422, te) : show(r, s, q >= 0 ? q : page, 200, NULL);
        return PAGES_SENT;
    }
    /* Next, Submit (or no button): this page's answers, checked with the
     * others so that a condition on an earlier answer holds; the files
     * of a multipart post counted as step_check counts them */
    json_object *chk = s->obj;
    if (s->up)
        chk = formsvc_upload_stubs(s->up, fs_json_own(r->pool, fs_json_copy(s->obj)));
    fs_error *e = fs_pages_errors_on(r->pool, fs, page, fs_validate(r->pool, fs, chk));
    if (e) {
        *rc = show(r, s, page, 422, e);
        return PAGES_SENT;
    }
    int q = fs_pages_step(fs, page, 1, s->obj);
    if (q >= 0 || nav != FS_NAV_SUBMIT) {
        /* a page follows (an answer may have made one apply), or Next on
         * the last page: that page again, now with the submit button; the
         * answers so far kept as partial answers when the form keeps them */
        if (q > page) { /* this page joins the trail Back follows */
            json_object *t = fs_json_own(r->pool, json_object_new_array());
            for (size_t i = 0; s->pb.trail && i < json_object_array_length(s->pb.trail); i++)
                json_object_array_add(t,
                                      json_object_get(json_object_array_get_idx(s->pb.trail, i)));
            json_object_array_add(t, json_object_new_int(page));
            s->pb.trail = t;
        }
        fs_error *te = too_long(r, s, page, q);
        if (te) {
            *rc = show(r, s, page, 422, te);
            return PAGES_SENT;
        }
        if (!formsvc_post_partial_step(r, s, q >= 0 ? q : page, rc))
            *rc = show(r, s, q >= 0 ? q : page, 200, NULL);
        return PAGES_SENT;
    }
    /* Submit: every answer, those of questions that no longer apply left
     * out, checked and stored as one submission */
    fs_pages_drop_inapplicable(fs, page, s->obj);
    s->pb.page = page;
    s->pb.spam = s->spam;
    if (s->ikey) { /* a repeat is the same answers, whatever the state's random bytes */
        const char *text = apr_pstrcat(r->pool, "pages ", s->spam ? "spam " : "",
                                       fs_pages_answers_text(r->pool, s->obj), NULL);
        s->hash = formsvc_post_request_hash(r, s->kind, s->pb.f.id, s->dry, text, strlen(text));
    }
    if (formsvc_post_partial_complete(r, s, rc)) /* the partial it completes */
        return PAGES_SENT;
    return PAGES_ON;
}

void formsvc_post_pages_restore(request_rec *r, post *s) {
    int page;
    if (s->paged || !s->pb.fs || s->pb.fs->npages <= 1 || !formsvc_post_is_step(s))
        return;
    json_object *posted = s->obj;
    int o = merge(r, s, &page);
    if (o == FS_PAGESTATE_OK || o == STATE_STALE) {
        s->pb.page = page;
        s->pb.spam = s->spam;
    } else {
        s->obj = posted;
    }
}
