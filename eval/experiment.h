/*
 * `sitescout experiment` (docs/experiment.md): the paper's crawling experiments on one
 * topic of a replay web. The crawl runs of eval/report.h (eval/exprun) against a replay
 * server of its own (eval/replaythread), the Table 2 evaluation, then the CSV files,
 * plots and summary.md (eval/reportcsv, reportplot, reportsummary). It measures; whether a
 * figure meets a target is the user's --targets file (eval/targets).
 *
 * Progress goes to stderr, one line when a run starts and one when it ends; the path of
 * summary.md to stdout.
 *
 * Ownership: the options are borrowed for the call.
 */
#ifndef SITESCOUT_EVAL_EXPERIMENT_H
#define SITESCOUT_EVAL_EXPERIMENT_H

#include <stddef.h>

#include "common/err.h"

struct store;

struct experiment_opts {
    const char *warc, *labels, *jobs, *topic, *out_dir; /* required */
    long long budget;                                   /* pages per run, at least 1 */
    long long fig7_window;   /* Figure 7's window in pages, at least 1 (capped for the budget) */
    unsigned repeat;         /* each selected run is made this many times (0 is 1) */
    const char *const *sets; /* "key=value" job parameter overrides, as given */
    size_t n_sets;
    const char *db_url;     /* NULL: $SITESCOUT_DB or the embedded cluster (store/dbopen) */
    const char *targets;    /* a targets file, or NULL */
    const char *runs;       /* "NAME,NAME,...": the runs to make (report_run_name); NULL:
                             * the paper's, REPORT_DEFAULT_RUNS */
    const char *strategies; /* or "S,S,...": the run of each job strategy (combined edge
                             * weights, p_threshold 0.9); NULL: see runs */
    int skip_eval;          /* leave out Table 2 */
    int argc;               /* the command line as run (argv[0] the command), for summary.md */
    char **argv;
};

enum experiment_end {
    EXPERIMENT_DONE,   /* every run and the evaluation ended well */
    EXPERIMENT_USAGE,  /* bad options or inputs; nothing was started (err_msg says why) */
    EXPERIMENT_FAILED, /* something failed (err_msg says why); the outputs are written
                        * when only a run or the evaluation did not end well */
};

enum experiment_end experiment_run(const struct experiment_opts *o);

#endif
