/* Unit tests for server/httpcheck: NUL escapes, the Bearer scheme, Content-Length. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "server/httpcheck.h"

static void test_has_nul(void **state)
{
    (void)state;
    static const struct {
        const char *target;
        int nul;
    } rows[] = {
        {"/api/jobs/1", 0},
        {"/api/jobs/1%00", 1},
        {"/index.html%00.css", 1},
        {"/api/jobs/1/sites?order=confidence%00x", 1},
        {"/api/jobs?%00=1", 1},
        {"/api/jobs?state=done&x=%00", 1},
        {"/a%2500", 0}, /* an escaped '%' followed by "00": the text %00, no NUL */
        {"/a%0", 0},
        {"/a%", 0},
        {"/a%20%30%300", 0},
        {"/%%00", 1},
        {"", 0},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (httpcheck_has_nul(rows[i].target) != rows[i].nul)
            fail_msg("httpcheck_has_nul(\"%s\") != %d", rows[i].target, rows[i].nul);
}

static void test_bearer(void **state)
{
    (void)state;
    static const struct {
        const char *value;
        const char *token; /* NULL: not the Bearer scheme */
    } rows[] = {
        {"Bearer s3cret", "s3cret"},
        {"bearer s3cret", "s3cret"}, /* RFC 7235 §2.1: the scheme is case-insensitive */
        {"BEARER s3cret", "s3cret"},
        {"bEaReR s3cret", "s3cret"},
        {"Bearer   s3cret", "s3cret"},
        {"Bearer ", ""},
        {"Bearer", NULL},
        {"Bearers3cret", NULL},
        {"Basic czNjcmV0", NULL},
        {"Bear s3cret", NULL},
        {"", NULL},
        {" Bearer s3cret", NULL},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const char *t = httpcheck_bearer(rows[i].value);
        if (!rows[i].token ? t != NULL : !t || strcmp(t, rows[i].token) != 0)
            fail_msg("httpcheck_bearer(\"%s\") = %s%s%s, want %s", rows[i].value, t ? "\"" : "",
                     t ? t : "NULL", t ? "\"" : "", rows[i].token ? rows[i].token : "NULL");
    }
}

static void test_content_length(void **state)
{
    (void)state;
    uint64_t n = 7;
    assert_int_equal(httpcheck_content_length("0", &n), 1);
    assert_true(n == 0);
    assert_int_equal(httpcheck_content_length("1048577", &n), 1);
    assert_true(n == 1048577);
    assert_int_equal(httpcheck_content_length("50000000", &n), 1);
    assert_true(n == 50000000);
    assert_int_equal(httpcheck_content_length("18446744073709551615", &n), 1);
    assert_true(n == UINT64_MAX);
    assert_int_equal(httpcheck_content_length("99999999999999999999999", &n), 1);
    assert_true(n == UINT64_MAX); /* too big stays too big */
    n = 7;
    static const char *const bad[] = {"", "-1", "+1", " 1", "1 ", "1e6", "0x10", "12a"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (httpcheck_content_length(bad[i], &n) != 0)
            fail_msg("httpcheck_content_length(\"%s\") accepted", bad[i]);
    assert_true(n == 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_has_nul),
        cmocka_unit_test(test_bearer),
        cmocka_unit_test(test_content_length),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
