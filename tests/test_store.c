/* fs_store: the statement table is checked at startup:
 * each statement declares as many arguments as its SQL has markers, labels
 * are unique identifiers, and a table that overflows is an error rather
 * than a silent drop; a typed function that passes the wrong number of
 * arguments fails before anything is sent; and a failure's cause is for
 * the log, never for the client (item 6). */
#include "fs_store.h"
#include "fs_test.h"

#include "../mod_formsvc/store/store_int.h"

static void markers(void **state) {
    (void)state;
    assert_int_equal(fs_stmt_markers("SELECT 1"), 0);
    assert_int_equal(fs_stmt_markers("SELECT %s, %s::jsonb"), 2);
    /* %% is a literal percent sign, not a marker */
    assert_int_equal(fs_stmt_markers("SELECT %s WHERE x LIKE 'a%%'"), 1);
    assert_int_equal(fs_stmt_markers("SELECT '%%%s'"), 1);
    assert_int_equal(fs_stmt_markers("%s%s%s"), 3);
}

/* The module's own table: every statement is sound. */
static void real_table(void **state) {
    apr_pool_t *p = *state;
    const char *why = fs_store_check(p);
    if (why)
        fail_msg("%s", why);
    int n;
    const fs_stmt *st = fs_store_statements(&n);
    assert_true(n > 60);
    assert_true(n <= FS_STORE_MAX_STMTS);
    for (int i = 0; i < n; i++)
        assert_int_equal(st[i].nargs, fs_stmt_markers(st[i].sql));
}

static void mismatch_is_reported(void **state) {
    apr_pool_t *p = *state;
    const fs_stmt ok[] = {{"fs_a", 2, "SELECT %s, %s"}, {"fs_b", 0, "SELECT 1"}};
    assert_null(fs_stmt_list_check(p, ok, 2));
    /* stmts_account.c documented 5 arguments for fs_signup, which takes 6 */
    const fs_stmt drift[] = {
        {"fs_a", 2, "SELECT %s, %s"},
        {"fs_signup", 5, "INSERT INTO u VALUES (%s, %s, lower(%s)), (%s, %s, %s)"}};
    const char *why = fs_stmt_list_check(p, drift, 2);
    assert_non_null(why);
    assert_non_null(strstr(why, "fs_signup"));
    assert_non_null(strstr(why, "declares 5"));
    assert_non_null(strstr(why, "has 6"));
    const fs_stmt twice[] = {{"fs_a", 0, "SELECT 1"}, {"fs_a", 0, "SELECT 2"}};
    assert_non_null(strstr(fs_stmt_list_check(p, twice, 2), "used twice"));
    const fs_stmt badlabel[] = {{"fs-a", 0, "SELECT 1"}};
    assert_non_null(strstr(fs_stmt_list_check(p, badlabel, 1), "identifier"));
}

static void overflow_is_an_error(void **state) {
    (void)state;
    const fs_stmt list[] = {
        {"fs_a", 0, "SELECT 1"}, {"fs_b", 0, "SELECT 2"}, {"fs_c", 0, "SELECT 3"}, {NULL, 0, NULL}};
    fs_stmt table[4];
    int n = 0;
    assert_int_equal(fs_stmt_append(table, 4, &n, list), 0);
    assert_int_equal(n, 3);
    /* the second list does not fit: reported, not silently cut */
    assert_int_equal(fs_stmt_append(table, 4, &n, list), -1);
    assert_int_equal(n, 4);
    assert_string_equal(table[3].label, "fs_a");
}

/* A caller that passes a number of arguments the statement does not take
 * gets a 500 with a cause, before any connection is asked for. */
static fs_error *no_connection(void *baton, fs_db **db) {
    (void)baton;
    (void)db;
    fail_msg("a connection was asked for");
    return NULL;
}

static void wrong_nargs_fails_early(void **state) {
    apr_pool_t *p = *state;
    fs_store *st = fs_store_make(p, no_connection, NULL);
    const char *args[] = {"usr_x"};
    fs_rows *rs;
    fs_error *e = fs_store_run(st, "fs_me", 1, args, 3, &rs);
    assert_non_null(e);
    assert_int_equal(e->status, 500);
    assert_non_null(strstr(e->cause, "fs_me given 1 arguments, takes 2"));
    e = fs_store_run(st, "fs_no_such_statement", 0, NULL, 0, &rs);
    assert_non_null(e);
    assert_non_null(strstr(e->cause, "not in the table"));
}

/* The shared shapes (fs_store_one, _int, _count, _list) check through
 * fs_store_run too, and on failure leave their outputs as documented:
 * NULL, the "none" value, 0 rows, the page untouched. */
static void shapes_on_failure(void **state) {
    apr_pool_t *p = *state;
    fs_store *st = fs_store_make(p, no_connection, NULL);
    const char *args[] = {"usr_x"}; /* fs_me takes 2 */
    const char *one = "stale";
    fs_error *e = fs_store_one(st, "fs_me", 1, args, &one);
    assert_non_null(e);
    assert_non_null(strstr(e->cause, "fs_me given 1 arguments, takes 2"));
    assert_null(one);
    int n = 7;
    assert_non_null(fs_store_int(st, "fs_me", 1, args, -1, &n));
    assert_int_equal(n, -1);
    n = 7;
    assert_non_null(fs_store_count(st, "fs_me", 1, args, 3, &n));
    assert_int_equal(n, 0);
    fs_list_page page = {5, NULL, 1};
    assert_non_null(fs_store_list(st, "fs_me", 1, args, 20, &page));
    assert_int_equal(page.n, 5);
    assert_int_equal(page.more, 1);
}

static void cause_is_not_rendered(void **state) {
    apr_pool_t *p = *state;
    fs_error *e = fs_error_internal(p, "statement %s failed (%s): %s", "fs_signup", "23505",
                                    "duplicate key value violates unique constraint");
    assert_int_equal(e->status, 500);
    assert_string_equal(e->slug, "internal");
    assert_string_equal(e->cause,
                        "statement fs_signup failed (23505): duplicate key value violates "
                        "unique constraint");
    char *doc = fs_problem_render(p, e, "https://x.example", "/v1/signup");
    assert_null(strstr(doc, "fs_signup"));
    assert_null(strstr(doc, "23505"));
    assert_non_null(strstr(doc, "\"status\":500"));
}

/* Which statements hold their commit back (fs_db.c): those that write. */
static void writes_are_known(void **state) {
    (void)state;
    const fs_stmt ins = {"a", 0, "WITH i AS (INSERT INTO t VALUES (1) RETURNING 1) SELECT 1"};
    const fs_stmt upd = {"b", 0, "UPDATE t SET x = 1"};
    const fs_stmt del = {"c", 0, "DELETE FROM t"};
    const fs_stmt sel = {"d", 0, "SELECT x FROM t WHERE y = 'UPDATED'"};
    const fs_stmt fn = {"fs_audit_insert", 0, "SELECT fs_audit()"};
    assert_true(fs_stmt_writes(&ins));
    assert_true(fs_stmt_writes(&upd));
    assert_true(fs_stmt_writes(&del));
    assert_false(fs_stmt_writes(&sel));
    assert_true(fs_stmt_writes(&fn));
    int n, found = 0;
    const fs_stmt *all = fs_store_statements(&n);
    for (int i = 0; i < n; i++) {
        /* these write only through the function of sql/ they call */
        if (!strcmp(all[i].label, "fs_public_submit") ||
            !strcmp(all[i].label, "fs_public_submit_batch") ||
            !strcmp(all[i].label, "fs_form_create") || !strcmp(all[i].label, "fs_form_save") ||
            !strcmp(all[i].label, "fs_link_create") || !strcmp(all[i].label, "fs_mail_claim")) {
            assert_true(fs_stmt_writes(&all[i]));
            found++;
        }
        if (!strcmp(all[i].label, "fs_form_get"))
            assert_false(fs_stmt_writes(&all[i]));
    }
    assert_int_equal(found, 6);
}

static void request_timeout_problem(void **state) {
    (void)state;
    const fs_problem_type *t = fs_problem_for_status(408);
    assert_string_equal(t->slug, "request-timeout");
    assert_int_equal(t->status, 408);
}

int main(void) {
    const struct CMUnitTest tests[] = {FS_TEST(markers),
                                       FS_TEST(real_table),
                                       FS_TEST(mismatch_is_reported),
                                       FS_TEST(overflow_is_an_error),
                                       FS_TEST(wrong_nargs_fails_early),
                                       FS_TEST(shapes_on_failure),
                                       FS_TEST(cause_is_not_rendered),
                                       FS_TEST(request_timeout_problem),
                                       FS_TEST(writes_are_known)};
    apr_initialize();
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    apr_terminate();
    return rc;
}
