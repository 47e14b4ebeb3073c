/* The linear SVM solver (classifier/svm.h) on tiny cases whose optimum is computed by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "classifier/svm.h"

/* Dense rows of `dim` numbers as sparse vectors (zeros left out), into v[0..n). */
static void make_vecs(const double *rows, size_t n, uint32_t dim, struct tfidf_vec *v)
{
    for (size_t i = 0; i < n; i++) {
        tfidf_vec_init(&v[i]);
        for (uint32_t d = 0; d < dim; d++)
            if (rows[i * dim + d] != 0)
                assert_int_equal(tfidf_vec_push(&v[i], d, rows[i * dim + d]), ERR_OK);
    }
}

static void free_vecs(struct tfidf_vec *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        tfidf_vec_release(&v[i]);
}

/* Solved to the end: the hand-computed optima below hold to 1e-6. */
static void exact_params(struct svm_params *p, enum svm_loss loss, double c, double bias)
{
    svm_params_default(p);
    p->loss = loss;
    p->c_pos = p->c_neg = c;
    p->bias = bias;
    p->tol = 1e-10;
    p->max_iter = 100000;
}

static void separable_2d_every_sign_right(void **state)
{
    (void)state;
    static const double rows[] = {2, 2, 3, 1, 2, 3, 1, 0.5, -1, -1, 0, -2, -2, 0, -0.5, -1};
    static const int8_t y[] = {1, 1, 1, 1, -1, -1, -1, -1};
    enum { N = 8 };
    struct tfidf_vec x[N];
    make_vecs(rows, N, 2, x);
    for (int loss = SVM_L1_LOSS; loss <= SVM_L2_LOSS; loss++) {
        struct svm_params p;
        svm_params_default(&p);
        p.loss = (enum svm_loss)loss;
        double w[2], b;
        uint32_t passes;
        assert_int_equal(svm_train(&p, x, y, N, 2, w, &b, &passes), ERR_OK);
        assert_true(passes >= 1 && passes < p.max_iter); /* converged */
        for (int i = 0; i < N; i++)
            if (y[i] * svm_decision(w, b, &x[i]) <= 0)
                fail_msg("loss %d: point %d on the wrong side (w %g %g, b %g)", loss, i, w[0], w[1],
                         b);
    }
    free_vecs(x, N);
}

/*
 * Hard margin, 1-D: x = 3 (y +1), x = 1 (y -1), bias feature 1. Minimise
 * 1/2 (w^2 + b^2) with 3w + b >= 1 and w + b <= -1: both active gives w = 1, b = -2,
 * and the multipliers (w, b) = a1 (3, 1) - a2 (1, 1) are a1 = 1.5, a2 = 3.5 > 0, so
 * it is the optimum whenever C >= 3.5 (the hinge then costs nothing).
 */
static void hard_margin_with_bias(void **state)
{
    (void)state;
    static const double rows[] = {3, 1};
    static const int8_t y[] = {1, -1};
    struct tfidf_vec x[2];
    make_vecs(rows, 2, 1, x);
    struct svm_params p;
    exact_params(&p, SVM_L1_LOSS, 10, 1);
    double w, b;
    assert_int_equal(svm_train(&p, x, y, 2, 1, &w, &b, NULL), ERR_OK);
    assert_float_equal(w, 1, 1e-6);
    assert_float_equal(b, -2, 1e-6);
    assert_float_equal(svm_decision(&w, b, &x[0]), 1, 1e-6); /* on the margin */
    assert_float_equal(svm_decision(&w, b, &x[1]), -1, 1e-6);
    free_vecs(x, 2);
}

/*
 * x = +1 (y +1), x = -1 (y -1). The bias cancels between the two (b = 0 by symmetry).
 * Hinge: 1/2 w^2 + 2C (1 - w) for w <= 1 is least at w = 2C: with C = 0.25 the box
 * a_i <= C binds, w = 0.5 (not the hard-margin 1).
 * Hinge squared: 1/2 w^2 + 2C (1 - w)^2 is least at w = 4C / (1 + 4C): 0.8 for C = 1.
 */
static void soft_margin_optima(void **state)
{
    (void)state;
    static const double rows[] = {1, -1};
    static const int8_t y[] = {1, -1};
    struct tfidf_vec x[2];
    make_vecs(rows, 2, 1, x);
    struct svm_params p;
    double w, b;
    exact_params(&p, SVM_L1_LOSS, 0.25, 1);
    assert_int_equal(svm_train(&p, x, y, 2, 1, &w, &b, NULL), ERR_OK);
    assert_float_equal(w, 0.5, 1e-6);
    assert_float_equal(b, 0, 1e-6);
    exact_params(&p, SVM_L1_LOSS, 100, 0); /* no bias: hard margin w = 1 */
    assert_int_equal(svm_train(&p, x, y, 2, 1, &w, &b, NULL), ERR_OK);
    assert_float_equal(w, 1, 1e-6);
    assert_true(b == 0);
    exact_params(&p, SVM_L2_LOSS, 1, 1);
    assert_int_equal(svm_train(&p, x, y, 2, 1, &w, &b, NULL), ERR_OK);
    assert_float_equal(w, 0.8, 1e-6);
    assert_float_equal(b, 0, 1e-6);
    exact_params(&p, SVM_L2_LOSS, 0.25, 0); /* 4C / (1 + 4C) = 1/2 */
    assert_int_equal(svm_train(&p, x, y, 2, 1, &w, &b, NULL), ERR_OK);
    assert_float_equal(w, 0.5, 1e-6);
    free_vecs(x, 2);
}

/*
 * Class weights move the boundary: x = +1 once (y +1) and x = -1 (y -1) three times,
 * hinge squared, no bias. Unweighted: 1/2 w^2 + (1 - w)^2 + 3 (1 - w)^2 is least at
 * w = 8/9. Balanced (svm_class_costs(1, 1, 3): C+ = 2, C- = 2/3): 1/2 w^2 +
 * 2 (1 - w)^2 + 2 (1 - w)^2, least at w = 8/9 as well, since here both push w the
 * same way. With a bias, unweighted, setting both derivatives of
 * 1/2 (w^2 + b^2) + (1 - w - b)^2 + 3 (1 - w + b)^2 to 0 gives w = 56/65, b = -4/65:
 * the majority pulls b its way. Balanced, the classes weigh alike and b = 0 by symmetry.
 */
static void class_costs(void **state)
{
    (void)state;
    double cp, cn;
    svm_class_costs(1, 10, 30, &cp, &cn);
    assert_float_equal(cp, 2, 1e-15);
    assert_float_equal(cn, 40.0 / 60, 1e-15);
    svm_class_costs(3, 0, 5, &cp, &cn); /* no positive example: c for it, 3 * 5 / 10 */
    assert_float_equal(cp, 3, 1e-15);
    assert_float_equal(cn, 1.5, 1e-15);

    static const double rows[] = {1, -1, -1, -1};
    static const int8_t y[] = {1, -1, -1, -1};
    struct tfidf_vec x[4];
    make_vecs(rows, 4, 1, x);
    struct svm_params p;
    double w, b;
    exact_params(&p, SVM_L2_LOSS, 1, 0);
    assert_int_equal(svm_train(&p, x, y, 4, 1, &w, &b, NULL), ERR_OK);
    assert_float_equal(w, 8.0 / 9, 1e-6);
    exact_params(&p, SVM_L2_LOSS, 1, 1);
    assert_int_equal(svm_train(&p, x, y, 4, 1, &w, &b, NULL), ERR_OK);
    /* Unweighted with a bias: w = 56/65, b = -4/65 (the majority wins the bias). */
    assert_float_equal(w, 56.0 / 65, 1e-6);
    assert_float_equal(b, -4.0 / 65, 1e-6);
    svm_class_costs(1, 1, 3, &p.c_pos, &p.c_neg);
    assert_int_equal(svm_train(&p, x, y, 4, 1, &w, &b, NULL), ERR_OK);
    assert_float_equal(b, 0, 1e-6);
    free_vecs(x, 4);
}

static void decision_on_a_known_vector(void **state)
{
    (void)state;
    const double w[] = {0.5, -2, 1};
    struct tfidf_vec x;
    tfidf_vec_init(&x);
    assert_int_equal(tfidf_vec_push(&x, 2, 3), ERR_OK);
    assert_int_equal(tfidf_vec_push(&x, 0, 2), ERR_OK);
    /* 0.25 + 0.5 * 2 + 1 * 3 */
    assert_float_equal(svm_decision(w, 0.25, &x), 4.25, 1e-15);
    x.n = 0;
    assert_float_equal(svm_decision(w, 0.25, &x), 0.25, 1e-15);
    tfidf_vec_release(&x);
}

static void bad_input(void **state)
{
    (void)state;
    static const double rows[] = {1, -1};
    struct tfidf_vec x[2];
    make_vecs(rows, 2, 1, x);
    struct svm_params p;
    svm_params_default(&p);
    double w = 7, b = 7;
    const int8_t bad_label[] = {1, 0};
    assert_int_equal(svm_train(&p, x, bad_label, 2, 1, &w, &b, NULL), ERR_INVAL);
    const int8_t y[] = {1, -1};
    assert_int_equal(svm_train(&p, x, y, 2, 0, &w, &b, NULL), ERR_INVAL); /* id 0 >= dim 0 */
    p.c_pos = 0;
    assert_int_equal(svm_train(&p, x, y, 2, 1, &w, &b, NULL), ERR_INVAL);
    assert_true(b == 0);
    /* No example at all: w = 0, b = 0. */
    svm_params_default(&p);
    assert_int_equal(svm_train(&p, x, y, 0, 1, &w, &b, NULL), ERR_OK);
    assert_true(w == 0 && b == 0);
    free_vecs(x, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(separable_2d_every_sign_right),
        cmocka_unit_test(hard_margin_with_bias),
        cmocka_unit_test(soft_margin_optima),
        cmocka_unit_test(class_costs),
        cmocka_unit_test(decision_on_a_known_vector),
        cmocka_unit_test(bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
