/* A job's training phase and its stored models (job/jobctx.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classifier/ctxgraph.h"
#include "classifier/keyphrases.h"
#include "classifier/pagecls.h"
#include "classifier/weighttable.h"
#include "common/buf.h"
#include "common/log.h"
#include "common/monotime.h"
#include "crawler/edges.h"
#include "crawler/seed.h"
#include "crawler/trainset.h"
#include "job/jobctx.h"
#include "job/jobspec.h"
#include "job/jobstrategy.h"
#include "job/trainsave.h"
#include "store/crawlstore.h"
#include "store/joblease.h"
#include "store/models.h"
#include "store/store.h"
#include "store/trainstore.h"

/* A stop or pause asked for while training (the API, a serve that stops): the job row
 * is looked at once a second, as the crawl does. */
static int train_stop_asked(struct ctx *c)
{
    double t = monotime_s();
    if (t < c->next_poll)
        return 0;
    c->next_poll = t + 1;
    struct crawlstore_job j;
    if (crawlstore_job_get(c->s, c->id, &j) != ERR_OK) {
        log_warn("job %lld: cannot look for a stop request: %s", (long long)c->id, err_msg());
        return 0;
    }
    c->train_stop = strcmp(j.stop_requested, "stop") == 0    ? CRAWL_USER_STOP
                    : strcmp(j.stop_requested, "pause") == 0 ? CRAWL_USER_PAUSE
                                                             : CRAWL_RUNNING;
    crawlstore_job_release(&j);
    return c->train_stop != CRAWL_RUNNING;
}

static int train_progress(void *arg, const struct trainset_progress *tp)
{
    struct ctx *c = arg;
    if (joblease_keeper_lost(c->keeper)) {
        log_error("job %lld: another worker took it over: stopping without writing more",
                  (long long)c->id);
        c->lease_lost = 1;
        return 1;
    }
    if (c->o->progress) {
        struct jobrun_progress p = {0};
        p.phase = JOBRUN_TRAINING;
        p.train_pages_done = tp->pages_done;
        p.train_pages_expected = tp->pages_expected;
        c->o->progress(c->o->ctx, &p);
    }
    return train_stop_asked(c);
}

/* Checkpoint a training website as soon as it is read (store/trainstore.h). */
static enum err save_site(void *arg, size_t i, const struct trainset_site *site)
{
    struct ctx *c = arg;
    struct buf rec;
    buf_init(&rec, 0);
    enum err e = trainsave_write(site, &rec);
    if (e == ERR_PARSE) { /* a text JSON cannot carry: this one is read again if need be */
        log_debug("job %lld: %s", (long long)c->id, err_msg());
        e = ERR_OK;
    } else if (!e) {
        e = trainstore_put(c->s, c->id, i, buf_str(&rec));
    }
    buf_release(&rec);
    return e;
}

static enum err restore_site(void *arg, size_t i, const char *record)
{
    struct trainset *ts = arg;
    struct trainset_site site;
    enum err e = trainsave_read(record, &site);
    if (!e && (e = trainset_restore(ts, i, &site)))
        trainset_site_release(&site);
    return e;
}

/* The training websites an interrupted run of the job had read: not read again. */
static enum err restore(struct ctx *c, struct trainset *ts)
{
    enum err e = trainstore_each(c->s, c->id, restore_site, ts);
    struct trainset_progress p;
    trainset_get_progress(ts, &p);
    if (e) { /* a record that does not fit: read everything again */
        log_warn("job %lld: training checkpoint not used: %s", (long long)c->id, err_msg());
        return trainstore_clear(c->s, c->id);
    }
    if (p.sites_done)
        log_info("job %lld: %zu of %zu training websites were read before: not read again",
                 (long long)c->id, p.sites_done, p.sites);
    return ERR_OK;
}

/* The first k pages of every training website (crawler/trainset). */
static enum err collect(struct ctx *c, struct trainset **out)
{
    const struct jobspec *js = c->js;
    size_t n = js->n_relevant + js->n_other;
    const char **homes = malloc(n * sizeof *homes);
    if (!homes)
        return err_set(ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        homes[i] = i < js->n_relevant ? js->relevant_sites[i] : js->other_sites[i - js->n_relevant];
    struct trainset_params tp;
    trainset_params_default(&tp);
    tp.pages_per_site = js->params.train_pages_per_site;
    tp.progress = train_progress;
    tp.site_done = save_site;
    tp.progress_ctx = c;
    enum err e = trainset_new(homes, n, &tp, out);
    if (!e)
        e = restore(c, *out);
    if (!e)
        e = trainset_run(*out, c->f);
    free(homes);
    return e;
}

/* What a strategy's model is trained from: the training pages (docs, trainset_docs(ts))
 * and the page classifier's parameters. */
struct fit_input {
    const struct trainset *ts;
    const struct pagecls_doc *docs;
    size_t n;
    const struct pagecls_params *pp;
};

/* Strategy relevance_degree's key phrases (seed 001). */
static enum err train_keyphrases(struct ctx *c, const struct fit_input *in)
{
    return keyphrases_train(&in->pp->tok, in->docs, in->n, KEYPHRASES_K, &c->keys);
}

/* Strategy weight_table's topic weight table (seed 002). */
static enum err train_weighttable(struct ctx *c, const struct fit_input *in)
{
    return weighttable_train(&in->pp->tok, in->docs, in->n, WEIGHTTABLE_M, &c->table);
}

/*
 * Strategy context_graph: the layers of the training crawl's link graph (seed 000 §3.2,
 * seed 004 §6.4; classifier/ctxgraph.h), the relevant websites' pages in layer 0, and a
 * classifier of the layers trained on their pages with the page classifier's parameters.
 * Page i of the graph is in->docs[i].
 */
static enum err train_ctxgraph(struct ctx *c, const struct fit_input *in)
{
    const struct pagecls_doc *docs = in->docs;
    size_t n = in->n;
    struct ctxgraph_edge *edges = NULL;
    size_t n_edges = 0, kept[CTXGRAPH_OTHER + 1];
    unsigned char *target = malloc(n ? n : 1);
    int *layer = malloc((n ? n : 1) * sizeof *layer);
    struct pagecls_doc *ld = malloc((n ? n : 1) * sizeof *ld);
    enum err e = target && layer && ld ? ERR_OK : err_set(ERR_NOMEM, "out of memory");
    if (!e)
        e = trainset_links(in->ts, c->js->n_relevant, &edges, &n_edges);
    if (!e) {
        for (size_t i = 0; i < n; i++)
            target[i] = docs[i].cls == PAGECLS_TARGET;
        ctxgraph_layers(n, target, edges, n_edges, layer);
        for (size_t i = 0; i < n; i++) {
            ld[i] = docs[i];
            ld[i].cls = (uint32_t)layer[i];
        }
        e = ctxgraph_train(in->pp, ld, n, &c->ctx, kept);
    }
    if (!e) {
        size_t all[CTXGRAPH_OTHER + 1] = {0};
        for (size_t i = 0; i < n; i++)
            all[layer[i]]++;
        char b[256];
        int w = 0;
        for (int k = 0; k <= CTXGRAPH_OTHER && w >= 0 && (size_t)w < sizeof b; k++)
            w += snprintf(b + w, sizeof b - (size_t)w, "%s%zu%s", k ? ", " : "", all[k],
                          kept[k] || !all[k] ? "" : " (left out)");
        log_info("job %lld: context graph from %zu training links: pages in layers 0..%d and "
                 "other: %s",
                 (long long)c->id, n_edges, CTXGRAPH_N, b);
    }
    free(edges);
    free(target);
    free(layer);
    free(ld);
    return e;
}

static enum err format_keyphrases(const struct ctx *c, struct buf *out)
{
    return keyphrases_format(c->keys, out);
}

static enum err format_weighttable(const struct ctx *c, struct buf *out)
{
    return weighttable_format(c->table, out);
}

static enum err format_ctxgraph(const struct ctx *c, struct buf *out)
{
    return ctxgraph_format(c->ctx, out);
}

/* The stored bytes read back, terms tokenised with the job's options (tok). */
static enum err parse_keyphrases(struct ctx *c, const struct tokenize_opts *tok, const void *data,
                                 size_t len)
{
    return keyphrases_parse(tok, data, len, &c->keys);
}

static enum err parse_weighttable(struct ctx *c, const struct tokenize_opts *tok, const void *data,
                                  size_t len)
{
    return weighttable_parse(tok, data, len, &c->table);
}

static enum err parse_ctxgraph(struct ctx *c, const struct tokenize_opts *tok, const void *data,
                               size_t len)
{
    (void)tok;
    return ctxgraph_parse(data, len, &c->ctx);
}

/* The models strategies train beside the page classifier (enum jobstrategy_model; a
 * strategy's row in job/jobstrategy.c names its own): how each is trained, stored and
 * loaded. */
static const struct strategy_model {
    const char *kind; /* store/models.h */
    const char *what; /* for "job N has no ... model" */
    int version;
    enum err (*train)(struct ctx *c, const struct fit_input *in);
    enum err (*format)(const struct ctx *c, struct buf *out);
    enum err (*parse)(struct ctx *c, const struct tokenize_opts *tok, const void *data, size_t len);
} strategy_models[] = {
    [JOBSTRATEGY_NO_MODEL] = {.kind = NULL},
    [JOBSTRATEGY_KEYPHRASES] = {MODELS_KEYPHRASES, MODELS_KEYPHRASES, 1, train_keyphrases,
                                format_keyphrases, parse_keyphrases},
    [JOBSTRATEGY_WEIGHTTABLE] = {MODELS_WEIGHTTABLE, MODELS_WEIGHTTABLE, 1, train_weighttable,
                                 format_weighttable, parse_weighttable},
    [JOBSTRATEGY_CTXGRAPH] = {MODELS_CTXGRAPH, "context graph", CTXGRAPH_FORMAT_VERSION,
                              train_ctxgraph, format_ctxgraph, parse_ctxgraph},
};
_Static_assert(sizeof strategy_models / sizeof strategy_models[0] == JOBSTRATEGY_N_MODELS,
               "a row for each strategy model");

/* The job's strategy's model (its kind NULL for none). */
static const struct strategy_model *job_model(const struct ctx *c)
{
    return &strategy_models[jobstrategy_get((size_t)c->js->params.strategy)->model];
}

/* Train the page classifier on the collected pages, cross-validating p_err. */
static enum err fit(struct ctx *c, const struct trainset *ts)
{
    const struct jobspec *js = c->js;
    struct pagecls_doc *docs = NULL;
    size_t n_docs = 0;
    enum err e = trainset_docs(ts, js->n_relevant, &docs, &n_docs);
    if (e)
        return e;
    struct pagecls_params pp;
    jobspec_pagecls_params(&js->params, &pp);
    log_info("job %lld: training on %zu pages of %zu websites", (long long)c->id, n_docs,
             trainset_count(ts));
    e = pagecls_train_cv(&pp, docs, n_docs, (uint32_t)js->params.cv_folds, &c->model, NULL);
    const struct strategy_model *sm = job_model(c);
    if (!e && sm->train)
        e = sm->train(c, &(struct fit_input){ts, docs, n_docs, &pp});
    free(docs);
    if (e || !jobspec_strategy_homepages(js->params.strategy))
        return e;
    /* The paper's homepage classifier (Table 2): the same classifier, trained on the
     * training websites' homepages only. */
    if ((e = trainset_home_docs(ts, js->n_relevant, &docs, &n_docs)))
        return e;
    e = pagecls_train(&pp, docs, n_docs, &c->home_model);
    free(docs);
    return e ? err_set(e, "training the homepage classifier: %s", err_msg()) : ERR_OK;
}

/* Store the trained model with its cross-validation figures and the job's parameters. */
static enum err save_model(struct ctx *c)
{
    const struct pagecls_cv *cv = pagecls_get_cv(c->model);
    log_info("job %lld: page accuracy %.3f (p_err %.3f) in %u-fold cross-validation, "
             "calibration slope %.3f",
             (long long)c->id, cv->accuracy, cv->p_err, cv->folds, cv->calib.a);
    char cv_json[384];
    snprintf(cv_json, sizeof cv_json,
             "{\"folds\": %u, \"sites\": %u, \"pages\": %llu, \"accuracy\": %.6f, \"p_err\": %.6f, "
             "\"calib_slope\": %.6f, \"calib_temper\": %.3f, \"calib_short_terms\": %.1f, "
             "\"calib_offset\": %.6f}",
             cv->folds, cv->sites, (unsigned long long)cv->pages, cv->accuracy, cv->p_err,
             cv->calib.a, cv->calib.temper, cv->calib.short_terms, cv->calib.offset);
    struct buf model_bytes, params_json;
    buf_init(&model_bytes, 0);
    buf_init(&params_json, 0);
    int64_t model_id;
    enum err e = pagecls_serialize(c->model, &model_bytes);
    if (!e)
        e = jobspec_params_json(&c->js->params, &params_json);
    if (!e)
        e = models_save(c->s, c->id, MODELS_PAGES, PAGECLS_FORMAT_VERSION, cv->p_err, cv->accuracy,
                        cv_json, buf_str(&params_json), model_bytes.data, model_bytes.len,
                        &model_id);
    const struct strategy_model *sm = job_model(c);
    if (!e && sm->format) {
        buf_reset(&model_bytes);
        if (!(e = sm->format(c, &model_bytes)))
            e = models_save(c->s, c->id, sm->kind, sm->version, 0, NAN, NULL, buf_str(&params_json),
                            model_bytes.data, model_bytes.len, &model_id);
    }
    if (!e && c->home_model) {
        buf_reset(&model_bytes);
        if (!(e = pagecls_serialize(c->home_model, &model_bytes)))
            e = models_save(c->s, c->id, MODELS_HOMEPAGES, PAGECLS_FORMAT_VERSION, 0, NAN, NULL,
                            buf_str(&params_json), model_bytes.data, model_bytes.len, &model_id);
    }
    buf_release(&model_bytes);
    buf_release(&params_json);
    return e;
}

/*
 * A training that lost most of a class's websites (a faulty web, a wrong proxy) trains a
 * poor model: the job says so, with the most common cause (issue 29).
 */
static enum err warn_losses(const struct ctx *c, const struct trainset *ts)
{
    size_t n = trainset_count(ts), n_rel = c->js->n_relevant;
    size_t lost_rel, lost_other;
    char why_rel[256], why_other[256];
    trainset_unread(ts, 0, n_rel, &lost_rel, why_rel, sizeof why_rel);
    trainset_unread(ts, n_rel, n, &lost_other, why_other, sizeof why_other);
    if (!(2 * lost_rel > n_rel || 2 * lost_other > n - n_rel))
        return ERR_OK;
    char msg[768];
    snprintf(msg, sizeof msg,
             "training lost most of its examples: %zu of %zu relevant and %zu of %zu other "
             "websites gave no page (most often: %s); its verdicts rest on the rest",
             lost_rel, n_rel, lost_other, n - n_rel, why_rel[0] ? why_rel : why_other);
    log_warn("job %lld: %s", (long long)c->id, msg);
    return crawlstore_job_add_warning(c->s, c->id, "training_lost_examples", msg);
}

/* The training phase: collect, fit, save the model, seed the border (crawler/seed). */
enum err jobtrain_train(struct ctx *c)
{
    const struct jobspec *js = c->js;
    struct trainset *ts = NULL;
    enum err e = models_delete_job(c->s, c->id); /* of a run killed after saving them */
    if (!e)
        e = collect(c, &ts);
    if (!e)
        e = warn_losses(c, ts);
    if (!e)
        e = fit(c, ts);
    if (!e)
        e = save_model(c);
    if (!e)
        e = seed_training_sites(c->s, c->id, ts, js->n_relevant, c->model,
                                (enum edges_weights)js->params.edge_weights);
    if (!e)
        e = seed_start_sites(c->s, c->id, js->start_sites, js->n_start);
    trainset_free(ts);
    return e;
}

static enum err load_one(struct ctx *c, const char *kind, struct pagecls **out)
{
    struct models_record *m;
    enum err e = models_load_latest(c->s, c->id, kind, &m);
    if (e == ERR_NOTFOUND)
        return err_set(ERR_NOTFOUND, "job %lld has no trained %s model", (long long)c->id, kind);
    if (e)
        return e;
    e = pagecls_deserialize(m->data, m->len, out);
    models_record_free(m);
    return e;
}

/* The model the job's strategy trained beside the page classifier (a model kind of its
 * own), read with the job's tokenizer options. */
static enum err load_strategy_model(struct ctx *c, const struct strategy_model *sm)
{
    struct models_record *m;
    enum err e = models_load_latest(c->s, c->id, sm->kind, &m);
    if (e == ERR_NOTFOUND)
        return err_set(ERR_NOTFOUND, "job %lld has no %s model", (long long)c->id, sm->what);
    if (e)
        return e;
    struct pagecls_params pp;
    jobspec_pagecls_params(&c->js->params, &pp);
    e = sm->parse(c, &pp.tok, m->data, m->len);
    models_record_free(m);
    return e;
}

/* The models of an interrupted job, for its crawl to go on. */
enum err jobtrain_load(struct ctx *c)
{
    enum err e = load_one(c, MODELS_PAGES, &c->model);
    if (!e && jobspec_strategy_homepages(c->js->params.strategy))
        e = load_one(c, MODELS_HOMEPAGES, &c->home_model);
    const struct strategy_model *sm = job_model(c);
    if (!e && sm->parse)
        e = load_strategy_model(c, sm);
    return e;
}
