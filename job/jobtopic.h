/*
 * A job's topic as its user shapes it while it runs (issue 31): start websites added to
 * a running job (POST /api/jobs/{id}/seeds), and the body of the next job on the same
 * topic, with what this one was taught (GET /api/jobs/{id}/topic, `crawl --from-job`).
 */
#ifndef SITESCOUT_JOB_JOBTOPIC_H
#define SITESCOUT_JOB_JOBTOPIC_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/err.h"

struct store;

/* A seed as the job has it after jobtopic_add_seeds. */
struct jobtopic_seed {
    char host[256];
    char role[16];  /* start, or discovered/train... when it was known already */
    char state[16]; /* border: read next; examined, claimed, failed: as it was */
};

/*
 * Add the start websites of body ({"start_sites": [URL, ...]}, len bytes) to job, which
 * must not have ended (queued, training, crawling, stopping or paused): each joins the
 * border at the head (a website the crawl found on its border becomes a start site; one
 * it examined stays as it is) and the job's body lists it. *out (n of them, the caller's
 * free) says what each is now. ERR_NOTFOUND: no such job; ERR_CONFLICT: the job ended;
 * ERR_INVAL or ERR_PARSE: a bad body, or a seed that is one of the job's examples.
 */
enum err jobtopic_add_seeds(struct store *s, int64_t job, const char *body, size_t len,
                            struct jobtopic_seed **out, size_t *n) WARN_UNUSED;

/*
 * The body of a new job on job's topic, into out: its topic, params and start websites,
 * and its examples with every label added (relevant ones to relevant_sites, the others
 * to other_sites; a labelled start website leaves start_sites). A valid job body
 * (job/jobspec.h). ERR_NOTFOUND: no such job.
 */
enum err jobtopic_body(struct store *s, int64_t job, struct buf *out) WARN_UNUSED;

#endif
