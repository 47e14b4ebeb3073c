/* Website classifier: incremental error-corrected Bayes (DESIGN §3.2), LinkRank (§3.3). */
#ifndef SITESCOUT_CLASSIFIER_SITECLS_H
#define SITESCOUT_CLASSIFIER_SITECLS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/err.h"

/*
 * Two classes: target (relevant) and other. After each page p of website W with
 * page confidence x = Pr[p|target] (so Pr[p|other] = 1 - x):
 *   P'(p|target) = x (1 - p_err) + (1 - x) p_err
 *   P'(p|other)  = (1 - x)(1 - p_err) + x p_err
 *   Pr[target|W_t] = Pr[target] prod P'(p|target) / sum_k Pr[C_k] prod P'(p|C_k)
 * computed as sums of logs. A P' below SITECLS_MIN_LIKELIHOOD is raised to it, so
 * p_err = 0 with a page of confidence exactly 1 or 0 gives a near-certain, finite
 * posterior (never log 0 or NaN) that later pages can still move.
 * Classification stops at the first page where max_k Pr[C_k|W_t] >= p_threshold;
 * pages added after that do not change the result.
 */
#define SITECLS_MIN_LIKELIHOOD 1e-12

struct sitecls {
    double log_score[2]; /* ln Pr[C_k] + sum ln P'(p|C_k); [0] target, [1] other */
    double p_err;
    double p_threshold;
    double posterior; /* Pr[target|W_t] */
    unsigned pages;   /* pages used for the decision so far */
    bool decided;
};

/*
 * prior_target = Pr[target] in [0, 1] (raised/lowered to [1e-6, 1 - 1e-6] so both
 * classes stay possible), p_err in [0, 1], p_threshold in (0, 1].
 * ERR_INVAL (and s untouched) for anything else, NaN included.
 */
enum err sitecls_init(struct sitecls *s, double prior_target, double p_err,
                      double p_threshold) WARN_UNUSED;

/*
 * Add the next page's Pr[p|target] (values outside [0, 1] are clamped, NaN counts
 * as 0.5: no evidence). Returns true when the site is decided (now or before).
 */
bool sitecls_add_page(struct sitecls *s, double pr_target);

double sitecls_confidence(const struct sitecls *s); /* Pr[target|W_t]: confidence(W) once decided */
bool sitecls_relevant(const struct sitecls *s);     /* Pr[target|W_t] > Pr[other|W_t] */

/*
 * The verdict with an evidence floor (issue 14): relevant when Pr[target|W_t] > 1/2 and
 * either p_threshold was reached or at least min_pages pages were added. A website that
 * stays undecided on fewer pages than that is not relevant: the error correction above
 * bounds each page's weight but presumes several pages, and one page a little above 1/2
 * is no website's evidence. min_pages <= 1 gives sitecls_relevant.
 */
bool sitecls_relevant_min(const struct sitecls *s, unsigned min_pages);
bool sitecls_decided(const struct sitecls *s);
unsigned sitecls_pages(const struct sitecls *s);

/*
 * Prior Pr[target] for the next site of a job (DESIGN §3.2): the rate of relevant
 * sites among those examined, blended with `initial` as if `weight` sites at that
 * rate had been seen first (so the first few sites do not swing it), then kept in
 * [0.05, 0.95] so that neither class becomes unreachable.
 */
double sitecls_prior(unsigned relevant, unsigned examined, double initial, unsigned weight);

/*
 * LinkRank of the pages read so far (DESIGN §3.3, paper §4.3.4):
 *   LinkRank(W_t) = sum_p (Pr[p|target] |LT_p| + c) / Pr[target|W_t]
 * The sum is accumulated per page; the division uses the current site confidence,
 * floored at 1e-6.
 */
struct sitecls_linkrank {
    double sum;
    double c;
};

void sitecls_linkrank_init(struct sitecls_linkrank *lr, double c);
void sitecls_linkrank_add(struct sitecls_linkrank *lr, double pr_target, size_t n_transversal);
double sitecls_linkrank_value(const struct sitecls_linkrank *lr, double site_confidence);

#endif
