/*
 * The page crawlers, baselines for the website crawler (paper §3.2 and §5.1,
 * Figure 5; issue 8). One frontier of pages for the whole crawl, ordered by a
 * priority hook (pageorder_fn; a new page-ordering strategy is a new hook in
 * crawler/pageorder.h): page (the average Pr[p|target] of the downloaded pages linking
 * to it), bfs (the order found), bestfirst (the best linking page), history (the
 * history-path distance), hotwords (anchor text against the topic's key terms) and
 * relevance_degree (key phrases held by the linking page, seed 001) and weight_table
 * (seed 002's link score against a TF-IDF weight table, with its admission threshold)
 * and learning_anchor (an anchor classifier learned from the crawl's verdicts, seed 004)
 * and context_graph (the layer of the linking page, seeds 000 and 004).
 * The crawl runs on crawler/crawlrun (stop conditions, polls, metrics) as a strategy.
 * A guard stops taking pages from a website that already gave max_pages_per_site.
 * One page's links bring at most EDGES_PAGE_MAX_NEW websites the crawl did not know
 * (crawler/edges.h: a link flood's bound); links to known websites all count.
 * Website post-processing: the downloaded pages are grouped by website and each
 * website is judged from its pages, in download order, by the same website
 * classifier as the internal crawler (error-corrected Bayes up to p_threshold). A
 * website's verdict can change as more of its pages come in; the store always holds
 * the verdicts as they stand, so every strategy reports the same way (sites,
 * relevant_websites, job counters, metrics).
 *
 * The frontier starts from the job's border (start sites first, then the websites
 * the relevant training sites link to, at their rank); websites examined before
 * (training sites, or by an earlier run of the job) are not crawled. The frontier
 * lives in memory: a resumed page crawl starts a new one from the border.
 */
#ifndef SITESCOUT_CRAWLER_PAGECRAWL_H
#define SITESCOUT_CRAWLER_PAGECRAWL_H

#include <stdint.h>

#include "common/err.h"
#include "crawler/crawlrun.h"
#include "crawler/crawl.h"
#include "crawler/pageorder.h"

struct store;
struct fetcher;
struct pagecls;
struct hotwords;
struct keyphrases;
struct weighttable;
struct anchorcls;
struct ctxgraph;

struct pagecrawl_params {
    pageorder_fn priority; /* the frontier's order (crawler/pageorder.h) */
    double prior_target;   /* Pr[C_target] for a website ... */
    int prior_harvest;     /* ... or following the harvest rate (paper §4.3.3) */
    int prior_sites;
    double p_err;           /* the page classifier's error rate */
    double p_threshold;     /* the website classifier stops at max_k Pr >= this */
    int max_pages_per_site; /* the guard */
    int concurrency;        /* fetches in flight */
    /* Set: homepage post-processing instead (paper §3.2, "the simplest way"): a website
     * is relevant when its homepage was downloaded and this homepage classifier says
     * Pr[target] > 0.5; its confidence is that Pr (0.5 while its homepage is unread). */
    const struct pagecls *home_model;
    /* Set (strategy hotwords): each link's anchor text is read and scored against these
     * key terms (classifier/hotwords.h); used by the crawl's one thread only. */
    struct hotwords *hot;
    /* Set (strategy relevance_degree): each downloaded page's key phrases are counted
     * (lambda of seed 001 eq. 1, classifier/keyphrases.h) and its links take its degree
     * of relevance R with this rho; used by the crawl's one thread only. */
    struct keyphrases *keys;
    double rho;
    /* Set (relevance_degree): a link to the page's own host (host[:port]) carries the
     * page's R as rel_own, the others as rel_max, so that the priority can serve it after
     * every link to another host (seed 001 §2.1 disregards it); the crawl logs (info)
     * when it reads the first such link. */
    int own_host_last;
    /* Set (strategy weight_table): the topic's weight table (classifier/weighttable.h):
     * each page's relevancy, each link's anchor and URL words are scored against it (seed
     * 002), and a link joins the frontier only when its page's priority is above
     * admit_above (border pages always do); used by the crawl's one thread only. */
    struct weighttable *table;
    double admit_above;
    /* Set (strategy learning_anchor): the anchor classifier (classifier/anchorcls.h),
     * trained with the anchors that led to each downloaded page whose Pr[p|target] is
     * further than learn_margin from 0.5 (labelled by Pr > 0.5); every rescore_every
     * pages the frontier is scored again with it (seed 004, Algorithm 5). Used by the
     * crawl's one thread only. */
    struct anchorcls *learn;
    double learn_margin;
    int64_t rescore_every;
    /* Set (strategy context_graph): each downloaded page is put in a layer of this context
     * graph (classifier/ctxgraph.h) and its links join that layer's queue, at the
     * layer classifier's confidence (pageorder_layer_score; seed 000 §3.2, seed 004
     * §6.4). Read-only here. */
    const struct ctxgraph *ctx;
};

/* Crawl job c->job with c's fetcher, budgets and progress (crawler/crawlrun), as extcrawl_run. */
enum err pagecrawl_run(const struct crawlrun_config *c, const struct pagecls *model,
                       const struct pagecrawl_params *p, enum crawl_stop *why) WARN_UNUSED;

#endif
