/* public_parse: what a public POST says before the database is asked
 * (formsvc_post_parse: media type, dryRun, Idempotency-Key, a JSON or
 * urlencoded body), a multipart body read once the form is known, the
 * request hash an Idempotency-Key record keeps, and the page's submission
 * token. Memory: the body, its pairs and the json-c object live in
 * r->pool (the object through fs_json_parse_object's pool cleanup). */
#include "fs_fieldset.h"
#include "fs_idempotency.h"
#include "fs_json.h"
#include "fs_multipart.h"
#include "fs_negotiate.h"
#include "fs_secret.h"
#include "fs_urlencoded.h"
#include "fs_util.h"
#include "http/files.h"
#include "http/links.h"
#include "public/public_post.h"

#include <apr_strings.h>
#include <openssl/sha.h>

/* Everything that can be said about the request without the database:
 * its media type, dryRun, Idempotency-Key and body. A problem when any of
 * them is wrong. */
fs_error *formsvc_post_parse(request_rec *r, post *s) {
    memset(s, 0, sizeof(*s));
    const char *ct = apr_table_get(r->headers_in, "Content-Type");
    if (fs_media_is(ct, "application/json") && fs_media_utf8(ct))
        s->kind = BODY_JSON;
    else if (fs_media_is(ct, "application/x-www-form-urlencoded"))
        s->kind = BODY_URLENCODED;
    else if (fs_media_is(ct, "multipart/form-data")) {
        s->kind = BODY_MULTIPART;
        if (!(s->boundary = fs_multipart_boundary(r->pool, ct)))
            return fs_error_make(r->pool, "malformed-request",
                                 "multipart/form-data needs a valid boundary parameter "
                                 "(RFC 2046).");
    } else {
        return fs_error_make(r->pool, "unsupported-media-type",
                             "Send application/json, application/x-www-form-urlencoded or "
                             "multipart/form-data (UTF-8).");
    }
    s->html = s->kind != BODY_JSON &&
              fs_negotiate(apr_table_get(r->headers_in, "Accept")) != FS_MEDIA_JSON;
    const char *dr;
    fs_error *e = formsvc_arg(r, "dryRun", &dr);
    if (e)
        return e;
    if (dr && strcmp(dr, "true") && strcmp(dr, "false"))
        return fs_error_make(r->pool, "malformed-request", "dryRun is true or false.");
    s->dry = dr && !strcmp(dr, "true");
    s->ikey = apr_table_get(r->headers_in, "Idempotency-Key");
    if (s->ikey && !fs_idem_key_valid(s->ikey))
        return fs_error_make(r->pool, "malformed-request",
                             "Idempotency-Key is 1 to 255 visible ASCII characters.");

    if (s->kind == BODY_MULTIPART)
        return NULL; /* read once the form is known: multipart_body */
    /* the ceiling here, the form's own limit once it is known
     * (formsvc_post_body_max: a JSON body may carry files in base64, a
     * form's long answers may pass FormsvcMaxBodySubmission) */
    if ((e = formsvc_read_body(r, formsvc_post_body_ceiling(r), &s->buf, &s->len)))
        return e;
    if (s->kind == BODY_JSON) {
        if (s->len == 0)
            return fs_error_make(r->pool, "malformed-request", "A JSON body is required.");
        return fs_json_parse_object(r->pool, s->buf, s->len, &s->obj);
    }
    return fs_urlencoded_parse(r->pool, s->buf, s->len, &s->pairs);
}

/* The submission token of the page an HTML post comes from (the hidden
 * input FS_TOKEN_NAME): the post's Idempotency-Key when it sends none
 * (a multipart body only when its hash was taken on the way), and the
 * token the pages given back carry, so that their retry is the same
 * request. A token that is not one of this form through this request's
 * link (another form's, another link's, made up) is refused. */
fs_error *formsvc_post_token(request_rec *r, post *s) {
    const char *tok = NULL;
    for (int i = 0; s->pairs && i < s->pairs->nelts; i++) {
        const fs_pair *pr = &APR_ARRAY_IDX(s->pairs, i, fs_pair);
        if (strcmp(pr->name, FS_TOKEN_NAME))
            continue;
        if (tok && strcmp(tok, pr->value))
            tok = "";
        else
            tok = pr->value;
    }
    if (!tok)
        return NULL;
    if (!formsvc_form_token_valid(r, s->pb.f.id, tok))
        return fs_error_make(r->pool, "malformed-request",
                             "The submission token (%s) is not one of this form's pages: open "
                             "the form again and send it from there.",
                             FS_TOKEN_NAME);
    s->pb.token = tok;
    if (!s->ikey && (s->kind != BODY_MULTIPART || s->hash))
        s->ikey = tok;
    return NULL;
}

/* What the request hash covers before the body bytes, in every body
 * encoding. The link the request comes through is part of the request:
 * the same key through another link is a different request (422), not a
 * replay. Its token is what the request carries (the link's id is not
 * known before the database is asked). One that cannot be decoded is
 * hashed as "%": no submission was ever stored through it (take_link
 * refuses it), so it replays nothing. Without a link the head is what it
 * always was, so records stored before keep replaying. */
static const char *request_head(request_rec *r, int kind, const char *form_id, int dry) {
    const char *link = NULL;
    if (formsvc_arg(r, FORMSVC_LINK_PARAM, &link))
        link = "%";
    return link ? apr_psprintf(r->pool, "POST /f/%s %d %d " FORMSVC_LINK_PARAM "=%s\n", form_id,
                               kind, dry, link)
                : apr_psprintf(r->pool, "POST /f/%s %d %d\n", form_id, kind, dry);
}

/* A multipart body, read as it arrives once the form is known:
 * with take, the files of a form with file fields are checked and
 * spooled for the submission's transaction (files.h), else dropped (the
 * form came from the outage copy, or is not open); the request hash is
 * taken on the way. */
apr_off_t formsvc_post_body_ceiling(request_rec *r) {
    apr_off_t max = formsvc_conf(r->server)->max_body_submission;
    return formsvc_file_json_max() > max ? formsvc_file_json_max() : max;
}

apr_off_t formsvc_post_body_max(request_rec *r, const post *s) {
    formsvc_srv *c = formsvc_conf(r->server);
    apr_off_t max = c->max_body_submission;
    if (c->max_body_submission_set) /* the operator's: the limit of every form */
        return max;
    apr_off_t form = s->pb.fs ? (apr_off_t)fs_fieldset_body_max(s->pb.fs) : 0;
    apr_off_t ceiling = formsvc_post_body_ceiling(r);
    if (form > ceiling)
        form = ceiling;
    return form > max ? form : max;
}

fs_error *formsvc_post_multipart_body(request_rec *r, post *s, int take) {
    int files = fs_fieldset_has_files(s->pb.fs);
    apr_off_t text = formsvc_post_body_max(r, s); /* the answers but files */
    apr_off_t max = text + (files ? formsvc_files_max_body(s->pb.fs) : 0);
    /* a closed form's files are read and dropped: it answers 409 (or a
     * replay) without storing anything */
    if (files && take) {
        if (!(s->sid = fs_id_new(r->pool, "sub_")))
            return fs_error_internal(r->pool, "no random bytes for a submission id");
        s->up = formsvc_upload_new(r, s->pb.fs, s->pb.f.id, s->sid);
    }
    /* a page's post may carry its submission token (form_token) */
    fs_sha256 *h = s->ikey || s->html ? fs_sha256_new(r->pool) : NULL;
    if (h) { /* as request_hash, the link included */
        const char *head = request_head(r, s->kind, s->pb.f.id, s->dry);
        fs_sha256_update(h, head, strlen(head));
    }
    fs_error *e =
        formsvc_multipart_read(r, s->boundary, text, max, files, s->up, h, &s->pairs, &s->file_err);
    const unsigned char *md = h && !e ? fs_sha256_final(h, r->pool) : NULL;
    if (md)
        s->hash = fs_b64url_encode(r->pool, md, 32);
    return e;
}

const char *formsvc_post_request_hash(request_rec *r, int kind, const char *form_id, int dry,
                                      const char *body, apr_size_t len) {
    unsigned char md[SHA256_DIGEST_LENGTH];
    const char *head = request_head(r, kind, form_id, dry);
    apr_size_t hl = strlen(head);
    unsigned char *all = apr_palloc(r->pool, hl + len);
    memcpy(all, head, hl);
    memcpy(all + hl, body, len);
    SHA256(all, hl + len, md);
    return fs_b64url_encode(r->pool, md, sizeof(md));
}

/* The answers that refuse a submission in a way its sender can act on.
 * Chosen once per request: pages for an HTML post, problem+json for
 * everything else. Every other refusal is problem+json for both. */
