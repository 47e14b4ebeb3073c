/* Unit tests for eval/foundcurve: the exact found curve and its windowed pprs-rate. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "eval/foundcurve.h"

/* Out of order on purpose; one start site at 100 pages, given and not truly relevant. */
static const struct jobscore_verdict verdicts[] = {
    {300, 0, 1}, {100, 0, 0}, {100, 1, 0}, {500, 0, 1}, {200, 0, 1}, {700, 0, 0},
};
#define N_VERDICTS (sizeof verdicts / sizeof verdicts[0])

static void assert_points(const struct foundcurve *c, const struct foundcurve_point *want, size_t n)
{
    assert_int_equal(c->n, n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(c->points[i].pages, want[i].pages);
        assert_int_equal(c->points[i].judged, want[i].judged);
        assert_int_equal(c->points[i].truly, want[i].truly);
    }
}

static void test_build(void **state)
{
    (void)state;
    struct foundcurve c;
    assert_int_equal(foundcurve_build(verdicts, N_VERDICTS, 0, 1000, &c), ERR_OK);
    static const struct foundcurve_point found[] = {
        {100, 1, 0}, {200, 2, 1}, {300, 3, 2}, {500, 4, 3}, {700, 5, 3}, {1000, 5, 3},
    };
    assert_points(&c, found, sizeof found / sizeof found[0]);
    foundcurve_release(&c);

    /* With the start site: two websites at 100 pages, one point each. */
    assert_int_equal(foundcurve_build(verdicts, N_VERDICTS, 1, 1000, &c), ERR_OK);
    static const struct foundcurve_point all[] = {
        {100, 1, 0}, {100, 2, 0}, {200, 3, 1}, {300, 4, 2}, {500, 5, 3}, {700, 6, 3}, {1000, 6, 3},
    };
    assert_points(&c, all, sizeof all / sizeof all[0]);
    foundcurve_release(&c);

    /* Nothing found: the end alone. */
    assert_int_equal(foundcurve_build(NULL, 0, 0, 42, &c), ERR_OK);
    static const struct foundcurve_point none[] = {{42, 0, 0}};
    assert_points(&c, none, 1);
    foundcurve_release(&c);

    /* A verdict after the run's counter (counted late): the end is not before it. */
    static const struct jobscore_verdict late[] = {{500, 0, 1}};
    assert_int_equal(foundcurve_build(late, 1, 0, 400, &c), ERR_OK);
    static const struct foundcurve_point late_want[] = {{500, 1, 1}, {500, 1, 1}};
    assert_points(&c, late_want, 2);
    foundcurve_release(&c);
    foundcurve_release(NULL);
}

static void test_at(void **state)
{
    (void)state;
    struct foundcurve c;
    assert_int_equal(foundcurve_build(verdicts, N_VERDICTS, 0, 1000, &c), ERR_OK);
    static const struct {
        int64_t pages, judged, truly;
    } cases[] = {
        {0, 0, 0}, {99, 0, 0}, {100, 1, 0}, {250, 2, 1}, {500, 4, 3}, {1000, 5, 3}, {5000, 5, 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct foundcurve_point p = foundcurve_at(&c, cases[i].pages);
        assert_int_equal(p.pages, cases[i].pages);
        assert_int_equal(p.judged, cases[i].judged);
        assert_int_equal(p.truly, cases[i].truly);
    }
    foundcurve_release(&c);
}

static void test_pprs_window(void **state)
{
    (void)state;
    struct foundcurve c;
    assert_int_equal(foundcurve_build(verdicts, N_VERDICTS, 0, 1000, &c), ERR_OK);
    static const struct {
        int64_t pages, window;
        double judged, truly; /* NaN: no website in the window */
    } cases[] = {
        /* (500, 1000]: the website at 700 pages, not truly relevant. */
        {1000, 500, 500.0, NAN},
        /* (100, 600]: 200, 300, 500, all truly relevant; the one at 100 is out. */
        {600, 500, 500.0 / 3, 500.0 / 3},
        /* A window longer than the crawl: (0, 300], three judged, two truly. */
        {300, 5000, 100.0, 150.0},
        /* The whole run. */
        {1000, 1000, 200.0, 1000.0 / 3},
        {50, 100, NAN, NAN},
        {0, 100, NAN, NAN},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double j = foundcurve_pprs_window(&c, cases[i].pages, cases[i].window, 0);
        double t = foundcurve_pprs_window(&c, cases[i].pages, cases[i].window, 1);
        if (isnan(cases[i].judged))
            assert_true(isnan(j));
        else
            assert_float_equal(j, cases[i].judged, 1e-12);
        if (isnan(cases[i].truly))
            assert_true(isnan(t));
        else
            assert_float_equal(t, cases[i].truly, 1e-12);
    }
    foundcurve_release(&c);
}

static void test_window_for(void **state)
{
    (void)state;
    assert_int_equal(foundcurve_window_for(5000, 30000), 5000);
    assert_int_equal(foundcurve_window_for(5000, 15000), 5000);
    assert_int_equal(foundcurve_window_for(5000, 300), 100);
    assert_int_equal(foundcurve_window_for(50, 300), 50);
    assert_int_equal(foundcurve_window_for(5000, 2), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build),
        cmocka_unit_test(test_at),
        cmocka_unit_test(test_pprs_window),
        cmocka_unit_test(test_window_for),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
