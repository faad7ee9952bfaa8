/* fs_lru: sharded LRU cache of byte strings, and generation counters (see
 * fs_lru.h for ownership and validity). */
#include "fs_lru.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* One entry: a single malloc, header then key (with its NUL) then value
 * (with a NUL after it, not counted in vlen). */
typedef struct ent {
    struct ent *hnext;       /* next in the bucket */
    struct ent *prev, *next; /* recency list, head = most recent */
    uint64_t hash;
    apr_time_t expires, mark;
    fs_lru_stamp stamp;
    size_t klen, vlen, size; /* size: what the entry counts against the budget */
    char data[];
} ent;

typedef struct shard {
    pthread_mutex_t mu;
    ent **buckets; /* nbuckets chains (a power of two) */
    size_t nbuckets, count, bytes, max_bytes;
    ent head; /* sentinel of the recency list */
    uint64_t hits, misses, stale, expired, evicted, inserts;
    char pad[64]; /* keeps the next shard's lock off this cache line */
} shard;

struct fs_lru {
    unsigned nshards; /* a power of two */
    shard *shards;
};

#define FIRST_BUCKETS 16

static uint64_t hash_of(const char *s, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a, then a finaliser to spread the bits */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

size_t fs_lru_entry_overhead(void) {
    return sizeof(ent) + 1; /* the NUL after the value */
}

fs_lru *fs_lru_create(size_t max_bytes, unsigned nshards) {
    if (max_bytes == 0)
        return NULL;
    unsigned n = 1;
    while (n < nshards && n < 256)
        n <<= 1;
    fs_lru *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    c->shards = calloc(n, sizeof(shard));
    if (!c->shards) {
        free(c);
        return NULL;
    }
    c->nshards = n;
    for (unsigned i = 0; i < n; i++) {
        shard *s = &c->shards[i];
        s->max_bytes = max_bytes / n;
        s->head.prev = s->head.next = &s->head;
        s->buckets = calloc(FIRST_BUCKETS, sizeof(ent *));
        s->nbuckets = s->buckets ? FIRST_BUCKETS : 0;
        if (!s->buckets || pthread_mutex_init(&s->mu, NULL) != 0) {
            for (unsigned j = 0; j < i; j++) {
                pthread_mutex_destroy(&c->shards[j].mu);
                free(c->shards[j].buckets);
            }
            free(s->buckets);
            free(c->shards);
            free(c);
            return NULL;
        }
    }
    return c;
}

static shard *shard_of(fs_lru *c, uint64_t h) {
    return &c->shards[(h >> 56) & (c->nshards - 1)];
}

static void list_unlink(ent *e) {
    e->prev->next = e->next;
    e->next->prev = e->prev;
}

static void list_push_front(shard *s, ent *e) {
    e->next = s->head.next;
    e->prev = &s->head;
    s->head.next->prev = e;
    s->head.next = e;
}

/* The entry of key in s, or NULL; *link is where it hangs (for removal). */
static ent *find(shard *s, uint64_t h, const char *key, size_t klen, ent ***link) {
    ent **l = &s->buckets[h & (s->nbuckets - 1)];
    for (; *l; l = &(*l)->hnext) {
        ent *e = *l;
        if (e->hash == h && e->klen == klen && !memcmp(e->data, key, klen)) {
            if (link)
                *link = l;
            return e;
        }
    }
    return NULL;
}

/* Takes e out of s (bucket and list) and onto *freed, to be freed once the
 * lock is released. */
static void detach(shard *s, ent *e, ent **link, ent **freed) {
    if (!link) {
        link = &s->buckets[e->hash & (s->nbuckets - 1)];
        while (*link != e)
            link = &(*link)->hnext;
    }
    *link = e->hnext;
    list_unlink(e);
    s->count--;
    s->bytes -= e->size;
    e->hnext = *freed;
    *freed = e;
}

static void free_list(ent *e) {
    while (e) {
        ent *n = e->hnext;
        free(e);
        e = n;
    }
}

/* Doubles the bucket array when chains grow long; keeps the old one when
 * memory is short (chains are only longer then). */
static void grow(shard *s) {
    if (s->count <= s->nbuckets)
        return;
    size_t nb = s->nbuckets * 2;
    ent **b = calloc(nb, sizeof(ent *));
    if (!b)
        return;
    for (size_t i = 0; i < s->nbuckets; i++) {
        for (ent *e = s->buckets[i], *n; e; e = n) {
            n = e->hnext;
            ent **l = &b[e->hash & (nb - 1)];
            e->hnext = *l;
            *l = e;
        }
    }
    free(s->buckets);
    s->buckets = b;
    s->nbuckets = nb;
}

int fs_lru_put(fs_lru *c, const char *key, const void *val, size_t len, apr_time_t expires,
               fs_lru_stamp stamp, apr_time_t mark) {
    if (!c)
        return -1;
    size_t klen = strlen(key);
    uint64_t h = hash_of(key, klen);
    shard *s = shard_of(c, h);
    size_t size = sizeof(ent) + klen + 1 + len + 1;
    ent *e = size <= s->max_bytes ? malloc(size) : NULL;
    if (e) {
        e->hash = h;
        e->expires = expires;
        e->mark = mark;
        e->stamp = stamp;
        e->klen = klen;
        e->vlen = len;
        e->size = size;
        memcpy(e->data, key, klen + 1);
        if (len)
            memcpy(e->data + klen + 1, val, len);
        e->data[klen + 1 + len] = '\0';
    }
    ent *freed = NULL, **link;
    pthread_mutex_lock(&s->mu);
    ent *old = find(s, h, key, klen, &link);
    if (old)
        detach(s, old, link, &freed);
    if (e) {
        while (s->bytes + size > s->max_bytes && s->head.prev != &s->head) {
            detach(s, s->head.prev, NULL, &freed);
            s->evicted++;
        }
        ent **b = &s->buckets[h & (s->nbuckets - 1)];
        e->hnext = *b;
        *b = e;
        list_push_front(s, e);
        s->count++;
        s->bytes += size;
        s->inserts++;
        grow(s);
    }
    pthread_mutex_unlock(&s->mu);
    free_list(freed);
    return e ? 0 : -1;
}

int fs_lru_get(fs_lru *c, const char *key, apr_time_t now, fs_lru_stamp stamp, apr_pool_t *p,
               void **val, size_t *len, apr_time_t *mark) {
    if (!c)
        return 0;
    size_t klen = strlen(key);
    uint64_t h = hash_of(key, klen);
    shard *s = shard_of(c, h);
    ent *freed = NULL, **link;
    int hit = 0;
    pthread_mutex_lock(&s->mu);
    ent *e = find(s, h, key, klen, &link);
    if (!e) {
        s->misses++;
    } else if (e->stamp.a != stamp.a || e->stamp.b != stamp.b) {
        detach(s, e, link, &freed);
        s->stale++;
        s->misses++;
    } else if (e->expires <= now) {
        detach(s, e, link, &freed);
        s->expired++;
        s->misses++;
    } else {
        list_unlink(e);
        list_push_front(s, e);
        /* copied under the lock: the entry may be freed the moment it is
         * released */
        char *copy = apr_palloc(p, e->vlen + 1);
        memcpy(copy, e->data + e->klen + 1, e->vlen + 1);
        *val = copy;
        *len = e->vlen;
        if (mark)
            *mark = e->mark;
        s->hits++;
        hit = 1;
    }
    pthread_mutex_unlock(&s->mu);
    free_list(freed);
    return hit;
}

int fs_lru_remark(fs_lru *c, const char *key, apr_time_t old, apr_time_t mark) {
    if (!c)
        return 0;
    size_t klen = strlen(key);
    uint64_t h = hash_of(key, klen);
    shard *s = shard_of(c, h);
    int done = 0;
    pthread_mutex_lock(&s->mu);
    ent *e = find(s, h, key, klen, NULL);
    if (e && e->mark == old) {
        e->mark = mark;
        done = 1;
    }
    pthread_mutex_unlock(&s->mu);
    return done;
}

int fs_lru_remove(fs_lru *c, const char *key) {
    if (!c)
        return 0;
    size_t klen = strlen(key);
    uint64_t h = hash_of(key, klen);
    shard *s = shard_of(c, h);
    ent *freed = NULL, **link;
    pthread_mutex_lock(&s->mu);
    ent *e = find(s, h, key, klen, &link);
    if (e)
        detach(s, e, link, &freed);
    pthread_mutex_unlock(&s->mu);
    free_list(freed);
    return e != NULL;
}

void fs_lru_clear(fs_lru *c) {
    if (!c)
        return;
    for (unsigned i = 0; i < c->nshards; i++) {
        shard *s = &c->shards[i];
        ent *freed = NULL;
        pthread_mutex_lock(&s->mu);
        while (s->head.next != &s->head)
            detach(s, s->head.next, NULL, &freed);
        pthread_mutex_unlock(&s->mu);
        free_list(freed);
    }
}

void fs_lru_stats_get(fs_lru *c, fs_lru_stats *out) {
    memset(out, 0, sizeof(*out));
    if (!c)
        return;
    for (unsigned i = 0; i < c->nshards; i++) {
        shard *s = &c->shards[i];
        pthread_mutex_lock(&s->mu);
        out->hits += s->hits;
        out->misses += s->misses;
        out->stale += s->stale;
        out->expired += s->expired;
        out->evicted += s->evicted;
        out->inserts += s->inserts;
        out->entries += s->count;
        out->bytes += s->bytes;
        pthread_mutex_unlock(&s->mu);
    }
}

void fs_lru_destroy(fs_lru *c) {
    if (!c)
        return;
    fs_lru_clear(c);
    for (unsigned i = 0; i < c->nshards; i++) {
        pthread_mutex_destroy(&c->shards[i].mu);
        free(c->shards[i].buckets);
    }
    free(c->shards);
    free(c);
}

/* ---- generation table ------------------------------------------------ */

uint32_t fs_gen_slot(const char *key, uint32_t nslots) {
    return nslots ? (uint32_t)(hash_of(key, strlen(key)) % nslots) : 0;
}

uint64_t fs_gen_read(fs_gen *tab, uint32_t slot) {
    return atomic_load_explicit(&tab[slot], memory_order_acquire);
}

void fs_gen_bump(fs_gen *tab, uint32_t slot) {
    atomic_fetch_add_explicit(&tab[slot], 1, memory_order_acq_rel);
}
