/*
 * Running a crawl job (DESIGN §3.4, the crawler issue): queued -> training (fetch the
 * training websites, train the page classifier, cross-validate p_err, store the model,
 * record the training sites and seed the border) -> crawling (the external crawler)
 * -> done, or paused / failed. Everything is in PostgreSQL, so a job that was running
 * when its process died is resumed by running it again: sites claimed but not finished
 * go back to the border, nothing stored is lost, no site is examined twice.
 */
#ifndef SITESCOUT_JOB_JOBRUN_H
#define SITESCOUT_JOB_JOBRUN_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "crawler/crawl.h"

struct store;

enum jobrun_phase { JOBRUN_TRAINING, JOBRUN_CRAWLING };

struct jobrun_progress {
    enum jobrun_phase phase;
    size_t train_pages_done, train_pages_expected; /* training */
    struct crawl_progress crawl;                   /* crawling */
};

typedef void (*jobrun_progress_fn)(void *ctx, const struct jobrun_progress *p);

struct fetch_pool;

struct jobrun_options {
    struct fetch_pool *pool;     /* fetch through this shared pool (sitescout serve), or NULL: */
    const char *proxy;           /* a pool of its own; HTTP proxy for every fetch, or NULL */
    const char *worker;          /* name recorded on claimed sites; default host:pid */
    jobrun_progress_fn progress; /* may be NULL */
    void *ctx;
    /*
     * WARC capture (crawler/warcwrite.h): into warc_dir, as files
     * sitescout-job-ID-NNNNN.warc.gz of at most warc_max_size bytes (0: 1 GiB), every
     * job (warc_all, `sitescout crawl --warc-dir`) or jobs with params.warc (`serve`).
     * A job with params.warc fails when warc_dir is NULL.
     */
    const char *warc_dir;
    uint64_t warc_max_size;
    int warc_all;
    /* Set by another thread when the runner is to leave its job: a helper gives back
     * its websites and returns; NULL: never (store/jobteam.h). */
    const atomic_int *quit;
};

struct jobspec;

/*
 * Store a new job (state queued) for js: its canonical body, which jobrun_run reads
 * the parameters from, and the parameters spelled out. *id is the new job's.
 */
enum err jobrun_create(struct store *s, const struct jobspec *js, int64_t *id) WARN_UNUSED;

/*
 * The same for a job this process runs at once (jobrun_run without o->worker: `crawl`,
 * `experiment`): its lease is this process's from the start, so that a serve or a
 * worker on the same database cannot take the queued job up before jobrun_run does.
 */
enum err jobrun_create_here(struct store *s, const struct jobspec *js, int64_t *id) WARN_UNUSED;

/*
 * Run job `id` from wherever it stands until it is done, paused or failed. On
 * return *stop says why the crawl ended (CRAWL_RUNNING if it never got there).
 * A failure is also recorded in the job (state failed, error). Errors of the
 * database itself are returned.
 */
enum err jobrun_run(struct store *s, int64_t id, const struct jobrun_options *o,
                    enum crawl_stop *stop) WARN_UNUSED;

/*
 * Examine job `id`'s websites beside its lead (store/jobteam.h), a helper: from the
 * stored model, claiming from the job's border, until the job is no longer crawling,
 * its budget is spent (*stop says), or o->quit is set (CRAWL_LEFT). ERR_CONFLICT when
 * the job is not a crawling website-level job. The job's state is never changed here.
 */
enum err jobrun_help(struct store *s, int64_t id, const struct jobrun_options *o,
                     enum crawl_stop *stop) WARN_UNUSED;

#endif
