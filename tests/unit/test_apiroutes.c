/* Unit tests for the API's route table (server/apiroutes.h, api_routes[] in server/api.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>
#include <string.h>

#include "server/api.h"
#include "server/apiroutes.h"

/* Designated initialisers leave a forgotten row zero: every route has all its parts. */
static void test_every_row_filled(void **state)
{
    (void)state;
    assert_int_equal(api_routes_count, R_COUNT);
    for (int i = 0; i < api_routes_count; i++) {
        const struct api_route *r = &api_routes[i];
        assert_non_null(r->method);
        assert_non_null(r->pattern);
        assert_non_null(r->args);
        assert_non_null(r->handler);
        assert_true(r->pattern[0] == '/');
    }
}

/* The flags say what the patterns and methods say. */
static void test_flags_follow_patterns(void **state)
{
    (void)state;
    static const char jobs[] = "/api/jobs/{id}";
    for (int i = 0; i < api_routes_count; i++) {
        const struct api_route *r = &api_routes[i];
        int job = strncmp(r->pattern, jobs, sizeof jobs - 1) == 0 &&
                  strchr("/.", r->pattern[sizeof jobs - 1]) != NULL;
        if (strcmp(r->pattern, jobs) == 0)
            job = 1;
        assert_int_equal(!!(r->flags & API_ROUTE_JOB), job);
        if (r->flags & (API_ROUTE_CACHED | API_ROUTE_EXPORTS))
            assert_string_equal(r->method, "GET"); /* only a GET's answer is kept */
    }
    assert_true(api_routes[R_JOB_GET].flags & API_ROUTE_CACHED);
    assert_true(api_routes[R_SITES].flags & API_ROUTE_EXPORTS);
    assert_false(api_routes[R_HEALTH].flags & API_ROUTE_CACHED);
}

/* No two rows answer the same method and pattern: the second would never be reached. */
static void test_rows_unique(void **state)
{
    (void)state;
    for (int i = 0; i < api_routes_count; i++)
        for (int j = i + 1; j < api_routes_count; j++)
            assert_false(strcmp(api_routes[i].method, api_routes[j].method) == 0 &&
                         strcmp(api_routes[i].pattern, api_routes[j].pattern) == 0);
}

static void test_takes_method(void **state)
{
    (void)state;
    assert_true(apiroutes_takes_method(&api_routes[R_JOB_GET], "GET"));
    assert_true(apiroutes_takes_method(&api_routes[R_JOB_GET], "HEAD"));
    assert_false(apiroutes_takes_method(&api_routes[R_JOB_GET], "POST"));
    assert_false(apiroutes_takes_method(&api_routes[R_JOB_DELETE], "HEAD"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_row_filled),
        cmocka_unit_test(test_flags_follow_patterns),
        cmocka_unit_test(test_rows_unique),
        cmocka_unit_test(test_takes_method),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
