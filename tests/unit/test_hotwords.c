/* Hot words (classifier/hotwords.h): the cosine on hand-computed cases, key terms of a toy model.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "classifier/hotwords.h"
#include "classifier/pagecls.h"
#include "classifier/pagecls_train.h"

/* sum of key counts / (sqrt(sum counts^2) sqrt(n_keys)) */
static void cosine_formula(void **state)
{
    (void)state;
    const uint32_t c1[] = {2, 1, 1};
    const bool k1[] = {true, false, true};
    /* (2 + 1) / (sqrt 6 * sqrt 4) = 3 / 4.8989794856 = 0.6123724357 */
    assert_float_equal(hotwords_cosine(c1, k1, 3, 4), 0.6123724357, 1e-9);
    const uint32_t c2[] = {1};
    const bool k2[] = {true};
    assert_float_equal(hotwords_cosine(c2, k2, 1, 10), 1 / sqrt(10), 1e-15); /* 0.316 */
    const uint32_t c3[] = {1, 1, 1};
    const bool k3[] = {false, true, false};
    /* 1 / (sqrt 3 sqrt 10) = 0.1825741858: one key word among three is below theta 0.2 */
    assert_float_equal(hotwords_cosine(c3, k3, 3, 10), 0.1825741858, 1e-9);
    const bool none[] = {false, false, false};
    assert_float_equal(hotwords_cosine(c3, none, 3, 10), 0, 1e-15);
    assert_float_equal(hotwords_cosine(c3, k3, 0, 10), 0, 1e-15); /* no anchor text */
    assert_float_equal(hotwords_cosine(c3, k3, 3, 0), 0, 1e-15);  /* no key terms */
    /* The anchor made only of key terms, each once, all of them: 1. */
    const bool all[] = {true, true, true};
    assert_float_equal(hotwords_cosine(c3, all, 3, 3), 1, 1e-12);
}

/* Six websites of two pages: three about space (the target), three about cooking. The
 * space pages say rocket three times, orbit twice, launch once; "contact" is everywhere. */
#define SITES 6
#define PAGES 2
static struct pagecls *toy_model(void)
{
    static const char *target = "rocket rocket rocket orbit orbit launch contact";
    static const char *other = "recipe recipe recipe bake bake flour contact";
    struct pagecls_doc docs[SITES * PAGES];
    for (uint32_t s = 0; s < SITES; s++)
        for (uint32_t p = 0; p < PAGES; p++) {
            const char *t = s < 3 ? target : other;
            docs[s * PAGES + p] =
                (struct pagecls_doc){t, strlen(t), s < 3 ? PAGECLS_TARGET : PAGECLS_OTHER, s};
        }
    struct pagecls_params prm;
    pagecls_params_default(&prm);
    prm.centroids = 1;
    struct pagecls *m = NULL;
    assert_int_equal(pagecls_train(&prm, docs, SITES * PAGES, &m), ERR_OK);
    return m;
}

static void assert_term(const struct hotwords *h, uint32_t i, const char *want)
{
    size_t n;
    const char *t = hotwords_term(h, i, &n);
    assert_int_equal(n, strlen(want));
    assert_memory_equal(t, want, n);
}

static void key_terms_of_a_model(void **state)
{
    (void)state;
    struct pagecls *m = toy_model();
    struct hotwords *h = NULL;
    assert_int_equal(hotwords_new(m, 3, &h), ERR_OK);
    assert_int_equal(hotwords_count(h), 3);
    /* The most typical of the target first (sublinear tf: 3 > 2 > 1 occurrences). */
    assert_term(h, 0, "rocket");
    assert_term(h, 1, "orbit");
    assert_term(h, 2, "launch");
    hotwords_free(h);
    /* Fewer asked: the best only. */
    assert_int_equal(hotwords_new(m, 1, &h), ERR_OK);
    assert_int_equal(hotwords_count(h), 1);
    assert_term(h, 0, "rocket");
    hotwords_free(h);
    /* More asked: only terms more typical of the target than of the rest, never the
     * cooking words. */
    assert_int_equal(hotwords_new(m, 10, &h), ERR_OK);
    assert_true(hotwords_count(h) >= 3 && hotwords_count(h) <= 4);
    for (uint32_t i = 0; i < hotwords_count(h); i++) {
        size_t n;
        const char *t = hotwords_term(h, i, &n);
        assert_true(n < 6 || memcmp(t, "recipe", 6) != 0);
        assert_true(n != 4 || memcmp(t, "bake", 4) != 0);
    }
    hotwords_free(h);
    pagecls_free(m);
}

/* Anchors tokenised as the model's pages are: stemmed, stop words out. */
static void anchor_scores(void **state)
{
    (void)state;
    struct pagecls *m = toy_model();
    struct hotwords *h = NULL;
    assert_int_equal(hotwords_new(m, 3, &h), ERR_OK);
    double s;
    /* rocket, launch, schedul: 2 / (sqrt 3 sqrt 3) */
    assert_int_equal(hotwords_score(h, "Rocket Launch schedule", 22, &s), ERR_OK);
    assert_float_equal(s, 2.0 / 3, 1e-12);
    /* "Rockets" stems to rocket: counts {2}, 2 / (2 sqrt 3) */
    assert_int_equal(hotwords_score(h, "Rockets, rocket!", 16, &s), ERR_OK);
    assert_float_equal(s, 1 / sqrt(3), 1e-12);
    assert_int_equal(hotwords_score(h, "click here", 10, &s), ERR_OK);
    assert_float_equal(s, 0, 1e-15);
    assert_int_equal(hotwords_score(h, "", 0, &s), ERR_OK);
    assert_float_equal(s, 0, 1e-15);
    /* The same object scores the next anchor afresh. */
    assert_int_equal(hotwords_score(h, "orbit", 5, &s), ERR_OK);
    assert_float_equal(s, 1 / sqrt(3), 1e-12);
    hotwords_free(h);
    pagecls_free(m);
}

/* Issue 32: an SVM's model has no centroids: refused, not an empty set of hot words (which
 * would crawl as bestfirst). */
static void svm_model_refused(void **state)
{
    (void)state;
    static const char *target = "rocket rocket rocket orbit orbit launch contact";
    static const char *other = "recipe recipe recipe bake bake flour contact";
    struct pagecls_doc docs[SITES * PAGES];
    for (uint32_t s = 0; s < SITES * PAGES; s++) {
        const char *t = s < SITES * PAGES / 2 ? target : other;
        docs[s] = (struct pagecls_doc){
            t, strlen(t), s < SITES * PAGES / 2 ? PAGECLS_TARGET : PAGECLS_OTHER, s / PAGES};
    }
    struct pagecls_params prm;
    pagecls_params_default(&prm);
    prm.kind = PAGECLS_SVM;
    struct pagecls *m = NULL;
    assert_int_equal(pagecls_train(&prm, docs, SITES * PAGES, &m), ERR_OK);
    struct hotwords *h = (struct hotwords *)1;
    assert_int_equal(hotwords_new(m, 3, &h), ERR_INVAL);
    assert_null(h);
    assert_non_null(strstr(err_msg(), "no centroids"));
    pagecls_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cosine_formula),
        cmocka_unit_test(key_terms_of_a_model),
        cmocka_unit_test(anchor_scores),
        cmocka_unit_test(svm_model_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
