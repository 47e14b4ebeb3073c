/* Linear SVM by dual coordinate descent (Hsieh et al. 2008, their Algorithm 1, no shrinking). */
#include "classifier/svm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "classifier/rng.h"

void svm_params_default(struct svm_params *p)
{
    p->loss = SVM_L2_LOSS;
    p->c_pos = 1;
    p->c_neg = 1;
    p->bias = 1;
    p->tol = 0.01;
    p->max_iter = 1000;
    p->seed = 1;
}

void svm_class_costs(double c, size_t n_pos, size_t n_neg, double *c_pos, double *c_neg)
{
    double n = (double)(n_pos + n_neg);
    *c_pos = n_pos ? c * n / (2.0 * (double)n_pos) : c;
    *c_neg = n_neg ? c * n / (2.0 * (double)n_neg) : c;
}

double svm_decision(const double *w, double b, const struct tfidf_vec *x)
{
    double f = b;
    for (uint32_t e = 0; e < x->n; e++)
        f += w[x->id[e]] * x->w[e];
    return f;
}

static enum err check(const struct svm_params *p, const struct tfidf_vec *x, const int8_t *y,
                      size_t n, uint32_t dim)
{
    if ((p->loss != SVM_L1_LOSS && p->loss != SVM_L2_LOSS) || !(p->c_pos > 0) || !(p->c_neg > 0) ||
        !isfinite(p->c_pos) || !isfinite(p->c_neg) || !(p->bias >= 0) || !isfinite(p->bias) ||
        !(p->tol > 0) || p->max_iter < 1)
        return err_set(ERR_INVAL, "svm: parameters out of range");
    for (size_t i = 0; i < n; i++) {
        if (y[i] != 1 && y[i] != -1)
            return err_set(ERR_INVAL, "svm: label %d of example %zu is not +1 or -1", y[i], i);
        for (uint32_t e = 0; e < x[i].n; e++)
            if (x[i].id[e] >= dim || !isfinite(x[i].w[e]))
                return err_set(ERR_INVAL, "svm: example %zu has a bad entry", i);
    }
    return ERR_OK;
}

/*
 * The dual: min_a 1/2 a'Qa - sum a, 0 <= a_i <= U_i, with Q = y_i y_j x_i . x_j + D.
 * L1-loss: U_i = C_i, D_ii = 0; L2-loss: U_i = inf, D_ii = 1 / (2 C_i). w = sum a_i y_i x_i
 * is kept up to date, so each coordinate step costs one pass over x_i's entries.
 */
enum err svm_train(const struct svm_params *p, const struct tfidf_vec *x, const int8_t *y, size_t n,
                   uint32_t dim, double *w, double *b, uint32_t *passes)
{
    enum err e = check(p, x, y, n, dim);
    double wb = 0; /* the weight of the constant feature */
    uint32_t pass = 0;
    *b = 0;
    if (passes)
        *passes = 0;
    if (e)
        return e;
    memset(w, 0, (size_t)dim * sizeof *w);
    double *alpha = calloc(n ? n : 1, sizeof *alpha);
    double *qd = malloc((n ? n : 1) * sizeof *qd);
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    if (!alpha || !qd || !order) {
        e = err_set(ERR_NOMEM, "out of memory training the svm");
        goto out;
    }
    size_t m = 0; /* the examples that constrain w, in order[0..m) */
    for (size_t i = 0; i < n; i++) {
        double c = y[i] > 0 ? p->c_pos : p->c_neg;
        qd[i] = p->bias * p->bias + (p->loss == SVM_L2_LOSS ? 0.5 / c : 0);
        for (uint32_t k = 0; k < x[i].n; k++)
            qd[i] += x[i].w[k] * x[i].w[k];
        if (x[i].n > 0 || p->bias > 0)
            order[m++] = i;
    }
    uint64_t rng = p->seed;
    for (pass = 0; pass < p->max_iter && m > 0; pass++) {
        double pg_max = -INFINITY, pg_min = INFINITY;
        rng_shuffle(&rng, order, m);
        for (size_t o = 0; o < m; o++) {
            size_t i = order[o];
            double c = y[i] > 0 ? p->c_pos : p->c_neg;
            double upper = p->loss == SVM_L1_LOSS ? c : INFINITY;
            double diag = p->loss == SVM_L2_LOSS ? 0.5 / c : 0;
            double g = y[i] * (svm_decision(w, wb * p->bias, &x[i])) - 1 + diag * alpha[i];
            double pg = g; /* projected on the box [0, upper] */
            if (alpha[i] == 0 && g > 0)
                pg = 0;
            else if (alpha[i] == upper && g < 0)
                pg = 0;
            if (pg > pg_max)
                pg_max = pg;
            if (pg < pg_min)
                pg_min = pg;
            if (fabs(pg) < 1e-12 || !(qd[i] > 0))
                continue;
            double a = alpha[i] - g / qd[i];
            a = a < 0 ? 0 : a > upper ? upper : a;
            double d = (a - alpha[i]) * y[i];
            alpha[i] = a;
            for (uint32_t k = 0; k < x[i].n; k++)
                w[x[i].id[k]] += d * x[i].w[k];
            wb += d * p->bias;
        }
        if (pg_max - pg_min < p->tol) {
            pass++;
            break;
        }
    }
    *b = wb * p->bias;
out:
    if (passes)
        *passes = pass;
    free(alpha);
    free(qd);
    free(order);
    return e;
}
