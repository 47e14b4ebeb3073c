/* `sitescout crawl`'s work: one crawl job run in the foreground, new or resumed. */
#ifndef SITESCOUT_CLI_FGCRAWL_H
#define SITESCOUT_CLI_FGCRAWL_H

#include <stdint.h>

/* What `sitescout crawl` was asked; every string is borrowed (from argv). */
struct fgcrawl_opts {
    const char *job_file; /* a new job from this file (of jobs keyed by topic: topic's) */
    const char *topic;
    const char *const *sets; /* "key=value" parameter overrides of the new job */
    int n_sets;
    int64_t resume;   /* or continue this job as stored (then no job_file, sets, topic) */
    int64_t from_job; /* or a new job on this job's topic, with its labels (job/jobtopic.h) */
    const char *proxy;
    const char *db_url;      /* NULL: $SITESCOUT_DB, else the embedded cluster */
    const char *labels_path; /* ground truth to score against, or NULL */
    const char *report;      /* write the JSON report here, or NULL */
    const char *warc_dir;    /* archive every fetch as WARC files here, or NULL */
    uint64_t warc_max_size;  /* rotate them past this size; 0: 1 GiB */
};

/*
 * Create (or take up) the job and run it to its end, showing progress (cli/crawlui.h);
 * SIGINT and SIGTERM ask it to stop, a second one exits at once. Prints its errors as
 * "sitescout crawl: ..."; returns the exit status (CLI_OK when the job ends done or
 * paused, CLI_FAIL, or CLI_USAGE for a bad job file, --set or labels).
 */
int fgcrawl_run(const struct fgcrawl_opts *o);

#endif
