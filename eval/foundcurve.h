/*
 * A run's exact curve of websites found against pages downloaded, from the stored
 * verdicts (each relevant website's found_pages, eval/jobscore): how many websites were
 * judged relevant, and how many of those are truly relevant by the labels, at each page
 * count. Unlike the crawl's progress samples it does not lag behind the crawl (a page
 * crawler's verdicts reach the store in batches). Also the paper's Figure 7 measure from
 * it: pages per relevant website over the last W pages.
 *
 * Ownership: a struct foundcurve owns its points (foundcurve_release frees them); the
 * verdicts given to foundcurve_build are borrowed.
 */
#ifndef SITESCOUT_EVAL_FOUNDCURVE_H
#define SITESCOUT_EVAL_FOUNDCURVE_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "eval/jobscore.h"

/* After pages downloaded: judged websites judged relevant, truly of them truly relevant. */
struct foundcurve_point {
    int64_t pages, judged, truly;
};

struct foundcurve {
    struct foundcurve_point *points; /* ascending by pages; counts never fall */
    size_t n;
};

/*
 * One point per verdict (in any order), counted in order of pages, then one at the end:
 * end_pages (or the last verdict's pages, if later) with the totals. Start sites count
 * only when with_start (they were given, not found). out is overwritten.
 */
enum err foundcurve_build(const struct jobscore_verdict *v, size_t n, int with_start,
                          int64_t end_pages, struct foundcurve *out) WARN_UNUSED;

void foundcurve_release(struct foundcurve *c);

/* The counts at pages: of the websites judged relevant at or before that page count. */
struct foundcurve_point foundcurve_at(const struct foundcurve *c, int64_t pages);

/*
 * The pprs-rate over the last window pages at `pages` (the window (pages - window,
 * pages], cut at 0): its pages over the websites judged relevant in it (truly relevant
 * ones if truly). NaN when the window found none, or is empty.
 */
double foundcurve_pprs_window(const struct foundcurve *c, int64_t pages, int64_t window, int truly);

/*
 * The Figure 7 window for a budget: the one asked for, but at most budget / 3 (at least
 * 1 page), so that a small budget still shows how the rate changes.
 */
int64_t foundcurve_window_for(int64_t asked, int64_t budget);

#endif
