/* fs_ratelimit: fixed-window arithmetic and the shared-memory counter table. */
#include "fs_ratelimit.h"

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

uint32_t fs_rl_table_hit(fs_rl_slot *slots, uint32_t nslots, uint64_t key, int window,
                         int64_t window_end, int64_t now, int *evicted) {
    *evicted = 0;
    if (nslots == 0)
        return 1;
    uint32_t probes = nslots < FS_RL_PROBES ? nslots : FS_RL_PROBES;
    uint32_t start = (uint32_t)(key % nslots);
    fs_rl_slot *free_slot = NULL, *victim = NULL;
    for (uint32_t i = 0; i < probes; i++) {
        fs_rl_slot *s = &slots[(start + i) % nslots];
        int live = s->key != 0 && s->window_end > now;
        if (live && s->key == key && s->window == (uint32_t)window) {
            if (s->window_end == window_end) {
                s->count++;
                return s->count;
            }
            /* an older window of this bucket that is somehow still live
             * cannot happen with aligned windows; a newer one means the
             * clock went back: count in it. */
            s->count++;
            return s->count;
        }
        if (!live) {
            if (!free_slot)
                free_slot = s;
        } else if (!victim || s->window_end < victim->window_end) {
            victim = s;
        }
    }
    fs_rl_slot *s = free_slot;
    if (!s) {
        s = victim;
        *evicted = 1;
    }
    s->key = key;
    s->window = (uint32_t)window;
    s->window_end = window_end;
    s->count = 1;
    return 1;
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
