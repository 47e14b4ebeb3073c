/* Internal to classifier/: the page classifier model's layout, shared by its three modules. */
#ifndef SITESCOUT_CLASSIFIER_PAGECLS_MODEL_H
#define SITESCOUT_CLASSIFIER_PAGECLS_MODEL_H

#include <stdint.h>

#include "classifier/pagecls.h"
#include "classifier/tfidf.h"
#include "classifier/vocab.h"
#include "common/err.h"

/*
 * Who uses this: pagecls.c (classifies with a model, frees it), pagecls_train.c
 * (builds one from pages) and pagecls_format.c (writes and reads one). Callers outside
 * classifier/ see struct pagecls only as the opaque type of pagecls.h.
 * The functions below are defined in pagecls.c.
 */

/* Cap on n_terms * k_total (512 MiB of centroids), enforced on training and loading alike. */
#define PAGECLS_MAX_CELLS ((uint64_t)1 << 26)

/* A model owns its vocabulary, idf and centroids or weights; pagecls_free releases them all.
 * An SVM (params.kind PAGECLS_SVM) has two classes, k_total 0 and no centroids. */
struct pagecls {
    struct pagecls_params params;
    struct vocab vocab; /* model term ids 0..n_terms-1 */
    uint32_t n_terms;
    double *idf; /* n_terms, all > 0 */
    uint32_t n_classes;
    uint32_t k[PAGECLS_MAX_CLASSES]; /* centroids per class; class c owns columns first[c].. */
    uint32_t first[PAGECLS_MAX_CLASSES];
    uint32_t k_total;
    double *cent; /* term-major: cent[t * k_total + j], each centroid unit length */
    double *w;    /* SVM: n_terms weights, for target (+1) against other (-1) */
    double b;     /* SVM: the bias */
    struct pagecls_cv cv;
};

/* An empty model (all zero, vocabulary initialised) for a builder to fill; NULL when
 * out of memory (no error message set). The caller frees it with pagecls_free. */
struct pagecls *pagecls_new_empty(void);

/* ERR_INVAL with the message users see when a parameter is out of range. */
enum err pagecls_check_params(const struct pagecls_params *p) WARN_UNUSED;

/*
 * Classify a page vector already in model ids with raw counts: weighs and normalises
 * v in place, then fills r. sims is the caller's scratch of m->k_total doubles (none
 * for an SVM).
 */
void pagecls_score_vec(const struct pagecls *m, struct tfidf_vec *v, double *sims,
                       struct pagecls_result *r);

#endif
