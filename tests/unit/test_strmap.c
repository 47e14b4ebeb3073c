/* Unit tests for common/strmap: insert, replace, lookup, removal with probe runs intact. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "common/strmap.h"

static void test_put_get_replace(void **state)
{
    (void)state;
    struct strmap m;
    strmap_init(&m);
    int a = 1, b = 2;
    assert_null(strmap_get(&m, "x", 1));
    assert_int_equal(strmap_put(&m, "alpha", 5, &a), ERR_OK);
    assert_int_equal(strmap_put(&m, "beta", 4, &b), ERR_OK);
    assert_ptr_equal(strmap_get(&m, "alpha", 5), &a);
    assert_ptr_equal(strmap_get(&m, "alphabet", 5), &a); /* n bytes of the key count */
    assert_null(strmap_get(&m, "alph", 4));
    assert_int_equal(strmap_put(&m, "alpha", 5, &b), ERR_OK);
    assert_ptr_equal(strmap_get(&m, "alpha", 5), &b);
    assert_int_equal(m.len, 2);
    strmap_release(&m);
}

static void test_many_and_removal(void **state)
{
    (void)state;
    struct strmap m;
    strmap_init(&m);
    static int values[5000];
    char key[32];
    for (int i = 0; i < 5000; i++) {
        int n = snprintf(key, sizeof key, "host%d.example", i);
        assert_int_equal(strmap_put(&m, key, (size_t)n, &values[i]), ERR_OK);
    }
    assert_int_equal(m.len, 5000);
    /* Remove every third key; all others must stay reachable (backward shift). */
    for (int i = 0; i < 5000; i += 3) {
        int n = snprintf(key, sizeof key, "host%d.example", i);
        assert_ptr_equal(strmap_remove(&m, key, (size_t)n), &values[i]);
    }
    for (int i = 0; i < 5000; i++) {
        int n = snprintf(key, sizeof key, "host%d.example", i);
        if (i % 3 == 0)
            assert_null(strmap_get(&m, key, (size_t)n));
        else
            assert_ptr_equal(strmap_get(&m, key, (size_t)n), &values[i]);
    }
    assert_null(strmap_remove(&m, "nope", 4));
    strmap_release(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_put_get_replace),
        cmocka_unit_test(test_many_and_removal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
