/* Page classifier training: term pruning, IDF, k-means per class or an SVM, and site-split CV. */
#include "classifier/pagecls_train.h"

#include <stdlib.h>
#include <string.h>

#include "classifier/corpus.h"
#include "classifier/kmeans.h"
#include "classifier/pagecls_model.h"
#include "classifier/rng.h"
#include "classifier/svm.h"
#include "common/grow.h"

/* ---- fitting one model on a subset of the corpus ---- */

/* Working arrays of one fit, all owned here (fit_release). G = corpus terms. */
struct fit_work {
    const struct pagecls_params *p;
    const struct corpus *c;
    const struct pagecls_doc *docs;
    const bool *use;                  /* pages to fit on; NULL = all */
    uint32_t *df;                     /* G: training pages using the term */
    uint32_t *sdf;                    /* G: sites using the term */
    uint32_t *last;                   /* G: site ordinal + 1 of its last use */
    uint32_t *gmap;                   /* G: corpus id -> model id or UINT32_MAX */
    struct tfidf_vec *vecs;           /* per page: weighted unit vector in model ids */
    struct tfidf_vec *pts;            /* one class's non-empty vectors (borrowed from vecs) */
    double *per[PAGECLS_MAX_CLASSES]; /* each class's k-means centroids */
    size_t n_used;
    struct pagecls *m;
};

static bool fit_uses(const struct fit_work *f, size_t i)
{
    return !f->use || f->use[i];
}

static enum err fit_init(struct fit_work *f)
{
    uint32_t G = f->c->vocab.n;
    f->df = calloc(G ? G : 1, sizeof *f->df);
    f->sdf = calloc(G ? G : 1, sizeof *f->sdf);
    f->last = calloc(G ? G : 1, sizeof *f->last);
    f->gmap = malloc((G ? G : 1) * sizeof *f->gmap);
    f->vecs = calloc(f->c->n, sizeof *f->vecs);
    f->pts = malloc(f->c->n * sizeof *f->pts);
    f->m = pagecls_new_empty();
    if (!f->df || !f->sdf || !f->last || !f->gmap || !f->vecs || !f->pts || !f->m)
        return err_set(ERR_NOMEM, "out of memory training the page classifier");
    f->m->params = *f->p;
    f->m->n_classes = f->c->n_classes;
    return ERR_OK;
}

static void fit_release(struct fit_work *f)
{
    free(f->df);
    free(f->sdf);
    free(f->last);
    free(f->gmap);
    if (f->vecs)
        for (size_t i = 0; i < f->c->n; i++)
            tfidf_vec_release(&f->vecs[i]);
    free(f->vecs);
    free(f->pts);
    for (uint32_t cls = 0; cls < PAGECLS_MAX_CLASSES; cls++)
        free(f->per[cls]);
    pagecls_free(f->m);
}

/* Document frequency of each corpus term, in pages and in websites (sites are runs of by_site). */
static void count_usage(struct fit_work *f)
{
    const struct corpus *c = f->c;
    uint32_t site_ord = 0;
    for (size_t o = 0; o < c->n; o++) {
        size_t i = c->by_site[o];
        if (o > 0 && f->docs[i].site != f->docs[c->by_site[o - 1]].site)
            site_ord++;
        if (!fit_uses(f, i))
            continue;
        f->n_used++;
        for (uint32_t t = 0; t < c->bags[i].n; t++) {
            uint32_t g = c->bags[i].id[t];
            f->df[g]++;
            if (f->last[g] != site_ord + 1) {
                f->last[g] = site_ord + 1;
                f->sdf[g]++;
            }
        }
    }
}

/* The model's terms (gmap, idf and, when with_vocab, their strings), in corpus id order. */
static enum err keep_terms(struct fit_work *f, bool with_vocab)
{
    enum err e;
    const struct pagecls_params *p = f->p;
    struct pagecls *m = f->m;
    uint32_t G = f->c->vocab.n;
    /* A term of one website only (its name, its template) says nothing about new sites. */
    for (uint32_t g = 0; g < G; g++)
        f->gmap[g] = f->df[g] >= p->min_df && f->sdf[g] >= p->min_sites ? m->n_terms++ : UINT32_MAX;
    if (m->n_terms == 0)
        return err_set(ERR_INVAL, "no term occurs in %u training pages of %u websites", p->min_df,
                       p->min_sites);
    m->idf = malloc((size_t)m->n_terms * sizeof *m->idf);
    if (!m->idf)
        return err_set(ERR_NOMEM, "out of memory training the page classifier");
    for (uint32_t g = 0; g < G; g++) {
        if (f->gmap[g] == UINT32_MAX)
            continue;
        m->idf[f->gmap[g]] = tfidf_idf(f->n_used, f->df[g]);
        if (with_vocab) {
            size_t len;
            const char *term = vocab_term(&f->c->vocab, g, &len);
            uint32_t id;
            if ((e = vocab_add(&m->vocab, term, len, &id, NULL)))
                return e;
        }
    }
    return ERR_OK;
}

/* Page vectors in model ids (gmap is monotone, so they stay sorted), weighed and unit length. */
static enum err page_vectors(struct fit_work *f)
{
    enum err e;
    const struct corpus *c = f->c;
    for (size_t i = 0; i < c->n; i++) {
        if (!fit_uses(f, i))
            continue;
        for (uint32_t t = 0; t < c->bags[i].n; t++) {
            uint32_t id = f->gmap[c->bags[i].id[t]];
            if (id != UINT32_MAX && (e = tfidf_vec_push(&f->vecs[i], id, c->bags[i].w[t])))
                return e;
        }
        tfidf_weigh(&f->vecs[i], f->m->idf, f->p->sublinear_tf);
        tfidf_normalize(&f->vecs[i]);
    }
    return ERR_OK;
}

uint32_t pagecls_class_centroids(const struct pagecls_params *p, uint32_t sites)
{
    if (p->sites_per_centroid == 0)
        return p->centroids;
    uint32_t k = sites / p->sites_per_centroid + (sites % p->sites_per_centroid != 0);
    return k < 1 ? 1 : k > p->centroids ? p->centroids : k;
}

/* The training websites of class cls among the pages fitted on (a site is a run of by_site). */
static uint32_t class_sites(const struct fit_work *f, uint32_t cls)
{
    const size_t *by = f->c->by_site;
    uint32_t ns = 0;
    for (size_t o = 0; o < f->c->n; o++) {
        size_t i = by[o];
        bool first = o == 0 || f->docs[by[o - 1]].site != f->docs[i].site;
        ns += first && fit_uses(f, i) && f->docs[i].cls == cls;
    }
    return ns;
}

/* k-means per class over its non-empty vectors; a class is its set of centroids. */
static enum err cluster_classes(struct fit_work *f)
{
    enum err e = ERR_OK;
    struct pagecls *m = f->m;
    for (uint32_t cls = 0; cls < m->n_classes && !e; cls++) {
        size_t np = 0;
        for (size_t i = 0; i < f->c->n; i++)
            if (fit_uses(f, i) && f->docs[i].cls == cls && f->vecs[i].n)
                f->pts[np++] = f->vecs[i];
        if (np == 0)
            return err_set(ERR_INVAL, "class %u has no training page with a known term", cls);
        uint64_t st = f->p->seed + cls;
        uint32_t k = pagecls_class_centroids(f->p, class_sites(f, cls));
        /* One k-means++ run: restarts (n_init 5) measured no better on the dev web. */
        struct kmeans_params kp = {k, f->p->max_iter, 1, rng_next(&st)};
        e = kmeans_run(f->pts, np, m->n_terms, &kp, &f->per[cls], &m->k[cls], NULL);
        m->first[cls] = m->k_total;
        m->k_total += m->k[cls];
    }
    return e;
}

/* The classes' centroids side by side in one term-major matrix. */
static enum err join_centroids(struct fit_work *f)
{
    struct pagecls *m = f->m;
    if ((uint64_t)m->n_terms * m->k_total > PAGECLS_MAX_CELLS)
        return err_set(ERR_TOOBIG, "model of %u terms x %u centroids is too big", m->n_terms,
                       m->k_total);
    m->cent = malloc((size_t)m->n_terms * m->k_total * sizeof *m->cent);
    if (!m->cent)
        return err_set(ERR_NOMEM, "out of memory for %u x %u centroids", m->n_terms, m->k_total);
    for (uint32_t cls = 0; cls < m->n_classes; cls++)
        for (size_t t = 0; t < m->n_terms; t++)
            memcpy(m->cent + t * m->k_total + m->first[cls], f->per[cls] + t * m->k[cls],
                   m->k[cls] * sizeof *m->cent);
    return ERR_OK;
}

/*
 * The SVM on the non-empty page vectors, target (+1) against other (-1). Costs are
 * class-balanced (svm_class_costs): the training sets hold 3-4 other pages per target
 * page, and unweighted the bias would lean every doubtful page to "other"; balanced, a
 * page the weights cannot tell lands near 0, like the kNN's 1/2.
 */
static enum err train_svm(struct fit_work *f)
{
    struct pagecls *m = f->m;
    if (m->n_classes != 2)
        return err_set(ERR_INVAL, "the svm page classifier takes two classes, not %u",
                       m->n_classes);
    enum err e = ERR_OK;
    size_t np = 0, n_pos = 0;
    int8_t *y = malloc(f->c->n ? f->c->n : 1);
    m->w = malloc((size_t)m->n_terms * sizeof *m->w);
    if (!y || !m->w) {
        e = err_set(ERR_NOMEM, "out of memory training the svm");
        goto out;
    }
    for (size_t i = 0; i < f->c->n; i++)
        if (fit_uses(f, i) && f->vecs[i].n) {
            y[np] = f->docs[i].cls == PAGECLS_TARGET ? 1 : -1;
            n_pos += y[np] > 0;
            f->pts[np++] = f->vecs[i];
        }
    if (n_pos == 0 || n_pos == np) {
        e = err_set(ERR_INVAL, "class %u has no training page with a known term",
                    n_pos ? PAGECLS_OTHER : PAGECLS_TARGET);
        goto out;
    }
    struct svm_params sp;
    svm_params_default(&sp);
    svm_class_costs(f->p->svm_c, n_pos, np - n_pos, &sp.c_pos, &sp.c_neg);
    sp.seed = f->p->seed;
    e = svm_train(&sp, f->pts, y, np, m->n_terms, m->w, &m->b, NULL);
out:
    free(y);
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
    enum err e;
    struct fit_work f = {.p = p, .c = c, .docs = docs, .use = use};
    *out = NULL;
    *gmap_out = NULL;
    if ((e = fit_init(&f)))
        goto out;
    count_usage(&f);
    if ((e = keep_terms(&f, with_vocab)) || (e = page_vectors(&f)))
        goto out;
    if (p->kind == PAGECLS_SVM)
        e = train_svm(&f);
    else if (!(e = cluster_classes(&f)))
        e = join_centroids(&f);
    if (e)
        goto out;
    *out = f.m;
    *gmap_out = f.gmap;
    f.m = NULL;
    f.gmap = NULL;
out:
    fit_release(&f);
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
 * fold[i] for every page: sites in corpus order (by id), each class's sites shuffled
 * with the seed and dealt round-robin (continuing across classes) so folds are balanced.
 */
static enum err assign_folds(const struct corpus *c, const struct pagecls_doc *docs, uint64_t seed,
                             uint32_t *folds_io, uint32_t *n_sites, uint32_t *fold)
{
    enum err e = ERR_OK;
    size_t n = c->n;
    const size_t *by = c->by_site;
    size_t *site_start = malloc(n * sizeof *site_start); /* first by_site index of each site */
    uint32_t *site_fold = malloc(n * sizeof *site_fold);
    size_t *order = malloc(n * sizeof *order);
    if (!site_start || !site_fold || !order) {
        e = err_set(ERR_NOMEM, "out of memory assigning cross-validation folds");
        goto out;
    }
    size_t ns = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || docs[by[i]].site != docs[by[i - 1]].site)
            site_start[ns++] = i;
    /* A site's class is that of its first page. */
    uint32_t per_class[PAGECLS_MAX_CLASSES] = {0};
    for (size_t s = 0; s < ns; s++)
        per_class[docs[by[site_start[s]]].cls]++;
    for (uint32_t k = 0; k < c->n_classes; k++)
        if (per_class[k] < 2) {
            e = err_set(ERR_INVAL, "cross-validation needs at least 2 websites of class %u (%u)", k,
                        per_class[k]);
            goto out;
        }
    uint32_t folds = *folds_io;
    if (folds > ns)
        folds = (uint32_t)ns;
    uint64_t rng = seed;
    uint32_t next = 0;
    for (uint32_t k = 0; k < c->n_classes; k++) {
        size_t m = 0;
        for (size_t s = 0; s < ns; s++)
            if (docs[by[site_start[s]]].cls == k)
                order[m++] = s;
        rng_shuffle(&rng, order, m);
        for (size_t i = 0; i < m; i++)
            site_fold[order[i]] = next++ % folds;
    }
    for (size_t s = 0; s < ns; s++) {
        size_t end = s + 1 < ns ? site_start[s + 1] : n;
        for (size_t i = site_start[s]; i < end; i++)
            fold[by[i]] = site_fold[s];
    }
    *folds_io = folds;
    *n_sites = (uint32_t)ns;
out:
    free(site_start);
    free(site_fold);
    free(order);
    return e;
}

/* What cross-validation keeps of each held-out page (indexed like the docs). */
struct held_out {
    double *pr;      /* n_classes confidences per page */
    uint32_t *terms; /* known terms */
};

/* Count one held-out page: right when its class has the top confidence, 1/ties on a tie. */
static void tally(struct pagecls_cv *cv, const struct pagecls_result *r, uint32_t cls,
                  uint32_t n_classes)
{
    double top = r->pr[0];
    for (uint32_t k = 1; k < n_classes; k++)
        if (r->pr[k] > top)
            top = r->pr[k];
    uint32_t ties = 0;
    for (uint32_t k = 0; k < n_classes; k++)
        ties += r->pr[k] == top;
    if (r->pr[cls] == top)
        cv->correct += 1.0 / ties;
    cv->pages++;
}

/* Classify the held-out pages (!use[i]) with the fold's model m; v and sims are scratch. */
static enum err score_held_out(const struct pagecls *m, const uint32_t *gmap,
                               const struct corpus *c, const struct pagecls_doc *docs,
                               const bool *use, struct tfidf_vec *v, double *sims,
                               struct pagecls_cv *cv, struct held_out *ho)
{
    enum err e = ERR_OK;
    for (size_t i = 0; i < c->n; i++) {
        if (use[i])
            continue;
        v->n = 0;
        for (uint32_t t = 0; t < c->bags[i].n && !e; t++) {
            uint32_t id = gmap[c->bags[i].id[t]];
            if (id != UINT32_MAX)
                e = tfidf_vec_push(v, id, c->bags[i].w[t]);
        }
        if (e)
            return e;
        struct pagecls_result r;
        pagecls_score_vec(m, v, sims, &r);
        tally(cv, &r, docs[i].cls, c->n_classes);
        memcpy(ho->pr + i * c->n_classes, r.pr, c->n_classes * sizeof *ho->pr);
        ho->terms[i] = r.known_terms;
    }
    return ERR_OK;
}

/* Train on every fold but f and score fold f; *sims grows to the fold model's centroids. */
static enum err run_fold(const struct pagecls_params *p, const struct corpus *c,
                         const struct pagecls_doc *docs, const uint32_t *fold, uint32_t f,
                         bool *use, struct tfidf_vec *v, double **sims, size_t *sims_cap,
                         struct pagecls_cv *cv, struct held_out *ho)
{
    enum err e;
    struct pagecls *m = NULL;
    uint32_t *gmap = NULL;
    for (size_t i = 0; i < c->n; i++)
        use[i] = fold[i] != f;
    if ((e = fit(p, c, docs, use, false, &m, &gmap)))
        return e;
    /* SVM: no centroids */
    if (grow_array((void **)sims, sims_cap, m->k_total ? m->k_total : 1, sizeof **sims) != ERR_OK) {
        e = err_set(ERR_NOMEM, "out of memory cross-validating");
        goto out;
    }
    e = score_held_out(m, gmap, c, docs, use, v, *sims, cv, ho);
out:
    pagecls_free(m);
    free(gmap);
    return e;
}

/*
 * Fit the calibration of Pr[p|target] (classifier/calib.h) on the held-out pages,
 * calibrate their confidences in place, and count the held-out pages right again with
 * the calibrated classifier. Two classes only.
 */
static enum err calibrate(uint32_t kind, const struct corpus *c, const struct pagecls_doc *docs,
                          struct held_out *ho, struct pagecls_cv *cv)
{
    if (c->n_classes != 2)
        return ERR_OK;
    double *x = malloc(c->n * sizeof *x);
    bool *target = malloc(c->n * sizeof *target);
    if (!x || !target) {
        free(x);
        free(target);
        return err_set(ERR_NOMEM, "out of memory calibrating");
    }
    for (size_t i = 0; i < c->n; i++) {
        x[i] = ho->pr[i * 2 + PAGECLS_TARGET];
        target[i] = docs[i].cls == PAGECLS_TARGET;
    }
    if (kind == PAGECLS_SVM)
        calib_fit_shifted(x, ho->terms, target, c->n, &cv->calib);
    else
        calib_fit(x, ho->terms, target, c->n, &cv->calib);
    cv->correct = 0;
    cv->pages = 0;
    for (size_t i = 0; i < c->n; i++) {
        struct pagecls_result r = {.pr = {0}};
        r.pr[PAGECLS_TARGET] = ho->terms[i] ? calib_apply(&cv->calib, x[i], ho->terms[i]) : x[i];
        r.pr[PAGECLS_OTHER] = 1 - r.pr[PAGECLS_TARGET];
        memcpy(ho->pr + i * 2, r.pr, 2 * sizeof *ho->pr);
        tally(cv, &r, docs[i].cls, 2);
    }
    free(x);
    free(target);
    return ERR_OK;
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
    struct held_out ho = {pr_out ? pr_out : malloc(c->n * c->n_classes * sizeof *ho.pr),
                          malloc(c->n * sizeof *ho.terms)};
    double *sims = NULL;
    size_t sims_cap = 0;
    struct tfidf_vec v;
    tfidf_vec_init(&v);
    if (!fold || !use || !ho.pr || !ho.terms) {
        e = err_set(ERR_NOMEM, "out of memory cross-validating");
        goto out;
    }
    if ((e = assign_folds(c, docs, p->seed, &folds, &cv->sites, fold)))
        goto out;
    for (uint32_t f = 0; f < folds; f++)
        if ((e = run_fold(p, c, docs, fold, f, use, &v, &sims, &sims_cap, cv, &ho)))
            goto out;
    if (p->calibrate && (e = calibrate(p->kind, c, docs, &ho, cv)))
        goto out;
    cv->folds = folds;
    cv->accuracy = cv->pages ? cv->correct / (double)cv->pages : 0;
    cv->p_err = 1.0 - cv->accuracy;
out:
    free(fold);
    free(use);
    if (ho.pr != pr_out)
        free(ho.pr);
    free(ho.terms);
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
