/* The comparisons of an experiment's runs: pprs ratio, precisions, edge weightings. */
#include "eval/reportfigs.h"

#include <math.h>
#include <string.h>

static double ratio(int64_t num, int64_t den)
{
    return den ? (double)num / (double)den : NAN;
}

/* A precision that is undefined because nothing was found counts as 0 (docs/eval.md). */
static double precision0(const struct report_run *r)
{
    return isnan(r->score.precision) ? 0.0 : r->score.precision;
}

/* The sites-examined range of a run's defined windowed harvest rates; 0 if under 2. */
static int curve_range(const struct report_run *r, double *a, double *b)
{
    int n = 0;
    for (size_t i = 0; i < r->n_points; i++) {
        if (isnan(r->points[i].harvest_window))
            continue;
        double x = (double)r->points[i].examined;
        if (!n++)
            *a = x;
        *b = x;
    }
    return n >= 2 && *b > *a;
}

/* The windowed harvest rate at x sites examined, linear between samples. */
static double curve_at(const struct report_run *r, double x)
{
    const struct report_point *prev = NULL;
    for (size_t i = 0; i < r->n_points; i++) {
        const struct report_point *p = &r->points[i];
        if (isnan(p->harvest_window))
            continue;
        double px = (double)p->examined;
        if (px >= x) {
            if (!prev || px == (double)prev->examined)
                return p->harvest_window;
            double t = (x - (double)prev->examined) / (px - (double)prev->examined);
            return prev->harvest_window + t * (p->harvest_window - prev->harvest_window);
        }
        prev = p;
    }
    return prev ? prev->harvest_window : NAN;
}

/* The mean of the curve over [x0, x1] (trapezoids on a grid of 200 steps). */
static double curve_mean(const struct report_run *r, double x0, double x1)
{
    enum { STEPS = 200 };
    double sum = 0, dx = (x1 - x0) / STEPS, prev = curve_at(r, x0);
    for (int i = 1; i <= STEPS; i++) {
        double y = curve_at(r, x0 + dx * i);
        sum += (prev + y) / 2;
        prev = y;
    }
    return sum / STEPS;
}

void reportfigs_compute(const struct report *r, struct reportfigs *out)
{
    memset(out, 0, sizeof *out);
    const struct report_run *web = r->runs[REPORT_WEB_COMBINED], *page = r->runs[REPORT_PAGE];
    out->web_precision = precision0(web);
    out->page_precision = precision0(page);
    out->pprs_ratio = NAN;
    if (web->ran && page->ran && web->relevant > 0) {
        out->pprs_known = 1;
        double pp = report_run_pprs(page);
        out->pprs_ratio = isinf(pp) ? 0.0 : report_run_pprs(web) / pp;
    }
    out->precision_known = web->ran && page->ran;
    /* At the budget, not at the end: a run that went over it gets no pages for free. */
    out->truly_known = web->ran && page->ran;
    out->web_truly = foundcurve_at(&web->found, r->budget).truly;
    out->page_truly = foundcurve_at(&page->found, r->budget).truly;
    out->truly_ratio = ratio(out->web_truly, out->page_truly);
    out->best = out->worst = -1;
    out->weights_known = 1;
    const struct report_run *w[3];
    double x0 = -INFINITY, x1 = INFINITY;
    for (int i = 0; i < 3; i++) {
        w[i] = r->runs[REPORT_WEB_GLOBAL + i];
        out->harvest_end[i] = ratio(w[i]->relevant, w[i]->examined);
        if (!w[i]->ran || isnan(out->harvest_end[i]))
            out->weights_known = 0;
        double a = 0, b = 0;
        if (curve_range(w[i], &a, &b)) {
            x0 = a > x0 ? a : x0;
            x1 = b < x1 ? b : x1;
        } else {
            x1 = -INFINITY;
        }
    }
    if (!out->weights_known)
        return;
    /* The mean of each Fig. 6 curve over the range all three cover; without one (too
     * few samples), the harvest rate at the end of the run. */
    out->from_curve = x1 > x0;
    out->range[0] = x0;
    out->range[1] = x1;
    for (int i = 0; i < 3; i++)
        out->harvest[i] = out->from_curve ? curve_mean(w[i], x0, x1) : out->harvest_end[i];
    const double *h = out->harvest;
    out->best = out->worst = 0;
    for (int i = 1; i < 3; i++) {
        if (h[i] > h[out->best])
            out->best = i;
        if (h[i] < h[out->worst])
            out->worst = i;
    }
    if (h[out->best] == h[out->worst])
        out->best = out->worst = -1; /* all three alike */
}

/* The named figures: what a targets file may check. */
static const struct {
    const char *name;
    int decimals;
} named[REPORTFIGS_NAMED] = {
    [REPORTFIGS_PPRS_RATIO] = {"pprs_ratio", 2},
    [REPORTFIGS_PRECISION_GAIN] = {"precision_gain", 3},
    [REPORTFIGS_COMBINED_MARGIN] = {"combined_harvest_margin", 3},
};

const char *reportfigs_name(size_t i)
{
    return i < REPORTFIGS_NAMED ? named[i].name : NULL;
}

int reportfigs_decimals(size_t i)
{
    return i < REPORTFIGS_NAMED ? named[i].decimals : 3;
}

int reportfigs_find(const char *name)
{
    for (size_t i = 0; i < REPORTFIGS_NAMED; i++)
        if (strcmp(name, named[i].name) == 0)
            return (int)i;
    return -1;
}

double reportfigs_value(const struct reportfigs *f, size_t i)
{
    switch (i) {
    case REPORTFIGS_PPRS_RATIO:
        return f->pprs_known ? f->pprs_ratio : NAN;
    case REPORTFIGS_PRECISION_GAIN:
        return f->precision_known ? f->web_precision - f->page_precision : NAN;
    case REPORTFIGS_COMBINED_MARGIN:
        /* >= 0 exactly when combined is not strictly below both others: IEEE
         * subtraction of finite doubles is 0 only for equal ones. */
        if (!f->weights_known)
            return NAN;
        return f->harvest[2] - (f->harvest[0] < f->harvest[1] ? f->harvest[0] : f->harvest[1]);
    default:
        return NAN;
    }
}
