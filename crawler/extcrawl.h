/*
 * The external crawler (paper §4.2, DESIGN §3.4): repeatedly takes the best-ranked
 * border website from PostgreSQL, examines it with an internal crawler (many at
 * once over the shared fetcher), records the verdict and feeds the website's
 * transversal links back into the border, until a stop condition holds.
 */
#ifndef SITESCOUT_CRAWLER_EXTCRAWL_H
#define SITESCOUT_CRAWLER_EXTCRAWL_H

#include <stdint.h>

#include "common/err.h"
#include "crawler/crawl.h"
#include "crawler/crawlrun.h"
#include "crawler/edges.h"
#include "crawler/sitecrawl.h"

struct store;
struct fetcher;
struct pagecls;

struct extcrawl_params {
    enum edges_weights weights;
    struct sitecrawl_params site; /* per website; prior_target is the starting prior */
    double p_err;
    int prior_harvest;  /* 1: the prior follows the harvest rate (paper §4.3.3) ... */
    int prior_sites;    /* ... counting the starting prior as this many sites; 0: fixed */
    int concurrency;    /* websites examined at once */
    int new_links_only; /* LinkRank counts links to websites the job does not know yet */
    int deepen_sites;   /* relevant websites kept for a deeper read of their links while
                         * the border runs low (crawler/deepen.h); 0: none */
    int linkrank_fixed; /* 1: LinkRank's threshold is l_threshold throughout (paper
                         * §4.3.4), and no website is read deeper (a deeper read goes on to
                         * the threshold grown as the border runs low); 0: it grows */
    /* site.model_conf (issue 30), when set, also judges each website examined: it weighs
     * its links by that confidence, and is relevant when the model and the examination
     * say so. */
};

/*
 * Crawl job c->job with c's fetcher, budgets and progress callback until a stop
 * condition (crawler/crawlrun); the border and everything found are in the store.
 * Claims are made under c->worker. Resumes where the job stands (claimed sites must
 * have been unclaimed). Progress is reported after websites are recorded, about once a
 * second otherwise, and at the end.
 */
enum err extcrawl_run(const struct crawlrun_config *c, const struct pagecls *model,
                      const struct extcrawl_params *p, enum crawl_stop *why) WARN_UNUSED;

#endif
