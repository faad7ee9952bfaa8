/* fs_migrations: the one wording of a schema behind the module, and the
 * probe's answer when the database cannot be reached (the reached cases
 * run against a real PostgreSQL in t/17_schema.t). */
#include "fs_migrations.h"
#include "fs_test.h"

static void message(void **state) {
    apr_pool_t *p = *state;
    assert_string_equal(fs_schema_behind_message(p, 20, 21),
                        "schema 20, module needs 21: run formsvc-admin migrate");
    assert_string_equal(fs_schema_behind_message(p, 0, 21),
                        "schema 0, module needs 21: run formsvc-admin migrate");
}

static void unreachable(void **state) {
    apr_pool_t *p = *state;
    int version = 42;
    const char *err = NULL;
    /* a socket directory that does not exist: refused at once */
    assert_int_equal(
        fs_schema_probe(p, "host=/nonexistent/formsvc dbname=x user=x", &version, &err), 0);
    assert_int_equal(version, 0);
    assert_non_null(err);
    assert_non_null(strstr(err, "/nonexistent/formsvc"));
    assert_null(strchr(err, '\n')); /* one line for the error log */
    /* a connection string libpq cannot parse */
    err = NULL;
    assert_int_equal(fs_schema_probe(p, "host='unterminated", &version, &err), 0);
    assert_non_null(err);
}

int main(void) {
    const struct CMUnitTest tests[] = {FS_TEST(message), FS_TEST(unreachable)};
    apr_initialize();
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    apr_terminate();
    return rc;
}
