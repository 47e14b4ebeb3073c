/* Unit tests for classifier/sitecls: hand-computed Bayes, stop rule, degenerate pages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>

#include "classifier/sitecls.h"

#define TOL 1e-12

/*
 * One case: pages added in order with the posterior Pr[target|W_t] expected after
 * each; decided_at = the page (1-based) at which the threshold is reached, 0 = never.
 */
struct step_case {
    const char *name;
    double prior, p_err, threshold;
    int n;
    double page[4];
    double want[4];
    int decided_at;
    bool relevant;
};

/*
 * Hand computations (P't = x(1-e) + (1-x)e, P'o = (1-x)(1-e) + xe):
 * A: prior .5, e .1: x .8 -> .74/.26, post .74; x .7 -> .66/.34,
 *    post .74*.66 / (.74*.66 + .26*.34) = .4884/.5768 = 0.846740638002774;
 *    x .9 -> .82/.18, post .400488/(.400488 + .015912) = 0.9617867435158501 >= .9: stop;
 *    a 4th page (x .0) is ignored.
 * B: prior .2, e .15, thr .95: x .6 -> .57/.43, post .114/(.114 + .344) = 0.2489082969432314;
 *    x .3 -> .36/.64, post .04104/(.04104 + .22016) = 0.1571209800918836; undecided, not relevant.
 * C: prior .5, e .1: x .1 -> .18/.82, post .18; x .2 -> .26/.74,
 *    post .0468/(.0468 + .6068) = 0.07160342717258263: Pr[other] .928 >= .9, stop, not relevant.
 * D: e .1, thr .99: a page of confidence 1.0 -> .9/.1 = post .9; again -> 81/82, undecided.
 * E: e = 0.5: pages carry no information, the posterior stays at the prior .3.
 */
static const struct step_case cases[] = {
    {"A",
     0.5,
     0.1,
     0.9,
     4,
     {0.8, 0.7, 0.9, 0.0},
     {0.74, 0.846740638002774, 0.9617867435158501, 0.9617867435158501},
     3,
     true},
    {"B", 0.2, 0.15, 0.95, 2, {0.6, 0.3}, {0.2489082969432314, 0.1571209800918836}, 0, false},
    {"C", 0.5, 0.1, 0.9, 2, {0.1, 0.2}, {0.18, 0.07160342717258263}, 2, false},
    {"D", 0.5, 0.1, 0.99, 2, {1.0, 1.0}, {0.9, 81.0 / 82.0}, 0, true},
    {"E", 0.3, 0.5, 0.9, 3, {1.0, 0.0, 0.9}, {0.3, 0.3, 0.3}, 0, false},
};

static void test_hand_computed(void **state)
{
    (void)state;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const struct step_case *k = &cases[c];
        struct sitecls s;
        assert_int_equal(sitecls_init(&s, k->prior, k->p_err, k->threshold), ERR_OK);
        assert_float_equal(sitecls_confidence(&s), k->prior, TOL);
        assert_false(sitecls_decided(&s));
        assert_int_equal(sitecls_pages(&s), 0);
        for (int i = 0; i < k->n; i++) {
            bool d = sitecls_add_page(&s, k->page[i]);
            if (fabs(sitecls_confidence(&s) - k->want[i]) > TOL)
                fail_msg("case %s page %d: posterior %.17g, want %.17g", k->name, i + 1,
                         sitecls_confidence(&s), k->want[i]);
            assert_int_equal(d, k->decided_at && i + 1 >= k->decided_at);
            assert_int_equal(sitecls_decided(&s), d);
        }
        assert_int_equal(sitecls_relevant(&s), k->relevant);
        assert_int_equal(sitecls_pages(&s), k->decided_at ? k->decided_at : k->n);
    }
}

static void test_p_err_zero_does_not_nan(void **state)
{
    (void)state;
    struct sitecls s;
    /* p_err 0 and a page of confidence 1: P'(p|other) = 0 is floored at 1e-12. */
    assert_int_equal(sitecls_init(&s, 0.5, 0.0, 1.0), ERR_OK);
    sitecls_add_page(&s, 1.0);
    assert_true(isfinite(sitecls_confidence(&s)));
    assert_float_equal(sitecls_confidence(&s), 1.0 / (1.0 + 1e-12), TOL);
    assert_true(sitecls_relevant(&s));
    assert_false(sitecls_decided(&s)); /* threshold 1.0 is never quite reached */
    /* An opposite page cancels it exactly: back to the prior. */
    sitecls_add_page(&s, 0.0);
    assert_float_equal(sitecls_confidence(&s), 0.5, TOL);
    /* More certain pages: the posterior rounds to exactly 1 (which meets threshold 1.0),
     * never NaN or above 1. */
    for (int i = 0; i < 10000 && !sitecls_decided(&s); i++)
        sitecls_add_page(&s, 1.0);
    assert_float_equal(sitecls_confidence(&s), 1.0, 0);
    assert_true(sitecls_relevant(&s));
    assert_int_equal(sitecls_pages(&s), 4);

    /* p_err 0, page 0.0 first: decided "other" at once. */
    assert_int_equal(sitecls_init(&s, 0.5, 0.0, 0.9), ERR_OK);
    assert_true(sitecls_add_page(&s, 0.0));
    assert_float_equal(sitecls_confidence(&s), 1e-12 / (1 + 1e-12), 1e-20);
    assert_false(sitecls_relevant(&s));

    /* Prior 0 is raised to 1e-6: a certain page still wins, finitely. */
    assert_int_equal(sitecls_init(&s, 0.0, 0.0, 0.9), ERR_OK);
    assert_true(isfinite(log(sitecls_confidence(&s))));
    sitecls_add_page(&s, 1.0);
    assert_float_equal(sitecls_confidence(&s), 1.0 / (1.0 + 1e-6 * (1 - 1e-6)), 1e-9);
    assert_true(sitecls_decided(&s) && sitecls_relevant(&s));
}

static void test_degenerate_pages_with_error(void **state)
{
    (void)state;
    /* With p_err 0.1 confidences 1.0/0.0 count at most 9:1 each, as the paper intends. */
    struct sitecls s;
    assert_int_equal(sitecls_init(&s, 0.5, 0.1, 0.99), ERR_OK);
    sitecls_add_page(&s, 1.0);
    sitecls_add_page(&s, 1.0);
    assert_float_equal(sitecls_confidence(&s), 81.0 / 82.0, TOL);
    assert_false(sitecls_decided(&s));
    sitecls_add_page(&s, 1.0);
    assert_float_equal(sitecls_confidence(&s), 729.0 / 730.0, TOL);
    assert_true(sitecls_decided(&s));
    /* Out-of-range and NaN confidences: clamped / no evidence. */
    assert_int_equal(sitecls_init(&s, 0.5, 0.1, 0.99), ERR_OK);
    sitecls_add_page(&s, 1.5);
    assert_float_equal(sitecls_confidence(&s), 0.9, TOL);
    sitecls_add_page(&s, NAN);
    assert_float_equal(sitecls_confidence(&s), 0.9, TOL);
    assert_int_equal(sitecls_pages(&s), 2);
    sitecls_add_page(&s, -3);
    assert_float_equal(sitecls_confidence(&s), 0.5, TOL);
}

static void test_threshold_edge(void **state)
{
    (void)state;
    /* The first page past the threshold stops; exactly 0.5 is not relevant (strict >). */
    struct sitecls s;
    assert_int_equal(sitecls_init(&s, 0.5, 0.0, 0.7), ERR_OK);
    assert_true(sitecls_add_page(&s, 0.75));
    assert_float_equal(sitecls_confidence(&s), 0.75, TOL);
    assert_int_equal(sitecls_init(&s, 0.5, 0.0, 0.8), ERR_OK);
    assert_false(sitecls_add_page(&s, 0.75));
    assert_int_equal(sitecls_init(&s, 0.5, 0.1, 0.9), ERR_OK);
    sitecls_add_page(&s, 0.5);
    assert_false(sitecls_relevant(&s));
    assert_false(sitecls_decided(&s));
}

static void test_relevant_min(void **state)
{
    (void)state;
    /* Undecided on one page at 0.6 (p_err 0.1: posterior 0.58): relevant without a floor,
     * not with a floor of 2 until a second page agrees. */
    struct sitecls s;
    assert_int_equal(sitecls_init(&s, 0.5, 0.1, 0.9), ERR_OK);
    assert_false(sitecls_add_page(&s, 0.6));
    assert_float_equal(sitecls_confidence(&s), 0.58, TOL);
    assert_true(sitecls_relevant(&s));
    assert_true(sitecls_relevant_min(&s, 0));
    assert_true(sitecls_relevant_min(&s, 1));
    assert_false(sitecls_relevant_min(&s, 2));
    assert_false(sitecls_add_page(&s, 0.6));
    assert_true(sitecls_relevant_min(&s, 2));
    assert_false(sitecls_relevant_min(&s, 3));
    /* Decided by p_threshold on one page: the floor does not apply. */
    assert_int_equal(sitecls_init(&s, 0.5, 0.0, 0.7), ERR_OK);
    assert_true(sitecls_add_page(&s, 0.75));
    assert_true(sitecls_relevant_min(&s, 5));
    /* The floor never makes a website relevant. */
    assert_int_equal(sitecls_init(&s, 0.5, 0.1, 0.9), ERR_OK);
    sitecls_add_page(&s, 0.4);
    sitecls_add_page(&s, 0.4);
    assert_false(sitecls_relevant_min(&s, 0));
    assert_false(sitecls_relevant_min(&s, 2));
}

static void test_init_rejects(void **state)
{
    (void)state;
    struct sitecls s;
    assert_int_equal(sitecls_init(&s, -0.1, 0.1, 0.9), ERR_INVAL);
    assert_int_equal(sitecls_init(&s, 1.1, 0.1, 0.9), ERR_INVAL);
    assert_int_equal(sitecls_init(&s, NAN, 0.1, 0.9), ERR_INVAL);
    assert_int_equal(sitecls_init(&s, 0.5, 1.5, 0.9), ERR_INVAL);
    assert_int_equal(sitecls_init(&s, 0.5, NAN, 0.9), ERR_INVAL);
    assert_int_equal(sitecls_init(&s, 0.5, 0.1, 0.0), ERR_INVAL);
    assert_int_equal(sitecls_init(&s, 0.5, 0.1, 1.01), ERR_INVAL);
    assert_int_equal(sitecls_init(&s, 1.0, 1.0, 1.0), ERR_OK);
}

static void test_prior(void **state)
{
    (void)state;
    assert_float_equal(sitecls_prior(0, 0, 0.5, 10), 0.5, TOL);
    assert_float_equal(sitecls_prior(10, 10, 0.5, 10), 0.75, TOL);    /* (10 + 5) / 20 */
    assert_float_equal(sitecls_prior(3, 20, 0.5, 10), 8.0 / 30, TOL); /* (3 + 5) / 30 */
    assert_float_equal(sitecls_prior(0, 100, 0.5, 10), 0.05, TOL);    /* 5/110, floored */
    assert_float_equal(sitecls_prior(100, 100, 0.5, 10), 0.95, TOL);  /* 105/110, capped */
    assert_float_equal(sitecls_prior(0, 0, 0.3, 0), 0.3, TOL);
    assert_float_equal(sitecls_prior(5, 4, 0.5, 0), 0.95, TOL); /* relevant > examined */
}

static void test_linkrank(void **state)
{
    (void)state;
    struct sitecls_linkrank lr;
    sitecls_linkrank_init(&lr, 1.0);
    sitecls_linkrank_add(&lr, 0.8, 10); /* 0.8 * 10 + 1 = 9 */
    sitecls_linkrank_add(&lr, 0.2, 5);  /* 0.2 * 5 + 1 = 2 */
    assert_float_equal(lr.sum, 11, TOL);
    assert_float_equal(sitecls_linkrank_value(&lr, 0.5), 22, TOL);
    assert_float_equal(sitecls_linkrank_value(&lr, 1.0), 11, TOL);
    assert_float_equal(sitecls_linkrank_value(&lr, 0.0), 11e6, 1e-3); /* floored at 1e-6 */
    sitecls_linkrank_add(&lr, NAN, 2);                                /* 0.5 * 2 + 1 */
    assert_float_equal(lr.sum, 13, TOL);
    sitecls_linkrank_add(&lr, 0.3, 0); /* no links: c only */
    assert_float_equal(lr.sum, 14, TOL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_computed),
        cmocka_unit_test(test_p_err_zero_does_not_nan),
        cmocka_unit_test(test_degenerate_pages_with_error),
        cmocka_unit_test(test_threshold_edge),
        cmocka_unit_test(test_relevant_min),
        cmocka_unit_test(test_init_rejects),
        cmocka_unit_test(test_prior),
        cmocka_unit_test(test_linkrank),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
