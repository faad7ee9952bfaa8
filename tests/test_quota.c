/* fs_quota: month boundaries in UTC, leap years, the quota comparison. */
#include "fs_quota.h"
#include "fs_test.h"

static void next_month(void **state) {
    (void)state;
    assert_int_equal(fs_quota_next_month(0), 2678400); /* 1970-02-01 */
    assert_int_equal(fs_quota_next_month(1798761599),
                     1798761600); /* 2026-12-31T23:59:59 -> 2027-01-01 */
    assert_int_equal(fs_quota_next_month(1798761600), 1801440000); /* 2027-01-01 -> 2027-02-01 */
    assert_int_equal(fs_quota_next_month(1709164800), 1709251200); /* 2024-02-29 -> 2024-03-01 */
    assert_int_equal(fs_quota_next_month(1706745600), 1709251200); /* 2024-02-01 -> 2024-03-01 */
    assert_int_equal(fs_quota_next_month(1795860328),
                     1796083200); /* 2026-11-28T10:05:28 -> 2026-12-01 */
    assert_int_equal(fs_quota_next_month(951782400), 951868800); /* 2000-02-29 -> 2000-03-01 */
}

static void retry_after(void **state) {
    (void)state;
    assert_int_equal(fs_quota_month_retry_after(1798761599), 1);
    assert_int_equal(fs_quota_month_retry_after(1798761600), 31 * 86400);
}

static void allows(void **state) {
    (void)state;
    assert_true(fs_quota_allows(3, 2));
    assert_false(fs_quota_allows(3, 3));
    assert_false(fs_quota_allows(0, 0));
    assert_true(fs_quota_allows(-1, 1000000));
}

int main(void) {
    const struct CMUnitTest tests[] = {FS_TEST(next_month), FS_TEST(retry_after), FS_TEST(allows)};
    apr_initialize();
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    apr_terminate();
    return rc;
}
