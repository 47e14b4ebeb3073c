/*
 * The JSON report of `sitescout eval --report FILE` (docs/eval.md): the parameters,
 * the training websites, both classifiers' figures, times, fetch counts and every
 * evaluated website with its examination trace. NaN and infinities are null.
 */
#ifndef SITESCOUT_EVAL_EVALJSON_H
#define SITESCOUT_EVAL_EVALJSON_H

#include "common/err.h"
#include "eval/evaluate.h"
#include "job/jobspec.h"

/* Write it to path (keys sorted, indent 1); ERR_IO when the file cannot be written. */
enum err evaljson_write(const char *path, const struct jobspec *job,
                        const struct evaluate_result *r) WARN_UNUSED;

#endif
