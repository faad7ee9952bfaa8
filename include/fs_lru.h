/* fs_lru: a bounded, thread-safe cache of byte strings by string key, the
 * least recently used evicted first; and a table of generation counters
 * that tells a cached entry it is out of date.
 *
 * The cache is split into shards, each with its own lock, hash table and
 * recency list; a key always lives in the shard its hash names, so threads
 * working on different keys rarely meet on a lock. Each shard holds at
 * most max_bytes / nshards bytes (entry header, key and value counted).
 *
 * Ownership: the cache owns every entry (one malloc holding header, key
 * and value). fs_lru_put copies key and value in; fs_lru_get copies the
 * value out into the caller's pool. Nothing a caller holds points into the
 * cache, so an entry is freed at once when it is replaced, found expired
 * or stale, evicted, removed or cleared. fs_lru_destroy frees everything.
 *
 * Validity: each entry carries the stamp it was made under (typically the
 * generation counters of what it depends on, read *before* the data was
 * fetched) and an expiry time. fs_lru_get finds an entry only when the
 * caller's stamp is the same and the entry has not expired; otherwise the
 * entry is dropped there and then. */
#ifndef FS_LRU_H
#define FS_LRU_H

#include <stddef.h>
#include <apr_pools.h>
#include <apr_time.h>
#include <stdatomic.h>
#include <stdint.h>

typedef struct fs_lru fs_lru;

/* What an entry is valid for; compared member by member. */
typedef struct fs_lru_stamp {
    uint64_t a, b;
} fs_lru_stamp;

typedef struct fs_lru_stats {
    uint64_t hits, misses, stale, expired, evicted, inserts;
    size_t entries, bytes;
} fs_lru_stats;

/* A cache of at most max_bytes in nshards shards (rounded up to a power of
 * two, 1 to 256). NULL when memory is short or max_bytes is 0. */
fs_lru *fs_lru_create(size_t max_bytes, unsigned nshards);
/* Frees every entry and the cache. No operation when c is NULL. */
void fs_lru_destroy(fs_lru *c);

/* Stores a copy of val (len bytes) under key, replacing any entry of that
 * key, valid until expires and for stamp; mark is a word the caller may
 * read back and change (fs_lru_remark). Least recently used entries of the
 * shard go first to make room. Returns 0 when stored, -1 when the entry
 * would not fit a shard or memory is short (any old entry of the key is
 * removed then too). */
int fs_lru_put(fs_lru *c, const char *key, const void *val, size_t len, apr_time_t expires,
               fs_lru_stamp stamp, apr_time_t mark);

/* 1 when key has an entry made under stamp that has not expired at now:
 * *val is a copy of its value in p (NUL-terminated beyond *len bytes, for
 * convenience), *len its length and, when mark is not NULL, *mark its
 * mark; the entry becomes the most recently used. 0 otherwise; an entry
 * found expired or under another stamp is removed. */
int fs_lru_get(fs_lru *c, const char *key, apr_time_t now, fs_lru_stamp stamp, apr_pool_t *p,
               void **val, size_t *len, apr_time_t *mark);

/* Sets the mark of key's entry to mark if it is still old: 1 when this
 * call changed it (so among threads that saw the same old mark exactly one
 * gets 1), 0 when there is no entry or its mark is no longer old. */
int fs_lru_remark(fs_lru *c, const char *key, apr_time_t old, apr_time_t mark);

/* Removes key's entry; 1 when there was one. */
int fs_lru_remove(fs_lru *c, const char *key);
/* Removes every entry. */
void fs_lru_clear(fs_lru *c);
/* Counters since creation, and the entries and bytes held now. */
void fs_lru_stats_get(fs_lru *c, fs_lru_stats *out);
/* Bytes an entry costs beyond its key (with its NUL) and value. */
size_t fs_lru_entry_overhead(void);

/* ---- generation table -------------------------------------------------
 * nslots counters, for example in shared memory that every process of a
 * machine maps. A key (any string: "r:frm_…", "k:<hash>") names one slot
 * by its hash; bumping a key advances that slot, so every entry stamped
 * with the slot's old value is stale. Two keys may share a slot: that
 * costs an extra miss, never a stale answer. Lock-free (atomics). */
typedef _Atomic uint64_t fs_gen;

uint32_t fs_gen_slot(const char *key, uint32_t nslots);
uint64_t fs_gen_read(fs_gen *tab, uint32_t slot);
void fs_gen_bump(fs_gen *tab, uint32_t slot);

#endif
