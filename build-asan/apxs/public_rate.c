/* public_rate: the per-address-per-form submission rate limit, counted in
 * PostgreSQL (table public_rate, sql/0014) so that every httpd child and
 * machine shares it. One function, so that the general rate-limit
 * machinery can take its place. */
#include "public.h"
#include "fs_secret.h"

#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

fs_error *formsvc_public_rate_check(request_rec *r, const char *form_id)
{
    formsvc_srv *c = formsvc_conf(r->server);
    if (c->submission_rate <= 0)
        return NULL;
    /* no raw address is stored: an HMAC under the pepper, per form */
    const char *addr = fs_secret_hash(r->pool, c->pepper, c->pepper_len,
                                      apr_pstrcat(r->pool, form_id, " ", r->useragent_ip, NULL));
    const char *args[] = {form_id, addr, form_id, addr};
    fs_rows *rs;
    fs_error *e = formsvc_query(r, "fs_public_rate_hit", 4, args, &rs);
    if (e)
        return e;
    if (rs->nrows != 1)
        return fs_error_make(r->pool, "internal", NULL);
    if (atoi(FS_CELL(rs, 0, 0)) <= c->submission_rate)
        return NULL;
    e = fs_error_make(r->pool, "rate-limited",
                      "This address sent more than %d submissions to this form in a minute.",
                      c->submission_rate);
    e->retry_after = atoi(FS_CELL(rs, 0, 1));
    if (e->retry_after < 1)
        e->retry_after = 1;
    return e;
}
