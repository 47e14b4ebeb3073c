/*
 * server/respcache: a kept answer is handed out while fresh; once stale too, and the
 * first caller to find it stale is told to refresh it, the others not; a put makes it
 * fresh again; an answer older than the promise (after an idle spell) is never handed
 * out; a change through the API drops a job's answers; while none is kept, one caller
 * makes it and the others wait for it. The cache reads the test's clock, which also
 * tells when a second caller has asked (no sleep that "should be enough").
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "server/respcache.h"

static int64_t fake_now = 1000000;
/* How many times the cache read the clock: it does, under its lock, first thing in each
 * respcache_get. The test's barrier: a second caller that has read it is waiting (or
 * has its answer) before the test goes on. */
static atomic_int clock_reads;
static int64_t fake_clock(void)
{
    atomic_fetch_add(&clock_reads, 1);
    return fake_now;
}

static void sleep_past_fresh(void)
{
    fake_now += RESPCACHE_MS + 30;
}

/* key's answer, as the text it is, or "(none)"; "+" after it: refresh it. */
static char got[64];
static const char *get(const char *key)
{
    int refresh = 0;
    char *j = respcache_get(key, &refresh);
    snprintf(got, sizeof got, "%s%s", j ? j : "(none)", refresh ? "+" : "");
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
    assert_string_equal(get("1|7"), "{\"v\":1}+"); /* stale: this caller refreshes */
    assert_string_equal(get("1|7"), "{\"v\":1}");  /* the others get it meanwhile */
    assert_string_equal(get("1|7"), "{\"v\":1}");
    respcache_put("1|7", 7, "{\"v\":2}");
    assert_string_equal(get("1|7"), "{\"v\":2}");
}

/* After an idle spell the kept answer is too old to hand out: the first caller makes
 * a new one, and others wait for it instead of getting the old one. */
static void test_never_older_than_promised(void **state)
{
    (void)state;
    respcache_put("4|3", 3, "queued");
    fake_now += RESPCACHE_MAX_AGE_MS - 1;
    assert_string_equal(get("4|3"), "queued+"); /* within the promise: one refresh */
    fake_now += 1;
    assert_string_equal(get("4|3"), "(none)"); /* too old: this caller makes it */
    respcache_put("4|3", 3, "done");
    assert_string_equal(get("4|3"), "done");
    /* A refresh that never comes: the stale answer is handed out up to the promise. */
    sleep_past_fresh();
    assert_string_equal(get("4|3"), "done+");
    fake_now += RESPCACHE_REFRESH_MS;
    assert_string_equal(get("4|3"), "(none)");
    respcache_missed("4|3");
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
    assert_string_equal(get("2|9"), "b+");
    respcache_drop_job(9); /* dropped while refreshed: nobody is served the old one */
    assert_string_equal(get("2|9"), "(none)");
    respcache_missed("2|9");
    assert_string_equal(get("2|9"), "(none)");
    respcache_missed("2|9");
}

/* A second caller while the first makes an answer none was kept for. */
static void *second_caller(void *arg)
{
    int refresh;
    return respcache_get((const char *)arg, &refresh);
}

/* Start second_caller for key and return once it is inside respcache_get: it has read
 * the clock, under the cache's lock, so whatever the test does next comes after it
 * found no answer and began to wait (or, were the cache wrong, after it went away).
 * Polls for up to 30 s (a busy machine), then fails saying so. */
static pthread_t start_second_caller(const char *key)
{
    int before = atomic_load(&clock_reads);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, second_caller, (void *)key), 0);
    struct timespec tick = {0, 1000000L}, start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    while (atomic_load(&clock_reads) == before) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - start.tv_sec > 30)
            fail_msg("waited 30 s for a second caller of '%s' to ask the cache", key);
        nanosleep(&tick, NULL);
    }
    return t;
}

/* None kept: the first caller makes it and the others wait for it, not make it too. */
static void test_one_maker_while_none_kept(void **state)
{
    (void)state;
    assert_string_equal(get("3|5"), "(none)"); /* this caller makes it */
    pthread_t t = start_second_caller("3|5");  /* it waits meanwhile */
    respcache_put("3|5", 5, "made");
    void *got2;
    assert_int_equal(pthread_join(t, &got2), 0);
    assert_non_null(got2);
    assert_string_equal((char *)got2, "made");
    free(got2);
    /* The maker fails: the one waiting makes it itself, at once. */
    assert_string_equal(get("3|6"), "(none)");
    t = start_second_caller("3|6");
    respcache_missed("3|6");
    assert_int_equal(pthread_join(t, &got2), 0);
    assert_null(got2); /* ... and is the maker now: */
    t = start_second_caller("3|6");
    respcache_put("3|6", 6, "second");
    assert_int_equal(pthread_join(t, &got2), 0);
    assert_string_equal((char *)got2, "second");
    free(got2);
}

int main(void)
{
    respcache_set_clock(fake_clock);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fresh_then_one_refresher),
        cmocka_unit_test(test_never_older_than_promised),
        cmocka_unit_test(test_drop_job),
        cmocka_unit_test(test_one_maker_while_none_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
