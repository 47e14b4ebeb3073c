/* The page crawlers' frontier orders (crawler/pageorder.h) on hand-computed cases. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>

#include "crawler/pageorder.h"

/* Seed 004 eq. 6.1: 0 if relevant, else min(1, (1 - c) e^(2 d_p / 20)). */
static void history_distance_formula(void **state)
{
    (void)state;
    /* Relevant pages are at distance 0, whatever their ancestors. */
    assert_float_equal(pageorder_history_distance(0.8, 1.0), 0, 1e-15);
    assert_float_equal(pageorder_history_distance(0.51, 0.9), 0, 1e-15);
    /* 0.5 is not relevant (the page classifier's decision is > 0.5): (1 - 0.5) e^0. */
    assert_float_equal(pageorder_history_distance(0.5, 0), 0.5, 1e-15);
    /* c 0.3, d_p 0.5: 0.7 e^0.05 = 0.7 * 1.0512710964 = 0.7358897675. */
    assert_float_equal(pageorder_history_distance(0.3, 0.5), 0.7358897675, 1e-9);
    /* c 0.1, d_p 1: 0.9 e^0.1 = 0.9 * 1.1051709181 = 0.9946538263. */
    assert_float_equal(pageorder_history_distance(0.1, 1), 0.9946538263, 1e-9);
    /* c 0.05, d_p 1: 0.95 e^0.1 = 1.0499 is capped at 1; so is c 0 at any d_p > 0. */
    assert_float_equal(pageorder_history_distance(0.05, 1), 1, 1e-15);
    assert_float_equal(pageorder_history_distance(0, 0.2), 1, 1e-15);
    /* A chain from a relevant page: child c 0.2 -> 0.8; grandchild c 0.2 -> 0.8 e^0.08. */
    double child = pageorder_history_distance(0.2, 0);
    assert_float_equal(child, 0.8, 1e-15);
    assert_float_equal(pageorder_history_distance(0.2, child), 0.8666296541, 1e-9);
    /* The further from a relevant ancestor, the greater the distance at equal c. */
    assert_true(pageorder_history_distance(0.2, child) > child);
}

/* Three parents with Pr 0.9, 0.3, 0.6, distances 0.7, 0.2, 0.5 and hot scores 0.1, 0.25, 0. */
static void links_summary(void **state)
{
    (void)state;
    struct pageorder_links in = pageorder_link(0.9, 0.7, 0.1);
    struct pageorder_links b = pageorder_link(0.3, 0.2, 0.25), c = pageorder_link(0.6, 0.5, 0);
    in.seq = 7;
    pageorder_links_add(&in, &b);
    pageorder_links_add(&in, &c);
    assert_int_equal(in.links, 3);
    assert_int_equal(in.seq, 7);                              /* when it was first found stays */
    assert_float_equal(pageorder_page(&in), 0.6, 1e-12);      /* (0.9 + 0.3 + 0.6) / 3 */
    assert_float_equal(pageorder_bestfirst(&in), 0.9, 1e-15); /* the best parent */
    assert_float_equal(pageorder_history(&in), -0.2, 1e-15);  /* the nearest, negated */
    assert_float_equal(pageorder_hotwords(&in), 1.25, 1e-15); /* 0.25 > theta 0.2: queue 0 */
    assert_float_equal(pageorder_bfs(&in), 0, 1e-15);
    /* A redirect passes everything its source had on to its target. */
    struct pageorder_links to = pageorder_link(0.2, 0.9, 0);
    pageorder_links_add(&to, &in);
    assert_int_equal(to.links, 4);
    assert_float_equal(pageorder_page(&to), 0.5, 1e-12); /* 2.0 / 4 */
    assert_float_equal(pageorder_history(&to), -0.2, 1e-15);
}

/* Where page (the average) and bestfirst (the best parent) disagree. */
static void page_and_bestfirst_differ(void **state)
{
    (void)state;
    struct pageorder_links a = pageorder_link(0.9, 0, 0), a2 = pageorder_link(0.1, 0, 0);
    pageorder_links_add(&a, &a2); /* average 0.5, best 0.9 */
    struct pageorder_links b = pageorder_link(0.6, 0, 0);
    assert_true(pageorder_page(&b) > pageorder_page(&a));
    assert_true(pageorder_bestfirst(&a) > pageorder_bestfirst(&b));
}

/* Queue 0 takes a link only above theta_h; below, the parent's score orders it. */
static void hotwords_queues(void **state)
{
    (void)state;
    struct pageorder_links at = pageorder_link(0.7, 0, PAGEORDER_HOT_THETA);
    assert_float_equal(pageorder_hotwords(&at), 0.7, 1e-15); /* not > theta */
    struct pageorder_links cold = pageorder_link(0.95, 0, 0.1);
    struct pageorder_links hot = pageorder_link(0.05, 0, 0.21);
    assert_float_equal(pageorder_hotwords(&hot), 1.21, 1e-15);
    assert_true(pageorder_hotwords(&hot) > pageorder_hotwords(&cold)); /* whatever the parent */
    struct pageorder_links hotter = pageorder_link(0.05, 0, 0.5);
    assert_true(pageorder_hotwords(&hotter) > pageorder_hotwords(&hot));
}

/* Seed 001 eq. 1: R_i = (1 - rho) lambda_i / |K| + rho R_j. */
static void relevance_formula(void **state)
{
    (void)state;
    /* rho 0.3, 5 of 20 key phrases, R_j 0.6: 0.7 * 0.25 + 0.3 * 0.6 = 0.175 + 0.18 = 0.355. */
    assert_float_equal(pageorder_relevance(5, 20, 0.3, 0.6), 0.355, 1e-15);
    /* All key phrases, R_j 1: 0.7 + 0.3 = 1, the top. */
    assert_float_equal(pageorder_relevance(20, 20, 0.3, 1), 1, 1e-15);
    /* None, R_j 0: 0; none, R_j 0.5 with rho 0.5: only the parent counts, 0.25. */
    assert_float_equal(pageorder_relevance(0, 20, 0.3, 0), 0, 1e-15);
    assert_float_equal(pageorder_relevance(0, 20, 0.5, 0.5), 0.25, 1e-15);
    /* rho 0.9, 2 of 4, R_j 0.2: 0.1 * 0.5 + 0.9 * 0.2 = 0.05 + 0.18 = 0.23. */
    assert_float_equal(pageorder_relevance(2, 4, 0.9, 0.2), 0.23, 1e-15);
    /* No key phrases at all: the lambda term is 0, not a division by zero. */
    assert_float_equal(pageorder_relevance(0, 0, 0.3, 0.8), 0.24, 1e-15);
    /* A chain of pages holding 10 of 20 from a start R 1: 0.65, then 0.545, then 0.5135;
     * the start's weight fades by rho a generation. */
    double r1 = pageorder_relevance(10, 20, 0.3, 1);
    double r2 = pageorder_relevance(10, 20, 0.3, r1);
    assert_float_equal(r1, 0.65, 1e-15);
    assert_float_equal(r2, 0.545, 1e-15);
    assert_float_equal(pageorder_relevance(10, 20, 0.3, r2), 0.5135, 1e-15);
}

/* A frontier page takes the best R of the pages linking to it, whatever their Pr. */
static void relevance_degree_order(void **state)
{
    (void)state;
    struct pageorder_links a = pageorder_link(0.9, 0, 0);
    assert_float_equal(a.rel_max, 0, 1e-15); /* no R until the crawl sets one */
    a.rel_max = 0.2;
    a.other_hosts = 1;
    struct pageorder_links b = pageorder_link(0.1, 1, 0);
    b.rel_max = 0.7;
    b.other_hosts = 1;
    struct pageorder_links c = pageorder_link(0.5, 1, 0);
    c.rel_max = 0.4;
    c.other_hosts = 1;
    assert_true(pageorder_relevance_degree(&b) > pageorder_relevance_degree(&a));
    assert_true(pageorder_bestfirst(&a) > pageorder_bestfirst(&b)); /* the classifier disagrees */
    pageorder_links_add(&a, &b);
    pageorder_links_add(&a, &c);
    assert_float_equal(pageorder_relevance_degree(&a), PAGEORDER_OTHER_HOST_BAND + 0.7, 1e-15);
    assert_int_equal(a.links, 3);
}

/* Seed 001 disregards a link to the page's own host: here it waits below every link from
 * another host (the poorest, R 0, and a border site of rank 0), in the order of its own
 * R, and joins the seed's queue when another host links to the page too. */
static void relevance_degree_own_host_last(void **state)
{
    (void)state;
    struct pageorder_links own = pageorder_link(0.9, 0, 0), own2 = own;
    own.rel_own = 1; /* the best R there is */
    own2.rel_own = 0.3;
    struct pageorder_links other = pageorder_link(0.1, 1, 0); /* R 0 */
    other.other_hosts = 1;
    assert_true(pageorder_relevance_degree(&other) > pageorder_relevance_degree(&own));
    assert_true(pageorder_relevance_degree(&own) > pageorder_relevance_degree(&own2));
    assert_float_equal(pageorder_relevance_degree(&own), 1, 1e-15);
    pageorder_links_add(&own2, &other);
    assert_int_equal(own2.other_hosts, 1);
    assert_true(pageorder_relevance_degree(&own2) > pageorder_relevance_degree(&own));
    assert_float_equal(pageorder_relevance_degree(&own2), PAGEORDER_OTHER_HOST_BAND, 1e-15);
}

/* Seed 002's Link_Score: anchor + URL description + the sum of the parents' relevancies. */
static void weight_table_link_score(void **state)
{
    (void)state;
    struct pageorder_links a = pageorder_link(0.9, 0, 0);
    a.anchor_max = 0.3;
    a.url_score = 0.1;
    a.rel_sum = 0.4;
    assert_float_equal(pageorder_weight_table(&a), 0.8, 1e-15);
    struct pageorder_links b = pageorder_link(0.2, 0, 0);
    b.anchor_max = 0.5;
    b.url_score = 0.1; /* the same URL: the same words */
    b.rel_sum = 0.2;
    pageorder_links_add(&a, &b);
    /* the best anchor 0.5 + the URL 0.1 + parents 0.4 + 0.2 = 1.2 */
    assert_float_equal(pageorder_weight_table(&a), 1.2, 1e-12);
    /* A link with nothing of the topic scores 0, below the admission threshold. */
    struct pageorder_links none = pageorder_link(0.7, 0, 0);
    assert_true(pageorder_weight_table(&none) <= PAGEORDER_LINK_THRESHOLD);
}

/* Seed 004 Algorithm 5 with factor 0.8: 0.8 best parent + 0.2 anchor score. */
static void learning_anchor_mix(void **state)
{
    (void)state;
    struct pageorder_links a = pageorder_link(0.6, 0, 0);
    a.anchor_max = 0.9;
    assert_float_equal(pageorder_learning_anchor(&a), 0.66, 1e-12); /* 0.48 + 0.18 */
    struct pageorder_links b = pageorder_link(0.7, 0, 0);
    b.anchor_max = 0.2;
    assert_float_equal(pageorder_learning_anchor(&b), 0.6, 1e-12); /* 0.56 + 0.04 */
    /* The anchor turns the order bestfirst would give. */
    assert_true(pageorder_bestfirst(&b) > pageorder_bestfirst(&a));
    assert_true(pageorder_learning_anchor(&a) > pageorder_learning_anchor(&b));
}

/* Context graph (seed 000 Figure 7, seed 004 §6.4): links in the queue of their page's layer;
 * the lowest non-empty layer first, within a layer the higher confidence first. */
static int by_priority(const void *a, const void *b)
{
    double x = pageorder_context_graph(a), y = pageorder_context_graph(b);
    return x < y ? 1 : x > y ? -1 : 0;
}

static void context_graph_queues(void **state)
{
    (void)state;
    /* (layer, confidence) of the page each link was found on; 4 is "other" (N = 3). */
    static const struct {
        int layer;
        double conf;
    } found[] = {{2, 0.95}, {0, 0.30}, {4, 0.99}, {1, 0.40}, {0, 0.90}, {1, 0.85}, {3, 0.5}};
    static const int want_layer[] = {0, 0, 1, 1, 2, 3, 4};
    static const double want_conf[] = {0.90, 0.30, 0.85, 0.40, 0.95, 0.5, 0.99};
    struct pageorder_links q[7];
    for (int i = 0; i < 7; i++) {
        q[i] = pageorder_link(0.5, 1, 0);
        q[i].layer_max = pageorder_layer_score(found[i].layer, found[i].conf);
    }
    qsort(q, 7, sizeof *q, by_priority);
    for (int i = 0; i < 7; i++)
        assert_float_equal(q[i].layer_max, pageorder_layer_score(want_layer[i], want_conf[i]),
                           1e-12);
    /* A layer-1 page at confidence 0 still goes before a layer-2 page at 1, and a border
     * page (layer 0) at its rank 2 (a start site) before every layer-0 link. */
    assert_true(pageorder_layer_score(1, 0) > pageorder_layer_score(2, 1));
    assert_true(pageorder_layer_score(0, 2.0) > pageorder_layer_score(0, 1));
    assert_float_equal(pageorder_layer_score(0, 0.25), 8 * 4 + 0.25, 1e-12);
    assert_float_equal(pageorder_layer_score(4, 0.5), 4 * 4 + 0.5, 1e-12);
    /* No link of the context graph (layer_max 0) comes after every layer. */
    struct pageorder_links none = pageorder_link(0.9, 0, 0);
    assert_true(pageorder_context_graph(&none) < pageorder_layer_score(PAGEORDER_LAYERS - 1, 0));
    /* Found again on a page of a lower layer, a link moves to that layer's queue; found
     * again on a higher layer's page, it stays. */
    struct pageorder_links l = pageorder_link(0.2, 1, 0), from1 = pageorder_link(0.2, 1, 0),
                           from3 = pageorder_link(0.9, 1, 0);
    l.layer_max = pageorder_layer_score(2, 0.9);
    from1.layer_max = pageorder_layer_score(1, 0.1);
    from3.layer_max = pageorder_layer_score(3, 0.99);
    pageorder_links_add(&l, &from1);
    assert_float_equal(pageorder_context_graph(&l), pageorder_layer_score(1, 0.1), 1e-12);
    pageorder_links_add(&l, &from3);
    assert_float_equal(pageorder_context_graph(&l), pageorder_layer_score(1, 0.1), 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(history_distance_formula),
        cmocka_unit_test(links_summary),
        cmocka_unit_test(page_and_bestfirst_differ),
        cmocka_unit_test(hotwords_queues),
        cmocka_unit_test(relevance_formula),
        cmocka_unit_test(relevance_degree_order),
        cmocka_unit_test(relevance_degree_own_host_last),
        cmocka_unit_test(weight_table_link_score),
        cmocka_unit_test(learning_anchor_mix),
        cmocka_unit_test(context_graph_queues),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
