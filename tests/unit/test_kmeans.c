/* Unit tests for classifier/kmeans and classifier/rng: toy clusters, determinism, edges. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "classifier/kmeans.h"
#include "classifier/rng.h"

#define DIM 6

/* A unit vector from a dense row (zeros skipped). */
static void make(struct tfidf_vec *v, const double *row)
{
    tfidf_vec_init(v);
    for (uint32_t t = 0; t < DIM; t++)
        if (row[t] != 0)
            assert_int_equal(tfidf_vec_push(v, t, row[t]), ERR_OK);
    tfidf_normalize(v);
}

/* Two groups: terms 0-2 and terms 3-5, a little overlap. */
static const double toy[][DIM] = {
    {1, 0.8, 0.1, 0, 0, 0},    {0.9, 1, 0, 0, 0.1, 0},   {1, 0.5, 0.5, 0, 0, 0},
    {0.7, 1, 0.3, 0.05, 0, 0}, {0, 0, 0.1, 1, 0.9, 0.2}, {0, 0.1, 0, 0.8, 1, 0.4},
    {0, 0, 0, 1, 0.6, 0.7},    {0.05, 0, 0, 0.9, 1, 0},
};
#define NTOY (sizeof toy / sizeof toy[0])

static void test_two_clusters_recovered(void **state)
{
    (void)state;
    struct tfidf_vec pts[NTOY];
    for (size_t i = 0; i < NTOY; i++)
        make(&pts[i], toy[i]);
    for (uint64_t seed = 1; seed <= 20; seed++) {
        struct kmeans_params p = {.k = 2, .max_iter = 50, .n_init = 1, .seed = seed};
        double *c = NULL;
        uint32_t k = 0, assign[NTOY];
        assert_int_equal(kmeans_run(pts, NTOY, DIM, &p, &c, &k, assign), ERR_OK);
        assert_int_equal(k, 2);
        for (size_t i = 1; i < 4; i++)
            assert_int_equal(assign[i], assign[0]);
        for (size_t i = 5; i < NTOY; i++)
            assert_int_equal(assign[i], assign[4]);
        assert_int_not_equal(assign[0], assign[4]);
        /* Centroids are unit length and sit on their group's terms. */
        for (uint32_t j = 0; j < k; j++) {
            double norm = 0;
            for (int t = 0; t < DIM; t++)
                norm += c[t * k + j] * c[t * k + j];
            assert_float_equal(norm, 1.0, 1e-12);
        }
        uint32_t a = assign[0];
        assert_true(c[0 * k + a] > 0.5 && c[3 * k + a] < 0.1);
        free(c);
    }
    for (size_t i = 0; i < NTOY; i++)
        tfidf_vec_release(&pts[i]);
}

static void test_same_seed_same_result(void **state)
{
    (void)state;
    /* 60 pseudo-random sparse points, 5 clusters. */
    enum { N = 60, D = 40 };
    struct tfidf_vec pts[N];
    uint64_t r = 7;
    for (int i = 0; i < N; i++) {
        tfidf_vec_init(&pts[i]);
        for (uint32_t t = 0; t < D; t++)
            if (rng_uniform(&r) < 0.2)
                assert_int_equal(tfidf_vec_push(&pts[i], t, 0.1 + rng_uniform(&r)), ERR_OK);
        if (pts[i].n == 0)
            assert_int_equal(tfidf_vec_push(&pts[i], (uint32_t)i % D, 1), ERR_OK);
        tfidf_normalize(&pts[i]);
    }
    struct kmeans_params p = {.k = 5, .max_iter = 100, .n_init = 3, .seed = 99};
    double *c1, *c2;
    uint32_t k1, k2, a1[N], a2[N];
    assert_int_equal(kmeans_run(pts, N, D, &p, &c1, &k1, a1), ERR_OK);
    assert_int_equal(kmeans_run(pts, N, D, &p, &c2, &k2, a2), ERR_OK);
    assert_int_equal(k1, 5);
    assert_int_equal(k2, k1);
    assert_memory_equal(c1, c2, (size_t)D * k1 * sizeof *c1);
    assert_memory_equal(a1, a2, sizeof a1);
    free(c1);
    free(c2);
    /* More restarts never give a less cohesive result than one. */
    double obj[2];
    for (int v = 0; v < 2; v++) {
        struct kmeans_params q = {.k = 5, .max_iter = 100, .n_init = v ? 8 : 1, .seed = 5};
        double *c;
        uint32_t k, a[N];
        assert_int_equal(kmeans_run(pts, N, D, &q, &c, &k, a), ERR_OK);
        obj[v] = 0;
        for (int i = 0; i < N; i++)
            for (uint32_t t = 0; t < pts[i].n; t++)
                obj[v] += pts[i].w[t] * c[(size_t)pts[i].id[t] * k + a[i]];
        free(c);
    }
    assert_true(obj[1] >= obj[0] - 1e-12);
    for (int i = 0; i < N; i++)
        tfidf_vec_release(&pts[i]);
}

static void test_k_larger_than_n(void **state)
{
    (void)state;
    struct tfidf_vec pts[3];
    for (int i = 0; i < 3; i++)
        make(&pts[i], toy[i * 3]);
    struct kmeans_params p = {.k = 10, .max_iter = 10, .n_init = 1, .seed = 1};
    double *c;
    uint32_t k, a[3];
    assert_int_equal(kmeans_run(pts, 3, DIM, &p, &c, &k, a), ERR_OK);
    assert_int_equal(k, 3);
    /* Each point is its own centroid. */
    for (int i = 0; i < 3; i++)
        for (uint32_t t = 0; t < pts[i].n; t++)
            assert_float_equal(c[pts[i].id[t] * k + a[i]], pts[i].w[t], 1e-12);
    assert_int_not_equal(a[0], a[1]);
    assert_int_not_equal(a[1], a[2]);
    free(c);
    for (int i = 0; i < 3; i++)
        tfidf_vec_release(&pts[i]);
}

static void test_repeated_points(void **state)
{
    (void)state;
    struct tfidf_vec pts[4];
    for (int i = 0; i < 4; i++)
        make(&pts[i], toy[1]);
    struct kmeans_params p = {.k = 3, .max_iter = 10, .n_init = 2, .seed = 3};
    double *c;
    uint32_t k, a[4];
    assert_int_equal(kmeans_run(pts, 4, DIM, &p, &c, &k, a), ERR_OK);
    assert_int_equal(k, 1); /* identical points cannot make more than one cluster */
    for (int i = 0; i < 4; i++)
        assert_int_equal(a[i], 0);
    free(c);
    for (int i = 0; i < 4; i++)
        tfidf_vec_release(&pts[i]);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    struct tfidf_vec v;
    make(&v, toy[0]);
    double dummy = 0, *c = &dummy; /* must be reset to NULL */
    uint32_t k = 9;
    struct kmeans_params p = {.k = 2, .max_iter = 10, .n_init = 1, .seed = 1};
    assert_int_equal(kmeans_run(&v, 0, DIM, &p, &c, &k, NULL), ERR_INVAL);
    assert_null(c);
    assert_int_equal(k, 0);
    p.k = 0;
    assert_int_equal(kmeans_run(&v, 1, DIM, &p, &c, &k, NULL), ERR_INVAL);
    p.k = 2;
    p.max_iter = 0;
    assert_int_equal(kmeans_run(&v, 1, DIM, &p, &c, &k, NULL), ERR_INVAL);
    p.max_iter = 1;
    p.n_init = 0;
    assert_int_equal(kmeans_run(&v, 1, DIM, &p, &c, &k, NULL), ERR_INVAL);
    tfidf_vec_release(&v);
}

static void test_rng(void **state)
{
    (void)state;
    uint64_t a = 42, b = 42;
    for (int i = 0; i < 100; i++)
        assert_true(rng_next(&a) == rng_next(&b));
    uint64_t s = 1;
    int hist[7] = {0};
    for (int i = 0; i < 7000; i++) {
        uint64_t x = rng_below(&s, 7);
        assert_true(x < 7);
        hist[x]++;
        double u = rng_uniform(&s);
        assert_true(u >= 0 && u < 1);
    }
    for (int i = 0; i < 7; i++)
        assert_true(hist[i] > 800 && hist[i] < 1200);
    /* splitmix64 reference value for seed 0 (Vigna's test vector). */
    uint64_t z = 0;
    assert_true(rng_next(&z) == 0xe220a8397b1dcdafULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_clusters_recovered), cmocka_unit_test(test_same_seed_same_result),
        cmocka_unit_test(test_k_larger_than_n),        cmocka_unit_test(test_repeated_points),
        cmocka_unit_test(test_bad_arguments),          cmocka_unit_test(test_rng),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
