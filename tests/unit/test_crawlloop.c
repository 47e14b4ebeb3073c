/*
 * crawler/crawlloop, the one refill loop, against a real `sitescout replay` of the demo
 * web: every request a strategy submits is fed back exactly once, in bounded batches
 * each followed by a tick; refill is asked again until the strategy is finished; an
 * error from feed or tick ends the loop and is what it returns. Needs SITESCOUT_BIN
 * and SITESCOUT_SRC.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "crawler/crawlloop.h"
#include "crawler/fetch.h"
#include "testreplay.h"

static const char *const urls[] = {
    "http://www.oceansummit.com/",
    "http://www.motherremote.com/",
    "http://www.dimensions-ssto.com/",
    "http://www.canyonmist.com/",
    "http://www.oceansummit.com/no-such-page",
    "http://unknown-host.invalid/",
};
#define N_URLS (sizeof urls / sizeof urls[0])

/* A strategy that submits urls[] at most `wave` at a time and counts what comes back. */
struct probe {
    struct fetcher *f;
    size_t wave, submitted, fed, ticks, refills, batch_max, batch;
    int seen[N_URLS];
    size_t fail_feed_at;      /* feed fails (ERR_INVAL) on this result; 0 = never */
    size_t interrupt_at_tick; /* tick fails (ERR_INTERRUPT) on this tick; 0 = never */
    size_t waiting_at_error;  /* answers that had come but were not fed, when feed failed */
};

static enum err probe_refill(void *arg)
{
    struct probe *p = arg;
    p->refills++;
    while (p->submitted < N_URLS && p->submitted - p->fed < p->wave) {
        enum err e = fetcher_submit(p->f, urls[p->submitted], p->submitted);
        if (e)
            return e;
        p->submitted++;
    }
    return ERR_OK;
}

static int probe_finished(void *arg)
{
    struct probe *p = arg;
    return p->fed == N_URLS;
}

static enum err probe_feed(void *arg, struct fetch_result *r)
{
    struct probe *p = arg;
    assert_true(r->tag < N_URLS);
    p->seen[r->tag]++;
    p->fed++;
    if (++p->batch > p->batch_max)
        p->batch_max = p->batch;
    if (p->fed != p->fail_feed_at)
        return ERR_OK;
    /* Wait for every other answer to arrive, so that they wait in the same batch: the
     * loop must not feed them after this error. */
    struct timespec tick = {0, 1000000L}, start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        struct fetch_stats st;
        fetcher_stats(p->f, &st);
        if (st.queued == 0 && st.in_flight == 0 &&
            (size_t)fetcher_outstanding(p->f) == p->submitted - p->fed)
            break; /* all answered, waiting to be taken */
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - start.tv_sec > 30)
            fail_msg("waited 30 s for the %zu other answers to arrive", p->submitted - p->fed);
        nanosleep(&tick, NULL);
    }
    p->waiting_at_error = p->submitted - p->fed;
    return err_set(ERR_INVAL, "feed says no");
}

static enum err probe_tick(void *arg)
{
    struct probe *p = arg;
    p->batch = 0;
    p->ticks++;
    return p->ticks == p->interrupt_at_tick ? err_set(ERR_INTERRUPT, "stopped") : ERR_OK;
}

static const struct crawlloop_hooks hooks = {probe_refill, probe_finished, probe_feed, probe_tick};

static struct fetcher *new_fetcher(void **state)
{
    struct testreplay *r = *state;
    struct fetch_config fc;
    fetch_config_defaults(&fc);
    fc.proxy = r->proxy;
    fc.delay_ms = 0;
    fc.allow_private = 1;
    struct fetcher *f = NULL;
    assert_int_equal(fetcher_new(&fc, &f), ERR_OK);
    return f;
}

static void every_request_fed_once(void **state)
{
    static const size_t waves[] = {1, 2, N_URLS};
    for (size_t w = 0; w < sizeof waves / sizeof waves[0]; w++) {
        struct probe p = {.f = new_fetcher(state), .wave = waves[w]};
        assert_int_equal(crawlloop_run(p.f, &hooks, &p), ERR_OK);
        assert_int_equal(p.fed, N_URLS);
        for (size_t i = 0; i < N_URLS; i++)
            assert_int_equal(p.seen[i], 1);
        /* One wave at a time: refill was asked again after each result came back. */
        assert_true(p.refills >= (N_URLS + waves[w] - 1) / waves[w]);
        assert_true(p.ticks >= 1);
        assert_true(p.batch_max <= CRAWLLOOP_BATCH);
        assert_int_equal(fetcher_outstanding(p.f), 0);
        fetcher_free(p.f);
    }
}

static void feed_error_ends_the_loop(void **state)
{
    struct probe p = {.f = new_fetcher(state), .wave = N_URLS, .fail_feed_at = 1};
    assert_int_equal(crawlloop_run(p.f, &hooks, &p), ERR_INVAL);
    assert_string_equal(err_msg(), "feed says no");
    assert_int_equal(p.waiting_at_error, N_URLS - 1); /* the others had come ... */
    assert_int_equal(p.fed, 1);                       /* ... and none was fed after it */
    fetcher_free(p.f);
}

static void tick_error_ends_the_loop(void **state)
{
    struct probe p = {.f = new_fetcher(state), .wave = 1, .interrupt_at_tick = 1};
    assert_int_equal(crawlloop_run(p.f, &hooks, &p), ERR_INTERRUPT);
    assert_int_equal(p.ticks, 1);
    assert_true(p.fed < N_URLS);
    fetcher_free(p.f); /* drops what is still outstanding */
}

/* Already finished: no wait, no feed, no tick. */
static void finished_at_once(void **state)
{
    struct probe p = {.f = new_fetcher(state), .wave = 0};
    p.fed = N_URLS;
    assert_int_equal(crawlloop_run(p.f, &hooks, &p), ERR_OK);
    assert_int_equal(p.refills, 1);
    assert_int_equal(p.ticks, 0);
    fetcher_free(p.f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_request_fed_once),
        cmocka_unit_test(feed_error_ends_the_loop),
        cmocka_unit_test(tick_error_ends_the_loop),
        cmocka_unit_test(finished_at_once),
    };
    return cmocka_run_group_tests(tests, testreplay_group_setup, testreplay_group_teardown);
}
