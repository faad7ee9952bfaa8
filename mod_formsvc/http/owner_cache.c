/* owner_cache: the owner's view of a form from memory (see owner_cache.h). */
#include "http/owner_cache.h"
#include "fs_json.h"
#include "fs_store_forms.h"
#include "fs_util.h"
#include "http/request.h"
#include "runtime/cache.h"
#include "runtime/metrics.h"
#include "runtime/request_ctx.h"

#include <apr_strings.h>

/* Submissions on other machines notify nothing: the count they change is
 * at most this old. */
#define OWNER_TTL apr_time_from_sec(1)

/* Both generation keys in one stamp: each counter only grows, so their sum
 * changes whenever either does. */
static fs_lru_stamp stamp_of(apr_pool_t *p, const char *id) {
    fs_lru_stamp row = formsvc_cache_stamp(apr_pstrcat(p, "r:", id, NULL));
    fs_lru_stamp count = formsvc_cache_stamp(apr_pstrcat(p, "c:", id, NULL));
    row.b += count.b;
    return row;
}

/* When an entry made now must go: 1 s, the form cache's TTL if shorter,
 * and the form's own closesAt (its status turns to closed then). */
static apr_time_t expiry(apr_pool_t *p, const char *settings, apr_time_t now) {
    apr_time_t ttl = formsvc_cache_ttl(FORMSVC_CACHE_FORMS), at;
    apr_time_t exp = now + (ttl < OWNER_TTL ? ttl : OWNER_TTL);
    if (settings && strstr(settings, "\"closesAt\"")) {
        json_object *closes = fs_json_get(fs_json_parse_trusted(p, settings), "closesAt");
        if (closes && json_object_is_type(closes, json_type_string) &&
            fs_time_parse_rfc3339(json_object_get_string(closes), &at) && at < exp)
            exp = at;
    }
    return exp;
}

fs_error *formsvc_owner_form_view(request_rec *r, const char *id, const char *user_id,
                                  const char **json, int *version) {
    *json = NULL;
    fs_lru *c = formsvc_cache_lru(FORMSVC_CACHE_FORMS);
    const char *key = NULL;
    fs_lru_stamp stamp = {0, 0};
    if (c) {
        key = apr_pstrcat(r->pool, "o|", formsvc_base_url(r), "|", id, NULL);
        stamp = stamp_of(r->pool, id);
        void *v;
        apr_size_t len;
        if (formsvc_cache_get(c, key, stamp, r->pool, &v, &len)) {
            /* owner, version, json */
            const char *cur = v, *end = cur + len, *owner, *ver, *body;
            apr_size_t n;
            if (formsvc_blob_next(&cur, end, &owner, &n) && owner &&
                formsvc_blob_next(&cur, end, &ver, &n) && ver &&
                formsvc_blob_next(&cur, end, &body, &n) && body) {
                formsvc_metric_inc(FORMSVC_M_MEM_OWNER_HIT);
                /* another account's form is not this account's: as absent */
                if (strcmp(owner, user_id))
                    return NULL;
                *json = body;
                *version = atoi(ver);
                return NULL;
            }
        }
        formsvc_metric_inc(FORMSVC_M_MEM_OWNER_MISS);
    }
    fs_form_row *row;
    fs_error *e = fs_store_form_get(formsvc_store(r), formsvc_base_url(r), id, user_id, &row);
    if (e || !row)
        return e;
    *json = row->json;
    *version = row->version;
    apr_time_t now = apr_time_now(), exp = expiry(r->pool, row->settings, now);
    if (c && exp > now) {
        formsvc_blob b;
        formsvc_blob_init(&b, r->pool);
        formsvc_blob_add(&b, user_id, strlen(user_id));
        const char *ver = apr_itoa(r->pool, row->version);
        formsvc_blob_add(&b, ver, strlen(ver));
        formsvc_blob_add(&b, row->json, strlen(row->json));
        formsvc_cache_put(c, key, b.data, b.len, exp, stamp);
    }
    return NULL;
}

void formsvc_owner_count_changed(apr_pool_t *p, const char *form_id) {
    formsvc_cache_bump(apr_pstrcat(p, "c:", form_id, NULL));
}
