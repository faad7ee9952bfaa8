/* files: uploads into a submission's transaction and the owner's download
 * (files.h).
 *
 * Memory: an upload holds one chunk buffer (FILE_CHUNK bytes, the first
 * bytes of its spool), a second one to read a spool file back when the
 * files are larger, and a few hundred bytes per file. The files are
 * checked and spooled as they arrive, with no database connection held;
 * once the body is read, they go to PostgreSQL a chunk at a time, as
 * binary parameters, inside the transaction that then holds the
 * submission. A download reads one chunk at a time into a sub-pool
 * cleared after it is written and flushed. */
#include "http/files.h"
#include "fs_file.h"
#include "fs_form.h"
#include "fs_html.h"
#include "fs_json.h"
#include "fs_multipart.h"
#include "fs_scope.h"
#include "fs_secret.h"
#include "fs_store_files.h"
#include "http/capture.h"
#include "http/forms_access.h"
#include "http/request.h"
#include "http/response.h"
#include "http/router.h"
#include "runtime/config.h"
#include "runtime/log.h"
#include "runtime/request_ctx.h"

#include <apr_atomic.h>
#include <apr_base64.h>
#include <apr_lib.h>
#include <apr_strings.h>

APLOG_USE_MODULE(formsvc);

#define FILE_CHUNK (256 * 1024)

/* ---- settings (FormsvcFileMaxSize and the like: runtime/config_global.h) */

apr_off_t formsvc_file_json_max(void) {
    return formsvc_global_conf()->file_json_max;
}

void formsvc_files_ceilings(fs_fieldset *fs) {
    const formsvc_global *g = formsvc_global_conf();
    fs_fieldset_file_ceilings(fs, g->file_max_size, g->file_max_files);
}

long long formsvc_file_quota(int verified) {
    return (long long)formsvc_global_conf()->file_quota_mb[verified ? 1 : 0] * 1024 * 1024;
}

/* The spool: uploaded files wait in FormsvcUploadTempDir (the system's
 * temporary directory when it is not set), at most FormsvcUploadTempMax
 * megabytes per child; spool_bytes, what this child's requests hold now. */
static volatile apr_uint64_t spool_bytes;

static const char *spool_dir(void) {
    const char *dir = formsvc_global_conf()->upload_tmp_dir;
    return dir ? dir : "/tmp";
}

/* ---- upload ----------------------------------------------------------- */

/* A checked file in the spool (files.h): its content is size bytes from
 * off. The spool holds an upload's files one after another: the first
 * FILE_CHUNK bytes in memory, the rest in a file of spool_dir() that is
 * unlinked as soon as it is made (only its descriptor names it; r->pool's
 * cleanup closes it, and a child that dies leaves nothing behind). */
typedef struct spooled {
    const char *fid, *key, *name, *type, *sha256;
    const char *ptr, *label; /* as a problem names it */
    long long size;
    apr_off_t off;
} spooled;

struct formsvc_upload {
    request_rec *r;
    const fs_fieldset *fs;
    const char *form_id, *sub_id;
    fs_tx *tx;            /* from formsvc_upload_save to the commit or the rollback */
    json_object *meta;    /* key -> [metadata], owned by r->pool */
    json_object *stubs;   /* key -> [{name, type, data: ""}] */
    char *mem;            /* the spool's first FILE_CHUNK bytes, made at the first file */
    char *rbuf;           /* FILE_CHUNK bytes to read the spool's file back, when there is one */
    apr_file_t *file;     /* the spool beyond FILE_CHUNK bytes, NULL until needed */
    apr_uint64_t on_disk; /* its bytes, counted in spool_bytes until r->pool goes */
    apr_off_t spooled;    /* bytes in the spool */
    apr_array_header_t *files; /* spooled, in the order they came */
    long long total;           /* bytes of the files checked */
    /* the file in progress */
    const fs_field *f;
    const char *fid, *name, *type, *ptr;
    long long size;
    apr_off_t start; /* where it begins in the spool */
    fs_sha256 *sha;
    fs_file_check chk;
};

formsvc_upload *formsvc_upload_new(request_rec *r, const fs_fieldset *fs, const char *form_id,
                                   const char *sub_id) {
    formsvc_upload *u = apr_pcalloc(r->pool, sizeof(*u));
    u->r = r;
    u->fs = fs;
    u->form_id = form_id;
    u->sub_id = sub_id;
    u->meta = fs_json_own(r->pool, json_object_new_object());
    u->stubs = fs_json_own(r->pool, json_object_new_object());
    u->files = apr_array_make(r->pool, 2, sizeof(spooled));
    return u;
}

static fs_error *invalid(formsvc_upload *u, const char *ptr, const char *code, const char *detail) {
    fs_error *e = fs_error_validation(u->r->pool);
    fs_error_add(u->r->pool, e, ptr, code, "%s", detail);
    return e;
}

/* The same with the page's message (share/locales error.<msg>, {label} and
 * {n}): the API keeps the detail, naming the file; a page says it in the
 * form's language. */
static fs_error *invalid_msg(formsvc_upload *u, const char *ptr, const char *code, const char *msg,
                             const char *label, const char *n, const char *detail) {
    fs_error *e = fs_error_validation(u->r->pool);
    fs_error_add_msg(u->r->pool, e, ptr, code, msg, label, n, detail);
    return e;
}

/* The question and the file, as a page names them: "CV (me.png)". */
static const char *named(apr_pool_t *p, const fs_field *f, const char *file) {
    return apr_psprintf(p, "%s (%s)", fs_field_label(f), file && *file ? file : "?");
}

static json_object *list_of(json_object *o, const char *key) {
    json_object *a = fs_json_get(o, key);
    if (!a) {
        a = json_object_new_array();
        json_object_object_add(o, key, a);
    }
    return a;
}

static apr_status_t spool_uncount(void *d) {
    formsvc_upload *u = d;
    apr_atomic_sub64(&spool_bytes, u->on_disk);
    u->on_disk = 0;
    return APR_SUCCESS;
}

/* The spool cannot be written: said in the log (with the directory), a
 * 503 to the client, who may send it again. */
static fs_error *spool_failed(formsvc_upload *u, const char *what, apr_status_t rv) {
    FORMSVC_LOG(u->r, APLOG_ERR, 03775, "upload spool: cannot %s in %s (FormsvcUploadTempDir): %pm",
                what, spool_dir(), &rv);
    return fs_error_make(u->r->pool, "service-unavailable",
                         "The server cannot take this upload now; send it again later.");
}

static fs_error *spool_write(formsvc_upload *u, const char *buf, apr_size_t len) {
    if (u->spooled < FILE_CHUNK) {
        apr_size_t take = FILE_CHUNK - (apr_size_t)u->spooled;
        if (take > len)
            take = len;
        memcpy(u->mem + u->spooled, buf, take);
        u->spooled += (apr_off_t)take;
        buf += take;
        len -= take;
    }
    if (!len)
        return NULL;
    /* the child's spool files together stay within FormsvcUploadTempMax */
    int max_mb = formsvc_global_conf()->upload_tmp_max_mb;
    apr_uint64_t max = (apr_uint64_t)max_mb * 1024 * 1024;
    if (apr_atomic_add64(&spool_bytes, len) + len > max) {
        apr_atomic_sub64(&spool_bytes, len);
        FORMSVC_LOG(u->r, APLOG_WARNING, 03776,
                    "upload spool: this child's uploads in flight fill FormsvcUploadTempMax "
                    "(%d MB); one refused",
                    max_mb);
        fs_error *e = fs_error_make(u->r->pool, "service-unavailable",
                                    "The server cannot take this upload now; send it again later.");
        e->retry_after = 30;
        return e;
    }
    if (!u->on_disk)
        apr_pool_cleanup_register(u->r->pool, u, spool_uncount, apr_pool_cleanup_null);
    u->on_disk += len;
    apr_status_t rv;
    if (!u->file) {
        char *path = apr_pstrcat(u->r->pool, spool_dir(), "/formsvc-upload-XXXXXX", NULL);
        rv = apr_file_mktemp(&u->file, path,
                             APR_FOPEN_CREATE | APR_FOPEN_READ | APR_FOPEN_WRITE | APR_FOPEN_EXCL,
                             u->r->pool);
        if (rv != APR_SUCCESS) {
            u->file = NULL;
            return spool_failed(u, "make a file", rv);
        }
        apr_file_remove(path, u->r->pool); /* the descriptor is all that names it */
    }
    apr_size_t w;
    if ((rv = apr_file_write_full(u->file, buf, len, &w)) != APR_SUCCESS)
        return spool_failed(u, "write", rv);
    u->spooled += (apr_off_t)len;
    return NULL;
}

/* len (at most FILE_CHUNK) bytes of the spool from off: *out points into
 * the memory part or into rbuf. */
static fs_error *spool_read(formsvc_upload *u, apr_off_t off, apr_size_t len, const char **out) {
    if (off + (apr_off_t)len <= FILE_CHUNK) {
        *out = u->mem + off;
        return NULL;
    }
    if (!u->rbuf)
        u->rbuf = apr_palloc(u->r->pool, FILE_CHUNK);
    apr_size_t n = 0;
    if (off < FILE_CHUNK) {
        n = (apr_size_t)(FILE_CHUNK - off);
        memcpy(u->rbuf, u->mem + off, n);
    }
    apr_off_t at = off + (apr_off_t)n - FILE_CHUNK;
    apr_status_t rv = apr_file_seek(u->file, APR_SET, &at);
    if (rv == APR_SUCCESS)
        rv = apr_file_read_full(u->file, u->rbuf + n, len - n, NULL);
    if (rv != APR_SUCCESS)
        return spool_failed(u, "read back", rv);
    *out = u->rbuf;
    return NULL;
}

/* The signature field of a multipart part named "key.image" (its drawn
 * image), or NULL. */
static const fs_field *signature_of(apr_pool_t *p, const fs_fieldset *fs, const char *name) {
    const char *dot = name ? strrchr(name, '.') : NULL;
    const fs_field *f = dot && !strcmp(dot, ".image")
                            ? fs_fieldset_find(fs, apr_pstrndup(p, name, (apr_size_t)(dot - name)))
                            : NULL;
    return f && f->type == FS_FT_SIGNATURE ? f : NULL;
}

/* A signature's image (one file, v its list) set as the image of the
 * answer's object in obj; 0 when k is no signature's. */
static int set_image(formsvc_upload *u, json_object *obj, const char *k, json_object *v) {
    const fs_field *f = fs_fieldset_find(u->fs, k);
    if (!f || f->type != FS_FT_SIGNATURE)
        return 0;
    json_object *ans = fs_json_get(obj, k);
    if (!ans || !json_object_is_type(ans, json_type_object)) {
        ans = json_object_new_object();
        json_object_object_add(obj, k, ans);
    }
    json_object_object_add(ans, "image", json_object_get(json_object_array_get_idx(v, 0)));
    return 1;
}

fs_error *formsvc_upload_begin(formsvc_upload *u, const char *key, const char *name,
                               const char *ctype) {
    request_rec *r = u->r;
    const fs_field *f = key ? fs_fieldset_find(u->fs, key) : NULL;
    if (!f)
        f = signature_of(r->pool, u->fs, key);
    const char *ptr = apr_pstrcat(r->pool, "/", f ? f->key : key ? key : "", NULL);
    if (!f || (f->type != FS_FT_FILE && f->type != FS_FT_SIGNATURE))
        return invalid(
            u, ptr, "unknown",
            apr_psprintf(r->pool, "This form has no file question %s.", key ? key : "(unnamed)"));
    int index = (int)json_object_array_length(list_of(u->stubs, f->key));
    if (index >= f->max_files)
        return f->max_files == 1
                   ? invalid_msg(
                         u, ptr, "maxItems", "file.count.one", fs_field_label(f), "1",
                         apr_psprintf(r->pool, "%s takes one file at most.", fs_field_label(f)))
                   : invalid_msg(u, ptr, "maxItems", "file.count", fs_field_label(f),
                                 apr_ltoa(r->pool, f->max_files),
                                 apr_psprintf(r->pool, "%s takes at most %ld files.",
                                              fs_field_label(f), f->max_files));
    u->f = f;
    u->ptr = f->type == FS_FT_SIGNATURE ? apr_pstrcat(r->pool, ptr, "/image", NULL)
                                        : apr_psprintf(r->pool, "%s/%d", ptr, index);
    u->name = fs_file_safe_name(r->pool, name, strlen(name));
    u->type = fs_file_media_type(r->pool, ctype);
    if (!fs_file_accepted(f->accept, u->name, u->type)) {
        const char *acc = "";
        for (size_t i = 0; f->accept && i < json_object_array_length(f->accept); i++)
            acc =
                apr_pstrcat(r->pool, acc, i ? ", " : "",
                            json_object_get_string(json_object_array_get_idx(f->accept, i)), NULL);
        return invalid_msg(u, u->ptr, "accept", "file.type", named(r->pool, f, u->name), NULL,
                           apr_psprintf(r->pool,
                                        "%s: %s (%s) is not a type this question accepts (%s).",
                                        fs_field_label(f), u->name, u->type, acc));
    }
    if (!u->mem)
        u->mem = apr_palloc(r->pool, FILE_CHUNK);
    u->fid = fs_id_new(r->pool, "fil_");
    u->sha = fs_sha256_new(r->pool);
    if (!u->fid || !u->sha)
        return fs_error_internal(r->pool, "no random bytes or no SHA-256 context for a file");
    fs_file_check_init(&u->chk, u->type);
    if (f->type == FS_FT_SIGNATURE) /* a drawing: no bomb, nothing appended */
        fs_file_check_png_bounds(&u->chk, FS_SIGNATURE_IMAGE_SIDE_MAX);
    u->size = 0;
    u->start = u->spooled;
    /* counted now, so that a later file of the same field is the next */
    json_object *stub = json_object_new_object();
    json_object_object_add(stub, "name", json_object_new_string(u->name));
    json_object_object_add(stub, "type", json_object_new_string(u->type));
    json_object_object_add(stub, "data", json_object_new_string(""));
    json_object_array_add(list_of(u->stubs, f->key), stub);
    return NULL;
}

static fs_error *over_quota(request_rec *r, long long used, long long quota) {
    return fs_error_make(r->pool, "payload-too-large",
                         "The form's owner has no storage left for these files (%" APR_INT64_T_FMT
                         " of %" APR_INT64_T_FMT " bytes used).",
                         (apr_int64_t)used, (apr_int64_t)quota);
}

fs_error *formsvc_upload_data(formsvc_upload *u, const char *buf, apr_size_t len) {
    if (!u->f)
        return NULL;
    if (u->size + (long long)len > u->f->max_size) {
        fs_error *e = fs_error_make(u->r->pool, "payload-too-large",
                                    "%s: %s is larger than %" APR_INT64_T_FMT
                                    " bytes, the most this question "
                                    "takes.",
                                    fs_field_label(u->f), u->name, (apr_int64_t)u->f->max_size);
        fs_error_add_msg(u->r->pool, e, u->ptr, "maxSize", "file.size",
                         named(u->r->pool, u->f, u->name), fs_html_size(u->r->pool, u->f->max_size),
                         e->detail);
        return e;
    }
    u->total += (long long)len;
    u->size += (long long)len;
    fs_sha256_update(u->sha, buf, len);
    fs_file_check_feed(&u->chk, (const unsigned char *)buf, len);
    return spool_write(u, buf, len);
}

fs_error *formsvc_upload_end(formsvc_upload *u) {
    request_rec *r = u->r;
    const fs_field *f = u->f;
    if (!f)
        return NULL;
    u->f = NULL;
    if (!fs_file_check_done(&u->chk))
        return invalid_msg(u, u->ptr, "contentMediaType", "file.content",
                           named(r->pool, f, u->name), NULL,
                           apr_psprintf(r->pool, "%s: the content of %s is not %s.",
                                        fs_field_label(f), u->name, u->type));
    const char *sha = fs_sha256_hex(u->sha, r->pool);
    if (!sha)
        return fs_error_internal(r->pool, "SHA-256 of an upload failed");
    spooled *sp = apr_array_push(u->files);
    *sp = (spooled){u->fid,  f->key,  u->name, u->type, sha, u->ptr, fs_field_label(f),
                    u->size, u->start};
    json_object *m = json_object_new_object();
    json_object_object_add(m, "id", json_object_new_string(u->fid));
    json_object_object_add(m, "name", json_object_new_string(u->name));
    json_object_object_add(m, "type", json_object_new_string(u->type));
    json_object_object_add(m, "size", json_object_new_int64(u->size));
    json_object_object_add(m, "sha256", json_object_new_string(sha));
    json_object_object_add(
        m, "url",
        json_object_new_string(apr_pstrcat(r->pool, formsvc_base_url(r), "/v1/forms/", u->form_id,
                                           "/submissions/", u->sub_id, "/files/", u->fid, NULL)));
    json_object_array_add(list_of(u->meta, f->key), m);
    return NULL;
}

/* One {name, type, data} of a JSON body, decoded a slice at a time. */
static fs_error *json_file(formsvc_upload *u, const char *key, json_object *v) {
    fs_error *e = formsvc_upload_begin(u, key, json_object_get_string(fs_json_get(v, "name")),
                                       json_object_get_string(fs_json_get(v, "type")));
    if (e)
        return e;
    json_object *d = fs_json_get(v, "data");
    const char *s = json_object_get_string(d);
    apr_size_t n = (apr_size_t)json_object_get_string_len(d);
    enum { SLICE = 65536 }; /* base64 characters: a multiple of 4 */
    char in[SLICE + 1];
    unsigned char out[SLICE / 4 * 3 + 3];
    for (apr_size_t i = 0; i < n; i += SLICE) {
        apr_size_t k = n - i < SLICE ? n - i : SLICE;
        memcpy(in, s + i, k);
        in[k] = '\0';
        int got = apr_base64_decode_binary(out, in);
        if ((e = formsvc_upload_data(u, (const char *)out, (apr_size_t)got)))
            return e;
    }
    return formsvc_upload_end(u);
}

fs_error *formsvc_upload_json(formsvc_upload *u, json_object *obj) {
    for (int i = 0; i < u->fs->n; i++) {
        const fs_field *f = &u->fs->f[i];
        json_object *v;
        fs_error *e;
        if (f->type == FS_FT_SIGNATURE) { /* its drawn image, when given */
            json_object *img = fs_json_get(fs_json_get(obj, f->key), "image");
            if (img && (e = json_file(u, f->key, img)))
                return e;
            continue;
        }
        if (f->type != FS_FT_FILE || !json_object_object_get_ex(obj, f->key, &v))
            continue;
        if (json_object_is_type(v, json_type_array)) {
            for (size_t j = 0; j < json_object_array_length(v); j++)
                if ((e = json_file(u, f->key, json_object_array_get_idx(v, j))))
                    return e;
        } else if ((e = json_file(u, f->key, v))) {
            return e;
        }
    }
    formsvc_upload_values(u, obj);
    return NULL;
}

void formsvc_upload_values(formsvc_upload *u, json_object *obj) {
    json_object_object_foreach(u->meta, k, v) {
        if (!set_image(u, obj, k, v))
            json_object_object_add(obj, k, json_object_get(v));
    }
}

json_object *formsvc_upload_stubs(formsvc_upload *u, json_object *obj) {
    json_object_object_foreach(u->stubs, k, v) {
        if (!set_image(u, obj, k, v))
            json_object_object_add(obj, k, json_object_get(v));
    }
    return obj;
}

int formsvc_upload_any(const formsvc_upload *u) {
    return u && u->files->nelts > 0;
}

/* One spooled file into the transaction: its row with its first chunk,
 * then the others, a FILE_CHUNK at a time. */
static fs_error *save_file(formsvc_upload *u, fs_store *st, const spooled *sp) {
    fs_new_file nf = {sp->fid, u->sub_id, u->form_id, sp->key, sp->name, sp->type};
    int chunks = (int)((sp->size + FILE_CHUNK - 1) / FILE_CHUNK);
    long long done = 0;
    fs_error *e = NULL;
    for (int seq = 0; !e && (seq == 0 || done < sp->size); seq++) {
        apr_size_t take =
            sp->size - done < FILE_CHUNK ? (apr_size_t)(sp->size - done) : (apr_size_t)FILE_CHUNK;
        const char *data = NULL;
        if (take && (e = spool_read(u, sp->off + (apr_off_t)done, take, &data)))
            break;
        e = seq == 0 ? fs_store_file_put(st, &nf, sp->size, sp->sha256, chunks, data, take)
                     : fs_store_file_chunk(st, sp->fid, seq, data, take);
        done += (long long)take;
    }
    return e;
}

fs_error *formsvc_upload_save(formsvc_upload *u) {
    fs_store *st = formsvc_store(u->r);
    fs_error *e = fs_store_tx_begin(st, u->r->pool, &u->tx);
    for (int i = 0; !e && i < u->files->nelts; i++)
        e = save_file(u, st, &APR_ARRAY_IDX(u->files, i, spooled));
    long long used, quota;
    if (!e &&
        !(e = fs_store_files_usage(st, u->form_id, formsvc_file_quota(0), formsvc_file_quota(1),
                                   &used, &quota)) &&
        used > quota) {
        /* the storage, counting these files: the problem names the first
         * file that goes past it */
        e = over_quota(u->r, used, quota);
        long long before = used - u->total;
        for (int i = 0; i < u->files->nelts; i++) {
            const spooled *sp = &APR_ARRAY_IDX(u->files, i, spooled);
            if ((before += sp->size) > quota || i == u->files->nelts - 1) {
                fs_error_add_msg(u->r->pool, e, sp->ptr, "quota", "file.quota", sp->label, NULL,
                                 e->detail);
                break;
            }
        }
    }
    /* the last statement before the submission's: a session renewed under
     * the transaction (the server ended it) would store the submission
     * without its files */
    if (!e && !fs_store_tx_alive(u->tx))
        e = fs_error_make(u->r->pool, "service-unavailable",
                          "The database connection was lost during the upload.");
    if (e)
        formsvc_upload_rollback(u);
    return e;
}

fs_error *formsvc_upload_commit(formsvc_upload *u) {
    fs_error *e = u->tx ? fs_store_tx_commit(u->tx) : NULL;
    u->tx = NULL;
    return e;
}

void formsvc_upload_rollback(formsvc_upload *u) {
    if (u && u->tx)
        fs_store_tx_rollback(u->tx);
    if (u)
        u->tx = NULL;
}

json_object *formsvc_files_storage_json(request_rec *r, const char *user_id, fs_error **e) {
    long long used, quota;
    if ((*e = fs_store_files_used(formsvc_store(r), user_id, formsvc_file_quota(0),
                                  formsvc_file_quota(1), &used, &quota)))
        return NULL;
    json_object *o = json_object_new_object();
    json_object_object_add(o, "used", json_object_new_int64(used));
    json_object_object_add(o, "quota", json_object_new_int64(quota));
    return o;
}

/* ---- multipart bodies, streamed --------------------------------------- */

apr_off_t formsvc_files_max_body(const fs_fieldset *fs) {
    apr_off_t n = 0;
    for (int i = 0; i < fs->n; i++)
        if (fs->f[i].type == FS_FT_FILE || fs->f[i].type == FS_FT_SIGNATURE) /* its image */
            n += (apr_off_t)fs->f[i].max_files * ((apr_off_t)fs->f[i].max_size + 1024);
    return n;
}

typedef struct stream {
    request_rec *r;
    formsvc_upload *u; /* NULL: files are dropped */
    fs_error *first;   /* the first problem with a file */
    int skip;          /* the current file is dropped */
} stream;

/* A problem of the sender's file (kept, the read goes on) or of the
 * server (returned: the read stops). A spool that cannot take the file
 * (503: the disk full or unwritable, FormsvcUploadTempMax) is kept too:
 * the files are dropped and the other answers read on, so that the sender
 * gets them back with the 503 instead of losing them. */
static fs_error *file_problem(stream *st, fs_error *e) {
    if (!e)
        return NULL;
    if (e->status != 413 && e->status != 422 && e->status != 503)
        return e;
    if (!st->first)
        st->first = e;
    st->skip = 1;
    return NULL;
}

static fs_error *mp_begin(void *b, const char *name, const char *filename, const char *ctype) {
    stream *st = b;
    st->skip = !st->u || st->first != NULL;
    return st->skip ? NULL : file_problem(st, formsvc_upload_begin(st->u, name, filename, ctype));
}

static fs_error *mp_data(void *b, const char *buf, apr_size_t len) {
    stream *st = b;
    return st->skip ? NULL : file_problem(st, formsvc_upload_data(st->u, buf, len));
}

static fs_error *mp_end(void *b) {
    stream *st = b;
    if (st->skip) {
        st->skip = 0;
        if (st->u)
            st->u->f = NULL; /* the file in progress is abandoned (rolled back) */
        return NULL;
    }
    return file_problem(st, formsvc_upload_end(st->u));
}

static fs_error *body_problem(request_rec *r, apr_status_t rv) {
    int status = ap_map_http_request_error(rv, HTTP_BAD_REQUEST);
    r->connection->keepalive = AP_CONN_CLOSE;
    if (status == AP_FILTER_ERROR) {
        formsvc_req_get(r)->body_answered = 1;
        status = r->status >= 400 ? r->status : HTTP_BAD_REQUEST;
    }
    if (status == HTTP_REQUEST_TIME_OUT)
        return fs_error_make(r->pool, "request-timeout",
                             "The request body did not arrive in time.");
    if (status == HTTP_REQUEST_ENTITY_TOO_LARGE)
        return fs_error_make(r->pool, "payload-too-large",
                             "The body is larger than the server accepts.");
    fs_error *e = fs_error_make(r->pool, "malformed-request", "The request body cannot be read.");
    if (status != HTTP_BAD_REQUEST)
        e->status = status;
    return e;
}

fs_error *formsvc_multipart_read(request_rec *r, const char *boundary, apr_off_t max_value,
                                 apr_off_t max_total, int take_files, formsvc_upload *u,
                                 fs_sha256 *hash, apr_array_header_t **pairs, fs_error **file_err) {
    *pairs = NULL;
    *file_err = NULL;
    fs_multipart_limits lim = {8192, (apr_size_t)max_value, FS_FORM_MAX_PAIRS};
    fs_multipart *mp = fs_multipart_new(r->pool, boundary, &lim);
    stream st = {r, u, NULL, 0};
    fs_multipart_files cb = {&st, mp_begin, mp_data, mp_end};
    if (take_files)
        fs_multipart_on_files(mp, &cb);
    fs_error *e = NULL;
    formsvc_capture *given = formsvc_req_get(r)->capture;
    if (given) { /* internal dispatch: the body is given, not read */
        if (given->in_body && (apr_off_t)given->in_len > max_total)
            return fs_error_make(r->pool, "payload-too-large",
                                 "The body is larger than %" APR_OFF_T_FMT " bytes.", max_total);
        if (given->in_body) {
            if (hash)
                fs_sha256_update(hash, given->in_body, given->in_len);
            e = fs_multipart_feed(mp, given->in_body, given->in_len);
        }
    } else {
        formsvc_db_release(r); /* no pooled connection waits on the client */
        int rc = ap_setup_client_block(r, REQUEST_CHUNKED_DECHUNK);
        if (rc != OK)
            return fs_error_make(r->pool, "malformed-request", "The request body cannot be read.");
        if (r->remaining > max_total) {
            r->connection->keepalive = AP_CONN_CLOSE;
            return fs_error_make(r->pool, "payload-too-large",
                                 "The body is larger than %" APR_OFF_T_FMT " bytes.", max_total);
        }
        apr_off_t n = 0;
        apr_bucket_brigade *bb = apr_brigade_create(r->pool, r->connection->bucket_alloc);
        int eos = !ap_should_client_block(r);
        while (!eos && !e) {
            apr_status_t rv =
                ap_get_brigade(r->input_filters, bb, AP_MODE_READBYTES, APR_BLOCK_READ, 64 * 1024);
            if (rv != APR_SUCCESS) {
                e = body_problem(r, rv);
                break;
            }
            if (APR_BRIGADE_EMPTY(bb))
                break;
            for (apr_bucket *b = APR_BRIGADE_FIRST(bb); b != APR_BRIGADE_SENTINEL(bb) && !e;
                 b = APR_BUCKET_NEXT(b)) {
                if (APR_BUCKET_IS_EOS(b)) {
                    eos = 1;
                    break;
                }
                const char *data;
                apr_size_t got;
                if ((rv = apr_bucket_read(b, &data, &got, APR_BLOCK_READ)) != APR_SUCCESS) {
                    e = body_problem(r, rv);
                    break;
                }
                if ((n += (apr_off_t)got) > max_total) {
                    r->connection->keepalive = AP_CONN_CLOSE;
                    e = fs_error_make(r->pool, "payload-too-large",
                                      "The body is larger than %" APR_OFF_T_FMT " bytes.",
                                      max_total);
                    break;
                }
                if (hash)
                    fs_sha256_update(hash, data, got);
                e = fs_multipart_feed(mp, data, got);
            }
            apr_brigade_cleanup(bb); /* the buckets read are freed: memory stays flat */
        }
        apr_brigade_destroy(bb);
        if (e)
            r->connection->keepalive = AP_CONN_CLOSE; /* the rest is not read */
    }
    if (!e)
        e = fs_multipart_finish(mp, pairs);
    if (e)
        return e;
    *file_err = st.first;
    return NULL;
}

/* ---- download --------------------------------------------------------- */

/* RFC 6266: an ASCII fallback and the UTF-8 name percent-encoded. The
 * name made safe again: one stored before a rule was added (format
 * characters) gets it here. */
static const char *disposition(apr_pool_t *p, const char *name) {
    name = fs_file_safe_name(p, name, strlen(name));
    char *ascii = apr_pstrdup(p, name);
    for (char *c = ascii; *c; c++)
        if ((unsigned char)*c < 0x20 || (unsigned char)*c > 0x7e || *c == '"' || *c == '\\')
            *c = '_';
    apr_size_t n = strlen(name);
    char *enc = apr_palloc(p, n * 3 + 1), *o = enc;
    for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
        if (apr_isalnum(*c) || strchr("!#$&+-.^_`|~", *c))
            *o++ = (char)*c;
        else
            o += apr_snprintf(o, 4, "%%%02X", *c);
    }
    *o = '\0';
    return apr_psprintf(p, "attachment; filename=\"%s\"; filename*=UTF-8''%s", ascii, enc);
}

static int formsvc_h_file_get(request_rec *r, const char *const *caps) {
    formsvc_form *form;
    fs_error *e = formsvc_form_load(r, caps[0], &form);
    if (e)
        return formsvc_send_problem(r, e);
    fs_file_meta *m = NULL;
    if (fs_id_valid(caps[1], "sub_") && fs_id_valid(caps[2], "fil_") &&
        (e = fs_store_file_get(formsvc_store(r), form->id, caps[1], caps[2], &m)))
        return formsvc_send_problem(r, e);
    if (!m)
        return formsvc_send_problem(r, fs_error_make(r->pool, "not-found", "No such file."));
    apr_table_setn(r->headers_out, "Content-Disposition", disposition(r->pool, m->name));
    apr_table_setn(r->headers_out, "X-Content-Type-Options", "nosniff");
    apr_table_setn(r->headers_out, "Content-Security-Policy", "default-src 'none'; sandbox");
    apr_table_setn(r->headers_out, "Cache-Control", "private, no-store");
    apr_table_setn(r->headers_out, "ETag", apr_pstrcat(r->pool, "\"", m->sha256, "\"", NULL));
    ap_set_content_length(r, (apr_off_t)m->size);
    formsvc_send_start(r, 200, m->type);
    apr_pool_t *cp;
    apr_pool_create(&cp, r->pool);
    /* each chunk read on a connection taken for it and given back before
     * the chunk is written (formsvc_send_more): a slow reader holds none */
    for (int seq = 0; seq < m->chunks && !r->header_only && !r->connection->aborted; seq++) {
        const char *data;
        apr_size_t len;
        e = fs_store_file_read_chunk(formsvc_store(r), cp, m->id, seq, &data, &len);
        if (e || !data) {
            FORMSVC_LOG(r, APLOG_ERR, 03701, "file %s: chunk %d of %d unreadable: %s", m->id, seq,
                        m->chunks, e && e->cause ? e->cause : "missing");
            formsvc_send_cut(r);
            return OK;
        }
        formsvc_send_more(r, data, len, 1);
        apr_pool_clear(cp);
    }
    apr_pool_destroy(cp);
    return OK;
}

const formsvc_route formsvc_routes_files[] = {{M_GET,
                                               "/v1/forms/{id}/submissions/{sid}/files/{fid}",
                                               formsvc_h_file_get, FS_SC_SUBMISSIONS_READ, 1},
                                              {0, NULL, NULL, 0, 0}};
