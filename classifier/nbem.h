/*
 * The crawl's page model (issue 30): multinomial Naive Bayes fit by EM over the job's
 * example pages and the pages its crawl read (Nigam, McCallum, Thrun & Mitchell 2000),
 * with one mixture component for the topic and several for the rest of the web.
 */
#ifndef SITESCOUT_CLASSIFIER_NBEM_H
#define SITESCOUT_CLASSIFIER_NBEM_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/err.h"

/*
 * Why this shape (docs/classifier.md, "Learning from the crawl"):
 * - A handful of example websites cannot say what "not the topic" is; the crawl's own
 *   pages can. They enter as unlabelled pages, and start in the "other" components:
 *   the topic must win each of them from the rest of the web.
 * - The rest of the web is many topics: several "other" components (each a multinomial
 *   of its own) model it, so that a neighbour topic is not forced into the target's.
 * - The mixture weights are estimated from the unlabelled pages only: the topic's share
 *   of the web the crawl read, not of the examples the user gave (which are half target).
 *
 * Model: components c = 0 (target) .. n_other (other). Parameters
 *   prior[c] = (PRIOR_SMOOTH + sum_{d in U} z_dc) / (n_comp PRIOR_SMOOTH + |U|)
 *   p(t|c)   = (alpha + sum_d z_dc n_dt) / (alpha V + sum_d z_dc n_d)
 * and a page's component posterior z_dc ∝ prior[c] prod_t p(t|c)^n_dt (E step). With
 * page_tokens, a page of more term occurrences n_d has its counts scaled by
 * page_tokens / n_d in both steps: one long page (a uuencoded binary posted as text, a
 * log) neither dominates its component nor gets a certain posterior. A target
 * example has z_d0 = 1; an "other" example with a start component (start_comp: a cluster
 * of the user's "other" websites) stays in it, one without splits over the other
 * components by their posteriors; an unlabelled page over all of them. (Kept in their
 * clusters, the "other" examples of a full job cost no E step, a third of its pages: its
 * judgings 0.114 -> 0.101 of the crawl's CPU, precision and recall unchanged:
 * docs/benchmarks/judgement.md, session 23.) The "other" components start from a
 * seeded random assignment of the unlabelled pages and of the "other" examples without a
 * start component (classifier/sitejudge.c groups the examples by website clusters).
 * With web_start, the unlabelled pages the target examples explain better than the whole
 * web does start in the target component instead (a two-component model: the target
 * examples against every other page, its mixture weight from the unlabelled pages), unless
 * an "other" component with start examples (a neighbour the user named) explains the page
 * better than the target examples do. A page's web margin is its log-likelihood under the
 * target examples minus that under the whole web (priors included: positive means the
 * examples explain it better). With web_gate finite too, an unlabelled page whose web
 * margin is below -web_gate never joins the target component (its z_d0 stays 0): EM
 * cannot drift into a neighbour topic whose pages the examples do not explain, however
 * many of them the crawl read.
 */
#define NBEM_TARGET    0 /* label of a target example page */
#define NBEM_OTHER     1 /* label of an "other" example page */
#define NBEM_UNLABELED 2 /* a page the crawl read */

#define NBEM_MAX_OTHER 64

struct nbem_params {
    uint32_t other_components; /* 1..NBEM_MAX_OTHER */
    uint32_t iterations;       /* EM iterations after the first M step (>= 1) */
    double alpha;              /* term smoothing, > 0 */
    double page_tokens;        /* a page counts as this many term occurrences at most (its
                                * counts scaled down, in both steps); 0: no cap */
    uint64_t seed;
    uint32_t web_start;       /* 1: the unlabelled pages the target examples explain better than
                               * the whole web start in the target component (below); 0: every
                               * unlabelled page starts in a random "other" one */
    double web_gate;          /* with web_start: unlabelled pages of a web margin below -web_gate
                               * never join the target (>= 0 nats; INFINITY: none) */
    double unlabelled_weight; /* an unlabelled page's counts weigh this much in the M step,
                               * (0, 1] (0: 1); the mixture weights count it whole (EM-λ,
                               * Nigam et al. 2000, section 5.3.1) */
};

/* The defaults chosen by measurement (docs/classifier.md). */
void nbem_params_default(struct nbem_params *p);

struct nbem_doc;

/*
 * Every page's web margin (above) into margin[0..n), as nbem_fit's web start computes it
 * (the examples against every other page, the labels as given): what sitejudge reads on
 * relevant example pages it leaves out, to choose web_gate. Errors as nbem_fit's.
 */
enum err nbem_web_margins(const struct nbem_params *p, const struct nbem_doc *docs, size_t n,
                          uint32_t n_terms, double *margin) WARN_UNUSED;

/* One page: distinct term ids (< n_terms) with their counts. Borrowed during nbem_fit. */
struct nbem_doc {
    const uint32_t *term;
    const uint32_t *count;
    uint32_t n;
    uint32_t label;      /* NBEM_TARGET, NBEM_OTHER or NBEM_UNLABELED */
    uint32_t start_comp; /* an "other" example's component (1..other_components), from the
                          * start on; 0: a seeded random one at the start, free after it */
};

struct nbem; /* a fit model: read-only, shareable by threads */

/*
 * Fit on n pages over term ids 0..n_terms-1. Needs at least one target page with a
 * term. ERR_INVAL for bad parameters or labels; *out is the caller's (nbem_free).
 */
enum err nbem_fit(const struct nbem_params *p, const struct nbem_doc *docs, size_t n,
                  uint32_t n_terms, struct nbem **out) WARN_UNUSED;

/* nbem_fit with the pages' web margins given (nbem_web_margins' of the same p, docs and
 * n_terms), not computed again: the same model. */
enum err nbem_fit_margins(const struct nbem_params *p, const struct nbem_doc *docs, size_t n,
                          uint32_t n_terms, const double *margin, struct nbem **out) WARN_UNUSED;
void nbem_free(struct nbem *m);

/*
 * A bag of fits (bagging, Breiman 1996): m becomes the mean of its fits and more's, which
 * it takes (freed with it; on an error, freed at once). One EM fit ends in one of many
 * local optima, and a website near the threshold goes one way or the other with it; the
 * mean of a few fits on the same pages is steadier. ERR_INVAL when their terms differ.
 */
enum err nbem_bag(struct nbem *m, struct nbem *more) WARN_UNUSED;
size_t nbem_fits(const struct nbem *m); /* 1: a model of one fit */

/*
 * Pr[target component | page] of a page given as term ids and counts (ids >= n_terms
 * are ignored); of a bag, the mean of its fits'. A page with no term gets the target's
 * prior. *known, if not NULL, receives the page's term occurrences the model knows (its
 * weight as evidence).
 */
double nbem_target(const struct nbem *m, const uint32_t *term, const uint32_t *count, uint32_t n,
                   uint32_t *known);

/*
 * Model bytes (stored in models.data, kind 'crawl'): "SSNBEM01", then n_terms and n_comp
 * (uint32), page_tokens and the n_comp log mixture weights (double), then the n_comp x
 * n_terms log term probabilities as float, all in the host's byte order. The model's
 * term ids are its caller's (job/jobjudge.c stores its vocabulary beside them). A bag's
 * fits one after another, the first first. nbem_deserialize checks the sizes and that
 * every value is finite; ERR_PARSE otherwise.
 */
#define NBEM_MAX_BYTES ((size_t)256 << 20)
enum err nbem_serialize(const struct nbem *m, struct buf *out) WARN_UNUSED;
enum err nbem_deserialize(const void *data, size_t len, struct nbem **out) WARN_UNUSED;

/* The target's share of the unlabelled pages (its mixture weight; a bag's first fit's); for
 * logs and reports. */
double nbem_target_prior(const struct nbem *m);
uint32_t nbem_terms(const struct nbem *m);
uint32_t nbem_components(const struct nbem *m); /* 1 + other_components */

#endif
