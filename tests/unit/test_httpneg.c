/* Unit tests for server/httpneg: Accept, entity tags, If-None-Match. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>
#include <string.h>

#include "server/httpneg.h"

static void test_accepts(void **state)
{
    (void)state;
    static const struct {
        const char *accept, *type;
        int taken;
    } rows[] = {
        {NULL, "application/json", 1},
        {"", "application/json", 1},
        {"  ", "application/json", 1},
        {"application/json", "application/json", 1},
        {"Application/JSON", "application/json", 1},
        {"application/json; charset=utf-8", "application/json", 1},
        {"*/*", "application/json", 1},
        {"application/*", "application/json", 1},
        {"text/*", "application/json", 0},
        {"text/html", "application/json", 0},
        {"text/html, application/xhtml+xml", "application/json", 0},
        {"text/html,*/*;q=0.8", "application/json", 1},
        {"text/csv", "text/csv; charset=utf-8", 1},
        {"application/json", "text/csv; charset=utf-8", 0},
        {"text/csv, */*;q=0.1", "application/json", 1},
        {"application/json;q=0", "application/json", 0},
        {"application/json; q=0.000", "application/json", 0},
        {"application/json;q=0.001", "application/json", 1},
        {"application/json;Q=0", "application/json", 0},
        {"*/*, application/json;q=0", "application/json", 0}, /* the specific range decides */
        {"application/*;q=0, application/json", "application/json", 1},
        {"application/json;q=0, */*", "application/json", 0},
        {"text/html;q=0, */*", "application/json", 1},
        {",,application/json,", "application/json", 1},
        {"application/jsonx", "application/json", 0},
        {"application/js", "application/json", 0},
        {"application", "application/json", 0},
        {"*", "application/json", 0},
        {"garbage", "application/json", 0},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (httpneg_accepts(rows[i].accept, rows[i].type) != rows[i].taken)
            fail_msg("httpneg_accepts(\"%s\", \"%s\") != %d",
                     rows[i].accept ? rows[i].accept : "(null)", rows[i].type, rows[i].taken);
}

static void test_etag(void **state)
{
    (void)state;
    char a[HTTPNEG_ETAG_LEN], b[HTTPNEG_ETAG_LEN], c[HTTPNEG_ETAG_LEN];
    httpneg_etag("{\"id\":1}", 8, a);
    httpneg_etag("{\"id\":1}", 8, b);
    httpneg_etag("{\"id\":2}", 8, c);
    assert_string_equal(a, b);
    assert_string_not_equal(a, c);
    assert_int_equal('"', a[0]);
    assert_int_equal('"', a[strlen(a) - 1]);
    assert_null(strchr(a, ',')); /* lists split at commas */
    httpneg_etag("", 0, c);
    assert_string_not_equal(a, c);
}

static void test_none_match(void **state)
{
    (void)state;
    char tag[HTTPNEG_ETAG_LEN], weak[HTTPNEG_ETAG_LEN + 2], list[3 * HTTPNEG_ETAG_LEN];
    httpneg_etag("body", 4, tag);
    snprintf(weak, sizeof weak, "W/%s", tag);
    snprintf(list, sizeof list, "\"other\", %s ,\"more\"", tag);
    assert_true(httpneg_none_match(tag, tag));
    assert_true(httpneg_none_match(weak, tag));
    assert_true(httpneg_none_match(list, tag));
    assert_true(httpneg_none_match("*", tag));
    assert_true(httpneg_none_match(" * ", tag));
    assert_false(httpneg_none_match("\"other\"", tag));
    assert_false(httpneg_none_match("", tag));
    assert_false(httpneg_none_match("*, \"other\"", tag));
    char bare[HTTPNEG_ETAG_LEN];
    snprintf(bare, sizeof bare, "%.*s", (int)strlen(tag) - 2, tag + 1); /* without quotes */
    assert_false(httpneg_none_match(bare, tag));
}

static void test_origin(void **state)
{
    (void)state;
    static const struct {
        const char *origin;
        int ok;
    } rows[] = {
        {"https://dash.example.org", 1},
        {"http://localhost:3000", 1},
        {"http://127.0.0.1:8080", 1},
        {"http://[::1]:8080", 1},
        {"https://dash.example.org/", 0},
        {"https://dash.example.org/app", 0},
        {"https://Dash.example.org", 0}, /* browsers send the host in lower case */
        {"dash.example.org", 0},
        {"ftp://dash.example.org", 0},
        {"*", 0},
        {"null", 0},
        {"http://", 0},
        {"http://:80", 0},
        {"http://a:", 0},
        {"http://a:123456", 0},
        {"http://[::1", 0},
        {"http://a b", 0},
        {"http://a\r\nX: y", 0},
        {"", 0},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (httpneg_origin_ok(rows[i].origin) != rows[i].ok)
            fail_msg("httpneg_origin_ok(\"%s\") != %d", rows[i].origin, rows[i].ok);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accepts),
        cmocka_unit_test(test_etag),
        cmocka_unit_test(test_none_match),
        cmocka_unit_test(test_origin),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
