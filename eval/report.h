/*
 * What `sitescout experiment` measured (docs/experiment.md): each run's samples, end
 * figures and score, and the Table 2 row. eval/experiment fills it; reportfigs derives
 * the comparisons from it, and reportcsv, reportplot and reportsummary write it out.
 *
 * Ownership: a struct report owns its runs (report_alloc, report_release); a struct
 * report_run owns its points, score and found curve (report_run_release frees them);
 * every string in these structs is borrowed from the caller.
 */
#ifndef SITESCOUT_EVAL_REPORT_H
#define SITESCOUT_EVAL_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "eval/foundcurve.h"
#include "eval/jobscore.h"

/* The runs of an experiment, in the order they are run. */
enum report_role {
    REPORT_WEB_GLOBAL,    /* website crawler, global edge weights, p_threshold 0.9 (Fig. 6) */
    REPORT_WEB_LOCAL,     /* ... local edge weights (Fig. 6) */
    REPORT_WEB_COMBINED,  /* ... combined edge weights: Fig. 6 and the p0.9 line of Fig. 7 */
    REPORT_PAGE,          /* focused page crawler + website post-processing (Fig. 7) */
    REPORT_WEB_P07,       /* website crawler, combined, p_threshold 0.7 (Fig. 7) */
    REPORT_BFS,           /* breadth-first page crawler + post-processing */
    REPORT_HOMEPAGE,      /* websites judged by their homepage alone */
    REPORT_PAGE_HOMEPAGE, /* focused page crawler + homepage post-processing (paper §3.2) */
    /* The other papers' strategies (issue 18): made only when --runs names them. */
    REPORT_BESTFIRST,       /* page crawler, best-first as seed 004 defines it */
    REPORT_HISTORY,         /* page crawler, history path (seed 004) */
    REPORT_HOTWORDS,        /* page crawler, hot words (seed 000) */
    REPORT_RELEVANCE,       /* page crawler, degree of relevance (seed 001) */
    REPORT_WEIGHT_TABLE,    /* page crawler, weight table and link score (seed 002) */
    REPORT_LEARNING_ANCHOR, /* page crawler, learning anchor (seed 004) */
    REPORT_CONTEXT_GRAPH,   /* page crawler, context-graph layers (seeds 000 and 004) */
    REPORT_RUNS
};

/* The runs made without --runs: the paper's experiment and its baselines, the roles
 * before this one. */
#define REPORT_DEFAULT_RUNS REPORT_BESTFIRST

/* The runs of Figure 6 (the three edge weightings) and Figure 7 (page crawler, website
 * crawler at p_threshold 0.9 and 0.7), in the order they are drawn. */
extern const enum report_role report_fig6_roles[3];
extern const enum report_role report_fig7_roles[3];

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
    unsigned repeat; /* 1, 2, ...: which of the run's repeats (--repeat) */
    int selected;    /* chosen by --runs (all by default) */
    int ran;         /* 0: not run (not selected, or an earlier failure stopped the experiment) */
    int64_t job_id;
    int64_t pages, examined, relevant; /* the job's counters at the end */
    struct jobscore score;
    char state[16];       /* the job's final state */
    char stop_reason[64]; /* or the error of a failed job */
    double seconds;
    struct report_point *points; /* sorted by pages after report_run_sort */
    size_t n_points, cap_points;
    struct foundcurve found; /* exact, from the stored verdicts (start sites excluded) */
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
    int64_t pprs_window;      /* pages of the sampled windowed rates (Figure 6) */
    int64_t fig7_asked;       /* --fig7-window */
    int64_t fig7_window;      /* the Figure 7 window: fig7_asked capped for the budget
                               * (foundcurve_window_for) */
    const char *command_line; /* as run, for summary.md */
    unsigned repeat;          /* repeats of each run (--repeat), at least 1 */
    /* runs[role][k] is repeat k + 1 of the run (report_alloc); the figures, the
     * comparisons and the paper's curves are those of runs[role][0], the first. */
    struct report_run *runs[REPORT_RUNS];
    const struct report_table2 *table2; /* NULL: skipped */
};

/* Allocate r->runs for r->repeat repeats (zeroed); ERR_NOMEM. */
enum err report_alloc(struct report *r) WARN_UNUSED;

/* Release every run and r->runs. */
void report_release(struct report *r);

/* The run's name in the CSV files ("website-global", "page", ...). */
const char *report_run_name(enum report_role role);

/* The role of the run named name, or -1 when no run has that name. */
int report_role_find(const char *name);

/* Add a sample (copied). */
enum err report_run_add_point(struct report_run *r, const struct report_point *p) WARN_UNUSED;

/* Sort the samples by (pages, examined, relevant) and drop repeated ones. */
void report_run_sort(struct report_run *r);

void report_run_release(struct report_run *r);

/* pages / relevant; +infinity when the run found no relevant website. */
double report_run_pprs(const struct report_run *r);

/* F1 of the run's precision and recall (evalstats_f1_pr); NaN when either is undefined. */
double report_run_f1(const struct report_run *r);

/*
 * Figure 7's pprs-rate of the run at `pages`: over the last r->fig7_window pages of its
 * exact found curve, of the websites judged relevant or (truly) the truly relevant ones.
 */
double report_fig7_pprs(const struct report *r, const struct report_run *run, int64_t pages,
                        int truly);

/* The share of the found websites judged from one page; NaN when none was found. */
double report_run_single_share(const struct report_run *r);

#endif
