/* handle_export: GET /v1/me/export, every piece of the account's data as
 * JSON Lines (docs/privacy.md), and GET /v1/me/export/link, where to get it
 * (the MCP tool export_account). */
#include "fs_json.h"
#include "fs_store_account.h"
#include "fs_store_forms.h"
#include "http/auth.h"
#include "http/request.h"
#include "http/response.h"
#include "http/router.h"
#include "runtime/log.h"

#include <apr_strings.h>
#include <string.h>

APLOG_USE_MODULE(formsvc);

/* The export is read in pages, each its own keyset statement on a
 * connection taken for it and given back before the page is written
 * (formsvc_send_more), as the CSV export of submissions is: it holds one
 * page in memory, whatever the account's size. Forms come EXPORT_FORMS at
 * a time, each with its fields, then its submissions and their files in
 * batches sized as the CSV export's are (from EXPORT_SUBS_FIRST, doubled
 * up to EXPORT_SUBS while a batch stays under half of EXPORT_BYTES, halved
 * when it passes it); the other kinds EXPORT_PAGE at a time. */
#define EXPORT_FORMS 20
#define EXPORT_SUBS_FIRST 50
#define EXPORT_SUBS 500
#define EXPORT_BYTES (256 * 1024)
#define EXPORT_PAGE 200

typedef struct export_ctx {
    request_rec *r;
    const char *user_id, *base;
    int started;
} export_ctx;

static void start(export_ctx *x) {
    request_rec *r = x->r;
    apr_table_setn(
        r->headers_out, "Content-Disposition",
        apr_psprintf(r->pool, "attachment; filename=\"formsvc-export-%s.jsonl\"", x->user_id));
    apr_table_setn(r->headers_out, "Cache-Control", "no-store");
    apr_table_setn(r->headers_out, "X-Content-Type-Options", "nosniff");
    formsvc_send_start(r, 200, "application/x-ndjson");
    x->started = 1;
}

/* n more bytes at the end of a (an array of bytes), growing it by doubling */
static void *push_n(apr_array_header_t *a, apr_size_t n) {
    if ((apr_size_t)(a->nalloc - a->nelts) < n) {
        apr_size_t cap = a->nalloc ? (apr_size_t)a->nalloc : 64;
        while (cap - (apr_size_t)a->nelts < n)
            cap *= 2;
        char *grown = apr_palloc(a->pool, cap);
        memcpy(grown, a->elts, (apr_size_t)a->nelts);
        a->elts = grown;
        a->nalloc = (int)cap;
    }
    void *at = a->elts + a->nelts;
    a->nelts += (int)n;
    return at;
}

/* s as it is at the end of buf */
static void put_lit(apr_array_header_t *buf, const char *s) {
    apr_size_t n = strlen(s);
    memcpy(push_n(buf, n), s, n);
}

static void line(apr_array_header_t *buf, const char *s) {
    apr_size_t n = strlen(s);
    char *at = push_n(buf, n + 1);
    memcpy(at, s, n);
    at[n] = '\n';
}

/* An object line: o with "kind" first. */
static void obj_line(apr_array_header_t *buf, apr_pool_t *p, const char *kind, json_object *o) {
    json_object *l = fs_json_own(p, json_object_new_object());
    json_object_object_add(l, "kind", json_object_new_string(kind));
    json_object_object_foreach(o, k, v) json_object_object_add(l, k, json_object_get(v));
    line(buf, fs_json_str(p, l));
}

/* A file line: the stored file's metadata m of submission sid's answer to
 * key, with where it is downloaded. */
static void file_line(export_ctx *x, apr_array_header_t *buf, apr_pool_t *sub, const char *fid,
                      const char *sid, const char *key, json_object *m) {
    const char *id = json_object_get_string(fs_json_get(m, "id"));
    if (!json_object_is_type(m, json_type_object) || !id)
        return;
    json_object *f = fs_json_own(sub, json_object_new_object());
    json_object_object_add(f, "submissionId", json_object_new_string(sid));
    json_object_object_add(f, "formId", json_object_new_string(fid));
    json_object_object_add(f, "fieldKey", json_object_new_string(key));
    json_object_object_foreach(m, mk, mv) json_object_object_add(f, mk, json_object_get(mv));
    json_object_object_add(
        f, "url",
        json_object_new_string(apr_pstrcat(sub, x->base, "/v1/forms/", fid, "/submissions/", sid,
                                           "/files/", id, NULL)));
    obj_line(buf, sub, "file", f);
}

/* The submissions of one form, newest first, each followed by its files. */
static fs_error *form_subs(export_ctx *x, json_object *form) {
    request_rec *r = x->r;
    const char *fid = json_object_get_string(fs_json_get(form, "id"));
    json_object *fields = fs_json_get(form, "fields");
    size_t nf = fields ? json_object_array_length(fields) : 0;
    const char **files = apr_pcalloc(r->pool, sizeof(char *) * (nf + 1));
    const char **signs = apr_pcalloc(r->pool, sizeof(char *) * (nf + 1));
    int nfiles = 0, nsigns = 0;
    for (size_t i = 0; i < nf; i++) {
        json_object *f = json_object_array_get_idx(fields, i);
        const char *t = json_object_get_string(fs_json_get(f, "type"));
        if (t && !strcmp(t, "file"))
            files[nfiles++] = json_object_get_string(fs_json_get(f, "key"));
        else if (t && !strcmp(t, "signature")) /* a drawn image is a stored file */
            signs[nsigns++] = json_object_get_string(fs_json_get(f, "key"));
    }
    fs_sub_filter which = {.form_id = fid, .user_id = x->user_id, .spam = 1};
    const char *after = NULL;
    int limit = EXPORT_SUBS_FIRST;
    for (;;) {
        apr_pool_t *sub;
        apr_pool_create(&sub, r->pool);
        fs_sub_batch rs;
        fs_error *e =
            fs_store_sub_export(fs_store_sub(formsvc_store(r), sub), &which, after, limit, &rs);
        if (e) {
            apr_pool_destroy(sub);
            return e;
        }
        apr_array_header_t *buf = apr_array_make(sub, 16384, 1);
        for (int i = 0; i < rs.n; i++) {
            const fs_sub_export_row *s = &rs.rows[i];
            /* the answers go out as stored (jsonb's text), spliced in; they
             * are parsed only for the files of a form that has file fields */
            json_object *data = nfiles || nsigns ? fs_json_parse_trusted(sub, s->data) : NULL;
            /* the line written straight into buf, member by member, as
             * json-c would write the object (fs_json_put_string escapes
             * as it does): no json-c object per submission */
            put_lit(buf, "{\"kind\":\"submission\",\"id\":");
            fs_json_put_string(buf, s->id);
            put_lit(buf, ",\"formId\":");
            fs_json_put_string(buf, fid);
            put_lit(buf, apr_psprintf(sub, ",\"formVersion\":%d,\"spam\":%s,\"createdAt\":",
                                      atoi(s->form_version), s->spam ? "true" : "false"));
            fs_json_put_string(buf, s->created_at);
            /* the owner's state: status, tags, note */
            put_lit(buf, ",\"status\":");
            fs_json_put_string(buf, s->status ? s->status : "new");
            put_lit(buf, ",\"tags\":[");
            char *tl = apr_pstrdup(sub, s->tags ? s->tags : ""), *tlast = NULL;
            int nt = 0;
            for (char *t = apr_strtok(tl, " ", &tlast); t; t = apr_strtok(NULL, " ", &tlast)) {
                if (nt++)
                    put_lit(buf, ",");
                fs_json_put_string(buf, t);
            }
            put_lit(buf, "],\"note\":");
            if (s->note)
                fs_json_put_string(buf, s->note);
            else
                put_lit(buf, "null");
            if (s->link_id && *s->link_id) {
                put_lit(buf, ",\"linkId\":");
                fs_json_put_string(buf, s->link_id);
                json_object *m = s->link_metadata && *s->link_metadata
                                     ? fs_json_parse_trusted(sub, s->link_metadata)
                                     : NULL;
                put_lit(buf, ",\"metadata\":");
                put_lit(buf, m ? fs_json_str(sub, m) : "null");
            }
            /* what the form made of the answers: the ending reached, what
             * it calculated (scores), the spam score */
            if (s->ending && *s->ending) {
                put_lit(buf, ",\"ending\":");
                fs_json_put_string(buf, s->ending);
            }
            if (s->calculated && *s->calculated) {
                put_lit(buf, ",\"calculated\":");
                put_lit(buf, s->calculated);
            }
            if (s->spam_score && *s->spam_score)
                put_lit(buf, apr_psprintf(sub, ",\"spamScore\":%d", atoi(s->spam_score)));
            apr_size_t dn = strlen(s->data);
            char *at = push_n(buf, 8 + dn + 2);
            memcpy(at, ",\"data\":", 8);
            memcpy(at + 8, s->data, dn);
            memcpy(at + 8 + dn, "}\n", 2);
            for (int k = 0; k < nfiles && data; k++) {
                json_object *v = fs_json_get(data, files[k]);
                if (!v || !json_object_is_type(v, json_type_array))
                    continue;
                for (size_t j = 0; j < json_object_array_length(v); j++)
                    file_line(x, buf, sub, fid, s->id, files[k], json_object_array_get_idx(v, j));
            }
            for (int k = 0; k < nsigns && data; k++) {
                json_object *img = fs_json_get(fs_json_get(data, signs[k]), "image");
                if (img)
                    file_line(x, buf, sub, fid, s->id, signs[k], img);
            }
        }
        int more = rs.n == limit;
        if (buf->nelts > EXPORT_BYTES && limit > 1)
            limit /= 2;
        else if (buf->nelts < EXPORT_BYTES / 2 && limit < EXPORT_SUBS)
            limit = limit * 2 > EXPORT_SUBS ? EXPORT_SUBS : limit * 2;
        formsvc_send_more(r, buf->elts, (apr_size_t)buf->nelts, 1);
        if (more)
            after = apr_pstrdup(r->pool, rs.rows[rs.n - 1].id);
        apr_pool_destroy(sub);
        if (!more || r->connection->aborted)
            return NULL;
    }
}

/* One kind, page by page; forms with their fields and submissions. */
static fs_error *export_kind(export_ctx *x, fs_export_kind kind) {
    request_rec *r = x->r;
    const char *after = NULL;
    int limit = kind == FS_EXPORT_FORMS ? EXPORT_FORMS : EXPORT_PAGE;
    for (;;) {
        apr_pool_t *sub;
        apr_pool_create(&sub, r->pool);
        fs_list_page page;
        fs_error *e = fs_store_export_page(fs_store_sub(formsvc_store(r), sub), kind, x->user_id,
                                           x->base, after, limit, &page);
        if (e) {
            apr_pool_destroy(sub);
            return e;
        }
        if (!x->started) {
            start(x);
            if (r->header_only) {
                apr_pool_destroy(sub);
                return NULL;
            }
        }
        for (int i = 0; i < page.n && !e; i++) {
            apr_array_header_t *buf = apr_array_make(sub, 4096, 1);
            line(buf, page.items[i].json);
            if (kind == FS_EXPORT_FORMS) {
                json_object *form = fs_json_parse_trusted(sub, page.items[i].json);
                json_object *fields = form ? fs_json_get(form, "fields") : NULL;
                size_t nf = fields ? json_object_array_length(fields) : 0;
                for (size_t j = 0; j < nf; j++) {
                    json_object *f = fs_json_own(sub, json_object_new_object());
                    json_object_object_add(f, "formId", json_object_new_string(page.items[i].id));
                    json_object_object_add(f, "position", json_object_new_int((int)j));
                    json_object_object_foreach(json_object_array_get_idx(fields, j), fk, fv)
                        json_object_object_add(f, fk, json_object_get(fv));
                    obj_line(buf, sub, "field", f);
                }
                formsvc_send_more(r, buf->elts, (apr_size_t)buf->nelts, 0);
                if (form)
                    e = form_subs(x, form);
            } else
                formsvc_send_more(r, buf->elts, (apr_size_t)buf->nelts, 0);
        }
        int more = page.more;
        if (more)
            after = apr_pstrdup(r->pool, page.items[page.n - 1].id);
        apr_pool_destroy(sub);
        if (e || !more || r->connection->aborted)
            return e;
    }
}

static fs_error *only_owner(request_rec *r) {
    if (formsvc_principal_is_owner(formsvc_req_get(r)->who))
        return NULL;
    return fs_error_make(r->pool, "forbidden",
                         "Only an owner key (no parent, no client, full access) can export the "
                         "account.");
}

static int formsvc_h_me_export(request_rec *r, const char *const *caps) {
    (void)caps;
    fs_error *e = only_owner(r);
    if (e)
        return formsvc_send_problem(r, e);
    export_ctx x = {r, formsvc_req_get(r)->who->user_id, formsvc_base_url(r), 0};
    static const fs_export_kind kinds[] = {FS_EXPORT_ACCOUNT,  FS_EXPORT_FORMS,  FS_EXPORT_LINKS,
                                           FS_EXPORT_WEBHOOKS, FS_EXPORT_KEYS,   FS_EXPORT_CLIENTS,
                                           FS_EXPORT_AUDIT,    FS_EXPORT_GRANTS, FS_EXPORT_VERSIONS,
                                           FS_EXPORT_PARTIALS, FS_EXPORT_ASKS};
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]) && !e; i++) {
        e = export_kind(&x, kinds[i]);
        if (r->header_only || r->connection->aborted)
            return OK;
    }
    if (!e) {
        formsvc_send_more(r, "", 0, 1);
        return OK;
    }
    if (!x.started)
        return formsvc_send_problem(r, e);
    /* the status line is gone: cut the answer short so the client sees an
     * incomplete transfer rather than a short export */
    FORMSVC_LOG(r, APLOG_ERR, 00440, "account export of %s cut short: %s", x.user_id,
                e->cause ? e->cause : e->slug);
    formsvc_send_cut(r);
    return OK;
}

/* Where the export is: the route's URL, which takes the same bearer
 * credential (an owner key); nothing is signed into the URL, so it is no
 * secret and cannot leak the data by itself (docs/mcp.md). */
static int formsvc_h_me_export_link(request_rec *r, const char *const *caps) {
    (void)caps;
    fs_error *e = only_owner(r);
    if (e)
        return formsvc_send_problem(r, e);
    json_object *out = fs_json_own(r->pool, json_object_new_object());
    json_object_object_add(
        out, "url",
        json_object_new_string(apr_pstrcat(r->pool, formsvc_base_url(r), "/v1/me/export", NULL)));
    json_object_object_add(out, "method", json_object_new_string("GET"));
    json_object_object_add(out, "mediaType", json_object_new_string("application/x-ndjson"));
    json_object_object_add(
        out, "authentication",
        json_object_new_string("Authorization: Bearer <an owner key of this account>"));
    return formsvc_send_obj(r, 200, out);
}

const formsvc_route formsvc_routes_export[] = {
    {M_GET, "/v1/me/export", formsvc_h_me_export, FS_SC_ACCOUNT_READ, 1},
    {M_GET, "/v1/me/export/link", formsvc_h_me_export_link, FS_SC_ACCOUNT_READ, 1},
    {0, NULL, NULL, 0, 0}};
