/* Websites alike by their words (classifier/sitelike.h), checked by hand. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "classifier/sitelike.h"

enum { REL, REJ, JUDGE, OTHER };

/* A website's vector: 1 + ln(count) of each term over its entries (a term twice: its
 * counts summed), unit length, by term id; sum left zeroed. */
static void test_vector(void **state)
{
    (void)state;
    const uint32_t term[] = {2, 0, 2, 3}, count[] = {1, 2, 2, 1}, label[] = {REL, REL};
    const size_t at[] = {0, 3, 4}; /* website 0: terms 2, 0, 2; website 1: term 3 */
    struct sitelike_sites w = {term, count, at, label, 2, 4};
    double sum[4] = {0};
    struct tfidf_vec v;
    assert_int_equal(sitelike_vector(&w, 0, sum, &v), ERR_OK);
    double a = 1 + log(2), b = 1 + log(3), n = sqrt(a * a + b * b);
    assert_int_equal(v.n, 2);
    assert_int_equal(v.id[0], 0);
    assert_int_equal(v.id[1], 2);
    assert_true(fabs(v.w[0] - a / n) < 1e-12 && fabs(v.w[1] - b / n) < 1e-12);
    for (int t = 0; t < 4; t++)
        assert_true(sum[t] == 0);
    tfidf_vec_release(&v);
}

/*
 * Four terms. Relevant website 0 is {0, 1}; rejected websites 1 {2, 3} and 2 {3}. Websites
 * to judge: 3 {0, 1, 2} (more like the relevant one), 4 {2, 3, 3} (like rejected 1 more
 * than rejected 2), 5 {3} (rejected 2 itself), 6 {0, 1, 2, 3} (as like relevant 0 as
 * rejected 1: a tie, no veto), 7 no entry (none), 8 of another label (not judged).
 */
static void test_rejected(void **state)
{
    (void)state;
    const uint32_t term[] = {0, 1, 2, 3, 3, 0, 1, 2, 2, 3, 3, 3, 0, 1, 2, 3, 2};
    const uint32_t count[] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    const size_t at[] = {0, 2, 4, 5, 8, 11, 12, 16, 16, 17};
    const uint32_t label[] = {REL, REJ, REJ, JUDGE, JUDGE, JUDGE, JUDGE, JUDGE, OTHER};
    struct sitelike_sites w = {term, count, at, label, 9, 4};
    size_t like[9];
    assert_int_equal(sitelike_rejected(&w, REJ, REL, JUDGE, like, NULL), ERR_OK);
    const size_t want[9] = {SIZE_MAX, SIZE_MAX, SIZE_MAX, SIZE_MAX, 1,
                            2,        SIZE_MAX, SIZE_MAX, SIZE_MAX};
    for (int s = 0; s < 9; s++)
        assert_true(like[s] == want[s]);

    /* No rejected website: none. */
    const uint32_t none[] = {REL, OTHER, OTHER, JUDGE, JUDGE, JUDGE, JUDGE, JUDGE, OTHER};
    w.label = none;
    assert_int_equal(sitelike_rejected(&w, REJ, REL, JUDGE, like, NULL), ERR_OK);
    for (int s = 0; s < 9; s++)
        assert_true(like[s] == SIZE_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vector),
        cmocka_unit_test(test_rejected),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
