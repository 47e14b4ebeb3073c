/*
 * The read (and small write) queries of the HTTP API. Results are JSON texts built by
 * PostgreSQL itself (json_build_object), so that no row is copied twice.
 * Built on store.h only; all values are passed as statement parameters.
 *
 * Ownership: every char **json out is malloc'd; the caller frees it.
 */
#ifndef SITESCOUT_STORE_APISTORE_H
#define SITESCOUT_STORE_APISTORE_H

#include <stdint.h>

#include "common/buf.h"
#include "common/err.h"

struct store;

/* {"jobs": [job...], "total": N}, newest first. */
enum err apistore_jobs(struct store *s, const char *state, int64_t limit, int64_t offset,
                       char **json) WARN_UNUSED;

/* One job: state, phase, params, counters, rates, progress, error. ERR_NOTFOUND. */
enum err apistore_job(struct store *s, int64_t id, char **json) WARN_UNUSED;

/* The order of a list of sites: best first, highest border rank first, oldest first, or
 * least sure first (confidence nearest 1/2: where a user's label changes most). */
enum apistore_order {
    APISTORE_BY_CONFIDENCE,
    APISTORE_BY_RANK,
    APISTORE_BY_FOUND,
    APISTORE_BY_UNSURE
};

/*
 * {"sites": [...], "total": N}: the examined websites of a job (training sites
 * excluded); relevant < 0 all, 0 irrelevant only, 1 relevant only; role NULL both,
 * else "discovered" or "start" only. ERR_NOTFOUND when the job does not exist.
 */
enum err apistore_sites(struct store *s, int64_t job, int relevant, const char *role,
                        enum apistore_order order, int64_t limit, int64_t offset,
                        char **json) WARN_UNUSED;

/* One site of a job with its pages and edges (out and in). ERR_NOTFOUND. */
enum err apistore_site(struct store *s, int64_t job, const char *host, char **json) WARN_UNUSED;

/*
 * A site's verdict explained (issue 17): the pages the internal crawler read, in order,
 * each with its Pr[page | target] and the website's posterior after it (as stored at
 * crawl time; null for jobs crawled before), how the verdict was reached and why the
 * reading stopped, the job's p_threshold and edge-weight mode, and the links that
 * brought the crawl there (edges_in, each with its stored weight); for a training
 * website, "training" (its label, the list it came from, its pages' classifier
 * confidences), else null. ERR_NOTFOUND when the job or the site does not exist.
 */
enum err apistore_site_pages(struct store *s, int64_t job, const char *host,
                             char **json) WARN_UNUSED;

/*
 * {"border": [...], "total": N, "limit": L}: the websites waiting on the border, in the
 * order the crawl claims them (best rank first). ERR_NOTFOUND when the job does not exist.
 */
enum err apistore_border(struct store *s, int64_t job, int64_t limit, char **json) WARN_UNUSED;

/* {"metrics": [...]}: the job's time series with elapsed_s > since. ERR_NOTFOUND. */
enum err apistore_metrics(struct store *s, int64_t job, double since, char **json) WARN_UNUSED;

/* Delete a job and everything of it. ERR_NOTFOUND; ERR_CONFLICT while it runs. */
enum err apistore_job_delete(struct store *s, int64_t job) WARN_UNUSED;

/*
 * End a job that is not running (queued or paused) as done (stop_reason user_stop).
 * *ended is 0 when the job was in another state (then nothing changed).
 */
enum err apistore_job_end(struct store *s, int64_t job, int *ended) WARN_UNUSED;

/*
 * Make a paused job runnable again: state crawling with no worker, which the
 * scheduler of `sitescout serve` picks up. ERR_CONFLICT unless paused.
 */
enum err apistore_job_resume(struct store *s, int64_t job) WARN_UNUSED;

/* Append the Prometheus text exposition of every job's counters to out. */
enum err apistore_prometheus(struct store *s, struct buf *out) WARN_UNUSED;

#endif
