/*
 * A job's crawl under any strategy (DESIGN §3.4): the stop conditions (a budget
 * spent, nothing left to crawl, a user's stop or pause), the regular look at the job
 * row (heartbeat, requests), the progress reports and the metrics rows, on the one
 * refill loop (crawler/crawlloop). A strategy supplies only what differs: how it
 * picks and submits work, what it makes of a result, what it holds in flight and
 * what it keeps in memory between writes. The website crawler (extcrawl) and the
 * page crawlers (pagecrawl) are strategies; a new one is a new struct crawl_strategy.
 *
 * The page budget is hard (pages_downloaded never passes max_pages): a strategy does
 * not start what the budget cannot pay for, and gives back what it cannot finish
 * within it (the website crawler puts such a website back on the border unjudged).
 * Other budgets let the work in flight finish. A user's stop or pause does not: the
 * strategy's finish hook gives back what it still holds. Every page downloaded counts,
 * for work given back too.
 */
#ifndef SITESCOUT_CRAWLER_CRAWLRUN_H
#define SITESCOUT_CRAWLER_CRAWLRUN_H

#include <stdatomic.h>
#include <stdint.h>

#include "common/err.h"
#include "crawler/crawl.h"
#include "crawler/crawlmeter.h"

struct store;
struct fetcher;
struct joblease_keeper;
struct fetch_result;
struct crawlstore_counts;

struct crawl_strategy {
    /*
     * Before the first refill: the meter starts from the job's stored counters c;
     * the strategy keeps m to count what it does (pages, examined, relevant).
     */
    enum err (*start)(void *st, struct crawlmeter *m, const struct crawlstore_counts *c);
    /*
     * Submit more work. When it cannot, set *blocked to why: CRAWL_BORDER_EMPTY
     * (nothing left) or CRAWL_MAX_PAGES (the budget cannot pay for more work); the
     * crawl ends once nothing is in flight.
     */
    enum err (*refill)(void *st, enum crawl_stop *blocked);
    /* A finished fetch of ours (freed by the loop afterwards). */
    enum err (*feed)(void *st, struct fetch_result *r);
    /* Work in flight: websites being examined, or pages being fetched. */
    int64_t (*in_flight)(void *st);
    /* Pages downloaded, or on their way, for work not counted in the meter yet (NULL:
     * none): the page budget stops new work when meter + these reach max_pages. */
    int64_t (*unrecorded_pages)(void *st);
    /* The border's size (NULL: the store's count, read at every poll). */
    int64_t (*border)(void *st);
    /* Write what is kept in memory (NULL: everything is stored as it happens). */
    enum err (*flush)(void *st);
    /* At the end, whatever happened: give back the work still held, adding the pages
     * it cost to the meter (the final metrics row follows). May be NULL. */
    void (*finish)(void *st);
    /* Several runners may crawl one job with it (store/jobteam.h): every count it makes
     * is stored as it happens, and it claims its work from the store. */
    int shared;
};

struct crawlrun_config {
    struct store *s;
    int64_t job;
    struct fetcher *f;
    const char *worker; /* the lease holder's name, on the strategy's claims */
    /* The job's lease, renewed beside the run (store/joblease.h); a lost lease stops the
     * crawl with CRAWL_LEASE_LOST. NULL: no lease watched. */
    const struct joblease_keeper *lease;
    /* A helper (store/jobteam.h) examines websites beside the job's lead: it writes no
     * metrics rows, never ends the job, and leaves (CRAWL_LEFT) once the job is no
     * longer crawling. */
    int helper;
    /* Set by another thread when this runner is to leave the job (CRAWL_LEFT), its work
     * in flight given back; NULL: never. */
    const atomic_int *quit;
    struct crawlmeter_limits limits;
    crawl_progress_fn progress; /* may be NULL */
    void *ctx;
    /*
     * The lead's looks back (issue 30, job/jobjudge.h): once the job has judge_at pages
     * (0: only at the end), then at each doubling, and once more when the crawl ends with
     * judge_at pages or more (but not when its runner leaves it or lost its lease),
     * judge(ctx, &relevant) judges the job's
     * examined websites again, after the verdicts in memory are written, and answers how
     * many are relevant now (the meter's count from then on; -1: it did not judge). NULL:
     * never. A helper
     * never judges. A failure is logged; the crawl goes on.
     */
    enum err (*judge)(void *ctx, int final, int64_t *relevant); /* final: the crawl's end */
    int64_t judge_at;
    /* Asked by the lead four times a second, with judge: 1 when
     * the job should be judged now, whatever its pages (its user labelled websites:
     * store/labelstore.h). NULL: never. */
    int (*judge_due)(void *ctx);
};

/*
 * Crawl c->job with strategy st (its state sctx) until a stop condition; *why says
 * which. Errors of the store or the strategy are returned (the finish hook has run).
 */
enum err crawlrun_run(const struct crawlrun_config *c, const struct crawl_strategy *st, void *sctx,
                      enum crawl_stop *why) WARN_UNUSED;

#endif
