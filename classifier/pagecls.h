/* Page classifier: TF-IDF, per-class k-means centroids, log-distance confidences (DESIGN §3.1). */
#ifndef SITESCOUT_CLASSIFIER_PAGECLS_H
#define SITESCOUT_CLASSIFIER_PAGECLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "classifier/tokenize.h"
#include "common/buf.h"
#include "common/err.h"

/*
 * Classes are numbered 0..n-1; sitescout uses exactly two, target and other.
 * Everything here works for up to PAGECLS_MAX_CLASSES.
 */
#define PAGECLS_TARGET      0
#define PAGECLS_OTHER       1
#define PAGECLS_MAX_CLASSES 8
#define PAGECLS_MAX_K       256 /* centroids per class */

struct pagecls_params {
    struct tokenize_opts tok; /* stemming, numbers */
    bool sublinear_tf;        /* tf = 1 + ln(count) instead of count */
    uint32_t min_df;          /* terms in fewer training pages are not in the model (>= 1) */
    uint32_t min_sites;       /* ... nor terms used by fewer training websites (>= 1) */
    uint32_t centroids;       /* k-means clusters per class (1..PAGECLS_MAX_K) */
    uint32_t max_iter;        /* k-means iterations at most */
    uint64_t seed;            /* k-means++ seeding and cross-validation folds */
    double eps;               /* distances are clamped to [eps, 1 - eps], 0 < eps < 0.5 */
};

/* The defaults chosen by measurement on the dev web (docs/classifier.md). */
void pagecls_params_default(struct pagecls_params *p);

/* One training page. Borrowed by the training functions for the duration of the call. */
struct pagecls_doc {
    const char *text; /* UTF-8 visible text (need not be NUL-terminated) */
    size_t len;
    uint32_t cls;  /* PAGECLS_TARGET or PAGECLS_OTHER (any class < PAGECLS_MAX_CLASSES) */
    uint32_t site; /* equal for all pages of one website: cross-validation keeps sites whole */
};

/* Cross-validation figures; also stored in the model (p_err is what sitecls needs). */
struct pagecls_cv {
    uint32_t folds;  /* 0 = no cross-validation was run */
    uint32_t sites;  /* websites in the training set */
    uint64_t pages;  /* held-out pages classified (= training pages) */
    double correct;  /* held-out pages whose most likely class was right; a tie counts 1/ties */
    double accuracy; /* correct / pages */
    double p_err;    /* 1 - accuracy: the page classifier's error rate */
};

/* A trained model. Read-only once trained (and once pagecls_set_cv is done), so any number
 * of threads may classify with it, each with its own pagecls_scratch. */
struct pagecls;

/*
 * Train on n pages: vocabulary and IDF from these pages, then k-means per class.
 * Every class from 0 to the largest cls must have at least one page with a term
 * that is kept (min_df, min_sites); at least two classes. *out is the caller's (pagecls_free).
 * The model's cross-validation figures are empty (p_err 0) until pagecls_set_cv.
 */
enum err pagecls_train(const struct pagecls_params *p, const struct pagecls_doc *docs, size_t n,
                       struct pagecls **out) WARN_UNUSED;

/*
 * `folds`-fold cross-validation split by website: all pages of a site are held out
 * together; sites are dealt to folds class by class after a seeded shuffle, so every
 * fold has sites of every class. Each class needs at least two sites; folds is
 * lowered to the number of sites when there are fewer. Fills *cv; when pr_out is not
 * NULL it receives each page's held-out confidences, pr_out[i * n_classes + k].
 */
enum err pagecls_cross_validate(const struct pagecls_params *p, const struct pagecls_doc *docs,
                                size_t n, uint32_t folds, struct pagecls_cv *cv,
                                double *pr_out) WARN_UNUSED;

/* Both: cross-validate, train on everything, store the figures in the model (one tokenisation). */
enum err pagecls_train_cv(const struct pagecls_params *p, const struct pagecls_doc *docs, size_t n,
                          uint32_t folds, struct pagecls **out, double *pr_out) WARN_UNUSED;

void pagecls_free(struct pagecls *m);

uint32_t pagecls_classes(const struct pagecls *m);
uint32_t pagecls_terms(const struct pagecls *m);
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
    double dmin[PAGECLS_MAX_CLASSES]; /* cosine distance to the nearest centroid, unclamped */
    uint32_t known_terms;             /* distinct page terms found in the vocabulary */
};

/* Classify one page's text. Terms unknown to the model are ignored; a page with no
 * known term gets 1/n for every class. s must come from pagecls_scratch_new(m). */
enum err pagecls_classify(const struct pagecls *m, struct pagecls_scratch *s, const char *text,
                          size_t len, struct pagecls_result *r) WARN_UNUSED;

/*
 * The confidence formula of DESIGN §3.1 on given distances:
 * pr[k] = ln d_k / sum_j ln d_j with each d clamped to [eps, 1 - eps]; when all
 * clamped distances are equal every class gets 1/n. n >= 1.
 */
void pagecls_confidence(const double *dmin, uint32_t n, double eps, double *pr);

/* Internal crawler's link weight (DESIGN §3.3): the variance of the page's class
 * confidences; for two classes (pr[0] - 0.5)^2. */
double pagecls_link_weight(const double *pr, uint32_t n);

/*
 * Model bytes: versioned, little-endian, self-contained (tokeniser options,
 * vocabulary, IDF, centroids, cross-validation figures). serialize appends to out
 * (which keeps its cap); deserialize checks every length, id and number and returns
 * ERR_PARSE for anything malformed, truncated or with trailing bytes.
 */
#define PAGECLS_FORMAT_VERSION 1
enum err pagecls_serialize(const struct pagecls *m, struct buf *out) WARN_UNUSED;
enum err pagecls_deserialize(const void *data, size_t len, struct pagecls **out) WARN_UNUSED;

#endif
