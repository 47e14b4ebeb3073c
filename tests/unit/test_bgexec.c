/* Statements run beside the caller (store/bgexec): one at a time, done by the wait. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>

#include "store/bgexec.h"
#include "store/store.h"
#include "testdb.h"

static int setup(void **state)
{
    struct store *s;
    if (testdb_open(&s) != 0)
        return -1;
    if (store_exec(s, "DROP TABLE IF EXISTS bgexec_probe", 0, NULL) != ERR_OK ||
        store_exec(s, "CREATE TABLE bgexec_probe (x int)", 0, NULL) != ERR_OK)
        return -1;
    *state = s;
    return 0;
}

static int teardown(void **state)
{
    struct store *s = *state;
    enum err e = store_exec(s, "DROP TABLE IF EXISTS bgexec_probe", 0, NULL);
    store_free(s);
    return e == ERR_OK ? 0 : -1;
}

static int64_t probe_rows(struct store *s)
{
    struct store_rows *r;
    assert_int_equal(store_query(s, "SELECT count(*) FROM bgexec_probe", 0, NULL, &r), ERR_OK);
    int64_t n = store_rows_i64(r, 0, 0, -1);
    store_rows_free(r);
    return n;
}

static void test_one_at_a_time(void **state)
{
    struct store *s = *state;
    struct bgexec *b;
    assert_int_equal(bgexec_new(s, &b), ERR_OK);
    /* The first waits for a lock this session holds: still running, however slow the
     * machine, until the lock is let go. The next one is not started meanwhile. */
    assert_int_equal(store_exec(s, "SELECT pg_advisory_lock(4242)", 0, NULL), ERR_OK);
    assert_true(
        bgexec_run(b, "INSERT INTO bgexec_probe SELECT 1 FROM pg_advisory_xact_lock(4242)"));
    assert_false(bgexec_run(b, "INSERT INTO bgexec_probe VALUES (2)"));
    assert_int_equal(store_exec(s, "SELECT pg_advisory_unlock(4242)", 0, NULL), ERR_OK);
    bgexec_wait(b);
    assert_int_equal(probe_rows(s), 1);
    /* A failing statement is logged; the runner goes on, on the same connection. */
    assert_true(bgexec_run(b, "INSERT INTO no_such_table VALUES (1)"));
    bgexec_wait(b);
    assert_true(bgexec_run(b, "INSERT INTO bgexec_probe VALUES (3)"));
    bgexec_free(b); /* waits for it */
    assert_int_equal(probe_rows(s), 2);
}

static void test_free_unused(void **state)
{
    struct bgexec *b;
    assert_int_equal(bgexec_new(*state, &b), ERR_OK);
    bgexec_wait(b);
    bgexec_free(b);
    bgexec_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_at_a_time),
        cmocka_unit_test(test_free_unused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
