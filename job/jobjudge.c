/* Judging a job's websites again with a model learnt from its crawl (jobjudge.h). */
#include "job/jobjudge.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classifier/linkjudge.h"
#include "classifier/sitejudge.h"
#include "classifier/sitelike.h"
#include "classifier/termvec.h"
#include "classifier/vocab.h"
#include "common/grow.h"
#include "common/log.h"
#include "common/monotime.h"
#include "common/num.h"
#include "job/jobmodel.h"
#include "store/judgestore.h"
#include "store/models.h"
#include "store/store.h"

void jobjudge_params_default(struct jobjudge_params *p)
{
    *p = (struct jobjudge_params){.min_sites = 3,
                                  .weight_cap = 200,
                                  .threshold = 0.5,
                                  .spy_folds = 3,
                                  .early_threshold = 0.1,
                                  .spy_iterations = 3,
                                  .spy_quantile = 0.1,
                                  .spy_prior = 0.1,
                                  .spy_prior_weight = 10,
                                  .spy_many = 20,
                                  .other_clusters = 10,
                                  .cluster_sites = 6,
                                  .web_gate_quantile = 0.3,
                                  .fit_pages = 3000,
                                  .bag = 1,
                                  .link_rounds = 3,
                                  .link_slope = 2,
                                  .exam_links = 4,
                                  .min_pages = 250};
    nbem_params_default(&p->em);
}

void jobjudge_sitejudge_params(const struct jobjudge_params *p, struct sitejudge_params *out)
{
    *out = (struct sitejudge_params){.em = p->em,
                                     .min_sites = p->min_sites,
                                     .weight_cap = p->weight_cap,
                                     .threshold = p->threshold,
                                     .spy_folds = p->spy_folds,
                                     .spy_pages = p->spy_pages,
                                     .early_threshold = p->early_threshold,
                                     .spy_iterations = p->spy_iterations,
                                     .spy_quantile = p->spy_quantile,
                                     .spy_prior = p->spy_prior,
                                     .spy_prior_weight = p->spy_prior_weight,
                                     .spy_many = p->spy_many,
                                     .other_clusters = p->other_clusters,
                                     .cluster_sites = p->cluster_sites,
                                     .web_gate_quantile = p->web_gate_quantile,
                                     .fit_pages = p->fit_pages,
                                     .bag = p->bag};
}

static uint32_t label_of(const char *role)
{
    if (strcmp(role, "train") == 0)
        return NBEM_TARGET;
    if (strcmp(role, "rejected") == 0)
        return SITEJUDGE_REJECTED;
    return strcmp(role, "train_other") == 0 ? NBEM_OTHER : NBEM_UNLABELED;
}

double jobjudge_confidence(double score, double threshold)
{
    return sitejudge_confidence(score, threshold);
}

double jobjudge_evidence(double score, double threshold)
{
    return sitejudge_evidence(score, threshold);
}

double jobjudge_link_confidence(double text, double links, int vetoed)
{
    struct linkjudge_site s = {.text = text, .evidence = links, .veto = vetoed};
    return linkjudge_confidence(&s);
}

/*
 * The rows' websites (a website's rows are together: the query orders them by the bytes
 * of their hosts, which the links' site_of relies on; ERR_IO if not) and
 * their pages into sj; first[k] is website k's first row (the caller frees it). *crawl_pages:
 * the pages of websites to judge.
 */
static enum err add_rows(struct sitejudge *sj, const struct store_rows *r, size_t **first,
                         size_t *crawl_pages)
{
    size_t rows = (size_t)store_rows_count(r), cap = 0;
    *first = NULL;
    *crawl_pages = 0;
    enum err e = ERR_OK;
    for (size_t i = 0; !e && i < rows; i++) {
        uint32_t label = label_of(store_rows_get(r, (int)i, 1));
        int order =
            i == 0 ? 1 : strcmp(store_rows_get(r, (int)i, 0), store_rows_get(r, (int)i - 1, 0));
        if (order < 0) /* site_of finds a link's ends by this order */
            e = err_set(ERR_IO, "the stored pages are not in their hosts' byte order (%s after %s)",
                        store_rows_get(r, (int)i, 0), store_rows_get(r, (int)i - 1, 0));
        else if (order > 0) {
            size_t k = sitejudge_sites(sj);
            e = grow_array((void **)first, &cap, k + 1, sizeof **first);
            if (!e)
                e = sitejudge_add_site(sj, label);
            if (!e)
                (*first)[k] = i;
        }
        int64_t key; /* the page's id: a page stored never changes its terms */
        if (!e && !num_parse_i64(store_rows_get(r, (int)i, 5), 0, INT64_MAX, &key))
            e = err_set(ERR_IO, "a stored page's id is %s", store_rows_get(r, (int)i, 5));
        if (!e)
            e = sitejudge_add_page(sj, key, store_rows_get(r, (int)i, 2));
        *crawl_pages += label == NBEM_UNLABELED;
    }
    return e;
}

/* Row i's website: its examination said not relevant. */
static int examined_no(const struct store_rows *r, int i)
{
    const char *examined = store_rows_get(r, i, 3);
    return examined && strcmp(examined, "t") != 0;
}

/* Website k (its first row i) vetoed as its text alone judges it (no links weighed): the
 * examination said not relevant, or it is more like a website the user rejected than like
 * any relevant one (like: sitejudge_rejected_like's). */
static int vetoed(const struct store_rows *r, int i, const size_t *like, size_t k)
{
    return examined_no(r, i) || like[k] != SITEJUDGE_NONE;
}

/* The rejected website that vetoed website k (like: vetoed's) when it would be relevant
 * otherwise (yes), else NULL: sites.like_rejected. */
static const char *rejected_host(const struct store_rows *r, const size_t *first,
                                 const size_t *like, size_t k, int yes)
{
    return yes && like[k] != SITEJUDGE_NONE ? store_rows_get(r, (int)first[like[k]], 0) : NULL;
}

/* Each crawled website's verdict by the fit sj at threshold (like: vetoed's). */
static enum err judge_sites(const struct sitejudge *sj, const struct store_rows *r,
                            const size_t *first, double threshold, const size_t *like,
                            struct judgestore_verdict **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    size_t cap = 0;
    for (size_t k = 0; k < sitejudge_sites(sj); k++) {
        int i = (int)first[k];
        if (label_of(store_rows_get(r, i, 1)) != NBEM_UNLABELED)
            continue;
        double conf = sitejudge_score(sj, k);
        if (isnan(conf))
            continue; /* a website with no known term keeps its verdict */
        enum err e = grow_array((void **)out, &cap, *n_out + 1, sizeof **out);
        if (e)
            return e;
        /* Relevant when the crawl model says so and the examination did too: where the
         * user gave enough examples for the page classifier to know the neighbours, it
         * vetoes the crawl model's mistakes among them; with few, it calls nearly every
         * website relevant and the crawl model decides (docs/classifier.md). A website
         * more like one the user rejected than like any relevant one is vetoed too. */
        int relevant = conf > threshold && !vetoed(r, i, like, k);
        double c = jobjudge_confidence(conf, threshold);
        if (!relevant && c > 0.5)
            c = 0.5; /* vetoed: not above 1/2 */
        (*out)[(*n_out)++] =
            (struct judgestore_verdict){store_rows_get(r, i, 0),
                                        c,
                                        relevant,
                                        NAN,
                                        0,
                                        0,
                                        rejected_host(r, first, like, k, conf > threshold)};
    }
    return ERR_OK;
}

/* Website k of the rows (first: their first rows, in host order) named host, or -1. */
static long site_of(const struct store_rows *r, const size_t *first, size_t n_sites,
                    const char *host)
{
    size_t lo = 0, hi = n_sites;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(host, store_rows_get(r, (int)first[mid], 0));
        if (c == 0)
            return (long)mid;
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return -1;
}

/*
 * The verdicts v[0..n_v) (one per judged website, in the rows' order) weighed with their
 * links (classifier/linkjudge.h): every examined website of the rows is a node, an example
 * or a label with its verdict fixed, a website the model did not judge with its stored
 * verdict; the links are the stored edges between them.
 */
static enum err weigh_links(struct store *s, int64_t job, const struct sitejudge *sj,
                            const struct store_rows *r, const size_t *first, double threshold,
                            const size_t *like, uint32_t rounds, double slope, double exam_links,
                            struct judgestore_verdict *v, size_t n_v)
{
    size_t n_sites = sitejudge_sites(sj);
    if (rounds == 0 || n_sites == 0)
        return ERR_OK;
    struct store_rows *lr = NULL;
    struct linkjudge_site *ls = calloc(n_sites, sizeof *ls);
    long *verdict = malloc(n_sites * sizeof *verdict); /* site k's index in v, or -1 */
    struct linkjudge_edge *edges = NULL;
    size_t n_edges = 0;
    enum err e = ls && verdict ? ERR_OK : err_set(ERR_NOMEM, "out of memory");
    for (size_t k = 0, j = 0; !e && k < n_sites; k++) {
        int i = (int)first[k];
        uint32_t label = label_of(store_rows_get(r, i, 1));
        int judged = j < n_v && strcmp(v[j].host, store_rows_get(r, i, 0)) == 0;
        verdict[k] = judged ? (long)j : -1;
        if (label != NBEM_UNLABELED)
            ls[k].fixed = label == NBEM_TARGET;
        else if (!judged)
            ls[k].fixed = strcmp(store_rows_get(r, i, 4), "t") == 0;
        else {
            ls[k].fixed = -1;
            ls[k].text = jobjudge_evidence(sitejudge_score(sj, k), threshold);
            ls[k].veto = like[k] != SITEJUDGE_NONE;
            ls[k].exam_no = examined_no(r, i);
            j++;
        }
    }
    if (!e)
        e = judgestore_links(s, job, &lr);
    size_t rows = lr ? (size_t)store_rows_count(lr) : 0;
    if (!e && !(edges = malloc((rows ? rows : 1) * sizeof *edges)))
        e = err_set(ERR_NOMEM, "out of memory");
    for (size_t k = 0; !e && k < rows; k++) {
        long a = site_of(r, first, n_sites, store_rows_get(lr, (int)k, 0));
        long b = site_of(r, first, n_sites, store_rows_get(lr, (int)k, 1));
        if (a >= 0 && b >= 0) /* a website with no stored terms is no node */
            edges[n_edges++] = (struct linkjudge_edge){(uint32_t)a, (uint32_t)b};
    }
    if (!e)
        e = linkjudge_run(ls, n_sites, edges, n_edges, rounds, slope, exam_links, NULL);
    for (size_t k = 0; !e && k < n_sites; k++) {
        if (verdict[k] < 0)
            continue;
        struct judgestore_verdict *d = &v[verdict[k]];
        d->relevant = ls[k].relevant;
        d->confidence = linkjudge_confidence(&ls[k]);
        d->link_evidence = ls[k].evidence;
        d->link_count = ls[k].linked;
        d->link_relevant = ls[k].linked_relevant;
        d->like_rejected = rejected_host(r, first, like, k, ls[k].text + ls[k].evidence > 0);
    }
    free(edges);
    free(verdict);
    free(ls);
    store_rows_free(lr);
    return e;
}

/* A dry run's figures: the verdicts v would change, and the job's relevant websites after
 * (those v judges, as v says; the others, training websites aside, as they are); and v
 * itself, with each website's role, in out->verdicts. */
static enum err dry_counts(const struct store_rows *r, const size_t *first, size_t n_sites,
                           const struct judgestore_verdict *v, size_t n_v,
                           struct jobjudge_result *out)
{
    if (!(out->verdicts = calloc(n_v ? n_v : 1, sizeof *out->verdicts)))
        return err_set(ERR_NOMEM, "out of memory");
    size_t k = 0;
    for (size_t s = 0; s < n_sites; s++) {
        int i = (int)first[s];
        if (label_of(store_rows_get(r, i, 1)) != NBEM_UNLABELED)
            continue;
        int now = strcmp(store_rows_get(r, i, 4), "t") == 0;
        if (k < n_v && strcmp(v[k].host, store_rows_get(r, i, 0)) == 0) {
            struct jobjudge_verdict *d = &out->verdicts[out->n_verdicts++];
            snprintf(d->host, sizeof d->host, "%s", v[k].host);
            snprintf(d->role, sizeof d->role, "%s", store_rows_get(r, i, 1));
            d->relevant = v[k].relevant;
            out->changed += v[k].relevant != now;
            out->relevant += v[k++].relevant;
        } else {
            out->relevant += now;
        }
    }
    return ERR_OK;
}

void jobjudge_result_release(struct jobjudge_result *r)
{
    free(r->verdicts);
    r->verdicts = NULL;
    r->n_verdicts = 0;
}

/*
 * The model's bytes (models.data): its vocabulary, uint32 n then n terms, each a byte of
 * length and its bytes, in the model's term ids' order; then the model (nbem_serialize).
 * Every judging's model is kept, so what decided a verdict can be read back.
 */
static enum err model_bytes(const struct sitejudge *sj, struct buf *out)
{
    const struct nbem *m = sitejudge_model(sj);
    uint32_t n = nbem_terms(m);
    enum err e = buf_append(out, &n, sizeof n);
    for (uint32_t t = 0; !e && t < n; t++) {
        size_t len;
        const char *term = sitejudge_term(sj, t, &len);
        unsigned char l = (unsigned char)len; /* tokens are at most TOKENIZE_MAX_BYTES */
        e = buf_append(out, &l, 1);
        if (!e)
            e = buf_append(out, term, l);
    }
    return e ? e : nbem_serialize(m, out);
}

static enum err save_model(struct store *s, int64_t job, const struct jobjudge_params *p,
                           const struct jobjudge_result *res, const struct sitejudge *sj,
                           int64_t *id)
{
    char cv[512], params[850], gate[32] = "null"; /* JSON has no infinity: no gate */
    if (isfinite(res->web_gate))
        snprintf(gate, sizeof gate, "%.6g", res->web_gate);
    snprintf(cv, sizeof cv,
             "{\"pages\": %zu, \"terms\": %zu, \"sites\": %zu, \"target_prior\": %.6g,"
             " \"threshold\": %.6g, \"spies\": %zu, \"fits\": %zu, \"web_gate\": %s,"
             " \"cpu_seconds\": %.3f}",
             res->pages, res->terms, res->sites, res->target_prior, res->threshold, res->spies,
             nbem_fits(sitejudge_model(sj)), gate, res->cpu_seconds);
    snprintf(
        params, sizeof params,
        "{\"other_components\": %u, \"iterations\": %u, \"alpha\": %.6g,"
        " \"page_tokens\": %.6g, \"seed\": %llu, \"min_sites\": %u, \"weight_cap\": %.6g,"
        " \"threshold\": %.6g, \"spy_folds\": %u, \"spy_iterations\": %u, \"spy_quantile\": %.6g,"
        " \"spy_prior\": %.6g, \"spy_prior_weight\": %.6g, \"other_clusters\": %u,"
        " \"cluster_sites\": %u, \"web_start\": %u, \"web_gate_quantile\": %.6g,"
        " \"link_rounds\": %u, \"link_slope\": %.6g, \"exam_links\": %.6g, \"min_pages\": %lld, "
        "\"fit_pages\": %u, "
        "\"spy_many\": %u, "
        "\"spy_pages\": %lld,"
        " \"early_threshold\": %.6g, \"bag\": %u}",
        p->em.other_components, p->em.iterations, p->em.alpha, p->em.page_tokens,
        (unsigned long long)p->em.seed, p->min_sites, p->weight_cap, p->threshold, p->spy_folds,
        p->spy_iterations, p->spy_quantile, p->spy_prior, p->spy_prior_weight, p->other_clusters,
        p->cluster_sites, p->em.web_start, p->web_gate_quantile, p->link_rounds, p->link_slope,
        p->exam_links, (long long)p->min_pages, p->fit_pages, p->spy_many, (long long)p->spy_pages,
        p->early_threshold, p->bag);
    struct buf data;
    buf_init(&data, NBEM_MAX_BYTES);
    enum err e = model_bytes(sj, &data);
    if (!e)
        e = models_save(s, job, MODELS_CRAWL, 1, 0, NAN, cv, params, data.data, data.len, id);
    buf_release(&data);
    return e;
}

void jobjudge_model_free(struct jobjudge_model *jm)
{
    if (!jm)
        return;
    vocab_release(&jm->v);
    nbem_free(jm->m);
    sitelike_rows_free(jm->like);
    for (size_t i = 0; jm->rejected_host && i < jm->n_sites; i++)
        free(jm->rejected_host[i]);
    free(jm->rejected_host);
    free(jm);
}

/* The rejected websites of the rows (first: their first rows) and their sitelike rows
 * into jm (like, which it takes: sitejudge_rejected_like's; NULL: none rejected). */
static enum err keep_rejected(struct jobjudge_model *jm, const struct sitejudge *sj,
                              const struct store_rows *r, const size_t *first,
                              struct sitelike_rows *like)
{
    jm->like = like;
    if (!jm->like)
        return ERR_OK;
    jm->n_sites = sitejudge_sites(sj);
    if (!(jm->rejected_host = calloc(jm->n_sites, sizeof *jm->rejected_host)))
        return err_set(ERR_NOMEM, "out of memory");
    for (size_t k = 0; k < jm->n_sites; k++)
        if (label_of(store_rows_get(r, (int)first[k], 1)) == SITEJUDGE_REJECTED &&
            !(jm->rejected_host[k] = strdup(store_rows_get(r, (int)first[k], 0))))
            return err_set(ERR_NOMEM, "out of memory");
    return ERR_OK;
}

/* sj's model (taken) with the vocabulary of its term ids, and its rejected websites (like,
 * their rows, which it takes). */
static enum err model_keep(struct sitejudge *sj, const struct store_rows *r, const size_t *first,
                           struct sitelike_rows *like, double threshold,
                           const struct jobjudge_params *p, struct jobjudge_model **out)
{
    struct jobjudge_model *jm = calloc(1, sizeof *jm);
    if (!jm) {
        sitelike_rows_free(like);
        return err_set(ERR_NOMEM, "out of memory");
    }
    vocab_init(&jm->v);
    enum err e = keep_rejected(jm, sj, r, first, like);
    if (e) {
        jobjudge_model_free(jm);
        return e;
    }
    struct nbem *m = sitejudge_take_model(sj);
    jm->m = m;
    jm->threshold = threshold;
    jm->weight_cap = p->weight_cap;
    jm->exam_links = p->exam_links;
    for (uint32_t t = 0; !e && t < nbem_terms(m); t++) {
        size_t len;
        const char *term = sitejudge_term(sj, t, &len);
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

/* jobmodel.h */
int jobmodel_page_ids(const struct jobjudge_model *jm, struct page_ids *pi, const char *terms)
{
    pi->v = &jm->v;
    pi->n = 0;
    return terms && termvec_decode(terms, page_id, pi) == ERR_OK;
}

/* jobmodel.h */
int jobmodel_page_view(const struct jobjudge_model *jm, struct page_ids *pi, const char *terms,
                       double *pr, double *weight)
{
    *pr = NAN;
    *weight = 0;
    if (!jobmodel_page_ids(jm, pi, terms))
        return 0;
    uint32_t known;
    *pr = nbem_target(jm->m, pi->term, pi->count, pi->n, &known);
    *weight = known < jm->weight_cap ? known : jm->weight_cap;
    return 1;
}

void jobmodel_site_ids_add(struct site_ids *ids, const struct page_ids *pi)
{
    if (pi->n == 0) /* a page of no known term: nothing to add (and no array yet to add to) */
        return;
    if (ids->failed ||
        grow_array((void **)&ids->term, &ids->cap_term, ids->n + pi->n, sizeof *ids->term) ||
        grow_array((void **)&ids->count, &ids->cap_count, ids->n + pi->n, sizeof *ids->count)) {
        ids->failed = 1;
        return;
    }
    memcpy(ids->term + ids->n, pi->term, pi->n * sizeof *ids->term);
    memcpy(ids->count + ids->n, pi->count, pi->n * sizeof *ids->count);
    ids->n += pi->n;
}

/* jobjudge_model_pages, each page's ids gathered into ids too (NULL: not). */
static double model_pages(const struct jobjudge_model *jm, const char *const *terms, size_t n,
                          double *pr, double *weight, struct site_ids *ids)
{
    struct page_ids *pi = malloc(sizeof *pi);
    double sum = 0, total = 0;
    if (!pi && ids)
        ids->failed = 1;
    for (size_t i = 0; i < n; i++) {
        double p = NAN, w = 0;
        int seen = pi && jobmodel_page_view(jm, pi, terms[i], &p, &w);
        if (seen && ids)
            jobmodel_site_ids_add(ids, pi);
        if (seen && w > 0) {
            sum += w * p;
            total += w;
        }
        if (pr)
            pr[i] = w > 0 ? p : NAN;
        if (weight)
            weight[i] = w;
    }
    free(pi);
    return total > 0 ? sum / total : NAN;
}

double jobjudge_model_pages(const struct jobjudge_model *jm, const char *const *terms, size_t n,
                            double *pr, double *weight)
{
    return model_pages(jm, terms, n, pr, weight, NULL);
}

double jobjudge_model_exam_links(const struct jobjudge_model *jm)
{
    return jm->exam_links;
}

double jobjudge_model_threshold(const struct jobjudge_model *jm)
{
    return jm->threshold;
}

double jobjudge_model_weight_cap(const struct jobjudge_model *jm)
{
    return jm->weight_cap;
}

/* The host of the rejected website a website read (its pages' ids) is more like than any
 * relevant one, by the judging's rows (jm->like), or NULL. */
static const char *model_like(const struct jobjudge_model *jm, const struct site_ids *ids)
{
    double *scratch = calloc(sitelike_rows_scratch(jm->like), sizeof *scratch);
    size_t k =
        scratch ? sitelike_rows_match(jm->like, ids->term, ids->count, ids->n, scratch) : SIZE_MAX;
    free(scratch);
    return k < jm->n_sites ? jm->rejected_host[k] : NULL;
}

int jobjudge_model_score(const struct jobjudge_model *jm, const char *const *terms, size_t n,
                         double *conf, const char **like_rejected)
{
    if (like_rejected)
        *like_rejected = NULL;
    struct site_ids ids = {0};
    double score = model_pages(jm, terms, n, NULL, NULL, jm->like ? &ids : NULL);
    if (!isnan(score))
        *conf = jobjudge_confidence(score, jm->threshold);
    const char *like =
        !isnan(score) && *conf > 0.5 && jm->like && !ids.failed ? model_like(jm, &ids) : NULL;
    if (like) { /* vetoed as a judging vetoes: not above 1/2 */
        *conf = 0.5;
        if (like_rejected)
            *like_rejected = like;
    }
    free(ids.term);
    free(ids.count);
    return !isnan(score);
}

enum err jobjudge_run(struct store *s, int64_t job, const struct jobjudge_params *p, int dry_run,
                      struct jobjudge_result *out)
{
    return jobjudge_run_pages(s, job, p, NULL, NULL, dry_run, out);
}

enum err jobjudge_run_pages(struct store *s, int64_t job, const struct jobjudge_params *p,
                            struct pagevecs *pages, struct sitejudge_clusters *clusters,
                            int dry_run, struct jobjudge_result *out)
{
    *out = (struct jobjudge_result){.threshold = NAN, .web_gate = INFINITY};
    double t0 = monotime_s(), cpu0 = cputime_thread_s();
    struct store_rows *r = NULL;
    struct sitejudge *sj = NULL;
    size_t *first = NULL;
    size_t *like = NULL;                    /* sitejudge_rejected_like's ... */
    struct sitelike_rows *like_rows = NULL; /* ... and its rows, for the kept model */
    struct judgestore_verdict *v = NULL;
    size_t n_v = 0;
    struct sitejudge_params sp;
    jobjudge_sitejudge_params(p, &sp);
    enum err e = sitejudge_new(&sp, pages, &sj);
    if (e)
        return e;
    if (clusters)
        sitejudge_keep_clusters(sj, clusters);
    char topic[8];
    e = judgestore_topic(s, job, topic, sizeof topic); /* ERR_NOTFOUND: no such job */
    if (!e)
        e = judgestore_pages(s, job, &r);
    if (!e)
        e = add_rows(sj, r, &first, &out->crawl_pages);
    if (!e && (int64_t)out->crawl_pages < p->min_pages)
        goto out; /* too little of the web to learn from: the verdicts stay */
    struct sitejudge_fit fit;
    if (!e && (e = sitejudge_fit(sj, &fit)) == ERR_NOTFOUND)
        e = err_set(ERR_NOTFOUND,
                    "job %lld has no stored page of a relevant example to learn from (jobs"
                    " made before sitescout kept each page's terms cannot be judged again)",
                    (long long)job);
    if (!e && !(like = malloc((sitejudge_sites(sj) + 1) * sizeof *like)))
        e = err_set(ERR_NOMEM, "out of memory");
    if (!e)
        e = sitejudge_rejected_like(sj, like, p->keep_model ? &like_rows : NULL);
    if (!e)
        e = judge_sites(sj, r, first, fit.threshold, like, &v, &n_v);
    if (!e)
        e = weigh_links(s, job, sj, r, first, fit.threshold, like, p->link_rounds, p->link_slope,
                        p->exam_links, v, n_v);
    if (!e) {
        out->pages = fit.pages;
        out->terms = fit.terms;
        out->sites = n_v;
        out->target_prior = fit.target_prior;
        out->threshold = fit.threshold;
        out->spies = fit.spies;
        out->web_gate = fit.web_gate;
        out->cpu_seconds = cputime_thread_s() - cpu0;
    }
    if (!e && !dry_run)
        e = save_model(s, job, p, out, sj, &out->model_id);
    if (!e && !dry_run)
        e = judgestore_write(s, job, out->model_id, v, n_v, &out->relevant, &out->changed);
    if (!e && p->keep_model) {
        e = model_keep(sj, r, first, like_rows, out->threshold, p, &out->model);
        like_rows = NULL; /* the model's */
    }
    if (!e && dry_run) /* what a judging would change: the verdicts, and the job's count */
        e = dry_counts(r, first, sitejudge_sites(sj), v, n_v, out);
out:
    out->seconds = monotime_s() - t0;
    free(v);
    free(like);
    sitelike_rows_free(like_rows);
    free(first);
    sitejudge_free(sj);
    store_rows_free(r);
    return e;
}
