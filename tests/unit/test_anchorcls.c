/* The learning anchor classifier (classifier/anchorcls.h): naive Bayes on hand-computed
 * cases, trained one example at a time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "classifier/anchorcls.h"

static double score(struct anchorcls *a, const char *text)
{
    double p = -1;
    assert_int_equal(anchorcls_score(a, text, strlen(text), &p), ERR_OK);
    return p;
}

static void add(struct anchorcls *a, const char *text, int relevant)
{
    assert_int_equal(anchorcls_add(a, text, strlen(text), relevant), ERR_OK);
}

/* The formula alone: one term seen 2 times of 3 in relevant anchors, 0 of 2 in the
 * others, 4 terms known, 2 relevant and 1 other example:
 * ln 2 + ln(3/7) - ln(1/6) = 1.6376087802, 1 / (1 + e^-1.6376) = 0.8372093023. */
static void posterior_formula(void **state)
{
    (void)state;
    const uint32_t c[] = {1};
    const uint64_t t[] = {2}, o[] = {0};
    assert_float_equal(anchorcls_posterior(c, t, o, 1, 3, 2, 4, 2, 1), 0.8372093023, 1e-9);
    /* No example of a class yet: no opinion. */
    assert_float_equal(anchorcls_posterior(c, t, o, 1, 3, 0, 4, 2, 0), 0.5, 0);
    /* No term: the prior alone, 2 / 3. */
    assert_float_equal(anchorcls_posterior(c, t, o, 0, 3, 2, 4, 2, 1), 2.0 / 3, 1e-12);
}

/*
 * Relevant: "rocket launch", "Rockets"; other: "cheap loans". V = 4 (rocket, launch,
 * cheap, loan), T = 3, O = 2, n_t = 2, n_o = 1 (hand-computed):
 *   rocket:        ln 2 + ln(3/7) - ln(1/6)  -> 0.8372093023
 *   cheap:         ln 2 + ln(1/7) - ln(2/6)  -> 0.4615384615
 *   zebra:         ln 2 + ln(1/7) - ln(1/6)  -> 0.6315789474 (unknown: the prior and V)
 *   rocket rocket cheap: ln 2 + 2 (ln(3/7) - ln(1/6)) + ln(1/7) - ln(2/6) -> 0.8500218627
 */
static void learns_online(void **state)
{
    (void)state;
    struct tokenize_opts tok;
    tokenize_opts_default(&tok);
    struct anchorcls *a = NULL;
    assert_int_equal(anchorcls_new(&tok, &a), ERR_OK);
    assert_float_equal(score(a, "rocket"), 0.5, 0); /* untrained */
    add(a, "rocket launch", 1);
    assert_float_equal(score(a, "rocket"), 0.5, 0); /* one class only */
    add(a, "cheap loans", 0);
    add(a, "Rockets", 1);
    assert_int_equal(anchorcls_examples(a, 1), 2);
    assert_int_equal(anchorcls_examples(a, 0), 1);
    assert_float_equal(score(a, "rocket"), 0.8372093023, 1e-9);
    assert_float_equal(score(a, "Cheap!"), 0.4615384615, 1e-9);
    assert_float_equal(score(a, "zebra"), 0.6315789474, 1e-9);
    assert_float_equal(score(a, "rocket, rocket, cheap"), 0.8500218627, 1e-9);
    assert_float_equal(score(a, "the"), 0.5, 0); /* stop words only: no token */
    add(a, "", 1);                               /* no token: not an example */
    assert_int_equal(anchorcls_examples(a, 1), 2);
    anchorcls_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(posterior_formula),
        cmocka_unit_test(learns_online),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
