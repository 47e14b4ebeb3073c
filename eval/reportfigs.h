/*
 * The comparisons `sitescout experiment` measures from its runs (docs/experiment.md):
 * the website crawler at p_threshold 0.9 against the page crawler at the budget, and
 * the three edge weightings by their Figure 6 curves. Only figures: whether a figure
 * meets a target is the user's data (eval/targets), not the program's.
 *
 * Some figures have a name, so that a targets file can refer to them
 * (reportfigs_find, reportfigs_value). Pure computation; no ownership.
 */
#ifndef SITESCOUT_EVAL_REPORTFIGS_H
#define SITESCOUT_EVAL_REPORTFIGS_H

#include <stddef.h>

#include "eval/report.h"

struct reportfigs {
    /* Website crawler at p_threshold 0.9 against the page crawler, at the budget. */
    int pprs_known;      /* both runs ran and the website crawler found something */
    double pprs_ratio;   /* pprs(website p0.9) / pprs(page); 0 when the page crawler found none */
    int precision_known; /* both runs ran */
    double web_precision, page_precision; /* NaN counted as 0 (nothing found) */
    /* Truly relevant websites found within the budget (exact found curves). */
    int truly_known;               /* both runs ran */
    int64_t web_truly, page_truly; /* found at or before r->budget pages */
    double truly_ratio;            /* web_truly / page_truly; NaN when page_truly is 0 */
    /* Edge weights, by the mean of each Fig. 6 curve (windowed harvest rate) over the
     * range of sites examined that all three cover; by the harvest rate at the end of
     * the run (relevant / examined) when a curve has fewer than two samples. */
    int weights_known;     /* all three ran and examined something */
    int from_curve;        /* harvest[] are curve means over range[] */
    double range[2];       /* sites examined */
    double harvest[3];     /* global, local, combined */
    double harvest_end[3]; /* relevant / examined at the end of each run */
    int best, worst;       /* 0 global, 1 local, 2 combined; -1 when tied everywhere */
};

void reportfigs_compute(const struct report *r, struct reportfigs *out);

/* The named figures, in the order summary.md lists them. */
enum reportfigs_named {
    REPORTFIGS_PPRS_RATIO,      /* pprs_ratio */
    REPORTFIGS_PRECISION_GAIN,  /* web_precision - page_precision */
    REPORTFIGS_COMBINED_MARGIN, /* harvest[combined] - the lower of global's and local's */
    REPORTFIGS_NAMED
};

/* "pprs_ratio", ...; NULL when i is out of range. */
const char *reportfigs_name(size_t i);

/* Decimals summary.md and stderr give the named figure i. */
int reportfigs_decimals(size_t i);

/* The index of a named figure, or -1. */
int reportfigs_find(const char *name);

/* The named figure i; NaN when it cannot be decided (a run missing or empty). */
double reportfigs_value(const struct reportfigs *f, size_t i);

#endif
