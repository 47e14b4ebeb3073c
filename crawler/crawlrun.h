/*
 * A job's crawl under any strategy (DESIGN §3.4): the stop conditions (a budget
 * spent, nothing left to crawl, a user's stop or pause), the regular look at the job
 * row (heartbeat, requests), the progress reports and the metrics rows, on the one
 * refill loop (crawler/crawlloop). A strategy supplies only what differs: how it
 * picks and submits work, what it makes of a result, what it holds in flight and
 * what it keeps in memory between writes. The website crawler (extcrawl) and the
 * page crawlers (pagecrawl) are strategies; a new one is a new struct crawl_strategy.
 *
 * A budget lets the work in flight finish (no verdict is cut short); a user's stop or
 * pause does not: the strategy's finish hook gives back what it still holds.
 */
#ifndef SITESCOUT_CRAWLER_CRAWLRUN_H
#define SITESCOUT_CRAWLER_CRAWLRUN_H

#include <stdint.h>

#include "common/err.h"
#include "crawler/crawl.h"
#include "crawler/crawlmeter.h"

struct store;
struct fetcher;
struct fetch_result;
struct crawlstore_counts;

struct crawl_strategy {
    /*
     * Before the first refill: the meter starts from the job's stored counters c;
     * the strategy keeps m to count what it does (pages, examined, relevant).
     */
    enum err (*start)(void *st, struct crawlmeter *m, const struct crawlstore_counts *c);
    /* Submit more work. Set *exhausted when there is nothing left to submit. */
    enum err (*refill)(void *st, int *exhausted);
    /* A finished fetch of ours (freed by the loop afterwards). */
    enum err (*feed)(void *st, struct fetch_result *r);
    /* Work in flight: websites being examined, or pages being fetched. */
    int64_t (*in_flight)(void *st);
    /* Pages downloaded for work not counted in the meter yet (NULL: none). */
    int64_t (*unrecorded_pages)(void *st);
    /* The border's size (NULL: the store's count, read at every poll). */
    int64_t (*border)(void *st);
    /* Write what is kept in memory (NULL: everything is stored as it happens). */
    enum err (*flush)(void *st);
    /* At the end, whatever happened: give back the work still held. May be NULL. */
    void (*finish)(void *st);
};

struct crawlrun_config {
    struct store *s;
    int64_t job;
    struct fetcher *f;
    const char *worker; /* recorded in the heartbeat (and by the strategy on claims) */
    struct crawlmeter_limits limits;
    crawl_progress_fn progress; /* may be NULL */
    void *ctx;
};

/*
 * Crawl c->job with strategy st (its state sctx) until a stop condition; *why says
 * which. Errors of the store or the strategy are returned (the finish hook has run).
 */
enum err crawlrun_run(const struct crawlrun_config *c, const struct crawl_strategy *st, void *sctx,
                      enum crawl_stop *why) WARN_UNUSED;

#endif
