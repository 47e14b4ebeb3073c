/* Spherical k-means with k-means++ seeding over sparse vectors, dense term-major centroids. */
#include "classifier/kmeans.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "classifier/rng.h"

/* Similarities of x to all k centroids of the term-major matrix c: four centroids a pass
 * over x, their sums in registers (an inner loop over a k known only at run time was
 * neither unrolled nor vectorised, and was half of k-means' time); each sum adds x's terms
 * in their order, as one pass would. */
static void sims_of(const struct tfidf_vec *x, const double *c, uint32_t k, double *sims)
{
    uint32_t j = 0;
    for (; j + 4 <= k; j += 4) {
        double a0 = 0, a1 = 0, a2 = 0, a3 = 0;
        for (uint32_t e = 0; e < x->n; e++) {
            const double *row = c + (size_t)x->id[e] * k + j;
            double w = x->w[e];
            a0 += w * row[0], a1 += w * row[1], a2 += w * row[2], a3 += w * row[3];
        }
        sims[j] = a0, sims[j + 1] = a1, sims[j + 2] = a2, sims[j + 3] = a3;
    }
    for (; j < k; j++) {
        double a = 0;
        for (uint32_t e = 0; e < x->n; e++)
            a += x->w[e] * c[(size_t)x->id[e] * k + j];
        sims[j] = a;
    }
}

/* k-means++: pick up to k seeds; returns how many (fewer when points repeat). */
static uint32_t kmeans_pp_seed(const struct tfidf_vec *pts, size_t n, uint32_t k, uint64_t *rng,
                               double *dense, double *mind, size_t *seeds)
{
    for (size_t i = 0; i < n; i++)
        mind[i] = 1.0;
    size_t s = rng_below(rng, n);
    uint32_t got = 0;
    for (;;) {
        seeds[got++] = s;
        const struct tfidf_vec *x = &pts[s];
        for (uint32_t e = 0; e < x->n; e++)
            dense[x->id[e]] = x->w[e];
        double total = 0;
        for (size_t i = 0; i < n; i++) {
            double dot = 0;
            for (uint32_t e = 0; e < pts[i].n; e++)
                dot += pts[i].w[e] * dense[pts[i].id[e]];
            double d = 1.0 - dot;
            if (d < 1e-12 || i == s)
                d = 0; /* the seed itself, and copies of it up to rounding */
            if (d < mind[i])
                mind[i] = d;
            total += mind[i] * mind[i];
        }
        for (uint32_t e = 0; e < x->n; e++)
            dense[x->id[e]] = 0;
        if (got == k || !(total > 0))
            return got;
        double r = rng_uniform(rng) * total, acc = 0;
        s = n;
        for (size_t i = 0; i < n; i++) {
            if (mind[i] <= 0)
                continue;
            acc += mind[i] * mind[i];
            s = i;
            if (acc > r)
                break;
        }
    }
}

/* One run's working arrays, owned by run_once. */
struct lloyd {
    const struct tfidf_vec *pts;
    size_t n;
    uint32_t dim, k;
    double *c;            /* dim x k, term-major: c[t * k + j] */
    const uint32_t *rows; /* the terms any point has, ascending: the rows of c not always 0 */
    size_t n_rows;
    double *sims;     /* k: one point's similarities, then centroid norms */
    size_t *count;    /* k: points per cluster */
    uint32_t *assign; /* n: each point's cluster */
    double *best;     /* n: each point's similarity to its cluster */
};

/* Centroid j = seed point j; no point assigned yet. */
static void kmeans_initial_centroids(struct lloyd *l, const size_t *seeds)
{
    for (uint32_t j = 0; j < l->k; j++) {
        const struct tfidf_vec *x = &l->pts[seeds[j]];
        for (uint32_t t = 0; t < x->n; t++)
            l->c[(size_t)x->id[t] * l->k + j] = x->w[t];
    }
    for (size_t i = 0; i < l->n; i++)
        l->assign[i] = UINT32_MAX;
}

/* Each point to its most similar centroid (lowest index on ties); returns how many moved. */
static size_t assign_points(struct lloyd *l)
{
    size_t changed = 0;
    for (size_t i = 0; i < l->n; i++) {
        sims_of(&l->pts[i], l->c, l->k, l->sims);
        uint32_t b = 0;
        for (uint32_t j = 1; j < l->k; j++)
            if (l->sims[j] > l->sims[b])
                b = j;
        l->best[i] = l->sims[b];
        if (l->assign[i] != b) {
            l->assign[i] = b;
            changed++;
        }
    }
    return changed;
}

/* Centroids = sums of their points (not yet normalised), with the cluster sizes; the rows
 * no point has stay 0 from the start (calloc). */
static void sum_clusters(struct lloyd *l)
{
    uint32_t k = l->k;
    for (size_t r = 0; r < l->n_rows; r++)
        memset(l->c + (size_t)l->rows[r] * k, 0, k * sizeof *l->c);
    memset(l->count, 0, (size_t)k * sizeof *l->count);
    for (size_t i = 0; i < l->n; i++) {
        l->count[l->assign[i]]++;
        for (uint32_t t = 0; t < l->pts[i].n; t++)
            l->c[(size_t)l->pts[i].id[t] * k + l->assign[i]] += l->pts[i].w[t];
    }
}

/* Empty clusters take the worst-served point of a cluster that can spare one. */
static void refill_empty(struct lloyd *l)
{
    uint32_t k = l->k;
    for (uint32_t j = 0; j < k; j++) {
        if (l->count[j])
            continue;
        size_t far = l->n;
        for (size_t i = 0; i < l->n; i++)
            if (l->count[l->assign[i]] > 1 && (far == l->n || l->best[i] < l->best[far]))
                far = i;
        if (far == l->n)
            continue;
        const struct tfidf_vec *x = &l->pts[far];
        uint32_t from = l->assign[far];
        for (uint32_t t = 0; t < x->n; t++) {
            l->c[(size_t)x->id[t] * k + from] -= x->w[t];
            l->c[(size_t)x->id[t] * k + j] += x->w[t];
        }
        l->count[from]--;
        l->count[j] = 1;
        l->assign[far] = j;
        l->best[far] = 2; /* never picked twice */
    }
}

/* Scale every centroid to unit length (an all-zero one stays zero). Only the rows some
 * point has can be non-zero: the others (most of a vocabulary) are skipped, the same sums. */
static void normalize_centroids(struct lloyd *l)
{
    uint32_t k = l->k;
    double *c = l->c, *norm = l->sims;
    for (uint32_t j = 0; j < k; j++)
        norm[j] = 0;
    for (size_t r = 0; r < l->n_rows; r++)
        for (uint32_t j = 0, t = l->rows[r]; j < k; j++)
            norm[j] += c[(size_t)t * k + j] * c[(size_t)t * k + j];
    for (uint32_t j = 0; j < k; j++)
        norm[j] = norm[j] > 0 ? 1.0 / sqrt(norm[j]) : 0;
    for (size_t r = 0; r < l->n_rows; r++)
        for (uint32_t j = 0, t = l->rows[r]; j < k; j++)
            c[(size_t)t * k + j] *= norm[j];
}

/*
 * Drop clusters that ended empty (only possible when points repeat): *out gets the
 * centroids of the others (l->c itself when none is empty, taken from l) and
 * l->assign is renumbered to match.
 */
static enum err drop_empty(struct lloyd *l, double **out, uint32_t *kk_out)
{
    uint32_t k = l->k, kk = 0;
    memset(l->count, 0, (size_t)k * sizeof *l->count);
    for (size_t i = 0; i < l->n; i++)
        l->count[l->assign[i]]++;
    for (uint32_t j = 0; j < k; j++)
        if (l->count[j])
            kk++;
    *kk_out = kk;
    if (kk == k) {
        *out = l->c;
        l->c = NULL;
        return ERR_OK;
    }
    uint32_t *map = malloc((size_t)k * sizeof *map);
    *out = malloc((size_t)l->dim * kk * sizeof **out);
    if (!map || !*out) {
        free(map);
        free(*out);
        *out = NULL;
        return err_set(ERR_NOMEM, "out of memory in k-means");
    }
    uint32_t m = 0;
    for (uint32_t j = 0; j < k; j++)
        map[j] = l->count[j] ? m++ : UINT32_MAX;
    for (size_t t = 0; t < l->dim; t++)
        for (uint32_t j = 0; j < k; j++)
            if (map[j] != UINT32_MAX)
                (*out)[t * kk + map[j]] = l->c[t * k + j];
    for (size_t i = 0; i < l->n; i++)
        l->assign[i] = map[l->assign[i]];
    free(map);
    return ERR_OK;
}

/* Sum of each point's similarity to its centroid in the kk-column matrix c. */
static double objective_of(const struct tfidf_vec *pts, size_t n, const double *c, uint32_t kk,
                           const uint32_t *assign)
{
    double obj = 0;
    for (size_t i = 0; i < n; i++) {
        const struct tfidf_vec *x = &pts[i];
        for (uint32_t t = 0; t < x->n; t++)
            obj += x->w[t] * c[(size_t)x->id[t] * kk + assign[i]];
    }
    return obj;
}

/* One seeding + Lloyd run; *objective = sum of each point's similarity to its centroid. */
static enum err run_once(const struct tfidf_vec *pts, size_t n, uint32_t dim, const uint32_t *rows,
                         size_t n_rows, const struct kmeans_params *p, uint64_t *rngp,
                         double **centroids, uint32_t *k_out, uint32_t *assign_out,
                         double *objective)
{
    enum err e = ERR_OK;
    *centroids = NULL;
    *k_out = 0;
    struct lloyd l = {.pts = pts,
                      .n = n,
                      .dim = dim,
                      .rows = rows,
                      .n_rows = n_rows,
                      .k = p->k < n ? p->k : (uint32_t)n};
    double *dense = calloc(dim, sizeof *dense);
    double *mind = malloc(n * sizeof *mind);
    size_t *seeds = malloc((size_t)l.k * sizeof *seeds);
    l.assign = malloc(n * sizeof *l.assign);
    l.best = malloc(n * sizeof *l.best);
    double *out = NULL;
    uint32_t kk;
    if (!dense || !mind || !seeds || !l.assign || !l.best) {
        e = err_set(ERR_NOMEM, "out of memory in k-means");
        goto out;
    }
    l.k = kmeans_pp_seed(pts, n, l.k, rngp, dense, mind, seeds);
    l.c = calloc((size_t)dim * l.k, sizeof *l.c);
    l.sims = malloc((size_t)l.k * sizeof *l.sims);
    l.count = malloc((size_t)l.k * sizeof *l.count);
    if (!l.c || !l.sims || !l.count) {
        e = err_set(ERR_NOMEM, "out of memory in k-means (%u x %u centroids)", dim, l.k);
        goto out;
    }
    kmeans_initial_centroids(&l, seeds);
    for (uint32_t it = 0; it < p->max_iter; it++) {
        if (assign_points(&l) == 0)
            break;
        sum_clusters(&l);
        refill_empty(&l);
        normalize_centroids(&l);
    }
    if ((e = drop_empty(&l, &out, &kk)))
        goto out;
    *objective = objective_of(pts, n, out, kk, l.assign);
    if (assign_out)
        memcpy(assign_out, l.assign, n * sizeof *l.assign);
    *centroids = out;
    *k_out = kk;
out:
    free(dense);
    free(mind);
    free(seeds);
    free(l.assign);
    free(l.best);
    free(l.count);
    free(l.c);
    free(l.sims);
    return e;
}

/* The terms (ids < dim) any of the n points has, ascending, into a malloc'd *rows. */
static enum err used_rows(const struct tfidf_vec *pts, size_t n, uint32_t dim, uint32_t **rows,
                          size_t *n_rows)
{
    unsigned char *used = calloc(dim, 1);
    *rows = NULL;
    *n_rows = 0;
    if (!used)
        return err_set(ERR_NOMEM, "out of memory in k-means");
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        for (uint32_t e = 0; e < pts[i].n; e++) {
            count += !used[pts[i].id[e]];
            used[pts[i].id[e]] = 1;
        }
    if (!(*rows = malloc((count ? count : 1) * sizeof **rows))) {
        free(used);
        return err_set(ERR_NOMEM, "out of memory in k-means");
    }
    for (uint32_t t = 0; t < dim; t++)
        if (used[t])
            (*rows)[(*n_rows)++] = t;
    free(used);
    return ERR_OK;
}

enum err kmeans_run(const struct tfidf_vec *pts, size_t n, uint32_t dim,
                    const struct kmeans_params *p, double **centroids, uint32_t *k_out,
                    uint32_t *assign)
{
    *centroids = NULL;
    *k_out = 0;
    if (n == 0 || p->k == 0 || p->max_iter == 0 || p->n_init == 0 || dim == 0)
        return err_set(ERR_INVAL,
                       "k-means needs points, k >= 1, max_iter >= 1, n_init >= 1 and dim >= 1");
    uint32_t *tmp = assign ? malloc(n * sizeof *tmp) : NULL, *rows = NULL;
    size_t n_rows = 0;
    if (assign && !tmp)
        return err_set(ERR_NOMEM, "out of memory in k-means");
    uint64_t rng = p->seed;
    double best = -1;
    enum err e = used_rows(pts, n, dim, &rows, &n_rows);
    for (uint32_t r = 0; !e && r < p->n_init; r++) {
        double *c = NULL, obj = 0;
        uint32_t k;
        if ((e = run_once(pts, n, dim, rows, n_rows, p, &rng, &c, &k, tmp, &obj)))
            break;
        /* Strictly better only: ties keep the earlier run, so results stay deterministic. */
        if (obj > best) {
            best = obj;
            free(*centroids);
            *centroids = c;
            *k_out = k;
            if (assign)
                memcpy(assign, tmp, n * sizeof *tmp);
        } else {
            free(c);
        }
    }
    free(tmp);
    free(rows);
    if (e) {
        free(*centroids);
        *centroids = NULL;
        *k_out = 0;
    }
    return e;
}
