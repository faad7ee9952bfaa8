/* fs_ratelimit: fixed-window arithmetic and the shared-memory counter table. */
#include "fs_ratelimit.h"
#include "fs_secret.h"

#include <stdatomic.h>

#include <apr_strings.h>
#include <arpa/inet.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

int64_t fs_rl_window_start(int64_t now, int window_seconds) {
    if (window_seconds < 1)
        window_seconds = 1;
    int64_t m = now % window_seconds;
    if (m < 0)
        m += window_seconds;
    return now - m;
}

void fs_rl_decide(int limit, int window_seconds, int64_t now, int64_t count, fs_rl_result *out) {
    if (window_seconds < 1)
        window_seconds = 1;
    int64_t end = fs_rl_window_start(now, window_seconds) + window_seconds;
    int reset = (int)(end - now);
    if (reset < 1)
        reset = 1;
    out->limit = limit;
    out->reset = reset;
    out->allowed = count <= limit;
    int64_t rem = (int64_t)limit - count;
    out->remaining = rem < 0 ? 0 : (int)rem;
    out->retry_after = out->allowed ? 0 : reset;
}

uint64_t fs_rl_hash(const char *bucket) {
    uint64_t h = 1469598103934665603ULL;
    for (const unsigned char *s = (const unsigned char *)bucket; *s; s++) {
        h ^= *s;
        h *= 1099511628211ULL;
    }
    return h ? h : 1;
}

char *fs_rl_store_key(apr_pool_t *p, const char *bucket, int64_t window_start) {
    char ws[32];
    snprintf(ws, sizeof(ws), "%lld", (long long)window_start);
    const char *msg = apr_pstrcat(p, bucket, "\n", ws, NULL);
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int mdlen = 0;
    if (!EVP_Digest(msg, strlen(msg), md, &mdlen, EVP_sha256(), NULL) || mdlen != 32)
        return NULL;
    char *hex = apr_palloc(p, 2 * 32 + 1);
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", md[i]);
    return hex;
}

uint64_t fs_rl_slot_key(uint64_t key, int window) {
    uint64_t k = key ^ ((uint64_t)(uint32_t)window * 0x9E3779B97F4A7C15ull);
    return k ? k : 1;
}

#define ST_END(st) ((int64_t)((st) >> 32))
#define ST_COUNT(st) ((uint32_t)((st)&0xffffffffu))
#define ST_MAKE(end, n) (((uint64_t)(uint32_t)(end) << 32) | (uint32_t)(n))

/* Adds one hit to a slot that holds our key: in our window, or starting it
 * afresh when the slot still holds an older window. */
static uint32_t count_in(fs_rl_slot *s, int64_t window_end) {
    uint64_t st = atomic_load(&s->state), next;
    do {
        uint32_t n = ST_END(st) == window_end ? ST_COUNT(st) + 1 : 1;
        next = ST_MAKE(window_end, n);
    } while (!atomic_compare_exchange_weak(&s->state, &st, next));
    return ST_COUNT(next);
}

/* Takes over a slot from the key it holds (expected); 1 when the slot now
 * holds our key (also when another process just took it for the same
 * key). The state is left alone: count_in starts afresh when the window
 * it holds is not ours, which is always so for an empty or ended slot. */
static int take(fs_rl_slot *s, uint64_t expected, uint64_t key) {
    if (atomic_compare_exchange_strong(&s->key, &expected, key))
        return 1;
    return expected == key;
}

/* After evicting a live counter that happens to be in our very window:
 * start from zero instead of inheriting its count. If another process of
 * our key counted in between, the compare-and-swap fails and the inherited
 * hits stay: an error towards refusing, only when the table is too small. */
static void forget_evicted(fs_rl_slot *s, int64_t window_end) {
    uint64_t st = atomic_load(&s->state);
    if (ST_END(st) == window_end)
        atomic_compare_exchange_strong(&s->state, &st, ST_MAKE(window_end, 0));
}

uint32_t fs_rl_table_hit(fs_rl_slot *slots, uint32_t nslots, uint64_t key, int window,
                         int64_t window_end, int64_t now, int *evicted) {
    *evicted = 0;
    if (nslots == 0)
        return 1;
    key = fs_rl_slot_key(key, window);
    uint32_t probes = nslots < FS_RL_PROBES ? nslots : FS_RL_PROBES;
    uint32_t start = (uint32_t)(key % nslots);
    for (int pass = 0; pass < 4; pass++) {
        fs_rl_slot *free_slot = NULL, *victim = NULL;
        uint64_t free_key = 0, victim_key = 0;
        int64_t victim_end = 0;
        for (uint32_t i = 0; i < probes; i++) {
            fs_rl_slot *s = &slots[(start + i) % nslots];
            uint64_t k = atomic_load(&s->key);
            if (k == key)
                return count_in(s, window_end);
            int64_t end = ST_END(atomic_load(&s->state));
            if (k == 0 || end <= now) {
                if (!free_slot) {
                    free_slot = s;
                    free_key = k;
                }
            } else if (!victim || end < victim_end) {
                victim = s;
                victim_key = k;
                victim_end = end;
            }
        }
        if (free_slot && take(free_slot, free_key, key))
            return count_in(free_slot, window_end);
        if (!free_slot && victim && take(victim, victim_key, key)) {
            *evicted = 1;
            forget_evicted(victim, window_end);
            return count_in(victim, window_end);
        }
        /* lost a race for the slot: look again */
    }
    return 1; /* heavy contention on a full table: count the hit as a first */
}

const char *fs_rl_client_key(apr_pool_t *p, const char *ip) {
    if (!ip)
        return "-";
    unsigned char a[16];
    if (!strchr(ip, ':') || inet_pton(AF_INET6, ip, a) != 1)
        return ip;
    static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    if (!memcmp(a, mapped, sizeof(mapped)))
        return apr_psprintf(p, "%u.%u.%u.%u", a[12], a[13], a[14], a[15]);
    return apr_psprintf(p, "%x:%x:%x:%x::/64", a[0] << 8 | a[1], a[2] << 8 | a[3], a[4] << 8 | a[5],
                        a[6] << 8 | a[7]);
}

char *fs_rl_address_key(apr_pool_t *p, const unsigned char *pepper, apr_size_t pepper_len,
                        const char *purpose, const char *ip) {
    return fs_secret_hash(p, pepper, pepper_len,
                          apr_pstrcat(p, purpose, "\n", fs_rl_client_key(p, ip), NULL));
}
