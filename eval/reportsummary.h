/*
 * summary.md of `sitescout experiment` (docs/experiment.md): the command line, the
 * comparisons of eval/reportfigs, the named figures against the user's targets (if
 * any), the runs table, the figures (plots or a note why they were skipped) and the
 * Table 2 row.
 */
#ifndef SITESCOUT_EVAL_REPORTSUMMARY_H
#define SITESCOUT_EVAL_REPORTSUMMARY_H

#include "common/err.h"
#include "eval/report.h"
#include "eval/targets.h"

/*
 * Write dir/summary.md. t is NULL when no targets were given; plots_note is NULL when
 * the plots were drawn, else why they were not.
 */
enum err reportsummary_write(const struct report *r, const struct targets *t, const char *dir,
                             const char *plots_note) WARN_UNUSED;

#endif
