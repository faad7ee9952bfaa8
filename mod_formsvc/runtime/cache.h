/* cache: what the per-child caches of published forms (form_cache.c) and
 * of credentials (cred_cache.c) share: their directives, the generation
 * counters that invalidate entries, and the invalidation thread.
 *
 * Invalidation, in three parts:
 * - Generations. A table of counters in shared memory (made in
 *   post_config, inherited by every child of the machine). An entry
 *   depends on one key ("r:<form id or slug>", "k:<secret hash>") and is
 *   stamped with that key's counter as read *before* its data was fetched
 *   (plus two flush epochs, below); bumping the key makes every entry of
 *   it stale in every child of this machine at once. An entry filled from
 *   data read before a change can therefore never outlive the bump that
 *   follows the change.
 * - The listener. Each child has a thread (worker.h) with one PostgreSQL
 *   session of its own, not from mod_dbd's pool, that LISTENs on
 *   formsvc_cache. Triggers (sql/0025) notify every change of a form, a
 *   key or an account with the keys it affects; the thread bumps them.
 *   While that session is not up, or has not answered within 1 s, the
 *   caches are neither read nor filled; when it is (re)established this
 *   child's cache is flushed (a child epoch), since notifications may have
 *   been missed meanwhile.
 * - The barrier. A request that may have changed something (POST, PUT,
 *   PATCH, DELETE under our paths, except public submissions) does not
 *   answer until this child's listener has received every notification
 *   committed before the answer: it asks the thread to pg_notify its own
 *   channel and waits for that notification to come back (notifications
 *   arrive in commit order). So a change is invalid on this machine before
 *   its author hears of it. If that cannot be had within 1 s the whole
 *   machine's caches are flushed (a machine epoch) instead.
 * Entries also expire (the TTL directives) as a backstop. The directives
 * (FormsvcFormCacheSize and the like) are server-wide settings
 * (runtime/config_global.h). */
#ifndef FORMSVC_CACHE_H
#define FORMSVC_CACHE_H

#include <httpd.h>
#include <http_config.h>

#include "fs_lru.h"
#include "runtime/config_global.h" /* FORMSVC_CACHE_FORMS, FORMSVC_CACHE_CREDENTIALS */

/* Hooks (registered by mod_formsvc.c). pre_config: forgets the last
 * generation's shared memory. post_config, after formsvc_schema_post_config noted the
 * DBDParams: the shared counters, the connection string. child_init, after
 * formsvc_worker_child_init: the caches and the listener's thread.
 * insert_filter: the barrier of a request that may change something. */
int formsvc_cache_pre_config(apr_pool_t *pconf, apr_pool_t *plog, apr_pool_t *ptemp);
int formsvc_cache_post_config(apr_pool_t *pconf, server_rec *s);
void formsvc_cache_child_init(apr_pool_t *pchild, server_rec *s);
void formsvc_cache_insert_filter(request_rec *r);
/* Registers the barrier's output filter (FORMSVC_CACHE_BARRIER). */
void formsvc_cache_filters(void);

/* The cache, or NULL when it is configured off or may not be used now
 * (the listener is not up). */
fs_lru *formsvc_cache_lru(int which);
/* Its time to live. */
apr_time_t formsvc_cache_ttl(int which);
/* fs_lru_get and fs_lru_put for the forms cache, whose entries are read
 * again before they expire: an entry is put with its mark halfway to its
 * expiry; from then on the first request that meets it finds no entry
 * (formsvc_cache_get answers 0 to it alone), reads the database and puts
 * a fresh one, while the others go on with the entry until it expires.
 * Under steady load entries are replaced before they expire: no crowd of
 * threads misses at once, each opening database sessions, and a slow
 * database delays one request instead of all. Nothing is served later
 * than it would be otherwise (the expiry and the stamps decide). */
int formsvc_cache_get(fs_lru *c, const char *key, fs_lru_stamp stamp, apr_pool_t *p, void **val,
                      apr_size_t *len);
void formsvc_cache_put(fs_lru *c, const char *key, const void *val, apr_size_t len,
                       apr_time_t expires, fs_lru_stamp stamp);
/* The stamp of an entry that depends on key dep, as of now: read before
 * fetching what the entry will hold. */
fs_lru_stamp formsvc_cache_stamp(const char *dep);
/* Makes every entry depending on dep stale in every child of this
 * machine, at once. */
void formsvc_cache_bump(const char *dep);
/* Queues the lastUsedAt refresh of key_id for the listener thread (one
 * statement for all the keys queued, about once a second). */
void formsvc_cache_touch_later(const char *key_id);

/* A serialised record: strings with their lengths, in order, built in
 * pool p (data, len bytes). */
typedef struct formsvc_blob {
    char *data;
    apr_size_t len, cap;
    apr_pool_t *p;
} formsvc_blob;
void formsvc_blob_init(formsvc_blob *b, apr_pool_t *p);
/* Adds n bytes of s (NULL: a NULL string). */
void formsvc_blob_add(formsvc_blob *b, const char *s, apr_size_t n);
/* The next string of a record (NULL for one added as NULL); 0 at the end
 * or when the record is damaged. *s points into the record (each string
 * is followed by a NUL there). */
int formsvc_blob_next(const char **cur, const char *end, const char **s, apr_size_t *n);

#endif
