/* Websites judged relevant and truly relevant against pages, exact from the stored verdicts. */
#include "eval/foundcurve.h"

#include <math.h>
#include <stdlib.h>

static int cmp_point(const void *a, const void *b)
{
    const struct foundcurve_point *x = a, *y = b;
    if (x->pages != y->pages)
        return (x->pages > y->pages) - (x->pages < y->pages);
    /* Equal pages: the truly relevant first, so that the order does not depend on qsort. */
    return (y->truly > x->truly) - (y->truly < x->truly);
}

enum err foundcurve_build(const struct jobscore_verdict *v, size_t n, int with_start,
                          int64_t end_pages, struct foundcurve *out)
{
    out->points = malloc((n + 1) * sizeof *out->points);
    out->n = 0;
    if (!out->points)
        return err_set(ERR_NOMEM, "out of memory");
    /* Each point first holds its own verdict (truly 0/1), then the running counts. */
    for (size_t i = 0; i < n; i++)
        if (with_start || !v[i].start)
            out->points[out->n++] = (struct foundcurve_point){v[i].pages, 1, v[i].truly != 0};
    qsort(out->points, out->n, sizeof *out->points, cmp_point);
    struct foundcurve_point end = {end_pages, 0, 0};
    for (size_t i = 0; i < out->n; i++) {
        struct foundcurve_point *p = &out->points[i];
        end.judged++;
        end.truly += p->truly;
        p->judged = end.judged;
        p->truly = end.truly;
        if (p->pages > end.pages)
            end.pages = p->pages;
    }
    out->points[out->n++] = end;
    return ERR_OK;
}

void foundcurve_release(struct foundcurve *c)
{
    if (!c)
        return;
    free(c->points);
    c->points = NULL;
    c->n = 0;
}

struct foundcurve_point foundcurve_at(const struct foundcurve *c, int64_t pages)
{
    struct foundcurve_point r = {pages, 0, 0};
    /* The last point at or before pages (binary search: curves have one point a site). */
    size_t lo = 0, hi = c->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->points[mid].pages <= pages)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo) {
        r.judged = c->points[lo - 1].judged;
        r.truly = c->points[lo - 1].truly;
    }
    return r;
}

double foundcurve_pprs_window(const struct foundcurve *c, int64_t pages, int64_t window, int truly)
{
    int64_t from = pages - window > 0 ? pages - window : 0;
    if (pages <= from)
        return NAN;
    struct foundcurve_point a = foundcurve_at(c, from), b = foundcurve_at(c, pages);
    int64_t found = truly ? b.truly - a.truly : b.judged - a.judged;
    return found > 0 ? (double)(pages - from) / (double)found : NAN;
}

int64_t foundcurve_window_for(int64_t asked, int64_t budget)
{
    int64_t cap = budget / 3 > 0 ? budget / 3 : 1;
    return asked < cap ? asked : cap;
}
