/*
 * The website classifier evaluation behind `sitescout eval` (paper §5.2, Table 2).
 *
 * Training pages are collected with crawler/trainset (first k BFS pages of each of
 * the job's relevant_sites and other_sites). Then, by mode:
 *   - EVALUATE_CV: k-fold cross-validation over the training websites. For each fold
 *     a page classifier is trained on the other folds' pages (its p_err from its own
 *     page cross-validation) and a homepage classifier on their homepages; each
 *     held-out website is classified (a) by the internal crawler (crawler/sitecrawl,
 *     best-first from the homepage, stopping at p_threshold or the page cap, no
 *     LinkRank continuation) and (b) by the homepage classifier on its homepage.
 *   - EVALUATE_HELDOUT: both classifiers trained on all training websites, applied to
 *     every site whose role for the topic is `test` in the labels (relevant iff its
 *     topic is the job's topic). With the job's judge crawl_model (1), the website
 *     verdicts are then the crawl model's, as a crawl gives them (job/jobjudge.h,
 *     classifier/sitejudge.h, jobjudge_params_default): fit on the training websites'
 *     pages (labelled) and the pages the internal crawler read of the held-out websites
 *     (unlabelled), the threshold from spies; a held-out website is relevant when its
 *     score passes the threshold (no veto by its examination, no min_pages gate).
 * The websites are examined concurrently through one fetcher (one fetch in flight per
 * site); nothing is written anywhere.
 *
 * Ownership: evaluate_run hands out a result the caller frees with evaluate_result_free.
 */
#ifndef SITESCOUT_EVAL_EVALUATE_H
#define SITESCOUT_EVAL_EVALUATE_H

#include <stddef.h>

#include "classifier/pagecls.h"
#include "common/err.h"
#include "crawler/fetch.h"
#include "eval/evalstats.h"
#include "job/jobspec.h"
#include "eval/labels.h"

enum evaluate_mode { EVALUATE_CV, EVALUATE_HELDOUT };

/* One fetch of a website's examination, in order. */
struct evaluate_page {
    char *url;
    enum fetch_status status;
    double pr_target; /* Pr[p|target]; NaN when not classified */
    char *terms;      /* with the crawl model: its term counts (classifier/termvec.h); NULL
                       * when not classified or without it */
};

/* One evaluated website. */
struct evaluate_site {
    char *homepage;
    int truth; /* relevant by the ground truth */
    int fold;  /* its cross-validation fold; -1 in EVALUATE_HELDOUT */
    /* (a) the website classifier (internal crawler) */
    int relevant;
    double confidence; /* Pr[target|W] */
    int decided;       /* reached p_threshold before the page cap / the site's end */
    unsigned pages_to_decide;
    int pages;      /* fetches the examination cost (an offsite homepage redirect included) */
    int redirected; /* the homepage redirected to another host, which was examined */
    double p_err;   /* of the page classifier used */
    struct evaluate_page *trace; /* the examination's fetches (after a followed redirect) */
    size_t n_trace;
    /* with the crawl model (evaluate_result.judge): relevant and confidence are its */
    double score;          /* its score (sitejudge_score); NaN: no page with a known term */
    int examined_relevant; /* (a)'s verdict */
    char **links;          /* the hosts its pages read link to (with the crawl model) */
    size_t n_links;
    double link_evidence; /* its links' to and from the other held-out websites
                           * (classifier/linkjudge.h); NaN: none */
    int listed;           /* a crawl's rule: the same judging with its examination's "not
                           * relevant" weighed as a crawl's judging weighs it */
    /* (b) the homepage classifier */
    double home_pr;    /* Pr[homepage|target]; NaN when the homepage could not be read */
    int home_relevant; /* home_pr > 0.5 */
};

/* One training website as collected. */
struct evaluate_train_site {
    char *homepage;
    int relevant;
    size_t pages;   /* training pages read */
    int fetches;    /* fetch attempts */
    int redirected; /* the homepage redirected to another host, which was read */
};

struct evaluate_result {
    enum evaluate_mode mode;
    unsigned folds; /* EVALUATE_CV: folds used */
    double prior_target;
    int page_cap;       /* fetches per site at most: min(max_pages_to_decide, max_pages_per_site);
                         * with the crawl model, max_pages_per_site (a crawl's cap) */
    double l_threshold; /* LinkRank read to after the verdict: 0 (the paper's Table 2), the
                         * job's l_threshold with the crawl model (a crawl's reading) */
    /* training data */
    size_t train_sites;    /* training websites with at least one page */
    size_t train_relevant; /* ... of which relevant */
    size_t train_pages;
    struct evaluate_train_site *train; /* every training website, in job order */
    size_t n_train;
    char **excluded; /* training homepages that gave no page (not used) */
    size_t n_excluded;
    struct pagecls_cv page_cv; /* page CV of the model trained on all training sites */
    struct pagecls *model;     /* that model (all training sites): e.g. for saving */
    /* evaluation */
    struct evaluate_site *sites;
    size_t n_sites;
    struct evalstats website, homepage;
    double pages_per_site;       /* mean fetches per evaluated site */
    double pages_to_decide;      /* mean pages classified until the decision */
    size_t decided;              /* sites that reached p_threshold */
    size_t no_homepage;          /* sites whose homepage could not be read */
    double p_err_mean;           /* mean p_err of the page classifiers used */
    int judge;                   /* the job's judge: 0 the examination (a), 1 the crawl model */
    struct {                     /* with the crawl model */
        size_t pages;            /* learnt from */
        size_t unlabelled_pages; /* of them, the held-out websites' */
        uint32_t terms;
        double threshold, target_prior;
        size_t spies;
        double web_gate; /* the fit's web gate in nats (INFINITY: none) */
        size_t unscored; /* held-out websites with no page of a known term (not relevant) */
        /* the verdicts a crawl gives: the crawl model's and the examination's, both relevant
         * (job/jobjudge.c's rule) */
        struct evalstats with_examination;
    } crawl;
    double seconds_collect, seconds_train, seconds_classify, seconds_judge;
    struct fetch_stats fetch;
};

/* Phases reported to the progress callback. */
enum evaluate_phase { EVALUATE_COLLECT, EVALUATE_TRAIN, EVALUATE_CLASSIFY };

/*
 * done/total: pages read of those expected (COLLECT), models trained (TRAIN), sites
 * finished (CLASSIFY); pages = fetch results so far. Nonzero stops the run
 * (ERR_INTERRUPT).
 */
typedef int (*evaluate_progress_fn)(void *ctx, enum evaluate_phase phase, size_t done, size_t total,
                                    size_t pages);

struct evaluate_opts {
    enum evaluate_mode mode;
    const struct labels *labels; /* needed for EVALUATE_HELDOUT */
    struct fetch_config fetch;   /* proxy etc.; delay and max_in_flight come from the job */
    evaluate_progress_fn progress;
    void *progress_ctx;
};

enum err evaluate_run(const struct jobspec *job, const struct evaluate_opts *o,
                      struct evaluate_result **out) WARN_UNUSED;
void evaluate_result_free(struct evaluate_result *r);

/* Pages per website when max_pages_to_decide is 0 (docs/eval.md). */
#define EVALUATE_DEFAULT_BUDGET 7

#endif
