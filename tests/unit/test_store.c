/* Tests of the store (libpq wrapper) and migrations against a real private PostgreSQL. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/migrate.h"
#include "store/store.h"
#include "testdb.h"

static int setup(void **state)
{
    struct store *s;
    if (testdb_open(&s) != 0)
        return -1;
    *state = s;
    return 0;
}

static int teardown(void **state)
{
    store_free(*state);
    return 0;
}

static void test_params_and_rows(void **state)
{
    struct store *s = *state;
    const char *params[] = {"41", NULL, "it's; DROP TABLE jobs --"};
    struct store_rows *r;
    assert_int_equal(
        store_query(s, "SELECT $1::int + 1, $2::text IS NULL, $3::text", 3, params, &r), ERR_OK);
    assert_int_equal(store_rows_count(r), 1);
    assert_int_equal(store_rows_columns(r), 3);
    assert_string_equal(store_rows_get(r, 0, 0), "42");
    assert_string_equal(store_rows_get(r, 0, 1), "t");
    assert_string_equal(store_rows_get(r, 0, 2), "it's; DROP TABLE jobs --");
    store_rows_free(r);

    assert_int_equal(store_query(s, "SELECT NULL::text", 0, NULL, &r), ERR_OK);
    assert_null(store_rows_get(r, 0, 0));
    store_rows_free(r);
}

/* A parameter as raw bytes (store_query_bytes): every byte value, NUL and backslash among
 * them, reaches the server as given, beside text parameters; no bytes are an empty bytea,
 * not NULL; an index out of range is refused. */
static void test_bytes_parameter(void **state)
{
    struct store *s = *state;
    unsigned char all[256];
    for (int i = 0; i < 256; i++)
        all[i] = (unsigned char)i;
    const char *params[] = {"x", NULL, "7"};
    struct store_rows *r;
    assert_int_equal(
        store_query_bytes(s,
                          "SELECT $1::text, length($2::bytea), (SELECT bool_and("
                          "get_byte($2::bytea, i) = i) FROM generate_series(0, 255) i),"
                          " $3::int + 1",
                          3, params, 1, all, sizeof all, &r),
        ERR_OK);
    assert_string_equal(store_rows_get(r, 0, 0), "x");
    assert_string_equal(store_rows_get(r, 0, 1), "256");
    assert_string_equal(store_rows_get(r, 0, 2), "t"); /* byte i is i */
    assert_string_equal(store_rows_get(r, 0, 3), "8");
    store_rows_free(r);
    assert_int_equal(store_query_bytes(s, "SELECT length($1::bytea)", 1, params, 0, NULL, 0, &r),
                     ERR_OK);
    assert_string_equal(store_rows_get(r, 0, 0), "0"); /* no bytes, not SQL NULL */
    store_rows_free(r);
    assert_int_equal(store_query_bytes(s, "SELECT $1::text", 1, params, 1, all, 1, &r), ERR_INVAL);
    assert_null(r);
}

static void test_sql_error_is_one_line(void **state)
{
    struct store *s = *state;
    struct store_rows *r;
    assert_int_equal(store_query(s, "SELECT * FROM no_such_table", 0, NULL, &r), ERR_DB);
    assert_null(r);
    assert_non_null(strstr(err_msg(), "no_such_table"));
    assert_null(strchr(err_msg(), '\n'));
    /* The connection is still usable. */
    assert_int_equal(store_exec(s, "SELECT 1", 0, NULL), ERR_OK);
}

/* Kill our own backend from a second connection. */
static void kill_backend_of(struct store *s)
{
    struct store_rows *r;
    assert_int_equal(store_query(s, "SELECT pg_backend_pid()", 0, NULL, &r), ERR_OK);
    const char *pid[] = {store_rows_get(r, 0, 0)};
    struct store *killer;
    assert_int_equal(store_open(testdb_url(), 5000, &killer), ERR_OK);
    assert_int_equal(store_exec(killer, "SELECT pg_terminate_backend($1::int)", 1, pid), ERR_OK);
    store_free(killer);
    store_rows_free(r);
}

static void test_lost_connection_is_reestablished(void **state)
{
    struct store *s = *state;
    int before = store_reconnects(s);
    kill_backend_of(s);
    struct store_rows *r;
    assert_int_equal(store_query(s, "SELECT 7", 0, NULL, &r), ERR_OK);
    assert_string_equal(store_rows_get(r, 0, 0), "7");
    store_rows_free(r);
    assert_int_equal(store_reconnects(s), before + 1);
}

/* store_sync_commit holds on the sessions that replace a lost one. */
static void test_sync_commit_survives_a_reconnect(void **state)
{
    (void)state;
    struct store *s;
    assert_int_equal(store_open(testdb_url(), 5000, &s), ERR_OK);
    assert_int_equal(store_sync_commit(s), ERR_OK);
    for (int round = 0; round < 2; round++) {
        struct store_rows *r;
        assert_int_equal(
            store_query(s, "SELECT current_setting('synchronous_commit')", 0, NULL, &r), ERR_OK);
        assert_string_equal(store_rows_get(r, 0, 0), "on");
        store_rows_free(r);
        kill_backend_of(s);
    }
    assert_int_equal(store_reconnects(s), 1);
    store_free(s);
}

static void test_lost_connection_in_transaction_is_reported(void **state)
{
    struct store *s = *state;
    assert_int_equal(store_begin(s), ERR_OK);
    kill_backend_of(s);
    assert_int_equal(store_exec(s, "SELECT 1", 0, NULL), ERR_DB);
    assert_non_null(strstr(err_msg(), "rolled back"));
    store_rollback(s);
    assert_int_equal(store_exec(s, "SELECT 1", 0, NULL), ERR_OK);
}

static void test_unreachable_database(void **state)
{
    (void)state;
    struct store *s;
    long t0 = (long)time(NULL);
    assert_int_equal(store_open("postgresql:///x?host=/nonexistent-dir", 300, &s), ERR_DB);
    assert_null(s);
    assert_true((long)time(NULL) - t0 < 5);
    assert_non_null(strstr(err_msg(), "cannot connect to the database"));
}

static void test_migrations_are_idempotent(void **state)
{
    struct store *s = *state;
    int applied = -1, version = -1;
    assert_int_equal(migrate_apply(s, &applied), ERR_OK);
    assert_int_equal(migrate_apply(s, &applied), ERR_OK);
    assert_int_equal(applied, 0);
    assert_int_equal(migrate_version(s, &version), ERR_OK);
    assert_int_equal(version, migrations[migrations_count - 1].version);
    struct store_rows *r;
    assert_int_equal(store_query(s, "SELECT count(*) FROM schema_migrations", 0, NULL, &r), ERR_OK);
    assert_int_equal((int)store_rows_i64(r, 0, 0, 0), migrations_count);
    store_rows_free(r);
}

/*
 * Migration numbers are handed out to branches before they merge: a database that has
 * 012 already still gets 009 when it arrives.
 */
static void test_a_migration_below_the_latest_is_applied(void **state)
{
    struct store *s = *state;
    int applied = -1;
    assert_int_equal(migrate_apply(s, &applied), ERR_OK);
    assert_int_equal(store_exec_script(s, "DELETE FROM schema_migrations WHERE version = 9;"
                                          "DROP TABLE job_workers; DROP INDEX sites_claimed;"),
                     ERR_OK);
    assert_int_equal(migrate_apply(s, &applied), ERR_OK);
    assert_int_equal(applied, 1);
    struct store_rows *r;
    assert_int_equal(store_query(s,
                                 "SELECT (SELECT count(*) FROM schema_migrations)::text || ' ' ||"
                                 " (to_regclass('job_workers') IS NOT NULL)::text",
                                 0, NULL, &r),
                     ERR_OK);
    char want[32];
    snprintf(want, sizeof want, "%d true", migrations_count);
    assert_string_equal(store_rows_get(r, 0, 0), want);
    store_rows_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_params_and_rows),
        cmocka_unit_test(test_bytes_parameter),
        cmocka_unit_test(test_sql_error_is_one_line),
        cmocka_unit_test(test_lost_connection_is_reestablished),
        cmocka_unit_test(test_lost_connection_in_transaction_is_reported),
        cmocka_unit_test(test_sync_commit_survives_a_reconnect),
        cmocka_unit_test(test_unreachable_database),
        cmocka_unit_test(test_migrations_are_idempotent),
        cmocka_unit_test(test_a_migration_below_the_latest_is_applied),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
