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
#include <string.h>

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
#define FS_TEST(fn) cmocka_unit_test_setup_teardown(fn, fs_test_setup, fs_test_teardown)
#define FS_TEST_MAIN(tests)                                                                        \
    int main(void) {                                                                               \
        apr_initialize();                                                                          \
        int rc = cmocka_run_group_tests(tests, NULL, NULL);                                        \
        apr_terminate();                                                                           \
        return rc;                                                                                 \
    }
#endif
