/* A website's verdict with its links' (linkjudge.h). */
#include "classifier/linkjudge.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* sigma(slope x); slope 0: x > 0. */
static double pr_at(double x, double slope)
{
    if (slope <= 0)
        return x > 0;
    return 1 / (1 + exp(-slope * x));
}

/* Not relevant whatever its text and links: vetoed, or its examination said not relevant
 * and its links did not overrule it. */
static int blocked(const struct linkjudge_site *s)
{
    return s->veto || (s->exam_no && !s->overruled);
}

/* Pr[relevant] of a site as its neighbours take it (linkjudge.h): a fixed one's verdict, 0
 * when blocked, else sigma(slope (text + evidence)); slope 0: its verdict. */
static double pr_of(const struct linkjudge_site *s, double slope)
{
    if (s->fixed >= 0)
        return s->fixed;
    if (blocked(s))
        return 0;
    return pr_at(s->text + s->evidence, slope);
}

/* A judged site's verdict from its text, its links' evidence and its examination; a fixed
 * one's. */
static int verdict_now(const struct linkjudge_site *s)
{
    return s->fixed >= 0 ? s->fixed : s->text + s->evidence > 0 && !blocked(s);
}

/* One direction's links as lists: the neighbours of site i are nb[at[i] .. at[i + 1]). */
struct adjacency {
    size_t *at;
    uint32_t *nb;
};

static enum err adjacency_build(struct adjacency *a, size_t n, const struct linkjudge_edge *edges,
                                size_t n_edges, int reverse)
{
    a->at = calloc(n + 1, sizeof *a->at);
    a->nb = malloc((n_edges ? n_edges : 1) * sizeof *a->nb);
    if (!a->at || !a->nb)
        return err_set(ERR_NOMEM, "out of memory");
    for (size_t k = 0; k < n_edges; k++)
        a->at[(reverse ? edges[k].dst : edges[k].src) + 1]++;
    for (size_t i = 0; i < n; i++)
        a->at[i + 1] += a->at[i];
    size_t *fill = malloc((n ? n : 1) * sizeof *fill);
    if (!fill)
        return err_set(ERR_NOMEM, "out of memory");
    memcpy(fill, a->at, n * sizeof *fill);
    for (size_t k = 0; k < n_edges; k++) {
        uint32_t from = reverse ? edges[k].dst : edges[k].src;
        a->nb[fill[from]++] = reverse ? edges[k].src : edges[k].dst;
    }
    free(fill);
    return ERR_OK;
}

static void adjacency_release(struct adjacency *a)
{
    free(a->at);
    free(a->nb);
}

/* a1 and a0 of one direction, each site counted in both classes by its Pr[relevant] pr[i]:
 * the expected share of relevant neighbours among the neighbours of the relevant websites,
 * and of the others. */
static void rates_of(size_t n, const double *pr, const struct adjacency *a, double *a1, double *a0)
{
    double rel[2] = {LINKJUDGE_PRIOR_LINKS / 2, LINKJUDGE_PRIOR_LINKS / 2};
    double all[2] = {LINKJUDGE_PRIOR_LINKS, LINKJUDGE_PRIOR_LINKS};
    for (size_t i = 0; i < n; i++) {
        double deg = (double)(a->at[i + 1] - a->at[i]), nb = 0;
        for (size_t k = a->at[i]; k < a->at[i + 1]; k++)
            nb += pr[a->nb[k]];
        all[1] += pr[i] * deg;
        rel[1] += pr[i] * nb;
        all[0] += (1 - pr[i]) * deg;
        rel[0] += (1 - pr[i]) * nb;
    }
    *a1 = rel[1] / all[1];
    *a0 = rel[0] / all[0];
}

/* Site i's evidence from one direction's neighbours, its counts added to s: each
 * neighbour j is relevant with probability q = pr[j], so its likelihood is q a1 + (1 - q)
 * (1 - a1) if site i is relevant, q a0 + (1 - q) (1 - a0) if not (a neighbour of q 1:
 * ln(a1 / a0); of q 0: ln((1 - a1) / (1 - a0)); of q 1/2: nothing). */
static double evidence_of(const struct linkjudge_site *sites, const double *pr,
                          const struct adjacency *a, size_t i, double a1, double a0,
                          struct linkjudge_site *s)
{
    double ev = 0;
    for (size_t k = a->at[i]; k < a->at[i + 1]; k++) {
        uint32_t j = a->nb[k];
        double q = pr[j];
        s->linked++;
        s->linked_relevant += (uint32_t)sites[j].relevant;
        if (a1 > a0)
            ev += log((q * a1 + (1 - q) * (1 - a1)) / (q * a0 + (1 - q) * (1 - a0)));
    }
    return ev;
}

double linkjudge_confidence(const struct linkjudge_site *s)
{
    double c = 1 / (1 + exp(-(s->text + s->evidence)));
    return blocked(s) && c > 0.5 ? 0.5 : c;
}

enum err linkjudge_run(struct linkjudge_site *sites, size_t n, const struct linkjudge_edge *edges,
                       size_t n_edges, uint32_t rounds, double slope, double exam_links,
                       struct linkjudge_rates *rates)
{
    for (size_t k = 0; k < n_edges; k++)
        if (edges[k].src >= n || edges[k].dst >= n || edges[k].src == edges[k].dst)
            return err_set(ERR_INVAL, "link %zu: %u -> %u is not between two of %zu websites", k,
                           edges[k].src, edges[k].dst, n);
    for (size_t i = 0; i < n; i++) {
        struct linkjudge_site *s = &sites[i];
        s->evidence = 0;
        s->overruled = 0;
        s->linked = s->linked_relevant = 0;
        s->relevant = verdict_now(s); /* the text's alone */
    }
    struct linkjudge_rates r = {0.5, 0.5, 0.5, 0.5};
    struct adjacency out = {0}, in = {0};
    enum err e = ERR_OK;
    double *pr = NULL; /* each site's Pr[relevant] as its neighbours take it this round */
    if (rounds > 0 && (e = adjacency_build(&out, n, edges, n_edges, 0)) == ERR_OK &&
        (e = adjacency_build(&in, n, edges, n_edges, 1)) == ERR_OK &&
        !(pr = malloc((n ? n : 1) * sizeof *pr)))
        e = err_set(ERR_NOMEM, "out of memory");
    for (size_t i = 0; !e && rounds > 0 && i < n; i++)
        pr[i] = pr_of(&sites[i], slope);
    for (uint32_t round = 0; !e && round < rounds; round++) {
        rates_of(n, pr, &out, &r.out_relevant, &r.out_other);
        rates_of(n, pr, &in, &r.in_relevant, &r.in_other);
        for (size_t i = 0; i < n; i++) {
            struct linkjudge_site *s = &sites[i];
            s->linked = s->linked_relevant = 0;
            s->evidence = evidence_of(sites, pr, &out, i, r.out_relevant, r.out_other, s) +
                          evidence_of(sites, pr, &in, i, r.in_relevant, r.in_other, s);
            s->overruled = s->exam_no && s->fixed < 0 && s->evidence > exam_links;
        }
        /* every verdict of a round from the last round's: changed only once all are weighed */
        for (size_t i = 0; i < n; i++) {
            sites[i].relevant = verdict_now(&sites[i]);
            pr[i] = pr_of(&sites[i], slope);
        }
    }
    if (!e && rates)
        *rates = r;
    free(pr);
    adjacency_release(&out);
    adjacency_release(&in);
    return e;
}
