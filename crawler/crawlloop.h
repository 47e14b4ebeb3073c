/*
 * The one refill loop every crawl runs over a fetcher (the shape of curl's
 * docs/examples/10-at-a-time.c): let the strategy submit what it can, wait for a
 * result, hand it and those already waiting (a bounded batch) to the strategy, give
 * the strategy its regular look at the world, and again, until the strategy is
 * finished. The website crawler, the page crawlers (through crawler/crawlrun),
 * training-set collection and the evaluation's internal crawls all run on it; a new
 * strategy is a new set of hooks, not a new loop.
 *
 * The hooks are called on the caller's thread, one at a time. A hook's error ends
 * the loop and is returned.
 */
#ifndef SITESCOUT_CRAWLER_CRAWLLOOP_H
#define SITESCOUT_CRAWLER_CRAWLLOOP_H

#include "common/err.h"

struct fetcher;
struct fetch_result;

struct crawlloop_hooks {
    /* Submit whatever can be submitted now (may be NULL: the feed hook submits). */
    enum err (*refill)(void *ctx);
    /* Nonzero when the crawl is over; asked after every refill. */
    int (*finished)(void *ctx);
    /* A finished fetch of ours; the loop frees it afterwards. */
    enum err (*feed)(void *ctx, struct fetch_result *r);
    /*
     * After every batch of results, and at least every CRAWLLOOP_WAIT_MS while
     * nothing arrives: reports, polls, flushes. May be NULL.
     */
    enum err (*tick)(void *ctx);
};

#define CRAWLLOOP_WAIT_MS 200 /* longest wait for a result before a tick */
#define CRAWLLOOP_BATCH   32  /* results fed between two ticks at most */

/* Run the loop on f until hooks->finished says so or a hook fails. */
enum err crawlloop_run(struct fetcher *f, const struct crawlloop_hooks *hooks,
                       void *ctx) WARN_UNUSED;

#endif
