/* Spherical k-means (cosine) over sparse unit vectors, k-means++ seeding, deterministic. */
#ifndef SITESCOUT_CLASSIFIER_KMEANS_H
#define SITESCOUT_CLASSIFIER_KMEANS_H

#include <stddef.h>
#include <stdint.h>

#include "classifier/tfidf.h"
#include "common/err.h"

struct kmeans_params {
    uint32_t k;        /* wanted clusters (>= 1) */
    uint32_t max_iter; /* Lloyd iterations at most (>= 1) */
    uint32_t n_init;   /* independent seedings; the most cohesive result wins (>= 1) */
    uint64_t seed;     /* same seed + same input = same result */
};

/*
 * Cluster n unit vectors (ids < dim, any order, none empty) by cosine similarity.
 * Seeding is k-means++ with D(x) = 1 - cos(x, nearest seed); then Lloyd steps
 * (assign to the most similar centroid, lowest index on ties; centroid = normalised
 * sum of its points) until no point moves or max_iter. An empty cluster takes the
 * point farthest from its centroid among clusters of two or more points. The whole
 * run is repeated n_init times (the PRNG continues) and the result with the largest
 * sum of point-to-centroid similarities is kept.
 *
 * Fewer clusters than k come out when there are fewer distinct points than k
 * (k larger than n is fine). On success *centroids is a malloc'd term-major matrix
 * (element [t * *k_out + j] is term t of centroid j, each centroid unit length),
 * owned by the caller (free()); assign, if not NULL, gets each point's cluster.
 */
enum err kmeans_run(const struct tfidf_vec *points, size_t n, uint32_t dim,
                    const struct kmeans_params *p, double **centroids, uint32_t *k_out,
                    uint32_t *assign) WARN_UNUSED;

#endif
