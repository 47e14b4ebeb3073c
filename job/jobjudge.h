/*
 * Judging a job's websites again with a model learnt from its crawl (issue 30,
 * docs/classifier.md "Learning from the crawl"): the examples' and the crawl's pages, as
 * stored (their term counts), fit the crawl model (classifier/nbem.h); every examined
 * website the crawl found gets the model's verdict, from the pages already read.
 */
#ifndef SITESCOUT_JOB_JOBJUDGE_H
#define SITESCOUT_JOB_JOBJUDGE_H

#include <stddef.h>
#include <stdint.h>

#include "classifier/nbem.h"
#include "classifier/sitejudge.h"
#include "common/err.h"

struct store;

struct jobjudge_params {
    struct nbem_params em;
    uint32_t min_sites;       /* terms of fewer websites are left out (>= 1) */
    double weight_cap;        /* a page weighs its known term occurrences, at most this (> 0) */
    double threshold;         /* relevant when the weighted mean of Pr[target|page] is above; with
                               * spies, the highest threshold they may give (0 < threshold < 1) */
    uint32_t spy_folds;       /* 0: threshold as given; else the spies' (sitejudge.h) ... */
    int64_t spy_pages;        /* ... when the crawl read this many pages or more and the job has
                               * spy_many relevant examples or more (0: whatever it read and
                               * has); else one fit at early_threshold */
    double early_threshold;   /* (0 < early_threshold < 1) */
    uint32_t spy_iterations;  /* the spies' fits' EM iterations; 0: em.iterations */
    double spy_quantile;      /* [0, 1) */
    double spy_prior;         /* the spies' quantile shrinks towards this threshold ... */
    double spy_prior_weight;  /* ... as if this many spies had scored it (>= 0) ... */
    uint32_t spy_many;        /* ... as logits from this many spies on (sitejudge.h) */
    uint32_t other_clusters;  /* the "other" examples start in at most this many clusters
                               * (0: at random; sitejudge.h) ... */
    uint32_t cluster_sites;   /* ... one per this many "other" example websites (>= 1) */
    double web_gate_quantile; /* the web gate would stop this share of the relevant
                               * examples' pages, left out (sitejudge.h); 0: no gate */
    uint32_t fit_pages;       /* the crawled pages weigh as this many pages at most
                               * (sitejudge.h); 0: each weighs 1 */
    uint32_t bag;             /* 1: with spies, the model is the bag of their fits and its
                               * own (sitejudge.h); 0: its own fit */
    uint32_t link_rounds;     /* rounds of weighing each verdict with its links'
                               * (classifier/linkjudge.h); 0: the text alone */
    double link_slope;        /* a judged neighbour is relevant with probability
                               * sigma(link_slope (text + links)); 0: its verdict, 0 or 1 */
    double exam_links;        /* with links, an examination's "not relevant" stands unless
                               * the website's links' evidence is above this (nats;
                               * classifier/linkjudge.h); INFINITY: it always stands */
    int64_t min_pages;        /* fewer pages read by the crawl: no model, the verdicts stay */
    int keep_model;           /* hand the model out (jobjudge_result.model) */
};

/* The lowest threshold spies may give. */
#define JOBJUDGE_MIN_THRESHOLD SITEJUDGE_MIN_THRESHOLD

/* The defaults chosen by measurement (docs/classifier.md). */
void jobjudge_params_default(struct jobjudge_params *p);

/* The crawl model's own parameters among p's (the judging itself: classifier/sitejudge.h). */
void jobjudge_sitejudge_params(const struct jobjudge_params *p, struct sitejudge_params *out);

/*
 * A website's confidence from its score (the weighted mean of its pages' Pr[target|page])
 * and the threshold: sigma(logit(score) - logit(threshold)), both clamped to
 * [1e-9, 1 - 1e-9]. The order of the scores stays, and the threshold maps to 1/2, so that
 * relevant means a confidence above 1/2, as with the page classifier's verdicts. A verdict
 * given as a website is read has it; a judging adds the website's links' evidence to its
 * logit (classifier/linkjudge.h).
 */
double jobjudge_confidence(double score, double threshold);
/* Its logit, logit(score) - logit(threshold): the text's evidence, to which a judging adds
 * the website's links' (classifier/linkjudge.h, sites.link_evidence). */
double jobjudge_evidence(double score, double threshold);
/* The confidence a judging stores from a website's text evidence and its links'
 * (linkjudge_confidence): sigma(text + links), at most 1/2 when vetoed. */
double jobjudge_link_confidence(double text, double links, int vetoed);

/* A website's verdict by a dry run. */
struct jobjudge_verdict {
    char host[256];
    char role[16]; /* "start" or "discovered" */
    int relevant;
};

struct jobjudge_result {
    size_t pages;                 /* pages the model learnt from */
    size_t terms;                 /* its vocabulary */
    size_t sites;                 /* websites judged */
    int64_t changed;              /* verdicts that changed */
    int64_t relevant;             /* the job's relevant websites after */
    int64_t model_id;             /* the model's row in `models` (0: none) */
    size_t crawl_pages;           /* pages of the crawl among them; below p->min_pages nothing is
                                   * learnt nor judged (sites 0) */
    double target_prior;          /* the topic's share of the crawl's pages, as the model sees it */
    double threshold;             /* the verdicts' */
    size_t spies;                 /* relevant example websites that chose it (0: p->threshold) */
    double web_gate;              /* the fit's web gate in nats (INFINITY: none) */
    struct jobjudge_model *model; /* with p->keep_model: the model (jobjudge_model_free) */
    double seconds;
    double cpu_seconds; /* the judging thread's CPU until its model was saved (reading the
                         * pages, fitting, judging); stored in the model's cv */
    struct jobjudge_verdict *verdicts; /* a dry run's: each website it judged (malloc'd:
                                        * jobjudge_result_release); NULL otherwise */
    size_t n_verdicts;
};

/* Free a result's verdicts (a dry run's). */
void jobjudge_result_release(struct jobjudge_result *r);

/*
 * Fit the crawl model on job's stored pages and give every examined start or discovered
 * website its verdict (store/judgestore.h). ERR_NOTFOUND when the job has no stored page
 * of a relevant example to learn from (a job made before pages kept their terms).
 * dry_run: figures only, nothing written; out->verdicts says what would be
 * (jobjudge_result_release).
 */
enum err jobjudge_run(struct store *s, int64_t job, const struct jobjudge_params *p, int dry_run,
                      struct jobjudge_result *out) WARN_UNUSED;

/* jobjudge_run with the pages decoded into pages (classifier/pagevecs.h), which keeps them
 * for the next judging of the same job: a crawl decodes each page once, not at every
 * judging. pages must hold only this job's pages (keyed by their ids). With clusters
 * (NULL: none), the "other" examples' clusters are kept there for the next judging too
 * (sitejudge_keep_clusters): a crawl clusters its examples once. */
struct pagevecs;
struct sitejudge_clusters;
enum err jobjudge_run_pages(struct store *s, int64_t job, const struct jobjudge_params *p,
                            struct pagevecs *pages, struct sitejudge_clusters *clusters,
                            int dry_run, struct jobjudge_result *out) WARN_UNUSED;

/*
 * A judging's model kept in memory, to score a website as it is examined (its pages'
 * terms, as stored): jobjudge_model_score sets *conf (as jobjudge_confidence: above 1/2
 * means the model would call it relevant) and answers 1, or 0 when no page has a term it
 * knows. A model kept by the judging itself (jobjudge_params.keep_model) also knows the
 * websites the user rejected: a website it would call relevant that is more like one of
 * them than like any relevant one gets *conf 1/2 and *like_rejected that website's host
 * (the model's string; NULL otherwise, and for a model loaded from the store), as a
 * judging vetoes it. like_rejected may be NULL. Read-only once made: any number of
 * threads may score with it.
 */
struct jobjudge_model;
int jobjudge_model_score(const struct jobjudge_model *jm, const char *const *terms, size_t n,
                         double *conf, const char **like_rejected);
void jobjudge_model_free(struct jobjudge_model *jm);

/*
 * Each of n pages (its terms, as stored; NULL for none) as the model sees it: pr[i] its
 * Pr[target | page], weight[i] its weight in its website's score (its term occurrences
 * the model knows, at most the model's weight cap); NaN and 0 for a page that weighs
 * nothing (no terms, none the model knows, terms that do not decode). pr and weight may
 * be NULL. Returns the website's score, the weighted mean of the pr (NaN: no page
 * weighs); jobjudge_confidence(score, jobjudge_model_threshold) is its confidence, as
 * jobjudge_model_score gives it.
 */
double jobjudge_model_pages(const struct jobjudge_model *jm, const char *const *terms, size_t n,
                            double *pr, double *weight);
double jobjudge_model_threshold(const struct jobjudge_model *jm);
double jobjudge_model_weight_cap(const struct jobjudge_model *jm);
/* Its judging's exam_links (jobjudge_params; INFINITY for a model stored before it). */
double jobjudge_model_exam_links(const struct jobjudge_model *jm);

/*
 * The job's last crawl model as stored (models, kind 'crawl': its vocabulary and
 * nbem_serialize's bytes, save_model's layout), with the threshold and weight cap it
 * judged at: what a runner that did not fit it judges with (a helper, a lead resumed).
 * With the job's websites labelled not relevant, the labelled websites and relevant
 * examples as they are now, to veto by as a judging's kept model does. *id: its row.
 * ERR_NOTFOUND: the job has none; ERR_PARSE: bytes that are not one.
 */
enum err jobjudge_model_load(struct store *s, int64_t job, int64_t *id,
                             struct jobjudge_model **out) WARN_UNUSED;

/* The websites labelled not relevant a model vetoes by (jobjudge_model_score). */
size_t jobjudge_model_rejected(const struct jobjudge_model *jm);

/* The job's crawl model of row id (the one that gave a verdict, sites.model_id), as
 * jobjudge_model_load but without labelled websites to veto by; ERR_NOTFOUND: no such
 * row, or not a crawl model of this job. */
enum err jobjudge_model_load_id(struct store *s, int64_t job, int64_t id,
                                struct jobjudge_model **out) WARN_UNUSED;

#endif
