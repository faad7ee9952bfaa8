/* fs_db: how a failed statement is classified, and when running it again
 * on a renewed session is safe. */
#include "fs_store.h"
#include "fs_test.h"

static void classify(void **state) {
    (void)state;
    /* lost sessions: connection exceptions, administrator or crash shutdown */
    assert_int_equal(fs_db_classify("08006", 0), FS_DB_LOST);
    assert_int_equal(fs_db_classify("08003", 1), FS_DB_LOST);
    assert_int_equal(fs_db_classify("57P01", 0), FS_DB_LOST);
    assert_int_equal(fs_db_classify("57P02", 0), FS_DB_LOST);
    assert_int_equal(fs_db_classify("57P03", 0), FS_DB_LOST);
    /* libpq's own messages carry no SQLSTATE: the connection state decides */
    assert_int_equal(fs_db_classify(NULL, 1), FS_DB_LOST);
    assert_int_equal(fs_db_classify(NULL, 0), FS_DB_ERROR);
    /* statements missing after a reset */
    assert_int_equal(fs_db_classify("26000", 0), FS_DB_NO_STATEMENT);
    /* the database cancelled it: statement_timeout, lock_timeout, resources */
    assert_int_equal(fs_db_classify("57014", 0), FS_DB_BUSY);
    assert_int_equal(fs_db_classify("55P03", 0), FS_DB_BUSY);
    assert_int_equal(fs_db_classify("40P01", 0), FS_DB_BUSY); /* deadlock: sent again, it passes */
    assert_int_equal(fs_db_classify("40001", 0), FS_DB_BUSY);
    assert_int_equal(fs_db_classify("53300", 0), FS_DB_BUSY);
    /* a server that takes no writes: a standby, default_transaction_read_only */
    assert_int_equal(fs_db_classify("25006", 0), FS_DB_READ_ONLY);
    assert_int_equal(fs_db_classify("25006", 1), FS_DB_READ_ONLY);
    assert_int_equal(fs_db_classify("25001", 0), FS_DB_ERROR);
    /* real errors stay errors, also on a connection that broke afterwards */
    assert_int_equal(fs_db_classify("23505", 0), FS_DB_ERROR);
    assert_int_equal(fs_db_classify("42P01", 0), FS_DB_ERROR);
    assert_int_equal(fs_db_classify("57P04", 0), FS_DB_ERROR);
    assert_int_equal(fs_db_classify("", 1), FS_DB_LOST);
    assert_int_equal(fs_db_classify("0800", 0), FS_DB_ERROR);
}

static void retry_safety(void **state) {
    (void)state;
    assert_true(fs_db_retry_safe(FS_DB_NO_STATEMENT, 0));
    assert_true(fs_db_retry_safe(FS_DB_LOST, 0));
    /* a result came back: the statement ran, perhaps committed */
    assert_false(fs_db_retry_safe(FS_DB_LOST, 1));
    assert_false(fs_db_retry_safe(FS_DB_BUSY, 0));
    assert_false(fs_db_retry_safe(FS_DB_ERROR, 0));
}

int main(void) {
    const struct CMUnitTest tests[] = {FS_TEST(classify), FS_TEST(retry_safety)};
    apr_initialize();
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    apr_terminate();
    return rc;
}
