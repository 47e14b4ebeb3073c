/*
 * The outputs of `sitescout experiment` (docs/experiment.md): the CSV files of the
 * paper's Figures 6 and 7, runs.csv and table2.csv, the plots (gnuplot, run as a
 * child process) and summary.md with the target checks of issue 8. Pure formatting:
 * the command fills a struct report from the database and the evaluation.
 *
 * Ownership: a struct report_run owns its points (report_run_release frees them);
 * every string in these structs is borrowed from the caller.
 */
#ifndef SITESCOUT_EVAL_REPORT_H
#define SITESCOUT_EVAL_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "eval/jobscore.h"

/* The runs of an experiment, in the order they are run. */
enum report_role {
    REPORT_WEB_GLOBAL,   /* website crawler, global edge weights, p_threshold 0.9 (Fig. 6) */
    REPORT_WEB_LOCAL,    /* ... local edge weights (Fig. 6) */
    REPORT_WEB_COMBINED, /* ... combined edge weights: Fig. 6 and the p0.9 line of Fig. 7 */
    REPORT_PAGE,         /* focused page crawler + website post-processing (Fig. 7) */
    REPORT_WEB_P07,      /* website crawler, combined, p_threshold 0.7 (Fig. 7) */
    REPORT_BFS,          /* breadth-first page crawler + post-processing */
    REPORT_HOMEPAGE,     /* websites judged by their homepage alone */
    REPORT_RUNS
};

/* One sample of a crawl's progress; NaN rates are undefined (empty window). */
struct report_point {
    int64_t pages, examined, relevant;
    double harvest_window, pprs_window;
};

struct report_run {
    const char *name;         /* "website-global", ... (report_run_name) */
    const char *strategy;     /* job param strategy */
    const char *edge_weights; /* job param edge_weights */
    double p_threshold;
    int ran; /* 0: not run (an earlier failure stopped the experiment) */
    int64_t job_id;
    int64_t pages, examined, relevant; /* the job's counters at the end */
    struct jobscore score;
    char state[16];       /* the job's final state */
    char stop_reason[64]; /* or the error of a failed job */
    double seconds;
    struct report_point *points; /* sorted by pages after report_run_sort */
    size_t n_points, cap_points;
};

/* The Table 2 row (10-fold cross-validation, `sitescout eval --mode cv`). */
struct report_table2 {
    const char *topic;
    unsigned folds;
    size_t sites;
    double p_err, p_threshold, pages_per_site;
    double web_precision, web_recall, web_f1;
    double home_precision, home_recall, home_f1;
    double seconds;
};

struct report {
    const char *topic;
    int64_t budget;
    int64_t pprs_window;      /* pages of the windowed rates */
    const char *command_line; /* as run, for summary.md */
    struct report_run runs[REPORT_RUNS];
    const struct report_table2 *table2; /* NULL: skipped */
};

/* The run's name in the CSV files ("website-global", "page", ...). */
const char *report_run_name(enum report_role role);

/* Add a sample (copied). */
enum err report_run_add_point(struct report_run *r, const struct report_point *p) WARN_UNUSED;

/* Sort the samples by (pages, examined, relevant) and drop repeated ones. */
void report_run_sort(struct report_run *r);

void report_run_release(struct report_run *r);

/* The target checks of issue 8, as stated in summary.md. */
struct report_checks {
    /* Website crawler at p_threshold 0.9 against the page crawler, at the budget. */
    int pprs_known;    /* both runs ran and the website crawler found something */
    double pprs_ratio; /* pprs(website p0.9) / pprs(page); 0 when the page crawler found none */
    double web_precision, page_precision; /* NaN counted as 0 (nothing found) */
    int pprs_holds;                       /* ratio <= 0.6 and web precision >= page precision */
    /* Edge weights, by the mean of each Fig. 6 curve (windowed harvest rate) over the
     * range of sites examined that all three cover; by the harvest rate at the end of
     * the run (relevant / examined) when a curve has fewer than two samples. */
    int weights_known;     /* all three ran and examined something */
    int from_curve;        /* harvest[] are curve means over range[] */
    double range[2];       /* sites examined */
    double harvest[3];     /* global, local, combined */
    double harvest_end[3]; /* relevant / examined at the end of each run */
    int best, worst;       /* 0 global, 1 local, 2 combined; -1 when tied everywhere */
    int combined_holds;    /* combined is not strictly below both others */
};
void report_checks(const struct report *r, struct report_checks *out);

/* fig6_harvest.csv, fig7_pprs.csv, runs.csv and (when table2 is set) table2.csv in dir. */
enum err report_write_csv(const struct report *r, const char *dir) WARN_UNUSED;

/*
 * fig6_harvest.png and fig7_pprs.png through gnuplot (the scripts stay in dir as
 * fig6_harvest.gp and fig7_pprs.gp). ERR_NOTFOUND (err_msg says why) when gnuplot is
 * not installed; ERR_IO when it fails.
 */
enum err report_plot(const struct report *r, const char *dir) WARN_UNUSED;

/* summary.md; plots_note is NULL when the plots were drawn, else why they were not. */
enum err report_write_summary(const struct report *r, const char *dir,
                              const char *plots_note) WARN_UNUSED;

#endif
