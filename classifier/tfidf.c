/* Sparse TF-IDF vectors and a dense-array term counter. */
#include "classifier/tfidf.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"

void tfidf_vec_init(struct tfidf_vec *v)
{
    memset(v, 0, sizeof *v);
}

void tfidf_vec_release(struct tfidf_vec *v)
{
    if (!v)
        return;
    free(v->id);
    free(v->w);
    tfidf_vec_init(v);
}

static enum err vec_reserve(struct tfidf_vec *v, uint32_t need)
{
    if (need <= v->cap)
        return ERR_OK;
    /* Both arrays grow from the same capacity to the same need: to the same capacity. */
    size_t cap_id = v->cap, cap_w = v->cap;
    if (grow_array((void **)&v->id, &cap_id, need, sizeof *v->id) != ERR_OK ||
        grow_array((void **)&v->w, &cap_w, need, sizeof *v->w) != ERR_OK)
        return err_set(ERR_NOMEM, "out of memory growing a sparse vector");
    v->cap = cap_id > UINT32_MAX ? UINT32_MAX : (uint32_t)cap_id;
    return ERR_OK;
}

enum err tfidf_vec_push(struct tfidf_vec *v, uint32_t id, double w)
{
    enum err e = vec_reserve(v, v->n + 1);
    if (e)
        return e;
    v->id[v->n] = id;
    v->w[v->n] = w;
    v->n++;
    return ERR_OK;
}

struct pair {
    uint32_t id;
    double w;
};

static int pair_cmp(const void *a, const void *b)
{
    uint32_t x = ((const struct pair *)a)->id, y = ((const struct pair *)b)->id;
    return (x > y) - (x < y);
}

void tfidf_vec_sort(struct tfidf_vec *v)
{
    if (v->n <= 32) {
        /* Short vectors: insertion sort beats qsort's indirect calls. */
        for (uint32_t i = 1; i < v->n; i++) {
            uint32_t id = v->id[i];
            double w = v->w[i];
            uint32_t j = i;
            for (; j > 0 && v->id[j - 1] > id; j--) {
                v->id[j] = v->id[j - 1];
                v->w[j] = v->w[j - 1];
            }
            v->id[j] = id;
            v->w[j] = w;
        }
        return;
    }
    struct pair *p = malloc((size_t)v->n * sizeof *p);
    if (!p) {
        /* Out of memory: fall back to an in-place shell sort rather than fail. */
        for (uint32_t gap = v->n / 2; gap > 0; gap /= 2)
            for (uint32_t i = gap; i < v->n; i++)
                for (uint32_t j = i; j >= gap && v->id[j - gap] > v->id[j]; j -= gap) {
                    uint32_t ti = v->id[j];
                    double tw = v->w[j];
                    v->id[j] = v->id[j - gap];
                    v->w[j] = v->w[j - gap];
                    v->id[j - gap] = ti;
                    v->w[j - gap] = tw;
                }
        return;
    }
    for (uint32_t i = 0; i < v->n; i++)
        p[i] = (struct pair){v->id[i], v->w[i]};
    qsort(p, v->n, sizeof *p, pair_cmp);
    for (uint32_t i = 0; i < v->n; i++) {
        v->id[i] = p[i].id;
        v->w[i] = p[i].w;
    }
    free(p);
}

double tfidf_tf(double count, bool sublinear)
{
    if (count <= 0)
        return 0;
    return sublinear ? 1.0 + log(count) : count;
}

double tfidf_idf(size_t n_docs, size_t df)
{
    return log((1.0 + (double)n_docs) / (1.0 + (double)df)) + 1.0;
}

void tfidf_weigh(struct tfidf_vec *v, const double *idf, bool sublinear)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < v->n; i++) {
        double f = idf[v->id[i]];
        if (f == 0)
            continue;
        v->id[k] = v->id[i];
        v->w[k] = tfidf_tf(v->w[i], sublinear) * f;
        k++;
    }
    v->n = k;
}

double tfidf_normalize(struct tfidf_vec *v)
{
    double s = 0;
    for (uint32_t i = 0; i < v->n; i++)
        s += v->w[i] * v->w[i];
    double norm = sqrt(s);
    if (norm > 0)
        for (uint32_t i = 0; i < v->n; i++)
            v->w[i] /= norm;
    return norm;
}

double tfidf_dot(const struct tfidf_vec *a, const struct tfidf_vec *b)
{
    double s = 0;
    uint32_t i = 0, j = 0;
    while (i < a->n && j < b->n) {
        if (a->id[i] < b->id[j]) {
            i++;
        } else if (a->id[i] > b->id[j]) {
            j++;
        } else {
            s += a->w[i++] * b->w[j++];
        }
    }
    return s;
}

void tfidf_counter_init(struct tfidf_counter *c)
{
    memset(c, 0, sizeof *c);
}

void tfidf_counter_release(struct tfidf_counter *c)
{
    if (!c)
        return;
    free(c->count);
    free(c->touched);
    tfidf_counter_init(c);
}

enum err tfidf_counter_add(struct tfidf_counter *c, uint32_t id)
{
    if (id >= c->cap) {
        size_t cap = c->cap;
        if (grow_array((void **)&c->count, &cap, (size_t)id + 1, sizeof *c->count) != ERR_OK)
            return err_set(ERR_NOMEM, "out of memory growing a term counter");
        if (cap > UINT32_MAX)
            cap = UINT32_MAX;
        memset(c->count + c->cap, 0, (cap - c->cap) * sizeof *c->count);
        c->cap = (uint32_t)cap;
    }
    if (c->count[id]++ == 0) {
        size_t cap = c->touched_cap;
        if (grow_array((void **)&c->touched, &cap, (size_t)c->ntouched + 1, sizeof *c->touched) !=
            ERR_OK) {
            c->count[id]--;
            return err_set(ERR_NOMEM, "out of memory growing a term counter");
        }
        c->touched_cap = cap > UINT32_MAX ? UINT32_MAX : (uint32_t)cap;
        c->touched[c->ntouched++] = id;
    }
    return ERR_OK;
}

enum err tfidf_counter_take(struct tfidf_counter *c, struct tfidf_vec *out, bool sorted)
{
    out->n = 0;
    enum err e = vec_reserve(out, c->ntouched);
    if (e)
        return e;
    for (uint32_t i = 0; i < c->ntouched; i++) {
        uint32_t id = c->touched[i];
        out->id[i] = id;
        out->w[i] = c->count[id];
        c->count[id] = 0;
    }
    out->n = c->ntouched;
    c->ntouched = 0;
    if (sorted)
        tfidf_vec_sort(out);
    return ERR_OK;
}
