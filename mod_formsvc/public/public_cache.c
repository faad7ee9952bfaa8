/* public_cache: the last-known copy of each public form, so that an HTML
 * respondent whose post meets a database outage gets the form back with
 * everything typed (docs/public-forms.md, "Durability"). Never used while
 * the database answers.
 *
 * Files in a directory under DefaultRuntimeDir (formsvc-forms/<id>.json,
 * and slug-<slug> naming the id), shared by every child of this machine
 * and written only when a form's version, status or slug changed. What was
 * last written is remembered per process as a 64-bit fingerprint in a
 * fixed table of atomics indexed by the form id's hash: no lock and no
 * allocation on the request path; two forms sharing a slot only cost an
 * extra file write. The directory is made at startup, owned by the user
 * the children run as. */
#include "fs_json.h"
#include "public/public.h"
#include "runtime/log.h"
#include "runtime/metrics.h"

#include <apr_file_io.h>
#include <apr_lib.h>
#include <apr_strings.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <unixd.h>

APLOG_USE_MODULE(formsvc); /* its lines say [formsvc:...], not [-:...] */

#define MEMO_SLOTS 4096

static _Atomic uint64_t memo[MEMO_SLOTS];

/* FNV-1a over a string (NULL hashes like ""), continuing from h. */
static uint64_t fnv(uint64_t h, const char *s) {
    for (; s && *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return (h ^ 0xff) * 0x100000001b3ull; /* a separator between strings */
}

static const char *cache_dir;

int formsvc_public_post_config(apr_pool_t *pconf, server_rec *s) {
    const char *dir = ap_runtime_dir_relative(pconf, "formsvc-forms");
    if (!dir || apr_dir_make_recursive(dir, APR_FPROT_OS_DEFAULT, pconf) != APR_SUCCESS) {
        FORMSVC_SLOG(s, APLOG_WARNING, 0, 00704,
                     "cannot make %s: HTML respondents will not get their form back "
                     "during a database outage",
                     dir ? dir : "formsvc-forms");
        return OK;
    }
    if (geteuid() == 0 && chown(dir, ap_unixd_config.user_id, ap_unixd_config.group_id) != 0)
        FORMSVC_SLOG(s, APLOG_WARNING, 0, 00705, "cannot hand %s to the child user", dir);
    cache_dir = dir;
    return OK;
}

/* Only plain references name files. */
static int safe_ref(const char *ref) {
    if (!*ref || strlen(ref) > 100)
        return 0;
    for (const char *q = ref; *q; q++)
        if (!apr_isalnum(*q) && *q != '_' && *q != '-')
            return 0;
    return 1;
}

static void write_file(apr_pool_t *p, const char *path, const char *text) {
    const char *tmp =
        apr_psprintf(p, "%s.%" APR_PID_T_FMT ".%lu", path, getpid(), (unsigned long)pthread_self());
    apr_file_t *f;
    apr_size_t n = strlen(text);
    if (apr_file_open(&f, tmp, APR_WRITE | APR_CREATE | APR_TRUNCATE | APR_BINARY,
                      APR_FPROT_UREAD | APR_FPROT_UWRITE, p) != APR_SUCCESS)
        return;
    int ok = apr_file_write_full(f, text, n, NULL) == APR_SUCCESS;
    ok = apr_file_close(f) == APR_SUCCESS && ok;
    if (!ok || apr_file_rename(tmp, path, p) != APR_SUCCESS)
        apr_file_remove(tmp, p);
}

/* A cached form is a JSON object with one member per member of
 * formsvc_pubform (null for NULL). */
static void put(json_object *o, const char *k, const char *v) {
    json_object_object_add(o, k, v ? json_object_new_string(v) : NULL);
}

static json_object *to_json(const formsvc_pubform *f) {
    json_object *o = json_object_new_object();
    put(o, "id", f->id);
    put(o, "slug", f->slug);
    put(o, "title", f->title);
    put(o, "description", f->description);
    put(o, "status", f->status);
    put(o, "version", f->version);
    put(o, "fields", f->fields);
    put(o, "settings", f->settings);
    return o;
}

static const char *get(apr_pool_t *p, json_object *o, const char *k) {
    json_object *v = fs_json_get(o, k);
    return v && json_object_is_type(v, json_type_string) ? apr_pstrdup(p, json_object_get_string(v))
                                                         : NULL;
}

static void from_json(apr_pool_t *p, json_object *o, formsvc_pubform *f) {
    f->id = get(p, o, "id");
    f->slug = get(p, o, "slug");
    f->title = get(p, o, "title");
    f->description = get(p, o, "description");
    f->status = get(p, o, "status");
    f->version = get(p, o, "version");
    f->fields = get(p, o, "fields");
    f->settings = get(p, o, "settings");
}

static void file_put(const formsvc_pubform *f) {
    if (!cache_dir || !safe_ref(f->id) || (f->slug && !safe_ref(f->slug)))
        return;
    apr_pool_t *p;
    if (apr_pool_create(&p, NULL) != APR_SUCCESS)
        return;
    json_object *o = fs_json_own(p, to_json(f));
    write_file(p, apr_pstrcat(p, cache_dir, "/", f->id, ".json", NULL), fs_json_str(p, o));
    if (f->slug)
        write_file(p, apr_pstrcat(p, cache_dir, "/slug-", f->slug, NULL), f->id);
    apr_pool_destroy(p);
}

static int file_get(apr_pool_t *p, const char *ref, formsvc_pubform *out) {
    if (!cache_dir || !safe_ref(ref))
        return 0;
    char *text = NULL;
    apr_file_t *fd;
    const char *id = ref;
    if (strncmp(ref, "frm_", 4)) { /* a slug: its file names the id */
        if (apr_file_open(&fd, apr_pstrcat(p, cache_dir, "/slug-", ref, NULL), APR_READ, 0, p) !=
            APR_SUCCESS)
            return 0;
        char buf[128];
        apr_size_t n = sizeof(buf) - 1;
        apr_file_read(fd, buf, &n);
        apr_file_close(fd);
        buf[n] = '\0';
        id = apr_pstrdup(p, buf);
        if (!safe_ref(id))
            return 0;
    }
    apr_finfo_t fi;
    const char *path = apr_pstrcat(p, cache_dir, "/", id, ".json", NULL);
    if (apr_stat(&fi, path, APR_FINFO_SIZE, p) != APR_SUCCESS || fi.size > 4 * 1024 * 1024 ||
        apr_file_open(&fd, path, APR_READ | APR_BINARY, 0, p) != APR_SUCCESS)
        return 0;
    apr_size_t n = (apr_size_t)fi.size;
    text = apr_palloc(p, n + 1);
    apr_status_t rv = apr_file_read_full(fd, text, n, &n);
    apr_file_close(fd);
    if (rv != APR_SUCCESS)
        return 0;
    text[n] = '\0';
    json_object *o = fs_json_parse_trusted(p, text);
    if (!o || !json_object_is_type(o, json_type_object)) /* also a copy of an older release */
        return 0;
    from_json(p, o, out);
    return out->id && out->title && out->fields && out->status;
}

void formsvc_public_cache_put(const formsvc_pubform *f) {
    uint64_t slot = fnv(0xcbf29ce484222325ull, f->id) % MEMO_SLOTS;
    uint64_t fp = fnv(fnv(fnv(fnv(0xcbf29ce484222325ull, f->id), f->version), f->status), f->slug);
    if (atomic_load_explicit(&memo[slot], memory_order_relaxed) == fp) {
        formsvc_metric_inc(FORMSVC_M_FORM_COPY_FRESH);
        return;
    }
    formsvc_metric_inc(FORMSVC_M_FORM_COPY_WRITTEN);
    file_put(f);
    atomic_store_explicit(&memo[slot], fp, memory_order_relaxed);
}

int formsvc_public_cache_get(apr_pool_t *p, const char *ref, formsvc_pubform *out) {
    int hit = file_get(p, ref, out);
    formsvc_metric_inc(hit ? FORMSVC_M_FORM_CACHE_HIT : FORMSVC_M_FORM_CACHE_MISS);
    return hit;
}
