/*
 * server/respcache: a kept answer is handed out while fresh; once stale, the first
 * caller is told to refresh it (NULL) and the others get the stale answer meanwhile;
 * a put makes it fresh again; a change through the API drops a job's answers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "server/respcache.h"

static void sleep_past_fresh(void)
{
    struct timespec ts = {0, (RESPCACHE_MS + 30) * 1000000L};
    nanosleep(&ts, NULL);
}

/* key's answer, as the text it is, or "(none)". */
static char got[64];
static const char *get(const char *key)
{
    char *j = respcache_get(key);
    snprintf(got, sizeof got, "%s", j ? j : "(none)");
    free(j);
    return got;
}

static void test_fresh_then_one_refresher(void **state)
{
    (void)state;
    assert_string_equal(get("1|7"), "(none)");
    respcache_put("1|7", 7, "{\"v\":1}");
    assert_string_equal(get("1|7"), "{\"v\":1}");
    assert_string_equal(get("1|7|x"), "(none)"); /* another key */
    sleep_past_fresh();
    assert_string_equal(get("1|7"), "(none)");    /* stale: this caller refreshes */
    assert_string_equal(get("1|7"), "{\"v\":1}"); /* the others get it meanwhile */
    assert_string_equal(get("1|7"), "{\"v\":1}");
    respcache_put("1|7", 7, "{\"v\":2}");
    assert_string_equal(get("1|7"), "{\"v\":2}");
}

static void test_drop_job(void **state)
{
    (void)state;
    respcache_put("2|8", 8, "a");
    respcache_put("2|9", 9, "b");
    respcache_drop_job(8);
    assert_string_equal(get("2|8"), "(none)");
    assert_string_equal(get("2|9"), "b");
    sleep_past_fresh();
    assert_string_equal(get("2|9"), "(none)");
    respcache_drop_job(9); /* dropped while refreshed: nobody is served the old one */
    assert_string_equal(get("2|9"), "(none)");
    assert_string_equal(get("2|9"), "(none)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fresh_then_one_refresher),
        cmocka_unit_test(test_drop_job),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
