/* public_idempotency: reading Idempotency-Key records of public
 * submissions. They are written by fs_public_submit, in the same statement
 * as the submission, so a record exists exactly when its submission does. */
#include "public.h"

#include <apr_strings.h>

fs_error *formsvc_public_idem_get(request_rec *r, const char *form_id, const char *key, int *found,
                                  const char **hash, int *status, const char **location,
                                  const char **body) {
    const char *args[] = {form_id, key};
    fs_rows *rs;
    *found = 0;
    fs_error *e = formsvc_query(r, "fs_public_idem_get", 2, args, &rs);
    if (e)
        return e;
    if (rs->nrows == 1) {
        *found = 1;
        *hash = FS_CELL(rs, 0, 0);
        *status = atoi(FS_CELL(rs, 0, 1));
        *location = FS_CELL(rs, 0, 2);
        *body = FS_CELL(rs, 0, 3);
    }
    return NULL;
}
