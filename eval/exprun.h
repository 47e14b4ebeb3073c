/*
 * The measurements of `sitescout experiment`: one crawl run, made a job of its own
 * and run to its end in this process, into a struct report_run (its samples, end
 * figures and score against the labels); and the Table 2 evaluation into a struct
 * report_table2.
 *
 * Ownership: everything passed in is borrowed; the samples and score written into
 * the run belong to it (report_run_release).
 */
#ifndef SITESCOUT_EVAL_EXPRUN_H
#define SITESCOUT_EVAL_EXPRUN_H

#include "common/err.h"
#include "eval/labels.h"
#include "eval/report.h"
#include "job/jobspec.h"

struct store;

/*
 * Create the job of js (as `sitescout crawl` does), run it through proxy, and fill
 * run: job_id, ran, seconds, the samples (sorted), state, stop reason, counters,
 * score and found curve (eval/foundcurve, from the stored verdicts). A job that ends in a state
 * other than done is no error here (run->state).
 */
enum err exprun_crawl(struct store *s, const struct jobspec *js, const struct labels *labels,
                      const char *proxy, struct report_run *run) WARN_UNUSED;

/* `sitescout eval --mode cv` of js through proxy, into t (topic borrowed from js). */
enum err exprun_table2(const struct jobspec *js, const struct labels *labels, const char *proxy,
                       struct report_table2 *t) WARN_UNUSED;

#endif
