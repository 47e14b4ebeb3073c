/* The calibration of page confidences (classifier/calib.h) on hand-computed cases. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdbool.h>

#include "classifier/calib.h"

static double sigmoid(double t)
{
    return 1 / (1 + exp(-t));
}

static void identity_until_fitted(void **state)
{
    (void)state;
    struct calib none = {0};
    assert_float_equal(calib_apply(&none, 0.73, 5), 0.73, 1e-15);
    /* One class only: nothing to fit. */
    const double x[] = {0.6, 0.7};
    const uint32_t terms[] = {10, 10};
    const bool target[] = {true, true};
    struct calib c;
    calib_fit(x, terms, target, 2, &c);
    assert_true(c.a == 0);
}

static void apply_formula(void **state)
{
    (void)state;
    struct calib c = {.a = 3, .temper = 0.5, .short_terms = 30};
    /* x = 0.75: logit ln 3; 30 terms: halved; slope 3, temper 0.5 -> 0.75 ln 3. */
    assert_float_equal(calib_apply(&c, 0.75, 30), sigmoid(0.75 * log(3)), 1e-12);
    /* A page with no known term is no evidence, whatever its confidence says. */
    assert_float_equal(calib_apply(&c, 0.99, 0), 0.5, 1e-15);
    /* 1/2 stays 1/2 (no intercept), and the order of confidences is kept. */
    assert_float_equal(calib_apply(&c, 0.5, 100), 0.5, 1e-15);
    assert_true(calib_apply(&c, 0.6, 100) < calib_apply(&c, 0.7, 100));
    assert_true(calib_apply(&c, 0.3, 100) < 0.3); /* sharpened: further from 1/2 */
}

/*
 * Held-out pages whose confidence is 0.6 or 0.4 and right 90% of the time: the
 * balanced log-loss is least where sigmoid(a z) hits the smoothed targets' mean, i.e.
 * a z = logit(0.9 - smoothing) with z = ln 1.5 * n / (n + 30). With 500 pages a
 * class and Platt's targets (501/502, 1/502): solve numerically below.
 */
static void fit_recovers_the_slope(void **state)
{
    (void)state;
    enum { N = 1000 };
    static double x[N];
    static uint32_t terms[N];
    static bool target[N];
    for (int i = 0; i < N; i++) {
        target[i] = i < N / 2;
        int right = (i % 10) != 0; /* 9 in 10 on the right side */
        x[i] = target[i] == right ? 0.6 : 0.4;
        terms[i] = 30;
    }
    struct calib c;
    calib_fit(x, terms, target, N, &c);
    assert_float_equal(c.temper, CALIB_TEMPER, 0);
    assert_float_equal(c.short_terms, CALIB_SHORT_TERMS, 0);
    /* Each class: 450 pages at +z and 50 at -z (target class), mirrored for the other.
     * With t = 501/502 the target's pages want p(z) such that the derivative vanishes:
     * 450 (p - t) - 50 (1 - p - t) = 0  (p = sigmoid(a z), 1 - p = sigmoid(-a z))
     * -> p = (450 t + 50 (1 - t)) / 500. */
    double t = 501.0 / 502, p = (450 * t + 50 * (1 - t)) / 500;
    double z = log(1.5) * 30 / (30 + CALIB_SHORT_TERMS);
    assert_float_equal(c.a, log(p / (1 - p)) / z, 1e-6);
}

/*
 * calib_fit_shifted (the SVM's): target pages at margin +0.5, as many other pages at
 * -1.5, 30 known terms each. The loss is symmetric about the margin -0.5 (swap the
 * classes and reflect: Platt's two targets are 1 - each other), so the fit puts
 * 1/2 there: a * (-0.5) + offset = 0, offset = a / 2, whatever the shrink.
 */
static void fit_shifted_centres_the_classes(void **state)
{
    (void)state;
    enum { N = 40 };
    double x[N];
    uint32_t terms[N];
    bool target[N];
    for (int i = 0; i < N; i++) {
        target[i] = i < N / 2;
        x[i] = sigmoid(target[i] ? 0.5 : -1.5);
        terms[i] = 30;
    }
    struct calib c;
    calib_fit_shifted(x, terms, target, N, &c);
    assert_true(c.a > 0 && isfinite(c.a));
    assert_float_equal(c.offset, c.a / 2, 1e-6 * c.a);
    assert_float_equal(c.temper, CALIB_TEMPER, 0);
    assert_float_equal(calib_apply(&c, sigmoid(-0.5), 30), 0.5, 1e-6);
    /* Two points a class: the fit meets Platt's targets, 21/22 and 1/22, before the temper. */
    assert_float_equal(calib_apply(&c, sigmoid(0.5), 30), sigmoid(CALIB_TEMPER * log(21.0)), 1e-6);
    assert_float_equal(calib_apply(&c, sigmoid(-1.5), 30), sigmoid(-CALIB_TEMPER * log(21.0)),
                       1e-6);
    /* The shift shrinks with the page's terms: no term, no evidence either way. */
    assert_float_equal(calib_apply(&c, sigmoid(3), 0), 0.5, 1e-15);
    /* calib_fit's slope-only fit has no shift; one class leaves the identity. */
    struct calib plain;
    calib_fit(x, terms, target, N, &plain);
    assert_true(plain.a > 0 && plain.offset == 0);
    calib_fit_shifted(x, terms, target, N / 2, &c);
    assert_true(c.a == 0 && c.offset == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(identity_until_fitted),
        cmocka_unit_test(apply_formula),
        cmocka_unit_test(fit_recovers_the_slope),
        cmocka_unit_test(fit_shifted_centres_the_classes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
