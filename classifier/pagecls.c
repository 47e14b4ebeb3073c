/* Multi-centroid TF-IDF page classifier: training, site-split CV, classification, model bytes. */
#include "classifier/pagecls.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "classifier/kmeans.h"
#include "classifier/rng.h"
#include "classifier/tfidf.h"
#include "classifier/vocab.h"

/* Cap on n_terms * k_total (512 MiB of centroids), enforced on training and loading alike. */
#define MAX_CELLS ((uint64_t)1 << 26)

struct pagecls {
    struct pagecls_params params;
    struct vocab vocab; /* model term ids 0..n_terms-1 */
    uint32_t n_terms;
    double *idf; /* n_terms, all > 0 */
    uint32_t n_classes;
    uint32_t k[PAGECLS_MAX_CLASSES]; /* centroids per class; class c owns columns first[c].. */
    uint32_t first[PAGECLS_MAX_CLASSES];
    uint32_t k_total;
    double *cent; /* term-major: cent[t * k_total + j], each centroid unit length */
    struct pagecls_cv cv;
};

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
    p->centroids = 4;
    p->max_iter = 30;
    p->seed = 20040831; /* any fixed value: VLDB 2004 */
    p->eps = 1e-6;
}

static enum err check_params(const struct pagecls_params *p)
{
    if (p->min_df < 1 || p->min_sites < 1 || p->centroids < 1 || p->centroids > PAGECLS_MAX_K ||
        p->max_iter < 1 || !(p->eps > 0 && p->eps < 0.5))
        return err_set(
            ERR_INVAL,
            "page classifier parameters out of range (min_df, min_sites >= 1, 1 <= centroids "
            "<= %d, max_iter >= 1, 0 < eps < 0.5)",
            PAGECLS_MAX_K);
    return ERR_OK;
}

void pagecls_free(struct pagecls *m)
{
    if (!m)
        return;
    vocab_release(&m->vocab);
    free(m->idf);
    free(m->cent);
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

/* v: model ids with raw counts; weighs, normalises and classifies in place. */
static void classify_vec(const struct pagecls *m, struct tfidf_vec *v, double *sims,
                         struct pagecls_result *r)
{
    tfidf_weigh(v, m->idf, m->params.sublinear_tf);
    tfidf_normalize(v);
    uint32_t K = m->k_total;
    for (uint32_t j = 0; j < K; j++)
        sims[j] = 0;
    for (uint32_t e = 0; e < v->n; e++) {
        const double *row = m->cent + (size_t)v->id[e] * K;
        double w = v->w[e];
        for (uint32_t j = 0; j < K; j++)
            sims[j] += w * row[j];
    }
    memset(r, 0, sizeof *r);
    r->known_terms = v->n;
    for (uint32_t c = 0; c < m->n_classes; c++) {
        double best = 0;
        for (uint32_t j = m->first[c]; j < m->first[c] + m->k[c]; j++)
            if (sims[j] > best)
                best = sims[j];
        r->dmin[c] = 1.0 - best;
    }
    pagecls_confidence(r->dmin, m->n_classes, m->params.eps, r->pr);
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
    s->sims = malloc((size_t)m->k_total * sizeof *s->sims);
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
    classify_vec(m, &s->vec, s->sims, r);
    return ERR_OK;
}

/* ---- training ---- */

/* All training pages tokenised once: bags of (corpus term id, count), sorted by id. */
struct corpus {
    struct vocab vocab;
    struct tfidf_vec *bags;
    size_t *by_site; /* page indices ordered by site (then index) */
    size_t n;
    uint32_t n_classes;
};

static void corpus_release(struct corpus *c)
{
    vocab_release(&c->vocab);
    if (c->bags)
        for (size_t i = 0; i < c->n; i++)
            tfidf_vec_release(&c->bags[i]);
    free(c->bags);
    free(c->by_site);
}

struct add_ctx {
    struct vocab *vocab;
    struct tfidf_counter *counter;
};

static enum err count_all(void *ctx, const char *tok, size_t len)
{
    struct add_ctx *c = ctx;
    uint32_t id;
    enum err e = vocab_add(c->vocab, tok, len, &id, NULL);
    return e ? e : tfidf_counter_add(c->counter, id);
}

struct site_ref {
    uint32_t site;
    uint32_t cls;
    size_t doc;
};

static int site_ref_cmp(const void *a, const void *b)
{
    const struct site_ref *x = a, *y = b;
    if (x->site != y->site)
        return (x->site > y->site) - (x->site < y->site);
    return (x->doc > y->doc) - (x->doc < y->doc);
}

/* Page indices sorted by site, then by index: a site's pages become one run. */
static enum err order_by_site(const struct pagecls_doc *docs, size_t n, size_t *order)
{
    struct site_ref *refs = malloc(n * sizeof *refs);
    if (!refs)
        return err_set(ERR_NOMEM, "out of memory sorting %zu pages by site", n);
    for (size_t i = 0; i < n; i++)
        refs[i] = (struct site_ref){docs[i].site, docs[i].cls, i};
    qsort(refs, n, sizeof *refs, site_ref_cmp);
    for (size_t i = 0; i < n; i++)
        order[i] = refs[i].doc;
    free(refs);
    return ERR_OK;
}

static enum err corpus_build(const struct pagecls_params *p, const struct pagecls_doc *docs,
                             size_t n, struct corpus *c)
{
    enum err e;
    struct tokenizer *tok = NULL;
    struct tfidf_counter counter;
    memset(c, 0, sizeof *c);
    vocab_init(&c->vocab);
    tfidf_counter_init(&counter);
    if ((e = check_params(p)))
        return e;
    if (n == 0)
        return err_set(ERR_INVAL, "no training pages");
    for (size_t i = 0; i < n; i++) {
        if (docs[i].cls >= PAGECLS_MAX_CLASSES)
            return err_set(ERR_INVAL, "training page %zu has class %u (at most %d classes)", i,
                           docs[i].cls, PAGECLS_MAX_CLASSES);
        if (docs[i].cls + 1 > c->n_classes)
            c->n_classes = docs[i].cls + 1;
    }
    if (c->n_classes < 2)
        return err_set(ERR_INVAL, "training pages of at least two classes are needed");
    c->bags = calloc(n, sizeof *c->bags);
    if (!c->bags)
        return err_set(ERR_NOMEM, "out of memory for %zu training pages", n);
    c->n = n;
    c->by_site = malloc(n * sizeof *c->by_site);
    if (!c->by_site) {
        e = err_set(ERR_NOMEM, "out of memory for %zu training pages", n);
        goto out;
    }
    if ((e = order_by_site(docs, n, c->by_site)))
        goto out;
    if ((e = tokenize_new(&p->tok, &tok)))
        goto out;
    struct add_ctx ctx = {&c->vocab, &counter};
    for (size_t i = 0; i < n; i++) {
        if ((e = tokenize_text(tok, docs[i].text, docs[i].len, count_all, &ctx)) ||
            (e = tfidf_counter_take(&counter, &c->bags[i], true)))
            goto out;
    }
out:
    tokenize_free(tok);
    tfidf_counter_release(&counter);
    if (e)
        corpus_release(c);
    return e;
}

/*
 * Fit a model on the corpus pages with use[i] (all when use is NULL). *gmap (caller
 * frees) maps corpus ids to model ids or UINT32_MAX. The model gets term strings only
 * when with_vocab (cross-validation folds classify corpus bags and never need them).
 */
static enum err fit(const struct pagecls_params *p, const struct corpus *c,
                    const struct pagecls_doc *docs, const bool *use, bool with_vocab,
                    struct pagecls **out, uint32_t **gmap_out)
{
    enum err e = ERR_OK;
    uint32_t G = c->vocab.n;
    uint32_t *df = calloc(G ? G : 1, sizeof *df);
    uint32_t *sdf = calloc(G ? G : 1, sizeof *sdf);   /* sites using the term */
    uint32_t *last = calloc(G ? G : 1, sizeof *last); /* site ordinal + 1 of its last use */
    uint32_t *gmap = malloc((G ? G : 1) * sizeof *gmap);
    struct tfidf_vec *vecs = calloc(c->n, sizeof *vecs);
    struct tfidf_vec *pts = malloc(c->n * sizeof *pts);
    double *per[PAGECLS_MAX_CLASSES] = {0};
    size_t n_used = 0;
    struct pagecls *m = calloc(1, sizeof *m);
    *out = NULL;
    *gmap_out = NULL;
    if (m)
        vocab_init(&m->vocab);
    if (!df || !sdf || !last || !gmap || !vecs || !pts || !m) {
        e = err_set(ERR_NOMEM, "out of memory training the page classifier");
        goto out;
    }
    m->params = *p;
    m->n_classes = c->n_classes;

    uint32_t site_ord = 0;
    for (size_t o = 0; o < c->n; o++) {
        size_t i = c->by_site[o];
        if (o > 0 && docs[i].site != docs[c->by_site[o - 1]].site)
            site_ord++;
        if (use && !use[i])
            continue;
        n_used++;
        for (uint32_t t = 0; t < c->bags[i].n; t++) {
            uint32_t g = c->bags[i].id[t];
            df[g]++;
            if (last[g] != site_ord + 1) {
                last[g] = site_ord + 1;
                sdf[g]++;
            }
        }
    }
    /* A term of one website only (its name, its template) says nothing about new sites. */
    for (uint32_t g = 0; g < G; g++)
        gmap[g] = df[g] >= p->min_df && sdf[g] >= p->min_sites ? m->n_terms++ : UINT32_MAX;
    if (m->n_terms == 0) {
        e = err_set(ERR_INVAL, "no term occurs in %u training pages of %u websites", p->min_df,
                    p->min_sites);
        goto out;
    }
    m->idf = malloc((size_t)m->n_terms * sizeof *m->idf);
    if (!m->idf) {
        e = err_set(ERR_NOMEM, "out of memory training the page classifier");
        goto out;
    }
    for (uint32_t g = 0; g < G; g++) {
        if (gmap[g] == UINT32_MAX)
            continue;
        m->idf[gmap[g]] = tfidf_idf(n_used, df[g]);
        if (with_vocab) {
            size_t len;
            const char *term = vocab_term(&c->vocab, g, &len);
            uint32_t id;
            if ((e = vocab_add(&m->vocab, term, len, &id, NULL)))
                goto out;
        }
    }

    /* Page vectors in model ids (gmap is monotone, so they stay sorted). */
    for (size_t i = 0; i < c->n; i++) {
        if (use && !use[i])
            continue;
        for (uint32_t t = 0; t < c->bags[i].n; t++) {
            uint32_t id = gmap[c->bags[i].id[t]];
            if (id != UINT32_MAX && (e = tfidf_vec_push(&vecs[i], id, c->bags[i].w[t])))
                goto out;
        }
        tfidf_weigh(&vecs[i], m->idf, p->sublinear_tf);
        tfidf_normalize(&vecs[i]);
    }

    /* k-means per class over its non-empty vectors; a class is its set of centroids. */
    for (uint32_t cls = 0; cls < m->n_classes && !e; cls++) {
        size_t np = 0;
        for (size_t i = 0; i < c->n; i++)
            if ((!use || use[i]) && docs[i].cls == cls && vecs[i].n)
                pts[np++] = vecs[i];
        if (np == 0) {
            e = err_set(ERR_INVAL, "class %u has no training page with a known term", cls);
            break;
        }
        uint64_t st = p->seed + cls;
        /* One k-means++ run: restarts (n_init 5) measured no better on the dev web. */
        struct kmeans_params kp = {p->centroids, p->max_iter, 1, rng_next(&st)};
        e = kmeans_run(pts, np, m->n_terms, &kp, &per[cls], &m->k[cls], NULL);
        m->first[cls] = m->k_total;
        m->k_total += m->k[cls];
    }
    if (!e && (uint64_t)m->n_terms * m->k_total > MAX_CELLS)
        e = err_set(ERR_TOOBIG, "model of %u terms x %u centroids is too big", m->n_terms,
                    m->k_total);
    if (!e) {
        m->cent = malloc((size_t)m->n_terms * m->k_total * sizeof *m->cent);
        if (!m->cent)
            e = err_set(ERR_NOMEM, "out of memory for %u x %u centroids", m->n_terms, m->k_total);
    }
    for (uint32_t cls = 0; cls < m->n_classes && !e; cls++)
        for (size_t t = 0; t < m->n_terms; t++)
            memcpy(m->cent + t * m->k_total + m->first[cls], per[cls] + t * m->k[cls],
                   m->k[cls] * sizeof *m->cent);
    if (e)
        goto out;
    *out = m;
    *gmap_out = gmap;
    m = NULL;
    gmap = NULL;
out:
    free(df);
    free(sdf);
    free(last);
    free(gmap);
    if (vecs)
        for (size_t i = 0; i < c->n; i++)
            tfidf_vec_release(&vecs[i]);
    free(vecs);
    free(pts);
    for (uint32_t cls = 0; cls < PAGECLS_MAX_CLASSES; cls++)
        free(per[cls]);
    pagecls_free(m);
    return e;
}

enum err pagecls_train(const struct pagecls_params *p, const struct pagecls_doc *docs, size_t n,
                       struct pagecls **out)
{
    struct corpus c;
    uint32_t *gmap = NULL;
    *out = NULL;
    enum err e = corpus_build(p, docs, n, &c);
    if (e)
        return e;
    e = fit(p, &c, docs, NULL, true, out, &gmap);
    free(gmap);
    corpus_release(&c);
    return e;
}

/* ---- cross-validation ---- */

/*
 * fold[i] for every page: sites sorted by id, each class's sites shuffled with the
 * seed and dealt round-robin (continuing across classes) so folds are balanced.
 */
static enum err assign_folds(const struct pagecls_doc *docs, size_t n, uint32_t n_classes,
                             uint64_t seed, uint32_t *folds_io, uint32_t *n_sites, uint32_t *fold)
{
    enum err e = ERR_OK;
    struct site_ref *refs = malloc(n * sizeof *refs);
    size_t *site_start = malloc(n * sizeof *site_start); /* first ref index of each site */
    uint32_t *site_fold = malloc(n * sizeof *site_fold);
    size_t *order = malloc(n * sizeof *order);
    if (!refs || !site_start || !site_fold || !order) {
        e = err_set(ERR_NOMEM, "out of memory assigning cross-validation folds");
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        refs[i] = (struct site_ref){docs[i].site, docs[i].cls, i};
    qsort(refs, n, sizeof *refs, site_ref_cmp);
    size_t ns = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || refs[i].site != refs[i - 1].site)
            site_start[ns++] = i;
    /* A site's class is that of its first page. */
    uint32_t per_class[PAGECLS_MAX_CLASSES] = {0};
    for (size_t s = 0; s < ns; s++)
        per_class[refs[site_start[s]].cls]++;
    for (uint32_t c = 0; c < n_classes; c++)
        if (per_class[c] < 2) {
            e = err_set(ERR_INVAL, "cross-validation needs at least 2 websites of class %u (%u)", c,
                        per_class[c]);
            goto out;
        }
    uint32_t folds = *folds_io;
    if (folds > ns)
        folds = (uint32_t)ns;
    uint64_t rng = seed;
    uint32_t next = 0;
    for (uint32_t c = 0; c < n_classes; c++) {
        size_t m = 0;
        for (size_t s = 0; s < ns; s++)
            if (refs[site_start[s]].cls == c)
                order[m++] = s;
        rng_shuffle(&rng, order, m);
        for (size_t i = 0; i < m; i++)
            site_fold[order[i]] = next++ % folds;
    }
    for (size_t s = 0; s < ns; s++) {
        size_t end = s + 1 < ns ? site_start[s + 1] : n;
        for (size_t i = site_start[s]; i < end; i++)
            fold[refs[i].doc] = site_fold[s];
    }
    *folds_io = folds;
    *n_sites = (uint32_t)ns;
out:
    free(refs);
    free(site_start);
    free(site_fold);
    free(order);
    return e;
}

static enum err cross_validate(const struct pagecls_params *p, const struct corpus *c,
                               const struct pagecls_doc *docs, uint32_t folds,
                               struct pagecls_cv *cv, double *pr_out)
{
    enum err e = ERR_OK;
    memset(cv, 0, sizeof *cv);
    if (folds < 2)
        return err_set(ERR_INVAL, "cross-validation needs at least 2 folds");
    uint32_t *fold = malloc(c->n * sizeof *fold);
    bool *use = malloc(c->n * sizeof *use);
    double *sims = NULL;
    struct tfidf_vec v;
    tfidf_vec_init(&v);
    if (!fold || !use) {
        e = err_set(ERR_NOMEM, "out of memory cross-validating");
        goto out;
    }
    if ((e = assign_folds(docs, c->n, c->n_classes, p->seed, &folds, &cv->sites, fold)))
        goto out;
    for (uint32_t f = 0; f < folds; f++) {
        struct pagecls *m = NULL;
        uint32_t *gmap = NULL;
        for (size_t i = 0; i < c->n; i++)
            use[i] = fold[i] != f;
        if ((e = fit(p, c, docs, use, false, &m, &gmap)))
            goto out;
        double *s = realloc(sims, (size_t)m->k_total * sizeof *sims);
        if (!s) {
            e = err_set(ERR_NOMEM, "out of memory cross-validating");
            pagecls_free(m);
            free(gmap);
            goto out;
        }
        sims = s;
        for (size_t i = 0; i < c->n && !e; i++) {
            if (use[i])
                continue;
            v.n = 0;
            for (uint32_t t = 0; t < c->bags[i].n && !e; t++) {
                uint32_t id = gmap[c->bags[i].id[t]];
                if (id != UINT32_MAX)
                    e = tfidf_vec_push(&v, id, c->bags[i].w[t]);
            }
            if (e)
                break;
            struct pagecls_result r;
            classify_vec(m, &v, sims, &r);
            double top = r.pr[0];
            for (uint32_t k = 1; k < c->n_classes; k++)
                if (r.pr[k] > top)
                    top = r.pr[k];
            uint32_t ties = 0;
            for (uint32_t k = 0; k < c->n_classes; k++)
                ties += r.pr[k] == top;
            if (r.pr[docs[i].cls] == top)
                cv->correct += 1.0 / ties;
            cv->pages++;
            if (pr_out)
                memcpy(pr_out + i * c->n_classes, r.pr, c->n_classes * sizeof *pr_out);
        }
        pagecls_free(m);
        free(gmap);
        if (e)
            goto out;
    }
    cv->folds = folds;
    cv->accuracy = cv->pages ? cv->correct / (double)cv->pages : 0;
    cv->p_err = 1.0 - cv->accuracy;
out:
    free(fold);
    free(use);
    free(sims);
    tfidf_vec_release(&v);
    return e;
}

enum err pagecls_cross_validate(const struct pagecls_params *p, const struct pagecls_doc *docs,
                                size_t n, uint32_t folds, struct pagecls_cv *cv, double *pr_out)
{
    struct corpus c;
    memset(cv, 0, sizeof *cv);
    enum err e = corpus_build(p, docs, n, &c);
    if (e)
        return e;
    e = cross_validate(p, &c, docs, folds, cv, pr_out);
    corpus_release(&c);
    return e;
}

enum err pagecls_train_cv(const struct pagecls_params *p, const struct pagecls_doc *docs, size_t n,
                          uint32_t folds, struct pagecls **out, double *pr_out)
{
    struct corpus c;
    struct pagecls_cv cv;
    uint32_t *gmap = NULL;
    *out = NULL;
    enum err e = corpus_build(p, docs, n, &c);
    if (e)
        return e;
    if (!(e = cross_validate(p, &c, docs, folds, &cv, pr_out)) &&
        !(e = fit(p, &c, docs, NULL, true, out, &gmap)))
        (*out)->cv = cv;
    free(gmap);
    corpus_release(&c);
    return e;
}

/* ---- model bytes ---- */

/*
 * Layout (all integers little-endian, doubles as IEEE-754 binary64 bit patterns):
 *   "SSPC" u32 version
 *   u32 flags (1 stem, 2 keep_numbers, 4 sublinear_tf) u32 min_df u32 min_sites
 *   u32 centroids u32 max_iter u64 seed f64 eps
 *   u32 n_classes, u32 k[n_classes]
 *   u32 n_terms, n_terms x (u8 len, len bytes), f64 idf[n_terms]
 *   k_total x (u32 nnz, nnz x (u32 term id ascending, f64 weight))   sparse centroids
 *   u32 folds u32 sites u64 pages f64 correct f64 accuracy f64 p_err
 * No checksum: the store keeps bytes intact, and a checksum would hide the parser
 * from the fuzzer; instead every field is range-checked.
 */
static const char model_magic[4] = {'S', 'S', 'P', 'C'};
#define FLAG_STEM      1u
#define FLAG_NUMBERS   2u
#define FLAG_SUBLINEAR 4u

_Static_assert(sizeof(double) == 8, "doubles must be IEEE-754 binary64");

struct writer {
    struct buf *b;
    enum err e;
};

static void put(struct writer *w, const void *p, size_t n)
{
    if (!w->e)
        w->e = buf_append(w->b, p, n);
}

static void put_u32(struct writer *w, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    put(w, b, 4);
}

static void put_u64(struct writer *w, uint64_t v)
{
    put_u32(w, (uint32_t)v);
    put_u32(w, (uint32_t)(v >> 32));
}

static void put_f64(struct writer *w, double d)
{
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    put_u64(w, u);
}

enum err pagecls_serialize(const struct pagecls *m, struct buf *out)
{
    size_t start = out->len;
    struct writer w = {out, ERR_OK};
    const struct pagecls_params *p = &m->params;
    put(&w, model_magic, sizeof model_magic);
    put_u32(&w, PAGECLS_FORMAT_VERSION);
    put_u32(&w, (p->tok.stem ? FLAG_STEM : 0) | (p->tok.keep_numbers ? FLAG_NUMBERS : 0) |
                    (p->sublinear_tf ? FLAG_SUBLINEAR : 0));
    put_u32(&w, p->min_df);
    put_u32(&w, p->min_sites);
    put_u32(&w, p->centroids);
    put_u32(&w, p->max_iter);
    put_u64(&w, p->seed);
    put_f64(&w, p->eps);
    put_u32(&w, m->n_classes);
    for (uint32_t c = 0; c < m->n_classes; c++)
        put_u32(&w, m->k[c]);
    put_u32(&w, m->n_terms);
    for (uint32_t t = 0; t < m->n_terms; t++) {
        size_t len;
        const char *term = vocab_term(&m->vocab, t, &len);
        unsigned char l = (unsigned char)len;
        put(&w, &l, 1);
        put(&w, term, len);
    }
    for (uint32_t t = 0; t < m->n_terms; t++)
        put_f64(&w, m->idf[t]);
    for (uint32_t j = 0; j < m->k_total; j++) {
        uint32_t nnz = 0;
        for (size_t t = 0; t < m->n_terms; t++)
            nnz += m->cent[t * m->k_total + j] != 0;
        put_u32(&w, nnz);
        for (size_t t = 0; t < m->n_terms; t++) {
            double x = m->cent[t * m->k_total + j];
            if (x != 0) {
                put_u32(&w, (uint32_t)t);
                put_f64(&w, x);
            }
        }
    }
    put_u32(&w, m->cv.folds);
    put_u32(&w, m->cv.sites);
    put_u64(&w, m->cv.pages);
    put_f64(&w, m->cv.correct);
    put_f64(&w, m->cv.accuracy);
    put_f64(&w, m->cv.p_err);
    if (w.e) {
        out->len = start;
        if (out->data)
            out->data[start] = '\0';
    }
    return w.e;
}

struct reader {
    const unsigned char *p;
    size_t left;
    bool short_read;
};

static const unsigned char *take(struct reader *r, size_t n)
{
    if (r->short_read || r->left < n) {
        r->short_read = true;
        return NULL;
    }
    const unsigned char *q = r->p;
    r->p += n;
    r->left -= n;
    return q;
}

static uint32_t get_u32(struct reader *r)
{
    const unsigned char *b = take(r, 4);
    if (!b)
        return 0;
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint64_t get_u64(struct reader *r)
{
    uint64_t lo = get_u32(r);
    return lo | (uint64_t)get_u32(r) << 32;
}

static double get_f64(struct reader *r)
{
    uint64_t u = get_u64(r);
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

enum err pagecls_deserialize(const void *data, size_t len, struct pagecls **out)
{
    enum err e = ERR_OK;
    struct reader r = {data, len, false};
    *out = NULL;
    struct pagecls *m = calloc(1, sizeof *m);
    if (!m)
        return err_set(ERR_NOMEM, "out of memory loading a model");
    vocab_init(&m->vocab);
#define BAD(...)                                                                                   \
    do {                                                                                           \
        e = err_set(ERR_PARSE, "classifier model: " __VA_ARGS__);                                  \
        goto out;                                                                                  \
    } while (0)
#define SHORT()                                                                                    \
    do {                                                                                           \
        if (r.short_read)                                                                          \
            BAD("truncated after %zu of %zu bytes", len - r.left, len);                            \
    } while (0)

    const unsigned char *magic = take(&r, 4);
    if (!magic || memcmp(magic, model_magic, 4) != 0)
        BAD("not a sitescout model (bad magic)");
    uint32_t version = get_u32(&r);
    SHORT();
    if (version != PAGECLS_FORMAT_VERSION)
        BAD("format version %u, this build reads %d", version, PAGECLS_FORMAT_VERSION);
    struct pagecls_params *p = &m->params;
    uint32_t flags = get_u32(&r);
    p->tok.stem = flags & FLAG_STEM;
    p->tok.keep_numbers = flags & FLAG_NUMBERS;
    p->sublinear_tf = flags & FLAG_SUBLINEAR;
    p->min_df = get_u32(&r);
    p->min_sites = get_u32(&r);
    p->centroids = get_u32(&r);
    p->max_iter = get_u32(&r);
    p->seed = get_u64(&r);
    p->eps = get_f64(&r);
    SHORT();
    if (flags & ~(FLAG_STEM | FLAG_NUMBERS | FLAG_SUBLINEAR))
        BAD("unknown flags 0x%x", flags);
    if (check_params(p))
        BAD("parameters out of range");
    m->n_classes = get_u32(&r);
    SHORT();
    if (m->n_classes < 2 || m->n_classes > PAGECLS_MAX_CLASSES)
        BAD("%u classes", m->n_classes);
    for (uint32_t c = 0; c < m->n_classes; c++) {
        m->k[c] = get_u32(&r);
        SHORT();
        if (m->k[c] < 1 || m->k[c] > PAGECLS_MAX_K)
            BAD("class %u has %u centroids", c, m->k[c]);
        m->first[c] = m->k_total;
        m->k_total += m->k[c];
    }
    m->n_terms = get_u32(&r);
    SHORT();
    /* Each term takes at least 10 bytes (length, one byte, idf): bound before allocating. */
    if (m->n_terms < 1 || m->n_terms > VOCAB_MAX_TERMS || m->n_terms > r.left / 10 ||
        (uint64_t)m->n_terms * m->k_total > MAX_CELLS)
        BAD("%u terms", m->n_terms);
    for (uint32_t t = 0; t < m->n_terms; t++) {
        const unsigned char *l = take(&r, 1);
        const unsigned char *term = l ? take(&r, *l) : NULL;
        SHORT();
        uint32_t id;
        bool added;
        if (*l == 0)
            BAD("empty term %u", t);
        if ((e = vocab_add(&m->vocab, (const char *)term, *l, &id, &added)))
            goto out;
        if (!added)
            BAD("duplicate term %u", t);
    }
    m->idf = malloc((size_t)m->n_terms * sizeof *m->idf);
    m->cent = calloc((size_t)m->n_terms * m->k_total, sizeof *m->cent);
    if (!m->idf || !m->cent) {
        e = err_set(ERR_NOMEM, "out of memory loading a model of %u terms", m->n_terms);
        goto out;
    }
    for (uint32_t t = 0; t < m->n_terms; t++) {
        m->idf[t] = get_f64(&r);
        SHORT();
        /* Real idf values are at most ln(pages + 1) + 1; the bound keeps weights finite. */
        if (!(m->idf[t] > 0 && m->idf[t] <= 1000))
            BAD("bad idf for term %u", t);
    }
    for (uint32_t j = 0; j < m->k_total; j++) {
        uint32_t nnz = get_u32(&r);
        SHORT();
        if (nnz > m->n_terms || nnz > r.left / 12)
            BAD("centroid %u has %u terms", j, nnz);
        int64_t prev = -1;
        for (uint32_t i = 0; i < nnz; i++) {
            uint32_t t = get_u32(&r);
            double x = get_f64(&r);
            SHORT();
            if ((int64_t)t <= prev || t >= m->n_terms)
                BAD("centroid %u: term id %u out of order or range", j, t);
            if (!(x >= 0 && x <= 1)) /* components of a unit vector of weights >= 0 */
                BAD("centroid %u: bad weight", j);
            m->cent[(size_t)t * m->k_total + j] = x;
            prev = t;
        }
    }
    m->cv.folds = get_u32(&r);
    m->cv.sites = get_u32(&r);
    m->cv.pages = get_u64(&r);
    m->cv.correct = get_f64(&r);
    m->cv.accuracy = get_f64(&r);
    m->cv.p_err = get_f64(&r);
    SHORT();
    if (!(m->cv.correct >= 0 && m->cv.correct <= (double)m->cv.pages) ||
        !(m->cv.accuracy >= 0 && m->cv.accuracy <= 1) || !(m->cv.p_err >= 0 && m->cv.p_err <= 1))
        BAD("bad cross-validation figures");
    if (r.left)
        BAD("%zu trailing bytes", r.left);
#undef BAD
#undef SHORT
    *out = m;
    m = NULL;
out:
    pagecls_free(m);
    return e;
}
