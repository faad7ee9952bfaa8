/* fs_lru: the cache (hits, replacement, expiry, stamps, recency, the byte
 * budget, marks, clear, threads) and the generation table. Run under
 * valgrind by `make unit-valgrind`: every entry dropped must be freed. */
#include "fs_lru.h"
#include "fs_test.h"

#include <pthread.h>
#include <stdio.h>

static const fs_lru_stamp S0 = {0, 0};

static int get_str(fs_lru *c, apr_pool_t *p, const char *key, apr_time_t now, fs_lru_stamp st,
                   const char **out) {
    void *v;
    size_t n;
    int hit = fs_lru_get(c, key, now, st, p, &v, &n, NULL);
    *out = hit ? v : NULL;
    if (hit)
        assert_int_equal(strlen(v), n); /* NUL after the value */
    return hit;
}

static void put_get_replace(void **state) {
    apr_pool_t *p = *state;
    fs_lru *c = fs_lru_create(1 << 20, 4);
    assert_non_null(c);
    const char *v;
    assert_false(get_str(c, p, "a", 0, S0, &v));
    assert_int_equal(fs_lru_put(c, "a", "one", 3, 100, S0, 0), 0);
    assert_true(get_str(c, p, "a", 0, S0, &v));
    assert_string_equal(v, "one");
    assert_int_equal(fs_lru_put(c, "a", "two!", 4, 100, S0, 0), 0);
    assert_true(get_str(c, p, "a", 0, S0, &v));
    assert_string_equal(v, "two!");
    fs_lru_stats st;
    fs_lru_stats_get(c, &st);
    assert_int_equal(st.entries, 1);
    assert_int_equal(st.hits, 2);
    assert_int_equal(st.misses, 1);
    /* empty values and binary values */
    assert_int_equal(fs_lru_put(c, "empty", "", 0, 100, S0, 0), 0);
    assert_true(get_str(c, p, "empty", 0, S0, &v));
    assert_string_equal(v, "");
    const char bin[4] = {1, 0, 2, 0};
    assert_int_equal(fs_lru_put(c, "bin", bin, 4, 100, S0, 0), 0);
    void *b;
    size_t n;
    assert_true(fs_lru_get(c, "bin", 0, S0, p, &b, &n, NULL));
    assert_int_equal(n, 4);
    assert_memory_equal(b, bin, 4);
    assert_true(fs_lru_remove(c, "bin"));
    assert_false(fs_lru_remove(c, "bin"));
    fs_lru_destroy(c);
    fs_lru_destroy(NULL);
    assert_null(fs_lru_create(0, 4));
}

static void expiry(void **state) {
    apr_pool_t *p = *state;
    fs_lru *c = fs_lru_create(1 << 20, 1);
    const char *v;
    fs_lru_put(c, "k", "v", 1, 1000, S0, 0);
    assert_true(get_str(c, p, "k", 999, S0, &v));
    assert_false(get_str(c, p, "k", 1000, S0, &v)); /* expires is exclusive */
    fs_lru_stats st;
    fs_lru_stats_get(c, &st);
    assert_int_equal(st.expired, 1);
    assert_int_equal(st.entries, 0); /* dropped, not kept */
    assert_false(get_str(c, p, "k", 0, S0, &v));
    fs_lru_destroy(c);
}

static void stamps(void **state) {
    apr_pool_t *p = *state;
    fs_lru *c = fs_lru_create(1 << 20, 2);
    const char *v;
    fs_lru_stamp s1 = {1, 7}, s2 = {1, 8}, s3 = {2, 7};
    fs_lru_put(c, "k", "v", 1, 1000, s1, 0);
    assert_true(get_str(c, p, "k", 0, s1, &v));
    assert_false(get_str(c, p, "k", 0, s2, &v)); /* b differs */
    assert_false(get_str(c, p, "k", 0, s1, &v)); /* and the entry is gone */
    fs_lru_put(c, "k", "v", 1, 1000, s1, 0);
    assert_false(get_str(c, p, "k", 0, s3, &v)); /* a differs */
    fs_lru_stats st;
    fs_lru_stats_get(c, &st);
    assert_int_equal(st.stale, 2);
    assert_int_equal(st.entries, 0);
    fs_lru_destroy(c);
}

static void least_recent_goes_first(void **state) {
    apr_pool_t *p = *state;
    /* one shard with room for exactly three entries of this size */
    size_t one = fs_lru_entry_overhead() + 2 + 10;
    fs_lru *c = fs_lru_create(3 * one, 1);
    char val[11] = "0123456789";
    const char *v;
    assert_int_equal(fs_lru_put(c, "a", val, 10, 1000, S0, 0), 0);
    assert_int_equal(fs_lru_put(c, "b", val, 10, 1000, S0, 0), 0);
    assert_int_equal(fs_lru_put(c, "c", val, 10, 1000, S0, 0), 0);
    assert_true(get_str(c, p, "a", 0, S0, &v)); /* a is now the most recent */
    assert_int_equal(fs_lru_put(c, "d", val, 10, 1000, S0, 0), 0);
    assert_false(get_str(c, p, "b", 0, S0, &v)); /* b was the least recent */
    assert_true(get_str(c, p, "a", 0, S0, &v));
    assert_true(get_str(c, p, "c", 0, S0, &v));
    assert_true(get_str(c, p, "d", 0, S0, &v));
    fs_lru_stats st;
    fs_lru_stats_get(c, &st);
    assert_int_equal(st.evicted, 1);
    assert_int_equal(st.entries, 3);
    assert_true(st.bytes <= 3 * one);
    /* a bigger entry pushes out as many as it needs */
    assert_int_equal(fs_lru_put(c, "e", "01234567890123456789012", 23, 1000, S0, 0), 0);
    fs_lru_stats_get(c, &st);
    assert_true(st.bytes <= 3 * one);
    assert_int_equal(st.entries, 2);
    fs_lru_destroy(c);
}

static void too_big(void **state) {
    apr_pool_t *p = *state;
    fs_lru *c = fs_lru_create(200, 1);
    const char *v;
    char big[300];
    memset(big, 'x', sizeof(big));
    assert_int_equal(fs_lru_put(c, "k", "small", 5, 1000, S0, 0), 0);
    /* a value that cannot fit is refused, and the key's old value goes too:
     * a newer answer existed, the old one must not be served */
    assert_int_equal(fs_lru_put(c, "k", big, sizeof(big), 1000, S0, 0), -1);
    assert_false(get_str(c, p, "k", 0, S0, &v));
    fs_lru_destroy(c);
}

static void marks(void **state) {
    apr_pool_t *p = *state;
    fs_lru *c = fs_lru_create(1 << 20, 4);
    void *v;
    size_t n;
    apr_time_t m = -1;
    fs_lru_put(c, "k", "v", 1, 1000, S0, 5);
    assert_true(fs_lru_get(c, "k", 0, S0, p, &v, &n, &m));
    assert_int_equal(m, 5);
    assert_true(fs_lru_remark(c, "k", 5, 60));  /* the first to see 5 wins */
    assert_false(fs_lru_remark(c, "k", 5, 61)); /* a second one does not */
    assert_true(fs_lru_get(c, "k", 0, S0, p, &v, &n, &m));
    assert_int_equal(m, 60);
    assert_false(fs_lru_remark(c, "missing", 0, 1));
    fs_lru_destroy(c);
}

static void many_keys_and_clear(void **state) {
    apr_pool_t *p = *state;
    fs_lru *c = fs_lru_create(1 << 22, 16);
    char key[32], val[32];
    for (int i = 0; i < 5000; i++) {
        snprintf(key, sizeof key, "key-%d", i);
        snprintf(val, sizeof val, "value-%d", i);
        assert_int_equal(fs_lru_put(c, key, val, strlen(val), 1000, S0, 0), 0);
    }
    const char *v;
    for (int i = 0; i < 5000; i += 7) {
        snprintf(key, sizeof key, "key-%d", i);
        snprintf(val, sizeof val, "value-%d", i);
        assert_true(get_str(c, p, key, 0, S0, &v));
        assert_string_equal(v, val);
    }
    fs_lru_stats st;
    fs_lru_stats_get(c, &st);
    assert_int_equal(st.entries, 5000);
    fs_lru_clear(c);
    fs_lru_stats_get(c, &st);
    assert_int_equal(st.entries, 0);
    assert_int_equal(st.bytes, 0);
    assert_false(get_str(c, p, "key-0", 0, S0, &v));
    fs_lru_destroy(c);
}

/* Threads put, get and remove overlapping keys in a cache too small for
 * them all: values read back are always whole and belong to their key,
 * and the budget holds. */
typedef struct {
    fs_lru *c;
    int id;
    int bad;
} worker_arg;

static void *worker(void *data) {
    worker_arg *a = data;
    apr_pool_t *p;
    apr_pool_create_unmanaged_ex(&p, NULL, NULL);
    char key[32], val[64];
    for (int i = 0; i < 20000; i++) {
        int k = (i * 7 + a->id * 13) % 300;
        snprintf(key, sizeof key, "k%d", k);
        snprintf(val, sizeof val, "v%d-%0*d", k, 10 + k % 30, k);
        fs_lru_stamp st = {(uint64_t)(k % 3), 0};
        switch (i % 5) {
        case 0:
        case 1: fs_lru_put(a->c, key, val, strlen(val), 1000, st, 0); break;
        case 4:
            if (i % 50 == 4)
                fs_lru_remove(a->c, key);
            break;
        default: {
            void *v;
            size_t n;
            if (fs_lru_get(a->c, key, 0, st, p, &v, &n, NULL) && strcmp(v, val))
                a->bad++;
        }
        }
        if (i % 1000 == 0)
            apr_pool_clear(p);
    }
    apr_pool_destroy(p);
    return NULL;
}

static void threads(void **state) {
    (void)state;
    size_t budget = 8192;
    fs_lru *c = fs_lru_create(budget, 8);
    pthread_t t[8];
    worker_arg a[8];
    for (int i = 0; i < 8; i++) {
        a[i] = (worker_arg){c, i, 0};
        pthread_create(&t[i], NULL, worker, &a[i]);
    }
    for (int i = 0; i < 8; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(a[i].bad, 0);
    }
    fs_lru_stats st;
    fs_lru_stats_get(c, &st);
    assert_true(st.bytes <= budget);
    assert_true(st.evicted > 0);
    assert_true(st.hits > 0);
    fs_lru_destroy(c);
}

/* Threads using a cache as runtime/cache.c does: each reads the stamp
 * (generation counters of the entry's dependency and of the machine)
 * before it "fetches", puts the value under it with a mark due soon,
 * reads with the current stamp, refreshes when the mark is due (the one
 * thread whose fs_lru_remark wins), and invalidates by bumping a
 * dependency's counter or removing a key. A hit must always be a value
 * made for that key under exactly the stamp asked with. */
#define GEN_SLOTS 8
typedef struct cache_user {
    fs_lru *c;
    fs_gen *gens; /* GEN_SLOTS for dependencies, then the machine's */
    int id, iterations;
    atomic_int *bad, *hits, *refreshes;
} cache_user;

static void *use_cache(void *data) {
    cache_user *u = data;
    apr_pool_t *p;
    apr_pool_create_unmanaged_ex(&p, NULL, NULL);
    char key[32], dep[32], val[96], want[96];
    for (int i = 0; i < u->iterations; i++) {
        int k = (i * 11 + u->id * 17) % 64;
        snprintf(key, sizeof key, "f|frm_%d", k);
        snprintf(dep, sizeof dep, "r:frm_%d", k % 16);
        uint32_t slot = fs_gen_slot(dep, GEN_SLOTS);
        fs_lru_stamp st = {fs_gen_read(u->gens, GEN_SLOTS), fs_gen_read(u->gens, slot)};
        apr_time_t now = apr_time_now();
        snprintf(want, sizeof want, "%s|%llu|%llu|%0*d", key, (unsigned long long)st.a,
                 (unsigned long long)st.b, 8 + k % 24, k);
        switch (i % 8) {
        case 4:
        case 5: /* fetched under st: stored, due again half-way */
            fs_lru_put(u->c, key, want, strlen(want), now + apr_time_from_sec(60), st,
                       now + 200 /* microseconds */);
            break;
        case 6:
            if (i % 64 == 6)
                fs_gen_bump(u->gens, slot); /* the form changed */
            else if (i % 1024 == 14)
                fs_gen_bump(u->gens, GEN_SLOTS); /* the whole machine's caches */
            break;
        case 7:
            if (i % 32 == 7)
                fs_lru_remove(u->c, key);
            break;
        default: {
            void *v;
            size_t n;
            apr_time_t due;
            if (!fs_lru_get(u->c, key, now, st, p, &v, &n, &due))
                break;
            atomic_fetch_add(u->hits, 1);
            memcpy(val, v, n < sizeof val - 1 ? n : sizeof val - 1);
            val[n < sizeof val - 1 ? n : sizeof val - 1] = '\0';
            if (n != strlen(want) || strcmp(val, want))
                atomic_fetch_add(u->bad, 1);
            if (now >= due && fs_lru_remark(u->c, key, due, APR_INT64_MAX)) {
                /* this thread refreshes: fetched again under st */
                atomic_fetch_add(u->refreshes, 1);
                fs_lru_put(u->c, key, want, strlen(want), now + apr_time_from_sec(60), st,
                           now + 200 /* microseconds */);
            }
        }
        }
        if (i % 256 == 0)
            apr_pool_clear(p);
    }
    apr_pool_destroy(p);
    return NULL;
}

static void threads_as_the_caches_use_it(void **state) {
    fs_gen gens[GEN_SLOTS + 1];
    for (int i = 0; i <= GEN_SLOTS; i++)
        atomic_init(&gens[i], 0);
    size_t budget = 16384;
    fs_lru *c = fs_lru_create(budget, 8);
    atomic_int bad = 0, hits = 0, refreshes = 0;
    cache_user u[16];
    void *args[16];
    for (int i = 0; i < 16; i++) {
        u[i] = (cache_user){c, gens, i, fs_test_iterations(20000), &bad, &hits, &refreshes};
        args[i] = &u[i];
    }
    fs_test_threads(*state, 16, use_cache, args);
    assert_int_equal(atomic_load(&bad), 0);
    assert_true(atomic_load(&hits) > 0);
    fs_lru_stats st;
    fs_lru_stats_get(c, &st);
    assert_true(st.bytes <= budget);
    /* the shards' counters, kept under their locks, lost no update */
    assert_int_equal(st.hits, (uint64_t)atomic_load(&hits));
    fs_lru_destroy(c);
}

/* Threads that all find the same entry due: exactly one of them moves its
 * mark on (and refreshes), round after round. */
typedef struct racer {
    fs_lru *c;
    pthread_barrier_t *start, *end;
    int rounds;
    atomic_int *winners;
} racer;

static void *race_remark(void *data) {
    racer *r = data;
    for (int i = 0; i < r->rounds; i++) {
        pthread_barrier_wait(r->start);
        if (fs_lru_remark(r->c, "hot", i, APR_INT64_MAX))
            atomic_fetch_add(r->winners, 1);
        pthread_barrier_wait(r->end);
    }
    return NULL;
}

static void one_refresher_per_due_mark(void **state) {
    fs_lru *c = fs_lru_create(1 << 16, 4);
    pthread_barrier_t start, end;
    pthread_barrier_init(&start, NULL, 17);
    pthread_barrier_init(&end, NULL, 17);
    atomic_int winners = 0;
    int rounds = fs_test_iterations(300), wrong = 0;
    racer r = {c, &start, &end, rounds, &winners};
    apr_thread_t *t[16];
    fs_test_start ts = {race_remark, &r};
    for (int i = 0; i < 16; i++)
        assert_int_equal(apr_thread_create(&t[i], NULL, fs_test_thread_main, &ts, *state),
                         APR_SUCCESS);
    for (int i = 0; i < rounds; i++) {
        assert_int_equal(fs_lru_put(c, "hot", "v", 1, APR_INT64_MAX, S0, i), 0);
        pthread_barrier_wait(&start);
        pthread_barrier_wait(&end);
        if (atomic_exchange(&winners, 0) != 1)
            wrong++;
    }
    for (int i = 0; i < 16; i++) {
        apr_status_t rv;
        apr_thread_join(&rv, t[i]);
    }
    assert_int_equal(wrong, 0);
    pthread_barrier_destroy(&start);
    pthread_barrier_destroy(&end);
    fs_lru_destroy(c);
}

static void generations(void **state) {
    (void)state;
    fs_gen tab[64];
    for (int i = 0; i < 64; i++)
        atomic_init(&tab[i], 0);
    uint32_t s = fs_gen_slot("r:frm_1", 64);
    assert_true(s < 64);
    assert_int_equal(s, fs_gen_slot("r:frm_1", 64)); /* stable */
    uint64_t before = fs_gen_read(tab, s);
    fs_gen_bump(tab, s);
    assert_int_equal(fs_gen_read(tab, s), before + 1);
    /* keys spread over the slots */
    int used[64] = {0}, n = 0;
    char key[32];
    for (int i = 0; i < 256; i++) {
        snprintf(key, sizeof key, "k:%d", i);
        uint32_t sl = fs_gen_slot(key, 64);
        if (!used[sl]++)
            n++;
    }
    assert_true(n > 48);
    assert_int_equal(fs_gen_slot("x", 0), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        FS_TEST(put_get_replace),
        FS_TEST(expiry),
        FS_TEST(stamps),
        FS_TEST(least_recent_goes_first),
        FS_TEST(too_big),
        FS_TEST(marks),
        FS_TEST(many_keys_and_clear),
        FS_TEST(threads),
        FS_TEST(generations),
        FS_TEST(threads_as_the_caches_use_it),
        FS_TEST(one_refresher_per_due_mark),
    };
    apr_initialize();
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    apr_terminate();
    return rc;
}
