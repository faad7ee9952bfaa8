/* public: what the files of the public form side share (the public_*.c
 * files, form_cache.c). */
#ifndef FORMSVC_PUBLIC_H
#define FORMSVC_PUBLIC_H

#include <httpd.h>

#include "fs_error.h"
#include "fs_pages.h"
#include "fs_store_public.h"

/* A public form as the store returns it (fs_store_public_form): named
 * strings in the request pool. */
typedef fs_public_form formsvc_pubform;

/* Last-known copies of public forms, per process, used only to give an
 * HTML respondent the form back while the database is unreachable. */
void formsvc_public_cache_put(const formsvc_pubform *f);
/* post_config: makes the cache directory (owned by the child user). */
int formsvc_public_post_config(apr_pool_t *pconf, server_rec *s);
int formsvc_public_cache_get(apr_pool_t *p, const char *ref, formsvc_pubform *out);

/* Idempotency-Key records of public submissions (scope: the form id).
 * *found is 0 when there is no record of the last 24 hours. */
fs_error *formsvc_public_idem_get(request_rec *r, const char *form_id, const char *key, int *found,
                                  const char **hash, int *status, const char **location,
                                  const char **body);

/* The one-time submission tokens of form pages (fs_idem_form_token),
 * bound to form_id and to the respondent link the request carries (its
 * l parameter as sent). _new: a fresh one in r->pool, NULL when none can
 * be made; _valid: 1 when token is one for form_id through this
 * request's link. */
const char *formsvc_form_token_new(request_rec *r, const char *form_id);
int formsvc_form_token_valid(request_rec *r, const char *form_id, const char *token);
/* A kept form page about to be served again: its token (if it has one,
 * fs_html_token_at) is replaced in place by a fresh one for form_id, so
 * that no two answers carry the same token. page is writable. */
void formsvc_form_token_renew(request_rec *r, const char *form_id, char *page, apr_size_t len);

/* The sealed state of a page of a form of several pages (fs_pagestate),
 * bound like the tokens to form_id and the request's link, under the
 * server's pepper: FS_PAGESTATE_* as fs_pagestate_seal and
 * fs_pagestate_open say (the expiry is set and checked here). */
int formsvc_page_state_seal(request_rec *r, const char *form_id, fs_pagestate *st,
                            const char **out);
int formsvc_page_state_open(request_rec *r, const char *form_id, const char *sealed,
                            fs_pagestate *st);

#endif
