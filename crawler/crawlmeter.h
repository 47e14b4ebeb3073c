/*
 * The figures of a running crawl, whatever the strategy: pages downloaded, websites
 * examined and found relevant, the harvest rate and pprs overall and over the last
 * pprs_window pages, the budget stop conditions, the metrics rows and a user's stop
 * or pause request. The external crawler and the page crawlers share it, so that
 * every strategy reports the same way (DESIGN §3.4, issue 8).
 */
#ifndef SITESCOUT_CRAWLER_CRAWLMETER_H
#define SITESCOUT_CRAWLER_CRAWLMETER_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "crawler/crawl.h"

struct store;
struct joblease_keeper;

struct crawlmeter_limits {
    int64_t max_pages; /* 0 = no limit; likewise below */
    int64_t max_relevant;
    double max_seconds;
    int64_t pprs_window; /* pages */
    double pprs_limit;   /* stop when the windowed pprs exceeds it; 0 = never */
};

struct crawlmeter_point {
    int64_t pages, examined, relevant;
};

struct crawlmeter {
    struct crawlmeter_limits lim;
    double t0;
    int64_t pages, examined, relevant; /* set by the crawler, then crawlmeter_mark */
    int64_t border, in_flight;         /* for the progress report only */
    int64_t robots_requests, retries;  /* ... likewise */
    int64_t pages_unrecorded;          /* downloaded for work not recorded yet (max_pages) */
    struct crawlmeter_point *win;      /* ring of marks, for the windowed rates */
    size_t win_first, win_len;
    double written_t;      /* the last metrics row: when, ... */
    int64_t written_pages; /* ... at how many pages */
    int lease_lost;        /* another worker runs the job now: nothing more is written */
    /* A job crawled by several runners (store/jobteam.h): how many others were live at
     * the last poll (the counters above are then the job's, all runners together), and
     * how many polls there were. */
    int team;
    uint64_t polls;
    /* The page requests this run made, and how many of them jobs.requests counts already
     * (crawlmeter_request), in the store given by crawlmeter_ledger (NULL: none). */
    int64_t requests, requests_counted;
    struct store *ledger;
    int64_t ledger_job;
};

/* How many page requests a runner counts in jobs.requests at once, ahead of making them. */
#define CRAWLMETER_REQUESTS_AHEAD 32

/* A metrics row is due every CRAWLMETER_ROW_MS, or every CRAWLMETER_ROW_PAGES pages. */
#define CRAWLMETER_ROW_MS    2000
#define CRAWLMETER_ROW_PAGES 50

/*
 * Start counting from the job's stored counters. A resumed crawl passes what its earlier
 * runs recorded: the marks of its last window (oldest first), so that the windowed rates
 * go on over them, and the elapsed time, so that it goes on from there too.
 */
enum err crawlmeter_init(struct crawlmeter *m, const struct crawlmeter_limits *lim, int64_t pages,
                         int64_t examined, int64_t relevant, const struct crawlmeter_point *past,
                         size_t n_past, double elapsed_s) WARN_UNUSED;
void crawlmeter_release(struct crawlmeter *m);

/* Record the counters as they are now (after a website or a page). */
void crawlmeter_mark(struct crawlmeter *m);

/* Hand the progress as it stands to fn (if any); set in_flight and border first. */
void crawlmeter_report(const struct crawlmeter *m, enum crawl_stop stop, crawl_progress_fn fn,
                       void *ctx);

/* Which budget (pages, relevant sites, seconds, windowed pprs) is used up, if any. */
enum crawl_stop crawlmeter_budget_stop(const struct crawlmeter *m);

/* Is a metrics row due (see CRAWLMETER_ROW_MS)? */
int crawlmeter_row_due(const struct crawlmeter *m);

/*
 * Every page request of a crawl is counted in jobs.requests (docs/api.md: `requests`),
 * pages fetched again after a kill -9 included: crawlmeter_ledger names the store and
 * the job; crawlmeter_request is called before each page request is made, and counts
 * CRAWLMETER_REQUESTS_AHEAD more in the store when those counted are used up, so that a
 * process killed at any moment has counted every request it made (and at most that many
 * more); crawlmeter_requests_settle, at the run's end, takes back those counted and not
 * made. Without a ledger the requests are only counted here.
 */
void crawlmeter_ledger(struct crawlmeter *m, struct store *s, int64_t job);
enum err crawlmeter_request(struct crawlmeter *m) WARN_UNUSED;
enum err crawlmeter_requests_settle(struct crawlmeter *m) WARN_UNUSED;

/* Write a metrics row for the job. */
enum err crawlmeter_write(struct crawlmeter *m, struct store *s, int64_t job) WARN_UNUSED;

/*
 * The crawl's regular look at the job (about once a second): a user's stop or pause,
 * the job's lease (lost: CRAWL_LEASE_LOST; NULL: not watched), and a progress report
 * (set in_flight and border first). Returns the stop reason, or stop as it was.
 */
enum crawl_stop crawlmeter_poll(const struct crawlmeter *m, struct store *s, int64_t job,
                                const struct joblease_keeper *lease, enum crawl_stop stop,
                                crawl_progress_fn fn, void *ctx);

#endif
