/*
 * The figures of `sitescout eval` (paper Table 2, DESIGN §3.5): a confusion matrix of
 * website decisions with precision, recall and F-measure, and the stratified fold
 * assignment of the website cross-validation. Pure computation.
 */
#ifndef SITESCOUT_EVAL_EVALSTATS_H
#define SITESCOUT_EVAL_EVALSTATS_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

/* Relevant = the positive class (the target topic). */
struct evalstats {
    unsigned tp, fp, fn, tn;
};

void evalstats_add(struct evalstats *s, int truth_relevant, int predicted_relevant);

/*
 * precision = tp / (tp + fp), recall = tp / (tp + fn), F = evalstats_f1_pr(P, R).
 * A ratio with a zero denominator is 0 (no site predicted relevant: precision 0),
 * the usual convention: an empty answer scores nothing.
 */
double evalstats_precision(const struct evalstats *s);
double evalstats_recall(const struct evalstats *s);
double evalstats_f1(const struct evalstats *s);
/*
 * The F-measure 2PR / (P + R) of a precision and a recall: the one F1 of the project
 * (Table 2, runs of `sitescout experiment`). NaN when P or R is NaN (undefined), 0 when
 * P + R = 0.
 */
double evalstats_f1_pr(double precision, double recall);
/* (tp + tn) / all; 0 when empty. */
double evalstats_accuracy(const struct evalstats *s);

/*
 * Deal n websites of two classes (cls[i] 0 or 1) into `folds` folds: each class is
 * shuffled with the seed (splitmix64, the classifier's PRNG) and dealt round-robin,
 * continuing across classes, so that every fold gets its share of both classes and
 * fold sizes differ by at most one. Deterministic for a seed. fold[i] in [0, folds).
 * ERR_INVAL when folds < 2 or folds > n.
 */
enum err evalstats_folds(const int *cls, size_t n, unsigned folds, uint64_t seed,
                         unsigned *fold) WARN_UNUSED;

#endif
