/*
 * The crawl model's verdicts on websites, with no database (issue 30, docs/classifier.md
 * "Learning from the crawl"): websites labelled target, other or unlabelled, each with
 * its pages' term counts (classifier/termvec.h); the vocabulary cut to the terms of
 * min_sites websites, the threshold chosen by spies, the model (classifier/nbem.h) fit on
 * every page, and each website's score. job/jobjudge.c judges a job's stored pages with
 * it, eval/evaluate.c the held-out websites of `eval --mode heldout --judge crawl_model`.
 *
 * Ownership: the caller frees a sitejudge with sitejudge_free; the page texts are decoded
 * (their terms copied) as they are added.
 */
#ifndef SITESCOUT_CLASSIFIER_SITEJUDGE_H
#define SITESCOUT_CLASSIFIER_SITEJUDGE_H

#include <stddef.h>
#include <stdint.h>

#include "classifier/nbem.h"
#include "common/err.h"

struct sitejudge_params {
    struct nbem_params em;
    uint32_t min_sites;       /* terms of fewer websites are left out (>= 1) */
    double weight_cap;        /* a page weighs its known term occurrences, at most this (> 0) */
    double threshold;         /* relevant when the score is above; with spies, the highest
                               * threshold they may give (0 < threshold < 1) */
    uint32_t spy_folds;       /* 0: threshold as given; else the spies' (below) ... */
    int64_t spy_pages;        /* ... when there are this many unlabelled pages or more and
                               * spy_many relevant example websites or more (0: always);
                               * else one fit at early_threshold */
    double early_threshold;   /* (0 < early_threshold < 1 when spy_pages > 0) */
    uint32_t spy_iterations;  /* the spies' fits' EM iterations; 0: em.iterations */
    double spy_quantile;      /* [0, 1) */
    double spy_prior;         /* the spies' quantile shrinks towards this threshold ... */
    double spy_prior_weight;  /* ... as if this many spies had scored it (>= 0) ... */
    uint32_t spy_many;        /* ... as probabilities with fewer spies than this, as logits
                               * with as many or more (0: always as probabilities) */
    uint32_t other_clusters;  /* the "other" example websites start in at most this many
                               * clusters, one "other" component each (0: at random) ... */
    uint32_t cluster_sites;   /* ... one cluster per this many of them (>= 1) */
    double web_gate_quantile; /* with em.web_start: em.web_gate is chosen so that it would
                               * stop this share of the relevant examples' pages, left out
                               * (sitejudge_fit); <= 0: em.web_gate as given */
    uint32_t fit_pages;       /* the unlabelled pages weigh in the fits as this many pages
                               * at most (sitejudge_fit); 0: each weighs 1 */
    uint32_t bag;             /* 1: with spies, the model is the bag of its fit and the
                               * spies' (sitejudge_fit); 0: its fit alone */
};

/* The lowest threshold a few spies may give, and many (spy_many). */
#define SITEJUDGE_MIN_THRESHOLD      0.01
#define SITEJUDGE_MIN_THRESHOLD_MANY 1e-9

/*
 * A website's confidence from its score and the threshold: sigma(logit(score) -
 * logit(threshold)), both clamped to [1e-9, 1 - 1e-9]. The order of the scores stays, and
 * the threshold maps to 1/2.
 */
double sitejudge_confidence(double score, double threshold);
/* Its logit, logit(score) - logit(threshold) (clamped the same): the text's evidence a
 * website's links add to (classifier/linkjudge.h). */
double sitejudge_evidence(double score, double threshold);

/*
 * The threshold n spies give (n >= 1), their spy_quantile quantile being q: q shrunk
 * towards spy_prior as if spy_prior_weight spies had scored it, at most p->threshold. A
 * few spies' quantile is noise, and biased low (a handful of examples, one left out, make
 * a weaker model than all of them): with fewer than spy_many spies (or spy_many 0), or q
 * at least spy_prior, it is shrunk as probabilities, (n q + w prior) / (n + w), and at
 * least SITEJUDGE_MIN_THRESHOLD. Many spies' quantile below the prior is shrunk as
 * logits, sigma((n logit(q) + w logit(prior)) / (n + w)) (q clamped to [1e-9, 1 - 1e-9]),
 * and at least SITEJUDGE_MIN_THRESHOLD_MANY: when a part of the topic's websites scores
 * orders of magnitude below the rest, an average of probabilities would erase it.
 */
double sitejudge_spy_threshold(const struct sitejudge_params *p, double q, size_t n);

struct sitejudge;

struct pagevecs;

/* With pv (classifier/pagevecs.h; NULL: one of its own), the pages are decoded into pv,
 * which must outlive the sitejudge and have no other user meanwhile: a page met by an
 * earlier sitejudge under its key is not decoded again. ERR_INVAL (with its message) for
 * parameters out of their ranges. */
enum err sitejudge_new(const struct sitejudge_params *p, struct pagevecs *pv,
                       struct sitejudge **out) WARN_UNUSED;
void sitejudge_free(struct sitejudge *sj);

/*
 * A website, number sitejudge_sites() before the call: label NBEM_TARGET (a relevant
 * example), NBEM_OTHER (an other example), SITEJUDGE_REJECTED (a website the user said is
 * not relevant: an "other" example to the model, and sitejudge_rejected_like's) or
 * NBEM_UNLABELED (a website to judge). Its pages follow with sitejudge_add_page. Before
 * sitejudge_fit only.
 */
#define SITEJUDGE_REJECTED 3
enum err sitejudge_add_site(struct sitejudge *sj, uint32_t label) WARN_UNUSED;
/* A page of the last website added, as its term counts' text form, under key (a page's
 * id, >= 0: pagevecs_add; < 0: none): ERR_PARSE if it is not one (termvec_decode),
 * ERR_INVAL before any website or after sitejudge_fit. After an error of
 * sitejudge_add_site or sitejudge_add_page, only sitejudge_free is left. */
enum err sitejudge_add_page(struct sitejudge *sj, int64_t key, const char *terms) WARN_UNUSED;
size_t sitejudge_sites(const struct sitejudge *sj);

/*
 * The "other" example websites' clusters of a fit (sitejudge_fit), kept for the next
 * judging of the same run: the websites by their first page's key, in the order added,
 * each one's cluster (UINT32_MAX: none, no term of the vocabulary), and the k asked for.
 * Zeroed, it holds none; sitejudge_clusters_release frees what it holds and zeroes it.
 */
struct sitejudge_clusters {
    int64_t *keys;
    uint32_t *assign;
    size_t n;
    uint32_t k;
};
void sitejudge_clusters_release(struct sitejudge_clusters *c);
/* sj's fit takes its clusters from c when they are of the same "other" websites (the same
 * first page keys, every one >= 0, in the same order) and the same k; else it clusters
 * them and leaves its clusters in c. c must outlive sj and have no other user meanwhile. */
void sitejudge_keep_clusters(struct sitejudge *sj, struct sitejudge_clusters *c);

struct sitejudge_fit {
    size_t pages;        /* pages learnt from: every page added */
    uint32_t terms;      /* the vocabulary after the min_sites cut */
    double threshold;    /* the verdicts' */
    size_t spies;        /* relevant example websites that chose it (0: p->threshold) */
    double target_prior; /* the topic's share of the unlabelled pages, as the model sees it */
    double web_gate;     /* the web gate the fits had (INFINITY: none) */
};

/*
 * Cut the vocabulary, choose the threshold and fit the model, once. The threshold, from
 * spies (Liu et al. 2002): the relevant example websites with pages are dealt in turn to
 * spy_folds folds (fewer when there are fewer such websites); for each fold a model is fit
 * with that fold's websites among the unlabelled ones, and scores them as it scores the
 * websites to judge. The threshold is sitejudge_spy_threshold of the spy_quantile
 * quantile of those scores. Fewer than two relevant example websites, or spy_folds 0:
 * p->threshold. Fewer unlabelled pages than spy_pages, or (then) fewer relevant example
 * websites than spy_many: no spies, early_threshold. Before the spies and the fit, the "other"
 * example websites with pages are clustered (spherical k-means of their 1 + ln(count) term vectors,
 * seeded by em.seed) into k = min(their number / cluster_sites, other_clusters,
 * em.other_components) clusters, and each cluster's pages start EM in an "other"
 * component of their own: a neighbour topic the user named by a few "other" examples
 * then has a component sharp on it from the start, which keeps the neighbour's crawled
 * pages out of the topic's (docs/classifier.md). Then, with em.web_start and
 * web_gate_quantile > 0, the web gate (classifier/nbem.h, web_gate) of the spies' fits and
 * the model: the relevant example websites dealt to 3 folds (as the spies), each fold's
 * pages get the web margin of a model that did not learn from them (nbem_web_margins),
 * and em.web_gate is minus their web_gate_quantile quantile, at least 0; fewer than two
 * relevant example websites: no gate (INFINITY). With fit_pages and more unlabelled pages
 * than that, each unlabelled page weighs fit_pages / their number in the fits' M steps
 * (em.unlabelled_weight, as given, is replaced; the web gate's margins weigh every page
 * whole). With p->bag and spies, the model is the bag (nbem_bag) of its fit and the
 * spies' fits: a page's Pr[target|page] the mean of theirs (docs/classifier.md, "A bag of
 * fits"). ERR_NOTFOUND when no page of a relevant example keeps a term (nothing to learn
 * the topic from).
 */
enum err sitejudge_fit(struct sitejudge *sj, struct sitejudge_fit *out) WARN_UNUSED;

/* After sitejudge_fit: website i's score, the mean of its pages' Pr[target|page] (by the
 * model: a bag's mean) weighed by their known term occurrences (at most weight_cap each);
 * NaN when no page of it has a term the model knows. Relevant when above the fit's
 * threshold. */
double sitejudge_score(const struct sitejudge *sj, size_t site);

/*
 * After sitejudge_fit: for each website s to judge (NBEM_UNLABELED) more like a website the
 * user rejected (SITEJUDGE_REJECTED) than like every relevant one (the relevant examples and
 * the websites labelled relevant: NBEM_TARGET), like[s] is the number of the rejected
 * website most like it; SITEJUDGE_NONE for the others (all with no rejected website);
 * like[0..sitejudge_sites()). Likeness: the cosine of the websites' 1 + ln(count) vectors
 * over their pages, in the fit's vocabulary. Why: the websites a user rejects are the
 * topic's near neighbours the model took for it, and the next website of such a neighbour
 * is more like them than like the topic's (docs/classifier.md, "Labels").
 */
#define SITEJUDGE_NONE SIZE_MAX
/* rows, if not NULL, gets the rejected and relevant websites as the sitelike rows it compared
 * with, in the model's term ids (classifier/sitelike.h: to match a website read later, its
 * pages' terms as the model's ids; a match is a website's number here); the caller's,
 * NULL with no rejected one. */
struct sitelike_rows;
enum err sitejudge_rejected_like(const struct sitejudge *sj, size_t *like,
                                 struct sitelike_rows **rows) WARN_UNUSED;

/* After sitejudge_fit: the model, and its term ids' terms (for storing the model). */
const struct nbem *sitejudge_model(const struct sitejudge *sj);
const char *sitejudge_term(const struct sitejudge *sj, uint32_t id, size_t *len);
/* The model handed out (the caller's: nbem_free); no score after it. */
struct nbem *sitejudge_take_model(struct sitejudge *sj);

#endif
