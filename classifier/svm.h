/* Linear SVM: L2-regularised L1- or L2-loss, trained by dual coordinate descent. */
#ifndef SITESCOUT_CLASSIFIER_SVM_H
#define SITESCOUT_CLASSIFIER_SVM_H

#include <stddef.h>
#include <stdint.h>

#include "classifier/tfidf.h"
#include "common/err.h"

/*
 * The problem (Hsieh, Chang, Lin, Keerthi, Sundararajan, ICML 2008, "A dual
 * coordinate descent method for large-scale linear SVM"), with the bias as one more
 * weight on a constant feature B appended to every x (so b = w_B * B is regularised
 * too, as in liblinear):
 *
 *   min_w  1/2 |w|^2 + sum_i C_i loss(1 - y_i (w . x_i + b))
 *   loss(t) = max(0, t) (SVM_L1_LOSS, the hinge) or max(0, t)^2 (SVM_L2_LOSS)
 *
 * solved in the dual, one alpha_i at a time in a seeded random order, until the
 * spread of the projected gradient is below tol or after max_iter passes. C_i is the
 * C of i's class: class weights go into c_pos and c_neg (svm_class_costs).
 * Pure computation; no global state, so any number of threads may train at once.
 */
enum svm_loss {
    SVM_L1_LOSS = 1,
    SVM_L2_LOSS = 2,
};

struct svm_params {
    enum svm_loss loss;
    double c_pos, c_neg; /* C of the y = +1 and y = -1 examples, > 0 */
    double bias;         /* the constant feature B (>= 0; 0: b stays 0) */
    double tol;          /* stop when max - min projected gradient < tol (> 0) */
    uint32_t max_iter;   /* passes over the data at most (>= 1) */
    uint64_t seed;       /* the order of the coordinates */
};

/* tol 0.01, at most 1000 passes, B = 1, the hinge squared, C = 1 for both classes. */
void svm_params_default(struct svm_params *p);

/*
 * Class-balanced costs: each class weighs as much in total, as if both had n/2
 * examples: c_pos = c * n / (2 n_pos), c_neg = c * n / (2 n_neg). A class with no
 * example gets c.
 */
void svm_class_costs(double c, size_t n_pos, size_t n_neg, double *c_pos, double *c_neg);

/*
 * Train on n examples x[i] (sparse, ids < dim, any order; borrowed) with labels
 * y[i] = +1 or -1. w (dim doubles, the caller's) and *b receive the solution;
 * *passes (may be NULL) the passes made. Examples without any entry are skipped
 * when bias is 0 (they do not constrain w). ERR_INVAL on bad parameters or labels,
 * ERR_NOMEM when out of memory.
 */
enum err svm_train(const struct svm_params *p, const struct tfidf_vec *x, const int8_t *y, size_t n,
                   uint32_t dim, double *w, double *b, uint32_t *passes) WARN_UNUSED;

/* The decision value w . x + b (ids of x < the length of w). */
double svm_decision(const double *w, double b, const struct tfidf_vec *x);

#endif
