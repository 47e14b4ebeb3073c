/* Unit tests for eval/evalstats: precision, recall, F-measure, stratified folds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "eval/evalstats.h"

struct case_ {
    struct evalstats s;
    double precision, recall, f1, accuracy;
};

static void test_formulas(void **state)
{
    (void)state;
    static const struct case_ cases[] = {
        /* 28 of 29 relevant sites found, 5 false alarms. */
        {{28, 5, 1, 100}, 28.0 / 33, 28.0 / 29, 2 * 28.0 / (2 * 28 + 5 + 1), 128.0 / 134},
        {{30, 2, 0, 98}, 30.0 / 32, 1.0, 60.0 / 62, 128.0 / 130},
        {{1, 1, 1, 1}, 0.5, 0.5, 0.5, 0.5},
        {{10, 0, 0, 0}, 1, 1, 1, 1},
        /* Nothing predicted relevant: precision 0 by convention, F 0. */
        {{0, 0, 5, 20}, 0, 0, 0, 0.8},
        /* No relevant site at all and none predicted: everything 0 but accuracy. */
        {{0, 0, 0, 7}, 0, 0, 0, 1},
        /* Only false alarms. */
        {{0, 3, 0, 7}, 0, 0, 0, 0.7},
        /* Empty. */
        {{0, 0, 0, 0}, 0, 0, 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct case_ *c = &cases[i];
        assert_float_equal(evalstats_precision(&c->s), c->precision, 1e-15);
        assert_float_equal(evalstats_recall(&c->s), c->recall, 1e-15);
        assert_float_equal(evalstats_f1(&c->s), c->f1, 1e-15);
        assert_float_equal(evalstats_accuracy(&c->s), c->accuracy, 1e-15);
    }
    /* F is the harmonic mean: 2PR/(P+R) = 2tp/(2tp+fp+fn). */
    struct evalstats s = {17, 4, 9, 50};
    double p = evalstats_precision(&s), r = evalstats_recall(&s);
    assert_float_equal(evalstats_f1(&s), 2 * p * r / (p + r), 1e-15);
    assert_float_equal(evalstats_f1(&s), 34.0 / (34 + 4 + 9), 1e-15);
}

/* The F1 of a precision and a recall, as the crawl scores (jobscore) give them. */
static void test_f1_pr(void **state)
{
    (void)state;
    assert_float_equal(evalstats_f1_pr(0.5, 0.5), 0.5, 1e-15);
    assert_float_equal(evalstats_f1_pr(1.0, 0.5), 2.0 / 3, 1e-15);
    assert_float_equal(evalstats_f1_pr(0.25, 1.0), 0.4, 1e-15);
    /* Found nothing right: F 0, not undefined. */
    assert_float_equal(evalstats_f1_pr(0.0, 0.0), 0.0, 0);
    assert_float_equal(evalstats_f1_pr(0.0, 1.0), 0.0, 0);
    /* Nothing found (precision undefined) or no labels (recall undefined): undefined. */
    assert_true(isnan(evalstats_f1_pr(NAN, 0.5)));
    assert_true(isnan(evalstats_f1_pr(0.5, NAN)));
    assert_true(isnan(evalstats_f1_pr(NAN, NAN)));
}

static void test_add(void **state)
{
    (void)state;
    struct evalstats s = {0};
    evalstats_add(&s, 1, 1);
    evalstats_add(&s, 1, 1);
    evalstats_add(&s, 1, 0);
    evalstats_add(&s, 0, 1);
    evalstats_add(&s, 0, 0);
    evalstats_add(&s, 0, 0);
    evalstats_add(&s, 0, 0);
    assert_int_equal(s.tp, 2);
    assert_int_equal(s.fn, 1);
    assert_int_equal(s.fp, 1);
    assert_int_equal(s.tn, 3);
}

static void test_folds(void **state)
{
    (void)state;
    enum { N = 130, FOLDS = 10 };
    int cls[N];
    for (int i = 0; i < N; i++)
        cls[i] = i % 13 < 3; /* 30 relevant, 100 other, interleaved */
    unsigned fold[N], again[N], other_seed[N];
    assert_int_equal(evalstats_folds(cls, N, FOLDS, 42, fold), ERR_OK);
    int size[FOLDS] = {0}, rel[FOLDS] = {0};
    for (int i = 0; i < N; i++) {
        assert_true(fold[i] < FOLDS);
        size[fold[i]]++;
        rel[fold[i]] += cls[i];
    }
    for (int f = 0; f < FOLDS; f++) {
        assert_int_equal(size[f], 13); /* sizes differ by at most one: here all equal */
        assert_int_equal(rel[f], 3);   /* stratified: each fold its share of relevant sites */
    }
    assert_int_equal(evalstats_folds(cls, N, FOLDS, 42, again), ERR_OK);
    assert_memory_equal(fold, again, sizeof fold); /* deterministic */
    assert_int_equal(evalstats_folds(cls, N, FOLDS, 43, other_seed), ERR_OK);
    assert_memory_not_equal(fold, other_seed, sizeof fold); /* the seed shuffles */

    /* Uneven: 7 relevant and 16 other in 5 folds: sizes 4 or 5, relevant 1 or 2. */
    int c2[23];
    for (int i = 0; i < 23; i++)
        c2[i] = i < 7;
    unsigned f2[23];
    assert_int_equal(evalstats_folds(c2, 23, 5, 1, f2), ERR_OK);
    int sz[5] = {0}, rl[5] = {0};
    for (int i = 0; i < 23; i++) {
        sz[f2[i]]++;
        rl[f2[i]] += c2[i];
    }
    for (int f = 0; f < 5; f++) {
        assert_true(sz[f] == 4 || sz[f] == 5);
        assert_true(rl[f] == 1 || rl[f] == 2);
    }

    assert_int_equal(evalstats_folds(cls, N, 1, 42, fold), ERR_INVAL);
    assert_int_equal(evalstats_folds(cls, 5, 6, 42, fold), ERR_INVAL);
    assert_int_equal(evalstats_folds(cls, 5, 5, 42, fold), ERR_OK); /* one site per fold */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_formulas),
        cmocka_unit_test(test_f1_pr),
        cmocka_unit_test(test_add),
        cmocka_unit_test(test_folds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
