/* Platt scaling of the page classifier's confidence: fit and apply. */
#include "classifier/calib.h"

#include <math.h>
#include <stdlib.h>

#define X_CLAMP   1e-6 /* confidences are kept in [X_CLAMP, 1 - X_CLAMP] before the logit */
#define MAX_ITER  100
#define TOLERANCE 1e-10
#define MIN_STEP  1e-10
#define RIDGE     1e-9 /* keeps the Hessian invertible */

static double logit(double x)
{
    if (!(x >= X_CLAMP))
        x = X_CLAMP;
    if (x > 1 - X_CLAMP)
        x = 1 - X_CLAMP;
    return log(x / (1 - x));
}

/* sigma(t) without overflow. */
static double sigmoid(double t)
{
    return t >= 0 ? 1 / (1 + exp(-t)) : exp(t) / (1 + exp(t));
}

/* The page's evidence before the slope: its logit, shrunk when it has few terms. */
static double evidence(double x, uint32_t terms, double short_terms)
{
    return logit(x) * terms / (terms + short_terms);
}

struct fit_sums {
    double loss, g, h; /* the loss with its first and second derivative in a */
};

/* The weighted log-loss at slope a of pages with evidence z, with its derivatives. */
static void sums(const double *z, const bool *target, size_t n, const double w[2],
                 const double y[2], double a, struct fit_sums *s)
{
    *s = (struct fit_sums){0};
    for (size_t i = 0; i < n; i++) {
        int k = target[i] ? 1 : 0;
        double p = sigmoid(a * z[i]), t = y[k], wi = w[k];
        double pc = p < 1e-15 ? 1e-15 : p > 1 - 1e-15 ? 1 - 1e-15 : p;
        s->loss -= wi * (t * log(pc) + (1 - t) * log(1 - pc));
        s->g += wi * (p - t) * z[i];
        s->h += wi * p * (1 - p) * z[i] * z[i];
    }
}

/* The slope a minimising the loss, by Newton's method with backtracking. */
static double fit_slope(const double *z, const bool *target, size_t n, const double w[2],
                        const double y[2])
{
    double a = 1;
    struct fit_sums s;
    sums(z, target, n, w, y, a, &s);
    for (int it = 0; it < MAX_ITER; it++) {
        double da = s.g / (s.h + RIDGE), step = 1;
        struct fit_sums t;
        for (;;) {
            sums(z, target, n, w, y, a - step * da, &t);
            if (t.loss <= s.loss || step < MIN_STEP)
                break;
            step /= 2;
        }
        if (step < MIN_STEP)
            break;
        a -= step * da;
        double gain = s.loss - t.loss;
        s = t;
        if (gain < TOLERANCE)
            break;
    }
    return a;
}

void calib_fit(const double *x, const uint32_t *terms, const bool *target, size_t n,
               struct calib *out)
{
    *out = (struct calib){0};
    size_t npos = 0;
    for (size_t i = 0; i < n; i++)
        npos += target[i];
    size_t nneg = n - npos;
    double *z = npos && nneg ? malloc(n * sizeof *z) : NULL;
    if (!z)
        return; /* one class only (or out of memory): no calibration */
    for (size_t i = 0; i < n; i++)
        z[i] = evidence(x[i], terms[i], CALIB_SHORT_TERMS);
    /* Each class weighs half; Platt's targets keep a separable set from running off. */
    const double w[2] = {0.5 / (double)nneg, 0.5 / (double)npos};
    const double y[2] = {1.0 / ((double)nneg + 2), ((double)npos + 1) / ((double)npos + 2)};
    double a = fit_slope(z, target, n, w, y);
    free(z);
    if (a > 0 && isfinite(a))
        *out = (struct calib){a, CALIB_TEMPER, CALIB_SHORT_TERMS};
}

double calib_apply(const struct calib *c, double x, uint32_t terms)
{
    if (!(c->a > 0))
        return x;
    return sigmoid(c->temper * c->a * evidence(x, terms, c->short_terms));
}
