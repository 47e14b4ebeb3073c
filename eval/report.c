/* The measurements of `sitescout experiment`: runs, their samples and end figures. */
#include "eval/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "eval/evalstats.h"

#define REPORT_MAX_POINTS 1000000 /* samples per run */

static const char *const run_names[REPORT_RUNS] = {
    "website-global", "website-local",   "website-combined",
    "page",           "website-p0.7",    "bfs",
    "homepage",       "page-homepage",   "bestfirst",
    "history",        "hotwords",        "relevance-degree",
    "weight-table",   "learning-anchor", "context-graph",
};

const enum report_role report_fig6_roles[3] = {REPORT_WEB_GLOBAL, REPORT_WEB_LOCAL,
                                               REPORT_WEB_COMBINED};
const enum report_role report_fig7_roles[3] = {REPORT_PAGE, REPORT_WEB_COMBINED, REPORT_WEB_P07};

const char *report_run_name(enum report_role role)
{
    return role >= 0 && role < REPORT_RUNS ? run_names[role] : "?";
}

enum err report_alloc(struct report *r)
{
    for (int i = 0; i < REPORT_RUNS; i++) {
        r->runs[i] = calloc(r->repeat ? r->repeat : 1, sizeof *r->runs[i]);
        if (!r->runs[i]) {
            report_release(r);
            return err_set(ERR_NOMEM, "out of memory");
        }
    }
    return ERR_OK;
}

void report_release(struct report *r)
{
    for (int i = 0; i < REPORT_RUNS; i++) {
        for (unsigned k = 0; r->runs[i] && k < r->repeat; k++)
            report_run_release(&r->runs[i][k]);
        free(r->runs[i]);
        r->runs[i] = NULL;
    }
}

int report_role_find(const char *name)
{
    for (int i = 0; i < REPORT_RUNS; i++)
        if (strcmp(name, run_names[i]) == 0)
            return i;
    return -1;
}

enum err report_run_add_point(struct report_run *r, const struct report_point *p)
{
    if (r->n_points == r->cap_points) {
        if (r->cap_points >= REPORT_MAX_POINTS)
            return ERR_OK; /* enough for any plot; later samples are dropped */
        if (grow_array((void **)&r->points, &r->cap_points, r->n_points + 1, sizeof *r->points) !=
            ERR_OK)
            return err_set(ERR_NOMEM, "out of memory");
    }
    r->points[r->n_points++] = *p;
    return ERR_OK;
}

static int cmp_point(const void *a, const void *b)
{
    const struct report_point *x = a, *y = b;
    if (x->pages != y->pages)
        return x->pages < y->pages ? -1 : 1;
    if (x->examined != y->examined)
        return x->examined < y->examined ? -1 : 1;
    if (x->relevant != y->relevant)
        return x->relevant < y->relevant ? -1 : 1;
    return 0;
}

void report_run_sort(struct report_run *r)
{
    if (!r->n_points)
        return;
    qsort(r->points, r->n_points, sizeof *r->points, cmp_point);
    size_t w = 1;
    for (size_t i = 1; i < r->n_points; i++)
        if (cmp_point(&r->points[i], &r->points[w - 1]) != 0)
            r->points[w++] = r->points[i];
    r->n_points = w;
}

void report_run_release(struct report_run *r)
{
    if (!r)
        return;
    free(r->points);
    r->points = NULL;
    r->n_points = r->cap_points = 0;
    jobscore_release(&r->score);
    foundcurve_release(&r->found);
}

double report_run_pprs(const struct report_run *r)
{
    return r->relevant ? (double)r->pages / (double)r->relevant : INFINITY;
}

double report_run_f1(const struct report_run *r)
{
    return evalstats_f1_pr(r->score.precision, r->score.recall);
}

double report_run_single_share(const struct report_run *r)
{
    return r->score.found ? (double)r->score.single_page / (double)r->score.found : NAN;
}

double report_fig7_pprs(const struct report *r, const struct report_run *run, int64_t pages,
                        int truly)
{
    return foundcurve_pprs_window(&run->found, pages, r->fig7_window, truly);
}
