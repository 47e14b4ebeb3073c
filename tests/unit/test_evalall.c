/* Unit tests for eval/evalall: the tuned list and the summary's mean and worst figures. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "eval/evalall.h"

static void test_listed(void **state)
{
    (void)state;
    const char *list = "sci.space,rec.motorcycles";
    assert_true(evalall_listed(list, "sci.space"));
    assert_true(evalall_listed(list, "rec.motorcycles"));
    /* Whole names only: neither a prefix nor an extension of one counts. */
    assert_false(evalall_listed(list, "sci"));
    assert_false(evalall_listed(list, "sci.spaces"));
    assert_false(evalall_listed(list, "rec.motorcycles,"));
    assert_false(evalall_listed(list, ""));
    assert_false(evalall_listed("", "sci.space"));
    assert_false(evalall_listed(NULL, "sci.space"));
    assert_true(evalall_listed("a,,b", "b"));
}

/* A row with website counts tp, fp, fn (tn 10), its homepage one more fp and fn. */
static void row(struct evalall_topic *t, const char *topic, int tuned, unsigned tp, unsigned fp,
                unsigned fn, double pages)
{
    t->topic = strdup(topic);
    t->tuned = tuned;
    t->res = calloc(1, sizeof *t->res);
    assert_non_null(t->topic);
    assert_non_null(t->res);
    t->res->website = (struct evalstats){tp, fp, fn, 10};
    t->res->homepage = (struct evalstats){tp, fp + 1, fn + 1, 10};
    t->res->pages_per_site = pages;
}

/* An evalall of n zeroed topics (evalall_free frees it). */
static struct evalall *with_topics(size_t n)
{
    struct evalall *a = calloc(1, sizeof *a);
    assert_non_null(a);
    a->topics = calloc(n, sizeof *a->topics);
    assert_non_null(a->topics);
    a->n_topics = n;
    return a;
}

static void test_summary(void **state)
{
    (void)state;
    struct evalall *a = with_topics(4);
    row(&a->topics[0], "t0", 1, 10, 0, 0, 3.0); /* F1 1, tuned */
    row(&a->topics[1], "t1", 0, 8, 2, 2, 5.0);  /* F1 0.8 */
    row(&a->topics[2], "t2", 1, 1, 1, 2, 7.0);  /* F1 0.4, tuned: the worst of all */
    a->topics[3].topic = strdup("t3");          /* failed: in no figure */
    a->topics[3].error = strdup("evaluation: no pages");
    a->failed = 1;
    evalall_summarize(a);

    assert_int_equal(a->all.topics, 3);
    assert_float_equal(a->all.mean_f1, (1.0 + 0.8 + 0.4) / 3, 1e-12);
    assert_float_equal(a->all.worst_f1, 0.4, 1e-12);
    assert_string_equal(a->all.worst_topic, "t2");
    assert_float_equal(a->all.mean_pages_per_site, 5.0, 1e-12);
    double h0 = 2.0 * 10 / (2 * 10 + 1 + 1), h1 = 2.0 * 8 / (2 * 8 + 3 + 3),
           h2 = 2.0 * 1 / (2 * 1 + 2 + 3);
    assert_float_equal(a->all.mean_home_f1, (h0 + h1 + h2) / 3, 1e-12);

    /* Examination verdicts: no crawl's rule figures. */
    assert_true(isnan(a->all.mean_rule_f1) && isnan(a->all.worst_rule_f1));
    assert_null(a->all.worst_rule_topic);

    assert_int_equal(a->untuned.topics, 1);
    assert_float_equal(a->untuned.mean_f1, 0.8, 1e-12);
    assert_float_equal(a->untuned.worst_f1, 0.8, 1e-12);
    assert_string_equal(a->untuned.worst_topic, "t1");
    assert_float_equal(a->untuned.mean_pages_per_site, 5.0, 1e-12);

    /* Only tuned topics left: the untuned part is empty, its figures undefined. */
    a->topics[1].tuned = 1;
    evalall_summarize(a);
    assert_int_equal(a->untuned.topics, 0);
    assert_true(isnan(a->untuned.mean_f1));
    assert_true(isnan(a->untuned.worst_f1));
    assert_null(a->untuned.worst_topic);
    evalall_free(a);
}

/* The crawl model's verdicts: a crawl's rule (crawl model and examination) summarized
 * beside them, its worst topic its own. */
static void test_crawl_rule(void **state)
{
    (void)state;
    struct evalall *a = with_topics(2);
    a->judge = 1;
    row(&a->topics[0], "t0", 0, 8, 2, 2, 3.0); /* F1 0.8, by the rule 1 */
    row(&a->topics[1], "t1", 0, 9, 0, 1, 3.0); /* F1 0.947, by the rule 0.5 */
    a->topics[0].res->crawl.with_examination = (struct evalstats){10, 0, 0, 10};
    a->topics[1].res->crawl.with_examination = (struct evalstats){1, 0, 2, 10};
    evalall_summarize(a);
    assert_float_equal(a->all.mean_rule_f1, (1.0 + 0.5) / 2, 1e-12);
    assert_float_equal(a->all.worst_rule_f1, 0.5, 1e-12);
    assert_string_equal(a->all.worst_rule_topic, "t1");
    assert_string_equal(a->all.worst_topic, "t0");
    evalall_free(a);
}

/* Equal worst figures: the first in the file's order is named. */
static void test_worst_tie(void **state)
{
    (void)state;
    struct evalall *a = with_topics(3);
    row(&a->topics[0], "first", 0, 5, 5, 0, 1.0);
    row(&a->topics[1], "second", 0, 5, 5, 0, 1.0);
    row(&a->topics[2], "better", 0, 5, 0, 0, 1.0);
    evalall_summarize(a);
    assert_string_equal(a->all.worst_topic, "first");
    assert_string_equal(a->untuned.worst_topic, "first");
    evalall_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_listed),
        cmocka_unit_test(test_summary),
        cmocka_unit_test(test_crawl_rule),
        cmocka_unit_test(test_worst_tie),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
