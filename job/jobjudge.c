/* Judging a job's websites again with a model learnt from its crawl (jobjudge.h). */
#include "job/jobjudge.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classifier/termvec.h"
#include "classifier/vocab.h"
#include "common/grow.h"
#include "common/log.h"
#include "common/monotime.h"
#include "store/judgestore.h"
#include "store/models.h"
#include "store/store.h"

void jobjudge_params_default(struct jobjudge_params *p)
{
    *p = (struct jobjudge_params){.min_sites = 3,
                                  .weight_cap = 200,
                                  .threshold = 0.5,
                                  .spy_folds = 3,
                                  .spy_quantile = 0.1,
                                  .spy_prior = 0.1,
                                  .spy_prior_weight = 10,
                                  .min_pages = 250};
    nbem_params_default(&p->em);
}

/* The pages as term ids and counts: entries [start[d], start[d + 1]) are page d's. */
struct pages {
    struct vocab v;
    uint32_t *df; /* per vocabulary id: websites with the term */
    size_t *last; /* per vocabulary id: the last website (its number + 1) that had it */
    size_t cap_df, cap_last;
    size_t site; /* the website of the page being read (its number + 1) */
    uint32_t *term, *count;
    size_t n, cap_term, cap_count;
    size_t *start; /* n_docs + 1 */
    size_t n_docs;
    uint32_t *kept; /* the model's term id -> vocabulary id */
};

static enum err add_term(void *ctx, const char *term, size_t len, uint32_t count)
{
    struct pages *pg = ctx;
    uint32_t id;
    bool added;
    enum err e = vocab_add(&pg->v, term, len, &id, &added);
    if (!e && added)
        e = grow_array((void **)&pg->df, &pg->cap_df, (size_t)id + 1, sizeof *pg->df);
    if (!e && added)
        e = grow_array((void **)&pg->last, &pg->cap_last, (size_t)id + 1, sizeof *pg->last);
    if (!e)
        e = grow_array((void **)&pg->term, &pg->cap_term, pg->n + 1, sizeof *pg->term);
    if (!e)
        e = grow_array((void **)&pg->count, &pg->cap_count, pg->n + 1, sizeof *pg->count);
    if (e)
        return e;
    if (added)
        pg->df[id] = 0, pg->last[id] = 0;
    if (pg->last[id] != pg->site) {
        pg->df[id]++;
        pg->last[id] = pg->site;
    }
    pg->term[pg->n] = id;
    pg->count[pg->n++] = count;
    return ERR_OK;
}

static void pages_release(struct pages *pg)
{
    vocab_release(&pg->v);
    free(pg->df);
    free(pg->kept);
    free(pg->last);
    free(pg->term);
    free(pg->count);
    free(pg->start);
}

/* Read every row's terms, then keep the terms of at least min_sites websites (renumbered):
 * a word of one website only (its name, its author) says nothing of a topic. */
static enum err pages_read(struct pages *pg, const struct store_rows *r, uint32_t min_sites,
                           uint32_t *n_terms)
{
    int rows = store_rows_count(r);
    pg->n_docs = (size_t)rows;
    pg->start = malloc(((size_t)rows + 1) * sizeof *pg->start);
    if (!pg->start)
        return err_set(ERR_NOMEM, "out of memory");
    enum err e = ERR_OK;
    for (int i = 0; !e && i < rows; i++) {
        pg->start[i] = pg->n;
        if (i == 0 || strcmp(store_rows_get(r, i, 0), store_rows_get(r, i - 1, 0)) != 0)
            pg->site++;
        e = termvec_decode(store_rows_get(r, i, 2), add_term, pg);
    }
    pg->start[rows] = pg->n;
    if (e)
        return e;
    uint32_t *id = malloc((pg->v.n ? pg->v.n : 1) * sizeof *id), k = 0;
    if (!id)
        return err_set(ERR_NOMEM, "out of memory");
    pg->kept = malloc((pg->v.n ? pg->v.n : 1) * sizeof *pg->kept);
    if (!pg->kept) {
        free(id);
        return err_set(ERR_NOMEM, "out of memory");
    }
    for (uint32_t t = 0; t < pg->v.n; t++) {
        id[t] = pg->df[t] >= min_sites ? k++ : UINT32_MAX;
        if (id[t] != UINT32_MAX)
            pg->kept[id[t]] = t;
    }
    size_t out = 0;
    for (size_t d = 0; d < pg->n_docs; d++) {
        size_t from = pg->start[d], to = pg->start[d + 1];
        pg->start[d] = out;
        for (size_t i = from; i < to; i++)
            if (id[pg->term[i]] != UINT32_MAX) {
                pg->term[out] = id[pg->term[i]];
                pg->count[out++] = pg->count[i];
            }
    }
    pg->start[pg->n_docs] = out;
    pg->n = out;
    free(id);
    *n_terms = k;
    return ERR_OK;
}

static uint32_t label_of(const char *role)
{
    if (strcmp(role, "train") == 0)
        return NBEM_TARGET;
    return strcmp(role, "train_other") == 0 ? NBEM_OTHER : NBEM_UNLABELED;
}

/* The website of rows [from, to): the weighted mean of its pages' Pr[target|page]; NaN
 * when no page has a term the model knows. */
static double site_score(const struct nbem *m, const struct pages *pg, size_t from, size_t to,
                         double weight_cap)
{
    double sum = 0, weight = 0;
    for (size_t j = from; j < to; j++) {
        uint32_t known;
        size_t a = pg->start[j];
        double pr =
            nbem_target(m, pg->term + a, pg->count + a, (uint32_t)(pg->start[j + 1] - a), &known);
        double w = known < weight_cap ? known : weight_cap;
        sum += w * pr;
        weight += w;
    }
    return weight > 0 ? sum / weight : NAN;
}

double jobjudge_confidence(double score, double threshold)
{
    double eps = 1e-9;
    double x = score < eps ? eps : score > 1 - eps ? 1 - eps : score;
    double t = threshold < eps ? eps : threshold > 1 - eps ? 1 - eps : threshold;
    return 1 / (1 + exp(-(log(x / (1 - x)) - log(t / (1 - t)))));
}

/* Row j's website ends where the host changes. */
static size_t site_end(const struct store_rows *r, size_t j)
{
    size_t rows = (size_t)store_rows_count(r);
    const char *host = store_rows_get(r, (int)j, 0);
    while (j < rows && strcmp(store_rows_get(r, (int)j, 0), host) == 0)
        j++;
    return j;
}

/* Each crawled website's verdict by m at threshold. */
static enum err judge_sites(const struct nbem *m, const struct pages *pg,
                            const struct store_rows *r, const struct jobjudge_params *p,
                            double threshold, struct judgestore_verdict **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    size_t cap = 0, rows = (size_t)store_rows_count(r);
    for (size_t i = 0, j; i < rows; i = j) {
        j = site_end(r, i);
        if (label_of(store_rows_get(r, (int)i, 1)) != NBEM_UNLABELED)
            continue;
        double conf = site_score(m, pg, i, j, p->weight_cap);
        if (isnan(conf))
            continue; /* a website with no known term keeps its verdict */
        enum err e = grow_array((void **)out, &cap, *n_out + 1, sizeof **out);
        if (e)
            return e;
        /* Relevant when the crawl model says so and the examination did too: where the
         * user gave enough examples for the page classifier to know the neighbours, it
         * vetoes the crawl model's mistakes among them; with few, it calls nearly every
         * website relevant and the crawl model decides (docs/classifier.md). */
        const char *examined = store_rows_get(r, (int)i, 3);
        int relevant = conf > threshold && (!examined || strcmp(examined, "t") == 0);
        double c = jobjudge_confidence(conf, threshold);
        if (!relevant && c > 0.5)
            c = 0.5; /* vetoed: not above 1/2 */
        (*out)[(*n_out)++] = (struct judgestore_verdict){store_rows_get(r, (int)i, 0), c, relevant};
    }
    return ERR_OK;
}

/* A dry run's figures: the verdicts v would change, and the job's relevant websites after
 * (those v judges, as v says; the others, training websites aside, as they are). */
static void dry_counts(const struct store_rows *r, const struct judgestore_verdict *v, size_t n_v,
                       struct jobjudge_result *out)
{
    size_t rows = (size_t)store_rows_count(r), k = 0;
    for (size_t i = 0, j; i < rows; i = j) {
        j = site_end(r, i);
        if (label_of(store_rows_get(r, (int)i, 1)) != NBEM_UNLABELED)
            continue;
        int now = strcmp(store_rows_get(r, (int)i, 4), "t") == 0;
        if (k < n_v && strcmp(v[k].host, store_rows_get(r, (int)i, 0)) == 0) {
            out->changed += v[k].relevant != now;
            out->relevant += v[k++].relevant;
        } else {
            out->relevant += now;
        }
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/*
 * The threshold, from spies (Liu et al. 2002): the relevant example websites are dealt to
 * p->spy_folds folds; for each fold a model is fit with that fold's websites among the
 * unlabelled pages, and scores them as it scores the crawl's websites. The threshold is
 * the p->spy_quantile quantile of those scores: what a relevant website the model did not
 * learn from scores, so a share 1 - spy_quantile of such websites passes. Fewer than two
 * relevant example websites, or no fold: p->threshold.
 */
static enum err spy_threshold(const struct pages *pg, const struct store_rows *r,
                              const struct nbem_doc *docs, uint32_t n_terms,
                              const struct jobjudge_params *p, double *threshold, size_t *n_spies)
{
    *threshold = p->threshold;
    *n_spies = 0;
    size_t rows = (size_t)store_rows_count(r), n_targets = 0;
    for (size_t i = 0, j; i < rows; i = j) {
        j = site_end(r, i);
        n_targets += docs[i].label == NBEM_TARGET;
    }
    uint32_t folds = p->spy_folds < n_targets ? p->spy_folds : (uint32_t)n_targets;
    if (folds < 1 || n_targets < 2)
        return ERR_OK;
    struct nbem_doc *d = malloc(rows * sizeof *d);
    double *score = malloc(n_targets * sizeof *score);
    enum err e = d && score ? ERR_OK : err_set(ERR_NOMEM, "out of memory");
    size_t n = 0;
    for (uint32_t f = 0; !e && f < folds; f++) {
        memcpy(d, docs, rows * sizeof *d);
        size_t t = 0;
        for (size_t i = 0, j; i < rows; i = j) {
            j = site_end(r, i);
            if (docs[i].label == NBEM_TARGET && t++ % folds == f)
                for (size_t k = i; k < j; k++)
                    d[k].label = NBEM_UNLABELED;
        }
        struct nbem *m = NULL;
        e = nbem_fit(&p->em, d, rows, n_terms, &m);
        t = 0;
        for (size_t i = 0, j; !e && i < rows; i = j) {
            j = site_end(r, i);
            if (docs[i].label == NBEM_TARGET && t++ % folds == f) {
                double sc = site_score(m, pg, i, j, p->weight_cap);
                if (!isnan(sc))
                    score[n++] = sc;
            }
        }
        nbem_free(m);
    }
    if (!e && n) {
        qsort(score, n, sizeof *score, cmp_double);
        double at = p->spy_quantile * (double)(n - 1);
        size_t lo = (size_t)at;
        double frac = at - (double)lo;
        double q = lo + 1 < n ? score[lo] * (1 - frac) + score[lo + 1] * frac : score[lo];
        /* A few spies' quantile is noise: it shrinks towards a prior threshold. */
        *threshold = ((double)n * q + p->spy_prior_weight * p->spy_prior) /
                     ((double)n + p->spy_prior_weight);
        if (*threshold < JOBJUDGE_MIN_THRESHOLD)
            *threshold = JOBJUDGE_MIN_THRESHOLD;
        if (*threshold > p->threshold)
            *threshold = p->threshold;
        *n_spies = n;
    }
    free(d);
    free(score);
    return e;
}

/*
 * The model's bytes (models.data): its vocabulary, uint32 n then n terms, each a byte of
 * length and its bytes, in the model's term ids' order; then the model (nbem_serialize).
 * Every judging's model is kept, so what decided a verdict can be read back.
 */
static enum err model_bytes(const struct nbem *m, const struct pages *pg, struct buf *out)
{
    uint32_t n = nbem_terms(m);
    enum err e = buf_append(out, &n, sizeof n);
    for (uint32_t t = 0; !e && t < n; t++) {
        size_t len;
        const char *term = vocab_term(&pg->v, pg->kept[t], &len);
        unsigned char l = (unsigned char)len; /* tokens are at most TOKENIZE_MAX_BYTES */
        e = buf_append(out, &l, 1);
        if (!e)
            e = buf_append(out, term, l);
    }
    return e ? e : nbem_serialize(m, out);
}

static enum err save_model(struct store *s, int64_t job, const struct jobjudge_params *p,
                           const struct jobjudge_result *res, const struct nbem *m,
                           const struct pages *pg, int64_t *id)
{
    char cv[512], params[512];
    snprintf(cv, sizeof cv,
             "{\"pages\": %zu, \"terms\": %zu, \"sites\": %zu, \"target_prior\": %.6g,"
             " \"threshold\": %.6g, \"spies\": %zu, \"cpu_seconds\": %.3f}",
             res->pages, res->terms, res->sites, res->target_prior, res->threshold, res->spies,
             res->cpu_seconds);
    snprintf(params, sizeof params,
             "{\"other_components\": %u, \"iterations\": %u, \"alpha\": %.6g,"
             " \"page_tokens\": %.6g, \"seed\": %llu, \"min_sites\": %u, \"weight_cap\": %.6g,"
             " \"threshold\": %.6g, \"spy_folds\": %u, \"spy_quantile\": %.6g,"
             " \"spy_prior\": %.6g, \"spy_prior_weight\": %.6g, \"min_pages\": %lld}",
             p->em.other_components, p->em.iterations, p->em.alpha, p->em.page_tokens,
             (unsigned long long)p->em.seed, p->min_sites, p->weight_cap, p->threshold,
             p->spy_folds, p->spy_quantile, p->spy_prior, p->spy_prior_weight,
             (long long)p->min_pages);
    struct buf data;
    buf_init(&data, NBEM_MAX_BYTES);
    enum err e = model_bytes(m, pg, &data);
    if (!e)
        e = models_save(s, job, MODELS_CRAWL, 1, 0, NAN, cv, params, data.data, data.len, id);
    buf_release(&data);
    return e;
}

struct jobjudge_model {
    struct vocab v; /* the model's term ids */
    struct nbem *m;
    double threshold, weight_cap;
};

void jobjudge_model_free(struct jobjudge_model *jm)
{
    if (!jm)
        return;
    vocab_release(&jm->v);
    nbem_free(jm->m);
    free(jm);
}

/* The model m (taken) with the vocabulary of its term ids (pg's kept terms). */
static enum err model_keep(struct nbem *m, const struct pages *pg, double threshold,
                           double weight_cap, struct jobjudge_model **out)
{
    struct jobjudge_model *jm = calloc(1, sizeof *jm);
    if (!jm) {
        nbem_free(m);
        return err_set(ERR_NOMEM, "out of memory");
    }
    vocab_init(&jm->v);
    jm->m = m;
    jm->threshold = threshold;
    jm->weight_cap = weight_cap;
    enum err e = ERR_OK;
    for (uint32_t t = 0; !e && t < nbem_terms(m); t++) {
        size_t len;
        const char *term = vocab_term(&pg->v, pg->kept[t], &len);
        uint32_t id;
        e = vocab_add(&jm->v, term, len, &id, NULL);
    }
    if (e) {
        jobjudge_model_free(jm);
        return e;
    }
    *out = jm;
    return ERR_OK;
}

/* A page's terms as the model's ids (the terms it does not know left out). */
struct page_ids {
    const struct vocab *v;
    uint32_t term[TERMVEC_MAX_TERMS], count[TERMVEC_MAX_TERMS];
    uint32_t n;
};

static enum err page_id(void *ctx, const char *term, size_t len, uint32_t count)
{
    struct page_ids *pi = ctx;
    uint32_t id;
    if (pi->n < TERMVEC_MAX_TERMS && vocab_find(pi->v, term, len, &id)) {
        pi->term[pi->n] = id;
        pi->count[pi->n++] = count;
    }
    return ERR_OK;
}

int jobjudge_model_score(const struct jobjudge_model *jm, const char *const *terms, size_t n,
                         double *conf)
{
    struct page_ids *pi = malloc(sizeof *pi);
    double sum = 0, weight = 0;
    for (size_t i = 0; pi && i < n; i++) {
        if (!terms[i])
            continue;
        pi->v = &jm->v;
        pi->n = 0;
        if (termvec_decode(terms[i], page_id, pi) != ERR_OK)
            continue;
        uint32_t known;
        double pr = nbem_target(jm->m, pi->term, pi->count, pi->n, &known);
        double w = known < jm->weight_cap ? known : jm->weight_cap;
        sum += w * pr;
        weight += w;
    }
    free(pi);
    if (!(weight > 0))
        return 0;
    *conf = jobjudge_confidence(sum / weight, jm->threshold);
    return 1;
}

enum err jobjudge_run(struct store *s, int64_t job, const struct jobjudge_params *p, int dry_run,
                      struct jobjudge_result *out)
{
    *out = (struct jobjudge_result){.threshold = NAN};
    double t0 = monotime_s(), cpu0 = cputime_thread_s();
    struct store_rows *r = NULL;
    struct pages pg = {0};
    vocab_init(&pg.v);
    struct nbem_doc *docs = NULL;
    struct nbem *m = NULL;
    struct judgestore_verdict *v = NULL;
    size_t n_v = 0;
    uint32_t n_terms = 0;
    if (p->min_sites < 1 || !(p->weight_cap > 0) || !(p->threshold > 0 && p->threshold < 1) ||
        !(p->spy_quantile >= 0 && p->spy_quantile < 1)) {
        enum err e = err_set(ERR_INVAL, "judge: min_sites >= 1, weight_cap > 0, 0 < threshold < 1,"
                                        " 0 <= spy_quantile < 1");
        vocab_release(&pg.v);
        return e;
    }
    char topic[8];
    enum err e = judgestore_topic(s, job, topic, sizeof topic); /* ERR_NOTFOUND: no such job */
    if (!e)
        e = judgestore_pages(s, job, &r);
    if (!e)
        e = pages_read(&pg, r, p->min_sites, &n_terms);
    if (!e && !(docs = calloc(pg.n_docs ? pg.n_docs : 1, sizeof *docs)))
        e = err_set(ERR_NOMEM, "out of memory");
    int targets = 0;
    for (size_t d = 0; !e && d < pg.n_docs; d++) {
        docs[d] = (struct nbem_doc){pg.term + pg.start[d], pg.count + pg.start[d],
                                    (uint32_t)(pg.start[d + 1] - pg.start[d]),
                                    label_of(store_rows_get(r, (int)d, 1))};
        targets += docs[d].label == NBEM_TARGET && docs[d].n > 0;
    }
    for (size_t d = 0; !e && d < pg.n_docs; d++)
        out->crawl_pages += docs[d].label == NBEM_UNLABELED;
    if (!e && (int64_t)out->crawl_pages < p->min_pages)
        goto out; /* too little of the web to learn from: the verdicts stay */
    if (!e && (!targets || !n_terms))
        e = err_set(ERR_NOTFOUND,
                    "job %lld has no stored page of a relevant example to learn from (jobs"
                    " made before sitescout kept each page's terms cannot be judged again)",
                    (long long)job);
    if (!e)
        e = spy_threshold(&pg, r, docs, n_terms, p, &out->threshold, &out->spies);
    if (!e)
        e = nbem_fit(&p->em, docs, pg.n_docs, n_terms, &m);
    if (!e)
        e = judge_sites(m, &pg, r, p, out->threshold, &v, &n_v);
    if (!e) {
        out->pages = pg.n_docs;
        out->terms = n_terms;
        out->sites = n_v;
        out->target_prior = nbem_target_prior(m);
        out->cpu_seconds = cputime_thread_s() - cpu0;
    }
    if (!e && !dry_run)
        e = save_model(s, job, p, out, m, &pg, &out->model_id);
    if (!e && !dry_run)
        e = judgestore_write(s, job, out->model_id, v, n_v, &out->relevant, &out->changed);
    if (!e && p->keep_model) {
        e = model_keep(m, &pg, out->threshold, p->weight_cap, &out->model);
        m = NULL; /* the kept model's now */
    }
    if (!e && dry_run) /* what a judging would change: the verdicts, and the job's count */
        dry_counts(r, v, n_v, out);
out:
    out->seconds = monotime_s() - t0;
    free(v);
    nbem_free(m);
    free(docs);
    pages_release(&pg);
    store_rows_free(r);
    return e;
}
