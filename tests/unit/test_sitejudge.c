/* The crawl model's verdicts on websites without a database (classifier/sitejudge.h). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "classifier/pagevecs.h"
#include "classifier/sitejudge.h"

/*
 * A tiny web: websites of four topics (group 0 is the target), each page three words of
 * its topic's five, "home" (every website) and a word of its own website (cut by
 * min_sites). Counts vary with a fixed generator, so every run is the same corpus.
 */
static const char *const words[4][5] = {
    {"launch", "nasa", "orbit", "rocket", "shuttle"},
    {"brake", "car", "engine", "tyre", "wheel"},
    {"bake", "cake", "flour", "oven", "sugar"},
    {"band", "chord", "drum", "guitar", "song"},
};

static uint32_t rng_state;
static uint32_t rnd(uint32_t n)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return (rng_state >> 16) % n;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* One page of topic g on website number site, as a termvec text form (terms sorted). */
/* The page of the n terms chosen (room for 2 more), "home" and the website's own word, as
 * a termvec text form (terms sorted, counts 1..4). */
static void finish_page(const char **terms, size_t n, int site, char *out, size_t cap)
{
    char own[16];
    snprintf(own, sizeof own, "u%03d", site);
    terms[n++] = "home";
    terms[n++] = own;
    qsort(terms, n, sizeof *terms, cmp_str);
    size_t at = 0;
    for (size_t i = 0; i < n && at < cap; i++)
        at += (size_t)snprintf(out + at, cap - at, "%s%s:%u", i ? " " : "", terms[i], 1 + rnd(4));
}

static void page_text(int g, int site, char *out, size_t cap)
{
    const char *terms[5];
    uint32_t skip = rnd(5), skip2 = (skip + 1 + rnd(4)) % 5;
    size_t n = 0;
    for (uint32_t w = 0; w < 5; w++)
        if (w != skip && w != skip2)
            terms[n++] = words[g][w];
    finish_page(terms, n, site, out, cap);
}

/* mixed: the pages after the first are of the other topics, in turn. */
static void add_mixed(struct sitejudge *sj, uint32_t label, int g, int site, int pages, int mixed)
{
    assert_int_equal(sitejudge_add_site(sj, label), ERR_OK);
    for (int p = 0; p < pages; p++) {
        char text[256];
        page_text(mixed && p ? (g + p + site) % 4 : g, site, text, sizeof text);
        assert_int_equal(sitejudge_add_page(sj, -1, text), ERR_OK);
    }
}

static void add_website(struct sitejudge *sj, uint32_t label, int g, int site, int pages)
{
    add_mixed(sj, label, g, site, pages, 0);
}

static void params(struct sitejudge_params *p)
{
    *p = (struct sitejudge_params){.min_sites = 3,
                                   .weight_cap = 200,
                                   .threshold = 0.5,
                                   .spy_folds = 3,
                                   .spy_quantile = 0.1,
                                   .spy_prior = 0.1,
                                   .spy_prior_weight = 10};
    nbem_params_default(&p->em);
    p->em.other_components = 3;
}

/* The web: 6 target and 6 other examples, then 4 target and 12 other websites to judge,
 * then one whose page has only words of its own and one with no page. With fold >= 0, the
 * relevant examples of that spy fold (of 3) are websites to judge instead; mixed: the
 * relevant examples have pages of other topics too (their scores are not all near 1). */
#define N_TARGETS        6
#define FIRST_UNLABELLED 12
#define N_UNLABELLED     16
static struct sitejudge *build_fold(const struct sitejudge_params *p, int fold, int mixed)
{
    rng_state = 7;
    struct sitejudge *sj = NULL;
    assert_int_equal(sitejudge_new(p, NULL, &sj), ERR_OK);
    int site = 0;
    for (int i = 0; i < N_TARGETS; i++, site++)
        add_mixed(sj, i % 3 == fold ? NBEM_UNLABELED : NBEM_TARGET, 0, site, 3, mixed);
    for (int i = 0; i < 6; i++, site++)
        add_website(sj, NBEM_OTHER, 1 + i % 3, site, 3);
    for (int i = 0; i < N_UNLABELLED; i++, site++)
        add_website(sj, NBEM_UNLABELED, i < 4 ? 0 : 1 + i % 3, site, 4);
    assert_int_equal(sitejudge_add_site(sj, NBEM_UNLABELED), ERR_OK);
    assert_int_equal(sitejudge_add_page(sj, -1, "zzlonely:3"), ERR_OK);
    assert_int_equal(sitejudge_add_site(sj, NBEM_UNLABELED), ERR_OK);
    assert_int_equal(sitejudge_sites(sj), FIRST_UNLABELLED + N_UNLABELLED + 2);
    return sj;
}

static struct sitejudge *build(const struct sitejudge_params *p)
{
    return build_fold(p, -1, 0);
}

/* The websites of the topic pass the spies' threshold, the others do not; a website with
 * no known term, or no page, has no score. The vocabulary: the 20 topic words and "home"
 * (every website), not the words of one website. */
static void test_scores_and_cut(void **state)
{
    (void)state;
    struct sitejudge_params p;
    params(&p);
    struct sitejudge *sj = build(&p);
    struct sitejudge_fit fit;
    assert_int_equal(sitejudge_fit(sj, &fit), ERR_OK);
    assert_int_equal(fit.terms, 21);
    assert_int_equal(fit.pages, 12 * 3 + N_UNLABELLED * 4 + 1);
    assert_int_equal(fit.spies, N_TARGETS); /* each relevant example a spy once */
    assert_true(fit.threshold >= SITEJUDGE_MIN_THRESHOLD && fit.threshold <= p.threshold);
    /* the topic's share of the unlabelled pages: 16 of 65 */
    assert_true(fabs(fit.target_prior - 16.0 / 65.0) < 0.05);
    for (size_t k = 0; k < N_UNLABELLED; k++) {
        double s = sitejudge_score(sj, FIRST_UNLABELLED + k);
        assert_false(isnan(s));
        assert_true((s > fit.threshold) == (k < 4));
        assert_true((sitejudge_confidence(s, fit.threshold) > 0.5) == (k < 4));
    }
    assert_true(isnan(sitejudge_score(sj, FIRST_UNLABELLED + N_UNLABELLED)));
    assert_true(isnan(sitejudge_score(sj, FIRST_UNLABELLED + N_UNLABELLED + 1)));
    assert_true(isnan(sitejudge_score(sj, 1000)));
    size_t len;
    const char *t = sitejudge_term(sj, 0, &len);
    assert_true(len > 0 && t[0] != 'u'); /* a kept term is no website's own */
    /* Fit once; nothing more to add after it. */
    assert_int_equal(sitejudge_fit(sj, &fit), ERR_INVAL);
    assert_int_equal(sitejudge_add_site(sj, NBEM_TARGET), ERR_INVAL);
    assert_int_equal(sitejudge_add_page(sj, -1, "home:1"), ERR_INVAL);
    struct nbem *m = sitejudge_take_model(sj);
    assert_non_null(m);
    assert_true(isnan(sitejudge_score(sj, FIRST_UNLABELLED)));
    nbem_free(m);
    sitejudge_free(sj);
}

/*
 * With bag, a fit with spies is the bag of its own fit and the spies' (one per fold): the
 * same threshold, the same fit first (its target prior), scores that are its fit's no
 * more, and the same verdicts on this web. Without spies (none dealt, or too few pages
 * for them) the model is its one fit.
 */
static void test_bag(void **state)
{
    (void)state;
    struct sitejudge_params p;
    params(&p);
    struct sitejudge_fit one, bag;
    struct sitejudge *a = build_fold(&p, -1, 1);
    assert_int_equal(sitejudge_fit(a, &one), ERR_OK);
    assert_int_equal(nbem_fits(sitejudge_model(a)), 1);
    p.bag = 1;
    struct sitejudge *b = build_fold(&p, -1, 1);
    assert_int_equal(sitejudge_fit(b, &bag), ERR_OK);
    assert_int_equal(nbem_fits(sitejudge_model(b)), 1 + 3);
    assert_int_equal(bag.spies, one.spies);
    assert_true(bag.threshold == one.threshold && bag.target_prior == one.target_prior);
    size_t moved = 0;
    for (size_t k = 0; k < N_UNLABELLED; k++) {
        double x = sitejudge_score(a, FIRST_UNLABELLED + k),
               y = sitejudge_score(b, FIRST_UNLABELLED + k);
        moved += fabs(x - y) > 1e-9;
        assert_true((y > bag.threshold) == (k < 4));
    }
    assert_true(moved > 0);
    assert_true(isnan(sitejudge_score(b, FIRST_UNLABELLED + N_UNLABELLED)));
    sitejudge_free(a);
    sitejudge_free(b);
    p.spy_folds = 0; /* no spies: one fit */
    b = build(&p);
    assert_int_equal(sitejudge_fit(b, &bag), ERR_OK);
    assert_int_equal(nbem_fits(sitejudge_model(b)), 1);
    sitejudge_free(b);
    p.spy_folds = 3;
    p.spy_pages = 1000; /* fewer unlabelled pages: the early threshold, one fit */
    p.early_threshold = 0.2;
    b = build(&p);
    assert_int_equal(sitejudge_fit(b, &bag), ERR_OK);
    assert_int_equal(bag.spies, 0);
    assert_int_equal(nbem_fits(sitejudge_model(b)), 1);
    sitejudge_free(b);
}

/* The spies' threshold by its formula (sitejudge_spy_threshold): as probabilities with a
 * few spies, or a quantile at or above the prior; as logits with many spies and a quantile
 * below the prior; each within its floor and the cap. */
static void test_spy_threshold_formula(void **state)
{
    (void)state;
    struct sitejudge_params p;
    params(&p); /* prior 0.1, weight 10, cap 0.5 */
    p.spy_many = 20;
    /* 5 spies, quantile 0.4: (5 * 0.4 + 10 * 0.1) / 15 */
    assert_true(fabs(sitejudge_spy_threshold(&p, 0.4, 5) - 0.2) < 1e-12);
    /* 5 spies, quantile ~0: the probabilities' floor of the prior, 1 / 15 */
    assert_true(fabs(sitejudge_spy_threshold(&p, 1e-15, 5) - 1.0 / 15) < 1e-12);
    /* 30 spies, quantile 0.4 (above the prior): as probabilities, 4 / 40 + 1 / 40 */
    assert_true(fabs(sitejudge_spy_threshold(&p, 0.4, 30) - 13.0 / 40) < 1e-12);
    /* 30 spies, quantile 1e-6 (below the prior): as logits */
    double l = (30 * log(1e-6 / (1 - 1e-6)) + 10 * log(0.1 / 0.9)) / 40;
    double want = 1 / (1 + exp(-l));
    assert_true(want < 1e-4 && want > SITEJUDGE_MIN_THRESHOLD_MANY);
    assert_true(fabs(sitejudge_spy_threshold(&p, 1e-6, 30) - want) < 1e-15);
    assert_true(sitejudge_spy_threshold(&p, 1e-6, 20) < 1e-3); /* spy_many spies: as logits */
    /* ... and 19 spies with the same quantile: as probabilities, (19e-6 + 1) / 29 */
    assert_true(fabs(sitejudge_spy_threshold(&p, 1e-6, 19) - (19e-6 + 1) / 29) < 1e-12);
    /* spy_many 0: always as probabilities */
    p.spy_many = 0;
    assert_true(fabs(sitejudge_spy_threshold(&p, 1e-6, 30) - (30e-6 + 1) / 40) < 1e-12);
    /* floors: a quantile of 0 with no prior weight */
    p.spy_prior_weight = 0;
    assert_true(sitejudge_spy_threshold(&p, 0, 30) == SITEJUDGE_MIN_THRESHOLD);
    p.spy_many = 20;
    double t = sitejudge_spy_threshold(&p, 0, 30); /* q clamped to 1e-9, the floor */
    assert_true(t >= SITEJUDGE_MIN_THRESHOLD_MANY && t < SITEJUDGE_MIN_THRESHOLD_MANY * 1.000001);
    assert_true(sitejudge_spy_threshold(&p, 0, 5) == SITEJUDGE_MIN_THRESHOLD);
    /* the cap */
    assert_true(sitejudge_spy_threshold(&p, 0.9, 30) == 0.5);
}

/* The web's fit by p: its spies, and its threshold (NaN: any). */
static void fit_spies(const struct sitejudge_params *p, size_t spies, double threshold)
{
    struct sitejudge_fit fit;
    struct sitejudge *sj = build(p);
    assert_int_equal(sitejudge_fit(sj, &fit), ERR_OK);
    assert_int_equal(fit.spies, spies);
    assert_true(isnan(threshold) || fit.threshold == threshold);
    sitejudge_free(sj);
}

/* The threshold as documented: shrunk towards spy_prior as if spy_prior_weight spies had
 * scored it, at most p->threshold, at least SITEJUDGE_MIN_THRESHOLD; as given without
 * spies (no fold, or fewer than two relevant examples). */
static void test_spy_threshold(void **state)
{
    (void)state;
    struct sitejudge_params p;
    struct sitejudge_fit fit;
    struct sitejudge *sj;

    params(&p);
    p.spy_prior = 0.3;
    p.spy_prior_weight = 1e9; /* the prior alone */
    sj = build(&p);
    assert_int_equal(sitejudge_fit(sj, &fit), ERR_OK);
    assert_true(fabs(fit.threshold - 0.3) < 1e-6);
    sitejudge_free(sj);

    p.threshold = 0.2; /* above the cap: the cap */
    sj = build(&p);
    assert_int_equal(sitejudge_fit(sj, &fit), ERR_OK);
    assert_true(fit.threshold == 0.2);
    sitejudge_free(sj);

    params(&p);
    p.spy_prior = 1e-6;
    p.spy_prior_weight = 1e9; /* below the floor: the floor */
    sj = build(&p);
    assert_int_equal(sitejudge_fit(sj, &fit), ERR_OK);
    assert_true(fit.threshold == SITEJUDGE_MIN_THRESHOLD);
    sitejudge_free(sj);

    /* The spies alone at quantile 0: the lowest score of a relevant example among the
     * websites to judge, each fold's by a model fit with that fold's examples unlabelled
     * (the same model as a judging with those websites to judge), of spy_iterations EM
     * iterations when given. */
    double by_iterations[2];
    for (int k = 0; k < 2; k++) {
        params(&p);
        p.spy_prior_weight = 0;
        p.spy_quantile = 0;
        p.threshold = 0.99;
        p.spy_iterations = k ? 2 : 0;
        double lowest = 1;
        for (int f = 0; f < 3; f++) {
            struct sitejudge_params q = p;
            q.spy_folds = 0;
            if (k)
                q.em.iterations = 2;
            sj = build_fold(&q, f, 1);
            assert_int_equal(sitejudge_fit(sj, &fit), ERR_OK);
            for (size_t i = f; i < N_TARGETS; i += 3)
                lowest = fmin(lowest, sitejudge_score(sj, i));
            sitejudge_free(sj);
        }
        sj = build_fold(&p, -1, 1);
        assert_int_equal(sitejudge_fit(sj, &fit), ERR_OK);
        assert_int_equal(fit.spies, N_TARGETS);
        assert_true(lowest > 0.05 && lowest < 0.95); /* neither floor nor cap */
        assert_true(fabs(fit.threshold - lowest) < 1e-12);
        by_iterations[k] = fit.threshold;
        sitejudge_free(sj);
    }
    assert_true(by_iterations[0] != by_iterations[1]);

    /* spy_pages: spies with that many unlabelled pages (65 here) and spy_many relevant
     * examples (6); else one fit at early_threshold. */
    params(&p);
    p.early_threshold = 0.23;
    p.spy_pages = 66;
    fit_spies(&p, 0, 0.23);
    p.spy_pages = 65;
    p.spy_many = 7;
    fit_spies(&p, 0, 0.23);
    p.spy_many = 6;
    fit_spies(&p, N_TARGETS, NAN);
    p.early_threshold = 0; /* with spy_pages, out of range */
    assert_int_equal(sitejudge_new(&p, NULL, &sj), ERR_INVAL);

    params(&p);
    p.spy_folds = 0;
    p.threshold = 0.37;
    fit_spies(&p, 0, 0.37);

    /* One relevant example: no spies. */
    params(&p);
    p.min_sites = 1;
    assert_int_equal(sitejudge_new(&p, NULL, &sj), ERR_OK);
    rng_state = 3;
    add_website(sj, NBEM_TARGET, 0, 0, 3);
    add_website(sj, NBEM_OTHER, 1, 1, 3);
    add_website(sj, NBEM_UNLABELED, 0, 2, 3);
    assert_int_equal(sitejudge_fit(sj, &fit), ERR_OK);
    assert_int_equal(fit.spies, 0);
    assert_true(fit.threshold == 0.5);
    sitejudge_free(sj);
}

/*
 * A neighbour topic (issue 30: talk.religion.misc beside soc.religion.christian): the
 * topic's pages use words it shares with the neighbour and a word of the neighbour's
 * own; the neighbour's pages use the shared words and its own. The user named the
 * neighbour by 6 of the 18 "other" examples; the crawl read 16 of its websites, 4 of the
 * topic's and 8 of other topics. Started at random, every "other" component is a blur
 * and the topic's component, sharp on the shared words, takes the neighbour's crawled
 * pages; with the "other" examples clustered, the neighbour has a component of its own
 * from the start and keeps them.
 */
static const char *const topic_words[] = {"gnosis", "mystic", "occult", "tarot"};
static const char *const shared_words[] = {"faith", "god", "pray", "soul"};
static const char *const neighbour_words[] = {"church", "gospel", "jesus", "sermon"};

/* One page: n_topic of the topic's words, n_shared shared, n_neighbour the neighbour's. */
static void neighbour_page(int site, int n_topic, int n_shared, int n_neighbour, char *out,
                           size_t cap)
{
    const char *terms[16];
    size_t n = 0;
    uint32_t a = rnd(4), b = rnd(4), c = rnd(4);
    for (int i = 0; i < n_topic; i++)
        terms[n++] = topic_words[(a + (uint32_t)i) % 4];
    for (int i = 0; i < n_shared; i++)
        terms[n++] = shared_words[(b + (uint32_t)i) % 4];
    for (int i = 0; i < n_neighbour; i++)
        terms[n++] = neighbour_words[(c + (uint32_t)i) % 4];
    finish_page(terms, n, site, out, cap);
}

/* With keyed set, add_neighbour_site's pages have keys (4 site + page); else none. */
static int keyed;

/* kind 0: the topic, 1: the neighbour, 2..4: other topics (words[1..3]). */
static void add_neighbour_site(struct sitejudge *sj, uint32_t label, int kind, int site)
{
    assert_int_equal(sitejudge_add_site(sj, label), ERR_OK);
    for (int p = 0; p < 4; p++) {
        char text[256];
        if (kind == 0)
            neighbour_page(site, 1, 2, 2, text, sizeof text);
        else if (kind == 1)
            neighbour_page(site, 0, 2, 2, text, sizeof text);
        else
            page_text(kind - 1, site, text, sizeof text);
        assert_int_equal(sitejudge_add_page(sj, keyed ? 4 * site + p : -1, text), ERR_OK);
    }
}

#define NB_FIRST_UNLABELLED 24 /* 6 relevant + 18 other examples */
/* The neighbour's web; the last `unlabel` "other" examples as websites to judge instead
 * (the same websites, pages and keys). */
static struct sitejudge *build_neighbour_as(const struct sitejudge_params *p, int unlabel)
{
    rng_state = 11;
    struct sitejudge *sj = NULL;
    assert_int_equal(sitejudge_new(p, NULL, &sj), ERR_OK);
    int site = 0;
    for (int i = 0; i < 6; i++)
        add_neighbour_site(sj, NBEM_TARGET, 0, site++);
    for (int i = 0; i < 18; i++) /* 6 of the neighbour, 12 of three other topics */
        add_neighbour_site(sj, i < 18 - unlabel ? NBEM_OTHER : NBEM_UNLABELED,
                           i < 6 ? 1 : 2 + i % 3, site++);
    for (int i = 0; i < 28; i++) /* 4 of the topic, 16 of the neighbour, 8 of others */
        add_neighbour_site(sj, NBEM_UNLABELED, i < 4 ? 0 : i < 20 ? 1 : 2 + i % 3, site++);
    return sj;
}

/* The websites to judge that pass the threshold: of the topic (*topic), of the neighbour
 * (*neighbour), of the other topics (*others); with kept clusters c (NULL: none) and the
 * last `unlabel` "other" examples as websites to judge. */
static void neighbour_verdicts_kept(const struct sitejudge_params *p, struct sitejudge_clusters *c,
                                    int unlabel, int *topic, int *neighbour, int *others)
{
    struct sitejudge *sj = build_neighbour_as(p, unlabel);
    if (c)
        sitejudge_keep_clusters(sj, c);
    struct sitejudge_fit fit;
    assert_int_equal(sitejudge_fit(sj, &fit), ERR_OK);
    *topic = *neighbour = *others = 0;
    for (int i = 0; i < 28; i++) {
        int relevant = sitejudge_score(sj, NB_FIRST_UNLABELLED + (size_t)i) > fit.threshold;
        *(i < 4 ? topic : i < 20 ? neighbour : others) += relevant;
    }
    sitejudge_free(sj);
}

static void neighbour_verdicts(const struct sitejudge_params *p, int *topic, int *neighbour,
                               int *others)
{
    neighbour_verdicts_kept(p, NULL, 0, topic, neighbour, others);
}

static void test_neighbour_clusters(void **state)
{
    (void)state;
    struct sitejudge_params p;
    int topic, neighbour, others;
    params(&p);
    /* The clusters alone, from EM's random start. From the web start (nbem.h), 7 of the
     * 16 neighbour websites pass too: here the topic's examples use the neighbour's words
     * as much as the shared ones, and the blurred cluster components do not explain the
     * neighbour's pages better than the examples do (docs/classifier.md, "Session 18"). */
    p.em.web_start = 0;
    p.other_clusters = 10; /* 18 "other" examples: 3 clusters of the 3 components */
    p.cluster_sites = 6;
    neighbour_verdicts(&p, &topic, &neighbour, &others);
    assert_int_equal(topic, 4);
    assert_int_equal(neighbour, 0);
    assert_int_equal(others, 0);

    /* At random, the topic's component takes the neighbour: half its websites relevant. */
    p.other_clusters = 0;
    neighbour_verdicts(&p, &topic, &neighbour, &others);
    assert_int_equal(topic, 4);
    assert_true(neighbour >= 6);
    assert_int_equal(others, 0);

    /* Too few "other" examples for one cluster of cluster_sites: at random too. */
    p.other_clusters = 10;
    p.cluster_sites = 19;
    int again;
    neighbour_verdicts(&p, &topic, &again, &others);
    assert_int_equal(again, neighbour);

    /* Clusters need a size. */
    struct sitejudge *sj = NULL;
    p.cluster_sites = 0;
    assert_int_equal(sitejudge_new(&p, NULL, &sj), ERR_INVAL);
    assert_null(sj);
}

/* A website of 4 pages: kind 0 the topic's (2 of its words, 2 shared), 1 the neighbour's
 * (2 shared, 2 of its own), 2..4 other topics' (words[1..3]). */
static void add_near_site(struct sitejudge *sj, uint32_t label, int kind, int site)
{
    assert_int_equal(sitejudge_add_site(sj, label), ERR_OK);
    for (int p = 0; p < 4; p++) {
        char text[256];
        if (kind < 2)
            neighbour_page(site, kind ? 0 : 2, 2, kind ? 2 : 0, text, sizeof text);
        else
            page_text(kind - 1, site, text, sizeof text);
        assert_int_equal(sitejudge_add_page(sj, -1, text), ERR_OK);
    }
}

/*
 * sitejudge_rejected_like: with two of the neighbour's websites rejected by the user (the
 * "other" examples all of other topics), each website to judge of the neighbour is more
 * like one of them than like any relevant example, and named by it; those of the topic
 * and of the other topics are not. With no website rejected, none is; before the fit,
 * none either.
 */
static void test_rejected_like(void **state)
{
    (void)state;
    struct sitejudge_params p;
    params(&p);
    for (int rejected = 0; rejected <= 2; rejected += 2) {
        rng_state = 5;
        struct sitejudge *sj = NULL;
        assert_int_equal(sitejudge_new(&p, NULL, &sj), ERR_OK);
        int site = 0;
        for (int i = 0; i < 6; i++)
            add_near_site(sj, NBEM_TARGET, 0, site++);
        for (int i = 0; i < 12; i++)
            add_near_site(sj, NBEM_OTHER, 2 + i % 3, site++);
        for (int i = 0; i < rejected; i++)
            add_near_site(sj, SITEJUDGE_REJECTED, 1, site++);
        int first = site;
        for (int i = 0; i < 28; i++) /* 4 of the topic, 16 of the neighbour, 8 of others */
            add_near_site(sj, NBEM_UNLABELED, i < 4 ? 0 : i < 20 ? 1 : 2 + i % 3, site++);
        size_t like[64];
        assert_int_equal(sitejudge_rejected_like(sj, like, NULL), ERR_OK);
        for (int s = 0; s < site; s++)
            assert_true(like[s] == SITEJUDGE_NONE); /* not fitted yet */
        struct sitejudge_fit fit;
        assert_int_equal(sitejudge_fit(sj, &fit), ERR_OK);
        assert_int_equal(sitejudge_rejected_like(sj, like, NULL), ERR_OK);
        for (int s = 0; s < site; s++) {
            int neighbour = s >= first + 4 && s < first + 20;
            if (rejected && neighbour)
                assert_true(like[s] == 18 || like[s] == 19); /* the rejected websites */
            else
                assert_true(like[s] == SITEJUDGE_NONE);
        }
        sitejudge_free(sj);
    }
}

/*
 * fit_pages: with more unlabelled pages than it, each weighs fit_pages / their number in
 * the fits, the model of em.unlabelled_weight set so, bit for bit; with as many or more,
 * nothing changes. The neighbour's web has 28 websites to judge of 4 pages (112).
 */
static void fit_scores(const struct sitejudge_params *p, double *score, size_t *pages)
{
    struct sitejudge *sj = build_neighbour_as(p, 0);
    struct sitejudge_fit f;
    assert_int_equal(sitejudge_fit(sj, &f), ERR_OK);
    for (size_t s = 0; s < 52; s++)
        score[s] = sitejudge_score(sj, s);
    *pages = f.pages;
    sitejudge_free(sj);
}

static void test_fit_pages(void **state)
{
    (void)state;
    struct sitejudge_params p;
    params(&p);
    double plain[52], all[52], cut[52], weighed[52];
    size_t n_plain, n_all, n_cut, n_weighed;
    fit_scores(&p, plain, &n_plain);
    p.fit_pages = 112;
    fit_scores(&p, all, &n_all);
    assert_memory_equal(plain, all, sizeof plain);
    p.fit_pages = 28;
    fit_scores(&p, cut, &n_cut);
    p.fit_pages = 0;
    p.em.unlabelled_weight = 0.25;
    fit_scores(&p, weighed, &n_weighed);
    assert_memory_equal(cut, weighed, sizeof cut);
    assert_int_equal(n_cut, n_plain); /* every page learnt from */
    assert_int_equal(n_all, n_plain);
    int moved = 0;
    for (size_t s = 0; s < 52; s++)
        moved |= memcmp(&cut[s], &plain[s], sizeof cut[s]) != 0;
    assert_true(moved);
}

/*
 * The "other" examples' clusters kept from one judging to the next of a run (sitejudge.h,
 * sitejudge_keep_clusters): a judging of the same "other" websites takes them, as its own
 * (here marked "no cluster", its verdicts are those of EM's random start: the neighbour's
 * websites pass); one of other "other" websites, or of websites without keys, clusters
 * its own (the neighbour's websites stay out).
 */
static void test_kept_clusters(void **state)
{
    (void)state;
    struct sitejudge_params p;
    params(&p);
    p.em.web_start = 0;
    p.other_clusters = 10; /* 18 "other" examples: 3 clusters */
    p.cluster_sites = 6;
    struct sitejudge_clusters c = {0};
    int topic, neighbour, others;
    keyed = 1;
    neighbour_verdicts_kept(&p, &c, 0, &topic, &neighbour, &others);
    assert_int_equal(neighbour, 0); /* as test_neighbour_clusters */
    assert_int_equal(c.n, 18);
    assert_int_equal(c.k, 3);
    for (size_t i = 0; i < c.n; i++) {
        assert_true(c.assign[i] < 3);
        assert_int_equal(c.keys[i], 4 * (6 + (int64_t)i)); /* each website's first page */
    }
    for (size_t i = 0; i < c.n; i++)
        c.assign[i] = UINT32_MAX;
    neighbour_verdicts_kept(&p, &c, 0, &topic, &neighbour, &others);
    assert_true(neighbour >= 6); /* the kept "no cluster" was taken */
    assert_int_equal(c.assign[0], UINT32_MAX);

    keyed = 0; /* no keys: its own clusters, c left alone */
    neighbour_verdicts_kept(&p, &c, 0, &topic, &neighbour, &others);
    assert_int_equal(neighbour, 0);
    assert_int_equal(c.n, 18);
    assert_int_equal(c.assign[0], UINT32_MAX);

    keyed = 1; /* a labelled "other" website fewer: its own clusters, kept */
    neighbour_verdicts_kept(&p, &c, 1, &topic, &neighbour, &others);
    assert_int_equal(neighbour, 0);
    assert_int_equal(c.n, 17);
    assert_true(c.assign[0] < 3);
    keyed = 0;
    sitejudge_clusters_release(&c);
    assert_null(c.keys);
    assert_int_equal(c.n, 0);
}

/*
 * Pages decoded once (classifier/pagevecs.h): a judging whose pages an earlier judging of
 * a shared pagevecs decoded, in another order (its vocabulary's ids in another order too),
 * gives the model, threshold and scores of a judging with its own, bit for bit; and a page
 * met again under its key is not decoded again (its text here is not a text form).
 */
#define SP_SITES 52
#define SP_PAGES 4
static void test_shared_pages(void **state)
{
    (void)state;
    static char text[SP_SITES][SP_PAGES][256];
    uint32_t label[SP_SITES];
    rng_state = 11;
    for (int site = 0; site < SP_SITES; site++) { /* build_neighbour's web */
        int i = site < 6 ? site : site < 24 ? site - 6 : site - 24;
        int kind = site < 6    ? 0
                   : site < 24 ? (i < 6 ? 1 : 2 + i % 3)
                               : (i < 4    ? 0
                                  : i < 20 ? 1
                                           : 2 + i % 3);
        label[site] = site < 6 ? NBEM_TARGET : site < 24 ? NBEM_OTHER : NBEM_UNLABELED;
        for (int p = 0; p < SP_PAGES; p++) {
            if (kind == 0)
                neighbour_page(site, 1, 2, 2, text[site][p], sizeof text[site][p]);
            else if (kind == 1)
                neighbour_page(site, 0, 2, 2, text[site][p], sizeof text[site][p]);
            else
                page_text(kind - 1, site, text[site][p], sizeof text[site][p]);
        }
    }
    struct sitejudge_params p;
    params(&p);
    p.other_clusters = 3;
    p.cluster_sites = 6;
    struct pagevecs *pv = NULL;
    assert_int_equal(pagevecs_new(&pv), ERR_OK);
    struct sitejudge *own = NULL, *first = NULL, *again = NULL;
    assert_int_equal(sitejudge_new(&p, NULL, &own), ERR_OK);
    assert_int_equal(sitejudge_new(&p, pv, &first), ERR_OK);
    assert_int_equal(sitejudge_new(&p, pv, &again), ERR_OK);
    for (int k = 0; k < SP_SITES; k++) {
        int back = SP_SITES - 1 - k; /* the first judging reads the websites backwards */
        assert_int_equal(sitejudge_add_site(own, label[k]), ERR_OK);
        assert_int_equal(sitejudge_add_site(first, label[back]), ERR_OK);
        for (int q = 0; q < SP_PAGES; q++) {
            assert_int_equal(sitejudge_add_page(own, -1, text[k][q]), ERR_OK);
            assert_int_equal(sitejudge_add_page(first, back * SP_PAGES + q, text[back][q]), ERR_OK);
        }
    }
    for (int k = 0; k < SP_SITES; k++) {
        assert_int_equal(sitejudge_add_site(again, label[k]), ERR_OK);
        for (int q = 0; q < SP_PAGES; q++)
            assert_int_equal(sitejudge_add_page(again, k * SP_PAGES + q, "not a text form"),
                             ERR_OK);
    }
    struct sitejudge_fit a, b, c;
    assert_int_equal(sitejudge_fit(own, &a), ERR_OK);
    assert_int_equal(sitejudge_fit(first, &b), ERR_OK);
    assert_int_equal(sitejudge_fit(again, &c), ERR_OK);
    assert_int_equal(a.terms, c.terms);
    assert_int_equal(a.spies, c.spies);
    assert_memory_equal(&a.threshold, &c.threshold, sizeof a.threshold);
    assert_memory_equal(&a.target_prior, &c.target_prior, sizeof a.target_prior);
    for (uint32_t t = 0; t < a.terms; t++) {
        size_t la, lc;
        const char *ta = sitejudge_term(own, t, &la), *tc = sitejudge_term(again, t, &lc);
        assert_int_equal(la, lc);
        assert_memory_equal(ta, tc, la);
    }
    for (size_t k = 0; k < SP_SITES; k++) {
        double x = sitejudge_score(own, k), y = sitejudge_score(again, k);
        if (memcmp(&x, &y, sizeof x) != 0)
            fail_msg("website %zu: %.17g with its own pages, %.17g with the shared ones", k, x, y);
    }
    /* A page never met under its key is decoded: a bad text form is refused. */
    assert_int_equal(sitejudge_add_site(own, NBEM_UNLABELED), ERR_INVAL); /* after the fit */
    struct sitejudge *late = NULL;
    assert_int_equal(sitejudge_new(&p, pv, &late), ERR_OK);
    assert_int_equal(sitejudge_add_site(late, NBEM_UNLABELED), ERR_OK);
    assert_int_equal(sitejudge_add_page(late, 5, "not a text form"), ERR_OK);
    assert_int_equal(sitejudge_add_page(late, 100000, "not a text form"), ERR_PARSE);
    sitejudge_free(late);
    sitejudge_free(own);
    sitejudge_free(first);
    sitejudge_free(again);
    pagevecs_free(pv);
}

/* What cannot be judged says why. */
static void test_errors(void **state)
{
    (void)state;
    struct sitejudge_params p;
    struct sitejudge *sj = NULL;
    struct sitejudge_fit fit;
    params(&p);
    p.threshold = 1;
    assert_int_equal(sitejudge_new(&p, NULL, &sj), ERR_INVAL);
    assert_null(sj);
    params(&p);
    p.min_sites = 0;
    assert_int_equal(sitejudge_new(&p, NULL, &sj), ERR_INVAL);

    params(&p);
    assert_int_equal(sitejudge_new(&p, NULL, &sj), ERR_OK);
    assert_int_equal(sitejudge_add_page(sj, -1, "home:1"), ERR_INVAL); /* no website yet */
    assert_int_equal(sitejudge_add_site(sj, 7), ERR_INVAL);
    sitejudge_free(sj);

    assert_int_equal(sitejudge_new(&p, NULL, &sj), ERR_OK);
    assert_int_equal(sitejudge_add_site(sj, NBEM_TARGET), ERR_OK);
    assert_int_equal(sitejudge_add_page(sj, -1, "home 1"), ERR_PARSE);
    sitejudge_free(sj);

    /* The relevant examples' words are of one website each: nothing to learn from. */
    assert_int_equal(sitejudge_new(&p, NULL, &sj), ERR_OK);
    for (int i = 0; i < 4; i++) {
        char text[32];
        snprintf(text, sizeof text, "only%d:2", i);
        assert_int_equal(sitejudge_add_site(sj, i < 2 ? NBEM_TARGET : NBEM_UNLABELED), ERR_OK);
        assert_int_equal(sitejudge_add_page(sj, -1, text), ERR_OK);
    }
    assert_int_equal(sitejudge_fit(sj, &fit), ERR_NOTFOUND);
    sitejudge_free(sj);
    sitejudge_free(NULL);
}

static double fit_gate(const struct sitejudge_params *p, int mixed)
{
    struct sitejudge *sj = build_fold(p, -1, mixed);
    struct sitejudge_fit fit;
    assert_int_equal(sitejudge_fit(sj, &fit), ERR_OK);
    sitejudge_free(sj);
    return fit.web_gate;
}

/* The web gate (sitejudge.h, web_gate_quantile): as given at quantile 0, none without the
 * web start; with it, wider for a lower quantile, and wider where the relevant examples
 * have pages of other topics (left out, the examples' model explains those worse than
 * the whole web) than where they are all of the topic. A relevant example alone cannot
 * be left out: no gate. */
static void test_web_gate(void **state)
{
    (void)state;
    struct sitejudge_params p;
    params(&p);
    assert_true(isinf(fit_gate(&p, 0)));
    p.em.web_gate = 7; /* quantile 0: the gate as given */
    assert_true(fit_gate(&p, 1) == 7);
    p.em.web_gate = INFINITY;
    p.web_gate_quantile = 0.1;
    double pure = fit_gate(&p, 0), mixed = fit_gate(&p, 1);
    if (!(isfinite(pure) && pure < mixed))
        fail_msg("web gate %g with examples of the topic alone, %g with mixed ones: want"
                 " the first narrower",
                 pure, mixed);
    if (!(isfinite(mixed) && mixed > 0))
        fail_msg("examples with pages of other topics: web gate %g, want above 0", mixed);
    p.web_gate_quantile = 0.5;
    double half = fit_gate(&p, 1);
    if (!(half <= mixed))
        fail_msg("web gate %g at quantile 0.5, %g at 0.1: want the first no wider", half, mixed);
    p.web_gate_quantile = 0.1;
    p.em.web_start = 0;
    assert_true(isinf(fit_gate(&p, 1)));

    params(&p);
    p.web_gate_quantile = 0.1;
    struct sitejudge *sj = NULL;
    assert_int_equal(sitejudge_new(&p, NULL, &sj), ERR_OK);
    add_website(sj, NBEM_TARGET, 0, 0, 3);
    for (int i = 0; i < 6; i++)
        add_website(sj, i < 3 ? NBEM_OTHER : NBEM_UNLABELED, i < 3 ? 1 : i % 2, 1 + i, 3);
    struct sitejudge_fit fit;
    assert_int_equal(sitejudge_fit(sj, &fit), ERR_OK);
    assert_true(isinf(fit.web_gate));
    sitejudge_free(sj);

    p.web_gate_quantile = 1;
    assert_int_equal(sitejudge_new(&p, NULL, &sj), ERR_INVAL);
    p.web_gate_quantile = NAN;
    assert_int_equal(sitejudge_new(&p, NULL, &sj), ERR_INVAL);
}

/* A relevant example whose pages keep no term after the vocabulary's cut (its words are
 * its own) is neither a spy nor left out for the web gate: a fold of it alone would leave
 * no relevant page to learn from. */
static void test_example_without_terms(void **state)
{
    (void)state;
    struct sitejudge_params p;
    params(&p);
    p.web_gate_quantile = 0.1;
    struct sitejudge *sj = NULL;
    assert_int_equal(sitejudge_new(&p, NULL, &sj), ERR_OK);
    add_website(sj, NBEM_TARGET, 0, 0, 3);
    assert_int_equal(sitejudge_add_site(sj, NBEM_TARGET), ERR_OK);
    assert_int_equal(sitejudge_add_page(sj, -1, "zzownword:3"), ERR_OK);
    for (int i = 0; i < 8; i++)
        add_website(sj, i < 4 ? NBEM_OTHER : NBEM_UNLABELED, i < 4 ? 1 + i % 3 : i % 2, 2 + i, 3);
    struct sitejudge_fit fit;
    assert_int_equal(sitejudge_fit(sj, &fit), ERR_OK);
    assert_int_equal(fit.spies, 0); /* one spy site left: the threshold as given */
    assert_true(isinf(fit.web_gate));
    sitejudge_free(sj);
}

/* The confidence maps the threshold to 1/2 (as job/jobjudge.h's). */
static void test_confidence(void **state)
{
    (void)state;
    assert_true(fabs(sitejudge_confidence(0.08, 0.08) - 0.5) < 1e-12);
    assert_true(fabs(sitejudge_confidence(0.3, 0.1) - 27.0 / 34.0) < 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scores_and_cut),
        cmocka_unit_test(test_bag),
        cmocka_unit_test(test_spy_threshold),
        cmocka_unit_test(test_neighbour_clusters),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_web_gate),
        cmocka_unit_test(test_example_without_terms),
        cmocka_unit_test(test_confidence),
        cmocka_unit_test(test_shared_pages),
        cmocka_unit_test(test_kept_clusters),
        cmocka_unit_test(test_fit_pages),
        cmocka_unit_test(test_spy_threshold_formula),
        cmocka_unit_test(test_rejected_like),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
