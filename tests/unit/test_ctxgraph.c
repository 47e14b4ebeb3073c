/*
 * The context graph (classifier/ctxgraph.h, crawler/trainset.h's trainset_links): layers of
 * a hand-made link graph, the layer classifier's choice, its training and its bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "classifier/ctxgraph.h"
#include "classifier/pagecls.h"
#include "crawler/trainset.h"
#include "job/trainsave.h"

/*
 * Pages 0 and 1 are targets. 2 -> 0 (layer 1), 3 -> 2 (layer 2), 4 -> 3 (layer 3), 5 -> 4
 * would be 4 > N: other. 6 links to 3 and 1: the nearer wins, layer 1. 7 links nowhere and
 * 8 only to 7: other. A target's own links (0 -> 2) leave it in layer 0; 2 -> 5 does not
 * move 2; an edge out of range (9 -> 0) counts for nothing.
 */
static void layers_of_a_small_graph(void **state)
{
    (void)state;
    static const unsigned char target[9] = {1, 1, 0, 0, 0, 0, 0, 0, 0};
    static const struct ctxgraph_edge edges[] = {{5, 4}, {4, 3}, {3, 2}, {2, 0}, {6, 3}, {6, 1},
                                                 {8, 7}, {0, 2}, {2, 5}, {9, 0}, {0, 9}};
    int layer[9];
    ctxgraph_layers(9, target, edges, sizeof edges / sizeof edges[0], layer);
    static const int want[9] = {0, 0, 1, 2, 3, CTXGRAPH_OTHER, 1, CTXGRAPH_OTHER, CTXGRAPH_OTHER};
    for (int i = 0; i < 9; i++)
        assert_int_equal(layer[i], want[i]);
    /* No edge at all: the targets and "other". */
    ctxgraph_layers(3, target, NULL, 0, layer);
    assert_int_equal(layer[0], 0);
    assert_int_equal(layer[2], CTXGRAPH_OTHER);
}

/* The choice on confidences computed by hand from centroid distances (DESIGN §3.1). */
static void choice_on_hand_computed_confidences(void **state)
{
    (void)state;
    /* Distances 0.2, 0.5, 0.8 to layers 0, 1, other: ln .2 = -1.6094, ln .5 = -0.6931,
     * ln .8 = -0.2231, sum -2.5257: Pr = 0.6372, 0.2744, 0.0883. Layer 0 at 0.6372. */
    const double dmin[3] = {0.2, 0.5, 0.8};
    double pr[3];
    pagecls_confidence(dmin, 3, 1e-6, pr);
    static const int layers[3] = {0, 1, CTXGRAPH_OTHER};
    int layer;
    double conf;
    ctxgraph_pick(pr, 3, layers, &layer, &conf);
    assert_int_equal(layer, 0);
    assert_float_equal(conf, 0.637217, 1e-6);
    assert_float_equal(pr[2], 0.088349, 1e-6);
    /* Nearest to "other" (0.1 against 0.6 and 0.9): ln .1 = -2.3026, ln .6 = -0.5108,
     * ln .9 = -0.1054, sum -2.9188: Pr = 0.7889, 0.1750, 0.0361 for other, 1, 0. */
    const double far[3] = {0.9, 0.6, 0.1};
    pagecls_confidence(far, 3, 1e-6, pr);
    ctxgraph_pick(pr, 3, layers, &layer, &conf);
    assert_int_equal(layer, CTXGRAPH_OTHER);
    assert_float_equal(conf, 2.302585 / 2.918771, 1e-6);
    /* A tie goes to the lower layer. */
    const double tie[3] = {0.4, 0.4, 0.2};
    static const int skip[3] = {0, 2, CTXGRAPH_OTHER};
    ctxgraph_pick(tie, 3, skip, &layer, &conf);
    assert_int_equal(layer, 0);
    const double tie2[3] = {0.2, 0.4, 0.4};
    ctxgraph_pick(tie2, 3, skip, &layer, &conf);
    assert_int_equal(layer, 2);
    assert_float_equal(conf, 0.4, 1e-15);
}

/* Layer 0 about rockets, layer 1 link pages, layer 2 too small, other about baking. */
static const char *const texts[] = {
    "rocket launch orbit nasa",
    "rocket orbit shuttle launch",
    "orbit launch rocket",
    "nasa shuttle orbit rocket",
    "launch rocket nasa",
    "rocket shuttle launch",
    "orbit nasa launch",
    "rocket orbit nasa shuttle",
    "links directory portal",
    "directory links resources",
    "portal links directory",
    "resources portal links",
    "links resources directory",
    "directory portal resources",
    "links portal",
    "resources directory links",
    "weather news today",
    "news weather",
    "recipe bake flour",
    "bake flour sugar",
    "recipe sugar bake",
    "flour recipe oven",
    "oven bake recipe",
    "sugar oven flour",
    "recipe bake oven",
    "flour sugar recipe",
};
static const uint32_t text_layer[] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1,
                                      1, 1, 1, 2, 2, 4, 4, 4, 4, 4, 4, 4, 4};
#define N_TEXTS (sizeof texts / sizeof texts[0])

static struct ctxgraph *toy_graph(size_t *kept)
{
    struct pagecls_doc docs[N_TEXTS];
    for (uint32_t i = 0; i < N_TEXTS; i++)
        docs[i] = (struct pagecls_doc){texts[i], strlen(texts[i]), text_layer[i], i};
    struct pagecls_params p;
    pagecls_params_default(&p);
    p.centroids = 2;
    struct ctxgraph *g = NULL;
    assert_int_equal(ctxgraph_train(&p, docs, N_TEXTS, &g, kept), ERR_OK);
    return g;
}

static void assert_layer(const struct ctxgraph *g, const char *text, int want)
{
    struct pagecls_scratch *s;
    assert_int_equal(ctxgraph_scratch_new(g, &s), ERR_OK);
    int layer;
    double conf;
    assert_int_equal(ctxgraph_classify(g, s, text, strlen(text), &layer, &conf), ERR_OK);
    assert_int_equal(layer, want);
    if (want == CTXGRAPH_OTHER && strstr(text, "zzz"))
        assert_float_equal(conf, 0, 1e-15); /* nothing known: other, no confidence */
    else
        assert_true(conf > 1.0 / 3);
    pagecls_scratch_free(s);
}

static void train_and_classify(void **state)
{
    (void)state;
    size_t kept[CTXGRAPH_OTHER + 1];
    struct ctxgraph *g = toy_graph(kept);
    /* Layer 2's two pages are fewer than CTXGRAPH_MIN_PAGES: no class; 3 is empty. */
    assert_int_equal(ctxgraph_count(g), 3);
    assert_int_equal(ctxgraph_layer(g, 0), 0);
    assert_int_equal(ctxgraph_layer(g, 1), 1);
    assert_int_equal(ctxgraph_layer(g, 2), CTXGRAPH_OTHER);
    assert_int_equal(kept[0], 8);
    assert_int_equal(kept[1], 8);
    assert_int_equal(kept[2], 0);
    assert_int_equal(kept[CTXGRAPH_OTHER], 8);
    assert_layer(g, "nasa rocket launch", 0);
    assert_layer(g, "portal of links and a directory", 1);
    assert_layer(g, "bake with flour and sugar", CTXGRAPH_OTHER);
    assert_layer(g, "zzz qqq", CTXGRAPH_OTHER);

    /* Bytes and back: the same layers, the same choices. */
    struct buf b;
    buf_init(&b, 0);
    assert_int_equal(ctxgraph_format(g, &b), ERR_OK);
    assert_memory_equal(b.data, "ctxgraph 1 layers 0 1 4\n", 24);
    struct ctxgraph *back = NULL;
    assert_int_equal(ctxgraph_parse(b.data, b.len, &back), ERR_OK);
    assert_int_equal(ctxgraph_count(back), 3);
    assert_int_equal(ctxgraph_layer(back, 2), CTXGRAPH_OTHER);
    assert_layer(back, "nasa rocket launch", 0);
    assert_layer(back, "portal of links and a directory", 1);
    assert_layer(back, "bake with flour and sugar", CTXGRAPH_OTHER);
    ctxgraph_free(back);

    /* Malformed: each is refused, nothing handed out. */
    size_t body = b.len - 24;
    static const char *const heads[] = {"",
                                        "ctxgraph 2 layers 0 1 4\n",
                                        "ctxgraph 1 layers\n",
                                        "ctxgraph 1 layers 0\n",
                                        "ctxgraph 1 layers 1 4\n",
                                        "ctxgraph 1 layers 0 4 1\n",
                                        "ctxgraph 1 layers 0 1 9\n",
                                        "ctxgraph 1 layers 0 x 4\n",
                                        "ctxgraph 1 layers 0 1\n", /* 2 layers, 3 classes */
                                        "ctxgraph 1 layers 0  1 4\n"};
    for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++) {
        struct buf bad;
        buf_init(&bad, 0);
        assert_int_equal(buf_append_str(&bad, heads[i]), ERR_OK);
        assert_int_equal(buf_append(&bad, b.data + 24, body), ERR_OK);
        back = (struct ctxgraph *)1;
        assert_int_equal(ctxgraph_parse(bad.data, bad.len, &back), ERR_PARSE);
        assert_null(back);
        buf_release(&bad);
    }
    back = (struct ctxgraph *)1;
    assert_int_equal(ctxgraph_parse(b.data, b.len - 1, &back), ERR_PARSE); /* truncated */
    assert_null(back);
    buf_release(&b);
    ctxgraph_free(g);
    ctxgraph_free(NULL);
}

/* A layer of one website's own words (no term of two websites: none kept by the page
 * classifier) cannot be a class: it is left out, the others are trained. */
static void layer_without_known_terms(void **state)
{
    (void)state;
    struct pagecls_doc docs[N_TEXTS];
    for (uint32_t i = 0; i < N_TEXTS; i++) {
        docs[i] = (struct pagecls_doc){texts[i], strlen(texts[i]), text_layer[i], i};
        if (text_layer[i] == 1)
            docs[i] = (struct pagecls_doc){"zebra quokka", 12, 1, 100}; /* one website */
    }
    struct pagecls_params p;
    pagecls_params_default(&p);
    p.centroids = 2;
    struct ctxgraph *g = NULL;
    size_t kept[CTXGRAPH_OTHER + 1];
    assert_int_equal(ctxgraph_train(&p, docs, N_TEXTS, &g, kept), ERR_OK);
    assert_int_equal(ctxgraph_count(g), 2);
    assert_int_equal(ctxgraph_layer(g, 1), CTXGRAPH_OTHER);
    assert_int_equal(kept[1], 0);
    assert_int_equal(kept[0], 8);
    ctxgraph_free(g);
}

/* Without a target page, or with one layer only, there is nothing to learn. */
static void too_few_layers(void **state)
{
    (void)state;
    struct pagecls_params p;
    pagecls_params_default(&p);
    struct pagecls_doc docs[N_TEXTS];
    for (uint32_t i = 0; i < N_TEXTS; i++)
        docs[i] = (struct pagecls_doc){texts[i], strlen(texts[i]), 0, i};
    struct ctxgraph *g = (struct ctxgraph *)1;
    assert_int_equal(ctxgraph_train(&p, docs, N_TEXTS, &g, NULL), ERR_INVAL); /* all layer 0 */
    assert_null(g);
    for (uint32_t i = 0; i < N_TEXTS; i++)
        docs[i].cls = text_layer[i] ? text_layer[i] : CTXGRAPH_OTHER;
    assert_int_equal(ctxgraph_train(&p, docs, N_TEXTS, &g, NULL), ERR_INVAL); /* no target */
    assert_null(g);
}

/* Issue 32: an SVM tells two classes apart, not the layers: refused, not trained on layer
 * 0 and other alone. */
static void svm_refused(void **state)
{
    (void)state;
    struct pagecls_doc docs[N_TEXTS];
    for (uint32_t i = 0; i < N_TEXTS; i++)
        docs[i] = (struct pagecls_doc){texts[i], strlen(texts[i]), text_layer[i], i};
    struct pagecls_params p;
    pagecls_params_default(&p);
    p.kind = PAGECLS_SVM;
    struct ctxgraph *g = (struct ctxgraph *)1;
    assert_int_equal(ctxgraph_train(&p, docs, N_TEXTS, &g, NULL), ERR_INVAL);
    assert_null(g);
    assert_non_null(strstr(err_msg(), "the page classifier svm tells two apart"));
}

/*
 * The training crawl's graph: r (relevant) with pages r/ and r/a; o1 with o1/, which links
 * to a page of r that was not read (and to r's homepage), and o1/b, which links to o1/;
 * o2 with o2/, which links to o1/b, and o2/c, which links to a website not trained on and
 * to another unread page of r.
 */
static const char *const records[] = {
    "{\"homepage\": \"http://r.example/\", \"site\": \"http://r.example/\", \"pages\": ["
    "{\"url\": \"http://r.example/\", \"text\": \"t\", \"links\": [], \"intrinsic\": "
    "[\"http://r.example/a\"]},"
    "{\"url\": \"http://r.example/a\", \"text\": \"t\", \"links\": []}]}",
    "{\"homepage\": \"http://o1.example/\", \"site\": \"http://o1.example/\", \"pages\": ["
    "{\"url\": \"http://o1.example/\", \"text\": \"t\", \"links\": [\"http://r.example/deep\", "
    "\"http://r.example/\"], \"intrinsic\": []},"
    "{\"url\": \"http://o1.example/b\", \"text\": \"t\", \"links\": [], \"intrinsic\": "
    "[\"http://o1.example/\", \"http://o1.example/unread\"]}]}",
    "{\"homepage\": \"http://o2.example/\", \"site\": \"http://o2.example/\", \"pages\": ["
    "{\"url\": \"http://o2.example/\", \"text\": \"t\", \"links\": [\"http://o1.example/b\"]},"
    "{\"url\": \"http://o2.example/c\", \"text\": \"t\", \"links\": [\"http://x.example/\", "
    "\"http://r.example/other\"]}]}",
};

static void training_crawl_graph(void **state)
{
    (void)state;
    static const char *const homes[] = {"http://r.example/", "http://o1.example/",
                                        "http://o2.example/"};
    struct trainset_params tp;
    trainset_params_default(&tp);
    struct trainset *ts;
    assert_int_equal(trainset_new(homes, 3, &tp, &ts), ERR_OK);
    for (size_t i = 0; i < 3; i++) {
        struct trainset_site s;
        assert_int_equal(trainsave_read(records[i], &s), ERR_OK);
        assert_int_equal(trainset_restore(ts, i, &s), ERR_OK);
    }
    struct ctxgraph_edge *edges;
    size_t n;
    assert_int_equal(trainset_links(ts, 1, &edges, &n), ERR_OK);
    /* Pages as trainset_docs numbers them: r/ 0, r/a 1, o1/ 2, o1/b 3, o2/ 4, o2/c 5. */
    static const struct ctxgraph_edge want[] = {{0, 1}, {2, 0}, {3, 2}, {4, 3}, {5, 0}};
    assert_int_equal(n, 5); /* o1/'s two links to r are one edge */
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(edges[i].from, want[i].from);
        assert_int_equal(edges[i].to, want[i].to);
    }
    static const unsigned char target[6] = {1, 1, 0, 0, 0, 0};
    int layer[6];
    ctxgraph_layers(6, target, edges, n, layer);
    static const int want_layer[6] = {0, 0, 1, 2, 3, 1};
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(layer[i], want_layer[i]);
    free(edges);
    /* With no relevant website, a link to a page of r that was not read is no edge: o1/
     * still links to r's homepage, which was read, o2/c to nothing read. */
    assert_int_equal(trainset_links(ts, 0, &edges, &n), ERR_OK);
    assert_int_equal(n, 4);
    assert_int_equal(edges[1].from, 2);
    assert_int_equal(edges[1].to, 0);
    free(edges);
    trainset_free(ts);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(layers_of_a_small_graph),
        cmocka_unit_test(choice_on_hand_computed_confidences),
        cmocka_unit_test(train_and_classify),
        cmocka_unit_test(layer_without_known_terms),
        cmocka_unit_test(too_few_layers),
        cmocka_unit_test(svm_refused),
        cmocka_unit_test(training_crawl_graph),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
