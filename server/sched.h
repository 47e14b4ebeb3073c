/*
 * Internal to server/: the job scheduler of `sitescout serve`: worker threads that take runnable
 * jobs (queued, resumed, or left training or crawling by a dead process), oldest first, each with
 * its lease (store/joblease.h), so that no job runs twice across threads, processes and machines,
 * and run them with jobrun_run; a worker with no job of its own helps another process crawl one
 * (jobrun_help, store/jobteam.h). All fetch through one shared fetch pool, the caller's (cli/ makes
 * it: the server layer makes no fetcher, docs/architecture.md). Stopping pauses the running jobs,
 * which the next start resumes.
 *
 * Ownership: sched_new hands out a struct sched the caller frees with sched_free; the
 * strings and the pool of its struct sched_config are borrowed for the scheduler's life.
 */
#ifndef SITESCOUT_SERVER_SCHED_H
#define SITESCOUT_SERVER_SCHED_H

#include <stdint.h>

#include "common/err.h"

#define SCHED_MAX_WORKERS 64

struct sched;
struct fetch_pool;

struct sched_config {
    const char *db_url; /* each worker opens its own connection */
    int workers;        /* jobs run at once, 0..SCHED_MAX_WORKERS */
    /* The fetch pool every job fetches through (crawler/fetch.h's fetch_pool_new: its
     * proxy and transfers in flight for all jobs together). */
    struct fetch_pool *pool;
    /* WARC capture for jobs with params.warc (NULL: none); rotation size, 0: 1 GiB. */
    const char *warc_dir;
    uint64_t warc_max_size;
};

/* Make the scheduler; no thread runs yet. */
enum err sched_new(const struct sched_config *c, struct sched **out) WARN_UNUSED;

/* Start the workers. On failure the ones started stop again in sched_free. */
enum err sched_start(struct sched *sc) WARN_UNUSED;

/* Ask the workers to stop: each pauses its job and ends. Returns at once. */
void sched_stop(struct sched *sc);

/* Stop, wait for the workers, free. NULL is fine. */
void sched_free(struct sched *sc);

#endif
