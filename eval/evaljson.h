/*
 * The JSON report of `sitescout eval --report FILE` (docs/eval.md): the parameters,
 * the training websites, both classifiers' figures, times, fetch counts and every
 * evaluated website with its examination trace; for --all-topics, those of every topic
 * and their summary. NaN and infinities are null.
 */
#ifndef SITESCOUT_EVAL_EVALJSON_H
#define SITESCOUT_EVAL_EVALJSON_H

#include "common/err.h"
#include "eval/evalall.h"
#include "eval/evaluate.h"
#include "job/jobspec.h"

/* Write it to path (keys sorted, indent 1); ERR_IO when the file cannot be written. */
enum err evaljson_write(const char *path, const struct jobspec *job,
                        const struct evaluate_result *r) WARN_UNUSED;

/*
 * The report of `eval --all-topics --report FILE`: "topics", one object per topic run
 * (the one above, plus "tuned", "relevant_sites" and "seconds_total"; a failed topic
 * has only "topic", "error" and those), and "summary" (evalall's figures).
 */
enum err evaljson_write_all(const char *path, const struct evalall *a) WARN_UNUSED;

#endif
