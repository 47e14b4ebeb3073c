/* The table `sitescout eval` prints on stdout: training, the Table 2 row, the counts, times. */
#ifndef SITESCOUT_EVAL_EVALTABLE_H
#define SITESCOUT_EVAL_EVALTABLE_H

#include "eval/evaluate.h"
#include "job/jobspec.h"

void evaltable_print(const struct jobspec *job, const struct evaluate_result *r);

#endif
