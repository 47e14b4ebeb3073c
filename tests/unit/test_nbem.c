/* Unit tests for classifier/nbem: checks, a separated corpus, the mixture weight, the formulas. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "classifier/nbem.h"

/*
 * A hand-made corpus over 10 terms: target pages use terms 0-4, "other" pages terms 5-9.
 * Page k of a kind has all five terms of its kind, each 3 + (k + i) % 3 times (3 to 5):
 * ~20 occurrences, one even spread per kind, so that no component can fit a subset of a
 * kind's pages better than the kind's own does.
 */
#define V     10
#define MAXD  64
#define PAIRS 5

enum kind { TARGET_LIKE, OTHER_LIKE };

struct corpus {
    uint32_t term[MAXD][PAIRS], count[MAXD][PAIRS];
    struct nbem_doc d[MAXD];
    size_t n;
};

static void add(struct corpus *c, enum kind kind, uint32_t k, uint32_t label)
{
    assert_true(c->n < MAXD);
    uint32_t base = kind == TARGET_LIKE ? 0 : 5;
    for (uint32_t i = 0; i < PAIRS; i++) {
        c->term[c->n][i] = base + i;
        c->count[c->n][i] = 3 + (k + i) % 3;
    }
    c->d[c->n] = (struct nbem_doc){c->term[c->n], c->count[c->n], PAIRS, label, 0};
    c->n++;
}

/* 6 target examples, 9 "other" examples, then u_target target-like and u_other other-like
 * unlabelled pages: the labelled pages first, as a job lists its examples' pages. */
static void make(struct corpus *c, uint32_t u_target, uint32_t u_other)
{
    c->n = 0;
    for (uint32_t k = 0; k < 6; k++)
        add(c, TARGET_LIKE, k, NBEM_TARGET);
    for (uint32_t k = 0; k < 9; k++)
        add(c, OTHER_LIKE, k, NBEM_OTHER);
    for (uint32_t k = 0; k < u_target; k++)
        add(c, TARGET_LIKE, k + 2, NBEM_UNLABELED);
    for (uint32_t k = 0; k < u_other; k++)
        add(c, OTHER_LIKE, k + 1, NBEM_UNLABELED);
}

static struct nbem *fit(const struct corpus *c, uint32_t others, uint64_t seed)
{
    struct nbem_params p;
    nbem_params_default(&p);
    p.other_components = others;
    p.seed = seed;
    struct nbem *m = NULL;
    assert_int_equal(nbem_fit(&p, c->d, c->n, V, &m), ERR_OK);
    assert_non_null(m);
    return m;
}

static double score(const struct nbem *m, const struct nbem_doc *d)
{
    return nbem_target(m, d->term, d->count, d->n, NULL);
}

/* Every page of c is judged by its vocabulary; fresh pages of each kind too. */
static void expect_separated(const struct nbem *m, const struct corpus *c)
{
    for (size_t i = 0; i < c->n; i++) {
        double pr = score(m, &c->d[i]);
        int target_like = c->term[i][0] < 5;
        if (target_like ? !(pr > 0.99) : !(pr < 0.01))
            fail_msg("page %zu (%s, label %u): Pr[target] = %g", i,
                     target_like ? "target-like" : "other-like", c->d[i].label, pr);
    }
    static const uint32_t t_term[] = {0, 2}, o_term[] = {6, 9}, cnt[] = {4, 3};
    double pt = nbem_target(m, t_term, cnt, 2, NULL), po = nbem_target(m, o_term, cnt, 2, NULL);
    if (!(pt > 0.99) || !(po < 0.01))
        fail_msg("fresh pages: target-like %g, other-like %g", pt, po);
}

static void expect_fit_fails(const struct nbem_params *p, const struct nbem_doc *d, size_t n,
                             uint32_t n_terms, const char *what)
{
    struct nbem *m = (struct nbem *)(uintptr_t)1; /* must be reset to NULL */
    enum err e = nbem_fit(p, d, n, n_terms, &m);
    if (e != ERR_INVAL || m != NULL)
        fail_msg("%s: nbem_fit = %d, model %p; want ERR_INVAL and NULL", what, e, (void *)m);
}

static void test_bad_params(void **state)
{
    (void)state;
    struct corpus c;
    make(&c, 2, 2);
    struct nbem_params ok, p;
    nbem_params_default(&ok);
    struct nbem *m = NULL;
    assert_int_equal(nbem_fit(&ok, c.d, c.n, V, &m), ERR_OK);
    nbem_free(m);
    /* The edges that are allowed. */
    p = ok, p.other_components = NBEM_MAX_OTHER, p.iterations = 1, p.alpha = 1e-9;
    assert_int_equal(nbem_fit(&p, c.d, c.n, V, &m), ERR_OK);
    assert_int_equal(nbem_components(m), 1 + NBEM_MAX_OTHER);
    nbem_free(m);
    nbem_free(NULL);

    p = ok, p.other_components = 0;
    expect_fit_fails(&p, c.d, c.n, V, "0 other components");
    p = ok, p.other_components = NBEM_MAX_OTHER + 1;
    expect_fit_fails(&p, c.d, c.n, V, "too many components");
    p = ok, p.alpha = 0;
    expect_fit_fails(&p, c.d, c.n, V, "alpha 0");
    p = ok, p.alpha = -0.5;
    expect_fit_fails(&p, c.d, c.n, V, "alpha < 0");
    p = ok, p.alpha = NAN;
    expect_fit_fails(&p, c.d, c.n, V, "alpha NaN");
    p = ok, p.alpha = INFINITY;
    expect_fit_fails(&p, c.d, c.n, V, "alpha infinite");
    p = ok, p.iterations = 0;
    expect_fit_fails(&p, c.d, c.n, V, "iterations 0");
    p = ok, p.web_gate = -1;
    expect_fit_fails(&p, c.d, c.n, V, "web gate < 0");
    p = ok, p.web_gate = NAN;
    expect_fit_fails(&p, c.d, c.n, V, "web gate NaN");
    expect_fit_fails(&ok, c.d, c.n, 0, "no term");

    struct corpus b = c;
    for (size_t i = 0; i < b.n; i++) /* the documents point into their own corpus */
        b.d[i].term = b.term[i], b.d[i].count = b.count[i];
    b.d[b.n - 1].label = NBEM_UNLABELED + 1;
    expect_fit_fails(&ok, b.d, b.n, V, "label 3");
    b.d[b.n - 1].label = NBEM_UNLABELED;
    b.term[7][1] = V;
    expect_fit_fails(&ok, b.d, b.n, V, "term id = n_terms");
    b.term[7][1] = UINT32_MAX;
    expect_fit_fails(&ok, b.d, b.n, V, "term id UINT32_MAX");
    b.term[7][1] = c.term[7][1];
    b.count[3][2] = 0;
    expect_fit_fails(&ok, b.d, b.n, V, "count 0");
    b.count[3][2] = c.count[3][2];
    assert_int_equal(nbem_fit(&ok, b.d, b.n, V, &m), ERR_OK); /* restored: fine again */
    nbem_free(m);

    /* A start component: an "other" example's, one of the "other" components. */
    size_t other = 0, target = 0;
    while (b.d[other].label != NBEM_OTHER)
        other++;
    while (b.d[target].label != NBEM_TARGET)
        target++;
    b.d[other].start_comp = ok.other_components;
    assert_int_equal(nbem_fit(&ok, b.d, b.n, V, &m), ERR_OK);
    nbem_free(m);
    b.d[other].start_comp = ok.other_components + 1;
    expect_fit_fails(&ok, b.d, b.n, V, "start component past the last");
    b.d[other].start_comp = 0;
    b.d[target].start_comp = 1;
    expect_fit_fails(&ok, b.d, b.n, V, "a target example with a start component");
    b.d[target].start_comp = 0;

    /* No target page with a term: target pages without terms, or none at all. */
    for (size_t i = 0; i < b.n; i++)
        if (b.d[i].label == NBEM_TARGET)
            b.d[i].n = 0;
    expect_fit_fails(&ok, b.d, b.n, V, "target pages without terms");
    expect_fit_fails(&ok, b.d + 6, b.n - 6, V, "no target page");
    expect_fit_fails(&ok, b.d, 0, V, "no page");
}

static void test_separated_corpus(void **state)
{
    (void)state;
    struct corpus c;
    make(&c, 3, 7);
    /* Three "other" components, not the default 20: with 10 unlabelled pages most of 20
     * would start without an other-like page, and one that starts with target-like pages
     * only keeps them (EM's local optimum, not what this test is about). */
    struct nbem *m = fit(&c, 3, 1);
    assert_int_equal(nbem_terms(m), V);
    assert_int_equal(nbem_components(m), 4);
    expect_separated(m, &c);
    nbem_free(m);
}

static void test_unknown_terms_and_empty_page(void **state)
{
    (void)state;
    struct corpus c;
    make(&c, 3, 7);
    struct nbem *m = fit(&c, 3, 1);
    static const uint32_t t[] = {0, 1}, n[] = {2, 1};
    static const uint32_t tu[] = {0, V, 1, 1000, UINT32_MAX}, nu[] = {2, 5, 1, 7, 9};
    uint32_t known = 0, known_u = 0;
    double a = nbem_target(m, t, n, 2, &known), b = nbem_target(m, tu, nu, 5, &known_u);
    assert_memory_equal(&a, &b, sizeof a); /* unknown ids change nothing */
    assert_int_equal(known, 3);
    assert_int_equal(known_u, 3);
    /* known counts occurrences, not distinct terms, on both kinds of terms. */
    static const uint32_t tk[] = {0, 6, 42}, nk[] = {3, 4, 7};
    assert_int_equal((nbem_target(m, tk, nk, 3, &known), known), 7);
    (void)nbem_target(m, tk, nk, 3, NULL); /* known may be NULL */

    /* No term, or only unknown ones: the target's prior, with no evidence. */
    double prior = nbem_target_prior(m);
    known = 99;
    assert_float_equal(nbem_target(m, NULL, NULL, 0, &known), prior, 1e-12);
    assert_int_equal(known, 0);
    static const uint32_t only_u[] = {V, 77}, cnt_u[] = {3, 1};
    known = 99;
    assert_float_equal(nbem_target(m, only_u, cnt_u, 2, &known), prior, 1e-12);
    assert_int_equal(known, 0);
    nbem_free(m);
}

/*
 * prior[0] = (1 + sum_{d in U} z_d0) / (n_comp + |U|): with the vocabularies apart, z_d0 is
 * ~1 on the target-like unlabelled pages and ~0 on the others, so sum z_d0 is their number
 * k. The band allows sum z_d0 in k +- 0.2, i.e. prior0 in (1 + k +- 0.2) / (n_comp + |U|);
 * the labelled pages do not count, wherever they stand among the pages.
 */
static void expect_prior(const struct nbem *m, double k, double u)
{
    double n_comp = nbem_components(m), want = (1 + k) / (n_comp + u), slack = 0.2 / (n_comp + u);
    double got = nbem_target_prior(m);
    if (!(fabs(got - want) <= slack))
        fail_msg("target prior %g, want (1 + %g) / (%g + %g) = %g +- %g", got, k, n_comp, u, want,
                 slack);
}

static void test_prior_from_unlabelled_share(void **state)
{
    (void)state;
    struct corpus c;
    /* 3 of 10 unlabelled pages target-like: (1 + 3) / (2 + 10) = 0.33 with one other
     * component, 4 / 14 = 0.29 with three. */
    make(&c, 3, 7);
    for (uint32_t others = 1; others <= 3; others += 2) {
        struct nbem *m = fit(&c, others, 1);
        expect_prior(m, 3, 10);
        nbem_free(m);
    }
    /* 6 of 10: (1 + 6) / 14 = 0.5. */
    make(&c, 6, 4);
    struct nbem *m = fit(&c, 3, 1);
    expect_prior(m, 6, 10);
    nbem_free(m);

    /* The order of the pages does not matter: unlabelled first, then interleaved. */
    make(&c, 3, 7);
    struct corpus r = {.n = 0};
    for (size_t i = c.n; i-- > 0;)
        r.d[r.n++] = c.d[i];
    m = fit(&r, 3, 1);
    expect_prior(m, 3, 10);
    expect_separated(m, &c);
    nbem_free(m);
    r.n = 0;
    for (size_t i = 0; i < 10; i++) { /* one unlabelled, one labelled, ... */
        r.d[r.n++] = c.d[15 + i];
        r.d[r.n++] = c.d[i];
    }
    for (size_t i = 10; i < 15; i++)
        r.d[r.n++] = c.d[i];
    assert_int_equal(r.n, c.n);
    m = fit(&r, 3, 1);
    expect_prior(m, 3, 10);
    nbem_free(m);
}

static void test_prior_without_unlabelled(void **state)
{
    (void)state;
    /* All pages count: the 6 target examples have z_d0 = 1, the 9 others z_d0 = 0, so
     * prior0 = (1 + 6) / (n_comp + 15) exactly, and an empty page gets it. */
    struct corpus c;
    make(&c, 0, 0);
    for (uint32_t others = 1; others <= 4; others++) {
        struct nbem *m = fit(&c, others, 1);
        double want = 7.0 / (1 + others + 15);
        assert_float_equal(nbem_target_prior(m), want, 1e-12);
        assert_float_equal(nbem_target(m, NULL, NULL, 0, NULL), want, 1e-12);
        expect_separated(m, &c);
        nbem_free(m);
    }
}

static void test_seed(void **state)
{
    (void)state;
    struct corpus c;
    make(&c, 3, 7);
    /* Pages that are not clear-cut, where the "other" components' shapes show. */
    static const uint32_t mt[] = {0, 5, 7, 2}, mc[] = {1, 1, 2, 3};
    struct nbem *a = fit(&c, 3, 42), *b = fit(&c, 3, 42);
    double pa = nbem_target_prior(a), pb = nbem_target_prior(b);
    assert_memory_equal(&pa, &pb, sizeof pa);
    for (size_t i = 0; i <= c.n; i++) {
        double x, y;
        if (i < c.n)
            x = score(a, &c.d[i]), y = score(b, &c.d[i]);
        else
            x = nbem_target(a, mt, mc, 4, NULL), y = nbem_target(b, mt, mc, 4, NULL);
        if (memcmp(&x, &y, sizeof x) != 0)
            fail_msg("seed 42 twice, page %zu: %.17g vs %.17g", i, x, y);
    }
    nbem_free(b);
    /* Other seeds may differ but stay right on the separated corpus. */
    for (uint64_t seed = 0; seed < 20; seed++) {
        b = fit(&c, 3, seed);
        expect_separated(b, &c);
        expect_prior(b, 3, 10);
        nbem_free(b);
    }
    nbem_free(a);
}

/*
 * The M step by hand. One other component, labelled pages only: a target example's
 * z = (1, 0), an "other" example's z = (0, 1) (its one component takes all), so every
 * M step gives the same parameters:
 *   p(t|c) = (alpha + n_ct) / (alpha V + n_c), prior[c] = (1 + sum_d z_dc) / (2 + |D|)
 * and Pr[target | page] = prior0 prod p(t|0)^n_t / sum_c prior_c prod p(t|c)^n_t.
 */
static void test_m_step_exact(void **state)
{
    (void)state;
    enum { W = 3 };
    static const uint32_t t1[] = {0, 1}, n1[] = {2, 1}; /* target */
    static const uint32_t t2[] = {0}, n2[] = {1};       /* target */
    static const uint32_t t3[] = {1, 2}, n3[] = {1, 5}; /* other */
    const struct nbem_doc d[] = {
        {t1, n1, 2, NBEM_TARGET, 0},
        {t2, n2, 1, NBEM_TARGET, 0},
        {t3, n3, 2, NBEM_OTHER, 0},
    };
    const double alpha = 0.5;
    /* Counts: target n_0t = (3, 1, 0), n_0 = 4; other n_1t = (0, 1, 5), n_1 = 6 (the
     * totals differ, so that the denominators do not cancel in Pr). */
    const double n0t[W] = {3, 1, 0}, n1t[W] = {0, 1, 5};
    double p0[W], p1[W];
    for (int t = 0; t < W; t++) {
        p0[t] = (alpha + n0t[t]) / (alpha * W + 4);
        p1[t] = (alpha + n1t[t]) / (alpha * W + 6);
    }
    const double prior0 = (1.0 + 2) / (2 + 3), prior1 = (1.0 + 1) / (2 + 3);

    for (uint32_t iterations = 1; iterations <= 3; iterations += 2) {
        struct nbem_params p = {.other_components = 1, .iterations = iterations, .alpha = alpha};
        struct nbem *m = NULL;
        assert_int_equal(nbem_fit(&p, d, 3, W, &m), ERR_OK);
        assert_float_equal(nbem_target_prior(m), prior0, 1e-12);
        for (uint32_t t = 0; t < W; t++)
            for (uint32_t k = 1; k <= 3; k++) {
                double a = prior0 * pow(p0[t], k), b = prior1 * pow(p1[t], k);
                double got = nbem_target(m, &t, &k, 1, NULL);
                if (fabs(got - a / (a + b)) > 1e-12)
                    fail_msg("term %u x%u: Pr = %.17g, want %.17g", t, k, got, a / (a + b));
            }
        /* A page of two terms: the product. */
        static const uint32_t pt[] = {0, 2}, pc[] = {1, 2};
        double a = prior0 * p0[0] * p0[2] * p0[2], b = prior1 * p1[0] * p1[2] * p1[2];
        assert_float_equal(nbem_target(m, pt, pc, 2, NULL), a / (a + b), 1e-12);
        nbem_free(m);
    }
}

/*
 * An "other" example with a start component (a cluster of the user's "other" websites)
 * stays in it through EM: it is the user's word on what that component is, and its E
 * step would cost a full job's judging a third of its pages. Two other components, each
 * started by one "other" example whose terms overlap the other's (a soft E step would
 * move part of each), no unlabelled page: every M step gives
 *   p(t|c) = (alpha + n_ct) / (alpha V + n_c), prior[c] = (1 + sum_d z_dc) / (3 + |D|).
 */
static void test_started_others_stay(void **state)
{
    (void)state;
    enum { SV = 4 };
    static const uint32_t t1[] = {0, 1}, n1[] = {3, 1}; /* target */
    static const uint32_t ta[] = {1, 2}, na[] = {2, 2}; /* other, component 1 */
    static const uint32_t tb[] = {2, 3}, nb[] = {1, 3}; /* other, component 2 */
    const struct nbem_doc d[] = {
        {t1, n1, 2, NBEM_TARGET, 0},
        {ta, na, 2, NBEM_OTHER, 1},
        {tb, nb, 2, NBEM_OTHER, 2},
    };
    const double alpha = 0.5, n_ct[3][SV] = {{3, 1, 0, 0}, {0, 2, 2, 0}, {0, 0, 1, 3}};
    const double n_c[3] = {4, 4, 4}, prior[3] = {2.0 / 6, 2.0 / 6, 2.0 / 6};
    for (uint32_t iterations = 1; iterations <= 5; iterations += 4) {
        struct nbem_params p = {
            .other_components = 2, .iterations = iterations, .alpha = alpha, .web_gate = INFINITY};
        struct nbem *m = NULL;
        assert_int_equal(nbem_fit(&p, d, 3, SV, &m), ERR_OK);
        for (uint32_t t = 0; t < SV; t++) {
            double s[3], sum = 0;
            for (int c = 0; c < 3; c++)
                sum += s[c] = prior[c] * (alpha + n_ct[c][t]) / (alpha * SV + n_c[c]);
            uint32_t one = 1;
            double got = nbem_target(m, &t, &one, 1, NULL);
            if (fabs(got - s[0] / sum) > 1e-12)
                fail_msg("%u iterations, term %u: Pr = %.17g, want %.17g", iterations, t, got,
                         s[0] / sum);
        }
        nbem_free(m);
    }
}

/*
 * EM by hand over pages whose posteriors move at every iteration (the fit keeps the M
 * step's counts and changes them by each page's change of posteriors: they must be the
 * sums afresh). Two components, no web start, no page cap: the target examples z = (1, 0),
 * the "other" example and the unlabelled pages start at (0, 1); then each iteration an E
 * step (the unlabelled pages' posteriors by the formulas of nbem.h) and an M step.
 */
enum { HV = 3, HD = 7 };

static void hand_m_step(const struct nbem_doc *d, double z[HD][2], double alpha, double lambda,
                        double logp[2][HV], double logprior[2])
{
    double u[2] = {0, 0};
    size_t n_u = 0;
    for (int c = 0; c < 2; c++) {
        double n_c = 0, n_ct[HV] = {0};
        for (int k = 0; k < HD; k++) {
            double w = d[k].label == NBEM_UNLABELED ? lambda : 1; /* EM-λ */
            for (uint32_t i = 0; i < d[k].n; i++) {
                n_ct[d[k].term[i]] += w * z[k][c] * d[k].count[i];
                n_c += w * z[k][c] * d[k].count[i];
            }
        }
        for (int t = 0; t < HV; t++)
            logp[c][t] = log((alpha + n_ct[t]) / (alpha * HV + n_c));
    }
    for (int k = 0; k < HD; k++)
        if (d[k].label == NBEM_UNLABELED) {
            n_u++;
            u[0] += z[k][0], u[1] += z[k][1];
        }
    for (int c = 0; c < 2; c++)
        logprior[c] = log((1 + u[c]) / (2 + (double)n_u));
}

static double hand_target(const double logp[2][HV], const double logprior[2], const uint32_t *t,
                          const uint32_t *n, uint32_t len)
{
    double s[2];
    for (int c = 0; c < 2; c++) {
        s[c] = logprior[c];
        for (uint32_t i = 0; i < len; i++)
            s[c] += n[i] * logp[c][t[i]];
    }
    return 1 / (1 + exp(s[1] - s[0]));
}

static void test_em_by_hand(void **state)
{
    (void)state;
    static const uint32_t t1[] = {0, 1}, n1[] = {2, 1}, t2[] = {0}, n2[] = {1};
    static const uint32_t t3[] = {1, 2}, n3[] = {1, 3};
    static const uint32_t u1[] = {0, 2}, m1[] = {1, 1}, u2[] = {1}, m2[] = {2};
    static const uint32_t u3[] = {0, 1, 2}, m3[] = {1, 1, 1}, u4[] = {0}, m4[] = {2};
    const struct nbem_doc d[HD] = {
        {t1, n1, 2, NBEM_TARGET, 0},    {t2, n2, 1, NBEM_TARGET, 0},
        {t3, n3, 2, NBEM_OTHER, 0},     {u1, m1, 2, NBEM_UNLABELED, 0},
        {u2, m2, 1, NBEM_UNLABELED, 0}, {u3, m3, 3, NBEM_UNLABELED, 0},
        {u4, m4, 1, NBEM_UNLABELED, 0},
    };
    const double alpha = 0.5;
    /* Many iterations too: late changes are small, and must be counted all the same. */
    static const uint32_t runs[] = {1, 2, 3, 6, 40};
    /* Each unlabelled page weighs 1, or 0.4 (nbem_params.unlabelled_weight: its counts
     * in the M step; the mixture weights count it whole). */
    for (size_t r = 0; r < 2 * sizeof runs / sizeof *runs; r++) {
        uint32_t iterations = runs[r % (sizeof runs / sizeof *runs)];
        double lambda = r < sizeof runs / sizeof *runs ? 1 : 0.4;
        double z[HD][2], logp[2][HV], logprior[2];
        for (int k = 0; k < HD; k++)
            z[k][0] = d[k].label == NBEM_TARGET, z[k][1] = d[k].label != NBEM_TARGET;
        hand_m_step(d, z, alpha, lambda, logp, logprior);
        double moved = 0;
        for (uint32_t it = 0; it < iterations; it++) {
            for (int k = 3; k < HD; k++) {
                double z0 = hand_target(logp, logprior, d[k].term, d[k].count, d[k].n);
                moved += fabs(z0 - z[k][0]);
                z[k][0] = z0, z[k][1] = 1 - z0;
            }
            hand_m_step(d, z, alpha, lambda, logp, logprior);
        }
        assert_true(moved > 0.1); /* the posteriors moved: the counts were changed */
        struct nbem_params p = {.other_components = 1,
                                .iterations = iterations,
                                .alpha = alpha,
                                .web_gate = INFINITY,
                                .unlabelled_weight = lambda};
        struct nbem *m = NULL;
        assert_int_equal(nbem_fit(&p, d, HD, HV, &m), ERR_OK);
        assert_float_equal(nbem_target_prior(m), exp(logprior[0]), 1e-12);
        for (int k = 0; k < HD; k++) {
            double want = hand_target(logp, logprior, d[k].term, d[k].count, d[k].n);
            double got = nbem_target(m, d[k].term, d[k].count, d[k].n, NULL);
            if (fabs(got - want) > 1e-12)
                fail_msg("%u iterations, weight %g, page %d: Pr = %.17g, want %.17g", iterations,
                         lambda, k, got, want);
        }
        nbem_free(m);
    }
}

/* Model bytes: a model read back scores every page as the model (float log-probabilities:
 * within 1e-5); bad bytes are refused. */
static void test_bytes_round_trip(void **state)
{
    (void)state;
    struct corpus c;
    make(&c, 3, 7);
    struct nbem *m = fit(&c, 3, 1), *back = NULL;
    struct buf b;
    buf_init(&b, 0);
    assert_int_equal(nbem_serialize(m, &b), ERR_OK);
    assert_int_equal(nbem_deserialize(b.data, b.len, &back), ERR_OK);
    assert_int_equal(nbem_terms(back), nbem_terms(m));
    assert_int_equal(nbem_components(back), nbem_components(m));
    assert_true(nbem_target_prior(back) == nbem_target_prior(m));
    for (size_t d = 0; d < c.n; d++)
        assert_true(fabs(score(back, &c.d[d]) - score(m, &c.d[d])) < 1e-5);
    nbem_free(back);
    struct nbem *bad = NULL;
    assert_int_equal(nbem_deserialize(b.data, b.len - 1, &bad), ERR_PARSE); /* truncated */
    assert_null(bad);
    b.data[0] = 'X'; /* not a model */
    assert_int_equal(nbem_deserialize(b.data, b.len, &bad), ERR_PARSE);
    b.data[0] = 'S';
    float nan = NAN; /* a log-probability that is not a number */
    memcpy(b.data + b.len - sizeof nan, &nan, sizeof nan);
    assert_int_equal(nbem_deserialize(b.data, b.len, &bad), ERR_PARSE);
    assert_null(bad);
    buf_release(&b);
    nbem_free(m);
}

/*
 * A bag of fits scores a page with the mean of their Pr[target | page]; its bytes hold
 * each fit (the first first) and read back as the bag; a fit over other terms is refused
 * (and freed: ASan's leak check), bytes cut inside the second fit or with bytes after
 * the last are not a model.
 */
static void test_bag(void **state)
{
    (void)state;
    struct corpus c;
    make(&c, 3, 7);
    static const uint32_t mt[] = {0, 5, 7, 2}, mc[] = {1, 1, 2, 3};
    struct nbem *a = fit(&c, 3, 42), *b = fit(&c, 5, 7);
    assert_int_equal(nbem_fits(a), 1);
    double pa[MAXD + 1], pb[MAXD + 1], prior = nbem_target_prior(a);
    uint32_t ka[MAXD + 1];
    for (size_t i = 0; i <= c.n; i++) {
        pa[i] = i < c.n ? nbem_target(a, c.d[i].term, c.d[i].count, c.d[i].n, &ka[i])
                        : nbem_target(a, mt, mc, 4, &ka[i]);
        pb[i] = i < c.n ? score(b, &c.d[i]) : nbem_target(b, mt, mc, 4, NULL);
    }
    assert_true(fabs(pa[c.n] - pb[c.n]) > 1e-6); /* two fits that differ: the mean shows */
    assert_int_equal(nbem_bag(a, NULL), ERR_OK);
    assert_int_equal(nbem_fits(a), 1);
    assert_int_equal(nbem_bag(a, b), ERR_OK);
    assert_int_equal(nbem_fits(a), 2);
    assert_true(nbem_target_prior(a) == prior);
    uint32_t known = 0;
    for (size_t i = 0; i <= c.n; i++) {
        double x = i < c.n ? nbem_target(a, c.d[i].term, c.d[i].count, c.d[i].n, &known)
                           : nbem_target(a, mt, mc, 4, &known);
        if (fabs(x - (pa[i] + pb[i]) / 2) > 1e-15)
            fail_msg("page %zu: bag %.17g, fits %.17g and %.17g", i, x, pa[i], pb[i]);
        assert_int_equal(known, ka[i]); /* the page's known terms, once */
    }
    struct nbem_params p;
    nbem_params_default(&p);
    struct nbem *wide = NULL;
    assert_int_equal(nbem_fit(&p, c.d, c.n, V + 3, &wide), ERR_OK);
    assert_int_equal(nbem_bag(a, wide), ERR_INVAL);
    assert_int_equal(nbem_fits(a), 2);

    struct buf bytes;
    buf_init(&bytes, 0);
    assert_int_equal(nbem_serialize(a, &bytes), ERR_OK);
    struct nbem *back = NULL;
    assert_int_equal(nbem_deserialize(bytes.data, bytes.len, &back), ERR_OK);
    assert_int_equal(nbem_fits(back), 2);
    assert_int_equal(nbem_components(back), nbem_components(a));
    for (size_t i = 0; i < c.n; i++)
        assert_true(fabs(score(back, &c.d[i]) - (pa[i] + pb[i]) / 2) < 1e-5);
    nbem_free(back);
    struct nbem *bad = NULL;
    assert_int_equal(nbem_deserialize(bytes.data, bytes.len - 1, &bad), ERR_PARSE);
    assert_null(bad);
    assert_int_equal(buf_append(&bytes, "x", 1), ERR_OK);
    assert_int_equal(nbem_deserialize(bytes.data, bytes.len, &bad), ERR_PARSE);
    assert_null(bad);
    buf_release(&bytes);
    nbem_free(a);
}

/*
 * Scores by the formula at every number of components, 2 to 65: the parameters sit in
 * rows padded to a multiple of 8 and a page's rows are summed 24 components at a time
 * (classifier/nbem.c), so these cross every edge of both. A model made of bytes: every
 * component's parameters differ and its score is near the others', so that one component
 * summed wrongly (a row, a block or the padding off) moves Pr[target] by far more than
 * 1e-12. Floats in multiples of 1/8: the bytes hold them exactly.
 */
static void test_scores_every_width(void **state)
{
    (void)state;
    enum { W = 5 };
    static const uint32_t term[] = {0, 3, 1, 9, 4}, count[] = {2, 1, 3, 5, 1}; /* 9: unknown */
    for (uint32_t k = 2; k <= 1 + NBEM_MAX_OTHER; k++) {
        double log_prior[1 + NBEM_MAX_OTHER], s[1 + NBEM_MAX_OTHER], max = -INFINITY;
        float lp[1 + NBEM_MAX_OTHER][W];
        for (uint32_t c = 0; c < k; c++) {
            log_prior[c] = -1 - c / 64.0;
            for (uint32_t t = 0; t < W; t++)
                lp[c][t] = -(float)(1 + (c * 7 + t * 3) % 11) / 8;
            s[c] = log_prior[c];
            for (size_t i = 0; i < sizeof term / sizeof *term; i++)
                s[c] += term[i] < W ? count[i] * (double)lp[c][term[i]] : 0;
            max = s[c] > max ? s[c] : max;
        }
        double sum = 0;
        for (uint32_t c = 0; c < k; c++)
            sum += exp(s[c] - max);
        double want = exp(s[0] - max) / sum;

        struct buf b;
        buf_init(&b, 0);
        uint32_t head[2] = {W, k};
        double page_tokens = 0; /* no cap: the counts as they are */
        assert_int_equal(buf_append(&b, "SSNBEM01", 8), ERR_OK);
        assert_int_equal(buf_append(&b, head, sizeof head), ERR_OK);
        assert_int_equal(buf_append(&b, &page_tokens, sizeof page_tokens), ERR_OK);
        assert_int_equal(buf_append(&b, log_prior, k * sizeof *log_prior), ERR_OK);
        for (uint32_t c = 0; c < k; c++)
            assert_int_equal(buf_append(&b, lp[c], sizeof lp[c]), ERR_OK);
        struct nbem *m = NULL;
        assert_int_equal(nbem_deserialize(b.data, b.len, &m), ERR_OK);
        uint32_t known = 0;
        double got = nbem_target(m, term, count, sizeof term / sizeof *term, &known);
        if (!(fabs(got - want) <= 1e-12) || known != 7)
            fail_msg("%u components: Pr = %.17g (known %u), want %.17g (known 7)", k, got, known,
                     want);
        nbem_free(m);
        buf_release(&b);
    }
}

/*
 * The web start (nbem.h, web_start), on a topic whose crawled pages share little with its
 * two examples: the examples are the topic's core terms 0-3 (4 times each) and term 4
 * once; each of 12 crawled topical pages has terms 0, 1 and 4 once and three terms of its
 * own; 32 crawled pages of four other subjects (5 terms each, and one of their own). With
 * every crawled page at random, each topical page sits in the blur of an "other"
 * component where its own terms make it likelier than under the examples, and stays
 * there: none ends in the topic. From the web start, the examples explain each topical
 * page better than the whole web does: all 12 do. A neighbour shares the core terms: 3
 * "other" examples (terms 0-3 and 50, twice each) and 12 crawled pages. Unnamed (its
 * examples at random), its pages join the topic on every seed; named by a start component,
 * the pages it explains better than the examples stay out of the topic's start, and out
 * of the topic on 4 of the 5 seeds (on all 5 they join without that rule).
 */
struct web {
    uint32_t term[96][6], count[96][6];
    struct nbem_doc d[96];
    size_t n, topical, neighbour, other;
};

static void web_page(struct web *w, uint32_t label, uint32_t n, const uint32_t *term,
                     const uint32_t *count)
{
    assert_true(w->n < 96 && n <= 6);
    memcpy(w->term[w->n], term, n * sizeof *term);
    memcpy(w->count[w->n], count, n * sizeof *count);
    w->d[w->n] = (struct nbem_doc){w->term[w->n], w->count[w->n], n, label, 0};
    w->n++;
}

/* w->other onwards: 8 crawled pages of each of four other subjects, subject s's pages
 * each of its width terms 10 + width s ... (count[i] times) and one of their own (from
 * own). */
static void subjects(struct web *w, uint32_t width, const uint32_t *count, uint32_t own)
{
    w->other = w->n;
    for (uint32_t s = 0; s < 4; s++)
        for (uint32_t k = 0; k < 8; k++) {
            uint32_t term[6], cnt[6];
            for (uint32_t i = 0; i < width; i++)
                term[i] = 10 + width * s + i, cnt[i] = count[i];
            term[width] = own + k + 8 * s, cnt[width] = 1;
            web_page(w, NBEM_UNLABELED, width + 1, term, cnt);
        }
}

/* Pages with Pr[target] above 1/2 among the n pages from first. */
static size_t topic_pages(const struct nbem *m, const struct web *w, size_t first, size_t n)
{
    size_t k = 0;
    for (size_t d = first; d < first + n; d++)
        k += score(m, &w->d[d]) > 0.5;
    return k;
}

static void make_web(struct web *w, int neighbour_named)
{
    w->n = 0;
    for (int k = 0; k < 2; k++)
        web_page(w, NBEM_TARGET, 5, (const uint32_t[]){0, 1, 2, 3, 4},
                 (const uint32_t[]){4, 4, 4, 4, 1});
    for (int k = 0; k < 3; k++) {
        web_page(w, NBEM_OTHER, 5, (const uint32_t[]){0, 1, 2, 3, 50},
                 (const uint32_t[]){2, 2, 2, 2, 2});
        w->d[w->n - 1].start_comp = neighbour_named ? 1 : 0;
    }
    w->neighbour = w->n;
    for (uint32_t k = 0; k < 12; k++)
        web_page(w, NBEM_UNLABELED, 6, (const uint32_t[]){0, 1, 2, 3, 50, 60 + k},
                 (const uint32_t[]){2, 2, 2, 2, 2, 1});
    w->topical = w->n;
    for (uint32_t k = 0; k < 12; k++)
        web_page(w, NBEM_UNLABELED, 6,
                 (const uint32_t[]){0, 1, 4, 100 + 3 * k, 101 + 3 * k, 102 + 3 * k},
                 (const uint32_t[]){1, 1, 1, 1, 1, 1});
    subjects(w, 5, (const uint32_t[]){4, 3, 4, 3, 4}, 150);
}

static void test_web_start(void **state)
{
    (void)state;
    static struct web w;
    for (int named = 0; named <= 1; named++) {
        make_web(&w, named);
        int kept_out = 0;
        for (uint64_t seed = 1; seed <= 5; seed++)
            for (uint32_t web_start = 0; web_start <= 1; web_start++) {
                struct nbem_params p;
                nbem_params_default(&p);
                p.seed = seed;
                p.web_start = web_start;
                struct nbem *m = NULL;
                assert_int_equal(nbem_fit(&p, w.d, w.n, 200, &m), ERR_OK);
                size_t topical = topic_pages(m, &w, w.topical, 12);
                size_t neighbour = topic_pages(m, &w, w.neighbour, 12);
                size_t other = topic_pages(m, &w, w.other, 32);
                nbem_free(m);
                if (other)
                    fail_msg("seed %llu, web_start %u: %zu pages of other subjects in the topic",
                             (unsigned long long)seed, web_start, other);
                if (topical != (web_start ? 12 : 0))
                    fail_msg("seed %llu, web_start %u: %zu of 12 topical pages in the topic,"
                             " want %d",
                             (unsigned long long)seed, web_start, topical, web_start ? 12 : 0);
                if (web_start && !named && neighbour != 12)
                    fail_msg("seed %llu, web start, unnamed neighbour: %zu of its 12 pages in the"
                             " topic, want 12",
                             (unsigned long long)seed, neighbour);
                kept_out += web_start && named && neighbour == 0;
            }
        if (named && kept_out < 4)
            fail_msg("the named neighbour kept out of the topic on %d of 5 seeds, want 4+",
                     kept_out);
    }
}

/*
 * The web gate (nbem.h, web_gate). Three examples of the topic (terms 0-3 three times,
 * term 4 twice); 12 crawled pages of the topic unlike them (terms 0, 1, 4 once and two
 * of their own); 40 pages of a neighbour (terms 0-2, its terms 30 and 31, one of its
 * own); 32 pages of four other subjects; 4 "other" examples. The examples explain the
 * topic's crawled pages a little worse than the whole web does (web margin about -2) and
 * the neighbour's much worse (about -10). Without a gate, EM takes the topic's pages into
 * the topic on some seeds; a gate of 0 nats bars them on every seed; a gate wider than
 * their margin (3) changes nothing.
 */
static void gate_web(struct web *w)
{
    w->n = 0;
    for (int k = 0; k < 3; k++)
        web_page(w, NBEM_TARGET, 5, (const uint32_t[]){0, 1, 2, 3, 4},
                 (const uint32_t[]){3, 3, 3, 3, 2});
    w->topical = w->n;
    for (uint32_t k = 0; k < 12; k++)
        web_page(w, NBEM_UNLABELED, 5, (const uint32_t[]){0, 1, 4, 100 + 2 * k, 101 + 2 * k},
                 (const uint32_t[]){1, 1, 1, 1, 1});
    w->neighbour = w->n;
    for (uint32_t k = 0; k < 40; k++)
        web_page(w, NBEM_UNLABELED, 6, (const uint32_t[]){0, 1, 2, 30, 31, 200 + k},
                 (const uint32_t[]){1, 1, 1, 1, 1, 1});
    subjects(w, 4, (const uint32_t[]){3, 3, 3, 3}, 300);
    for (int k = 0; k < 4; k++)
        web_page(w, NBEM_OTHER, 4, (const uint32_t[]){10, 11, 12, 13},
                 (const uint32_t[]){3, 3, 3, 3});
}

/* A fit given the pages' web margins (nbem_fit_margins) is the fit that computes them:
 * the same bytes; given other margins, another start (so they are used). */
static void test_fit_given_margins(void **state)
{
    (void)state;
    static struct web w;
    gate_web(&w);
    struct nbem_params p;
    nbem_params_default(&p);
    p.web_gate = 2;
    double margin[128];
    assert_true(w.n <= 128);
    assert_int_equal(nbem_web_margins(&p, w.d, w.n, 400, margin), ERR_OK);
    struct nbem *a = NULL, *b = NULL, *c = NULL;
    assert_int_equal(nbem_fit(&p, w.d, w.n, 400, &a), ERR_OK);
    assert_int_equal(nbem_fit_margins(&p, w.d, w.n, 400, margin, &b), ERR_OK);
    for (size_t d = 0; d < w.n; d++)
        margin[d] = -margin[d];
    assert_int_equal(nbem_fit_margins(&p, w.d, w.n, 400, margin, &c), ERR_OK);
    struct buf ba, bb, bc;
    buf_init(&ba, 0), buf_init(&bb, 0), buf_init(&bc, 0);
    assert_int_equal(nbem_serialize(a, &ba), ERR_OK);
    assert_int_equal(nbem_serialize(b, &bb), ERR_OK);
    assert_int_equal(nbem_serialize(c, &bc), ERR_OK);
    assert_int_equal(ba.len, bb.len);
    assert_memory_equal(ba.data, bb.data, ba.len);
    assert_true(bc.len != ba.len || memcmp(bc.data, ba.data, ba.len) != 0);
    buf_release(&ba), buf_release(&bb), buf_release(&bc);
    nbem_free(a), nbem_free(b), nbem_free(c);
}

static void test_web_gate(void **state)
{
    (void)state;
    static struct web w;
    gate_web(&w);
    struct nbem_params p;
    nbem_params_default(&p);
    double margin[128];
    assert_true(w.n <= 128);
    assert_int_equal(nbem_web_margins(&p, w.d, w.n, 400, margin), ERR_OK);
    for (size_t d = w.topical; d < w.neighbour; d++)
        if (!(margin[d] < 0 && margin[d] > -3))
            fail_msg("topical page %zu: web margin %g, want in (-3, 0)", d, margin[d]);
    for (size_t d = w.neighbour; d < w.other; d++)
        if (!(margin[d] < -5))
            fail_msg("neighbour page %zu: web margin %g, want below -5", d, margin[d]);
    for (size_t d = 0; d < 3; d++)
        if (!(margin[d] > 0))
            fail_msg("example page %zu: web margin %g, want above 0", d, margin[d]);
    int joined = 0;
    for (uint64_t seed = 1; seed <= 5; seed++) {
        size_t topical[3], neighbour[3];
        const double gates[3] = {INFINITY, 0, 3};
        for (int g = 0; g < 3; g++) {
            p.seed = seed;
            p.web_gate = gates[g];
            struct nbem *m = NULL;
            assert_int_equal(nbem_fit(&p, w.d, w.n, 400, &m), ERR_OK);
            topical[g] = topic_pages(m, &w, w.topical, 12);
            neighbour[g] = topic_pages(m, &w, w.neighbour, 40);
            nbem_free(m);
        }
        joined += topical[0] > 0;
        if (topical[1] || neighbour[1])
            fail_msg("seed %llu, gate 0: %zu topical and %zu neighbour pages in the topic, want 0",
                     (unsigned long long)seed, topical[1], neighbour[1]);
        if (topical[2] != topical[0] || neighbour[2] != neighbour[0])
            fail_msg("seed %llu: gate 3 gives %zu/%zu pages in the topic, no gate %zu/%zu",
                     (unsigned long long)seed, topical[2], neighbour[2], topical[0], neighbour[0]);
    }
    if (!joined)
        fail_msg("without a gate the topical pages never joined the topic: the test shows nothing");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_params),
        cmocka_unit_test(test_separated_corpus),
        cmocka_unit_test(test_unknown_terms_and_empty_page),
        cmocka_unit_test(test_prior_from_unlabelled_share),
        cmocka_unit_test(test_prior_without_unlabelled),
        cmocka_unit_test(test_seed),
        cmocka_unit_test(test_m_step_exact),
        cmocka_unit_test(test_em_by_hand),
        cmocka_unit_test(test_started_others_stay),
        cmocka_unit_test(test_bytes_round_trip),
        cmocka_unit_test(test_bag),
        cmocka_unit_test(test_scores_every_width),
        cmocka_unit_test(test_web_start),
        cmocka_unit_test(test_web_gate),
        cmocka_unit_test(test_fit_given_margins),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
