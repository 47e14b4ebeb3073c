/* Unit tests for classifier/tfidf and classifier/vocab: hand-computed TF-IDF, 3 documents. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classifier/tfidf.h"
#include "classifier/vocab.h"

#define TOL 1e-12

/*
 * Corpus (terms a b c d):  d1 = "a a b"   d2 = "b c"   d3 = "c c d"
 * df: a 1, b 2, c 2, d 1;  N = 3;  idf = ln((1 + N) / (1 + df)) + 1:
 *   idf(a) = idf(d) = ln 2 + 1 = 1.6931471805599454
 *   idf(b) = idf(c) = ln(4/3) + 1 = 1.2876820724517808
 * Sublinear d1: a = (1 + ln 2) * 1.69314718 = 2.86674737, b = 1.28768207;
 *   norm 3.14266886 -> a 0.9122016295971542, b 0.4097416099937816.
 * Raw-count d1: a = 2 * 1.69314718, b = 1.28768207 -> a 0.9347019636214327,
 *   b 0.35543246785041743.  d2 -> b = c = 1/sqrt 2.
 * d3 sublinear: c 0.7898069290660905, d 0.6133555370249717.
 * cos(d1, d2) = 0.2897310709608967 (sublinear), 0.2513287082708997 (raw);
 * cos(d2, d3) = 0.5584778353707551 (sublinear).
 */
static const char *corpus[3][3] = {{"a", "a", "b"}, {"b", "c", NULL}, {"c", "c", "d"}};

struct fixture {
    struct vocab v;
    struct tfidf_vec doc[3];
    double idf[4];
};

static void build(struct fixture *f, bool sublinear)
{
    vocab_init(&f->v);
    struct tfidf_counter c;
    tfidf_counter_init(&c);
    uint32_t df[4] = {0};
    for (int d = 0; d < 3; d++) {
        for (int i = 0; i < 3 && corpus[d][i]; i++) {
            uint32_t id;
            assert_int_equal(vocab_add(&f->v, corpus[d][i], 1, &id, NULL), ERR_OK);
            assert_int_equal(tfidf_counter_add(&c, id), ERR_OK);
        }
        tfidf_vec_init(&f->doc[d]);
        assert_int_equal(tfidf_counter_take(&c, &f->doc[d], true), ERR_OK);
        for (uint32_t t = 0; t < f->doc[d].n; t++)
            df[f->doc[d].id[t]]++;
    }
    assert_int_equal(f->v.n, 4);
    for (int t = 0; t < 4; t++)
        f->idf[t] = tfidf_idf(3, df[t]);
    for (int d = 0; d < 3; d++) {
        tfidf_weigh(&f->doc[d], f->idf, sublinear);
        tfidf_normalize(&f->doc[d]);
    }
    tfidf_counter_release(&c);
}

static void release(struct fixture *f)
{
    for (int d = 0; d < 3; d++)
        tfidf_vec_release(&f->doc[d]);
    vocab_release(&f->v);
}

static void test_idf_values(void **state)
{
    (void)state;
    struct fixture f;
    build(&f, true);
    assert_float_equal(f.idf[0], 1.6931471805599454, TOL); /* a */
    assert_float_equal(f.idf[1], 1.2876820724517808, TOL); /* b */
    assert_float_equal(f.idf[2], 1.2876820724517808, TOL); /* c */
    assert_float_equal(f.idf[3], 1.6931471805599454, TOL); /* d */
    assert_float_equal(tfidf_idf(10, 10), 1.0, TOL);       /* in every page: still counts */
    release(&f);
}

static void test_sublinear_vectors(void **state)
{
    (void)state;
    struct fixture f;
    build(&f, true);
    assert_int_equal(f.doc[0].n, 2);
    assert_int_equal(f.doc[0].id[0], 0);
    assert_float_equal(f.doc[0].w[0], 0.9122016295971542, TOL);
    assert_float_equal(f.doc[0].w[1], 0.4097416099937816, TOL);
    assert_float_equal(f.doc[1].w[0], 0.7071067811865476, TOL);
    assert_float_equal(f.doc[2].w[0], 0.7898069290660905, TOL);
    assert_float_equal(f.doc[2].w[1], 0.6133555370249717, TOL);
    assert_float_equal(tfidf_dot(&f.doc[0], &f.doc[1]), 0.2897310709608967, TOL);
    assert_float_equal(tfidf_dot(&f.doc[1], &f.doc[2]), 0.5584778353707551, TOL);
    assert_float_equal(tfidf_dot(&f.doc[0], &f.doc[2]), 0.0, TOL);
    assert_float_equal(tfidf_dot(&f.doc[2], &f.doc[2]), 1.0, TOL);
    release(&f);
}

static void test_raw_tf_vectors(void **state)
{
    (void)state;
    struct fixture f;
    build(&f, false);
    assert_float_equal(f.doc[0].w[0], 0.9347019636214327, TOL);
    assert_float_equal(f.doc[0].w[1], 0.35543246785041743, TOL);
    assert_float_equal(tfidf_dot(&f.doc[0], &f.doc[1]), 0.2513287082708997, TOL);
    release(&f);
}

static void test_tf_and_weigh(void **state)
{
    (void)state;
    assert_float_equal(tfidf_tf(0, true), 0, TOL);
    assert_float_equal(tfidf_tf(1, true), 1, TOL);
    assert_float_equal(tfidf_tf(3, true), 1 + log(3), TOL);
    assert_float_equal(tfidf_tf(3, false), 3, TOL);

    /* Entries of pruned terms (idf 0) disappear; a zero vector stays zero. */
    struct tfidf_vec v;
    tfidf_vec_init(&v);
    assert_int_equal(tfidf_vec_push(&v, 2, 4), ERR_OK);
    assert_int_equal(tfidf_vec_push(&v, 0, 1), ERR_OK);
    assert_int_equal(tfidf_vec_push(&v, 1, 1), ERR_OK);
    double idf[3] = {2, 0, 0.5};
    tfidf_weigh(&v, idf, false);
    assert_int_equal(v.n, 2);
    assert_float_equal(tfidf_normalize(&v), sqrt(4 + 4), TOL);
    tfidf_vec_sort(&v);
    assert_int_equal(v.id[0], 0);
    assert_int_equal(v.id[1], 2);
    v.n = 0;
    assert_float_equal(tfidf_normalize(&v), 0, TOL);
    tfidf_vec_release(&v);
    tfidf_vec_release(NULL);
}

static void test_sort_long(void **state)
{
    (void)state;
    struct tfidf_vec v;
    tfidf_vec_init(&v);
    for (uint32_t i = 0; i < 1000; i++)
        assert_int_equal(tfidf_vec_push(&v, (i * 7919u) % 1000u, (double)i), ERR_OK);
    tfidf_vec_sort(&v);
    for (uint32_t i = 0; i < 1000; i++) {
        assert_int_equal(v.id[i], i);
        assert_int_equal((uint32_t)v.w[i] * 7919u % 1000u, i); /* weights moved with ids */
    }
    tfidf_vec_release(&v);
}

static void test_vocab(void **state)
{
    (void)state;
    struct vocab v;
    vocab_init(&v);
    uint32_t id, id2;
    bool added;
    assert_false(vocab_find(&v, "x", 1, &id));
    char term[16];
    for (int i = 0; i < 20000; i++) {
        int n = snprintf(term, sizeof term, "t%d", i);
        assert_int_equal(vocab_add(&v, term, (size_t)n, &id, &added), ERR_OK);
        assert_true(added);
        assert_int_equal(id, (uint32_t)i);
    }
    assert_int_equal(vocab_add(&v, "t123", 4, &id2, &added), ERR_OK);
    assert_false(added);
    assert_int_equal(id2, 123);
    assert_true(vocab_find(&v, "t19999", 6, &id));
    assert_int_equal(id, 19999);
    assert_false(vocab_find(&v, "t20000", 6, &id));
    size_t len;
    const char *s = vocab_term(&v, 4242, &len);
    assert_int_equal(len, 5);
    assert_memory_equal(s, "t4242", 5);
    assert_int_equal(vocab_add(&v, "", 0, &id, NULL), ERR_INVAL);
    char big[VOCAB_MAX_LEN + 1];
    memset(big, 'b', sizeof big);
    assert_int_equal(vocab_add(&v, big, sizeof big, &id, NULL), ERR_INVAL);
    assert_int_equal(vocab_add(&v, big, VOCAB_MAX_LEN, &id, &added), ERR_OK);
    assert_true(added);
    vocab_release(&v);
    vocab_release(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_idf_values),     cmocka_unit_test(test_sublinear_vectors),
        cmocka_unit_test(test_raw_tf_vectors), cmocka_unit_test(test_tf_and_weigh),
        cmocka_unit_test(test_sort_long),      cmocka_unit_test(test_vocab),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
