/* links: what the owner's routes of respondent links (handle_links.c) and
 * the public form (public/) share (links.c): a link's token and
 * URL, the link a public request carries (?l=<token>), and the prefill a
 * page takes from its query string. */
#ifndef FORMSVC_LINKS_H
#define FORMSVC_LINKS_H

#include <httpd.h>
#include <json.h>

#include "fs_error.h"
#include "fs_fieldset.h"

/* The query parameter that carries a link's token. */
#define FORMSVC_LINK_PARAM "l"

/* The keyed hash of a token (HMAC-SHA-256 under the pepper), as stored. */
const char *formsvc_link_token_hash(request_rec *r, const char *token);
/* The token sealed for the database, and opened again; NULL on failure
 * (open: not sealed for this link under this pepper). */
const char *formsvc_link_seal(request_rec *r, const char *link_id, const char *token);
const char *formsvc_link_open(request_rec *r, const char *link_id, const char *sealed);
/* <base>/f/<ref>?l=<token>; ref is the form's slug or id. */
const char *formsvc_link_url(request_rec *r, const char *ref, const char *token);

/* A link a public request came with, resolved. */
typedef struct formsvc_link {
    const char *id;
    const char *token;
    json_object *prefill; /* object, owned by r->pool */
    const char *ask_id;   /* the ask the link was made for, or NULL */
} formsvc_link;

/* The link of form form_id named by the request's l parameter. *out NULL
 * (and NULL returned) when there is none. A problem: 404 not-found (no
 * such link of this form, or a malformed token), 410 link-expired (expired
 * or deleted), 409 link-used (maxUses reached), 503. */
fs_error *formsvc_link_from_request(request_rec *r, const char *form_id, formsvc_link **out);

/* The answers a public page shows prefilled from its query string
 * (/f/{ref}?email=a@b.org), coerced as a form post would be (fs_coerce):
 * only members that name a field of fs; undecodable query strings give
 * none. Then link's prefill (may be NULL) on top. Owned by r->pool. */
json_object *formsvc_prefill_values(request_rec *r, const fs_fieldset *fs,
                                    const formsvc_link *link);

/* 1 when a GET of a public form must not be answered from, or kept in, the
 * shared cache: an HTML page with any query string (it may prefill), or
 * any answer with a link. */
int formsvc_link_personal(request_rec *r, int json);

#endif
