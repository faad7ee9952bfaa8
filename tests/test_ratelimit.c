/* fs_ratelimit: window arithmetic, decisions and the shared counter table. */
#include "fs_ratelimit.h"
#include "fs_test.h"

static void window_alignment(void **state) {
    (void)state;
    assert_int_equal(fs_rl_window_start(3600, 3600), 3600);
    assert_int_equal(fs_rl_window_start(7199, 3600), 3600);
    assert_int_equal(fs_rl_window_start(7200, 3600), 7200);
    assert_int_equal(fs_rl_window_start(61, 60), 60);
    assert_int_equal(fs_rl_window_start(59, 60), 0);
    assert_int_equal(fs_rl_window_start(-1, 60), -60);
    assert_int_equal(fs_rl_window_start(12345, 0), 12345); /* clamped to 1 s */
}

static void decide_counts_up_to_limit(void **state) {
    (void)state;
    fs_rl_result r;
    int64_t now = 1000000040; /* 20 s into a minute window */
    for (int i = 1; i <= 10; i++) {
        fs_rl_decide(10, 60, now, i, &r);
        assert_true(r.allowed);
        assert_int_equal(r.remaining, 10 - i);
        assert_int_equal(r.limit, 10);
        assert_int_equal(r.reset, 40);
        assert_int_equal(r.retry_after, 0);
    }
    fs_rl_decide(10, 60, now, 11, &r);
    assert_false(r.allowed);
    assert_int_equal(r.remaining, 0);
    assert_int_equal(r.retry_after, 40);
    fs_rl_decide(10, 60, now, 1000000, &r);
    assert_false(r.allowed);
    assert_int_equal(r.remaining, 0);
}

static void decide_reset_never_zero(void **state) {
    (void)state;
    fs_rl_result r;
    fs_rl_decide(1, 60, 120, 2, &r); /* first second of a window */
    assert_int_equal(r.reset, 60);
    fs_rl_decide(1, 60, 179, 2, &r); /* last second */
    assert_int_equal(r.reset, 1);
    assert_int_equal(r.retry_after, 1);
    fs_rl_decide(0, 60, 179, 1, &r); /* limit 0 refuses everything */
    assert_false(r.allowed);
}

static void hashes(void **state) {
    apr_pool_t *p = *state;
    assert_int_not_equal(fs_rl_hash("a"), fs_rl_hash("b"));
    assert_int_equal(fs_rl_hash("signup:1.2.3.4"), fs_rl_hash("signup:1.2.3.4"));
    assert_int_not_equal(fs_rl_hash(""), 0);
    char *k1 = fs_rl_store_key(p, "signup:1.2.3.4", 3600);
    char *k2 = fs_rl_store_key(p, "signup:1.2.3.4", 7200);
    char *k3 = fs_rl_store_key(p, "signup:1.2.3.4", 3600);
    assert_int_equal(strlen(k1), 64);
    assert_string_not_equal(k1, k2);
    assert_string_equal(k1, k3);
    assert_null(strstr(k1, "1.2.3.4"));
}

static void table_counts_per_key_and_window(void **state) {
    (void)state;
    fs_rl_slot slots[64];
    memset(slots, 0, sizeof(slots));
    int ev;
    uint64_t a = fs_rl_hash("a"), b = fs_rl_hash("b");
    for (uint32_t i = 1; i <= 5; i++)
        assert_int_equal(fs_rl_table_hit(slots, 64, a, 60, 120, 70, &ev), i);
    assert_int_equal(fs_rl_table_hit(slots, 64, b, 60, 120, 70, &ev), 1);
    assert_int_equal(ev, 0);
    /* same bucket, other window length: a separate counter */
    assert_int_equal(fs_rl_table_hit(slots, 64, a, 3600, 3600, 70, &ev), 1);
    /* the next window starts from one again */
    assert_int_equal(fs_rl_table_hit(slots, 64, a, 60, 180, 130, &ev), 1);
    assert_int_equal(fs_rl_table_hit(slots, 64, a, 60, 180, 131, &ev), 2);
    assert_int_equal(ev, 0);
}

static void table_collisions_probe(void **state) {
    (void)state;
    fs_rl_slot slots[8];
    memset(slots, 0, sizeof(slots));
    int ev;
    /* keys that all start at slot 0 */
    for (uint64_t k = 8; k <= 64; k += 8)
        assert_int_equal(fs_rl_table_hit(slots, 8, k, 60, 120, 70, &ev), 1);
    assert_int_equal(ev, 0);
    for (uint64_t k = 8; k <= 64; k += 8)
        assert_int_equal(fs_rl_table_hit(slots, 8, k, 60, 120, 70, &ev), 2);
    /* full of live windows: a new key evicts the one ending soonest */
    atomic_store(&slots[3].state, ((uint64_t)90 << 32) | 2);
    assert_int_equal(fs_rl_table_hit(slots, 8, 72, 60, 120, 70, &ev), 1);
    assert_int_equal(ev, 1);
    assert_int_equal(atomic_load(&slots[3].key), fs_rl_slot_key(72, 60));
    /* ended windows are reused without eviction */
    assert_int_equal(fs_rl_table_hit(slots, 8, 80, 60, 180, 125, &ev), 1);
    assert_int_equal(ev, 0);
}

static void table_empty(void **state) {
    (void)state;
    int ev;
    assert_int_equal(fs_rl_table_hit(NULL, 0, 5, 60, 120, 70, &ev), 1);
}

/* Many threads counting in one table at once lose no hit: the table takes
 * no lock, only compare-and-swap. */
#include <apr_thread_proc.h>
static fs_rl_slot shared_slots[16];
static void *APR_THREAD_FUNC hammer(apr_thread_t *t, void *arg) {
    uint64_t key = (uint64_t)(uintptr_t)arg;
    int ev;
    for (int i = 0; i < 20000; i++)
        fs_rl_table_hit(shared_slots, 16, key, 60, 120, 70, &ev);
    apr_thread_exit(t, APR_SUCCESS);
    return NULL;
}

static void table_concurrent(void **state) {
    apr_pool_t *p = *state;
    memset(shared_slots, 0, sizeof(shared_slots));
    apr_thread_t *th[8];
    for (int i = 0; i < 8; i++) /* two keys, four threads each */
        assert_int_equal(
            apr_thread_create(&th[i], NULL, hammer, (void *)(uintptr_t)(i % 2 ? 1111 : 2222), p),
            APR_SUCCESS);
    for (int i = 0; i < 8; i++) {
        apr_status_t rv;
        apr_thread_join(&rv, th[i]);
    }
    int ev;
    assert_int_equal(fs_rl_table_hit(shared_slots, 16, 1111, 60, 120, 70, &ev), 80001);
    assert_int_equal(fs_rl_table_hit(shared_slots, 16, 2222, 60, 120, 70, &ev), 80001);
}

static void client_keys(void **state) {
    apr_pool_t *p = *state;
    assert_string_equal(fs_rl_client_key(p, "203.0.113.7"), "203.0.113.7");
    assert_string_equal(fs_rl_client_key(p, "2001:db8:1:2:aaaa::1"), "2001:db8:1:2::/64");
    assert_string_equal(fs_rl_client_key(p, "2001:db8:1:2:ffff:ffff:ffff:ffff"),
                        "2001:db8:1:2::/64");
    assert_string_equal(fs_rl_client_key(p, "2001:DB8:0001:0002::"), "2001:db8:1:2::/64");
    assert_string_not_equal(fs_rl_client_key(p, "2001:db8:1:3::1"), "2001:db8:1:2::/64");
    assert_string_equal(fs_rl_client_key(p, "::ffff:198.51.100.4"), "198.51.100.4");
    assert_string_equal(fs_rl_client_key(p, "::1"), "0:0:0:0::/64");
    assert_string_equal(fs_rl_client_key(p, "not:an:address:::"), "not:an:address:::");
    assert_string_equal(fs_rl_client_key(p, NULL), "-");
}

/* The token endpoint's failure counter key: an IPv6 client by its /64,
 * IPv4 as it is, no raw address in the key, distinct per purpose and pepper. */
static void address_keys(void **state) {
    apr_pool_t *p = *state;
    const unsigned char pep[] = "0123456789abcdef0123456789abcdef";
    const char *a = fs_rl_address_key(p, pep, 32, "token", "2001:db8:1:2::1");
    assert_non_null(a);
    assert_int_equal(strlen(a), 64);
    for (const char *c = a; *c; c++)
        assert_true((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'f'));
    assert_string_equal(a, fs_rl_address_key(p, pep, 32, "token", "2001:db8:1:2:ffff:1:2:3"));
    assert_string_equal(a, fs_rl_address_key(p, pep, 32, "token", "2001:DB8:1:2:abcd::"));
    assert_string_not_equal(a, fs_rl_address_key(p, pep, 32, "token", "2001:db8:1:3::1"));
    assert_string_not_equal(a, fs_rl_address_key(p, pep, 32, "other", "2001:db8:1:2::1"));
    assert_string_not_equal(a, fs_rl_address_key(p, pep, 31, "token", "2001:db8:1:2::1"));
    const char *v4 = fs_rl_address_key(p, pep, 32, "token", "198.51.100.4");
    assert_string_equal(v4, fs_rl_address_key(p, pep, 32, "token", "::ffff:198.51.100.4"));
    assert_string_not_equal(v4, fs_rl_address_key(p, pep, 32, "token", "198.51.100.5"));
    assert_int_equal(strlen(fs_rl_address_key(p, NULL, 0, "token", "198.51.100.4")), 64);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        FS_TEST(window_alignment),
        FS_TEST(decide_counts_up_to_limit),
        FS_TEST(decide_reset_never_zero),
        FS_TEST(hashes),
        FS_TEST(address_keys),
        FS_TEST(table_counts_per_key_and_window),
        FS_TEST(table_collisions_probe),
        FS_TEST(table_empty),
        FS_TEST(table_concurrent),
        FS_TEST(client_keys),
    };
    apr_initialize();
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    apr_terminate();
    return rc;
}
