/* Unit tests for common/buf and common/err. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"

static void test_append_and_format(void **state)
{
    (void)state;
    struct buf b;
    buf_init(&b, 0);
    assert_string_equal(buf_str(&b), "");
    assert_int_equal(buf_append_str(&b, "hello"), ERR_OK);
    assert_int_equal(buf_append_char(&b, ' '), ERR_OK);
    assert_int_equal(buf_appendf(&b, "%d-%s", 42, "x"), ERR_OK);
    assert_string_equal(buf_str(&b), "hello 42-x");
    assert_int_equal(b.len, 10);
    buf_reset(&b);
    assert_string_equal(buf_str(&b), "");
    buf_release(&b);
}

static void test_growth_keeps_content(void **state)
{
    (void)state;
    struct buf b;
    buf_init(&b, 0);
    for (int i = 0; i < 10000; i++)
        assert_int_equal(buf_append_char(&b, (char)('a' + i % 26)), ERR_OK);
    assert_int_equal(b.len, 10000);
    assert_int_equal(b.data[9999], 'a' + 9999 % 26);
    assert_int_equal(b.data[10000], '\0');
    char *s = buf_detach(&b);
    assert_int_equal(strlen(s), 10000);
    assert_null(b.data);
    free(s);
}

static void test_cap_is_enforced(void **state)
{
    (void)state;
    struct buf b;
    buf_init(&b, 8);
    assert_int_equal(buf_append_str(&b, "12345678"), ERR_OK);
    assert_int_equal(buf_append_char(&b, '9'), ERR_TOOBIG);
    assert_int_equal(buf_appendf(&b, "%s", "x"), ERR_TOOBIG);
    assert_string_equal(buf_str(&b), "12345678");
    assert_non_null(strstr(err_msg(), "8 bytes"));
    buf_release(&b);
}

static void test_err_messages(void **state)
{
    (void)state;
    assert_int_equal(err_set(ERR_INVAL, "bad %s", "thing"), ERR_INVAL);
    assert_string_equal(err_msg(), "bad thing");
    err_clear();
    assert_string_equal(err_msg(), "");
    assert_string_equal(err_str(ERR_NOTFOUND), "not found");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_append_and_format),
        cmocka_unit_test(test_growth_keeps_content),
        cmocka_unit_test(test_cap_is_enforced),
        cmocka_unit_test(test_err_messages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
