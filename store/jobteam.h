/*
 * The runners of a job (issue 15): several processes, on one machine or many, examine
 * one job's websites together through PostgreSQL.
 *
 * A job has one lead, the holder of its lease (store/joblease.h): it trains the job,
 * writes its metrics rows and decides when it ends. Helpers join a job the lead is
 * crawling with the website crawler and examine websites beside it; they claim from
 * the same border (FOR UPDATE SKIP LOCKED, crawlstore_claim), so no website is examined
 * by two. Every runner, lead or helper, has a row in job_workers renewed about once a
 * second (the lease keeper's thread). A website claimed by a runner whose row is gone
 * or has not been renewed for runner_lease_seconds() (the site lease) goes back to the
 * border, to be examined by another: a killed process loses nothing but the pages it
 * had in flight.
 */
#ifndef SITESCOUT_STORE_JOBTEAM_H
#define SITESCOUT_STORE_JOBTEAM_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

struct store;

enum jobteam_role { JOBTEAM_LEAD, JOBTEAM_HELPER };

/* Join job as worker (or renew the row if it is there already). */
enum err jobteam_join(struct store *s, int64_t job, const char *worker,
                      enum jobteam_role role) WARN_UNUSED;

/* Renew worker's row. ERR_CONFLICT: it is gone (others took its websites: stop writing). */
enum err jobteam_renew(struct store *s, int64_t job, const char *worker) WARN_UNUSED;

/* Leave job (the run ended). Its claims should have been given back before. */
enum err jobteam_leave(struct store *s, int64_t job, const char *worker) WARN_UNUSED;

/*
 * The site leases that ran out: rows of runners not renewed for runner_lease_seconds(), or
 * of processes of this host that are gone, are removed, and every website the job has
 * claimed by a runner without a row goes back to the border. *count (may be NULL): how
 * many websites went back.
 */
enum err jobteam_reclaim(struct store *s, int64_t job, int *count) WARN_UNUSED;

/*
 * The page budget shared by a job's runners: worker keeps `keep` pages of its
 * allowance (pages it may download beyond those recorded in jobs.pages_downloaded) and
 * asks for up to `more`; *granted is how many of those the budget had left
 * (max_pages - pages_downloaded - the other runners' allowances), worker's allowance
 * becomes keep + *granted. In one transaction, the job's row locked, so two runners
 * are never granted the same pages. Rows of runners gone count until reclaimed.
 */
enum err jobteam_allow(struct store *s, int64_t job, const char *worker, int64_t max_pages,
                       int64_t keep, int64_t more, int64_t *granted) WARN_UNUSED;

/*
 * How much of the budget a runner asks to hold (the rule jobteam_allow's callers follow).
 * A lead that saw no other runner at its last poll is alone: it keeps what it holds and
 * asks for all the budget has left (*more = max_pages), so one process crawls as if there
 * were no team. Any other runner -- a helper always, even when it sees no lead (the lead
 * died: a new one must find pages to refill with), or a lead before its first poll or
 * beside others -- holds what its websites in flight may still need (committed) plus
 * JOBTEAM_SHARE_SITES websites' worth (site_pages) per website it may examine at once
 * (concurrency), but no more than its even part of what the budget has left (left
 * divided among it and the others; a website's worth at least), none when it has
 * nothing to start, and gives the rest back: a new lead beside a helper that held the
 * rest of the budget gets its part at the helper's next poll. Returns 1 when the runner
 * is alone.
 */
#define JOBTEAM_SHARE_SITES 2
struct jobteam_need {
    enum jobteam_role role;
    int polled;           /* the runner has polled the team once at least */
    int others;           /* live runners besides it at its last poll */
    int nothing_to_start; /* nothing in flight, the border empty, nothing to read deeper */
    int concurrency;      /* websites it may examine at once */
    int64_t max_pages;    /* the job's budget (> 0) */
    int64_t held;         /* its allowance now: pages granted and not recorded */
    int64_t committed;    /* of those, what its websites in flight may still need */
    int64_t site_pages;   /* a website's worth: what one may need to be decided */
    int64_t left;         /* max_pages less the job's pages recorded */
};
int jobteam_share(const struct jobteam_need *n, int64_t *keep, int64_t *more);

/* How many live runners job has besides worker, and the pages of the budget they hold
 * (their allowances; may be NULL). */
enum err jobteam_others(struct store *s, int64_t job, const char *worker, int *n,
                        int64_t *allowance) WARN_UNUSED;

/*
 * A job worker could help: crawling with a shareable strategy (website, homepage),
 * with a live lead, no stop or pause asked for, its page budget not spent, no WARC
 * capture (each process would write files of the same names), and not one of the
 * n_busy jobs in busy (those this process runs already). The job with the fewest
 * runners first, then the oldest. *job = 0 when there is none.
 */
enum err jobteam_pick(struct store *s, const int64_t *busy, size_t n_busy,
                      int64_t *job) WARN_UNUSED;

#endif
