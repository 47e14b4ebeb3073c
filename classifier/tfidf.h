/* Sparse TF-IDF vectors: term counting, tf and idf weights, L2 norm, cosine. */
#ifndef SITESCOUT_CLASSIFIER_TFIDF_H
#define SITESCOUT_CLASSIFIER_TFIDF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

/*
 * A sparse vector: n (term id, weight) pairs. Sorted by id only where a function
 * says so. Embedded: init/release; it owns its arrays.
 */
struct tfidf_vec {
    uint32_t *id;
    double *w;
    uint32_t n, cap;
};

void tfidf_vec_init(struct tfidf_vec *v);
void tfidf_vec_release(struct tfidf_vec *v);
enum err tfidf_vec_push(struct tfidf_vec *v, uint32_t id, double w) WARN_UNUSED;
void tfidf_vec_sort(struct tfidf_vec *v); /* by id; ids must be distinct */

/* Term frequency weight of a raw count: 1 + ln(count) when sublinear, else count; 0 for 0. */
double tfidf_tf(double count, bool sublinear);

/*
 * Smoothed inverse document frequency ln((1 + n_docs) / (1 + df)) + 1: always >= 1
 * for df <= n_docs, so a term in every training page still counts a little.
 */
double tfidf_idf(size_t n_docs, size_t df);

/* w[i] = tf(w[i]) * idf[id[i]], dropping entries whose idf is 0 (pruned terms). */
void tfidf_weigh(struct tfidf_vec *v, const double *idf, bool sublinear);

/* Scale to unit L2 length; returns the length before (0 leaves v unchanged). */
double tfidf_normalize(struct tfidf_vec *v);

/* Dot product of two id-sorted vectors (= cosine similarity when both are unit). */
double tfidf_dot(const struct tfidf_vec *a, const struct tfidf_vec *b);

/*
 * Counts term ids of one document without sorting or hashing: a dense count per id
 * plus the list of ids touched. Embedded: init/release. Grows to the largest id seen.
 */
struct tfidf_counter {
    uint32_t *count;
    uint32_t cap;
    uint32_t *touched;
    uint32_t ntouched, touched_cap;
};

void tfidf_counter_init(struct tfidf_counter *c);
void tfidf_counter_release(struct tfidf_counter *c);
enum err tfidf_counter_add(struct tfidf_counter *c, uint32_t id) WARN_UNUSED;

/*
 * Move the counts into out (cleared first; w = count, ids in first-seen order or
 * sorted) and reset the counter for the next document.
 */
enum err tfidf_counter_take(struct tfidf_counter *c, struct tfidf_vec *out,
                            bool sorted) WARN_UNUSED;

#endif
