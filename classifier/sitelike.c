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
struct sitelike_rows {
    size_t *lab;
    size_t n_lab, n_rej;
    uint32_t *row;
    uint32_t n_terms;
    double *w; /* n_rows x n_lab */
};

void sitelike_rows_free(struct sitelike_rows *lr)
{
    if (!lr)
        return;
    free(lr->lab);
    free(lr->row);
    free(lr->w);
    free(lr);
}

/* lr's labelled websites, their vectors v (w->n of them, zeroed) and their columns; sum:
 * n_terms zeros, left so. */
static enum err label_columns(const struct sitelike_sites *w, uint32_t rejected, uint32_t relevant,
                              struct sitelike_rows *lr, struct tfidf_vec *v, double *sum)
{
    enum err e = ERR_OK;
    for (uint32_t label = rejected, pass = 0; !e && pass < 2; pass++) {
        for (size_t s = 0; !e && s < w->n; s++)
            if (w->label[s] == label) {
                lr->lab[lr->n_lab] = s;
                e = sitelike_vector(w, s, sum, &v[lr->n_lab++]);
            }
        if (!pass)
            lr->n_rej = lr->n_lab, label = relevant;
    }
    return e;
}

enum err sitelike_rows_new(const struct sitelike_sites *w, uint32_t rejected, uint32_t relevant,
                           struct sitelike_rows **out)
{
    *out = NULL;
    size_t n_rej = 0;
    for (size_t s = 0; s < w->n; s++)
        n_rej += w->label[s] == rejected;
    if (!n_rej)
        return ERR_OK;
    struct sitelike_rows *lr = calloc(1, sizeof *lr);
    struct tfidf_vec *v = calloc(w->n, sizeof *v);
    double *sum = calloc(w->n_terms ? w->n_terms : 1, sizeof *sum);
    if (lr) {
        lr->n_terms = w->n_terms;
        lr->lab = malloc(w->n * sizeof *lr->lab);
        lr->row = malloc((w->n_terms ? w->n_terms : 1) * sizeof *lr->row);
    }
    enum err e = lr && v && sum && lr->lab && lr->row
                     ? label_columns(w, rejected, relevant, lr, v, sum)
                     : err_set(ERR_NOMEM, "out of memory");
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
    for (size_t j = 0; v && lr && j < lr->n_lab; j++)
        tfidf_vec_release(&v[j]);
    free(v);
    free(sum);
    if (e)
        sitelike_rows_free(lr);
    else
        *out = lr;
    return e;
}

size_t sitelike_rows_scratch(const struct sitelike_rows *lr)
{
    return (size_t)lr->n_terms + lr->n_lab;
}

size_t sitelike_rows_match(const struct sitelike_rows *lr, const uint32_t *term,
                           const uint32_t *count, size_t n, double *scratch)
{
    /* The dot products of its 1 + ln(count) vector, not made unit (the same factor for
     * all), with the labelled websites'. */
    double *sum = scratch, *dot = scratch + lr->n_terms;
    int any = 0;
    for (size_t i = 0; i < n; i++)
        if (term[i] < lr->n_terms)
            sum[term[i]] += count[i];
    for (size_t i = 0; i < n; i++) {
        uint32_t t = term[i], r = t < lr->n_terms ? lr->row[t] : UINT32_MAX;
        if (r != UINT32_MAX && sum[t] > 0) {
            double x = 1 + log(sum[t]);
            const double *row = lr->w + (size_t)r * lr->n_lab;
            for (size_t j = 0; j < lr->n_lab; j++)
                dot[j] += x * row[j];
            any = 1;
        }
        if (t < lr->n_terms)
            sum[t] = 0;
    }
    size_t best = 0; /* the rejected website most like it */
    double rel = -1; /* and its likeness to the relevant ones */
    for (size_t j = 1; j < lr->n_rej; j++)
        if (dot[j] > dot[best])
            best = j;
    for (size_t j = lr->n_rej; j < lr->n_lab; j++)
        rel = dot[j] > rel ? dot[j] : rel;
    size_t like = any && dot[best] > rel ? lr->lab[best] : SIZE_MAX; /* none: no term of theirs */
    memset(dot, 0, lr->n_lab * sizeof *dot);
    return like;
}

enum err sitelike_rejected(const struct sitelike_sites *w, uint32_t rejected, uint32_t relevant,
                           uint32_t judged, size_t *like, struct sitelike_rows **keep)
{
    if (keep)
        *keep = NULL;
    for (size_t s = 0; s < w->n; s++)
        like[s] = SIZE_MAX;
    struct sitelike_rows *lr = NULL;
    enum err e = sitelike_rows_new(w, rejected, relevant, &lr);
    double *scratch = !e && lr ? calloc(sitelike_rows_scratch(lr), sizeof *scratch) : NULL;
    if (!e && lr && !scratch)
        e = err_set(ERR_NOMEM, "out of memory");
    for (size_t s = 0; !e && lr && s < w->n; s++)
        if (w->label[s] == judged)
            like[s] = sitelike_rows_match(lr, w->term + w->at[s], w->count + w->at[s],
                                          w->at[s + 1] - w->at[s], scratch);
    free(scratch);
    if (!e && keep)
        *keep = lr;
    else
        sitelike_rows_free(lr);
    return e;
}
