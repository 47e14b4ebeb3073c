/* The crawl model's website confidence (job/jobjudge.h, issue 30). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "job/jobjudge.h"
#include "job/jobmodel.h"

/* sigma(logit(score) - logit(threshold)): the threshold maps to 1/2, exactly. */
static void test_threshold_is_one_half(void **state)
{
    (void)state;
    const double t[] = {0.01, 0.067, 0.1, 0.5, 0.9};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        assert_true(fabs(jobjudge_confidence(t[i], t[i]) - 0.5) < 1e-12);
}

/* Above the threshold is above 1/2, below is below, and the order of the scores stays. */
static void test_order_and_side(void **state)
{
    (void)state;
    double last = -1;
    for (double s = 0.001; s < 1; s += 0.01) {
        double c = jobjudge_confidence(s, 0.1);
        assert_true(c > last);
        assert_true((s > 0.1) == (c > 0.5));
        last = c;
    }
}

/* A value by hand: score 0.3 at threshold 0.1 is odds 3/7 against 1/9, a ratio of 27/7,
 * so 27 / 34; the ends are clamped, never 0, 1 or NaN. */
static void test_by_hand_and_ends(void **state)
{
    (void)state;
    assert_true(fabs(jobjudge_confidence(0.3, 0.1) - 27.0 / 34.0) < 1e-12);
    double lo = jobjudge_confidence(0, 0.1), hi = jobjudge_confidence(1, 0.1);
    assert_true(lo > 0 && lo < 1e-7);
    assert_true(hi < 1 && hi > 1 - 1e-7);
    assert_false(isnan(jobjudge_confidence(0, 0)));
}

/* A website's pages gathered as the model's term ids (the likeness to rejected websites): a
 * page of no known term adds nothing, first or later (UBSan: no copy from or to an array
 * not made yet); the others' ids and counts in order. */
static void test_site_ids(void **state)
{
    (void)state;
    struct site_ids ids = {0};
    struct page_ids *pi = calloc(1, sizeof *pi);
    assert_non_null(pi);
    jobmodel_site_ids_add(&ids, pi);
    assert_true(ids.n == 0 && !ids.failed);
    pi->n = 2;
    pi->term[0] = 3, pi->count[0] = 1, pi->term[1] = 5, pi->count[1] = 2;
    jobmodel_site_ids_add(&ids, pi);
    pi->n = 0;
    jobmodel_site_ids_add(&ids, pi);
    pi->n = 1;
    pi->term[0] = 3, pi->count[0] = 4;
    jobmodel_site_ids_add(&ids, pi);
    assert_true(ids.n == 3 && !ids.failed);
    assert_true(ids.term[0] == 3 && ids.term[1] == 5 && ids.term[2] == 3);
    assert_true(ids.count[0] == 1 && ids.count[1] == 2 && ids.count[2] == 4);
    free(ids.term);
    free(ids.count);
    free(pi);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threshold_is_one_half),
        cmocka_unit_test(test_order_and_side),
        cmocka_unit_test(test_by_hand_and_ends),
        cmocka_unit_test(test_site_ids),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
