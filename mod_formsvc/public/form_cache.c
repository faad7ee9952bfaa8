/* form_cache: public forms from memory (see form_cache.h). */
#include "public/form_cache.h"
#include "fs_json.h"
#include "fs_util.h"
#include "http/i18n.h"
#include "http/links.h"
#include "http/request.h"
#include "http/response.h"
#include "public/public.h"
#include "runtime/cache.h"
#include "runtime/metrics.h"
#include "runtime/request_ctx.h"
#include "runtime/views.h"

#include <apr_strings.h>
#include <util_filter.h>

APLOG_USE_MODULE(formsvc);

#define COUNT_TTL apr_time_from_msec(500) /* forms with maxSubmissions */
#define MAX_BODY (1024 * 1024)            /* larger answers are not kept */

/* The key an entry of ref depends on; the triggers notify it for the
 * form's id and its slug (sql/0025). */
static const char *dep_of(apr_pool_t *p, const char *ref) {
    return apr_pstrcat(p, "r:", ref, NULL);
}

int formsvc_form_cache_serve(request_rec *r, const char *ref, fs_media m, formsvc_form_ticket *t) {
    memset(t, 0, sizeof(*t));
    if (m == FS_MEDIA_NONE || !ref || strlen(ref) > 100)
        return DECLINED;
    /* prefilled answers and links are the requester's own: never kept, never served */
    if (formsvc_link_personal(r, m == FS_MEDIA_JSON))
        return DECLINED;
    fs_lru *c = formsvc_cache_lru(FORMSVC_CACHE_FORMS);
    if (!c)
        return DECLINED;
    t->json = m == FS_MEDIA_JSON;
    t->ref = ref;
    /* a page is kept per language Accept-Language picks: a form with
     * settings.locale "auto" renders one per language */
    t->key = t->json ? apr_pstrcat(r->pool, "j|", formsvc_base_url(r), "|", ref, NULL)
                     : apr_pstrcat(r->pool, "h|", formsvc_locale_cache_key(r), "|",
                                   formsvc_base_url(r), "|", ref, NULL);
    t->stamp = formsvc_cache_stamp(dep_of(r->pool, ref));
    void *v;
    apr_size_t len;
    if (!formsvc_cache_get(c, t->key, t->stamp, r->pool, &v, &len)) {
        formsvc_metric_inc(FORMSVC_M_MEM_FORM_MISS);
        t->on = 1;
        t->out0 = apr_table_copy(r->pool, r->headers_out);
        t->err0 = apr_table_copy(r->pool, r->err_headers_out);
        return DECLINED;
    }
    /* content type, hidden-fields flag, form id, (table, name, value)...,
     * NULL, body */
    const char *cur = v, *end = cur + len, *ctype, *hidden, *id, *s, *name, *value, *body;
    apr_size_t n, blen;
    if (!formsvc_blob_next(&cur, end, &ctype, &n) || !ctype ||
        !formsvc_blob_next(&cur, end, &hidden, &n) || !hidden ||
        !formsvc_blob_next(&cur, end, &id, &n) || !id)
        return DECLINED;
    /* a page with hidden fields takes their values from the query */
    if (!t->json && *hidden == '1' && r->args && *r->args) {
        formsvc_metric_inc(FORMSVC_M_MEM_FORM_MISS);
        return DECLINED;
    }
    apr_table_t *out = apr_table_make(r->pool, 8), *err = apr_table_make(r->pool, 4);
    for (;;) {
        if (!formsvc_blob_next(&cur, end, &s, &n))
            return DECLINED;
        if (!s)
            break;
        if (!formsvc_blob_next(&cur, end, &name, &n) || !name ||
            !formsvc_blob_next(&cur, end, &value, &n) || !value)
            return DECLINED;
        apr_table_addn(*s == 'e' ? err : out, name, value);
    }
    if (!formsvc_blob_next(&cur, end, &body, &blen) || !body)
        return DECLINED;
    r->headers_out = apr_table_overlay(r->pool, r->headers_out, out);
    r->err_headers_out = apr_table_overlay(r->pool, r->err_headers_out, err);
    formsvc_metric_inc(FORMSVC_M_MEM_FORM_HIT);
    /* only published forms' pages are kept with a view to count */
    if (!t->json && *id && r->method_number == M_GET && !r->header_only)
        formsvc_views_count(r, id);
    r->status = HTTP_OK; /* ap_meets_conditions looks at it */
    int rc = ap_meets_conditions(r);
    if (rc != OK)
        return rc; /* 304 */
    /* a form page's submission token is new in every answer (its ETag
     * leaves it out); body is this request's copy */
    if (!t->json && *id)
        formsvc_form_token_renew(r, id, (char *)body, blen);
    return formsvc_send_body(r, HTTP_OK, ctype, body, blen);
}

/* ---- filling ---------------------------------------------------------- */

typedef struct capture {
    formsvc_form_ticket t;
    const char *id, *slug;
    int hidden, counted; /* hidden fields; maxSubmissions set */
    int published;       /* (else closed) */
    apr_time_t expires;
    char *buf;
    apr_size_t len, cap;
    int bad; /* too large, or a bucket could not be read */
} capture;

typedef struct header_diff {
    formsvc_blob *b;
    apr_table_t *before;
    const char *tag;
} header_diff;

/* Keeps the headers the handler set (not those set before it ran, such
 * as Vary or a request id, nor the length, which is set again). */
static int diff_one(void *data, const char *k, const char *v) {
    header_diff *d = data;
    if (!strcasecmp(k, "Content-Length"))
        return 1;
    const apr_array_header_t *a = apr_table_elts(d->before);
    const apr_table_entry_t *e = (const apr_table_entry_t *)a->elts;
    for (int i = 0; i < a->nelts; i++)
        if (e[i].key && !strcasecmp(e[i].key, k) && e[i].val && !strcmp(e[i].val, v))
            return 1;
    formsvc_blob_add(d->b, d->tag, 1);
    formsvc_blob_add(d->b, k, strlen(k));
    formsvc_blob_add(d->b, v, strlen(v));
    return 1;
}

static void store(request_rec *r, capture *cp) {
    fs_lru *c = formsvc_cache_lru(FORMSVC_CACHE_FORMS);
    if (!c || cp->bad || r->status != HTTP_OK || r->header_only || !r->content_type)
        return;
    formsvc_blob b;
    formsvc_blob_init(&b, r->pool);
    formsvc_blob_add(&b, r->content_type, strlen(r->content_type));
    formsvc_blob_add(&b, cp->hidden ? "1" : "0", 1);
    /* the id whose views a hit counts: published pages only */
    const char *vid = cp->published && !cp->t.json ? cp->id : "";
    formsvc_blob_add(&b, vid, strlen(vid));
    header_diff d = {&b, cp->t.out0, "o"};
    apr_table_do(diff_one, &d, r->headers_out, NULL);
    d.before = cp->t.err0;
    d.tag = "e";
    apr_table_do(diff_one, &d, r->err_headers_out, NULL);
    formsvc_blob_add(&b, NULL, 0);
    formsvc_blob_add(&b, cp->buf ? cp->buf : "", cp->len);
    formsvc_cache_put(c, cp->t.key, b.data, b.len, cp->expires, cp->t.stamp);
    if (cp->counted) {
        /* for the submission filter: which keys to bump when it fills */
        const char *ids = apr_pstrcat(r->pool, cp->id, "\n", cp->slug ? cp->slug : "", NULL);
        fs_lru_put(c, apr_pstrcat(r->pool, "m|", cp->t.ref, NULL), ids, strlen(ids), cp->expires,
                   cp->t.stamp, 0);
    }
}

static apr_status_t capture_filter(ap_filter_t *f, apr_bucket_brigade *bb) {
    capture *cp = f->ctx;
    for (apr_bucket *e = APR_BRIGADE_FIRST(bb); e != APR_BRIGADE_SENTINEL(bb);
         e = APR_BUCKET_NEXT(e)) {
        if (APR_BUCKET_IS_EOS(e)) {
            store(f->r, cp);
            ap_remove_output_filter(f);
            break;
        }
        if (APR_BUCKET_IS_METADATA(e) || cp->bad)
            continue;
        const char *data;
        apr_size_t n;
        if (apr_bucket_read(e, &data, &n, APR_BLOCK_READ) != APR_SUCCESS ||
            cp->len + n > MAX_BODY) {
            cp->bad = 1;
            continue;
        }
        if (cp->len + n > cp->cap) {
            apr_size_t cap = cp->cap ? cp->cap * 2 : 8192;
            while (cap < cp->len + n)
                cap *= 2;
            char *nb = apr_palloc(f->r->pool, cap);
            if (cp->len)
                memcpy(nb, cp->buf, cp->len);
            cp->buf = nb;
            cp->cap = cap;
        }
        memcpy(cp->buf + cp->len, data, n);
        cp->len += n;
    }
    return ap_pass_brigade(f->next, bb);
}

/* exp, or the moment the form (settings s) closes by itself when that
 * comes first: nothing is served past it. A closesAt this cannot read
 * keeps an entry as briefly as a counted form's. */
static apr_time_t before_close(json_object *s, apr_time_t now, apr_time_t exp) {
    json_object *closes = fs_json_get(s, "closesAt");
    apr_time_t at;
    if (!closes || json_object_is_type(closes, json_type_null))
        return exp;
    if (!json_object_is_type(closes, json_type_string) ||
        !fs_time_parse_rfc3339(json_object_get_string(closes), &at))
        at = now + COUNT_TTL;
    return at < exp ? at : exp;
}

void formsvc_form_cache_fill(request_rec *r, const formsvc_form_ticket *t, const char *id,
                             const char *slug, const char *status, const char *settings,
                             const char *fields) {
    if (!t->on || r->header_only || !id || !status)
        return;
    if (strcmp(status, "published") && strcmp(status, "closed"))
        return;                                                  /* only what respondents may see */
    int hidden = fields && strstr(fields, "\"hidden\"") != NULL; /* errs towards 1 */
    if (!t->json && hidden && r->args && *r->args)
        return; /* rendered with query values */
    capture *cp = apr_pcalloc(r->pool, sizeof(*cp));
    cp->t = *t;
    cp->id = id;
    cp->slug = slug && *slug ? slug : NULL;
    cp->hidden = hidden;
    cp->published = !strcmp(status, "published");
    apr_time_t now = apr_time_now();
    cp->expires = now + formsvc_cache_ttl(FORMSVC_CACHE_FORMS);
    json_object *s = settings ? fs_json_parse_trusted(r->pool, settings) : NULL;
    json_object *max = fs_json_get(s, "maxSubmissions");
    if (max && !json_object_is_type(max, json_type_null)) {
        cp->counted = 1;
        if (cp->expires > now + COUNT_TTL)
            cp->expires = now + COUNT_TTL;
    }
    cp->expires = before_close(s, now, cp->expires);
    json_object *opens = fs_json_get(s, "opensAt"); /* public page options */
    apr_time_t at;
    /* the "not open yet" page is not served past the moment it opens */
    if (opens && json_object_is_type(opens, json_type_string) &&
        fs_time_parse_rfc3339(json_object_get_string(opens), &at) && at > now && at < cp->expires)
        cp->expires = at;
    if (cp->expires <= now)
        return;
    ap_add_output_filter("FORMSVC_FORM_CAPTURE", cp, r, r->connection);
}

/* ---- rows for submissions ----------------------------------------------- */

static const char *row_key(request_rec *r, const char *ref) {
    return apr_pstrcat(r->pool, "s|", ref, NULL);
}

fs_lru_stamp formsvc_form_row_stamp(request_rec *r, const char *ref) {
    return formsvc_cache_stamp(dep_of(r->pool, ref));
}

int formsvc_form_row_get(request_rec *r, const char *ref, fs_lru_stamp stamp,
                         formsvc_pubform *out) {
    fs_lru *c = formsvc_cache_lru(FORMSVC_CACHE_FORMS);
    if (!c || !ref || strlen(ref) > 100)
        return 0;
    void *v;
    apr_size_t len, n;
    if (!formsvc_cache_get(c, row_key(r, ref), stamp, r->pool, &v, &len)) {
        formsvc_metric_inc(FORMSVC_M_MEM_ROW_MISS);
        return 0;
    }
    const char *cur = v, *end = cur + len;
    const char **m[] = {&out->id,     &out->slug,    &out->title,  &out->description,
                        &out->status, &out->version, &out->fields, &out->settings};
    for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
        if (!formsvc_blob_next(&cur, end, m[i], &n))
            return 0;
    if (!out->id || !out->status || !out->version || !out->fields || !out->settings)
        return 0;
    formsvc_metric_inc(FORMSVC_M_MEM_ROW_HIT);
    return 1;
}

void formsvc_form_row_put(request_rec *r, const char *ref, fs_lru_stamp stamp,
                          const formsvc_pubform *f) {
    fs_lru *c = formsvc_cache_lru(FORMSVC_CACHE_FORMS);
    /* a closed form is read afresh: it may have been opened again */
    if (!c || !ref || strlen(ref) > 100 || !f->status || strcmp(f->status, "published"))
        return;
    apr_time_t now = apr_time_now();
    apr_time_t exp = before_close(fs_json_parse_trusted(r->pool, f->settings), now,
                                  now + formsvc_cache_ttl(FORMSVC_CACHE_FORMS));
    if (exp <= now)
        return;
    formsvc_blob b;
    formsvc_blob_init(&b, r->pool);
    const char *m[] = {f->id,     f->slug,    f->title,  f->description,
                       f->status, f->version, f->fields, f->settings};
    for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
        formsvc_blob_add(&b, m[i], m[i] ? strlen(m[i]) : 0);
    formsvc_cache_put(c, row_key(r, ref), b.data, b.len, exp, stamp);
}

/* ---- submissions ------------------------------------------------------ */

/* A submission to a form with maxSubmissions that this child has cached
 * (an "m|" record) may have filled it: its entries go at once, on every
 * child of this machine, rather than up to 0.5 s later. */
static apr_status_t posted_filter(ap_filter_t *f, apr_bucket_brigade *bb) {
    request_rec *r = f->r;
    const char *ref = f->ctx;
    fs_lru *c = formsvc_cache_lru(FORMSVC_CACHE_FORMS);
    void *v;
    apr_size_t n;
    if (c &&
        (r->status == HTTP_CREATED || r->status == HTTP_SEE_OTHER || r->status == HTTP_CONFLICT)) {
        const char *dep = dep_of(r->pool, ref);
        if (fs_lru_get(c, apr_pstrcat(r->pool, "m|", ref, NULL), apr_time_now(),
                       formsvc_cache_stamp(dep), r->pool, &v, &n, NULL)) {
            char *slug = strchr(v, '\n');
            if (slug)
                *slug++ = '\0';
            formsvc_cache_bump(dep);
            formsvc_cache_bump(dep_of(r->pool, v));
            if (slug && *slug)
                formsvc_cache_bump(dep_of(r->pool, slug));
        }
    }
    ap_remove_output_filter(f);
    return ap_pass_brigade(f->next, bb);
}

void formsvc_form_cache_insert_filter(request_rec *r) {
    if (r->main || r->method_number != M_POST)
        return;
    formsvc_req *q = formsvc_req_get(r);
    if (!q->ours || !q->path || strncmp(q->path, "/f/", 3) || !q->path[3] ||
        strchr(q->path + 3, '/') || !formsvc_cache_lru(FORMSVC_CACHE_FORMS))
        return;
    ap_add_output_filter("FORMSVC_FORM_POSTED", (void *)(q->path + 3), r, r->connection);
}

void formsvc_form_cache_filters(void) {
    /* before any content filter (mod_deflate): the handler's own bytes */
    ap_register_output_filter("FORMSVC_FORM_CAPTURE", capture_filter, NULL, AP_FTYPE_RESOURCE);
    ap_register_output_filter("FORMSVC_FORM_POSTED", posted_filter, NULL, AP_FTYPE_RESOURCE);
}
