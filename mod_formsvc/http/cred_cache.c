/* cred_cache: verified credentials from memory (see cred_cache.h). */
#include "http/cred_cache.h"
#include "http/auth.h"
#include "runtime/cache.h"
#include "runtime/metrics.h"

#include <apr_strings.h>

#define TOUCH_EVERY apr_time_from_sec(60) /* lastUsedAt: once a minute per key */

int formsvc_cred_cache_get(request_rec *r, const char *hash, formsvc_principal **who,
                           formsvc_cred_ticket *t) {
    memset(t, 0, sizeof(*t));
    fs_lru *c = formsvc_cache_lru(FORMSVC_CACHE_CREDENTIALS);
    if (!c || !hash)
        return 0;
    t->key = apr_pstrcat(r->pool, "k:", hash, NULL);
    t->stamp = formsvc_cache_stamp(t->key); /* the entry's key is its dependency */
    void *v;
    apr_size_t len;
    apr_time_t now = apr_time_now(), mark;
    if (!fs_lru_get(c, t->key, now, t->stamp, r->pool, &v, &len, &mark)) {
        formsvc_metric_inc(FORMSVC_M_MEM_CRED_MISS);
        t->on = 1;
        return 0;
    }
    /* user, key, actor, client, parent, depth, verified, expires, full,
     * bits, named, form ids... */
    const char *cur = v, *end = cur + len, *f[11];
    apr_size_t n;
    for (int i = 0; i < 11; i++)
        if (!formsvc_blob_next(&cur, end, &f[i], &n) || (i != 2 && i != 3 && i != 4 && !f[i]))
            return 0;
    formsvc_principal *p = apr_pcalloc(r->pool, sizeof(*p));
    p->user_id = f[0];
    p->key_id = f[1];
    p->actor = f[2];
    p->client_id = f[3];
    p->parent_key_id = f[4];
    p->depth = atoi(f[5]);
    p->verified = *f[6] == '1';
    p->expires = apr_atoi64(f[7]);
    fs_scopes *sc = apr_pcalloc(r->pool, sizeof(*sc));
    sc->full = *f[8] == '1';
    sc->bits = (unsigned)strtoul(f[9], NULL, 10);
    sc->named = (unsigned)strtoul(f[10], NULL, 10);
    sc->forms = apr_array_make(r->pool, 2, sizeof(const char *));
    const char *id;
    while (cur < end && formsvc_blob_next(&cur, end, &id, &n) && id)
        APR_ARRAY_PUSH(sc->forms, const char *) = id;
    p->scopes = sc;
    formsvc_metric_inc(FORMSVC_M_MEM_CRED_HIT);
    if (now - mark >= TOUCH_EVERY && fs_lru_remark(c, t->key, mark, now))
        formsvc_cache_touch_later(p->key_id);
    *who = p;
    return 1;
}

static void add(formsvc_blob *b, const char *s) {
    formsvc_blob_add(b, s, s ? strlen(s) : 0);
}

void formsvc_cred_cache_put(request_rec *r, const formsvc_cred_ticket *t,
                            const formsvc_principal *p) {
    fs_lru *c = formsvc_cache_lru(FORMSVC_CACHE_CREDENTIALS);
    if (!c || !t->on || !p || !p->scopes || !p->user_id || !p->key_id)
        return;
    apr_time_t now = apr_time_now();
    apr_time_t expires = now + formsvc_cache_ttl(FORMSVC_CACHE_CREDENTIALS);
    /* expires_at reaches us rounded to a whole second (either way) */
    if (p->expires > 0 && apr_time_from_sec(p->expires - 1) < expires)
        expires = apr_time_from_sec(p->expires - 1);
    if (expires <= now)
        return;
    formsvc_blob b;
    formsvc_blob_init(&b, r->pool);
    add(&b, p->user_id);
    add(&b, p->key_id);
    add(&b, p->actor);
    add(&b, p->client_id);
    add(&b, p->parent_key_id);
    add(&b, apr_itoa(r->pool, p->depth));
    add(&b, p->verified ? "1" : "0");
    add(&b, apr_psprintf(r->pool, "%" APR_INT64_T_FMT, p->expires));
    add(&b, p->scopes->full ? "1" : "0");
    add(&b, apr_psprintf(r->pool, "%u", p->scopes->bits));
    add(&b, apr_psprintf(r->pool, "%u", p->scopes->named));
    for (int i = 0; p->scopes->forms && i < p->scopes->forms->nelts; i++)
        add(&b, APR_ARRAY_IDX(p->scopes->forms, i, const char *));
    /* mark: the last lastUsedAt refresh this child caused or saw needed
     * none; the miss that fills has just done the database's check */
    fs_lru_put(c, t->key, b.data, b.len, expires, t->stamp, now);
}
