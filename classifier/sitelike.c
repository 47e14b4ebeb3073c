/* Websites alike by their words (sitelike.h). */
#include "classifier/sitelike.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum err sitelike_vector(const struct sitelike_sites *w, size_t s, double *sum, struct tfidf_vec *v)
{
    tfidf_vec_init(v);
    enum err e = ERR_OK;
    for (size_t i = w->at[s]; i < w->at[s + 1]; i++)
        sum[w->term[i]] += w->count[i];
    for (uint32_t t = 0; t < w->n_terms; t++)
        if (sum[t] > 0) {
            if (!e)
                e = tfidf_vec_push(v, t, 1 + log(sum[t]));
            sum[t] = 0;
        }
    if (!e)
        tfidf_normalize(v);
    return e;
}

/*
 * The labelled websites' vectors (sitelike_vector: unit length) as dense rows by term: the
 * rejected websites' columns first, then the relevant ones'; row[t] is term t's row
 * (UINT32_MAX: in none of them), lab[j] column j's website.
 */
struct label_rows {
    size_t *lab;
    size_t n_lab, n_rej;
    uint32_t *row;
    double *w; /* n_rows x n_lab */
};

static void label_rows_release(struct label_rows *lr)
{
    free(lr->lab);
    free(lr->row);
    free(lr->w);
}

static enum err label_rows_build(const struct sitelike_sites *w, uint32_t rejected,
                                 uint32_t relevant, double *sum, struct label_rows *lr)
{
    *lr = (struct label_rows){0};
    lr->lab = malloc((w->n ? w->n : 1) * sizeof *lr->lab);
    lr->row = malloc((w->n_terms ? w->n_terms : 1) * sizeof *lr->row);
    struct tfidf_vec *v = calloc(w->n ? w->n : 1, sizeof *v);
    enum err e = lr->lab && lr->row && v ? ERR_OK : err_set(ERR_NOMEM, "out of memory");
    for (uint32_t label = rejected, pass = 0; !e && pass < 2; pass++) {
        for (size_t s = 0; !e && s < w->n; s++)
            if (w->label[s] == label) {
                lr->lab[lr->n_lab] = s;
                e = sitelike_vector(w, s, sum, &v[lr->n_lab++]);
            }
        if (!pass)
            lr->n_rej = lr->n_lab, label = relevant;
    }
    size_t n_rows = 0;
    for (uint32_t t = 0; !e && t < w->n_terms; t++)
        lr->row[t] = UINT32_MAX;
    for (size_t j = 0; !e && j < lr->n_lab; j++)
        for (uint32_t i = 0; i < v[j].n; i++)
            if (lr->row[v[j].id[i]] == UINT32_MAX)
                lr->row[v[j].id[i]] = (uint32_t)n_rows++;
    if (!e && !(lr->w = calloc(n_rows * lr->n_lab + 1, sizeof *lr->w)))
        e = err_set(ERR_NOMEM, "out of memory");
    for (size_t j = 0; !e && j < lr->n_lab; j++)
        for (uint32_t i = 0; i < v[j].n; i++)
            lr->w[(size_t)lr->row[v[j].id[i]] * lr->n_lab + j] = v[j].w[i];
    for (size_t j = 0; v && j < lr->n_lab; j++)
        tfidf_vec_release(&v[j]);
    free(v);
    return e;
}

/* Website s's likeness to each labelled website into dot[0..n_lab): the dot product of
 * its 1 + ln(count) vector, not made unit (the same factor for all), with theirs; sum is
 * n_terms zeros, left so. 0 when it has no term of theirs. */
static int likeness(const struct sitelike_sites *w, size_t s, const struct label_rows *lr,
                    double *sum, double *dot)
{
    int any = 0;
    memset(dot, 0, lr->n_lab * sizeof *dot);
    for (size_t i = w->at[s]; i < w->at[s + 1]; i++)
        sum[w->term[i]] += w->count[i];
    for (size_t i = w->at[s]; i < w->at[s + 1]; i++) {
        uint32_t t = w->term[i], r = lr->row[t];
        if (sum[t] > 0 && r != UINT32_MAX) {
            double x = 1 + log(sum[t]);
            const double *row = lr->w + (size_t)r * lr->n_lab;
            for (size_t j = 0; j < lr->n_lab; j++)
                dot[j] += x * row[j];
            any = 1;
        }
        sum[t] = 0;
    }
    return any;
}

enum err sitelike_rejected(const struct sitelike_sites *w, uint32_t rejected, uint32_t relevant,
                           uint32_t judged, size_t *like)
{
    size_t n_rej = 0;
    for (size_t s = 0; s < w->n; s++) {
        like[s] = SIZE_MAX;
        n_rej += w->label[s] == rejected;
    }
    if (!n_rej)
        return ERR_OK;
    struct label_rows lr = {0};
    double *sum = calloc(w->n_terms ? w->n_terms : 1, sizeof *sum);
    enum err e = sum ? label_rows_build(w, rejected, relevant, sum, &lr)
                     : err_set(ERR_NOMEM, "out of memory");
    double *dot = e ? NULL : malloc(lr.n_lab * sizeof *dot);
    if (!e && !dot)
        e = err_set(ERR_NOMEM, "out of memory");
    for (size_t s = 0; !e && s < w->n; s++) {
        if (w->label[s] != judged || !likeness(w, s, &lr, sum, dot))
            continue;
        size_t best = 0; /* the rejected website most like it */
        double rel = -1; /* and its likeness to the relevant ones */
        for (size_t j = 1; j < lr.n_rej; j++)
            if (dot[j] > dot[best])
                best = j;
        for (size_t j = lr.n_rej; j < lr.n_lab; j++)
            rel = dot[j] > rel ? dot[j] : rel;
        if (dot[best] > rel)
            like[s] = lr.lab[best];
    }
    label_rows_release(&lr);
    free(dot);
    free(sum);
    return e;
}
