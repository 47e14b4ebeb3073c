/* Page classifier model and its classify path: parameters, accessors, scratch, confidences. */
#include "classifier/pagecls.h"
#include "classifier/termvec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "classifier/pagecls_model.h"
#include "classifier/svm.h"
#include "classifier/tfidf.h"
#include "classifier/vocab.h"

struct pagecls_scratch {
    const struct pagecls *model;
    struct tokenizer *tok;
    struct tfidf_counter counter;
    struct tfidf_vec vec;
    double *sims; /* k_total */
};

void pagecls_params_default(struct pagecls_params *p)
{
    tokenize_opts_default(&p->tok);
    p->sublinear_tf = true;
    p->min_df = 2;
    p->min_sites = 2;
    p->kind = PAGECLS_KNN;
    p->centroids = 4;
    p->sites_per_centroid = 15; /* rec.motorcycles' for-sale websites: BENCHMARKS.md, session 9 */
    p->max_iter = 30;
    p->seed = 20040831; /* any fixed value: VLDB 2004 */
    p->eps = 1e-6;
    p->svm_c =
        0.1; /* best of 0.1, 0.3, 1, 3 on sci.space and rec.motorcycles (docs/classifier.md) */
    p->calibrate = true;
}

static const char *const kind_names[] = {
    [PAGECLS_KNN] = "knn",
    [PAGECLS_SVM] = "svm",
};
_Static_assert(sizeof kind_names / sizeof kind_names[0] == PAGECLS_N_KINDS,
               "a name for each page classifier");

const char *pagecls_kind_name(size_t kind)
{
    return kind < PAGECLS_N_KINDS ? kind_names[kind] : NULL;
}

enum err pagecls_check_params(const struct pagecls_params *p)
{
    if (p->min_df < 1 || p->min_sites < 1 || p->centroids < 1 || p->centroids > PAGECLS_MAX_K ||
        p->sites_per_centroid > PAGECLS_MAX_SITES_PER_CENTROID || p->max_iter < 1 ||
        !(p->eps > 0 && p->eps < 0.5) || p->kind >= PAGECLS_N_KINDS ||
        !(p->svm_c > 0 && p->svm_c <= PAGECLS_MAX_SVM_C))
        return err_set(
            ERR_INVAL,
            "page classifier parameters out of range (min_df, min_sites >= 1, 1 <= centroids "
            "<= %d, sites_per_centroid <= %d, max_iter >= 1, 0 < eps < 0.5, kind knn or svm, 0 < "
            "svm_c <= %g)",
            PAGECLS_MAX_K, PAGECLS_MAX_SITES_PER_CENTROID, PAGECLS_MAX_SVM_C);
    return ERR_OK;
}

struct pagecls *pagecls_new_empty(void)
{
    struct pagecls *m = calloc(1, sizeof *m);
    if (m)
        vocab_init(&m->vocab);
    return m;
}

void pagecls_free(struct pagecls *m)
{
    if (!m)
        return;
    vocab_release(&m->vocab);
    free(m->idf);
    free(m->cent);
    free(m->w);
    free(m);
}

uint32_t pagecls_classes(const struct pagecls *m)
{
    return m->n_classes;
}

uint32_t pagecls_terms(const struct pagecls *m)
{
    return m->n_terms;
}

enum pagecls_kind pagecls_kind(const struct pagecls *m)
{
    return (enum pagecls_kind)m->params.kind;
}

uint32_t pagecls_centroids(const struct pagecls *m, uint32_t cls)
{
    return cls < m->n_classes ? m->k[cls] : 0;
}

const struct pagecls_params *pagecls_get_params(const struct pagecls *m)
{
    return &m->params;
}

const struct pagecls_cv *pagecls_get_cv(const struct pagecls *m)
{
    return &m->cv;
}

void pagecls_set_cv(struct pagecls *m, const struct pagecls_cv *cv)
{
    m->cv = *cv;
}

double pagecls_p_err(const struct pagecls *m)
{
    return m->cv.p_err;
}

/* ---- confidences ---- */

void pagecls_confidence(const double *dmin, uint32_t n, double eps, double *pr)
{
    double l[PAGECLS_MAX_CLASSES], sum = 0;
    bool equal = true;
    if (n > PAGECLS_MAX_CLASSES)
        n = PAGECLS_MAX_CLASSES;
    for (uint32_t k = 0; k < n; k++) {
        double d = dmin[k];
        if (!(d >= eps)) /* also catches NaN: no evidence of closeness */
            d = isnan(d) ? 1 - eps : eps;
        if (d > 1 - eps)
            d = 1 - eps;
        l[k] = log(d); /* finite and < 0 */
        sum += l[k];
        if (k > 0 && l[k] != l[0])
            equal = false;
    }
    for (uint32_t k = 0; k < n; k++)
        pr[k] = equal ? 1.0 / n : l[k] / sum;
}

double pagecls_link_weight(const double *pr, uint32_t n)
{
    if (n == 0)
        return 0;
    double mean = 0, var = 0;
    for (uint32_t k = 0; k < n; k++)
        mean += pr[k];
    mean /= n;
    for (uint32_t k = 0; k < n; k++)
        var += (pr[k] - mean) * (pr[k] - mean);
    return var / n;
}

/* sigma(t) without overflow. */
static double sigmoid(double t)
{
    return t >= 0 ? 1 / (1 + exp(-t)) : exp(t) / (1 + exp(t));
}

/* The SVM's confidence sigma(w . x + b): calib.h's logit(x) is then the margin itself, so
 * the calibration below is Platt scaling of the margin (without intercept). */
static void score_svm(const struct pagecls *m, const struct tfidf_vec *v, struct pagecls_result *r)
{
    r->margin = svm_decision(m->w, m->b, v);
    r->pr[PAGECLS_TARGET] = v->n ? sigmoid(r->margin) : 0.5;
    r->pr[PAGECLS_OTHER] = 1 - r->pr[PAGECLS_TARGET];
}

/* The kNN's confidences from the distances to the nearest centroid of each class. */
static void score_knn(const struct pagecls *m, const struct tfidf_vec *v, double *sims,
                      struct pagecls_result *r)
{
    uint32_t K = m->k_total;
    for (uint32_t j = 0; j < K; j++)
        sims[j] = 0;
    for (uint32_t e = 0; e < v->n; e++) {
        const double *row = m->cent + (size_t)v->id[e] * K;
        double w = v->w[e];
        for (uint32_t j = 0; j < K; j++)
            sims[j] += w * row[j];
    }
    for (uint32_t c = 0; c < m->n_classes; c++) {
        double best = 0;
        for (uint32_t j = m->first[c]; j < m->first[c] + m->k[c]; j++)
            if (sims[j] > best)
                best = sims[j];
        r->dmin[c] = 1.0 - best;
    }
    pagecls_confidence(r->dmin, m->n_classes, m->params.eps, r->pr);
}

void pagecls_score_vec(const struct pagecls *m, struct tfidf_vec *v, double *sims,
                       struct pagecls_result *r)
{
    tfidf_weigh(v, m->idf, m->params.sublinear_tf);
    tfidf_normalize(v);
    memset(r, 0, sizeof *r);
    r->known_terms = v->n;
    if (m->params.kind == PAGECLS_SVM)
        score_svm(m, v, r);
    else
        score_knn(m, v, sims, r);
    /* A page with no known term stays at 1/2: no evidence either way. */
    if (m->n_classes == 2 && m->cv.calib.a > 0 && r->known_terms > 0) {
        r->pr[PAGECLS_TARGET] = calib_apply(&m->cv.calib, r->pr[PAGECLS_TARGET], r->known_terms);
        r->pr[PAGECLS_OTHER] = 1 - r->pr[PAGECLS_TARGET];
    }
}

/* ---- scratch and classification ---- */

enum err pagecls_scratch_new(const struct pagecls *m, struct pagecls_scratch **out)
{
    enum err e;
    *out = NULL;
    struct pagecls_scratch *s = calloc(1, sizeof *s);
    if (!s)
        return err_set(ERR_NOMEM, "out of memory creating classifier scratch");
    s->model = m;
    tfidf_counter_init(&s->counter);
    tfidf_vec_init(&s->vec);
    if ((e = tokenize_new(&m->params.tok, &s->tok)))
        goto fail;
    s->sims = malloc((m->k_total ? m->k_total : 1) * sizeof *s->sims); /* an SVM has none */
    if (!s->sims) {
        e = err_set(ERR_NOMEM, "out of memory creating classifier scratch");
        goto fail;
    }
    *out = s;
    return ERR_OK;
fail:
    pagecls_scratch_free(s);
    return e;
}

void pagecls_scratch_free(struct pagecls_scratch *s)
{
    if (!s)
        return;
    tokenize_free(s->tok);
    tfidf_counter_release(&s->counter);
    tfidf_vec_release(&s->vec);
    free(s->sims);
    free(s);
}

struct lookup_ctx {
    const struct vocab *vocab;
    struct tfidf_counter *counter;
};

static enum err count_known(void *ctx, const char *tok, size_t len)
{
    struct lookup_ctx *c = ctx;
    uint32_t id;
    if (!vocab_find(c->vocab, tok, len, &id))
        return ERR_OK; /* unknown terms carry no learned weight */
    return tfidf_counter_add(c->counter, id);
}

enum err pagecls_term_counts(struct pagecls_scratch *s, const char *text, size_t len,
                             struct buf *out)
{
    return termvec_encode(s->tok, text, len, out);
}

enum err pagecls_classify(const struct pagecls *m, struct pagecls_scratch *s, const char *text,
                          size_t len, struct pagecls_result *r)
{
    enum err e;
    if (s->model != m)
        return err_set(ERR_INVAL, "classifier scratch belongs to another model");
    struct lookup_ctx ctx = {&m->vocab, &s->counter};
    if ((e = tokenize_text(s->tok, text, len, count_known, &ctx)) ||
        (e = tfidf_counter_take(&s->counter, &s->vec, false))) {
        s->counter.ntouched = 0;
        memset(s->counter.count, 0, (size_t)s->counter.cap * sizeof *s->counter.count);
        return e;
    }
    pagecls_score_vec(m, &s->vec, s->sims, r);
    return ERR_OK;
}
