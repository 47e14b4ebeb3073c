/* Training the page classifier: labelled pages in, a model out, with site-split cross-validation.
 */
#ifndef SITESCOUT_CLASSIFIER_PAGECLS_TRAIN_H
#define SITESCOUT_CLASSIFIER_PAGECLS_TRAIN_H

#include <stddef.h>
#include <stdint.h>

#include "classifier/calib.h"
#include "common/err.h"

/* Part of the pagecls.h contract (include that): the model and its parameters live there. */
struct pagecls;
struct pagecls_params;

/* One training page. Borrowed by the training functions for the duration of the call. */
struct pagecls_doc {
    const char *text; /* UTF-8 visible text (need not be NUL-terminated) */
    size_t len;
    uint32_t cls;  /* PAGECLS_TARGET or PAGECLS_OTHER (any class < PAGECLS_MAX_CLASSES) */
    uint32_t site; /* equal for all pages of one website: cross-validation keeps sites whole */
};

/* Cross-validation figures; also stored in the model (p_err is what sitecls needs). */
struct pagecls_cv {
    uint32_t folds;     /* 0 = no cross-validation was run */
    uint32_t sites;     /* websites in the training set */
    uint64_t pages;     /* held-out pages classified (= training pages) */
    double correct;     /* held-out pages whose most likely class was right; a tie counts 1/ties */
    double accuracy;    /* correct / pages */
    double p_err;       /* 1 - accuracy: the page classifier's error rate */
    struct calib calib; /* of Pr[p|target], fit on the held-out pages (classifier/calib.h);
                         * accuracy and p_err are those of the calibrated classifier */
};

/*
 * Train on n pages: vocabulary and IDF from these pages, then k-means per class or
 * (p->kind PAGECLS_SVM, two classes only) a linear SVM. Every class from 0 to the largest cls must
 * have at least one page with a term that is kept (min_df, min_sites); at least two classes. *out
 * is the caller's (pagecls_free). The model's cross-validation figures are empty (p_err 0) until
 * pagecls_set_cv.
 */
enum err pagecls_train(const struct pagecls_params *p, const struct pagecls_doc *docs, size_t n,
                       struct pagecls **out) WARN_UNUSED;

/*
 * `folds`-fold cross-validation split by website: all pages of a site are held out
 * together; sites are dealt to folds class by class after a seeded shuffle, so every
 * fold has sites of every class. Each class needs at least two sites; folds is
 * lowered to the number of sites when there are fewer. Fills *cv; when pr_out is not
 * NULL it receives each page's held-out confidences, pr_out[i * n_classes + k]
 * (calibrated: see struct pagecls_cv).
 */
enum err pagecls_cross_validate(const struct pagecls_params *p, const struct pagecls_doc *docs,
                                size_t n, uint32_t folds, struct pagecls_cv *cv,
                                double *pr_out) WARN_UNUSED;

/*
 * kNN: the centroids of a class with `sites` training websites: p->centroids when
 * p->sites_per_centroid is 0, else sites / p->sites_per_centroid rounded up, kept
 * within [1, p->centroids]. Why: a centroid should stand for several websites, not
 * follow a few (docs/classifier.md).
 */
uint32_t pagecls_class_centroids(const struct pagecls_params *p, uint32_t sites);

/* Both: cross-validate, train on everything, store the figures in the model (one tokenisation). */
enum err pagecls_train_cv(const struct pagecls_params *p, const struct pagecls_doc *docs, size_t n,
                          uint32_t folds, struct pagecls **out, double *pr_out) WARN_UNUSED;

#endif
