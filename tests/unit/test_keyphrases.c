/* Key phrases (classifier/keyphrases.h): seed 001's eqs. 2-4 on hand-computed cases, the
 * choice on a toy corpus, lambda, and the text they are stored as. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "classifier/keyphrases.h"
#include "classifier/pagecls.h"

/* Eq. 2: TF / max TF * DF / n. */
static void tfdf_formula(void **state)
{
    (void)state;
    assert_float_equal(keyphrases_tfdf(3, 6, 2, 4), 0.25, 1e-15); /* 0.5 * 0.5 */
    assert_float_equal(keyphrases_tfdf(1, 1, 4, 4), 1, 1e-15); /* the page's top term, everywhere */
    assert_float_equal(keyphrases_tfdf(2, 5, 1, 10), 0.04, 1e-15); /* 0.4 * 0.1 */
    assert_float_equal(keyphrases_tfdf(0, 5, 1, 10), 0, 1e-15);
    assert_float_equal(keyphrases_tfdf(2, 0, 1, 10), 0, 1e-15); /* an empty page */
    assert_float_equal(keyphrases_tfdf(2, 5, 1, 0), 0, 1e-15);  /* an empty class */
}

/* Eq. 3: -sum p ln p, natural logarithms, 0 ln 0 = 0. */
static void entropy_formula(void **state)
{
    (void)state;
    const uint32_t even[] = {1, 1}, skew[] = {3, 1}, pure[] = {5, 0}, none[] = {0, 0};
    const uint32_t four[] = {2, 2, 2, 2};
    assert_float_equal(keyphrases_entropy(even, 2), log(2), 1e-15);
    /* -(0.75 ln 0.75 + 0.25 ln 0.25) = 0.2157615543 + 0.3465735903 */
    assert_float_equal(keyphrases_entropy(skew, 2), 0.5623351446, 1e-9);
    assert_float_equal(keyphrases_entropy(pure, 2), 0, 1e-15);
    assert_float_equal(keyphrases_entropy(none, 2), 0, 1e-15);
    assert_float_equal(keyphrases_entropy(four, 4), log(4), 1e-15);
}

/* Eq. 4 with the attribute "holds the term", 3 target and 3 other pages. */
static void gain_formula(void **state)
{
    (void)state;
    /* In every target page and no other: both parts pure, the gain is E_S = ln 2. */
    assert_float_equal(keyphrases_gain(3, 0, 3, 3), log(2), 1e-15);
    /* In 2 target pages only: ln 2 - 4/6 H(1, 3) = 0.6931471806 - 0.6666 * 0.5623351446. */
    assert_float_equal(keyphrases_gain(2, 0, 3, 3), 0.3182570841, 1e-9);
    /* In 2 target and 1 other: ln 2 - 3/6 H(2, 1) - 3/6 H(1, 2) = ln 2 - 0.6365141683. */
    assert_float_equal(keyphrases_gain(2, 1, 3, 3), 0.0566330123, 1e-9);
    /* Held by half the pages of each class (1 of 2 target, 3 of 6 other): no information. */
    assert_float_equal(keyphrases_gain(1, 3, 2, 6), 0, 1e-12);
    /* Symmetric: a term only the other class uses informs as much. */
    assert_float_equal(keyphrases_gain(0, 3, 3, 3), log(2), 1e-15);
    /* Impossible counts and an empty set give 0. */
    assert_float_equal(keyphrases_gain(4, 0, 3, 3), 0, 1e-15);
    assert_float_equal(keyphrases_gain(0, 0, 0, 0), 0, 1e-15);
}

static void assert_key(const struct keyphrases *kp, uint32_t i, const char *want)
{
    size_t n;
    const char *t = keyphrases_term(kp, i, &n);
    assert_int_equal(n, strlen(want));
    assert_memory_equal(t, want, n);
}

/*
 * Three target websites about space, three others about cooking (one page each).
 * DF target/other and mean TF-DF over the target pages (hand-computed):
 *   rocket 3/0, TF/maxTF 1/3 + 1 + 1/3, W = 0.5556; gain ln 2 = 0.6931
 *   launch 2/1, TF/maxTF 1 + 1,          W = 0.4444; gain 0.0566
 *   orbit  2/0, TF/maxTF 1/3 + 1,        W = 0.2963; gain 0.3183
 * nasa, telescope and acme are each used by one target website only; recipe, bake and
 * flour only by the other class. TF-DF alone would rank launch above orbit; the gain
 * puts orbit first.
 */
static const char *const corpus[][2] = {
    {"rocket launch launch launch orbit nasa", "t"},
    {"rocket orbit telescope", "t"},
    {"rocket launch launch launch acme acme", "t"},
    {"recipe recipe launch", "o"},
    {"recipe bake", "o"},
    {"bake flour", "o"},
};

static struct keyphrases *toy_keys(uint32_t k)
{
    struct pagecls_doc docs[6];
    for (uint32_t i = 0; i < 6; i++)
        docs[i] = (struct pagecls_doc){corpus[i][0], strlen(corpus[i][0]),
                                       corpus[i][1][0] == 't' ? PAGECLS_TARGET : PAGECLS_OTHER, i};
    struct tokenize_opts tok;
    tokenize_opts_default(&tok); /* stemmed: these words are their own stems */
    struct keyphrases *kp = NULL;
    assert_int_equal(keyphrases_train(&tok, docs, 6, k, &kp), ERR_OK);
    return kp;
}

static void choice_on_a_toy_corpus(void **state)
{
    (void)state;
    struct keyphrases *kp = toy_keys(KEYPHRASES_K);
    assert_int_equal(keyphrases_count(kp), 3); /* only three qualify */
    assert_key(kp, 0, "rocket");
    assert_key(kp, 1, "orbit");
    assert_key(kp, 2, "launch");
    keyphrases_free(kp);
    kp = toy_keys(1);
    assert_int_equal(keyphrases_count(kp), 1);
    assert_key(kp, 0, "rocket");
    keyphrases_free(kp);
}

/* lambda counts each key phrase once, tokenised (and stemmed) as the model does. */
static void lambda_counts_distinct_keys(void **state)
{
    (void)state;
    struct keyphrases *kp = toy_keys(KEYPHRASES_K);
    uint32_t lambda = 99;
    const char *page = "Rockets launched into orbit; the rocket's orbit.";
    assert_int_equal(keyphrases_lambda(kp, page, strlen(page), &lambda), ERR_OK);
    assert_int_equal(lambda, 3);
    const char *cooking = "A recipe to bake bread";
    assert_int_equal(keyphrases_lambda(kp, cooking, strlen(cooking), &lambda), ERR_OK);
    assert_int_equal(lambda, 0);
    const char *one = "rocket rocket rocket";
    assert_int_equal(keyphrases_lambda(kp, one, strlen(one), &lambda), ERR_OK);
    assert_int_equal(lambda, 1);
    assert_int_equal(keyphrases_lambda(kp, "", 0, &lambda), ERR_OK);
    assert_int_equal(lambda, 0);
    keyphrases_free(kp);
}

/* Stored as one term a line; read back, they count the same. */
static void text_round_trip(void **state)
{
    (void)state;
    struct keyphrases *kp = toy_keys(KEYPHRASES_K);
    struct buf b;
    buf_init(&b, 0);
    assert_int_equal(keyphrases_format(kp, &b), ERR_OK);
    assert_string_equal(buf_str(&b), "rocket\norbit\nlaunch\n");
    struct tokenize_opts tok;
    tokenize_opts_default(&tok);
    struct keyphrases *back = NULL;
    assert_int_equal(keyphrases_parse(&tok, b.data, b.len, &back), ERR_OK);
    assert_int_equal(keyphrases_count(back), 3);
    assert_key(back, 1, "orbit");
    uint32_t lambda;
    const char *page = "an orbit, a launch";
    assert_int_equal(keyphrases_lambda(back, page, strlen(page), &lambda), ERR_OK);
    assert_int_equal(lambda, 2);
    keyphrases_free(back);
    /* No key phrase at all (a corpus where none qualifies): lambda 0, no crash. */
    assert_int_equal(keyphrases_parse(&tok, "", 0, &back), ERR_OK);
    assert_int_equal(keyphrases_count(back), 0);
    assert_int_equal(keyphrases_lambda(back, page, strlen(page), &lambda), ERR_OK);
    assert_int_equal(lambda, 0);
    keyphrases_free(back);
    buf_release(&b);
    keyphrases_free(kp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tfdf_formula),
        cmocka_unit_test(entropy_formula),
        cmocka_unit_test(gain_formula),
        cmocka_unit_test(choice_on_a_toy_corpus),
        cmocka_unit_test(lambda_counts_distinct_keys),
        cmocka_unit_test(text_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
