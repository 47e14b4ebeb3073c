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
        *out = (struct calib){a, CALIB_TEMPER, CALIB_SHORT_TERMS, 0};
}

/* ---- with a shift: two parameters ---- */

struct fit2_sums {
    double loss, g[2], h[3]; /* the loss, its gradient and Hessian (hab in h[1]) in (a, offset) */
};

/* The weighted log-loss at (a, offset) of pages with evidence z and shrink s. */
static void sums2(const double *z, const double *s, const bool *target, size_t n, const double w[2],
                  const double y[2], const double v[2], struct fit2_sums *o)
{
    *o = (struct fit2_sums){0};
    for (size_t i = 0; i < n; i++) {
        int k = target[i] ? 1 : 0;
        double p = sigmoid(v[0] * z[i] + v[1] * s[i]), t = y[k], wi = w[k];
        double pc = p < 1e-15 ? 1e-15 : p > 1 - 1e-15 ? 1 - 1e-15 : p;
        double q = wi * p * (1 - p);
        o->loss -= wi * (t * log(pc) + (1 - t) * log(1 - pc));
        o->g[0] += wi * (p - t) * z[i];
        o->g[1] += wi * (p - t) * s[i];
        o->h[0] += q * z[i] * z[i];
        o->h[1] += q * z[i] * s[i];
        o->h[2] += q * s[i] * s[i];
    }
}

/* (a, offset) minimising the loss: Newton's method with backtracking from (1, 0). */
static void fit_shift(const double *z, const double *s, const bool *target, size_t n,
                      const double w[2], const double y[2], double v[2])
{
    v[0] = 1;
    v[1] = 0;
    struct fit2_sums cur;
    sums2(z, s, target, n, w, y, v, &cur);
    for (int it = 0; it < MAX_ITER; it++) {
        double h00 = cur.h[0] + RIDGE, h01 = cur.h[1], h11 = cur.h[2] + RIDGE;
        double det = h00 * h11 - h01 * h01;
        if (!(det > 0))
            break;
        double d0 = (h11 * cur.g[0] - h01 * cur.g[1]) / det;
        double d1 = (h00 * cur.g[1] - h01 * cur.g[0]) / det;
        double step = 1, t[2];
        struct fit2_sums next;
        for (;;) {
            t[0] = v[0] - step * d0;
            t[1] = v[1] - step * d1;
            sums2(z, s, target, n, w, y, t, &next);
            if (next.loss <= cur.loss || step < MIN_STEP)
                break;
            step /= 2;
        }
        if (step < MIN_STEP)
            break;
        v[0] = t[0];
        v[1] = t[1];
        double gain = cur.loss - next.loss;
        cur = next;
        if (gain < TOLERANCE)
            break;
    }
}

void calib_fit_shifted(const double *x, const uint32_t *terms, const bool *target, size_t n,
                       struct calib *out)
{
    *out = (struct calib){0};
    size_t npos = 0;
    for (size_t i = 0; i < n; i++)
        npos += target[i];
    size_t nneg = n - npos;
    double *z = npos && nneg ? malloc(2 * n * sizeof *z) : NULL;
    if (!z)
        return;
    double *s = z + n;
    for (size_t i = 0; i < n; i++) {
        z[i] = evidence(x[i], terms[i], CALIB_SHORT_TERMS);
        s[i] = terms[i] / (terms[i] + CALIB_SHORT_TERMS);
    }
    const double w[2] = {0.5 / (double)nneg, 0.5 / (double)npos};
    const double y[2] = {1.0 / ((double)nneg + 2), ((double)npos + 1) / ((double)npos + 2)};
    double v[2];
    fit_shift(z, s, target, n, w, y, v);
    free(z);
    if (v[0] > 0 && isfinite(v[0]) && isfinite(v[1]))
        *out = (struct calib){v[0], CALIB_TEMPER, CALIB_SHORT_TERMS, v[1]};
}

double calib_apply(const struct calib *c, double x, uint32_t terms)
{
    if (!(c->a > 0))
        return x;
    if (c->offset == 0) /* calib_fit's, computed as it always was */
        return sigmoid(c->temper * c->a * evidence(x, terms, c->short_terms));
    double shrink = terms / (terms + c->short_terms);
    return sigmoid(c->temper * (c->a * evidence(x, terms, c->short_terms) + c->offset * shrink));
}
