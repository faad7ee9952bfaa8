/* public: what the files of the public form side share (handle_public.c,
 * public_cache.c, public_idempotency.c). */
#ifndef FORMSVC_PUBLIC_H
#define FORMSVC_PUBLIC_H

#include "fs_store_public.h"
#include "glue.h"

/* A public form as the store returns it (fs_store_public_form): named
 * strings in the request pool. */
typedef fs_public_form formsvc_pubform;

/* Last-known copies of public forms, per process, used only to give an
 * HTML respondent the form back while the database is unreachable. */
void formsvc_public_cache_put(const formsvc_pubform *f);
/* Registers the startup hook that makes the cache directory. */
void formsvc_public_hooks(apr_pool_t *p);
int formsvc_public_cache_get(apr_pool_t *p, const char *ref, formsvc_pubform *out);

/* Idempotency-Key records of public submissions (scope: the form id).
 * *found is 0 when there is no record of the last 24 hours. */
fs_error *formsvc_public_idem_get(request_rec *r, const char *form_id, const char *key, int *found,
                                  const char **hash, int *status, const char **location,
                                  const char **body);

#endif
