/* Precision, recall, F-measure and stratified folds for the website classifier evaluation. */
#include "eval/evalstats.h"

#include <math.h>
#include <stdlib.h>

#include "classifier/rng.h"

void evalstats_add(struct evalstats *s, int truth_relevant, int predicted_relevant)
{
    if (truth_relevant)
        predicted_relevant ? s->tp++ : s->fn++;
    else
        predicted_relevant ? s->fp++ : s->tn++;
}

static double ratio(double num, double den)
{
    return den > 0 ? num / den : 0;
}

double evalstats_precision(const struct evalstats *s)
{
    return ratio(s->tp, (double)s->tp + s->fp);
}

double evalstats_recall(const struct evalstats *s)
{
    return ratio(s->tp, (double)s->tp + s->fn);
}

double evalstats_f1_pr(double precision, double recall)
{
    if (isnan(precision) || isnan(recall))
        return NAN;
    return ratio(2 * precision * recall, precision + recall);
}

double evalstats_f1(const struct evalstats *s)
{
    return evalstats_f1_pr(evalstats_precision(s), evalstats_recall(s));
}

double evalstats_accuracy(const struct evalstats *s)
{
    return ratio((double)s->tp + s->tn, (double)s->tp + s->fp + s->fn + s->tn);
}

enum err evalstats_folds(const int *cls, size_t n, unsigned folds, uint64_t seed, unsigned *fold)
{
    if (folds < 2 || folds > n)
        return err_set(ERR_INVAL, "%u folds for %zu websites: need 2 <= folds <= websites", folds,
                       n);
    size_t *order = malloc(n * sizeof *order);
    if (!order)
        return err_set(ERR_NOMEM, "out of memory");
    uint64_t rng = seed;
    unsigned next = 0;
    for (int c = 0; c < 2; c++) {
        size_t m = 0;
        for (size_t i = 0; i < n; i++)
            if ((cls[i] != 0) == c)
                order[m++] = i;
        rng_shuffle(&rng, order, m);
        for (size_t i = 0; i < m; i++)
            fold[order[i]] = next++ % folds;
    }
    free(order);
    return ERR_OK;
}
