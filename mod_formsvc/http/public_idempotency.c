/* public_idempotency: reading Idempotency-Key records of public
 * submissions. They are written by fs_public_submit, in the same statement
 * as the submission, so a record exists exactly when its submission does. */
#include "public.h"

#include <apr_strings.h>

fs_error *formsvc_public_idem_get(request_rec *r, const char *form_id, const char *key, int *found,
                                  const char **hash, int *status, const char **location,
                                  const char **body) {
    fs_idem_record *rec;
    *found = 0;
    fs_error *e = fs_store_public_idem_get(formsvc_store(r), form_id, key, &rec);
    if (e)
        return e;
    if (rec) {
        *found = 1;
        *hash = rec->request_hash;
        *status = rec->status;
        *location = rec->location;
        *body = rec->body;
    }
    return NULL;
}
