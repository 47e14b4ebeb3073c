/* Page classifier: TF-IDF, then centroid kNN (DESIGN §3.1) or a linear SVM (seed 004, §7.4). */
#ifndef SITESCOUT_CLASSIFIER_PAGECLS_H
#define SITESCOUT_CLASSIFIER_PAGECLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "classifier/pagecls_format.h"
#include "classifier/pagecls_train.h"
#include "classifier/tokenize.h"
#include "common/buf.h"
#include "common/err.h"

/*
 * The one header callers include. The classifier is three modules behind it:
 *   pagecls.c         the model, its accessors and classification (this file's declarations);
 *   pagecls_train.c   training and site-split cross-validation (pagecls_train.h);
 *   pagecls_format.c  model bytes (pagecls_format.h).
 * pagecls_model.h is their shared, internal view of the model.
 */

/*
 * Classes are numbered 0..n-1; sitescout uses exactly two, target and other.
 * Everything here works for up to PAGECLS_MAX_CLASSES.
 */
#define PAGECLS_TARGET                 0
#define PAGECLS_OTHER                  1
#define PAGECLS_MAX_CLASSES            8
#define PAGECLS_MAX_K                  256 /* centroids per class */
#define PAGECLS_MAX_SITES_PER_CENTROID 100000
#define PAGECLS_MAX_SVM_C              1e6 /* largest svm_c */

/*
 * What learns from the TF-IDF vectors (docs/classifier.md):
 * - PAGECLS_KNN: per-class k-means centroids, log-distance confidences (the paper's);
 * - PAGECLS_SVM: a linear SVM (classifier/svm.h) with class-balanced costs; two classes
 *   only; its confidence is sigma(w . x + b), calibrated like the kNN's.
 */
enum pagecls_kind {
    PAGECLS_KNN = 0, /* the paper's */
    PAGECLS_SVM = 1,
    PAGECLS_N_KINDS /* how many: pagecls_kind_name's table has a name for each */
};

/* The name of a kind ("knn", "svm": the job parameter classifier takes them), or NULL
 * past the last. */
const char *pagecls_kind_name(size_t kind);

struct pagecls_params {
    struct tokenize_opts tok;    /* stemming, numbers */
    bool sublinear_tf;           /* tf = 1 + ln(count) instead of count */
    uint32_t min_df;             /* terms in fewer training pages are not in the model (>= 1) */
    uint32_t min_sites;          /* ... nor terms used by fewer training websites (>= 1) */
    uint32_t kind;               /* enum pagecls_kind */
    uint32_t centroids;          /* kNN: k-means clusters per class at most (1..PAGECLS_MAX_K) */
    uint32_t sites_per_centroid; /* kNN: a class gets one centroid per this many of its
                                  * training websites (rounded up), at most `centroids`
                                  * (0: always `centroids`); pagecls_class_centroids. Not
                                  * stored in the model (the model stores each class's k) */
    uint32_t max_iter;           /* k-means iterations at most */
    uint64_t seed;               /* k-means++ seeding and cross-validation folds */
    double eps;                  /* distances are clamped to [eps, 1 - eps], 0 < eps < 0.5 */
    double svm_c;                /* SVM: the cost C before class weights, (0, PAGECLS_MAX_SVM_C] */
    bool calibrate;              /* fit a calibration in cross-validation (classifier/calib.h); not
                                  * stored in the model (the model stores the calibration) */
};

/* The defaults chosen by measurement on the dev web (docs/classifier.md). */
void pagecls_params_default(struct pagecls_params *p);

/* A trained model. Read-only once trained (and once pagecls_set_cv is done), so any number
 * of threads may classify with it, each with its own pagecls_scratch. */
struct pagecls;

void pagecls_free(struct pagecls *m);

uint32_t pagecls_classes(const struct pagecls *m);
uint32_t pagecls_terms(const struct pagecls *m);
enum pagecls_kind pagecls_kind(const struct pagecls *m);
/* kNN: the class's centroids; 0 for an SVM. */
uint32_t pagecls_centroids(const struct pagecls *m, uint32_t cls);
const struct pagecls_params *pagecls_get_params(const struct pagecls *m);
const struct pagecls_cv *pagecls_get_cv(const struct pagecls *m);
void pagecls_set_cv(struct pagecls *m, const struct pagecls_cv *cv);
/* The model's page error rate (cv p_err); 0 when never cross-validated. */
double pagecls_p_err(const struct pagecls *m);

/*
 * Per-thread working memory for classification (tokenizer with its stemmer, term
 * counts). Made for one model; free with pagecls_scratch_free (NULL is fine).
 */
struct pagecls_scratch;

enum err pagecls_scratch_new(const struct pagecls *m, struct pagecls_scratch **out) WARN_UNUSED;
void pagecls_scratch_free(struct pagecls_scratch *s);

struct pagecls_result {
    double pr[PAGECLS_MAX_CLASSES];   /* Pr[p|C_k]; sums to 1 over the model's classes */
    double dmin[PAGECLS_MAX_CLASSES]; /* kNN: cosine distance to the nearest centroid,
                                       * unclamped; SVM: 0 */
    double margin;                    /* SVM: w . x + b (> 0: target); kNN: 0 */
    uint32_t known_terms;             /* distinct page terms found in the vocabulary */
};

/* Classify one page's text. Terms unknown to the model are ignored; a page with no
 * known term gets 1/n for every class (an SVM's bias alone is no evidence about the
 * page). s must come from pagecls_scratch_new(m). */
enum err pagecls_classify(const struct pagecls *m, struct pagecls_scratch *s, const char *text,
                          size_t len, struct pagecls_result *r) WARN_UNUSED;

/*
 * Append the page's term counts in termvec's text form (classifier/termvec.h), tokenized
 * as the model tokenizes: what a job keeps of a page to judge it again (issue 30).
 */
enum err pagecls_term_counts(struct pagecls_scratch *s, const char *text, size_t len,
                             struct buf *out) WARN_UNUSED;

/*
 * The confidence formula of DESIGN §3.1 on given distances:
 * pr[k] = ln d_k / sum_j ln d_j with each d clamped to [eps, 1 - eps]; when all
 * clamped distances are equal every class gets 1/n. n >= 1.
 */
void pagecls_confidence(const double *dmin, uint32_t n, double eps, double *pr);

/* Internal crawler's link weight (DESIGN §3.3): the variance of the page's class
 * confidences; for two classes (pr[0] - 0.5)^2. */
double pagecls_link_weight(const double *pr, uint32_t n);

#endif
