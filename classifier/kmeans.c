/* Spherical k-means with k-means++ seeding over sparse vectors, dense term-major centroids. */
#include "classifier/kmeans.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "classifier/rng.h"

/* Similarities of x to all k centroids of the term-major matrix c. */
static void sims_of(const struct tfidf_vec *x, const double *c, uint32_t k, double *sims)
{
    for (uint32_t j = 0; j < k; j++)
        sims[j] = 0;
    for (uint32_t e = 0; e < x->n; e++) {
        const double *row = c + (size_t)x->id[e] * k;
        double w = x->w[e];
        for (uint32_t j = 0; j < k; j++)
            sims[j] += w * row[j];
    }
}

/* k-means++: pick up to k seeds; returns how many (fewer when points repeat). */
static uint32_t seed_plus_plus(const struct tfidf_vec *pts, size_t n, uint32_t k, uint64_t *rng,
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

/* One seeding + Lloyd run; *objective = sum of each point's similarity to its centroid. */
static enum err run_once(const struct tfidf_vec *pts, size_t n, uint32_t dim,
                         const struct kmeans_params *p, uint64_t *rngp, double **centroids,
                         uint32_t *k_out, uint32_t *assign_out, double *objective)
{
    enum err e = ERR_OK;
    *centroids = NULL;
    *k_out = 0;
    uint32_t k = p->k < n ? p->k : (uint32_t)n;
    double *dense = calloc(dim, sizeof *dense);
    double *mind = malloc(n * sizeof *mind);
    size_t *seeds = malloc((size_t)k * sizeof *seeds);
    uint32_t *assign = malloc(n * sizeof *assign);
    double *best = malloc(n * sizeof *best);
    size_t *count = NULL;
    double *c = NULL, *sims = NULL, *out = NULL;
    if (!dense || !mind || !seeds || !assign || !best) {
        e = err_set(ERR_NOMEM, "out of memory in k-means");
        goto out;
    }
    k = seed_plus_plus(pts, n, k, rngp, dense, mind, seeds);

    c = calloc((size_t)dim * k, sizeof *c);
    sims = malloc((size_t)k * sizeof *sims);
    count = malloc((size_t)k * sizeof *count);
    if (!c || !sims || !count) {
        e = err_set(ERR_NOMEM, "out of memory in k-means (%u x %u centroids)", dim, k);
        goto out;
    }
    for (uint32_t j = 0; j < k; j++) {
        const struct tfidf_vec *x = &pts[seeds[j]];
        for (uint32_t t = 0; t < x->n; t++)
            c[(size_t)x->id[t] * k + j] = x->w[t];
    }
    for (size_t i = 0; i < n; i++)
        assign[i] = UINT32_MAX;

    for (uint32_t it = 0; it < p->max_iter; it++) {
        size_t changed = 0;
        for (size_t i = 0; i < n; i++) {
            sims_of(&pts[i], c, k, sims);
            uint32_t b = 0;
            for (uint32_t j = 1; j < k; j++)
                if (sims[j] > sims[b])
                    b = j;
            best[i] = sims[b];
            if (assign[i] != b) {
                assign[i] = b;
                changed++;
            }
        }
        if (changed == 0)
            break;
        memset(c, 0, (size_t)dim * k * sizeof *c);
        memset(count, 0, (size_t)k * sizeof *count);
        for (size_t i = 0; i < n; i++) {
            count[assign[i]]++;
            for (uint32_t t = 0; t < pts[i].n; t++)
                c[(size_t)pts[i].id[t] * k + assign[i]] += pts[i].w[t];
        }
        /* Empty clusters take the worst-served point of a cluster that can spare one. */
        for (uint32_t j = 0; j < k; j++) {
            if (count[j])
                continue;
            size_t far = n;
            for (size_t i = 0; i < n; i++)
                if (count[assign[i]] > 1 && (far == n || best[i] < best[far]))
                    far = i;
            if (far == n)
                continue;
            uint32_t from = assign[far];
            for (uint32_t t = 0; t < pts[far].n; t++) {
                c[(size_t)pts[far].id[t] * k + from] -= pts[far].w[t];
                c[(size_t)pts[far].id[t] * k + j] += pts[far].w[t];
            }
            count[from]--;
            count[j] = 1;
            assign[far] = j;
            best[far] = 2; /* never picked twice */
        }
        for (uint32_t j = 0; j < k; j++)
            sims[j] = 0;
        for (size_t t = 0; t < dim; t++)
            for (uint32_t j = 0; j < k; j++)
                sims[j] += c[t * k + j] * c[t * k + j];
        for (uint32_t j = 0; j < k; j++)
            sims[j] = sims[j] > 0 ? 1.0 / sqrt(sims[j]) : 0;
        for (size_t t = 0; t < dim; t++)
            for (uint32_t j = 0; j < k; j++)
                c[t * k + j] *= sims[j];
    }

    /* Drop clusters that ended empty (only possible when points repeat). */
    memset(count, 0, (size_t)k * sizeof *count);
    for (size_t i = 0; i < n; i++)
        count[assign[i]]++;
    uint32_t kk = 0;
    for (uint32_t j = 0; j < k; j++)
        if (count[j])
            kk++;
    if (kk == k) {
        out = c;
        c = NULL;
    } else {
        uint32_t *map = malloc((size_t)k * sizeof *map);
        out = malloc((size_t)dim * kk * sizeof *out);
        if (!map || !out) {
            free(map);
            e = err_set(ERR_NOMEM, "out of memory in k-means");
            goto out;
        }
        uint32_t m = 0;
        for (uint32_t j = 0; j < k; j++)
            map[j] = count[j] ? m++ : UINT32_MAX;
        for (size_t t = 0; t < dim; t++)
            for (uint32_t j = 0; j < k; j++)
                if (map[j] != UINT32_MAX)
                    out[t * kk + map[j]] = c[t * k + j];
        for (size_t i = 0; i < n; i++)
            assign[i] = map[assign[i]];
        free(map);
    }
    double obj = 0;
    for (size_t i = 0; i < n; i++) {
        const struct tfidf_vec *x = &pts[i];
        for (uint32_t t = 0; t < x->n; t++)
            obj += x->w[t] * out[(size_t)x->id[t] * kk + assign[i]];
    }
    *objective = obj;
    if (assign_out)
        memcpy(assign_out, assign, n * sizeof *assign);
    *centroids = out;
    *k_out = kk;
out:
    free(dense);
    free(mind);
    free(seeds);
    free(assign);
    free(best);
    free(count);
    free(c);
    free(sims);
    return e;
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
    uint32_t *tmp = assign ? malloc(n * sizeof *tmp) : NULL;
    if (assign && !tmp)
        return err_set(ERR_NOMEM, "out of memory in k-means");
    uint64_t rng = p->seed;
    double best = -1;
    enum err e = ERR_OK;
    for (uint32_t r = 0; r < p->n_init; r++) {
        double *c = NULL, obj = 0;
        uint32_t k;
        if ((e = run_once(pts, n, dim, p, &rng, &c, &k, tmp, &obj)))
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
    if (e) {
        free(*centroids);
        *centroids = NULL;
        *k_out = 0;
    }
    return e;
}
