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
        FS_TEST(put_get_replace),         FS_TEST(expiry),  FS_TEST(stamps),
        FS_TEST(least_recent_goes_first), FS_TEST(too_big), FS_TEST(marks),
        FS_TEST(many_keys_and_clear),     FS_TEST(threads), FS_TEST(generations),
    };
    apr_initialize();
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    apr_terminate();
    return rc;
}
