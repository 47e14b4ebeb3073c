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
#include "crawler/sitecrawl.h"

struct store;
struct fetcher;
struct pagecls;

enum extcrawl_weights { EXTCRAWL_GLOBAL, EXTCRAWL_LOCAL, EXTCRAWL_COMBINED };

/*
 * weight(V, W) of the aggregated link from examined site V to W (paper §4.2):
 * global = confidence(V, target); local = the mean Pr[p|target] of V's pages that
 * link to W (conf_sum / page_count); combined = their average.
 */
double extcrawl_edge_weight(enum extcrawl_weights mode, double site_confidence, double conf_sum,
                            int page_count);

/* "global", "local", "combined" -> mode; -1 for anything else. */
int extcrawl_weights_parse(const char *name);

struct extcrawl_params {
    enum extcrawl_weights weights;
    struct sitecrawl_params site; /* per website; prior_target is the starting prior */
    double p_err;
    int prior_harvest;        /* 1: the prior follows the harvest rate (paper §4.3.3) ... */
    int prior_sites;          /* ... counting the starting prior as this many sites; 0: fixed */
    int concurrency;          /* websites examined at once */
    int64_t max_pages;        /* 0 = no limit; likewise below */
    int64_t max_relevant;
    double max_seconds;
    int64_t pprs_window;      /* pages */
    double pprs_limit;        /* stop when the windowed pprs exceeds it; 0 = never */
    const char *worker;       /* name recorded on claimed sites */
};

/*
 * Crawl job `job` until a stop condition; the border and everything found are in
 * the store. Resumes where the job stands (claimed sites must have been unclaimed).
 * progress (may be NULL) is called after websites are recorded, about once a second
 * otherwise, and at the end.
 */
enum err extcrawl_run(struct store *s, int64_t job, struct fetcher *f, const struct pagecls *model,
                      const struct extcrawl_params *p, crawl_progress_fn progress, void *ctx,
                      enum crawl_stop *why) WARN_UNUSED;

#endif
