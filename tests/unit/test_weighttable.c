/* The topic weight table (classifier/weighttable.h): seed 002's tf, idf and cosine on
 * hand-computed cases, a table from a toy corpus, relevancies, the stored text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "classifier/pagecls.h"
#include "classifier/weighttable.h"

static void tf_idf_formulas(void **state)
{
    (void)state;
    assert_float_equal(weighttable_tf(3, 6), 0.5, 1e-15);
    assert_float_equal(weighttable_tf(6, 6), 1, 1e-15);
    assert_float_equal(weighttable_tf(0, 4), 0, 1e-15);
    assert_float_equal(weighttable_tf(2, 0), 0, 1e-15);
    /* log(|D| / (1 + df)): 10 pages, 4 hold it: ln 2. */
    assert_float_equal(weighttable_idf(10, 4), log(2), 1e-15);
    assert_float_equal(weighttable_idf(4, 3), 0, 1e-15); /* 4 / (1 + 3) */
    /* In every page: the guard's 1 makes it negative, ln 0.8 (such a term is left out). */
    assert_float_equal(weighttable_idf(4, 4), -0.2231435513, 1e-9);
    assert_float_equal(weighttable_idf(0, 0), 0, 1e-15);
}

static void cosine_formula(void **state)
{
    (void)state;
    const double t1[] = {1, 0.5}, p1[] = {2, 0};
    /* 2 / (sqrt 1.25 * 2) = 0.8944271910 */
    assert_float_equal(weighttable_cosine(t1, p1, 2), 0.8944271910, 1e-9);
    const double t2[] = {1, 0.5, 0.25}, p2[] = {0, 1, 1};
    /* 0.75 / (sqrt 1.3125 * sqrt 2) = 0.4629100499 */
    assert_float_equal(weighttable_cosine(t2, p2, 3), 0.4629100499, 1e-9);
    const double p3[] = {4, 2};
    assert_float_equal(weighttable_cosine(t1, p3, 2), 1, 1e-15); /* same direction */
    const double zero[] = {0, 0};
    assert_float_equal(weighttable_cosine(t1, zero, 2), 0, 1e-15); /* no keyword */
    assert_float_equal(weighttable_cosine(zero, p1, 2), 0, 1e-15);
}

static void assert_key(const struct weighttable *wt, uint32_t i, const char *want, double w)
{
    size_t n;
    const char *t = weighttable_term(wt, i, &n);
    assert_int_equal(n, strlen(want));
    assert_memory_equal(t, want, n);
    assert_float_equal(weighttable_weight(wt, i), w, 1e-9);
}

/*
 * Three target websites about space, three others (one page each), |D| = 6.
 * Sum over the target pages of tf, idf over all six (hand-computed):
 *   orbit  (1/3 + 1)     * ln(6/3) = 0.9241962407 -> 1
 *   launch (1 + 1)       * ln(6/4) = 0.8109302162 -> 0.8774437511
 *   rocket (1/3 + 1 + 1/3) * ln(6/4) = 0.6757751802 -> 0.7312031259
 * nasa, telescope and acme are one target website's each; recipe, bake, flour are in no
 * target page.
 */
static const char *const corpus[][2] = {
    {"rocket launch launch launch orbit nasa", "t"},
    {"rocket orbit telescope", "t"},
    {"rocket launch launch launch acme acme", "t"},
    {"recipe recipe launch", "o"},
    {"recipe bake", "o"},
    {"bake flour", "o"},
};

static struct weighttable *toy_table(uint32_t m)
{
    struct pagecls_doc docs[6];
    for (uint32_t i = 0; i < 6; i++)
        docs[i] = (struct pagecls_doc){corpus[i][0], strlen(corpus[i][0]),
                                       corpus[i][1][0] == 't' ? PAGECLS_TARGET : PAGECLS_OTHER, i};
    struct tokenize_opts tok;
    tokenize_opts_default(&tok);
    struct weighttable *wt = NULL;
    assert_int_equal(weighttable_train(&tok, docs, 6, m, &wt), ERR_OK);
    return wt;
}

static void table_of_a_toy_corpus(void **state)
{
    (void)state;
    struct weighttable *wt = toy_table(WEIGHTTABLE_M);
    assert_int_equal(weighttable_count(wt), 3);
    assert_key(wt, 0, "orbit", 1);
    assert_key(wt, 1, "launch", 0.8774437511);
    assert_key(wt, 2, "rocket", 0.7312031259);
    weighttable_free(wt);
    wt = toy_table(2);
    assert_int_equal(weighttable_count(wt), 2);
    assert_key(wt, 1, "launch", 0.8774437511);
    weighttable_free(wt);
}

static void relevancy_of_texts(void **state)
{
    (void)state;
    struct weighttable *wt = toy_table(WEIGHTTABLE_M);
    double r = -1;
    /* orbit 2 * ln 2, rocket 1 * ln 1.5: 0.7674520357 (hand-computed) */
    const char *page = "Rockets in orbit, orbits";
    assert_int_equal(weighttable_relevance(wt, page, strlen(page), &r), ERR_OK);
    assert_float_equal(r, 0.7674520357, 1e-9);
    /* One keyword alone: its weight over the table's norm, 0.8774 / 1.5181 = 0.5779958935. */
    const char *anchor = "Launches";
    assert_int_equal(weighttable_relevance(wt, anchor, strlen(anchor), &r), ERR_OK);
    assert_float_equal(r, 0.5779958935, 1e-9);
    /* A URL's words count as text. */
    const char *url = "http://news.example/launch.html";
    assert_int_equal(weighttable_relevance(wt, url, strlen(url), &r), ERR_OK);
    assert_float_equal(r, 0.5779958935, 1e-9);
    const char *cooking = "a recipe";
    assert_int_equal(weighttable_relevance(wt, cooking, strlen(cooking), &r), ERR_OK);
    assert_float_equal(r, 0, 1e-15);
    weighttable_free(wt);
}

static void text_round_trip(void **state)
{
    (void)state;
    struct weighttable *wt = toy_table(WEIGHTTABLE_M);
    struct buf a, b;
    buf_init(&a, 0);
    buf_init(&b, 0);
    assert_int_equal(weighttable_format(wt, &a), ERR_OK);
    assert_non_null(strstr(buf_str(&a), "orbit 1 0.69314718055994"));
    struct tokenize_opts tok;
    tokenize_opts_default(&tok);
    struct weighttable *back = NULL;
    assert_int_equal(weighttable_parse(&tok, a.data, a.len, &back), ERR_OK);
    assert_int_equal(weighttable_format(back, &b), ERR_OK);
    assert_string_equal(buf_str(&a), buf_str(&b)); /* exact doubles */
    double r1, r2;
    const char *page = "rocket launch orbit orbit";
    assert_int_equal(weighttable_relevance(wt, page, strlen(page), &r1), ERR_OK);
    assert_int_equal(weighttable_relevance(back, page, strlen(page), &r2), ERR_OK);
    assert_float_equal(r1, r2, 0);
    weighttable_free(back);
    static const char *const bad[] = {"orbit\n", "orbit 2 0.5\n", "orbit 0.5 nan\n",
                                      "orbit 0.5 0.1"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        back = (struct weighttable *)1;
        assert_int_equal(weighttable_parse(&tok, bad[i], strlen(bad[i]), &back), ERR_PARSE);
        assert_null(back);
    }
    assert_int_equal(weighttable_parse(&tok, "", 0, &back), ERR_OK); /* an empty table */
    assert_int_equal(weighttable_count(back), 0);
    assert_int_equal(weighttable_relevance(back, page, strlen(page), &r1), ERR_OK);
    assert_float_equal(r1, 0, 0);
    weighttable_free(back);
    buf_release(&a);
    buf_release(&b);
    weighttable_free(wt);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tf_idf_formulas),       cmocka_unit_test(cosine_formula),
        cmocka_unit_test(table_of_a_toy_corpus), cmocka_unit_test(relevancy_of_texts),
        cmocka_unit_test(text_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
