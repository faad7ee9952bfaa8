/* Common includes for the cmocka tests of the core. */
#ifndef FS_TEST_H
#define FS_TEST_H
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdint.h>

#include <apr_general.h>
#include <apr_pools.h>
#include <apr_thread_proc.h>
#include <string.h>
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

/* One pool per test, made and destroyed by these fixtures. */
static inline int fs_test_setup(void **state) {
    apr_pool_t *p;
    apr_pool_create(&p, NULL);
    *state = p;
    return 0;
}
static inline int fs_test_teardown(void **state) {
    apr_pool_destroy(*state);
    return 0;
}
/* Iterations for a test of threads: n, or a tenth of it under valgrind
 * (which runs one thread at a time, slowly). */
static inline int fs_test_iterations(int n) {
    return RUNNING_ON_VALGRIND ? (n + 9) / 10 : n;
}

typedef struct fs_test_start {
    void *(*fn)(void *);
    void *arg;
} fs_test_start;

static inline void *APR_THREAD_FUNC fs_test_thread_main(apr_thread_t *t, void *data) {
    (void)t;
    fs_test_start *st = data;
    return st->fn(st->arg);
}

/* Runs fn(args[i]) on n (at most 64) threads at once, made with
 * apr_thread_create in p, and waits for them all. */
static inline void fs_test_threads(apr_pool_t *p, int n, void *(*fn)(void *), void **args) {
    apr_thread_t *t[64];
    fs_test_start st[64];
    assert_true(n <= 64);
    for (int i = 0; i < n; i++) {
        st[i] = (fs_test_start){fn, args[i]};
        assert_int_equal(apr_thread_create(&t[i], NULL, fs_test_thread_main, &st[i], p),
                         APR_SUCCESS);
    }
    for (int i = 0; i < n; i++) {
        apr_status_t rv;
        apr_thread_join(&rv, t[i]);
    }
}

#define FS_TEST(fn) cmocka_unit_test_setup_teardown(fn, fs_test_setup, fs_test_teardown)
#define FS_TEST_MAIN(tests)                                                                        \
    int main(void) {                                                                               \
        apr_initialize();                                                                          \
        int rc = cmocka_run_group_tests(tests, NULL, NULL);                                        \
        apr_terminate();                                                                           \
        return rc;                                                                                 \
    }
#endif
