/* common/: checked number parsing (table-driven), FNV-1a's known values, err_set wrapping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>

#include "common/err.h"
#include "common/hash.h"
#include "common/num.h"

static void parse_i64(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        int64_t lo, hi;
        int ok;
        int64_t want;
    } cases[] = {
        {"42", 0, 100, 1, 42},
        {"-7", -10, 10, 1, -7},
        {"+7", 0, 10, 1, 7},
        {" 7", 0, 10, 1, 7},   /* strtoll skips leading blanks */
        {"7 ", 0, 10, 0, 0},   /* not a trailing one */
        {"101", 0, 100, 0, 0}, /* above the range */
        {"-1", 0, 100, 0, 0},  /* below it */
        {"", 0, 100, 0, 0},
        {"12abc", 0, 1000, 0, 0},
        {"0x10", 0, 1000, 0, 0},                              /* decimal only */
        {"99999999999999999999", INT64_MIN, INT64_MAX, 0, 0}, /* overflow */
        {"9223372036854775807", INT64_MIN, INT64_MAX, 1, INT64_MAX},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t v = -12345;
        assert_int_equal(num_parse_i64(cases[i].in, cases[i].lo, cases[i].hi, &v), cases[i].ok);
        assert_int_equal(v, cases[i].ok ? cases[i].want : -12345); /* untouched on failure */
    }
    assert_int_equal(num_parse_i64(NULL, 0, 1, &(int64_t){0}), 0);
}

static void parse_int_u64_double(void **state)
{
    (void)state;
    int n = 5;
    assert_int_equal(num_parse_int("2147483648", INT32_MIN, INT32_MAX, &n), 0);
    assert_int_equal(n, 5);
    assert_int_equal(num_parse_int("-3", -5, 5, &n), 1);
    assert_int_equal(n, -3);
    uint64_t u = 0;
    assert_int_equal(num_parse_u64("18446744073709551615", &u), 1);
    assert_true(u == UINT64_MAX);
    assert_int_equal(num_parse_u64("-1", &u), 0);
    assert_int_equal(num_parse_u64("18446744073709551616", &u), 0);
    double d = 0;
    assert_int_equal(num_parse_double("0.25", 0, 1, &d), 1);
    assert_float_equal(d, 0.25, 0);
    assert_int_equal(num_parse_double("1.5", 0, 1, &d), 0);
    assert_int_equal(num_parse_double("nan", -1e9, 1e9, &d), 0);
    assert_int_equal(num_parse_double("inf", -INFINITY, INFINITY, &d), 0);
    assert_int_equal(num_parse_double("1e999", -INFINITY, INFINITY, &d), 0);
    assert_int_equal(num_parse_double("0.5x", 0, 1, &d), 0);
    assert_float_equal(d, 0.25, 0);
    /* PostgreSQL's float8 text: NaN and the infinities are numbers too. */
    assert_int_equal(num_parse_double_any("NaN", &d), 1);
    assert_true(isnan(d));
    assert_int_equal(num_parse_double_any("-Infinity", &d), 1);
    assert_true(isinf(d) && d < 0);
    assert_int_equal(num_parse_double_any("0.125", &d), 1);
    assert_float_equal(d, 0.125, 0);
    assert_int_equal(num_parse_double_any("", &d), 0);
    assert_int_equal(num_parse_double_any("1.5 ", &d), 0);
    assert_int_equal(num_parse_double_any(NULL, &d), 0);
    assert_float_equal(d, 0.125, 0);
}

static void format_double_shortest(void **state)
{
    (void)state;
    char b[NUM_DOUBLE_BUF];
    assert_string_equal(num_format_double(b, 0.9), "0.9");
    assert_string_equal(num_format_double(b, 25), "25");
    assert_string_equal(num_format_double(b, 0.1 + 0.2), "0.30000000000000004");
    assert_string_equal(num_format_double(b, 1e-300), "1e-300");
    assert_string_equal(num_format_double(b, -2.5), "-2.5");
    /* Whatever it gives reads back exactly. */
    static const double v[] = {1.0 / 3, 20040831, 9007199254740992.0, 5e-324,
                               1.7976931348623157e308};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        assert_true(strtod(num_format_double(b, v[i]), NULL) == v[i]);
}

static void fnv1a(void **state)
{
    (void)state;
    /* The published FNV-1a 64-bit values. */
    assert_true(hash_bytes("", 0) == 0xcbf29ce484222325ULL);
    assert_true(hash_bytes("a", 1) == 0xaf63dc4c8601ec8cULL);
    assert_true(hash_bytes("foobar", 6) == 0x85944171f73967e8ULL);
    uint64_t h = hash_bytes("foobar", 6);
    assert_true(hash_bytes32("foobar", 6) == (uint32_t)(h ^ (h >> 32)));
}

/* err_set may take err_msg() as an argument: the cause, wrapped in context. */
static void err_set_wraps_its_own_message(void **state)
{
    (void)state;
    assert_int_equal(err_set(ERR_IO, "cannot read %s", "x.warc"), ERR_IO);
    assert_int_equal(err_set(ERR_INVAL, "archive 2: %s (%d)", err_msg(), 7), ERR_INVAL);
    assert_string_equal(err_msg(), "archive 2: cannot read x.warc (7)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parse_i64),
        cmocka_unit_test(parse_int_u64_double),
        cmocka_unit_test(format_double_shortest),
        cmocka_unit_test(fnv1a),
        cmocka_unit_test(err_set_wraps_its_own_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
