/*
 * The vocabulary every crawl strategy shares (the website crawler, the page crawlers):
 * why a crawl stopped and the progress it reports.
 */
#ifndef SITESCOUT_CRAWLER_CRAWL_H
#define SITESCOUT_CRAWLER_CRAWL_H

#include <stdint.h>

enum crawl_stop {
    CRAWL_RUNNING,
    CRAWL_MAX_RELEVANT, /* max_relevant_sites found */
    CRAWL_MAX_PAGES,    /* max_pages downloaded */
    CRAWL_MAX_SECONDS,  /* max_seconds spent */
    CRAWL_BORDER_EMPTY, /* nothing left to examine */
    CRAWL_PPRS,         /* windowed pprs above pprs_limit */
    CRAWL_USER_STOP,    /* stop requested */
    CRAWL_USER_PAUSE,   /* pause requested */
    CRAWL_LEASE_LOST,   /* another worker took the job over (store/joblease.h): stop, write
                         * nothing more */
    CRAWL_LEFT,         /* this runner left a job others go on with: a helper whose job
                         * ended, or whose process stops (store/jobteam.h) */
    CRAWL_STOP_COUNT
};

/* Stable name of a stop reason ("max_pages", ...), as stored in jobs.stop_reason. */
const char *crawl_stop_name(enum crawl_stop s);

struct crawl_progress {
    double elapsed_s;
    int64_t pages, examined, relevant, border, in_flight;
    int64_t robots_requests; /* robots.txt fetches of this run: apart from pages */
    int64_t retries;         /* pages asked again after a transient failure (fetch.h) */
    double harvest_rate, harvest_window, pprs, pprs_window; /* NaN when undefined */
    enum crawl_stop stop;
};

typedef void (*crawl_progress_fn)(void *ctx, const struct crawl_progress *p);

#endif
