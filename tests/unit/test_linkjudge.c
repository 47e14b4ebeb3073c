/* A website's verdict with its links' (classifier/linkjudge.h). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "classifier/linkjudge.h"

#define FIXED(v)                                                                                   \
    {                                                                                              \
        .fixed = (v)                                                                               \
    }
/* The crawl's (jobjudge_params_default's link_slope) */
#define SLOPE 2.0
/* ... and its exam_links */
#define EXAM 4.0

#define JUDGED(t)                                                                                  \
    {                                                                                              \
        .fixed = -1, .text = (t)                                                                   \
    }

/* Four examples (A, B relevant; C, D not) and X, judged, its text a little for: A <-> B,
 * C <-> D, X -> C, X -> D, A -> X. */
static const struct linkjudge_site four_and_x[] = {FIXED(1), FIXED(1), FIXED(0), FIXED(0),
                                                   JUDGED(0.5)};
static const struct linkjudge_edge four_and_x_links[] = {{0, 1}, {1, 0}, {2, 3}, {3, 2},
                                                         {4, 2}, {4, 3}, {0, 4}};

/* The four examples and X into s, judged in one round at slope; the rates. */
static struct linkjudge_rates run_four_and_x(struct linkjudge_site s[5], double slope)
{
    struct linkjudge_rates r;
    memcpy(s, four_and_x, sizeof four_and_x);
    assert_int_equal(linkjudge_run(s, 5, four_and_x_links, 7, 1, slope, EXAM, &r), ERR_OK);
    return r;
}

/*
 * The four examples and X, slope 0: each neighbour counts as its verdict. Rates
 * with 2 pseudo-links at 1/2 (X relevant by its text in the first round): out of relevant websites
 * A, B, X: 5 links, 3 to relevant ones, a1 = 4/7; out of C, D: 2 links, none, a0 = 1/4. Into
 * relevant websites: 3 links, all from relevant ones, a1 = 4/5; into C, D: 4 links, 2 from relevant
 * (X), a0 = 3/6.
 */
static void test_rates_and_evidence(void **state)
{
    (void)state;
    struct linkjudge_site s[5];
    struct linkjudge_rates r = run_four_and_x(s, 0);
    assert_true(fabs(r.out_relevant - 4.0 / 7) < 1e-12);
    assert_true(fabs(r.out_other - 0.25) < 1e-12);
    assert_true(fabs(r.in_relevant - 0.8) < 1e-12);
    assert_true(fabs(r.in_other - 0.5) < 1e-12);
    /* X: two links out to not relevant websites, one in from a relevant one */
    double ev = 2 * log((1 - 4.0 / 7) / (1 - 0.25)) + log(0.8 / 0.5);
    assert_true(fabs(s[4].evidence - ev) < 1e-12);
    assert_int_equal(s[4].linked, 3);
    assert_int_equal(s[4].linked_relevant, 1);
    assert_false(s[4].relevant); /* 0.5 - 0.65 */
    assert_true(fabs(linkjudge_confidence(&s[4]) - 1 / (1 + exp(-(0.5 + ev)))) < 1e-12);
    /* the fixed verdicts stay, whatever their links say */
    assert_true(s[0].relevant && s[1].relevant && !s[2].relevant && !s[3].relevant);
}

static double sigma(double x)
{
    return 1 / (1 + exp(-x));
}

/*
 * The four examples and X with slope 1: X counts as relevant with probability q = sigma(0.5) in
 * both classes' rates. Out: A links to B and X, B to A (relevant), X to C and D (q of its 2 links
 * in the relevant class's), C and D to each other: a1 = (1 + 1 + q + 1) / (2 + 3 + 2q), a0 = 1 / (2
 * + 2 + 2 (1 - q)). In: B into A, A into B, A into X (q of it relevant's), D and X into C, C and X
 * into D: a1 = (1 + 2 + q) / (2 + 2 + q), a0 = (1 + 2q + 1 - q) / (2 + 4 + 1 - q). X's evidence: C
 * and D (q 0) out, A (q 1) in.
 */
static void test_probabilities(void **state)
{
    (void)state;
    struct linkjudge_site s[5];
    struct linkjudge_rates r = run_four_and_x(s, 1.0);
    double q = sigma(0.5);
    double a1o = (3 + q) / (5 + 2 * q), a0o = 1 / (6 - 2 * q);
    double a1i = (3 + q) / (4 + q), a0i = (2 + q) / (7 - q);
    assert_true(fabs(r.out_relevant - a1o) < 1e-12 && fabs(r.out_other - a0o) < 1e-12);
    assert_true(fabs(r.in_relevant - a1i) < 1e-12 && fabs(r.in_other - a0i) < 1e-12);
    double ev = 2 * log((1 - a1o) / (1 - a0o)) + log(a1i / a0i);
    assert_true(fabs(s[4].evidence - ev) < 1e-12);
    assert_int_equal(s[4].relevant, 0.5 + ev > 0);
}

/*
 * A neighbour the text leaves in doubt says little. W links to U and U to W; U's text is
 * just for (0.05), W's clearly for; the rates come from four examples. Slope 0: U counts
 * as relevant, ln(a1 / a0) a link; slope 2: U is relevant with probability ~1/2, and its
 * links add little. A judged neighbour of text 0 (q exactly 1/2) adds nothing.
 */
static void test_doubtful_neighbour(void **state)
{
    (void)state;
    struct linkjudge_site s[] = {FIXED(1), FIXED(1), FIXED(0), FIXED(0), JUDGED(3), JUDGED(0.05)};
    struct linkjudge_edge e[] = {{0, 1}, {1, 0}, {2, 3}, {3, 2}, {4, 5}, {5, 4}, {0, 4}, {4, 0}};
    struct linkjudge_rates r;
    assert_int_equal(linkjudge_run(s, 6, e, 8, 1, 0, EXAM, &r), ERR_OK);
    double hard = log(r.out_relevant / r.out_other) + log(r.in_relevant / r.in_other);
    assert_true(hard > 1);
    assert_true(fabs(s[4].evidence - (2 * hard)) < 1e-12); /* A and U, both relevant */
    assert_int_equal(linkjudge_run(s, 6, e, 8, 1, SLOPE, EXAM, &r), ERR_OK);
    double from_a = log(r.out_relevant / r.out_other) + log(r.in_relevant / r.in_other);
    assert_true(s[4].evidence - from_a > 0 && s[4].evidence - from_a < 0.2 * hard);
    s[5].text = 0; /* q = 1/2: (a1 + 1 - a1) / (a0 + 1 - a0) = 1 */
    assert_int_equal(linkjudge_run(s, 6, e, 8, 1, SLOPE, EXAM, &r), ERR_OK);
    from_a = log(r.out_relevant / r.out_other) + log(r.in_relevant / r.in_other);
    assert_true(fabs(s[4].evidence - from_a) < 1e-12);
}

/*
 * The examination's "not relevant" stands unless the links say relevant by more than
 * exam_links: X, its text a little against (-0.5) and the examination's "no", links to
 * and from the two relevant examples; one round, so that its evidence e does not depend on
 * its own verdict. At exam_links a hair under e the links overrule the examination (X
 * relevant, its confidence sigma(text + e)); a hair over, it stands (not relevant, at most
 * 1/2); so it does with 0 rounds, and for a website more like a rejected one (a veto).
 */
static void test_examination(void **state)
{
    (void)state;
    struct linkjudge_site s[] = {FIXED(1),
                                 FIXED(1),
                                 FIXED(0),
                                 FIXED(0),
                                 FIXED(0),
                                 FIXED(0),
                                 {.fixed = -1, .text = -0.5, .exam_no = 1}};
    struct linkjudge_edge e[] = {{0, 1}, {1, 0}, {2, 3}, {2, 4}, {3, 4}, {3, 5}, {4, 5},
                                 {4, 2}, {5, 2}, {5, 3}, {6, 0}, {6, 1}, {0, 6}, {1, 6}};
    assert_int_equal(linkjudge_run(s, 7, e, 14, 1, SLOPE, INFINITY, NULL), ERR_OK);
    double ev = s[6].evidence;
    assert_true(ev > 0.5);
    assert_false(s[6].relevant || s[6].overruled);
    assert_true(linkjudge_confidence(&s[6]) == 0.5);
    assert_int_equal(linkjudge_run(s, 7, e, 14, 1, SLOPE, ev - 0.01, NULL), ERR_OK);
    assert_true(s[6].evidence == ev && s[6].overruled && s[6].relevant);
    assert_true(fabs(linkjudge_confidence(&s[6]) - 1 / (1 + exp(-(-0.5 + ev)))) < 1e-12);
    assert_int_equal(linkjudge_run(s, 7, e, 14, 1, SLOPE, ev + 0.01, NULL), ERR_OK);
    assert_false(s[6].relevant || s[6].overruled);
    assert_int_equal(linkjudge_run(s, 7, e, 14, 0, SLOPE, 0, NULL), ERR_OK); /* no links */
    assert_false(s[6].relevant || s[6].overruled);
    s[6].veto = 1;
    assert_int_equal(linkjudge_run(s, 7, e, 14, 1, SLOPE, ev - 0.01, NULL), ERR_OK);
    assert_false(s[6].relevant);
}

/* Rounds 0: the text alone, no evidence. */
static void test_no_rounds(void **state)
{
    (void)state;
    struct linkjudge_site s[] = {FIXED(1), JUDGED(-0.2), JUDGED(0.3)};
    struct linkjudge_edge e[] = {{0, 1}, {1, 0}, {2, 0}};
    assert_int_equal(linkjudge_run(s, 3, e, 3, 0, SLOPE, EXAM, NULL), ERR_OK);
    assert_false(s[1].relevant);
    assert_true(s[2].relevant);
    assert_true(s[1].evidence == 0 && s[2].evidence == 0 && s[1].linked == 0);
}

/*
 * A web with topical locality: 12 relevant and 24 other websites (fixed), each linking to
 * 3 of its own kind and 1 of the other; then two judged websites: M, whose text is a
 * little for (a mixed website) but whose links are all to and from other websites, and
 * W, whose text is a little against but whose links are to and from relevant ones. The
 * links turn both; a vetoed website stays not relevant, its confidence at most 1/2.
 */
static void test_locality(void **state)
{
    (void)state;
    enum { REL = 12, OTHER = 24, N = REL + OTHER + 3 };
    struct linkjudge_site s[N];
    struct linkjudge_edge e[4 * (REL + OTHER) + 12];
    size_t ne = 0;
    for (uint32_t i = 0; i < REL + OTHER; i++) {
        s[i] = (struct linkjudge_site)FIXED(i < REL);
        uint32_t base = i < REL ? 0 : REL, size = i < REL ? REL : OTHER;
        for (uint32_t k = 1; k <= 3; k++)
            e[ne++] = (struct linkjudge_edge){i, base + (i - base + k) % size};
        e[ne++] = (struct linkjudge_edge){i, i < REL ? REL + i : i % REL};
    }
    uint32_t m = REL + OTHER, w = m + 1, v = m + 2;
    s[m] = (struct linkjudge_site)JUDGED(0.4);
    s[w] = (struct linkjudge_site)JUDGED(-0.4);
    s[v] = (struct linkjudge_site){.fixed = -1, .text = -0.4, .veto = 1};
    for (uint32_t k = 0; k < 2; k++) {
        e[ne++] = (struct linkjudge_edge){m, REL + k};
        e[ne++] = (struct linkjudge_edge){REL + 5 + k, m};
        e[ne++] = (struct linkjudge_edge){w, k};
        e[ne++] = (struct linkjudge_edge){5 + k, w};
        e[ne++] = (struct linkjudge_edge){v, 2 + k};
        e[ne++] = (struct linkjudge_edge){7 + k, v};
    }
    struct linkjudge_rates r;
    assert_int_equal(linkjudge_run(s, N, e, ne, 3, SLOPE, EXAM, &r), ERR_OK);
    assert_true(r.out_relevant > 0.6 && r.out_other < 0.3);
    assert_false(s[m].relevant);
    assert_true(s[m].evidence < -0.4 && linkjudge_confidence(&s[m]) < 0.5);
    assert_true(s[w].relevant);
    assert_true(s[w].evidence > 0.4 && linkjudge_confidence(&s[w]) > 0.5);
    assert_int_equal(s[w].linked, 4);
    assert_int_equal(s[w].linked_relevant, 4);
    assert_false(s[v].relevant);
    assert_true(s[v].evidence > 0.4 && linkjudge_confidence(&s[v]) == 0.5);
}

/* A vetoed website is a not relevant neighbour, however relevant its text and links. */
static void test_vetoed_neighbour(void **state)
{
    (void)state;
    struct linkjudge_site s[] = {
        FIXED(1), FIXED(1), FIXED(0), {.fixed = -1, .text = 2, .veto = 1}, JUDGED(0.1)};
    struct linkjudge_edge e[] = {{0, 1}, {1, 0}, {0, 3}, {3, 0}, {4, 3}, {4, 0}};
    assert_int_equal(linkjudge_run(s, 5, e, 6, 2, SLOPE, EXAM, NULL), ERR_OK);
    assert_false(s[3].relevant);
    assert_true(linkjudge_confidence(&s[3]) <= 0.5);
    assert_int_equal(s[4].linked, 2);
    assert_int_equal(s[4].linked_relevant, 1); /* A, not the vetoed website */
}

/* A direction in which relevant websites link to relevant ones no more than the others
 * do says nothing. */
static void test_no_locality(void **state)
{
    (void)state;
    /* every link crosses: relevant -> other, other -> relevant */
    struct linkjudge_site s[] = {FIXED(1), FIXED(1), FIXED(0), FIXED(0), JUDGED(0.1)};
    struct linkjudge_edge e[] = {{0, 2}, {1, 3}, {2, 0}, {3, 1}, {4, 2}, {2, 4}};
    struct linkjudge_rates r;
    assert_int_equal(linkjudge_run(s, 5, e, 6, 2, SLOPE, EXAM, &r), ERR_OK);
    assert_true(r.out_relevant <= r.out_other && r.in_relevant <= r.in_other);
    assert_true(s[4].evidence == 0);
    assert_true(s[4].relevant);
    assert_int_equal(s[4].linked, 2);
}

static void test_errors(void **state)
{
    (void)state;
    struct linkjudge_site s[] = {FIXED(1), JUDGED(0.1)};
    struct linkjudge_edge out_of_range[] = {{0, 2}}, loop[] = {{1, 1}};
    assert_int_equal(linkjudge_run(s, 2, out_of_range, 1, 1, SLOPE, EXAM, NULL), ERR_INVAL);
    assert_int_equal(linkjudge_run(s, 2, loop, 1, 1, SLOPE, EXAM, NULL), ERR_INVAL);
    assert_int_equal(linkjudge_run(s, 2, NULL, 0, 3, SLOPE, EXAM, NULL),
                     ERR_OK); /* no link: the text */
    assert_true(s[1].relevant && s[1].evidence == 0);
    assert_int_equal(linkjudge_run(NULL, 0, NULL, 0, 3, SLOPE, EXAM, NULL), ERR_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rates_and_evidence), cmocka_unit_test(test_probabilities),
        cmocka_unit_test(test_doubtful_neighbour), cmocka_unit_test(test_examination),
        cmocka_unit_test(test_no_rounds),          cmocka_unit_test(test_locality),
        cmocka_unit_test(test_no_locality),        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_vetoed_neighbour),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
