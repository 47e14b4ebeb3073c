/*
 * What a job's examples are worth, said before the crawl (issue 30): a job with few
 * relevant or few other example websites gets verdicts that are mostly wrong, and its
 * user is told what to add. Stored with the job (jobs.warnings), shown by the API, the
 * CLI and the dashboard.
 */
#ifndef SITESCOUT_JOB_JOBWARN_H
#define SITESCOUT_JOB_JOBWARN_H

#include <stddef.h>

#include "common/buf.h"
#include "common/err.h"

struct jobspec;

/*
 * Below these counts a job is warned (the figures behind them: BENCHMARKS.md,
 * bench/alltopics_crawl.sh over 23 dev-web topics with the crawl model's verdicts, session
 * 22: 5 relevant + 5 other examples gave a mean precision of 0.98-0.99 and recall 0.87,
 * the full 25-30 + 100 gave 0.99 and 0.92; 2 + 2 on the demo web, precision 0.43-0.47,
 * recall 0.38-0.44).
 */
#define JOBWARN_FEW_RELEVANT 10
#define JOBWARN_FEW_OTHER    30

/* The warnings that apply to js, as a JSON array of {"code", "message"} objects ("[]"
 * when none) appended to out; *n (may be NULL) their count. */
enum err jobwarn_json(const struct jobspec *js, struct buf *out, size_t *n) WARN_UNUSED;

/* The same, one "warning: MESSAGE" line each, for a terminal. */
void jobwarn_print(const struct jobspec *js, void (*line)(void *ctx, const char *text), void *ctx);

#endif
