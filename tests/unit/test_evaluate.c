/*
 * The website classifier evaluation (eval/evaluate.c, `sitescout eval`) on a replay of
 * the demo web: in cross-validation every training website that gave pages is held out
 * once, in one fold, with its true label; the Table 2 counts are the websites' own
 * verdicts counted; a progress callback that says stop stops the run. Accuracy itself is
 * a benchmark (BENCHMARKS.md), not checked here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval/evaluate.h"
#include "testdemo.h"
#include "testreplay.h"

/* The demo's sci.space job (demo/demo.jobs.json) with no politeness delay, judged by
 * its examination (the crawl model judges held-out websites only). */
static struct jobspec *demo_job(void)
{
    return testdemo_job(json_pack("{s:i, s:i, s:s}", "politeness_delay_ms", 0, "concurrency", 16,
                                  "judge", "examination"));
}

static void opts(const struct testreplay *replay, struct evaluate_opts *o)
{
    memset(o, 0, sizeof *o);
    o->mode = EVALUATE_CV;
    fetch_config_defaults(&o->fetch);
    o->fetch.proxy = replay->proxy;
}

static void test_cross_validation_holds_out_each_website_once(void **state)
{
    struct testreplay *replay = *state;
    struct jobspec *js = demo_job();
    struct evaluate_opts o;
    opts(replay, &o);
    struct evaluate_result *r = NULL;
    if (evaluate_run(js, &o, &r) != ERR_OK)
        fail_msg("evaluate_run: %s", err_msg());
    jobspec_free(js);
    assert_int_equal(r->mode, EVALUATE_CV);
    assert_true(r->folds >= 2);
    /* Every training website of the job, in its order: read, or excluded for no page. */
    assert_int_equal(r->n_train, 55);
    assert_int_equal(r->train_sites + r->n_excluded, 55);
    size_t relevant = 0, pages = 0;
    for (size_t i = 0; i < r->n_train; i++) {
        relevant += r->train[i].pages && r->train[i].relevant;
        pages += r->train[i].pages;
    }
    assert_int_equal(r->train_relevant, relevant);
    assert_int_equal(r->train_pages, pages);
    assert_true(relevant > 0 && relevant <= 15);
    /* Each website that gave pages is held out once, with its label. */
    assert_int_equal(r->n_sites, r->train_sites);
    struct evalstats website = {0}, homepage = {0};
    size_t decided = 0;
    for (size_t i = 0; i < r->n_sites; i++) {
        const struct evaluate_site *s = &r->sites[i];
        if (s->fold < 0 || (unsigned)s->fold >= r->folds)
            fail_msg("%s: fold %d of %u", s->homepage, s->fold, r->folds);
        size_t t = 0;
        while (t < r->n_train && strcmp(r->train[t].homepage, s->homepage) != 0)
            t++;
        if (t == r->n_train)
            fail_msg("%s is held out but no training website", s->homepage);
        assert_int_equal(s->truth, r->train[t].relevant);
        assert_true(r->train[t].pages > 0);
        for (size_t k = 0; k < i; k++)
            if (strcmp(r->sites[k].homepage, s->homepage) == 0)
                fail_msg("%s is held out twice", s->homepage);
        /* Its cost: the fetches of its trace (robots.txt's refusals cost none), and the
         * homepage's redirect to another host when it was followed. */
        int fetched = s->redirected != 0;
        for (size_t k = 0; k < s->n_trace; k++)
            fetched += s->trace[k].status != FETCH_ROBOTS && s->trace[k].status != FETCH_BLOCKED &&
                       s->trace[k].status != FETCH_BAD_URL;
        if (fetched != s->pages)
            fail_msg("%s: %d pages counted, %d fetched", s->homepage, s->pages, fetched);
        evalstats_add(&website, s->truth, s->relevant);
        evalstats_add(&homepage, s->truth, s->home_relevant);
        decided += s->decided != 0;
    }
    /* Table 2's counts are the websites' verdicts counted. */
    assert_memory_equal(&website, &r->website, sizeof website);
    assert_memory_equal(&homepage, &r->homepage, sizeof homepage);
    assert_int_equal(decided, r->decided);
    assert_true(r->page_cv.p_err >= 0 && r->page_cv.p_err <= 1);
    assert_non_null(r->model);
    evaluate_result_free(r);
}

static int stop_when_training(void *ctx, enum evaluate_phase phase, size_t done, size_t total,
                              size_t pages)
{
    int *calls = ctx;
    ++*calls;
    return phase == EVALUATE_TRAIN;
}

static void test_progress_can_stop_it(void **state)
{
    struct testreplay *replay = *state;
    struct jobspec *js = demo_job();
    struct evaluate_opts o;
    opts(replay, &o);
    int calls = 0;
    o.progress = stop_when_training;
    o.progress_ctx = &calls;
    struct evaluate_result *r = NULL;
    assert_int_equal(evaluate_run(js, &o, &r), ERR_INTERRUPT);
    assert_null(r);
    assert_true(calls > 0);
    /* Held-out websites come from labels: none given, none evaluated. */
    o.progress = NULL;
    o.mode = EVALUATE_HELDOUT;
    assert_int_not_equal(evaluate_run(js, &o, &r), ERR_OK);
    assert_null(r);
    jobspec_free(js);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cross_validation_holds_out_each_website_once),
        cmocka_unit_test(test_progress_can_stop_it),
    };
    return cmocka_run_group_tests(tests, testreplay_group_setup, testreplay_group_teardown);
}
