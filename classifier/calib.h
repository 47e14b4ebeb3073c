/*
 * Calibration of the page classifier's confidence (issue 13, beyond the paper), fit on
 * the held-out pages of the training cross-validation:
 *
 *   z             = logit(Pr[p|target]) * n / (n + CALIB_SHORT_TERMS)
 *   calibrated(p) = 1 / (1 + exp(-CALIB_TEMPER * a * z))
 *
 * n is the number of distinct page terms the model knows; a > 0 is fit on the held-out
 * pages (class-balanced log-loss with Platt's smoothed targets, Newton's method).
 *
 * Why (docs/classifier.md has the figures):
 * - The paper's log-distance confidence (§4.3.1) squeezes pages towards 1/2. On a
 *   dev-large crawl of sci.space, pages it gave 0.55-0.60 came from relevant websites
 *   89-96% of the time, and pages at 0.35-0.45 only 4-8% of the time; the website
 *   classifier needed about ten pages per website to reach p_threshold. The slope a
 *   restores the evidence a page carries.
 * - No intercept: a page as close to both classes is no evidence either way, as in the
 *   paper. A fitted intercept leaned generic pages towards the target and cost
 *   precision (cv precision 0.79 and 0.70 on sci.space and rec.motorcycles).
 * - Pages of one website are not independent draws, so the Bayes product over-counts
 *   calibrated evidence: CALIB_TEMPER tempers it.
 * - A near-empty page (a frameset's "Welcome to X", one known term) is no sign of a
 *   topic however close its one term lies to a centroid: its evidence shrinks with
 *   how few known terms it holds. Without this, frameset homepages decided 86% of the
 *   false positives of a calibrated rec.motorcycles crawl.
 * CALIB_TEMPER and CALIB_SHORT_TERMS were chosen on sci.space and rec.motorcycles
 * crawls (BENCHMARKS.md); they are stored with each model.
 */
#ifndef SITESCOUT_CLASSIFIER_CALIB_H
#define SITESCOUT_CLASSIFIER_CALIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CALIB_TEMPER      0.7
#define CALIB_SHORT_TERMS 30.0

struct calib {
    double a;           /* fitted slope; 0: no calibration (the identity) */
    double temper;      /* CALIB_TEMPER when fitted */
    double short_terms; /* CALIB_SHORT_TERMS when fitted */
    double offset;      /* calib_fit_shifted's; 0 for calib_fit */
};

/*
 * Fit on n held-out pages: x[i] their Pr[p|target], terms[i] their known terms,
 * target[i] whether they came from a target website. Leaves the identity when either
 * class has no page or the fit does not give a finite a > 0.
 */
void calib_fit(const double *x, const uint32_t *terms, const bool *target, size_t n,
               struct calib *out);

/*
 * The SVM's variant (classifier/svm.h): its margin's 0 is where the training pages
 * balance, not the held-out ones, and on held-out websites it leaned target pages to
 * "other" (docs/classifier.md). So the evidence also gets a fitted shift, scaled like
 * it by n / (n + CALIB_SHORT_TERMS), so that a page of few known terms still says
 * little:
 *   calibrated = 1 / (1 + exp(-CALIB_TEMPER * (a * z + offset * n / (n + CALIB_SHORT_TERMS))))
 * with a > 0 and offset fit together (the same loss, Newton's method in two
 * dimensions). Leaves the identity like calib_fit.
 */
void calib_fit_shifted(const double *x, const uint32_t *terms, const bool *target, size_t n,
                       struct calib *out);

/* The calibrated confidence of a page of confidence x with `terms` known terms. */
double calib_apply(const struct calib *c, double x, uint32_t terms);

#endif
