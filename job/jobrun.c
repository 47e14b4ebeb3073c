/* Runs a crawl job through its phases, durably, resuming where it stood. */
#include "job/jobrun.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "classifier/hotwords.h"
#include "classifier/anchorcls.h"
#include "classifier/keyphrases.h"
#include "classifier/weighttable.h"
#include "classifier/pagecls.h"
#include "common/buf.h"
#include "common/log.h"
#include "common/monotime.h"
#include "crawler/edges.h"
#include "crawler/seed.h"
#include "crawler/extcrawl.h"
#include "crawler/fetch.h"
#include "crawler/pagecrawl.h"
#include "crawler/trainset.h"
#include "crawler/url.h"
#include "crawler/warcwrite.h"
#include "job/jobspec.h"
#include "job/trainsave.h"
#include "store/crawlstore.h"
#include "store/joblease.h"
#include "store/jobteam.h"
#include "store/models.h"
#include "store/store.h"
#include "store/trainstore.h"

struct ctx {
    struct store *s;
    int64_t id;
    const struct jobrun_options *o;
    struct jobspec *js;
    struct fetcher *f;
    struct pagecls *model;
    struct pagecls *home_model; /* the homepage classifier, for the strategies that use it */
    struct keyphrases *keys;    /* strategy relevance_degree's key phrases */
    struct weighttable *table;  /* strategy weight_table's topic weight table */
    char worker[128];
    struct joblease_keeper *keeper; /* renews the lease beside the run */
    int lease_lost;                 /* another worker took the job over: write nothing more */
    int helper;                     /* examines websites beside the job's lead (jobrun_help) */
    double next_poll;               /* training: when to look at the job row again */
    enum crawl_stop train_stop;     /* a stop or pause asked for during training */
};

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

static void jobrun_crawl_progress(void *arg, const struct crawl_progress *ep)
{
    struct ctx *c = arg;
    if (c->o->progress) {
        struct jobrun_progress p = {0};
        p.phase = JOBRUN_CRAWLING;
        p.crawl = *ep;
        c->o->progress(c->o->ctx, &p);
    }
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
    if (!e && js->params.strategy == JOBSPEC_RELEVANCE_DEGREE)
        e = keyphrases_train(&pp.tok, docs, n_docs, KEYPHRASES_K, &c->keys);
    if (!e && js->params.strategy == JOBSPEC_WEIGHT_TABLE)
        e = weighttable_train(&pp.tok, docs, n_docs, WEIGHTTABLE_M, &c->table);
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
    if (!e && c->keys) {
        buf_reset(&model_bytes);
        if (!(e = keyphrases_format(c->keys, &model_bytes)))
            e = models_save(c->s, c->id, MODELS_KEYPHRASES, 1, 0, NAN, NULL, buf_str(&params_json),
                            model_bytes.data, model_bytes.len, &model_id);
    }
    if (!e && c->table) {
        buf_reset(&model_bytes);
        if (!(e = weighttable_format(c->table, &model_bytes)))
            e = models_save(c->s, c->id, MODELS_WEIGHTTABLE, 1, 0, NAN, NULL, buf_str(&params_json),
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

/* The training phase: collect, fit, save the model, seed the border (crawler/seed). */
static enum err train(struct ctx *c)
{
    const struct jobspec *js = c->js;
    struct trainset *ts = NULL;
    enum err e = models_delete_job(c->s, c->id); /* of a run killed after saving them */
    if (!e)
        e = collect(c, &ts);
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

/* The text a strategy trained (key phrases, weight table: a model kind of their own),
 * read by the strategy's module with the job's tokenizer options. */
static enum err load_text(struct ctx *c, const char *kind)
{
    struct models_record *m;
    enum err e = models_load_latest(c->s, c->id, kind, &m);
    if (e == ERR_NOTFOUND)
        return err_set(ERR_NOTFOUND, "job %lld has no %s model", (long long)c->id, kind);
    if (e)
        return e;
    struct pagecls_params pp;
    jobspec_pagecls_params(&c->js->params, &pp);
    if (strcmp(kind, MODELS_KEYPHRASES) == 0)
        e = keyphrases_parse(&pp.tok, (const char *)m->data, m->len, &c->keys);
    else
        e = weighttable_parse(&pp.tok, (const char *)m->data, m->len, &c->table);
    models_record_free(m);
    return e;
}

/* The models of an interrupted job, for its crawl to go on. */
static enum err load_model(struct ctx *c)
{
    enum err e = load_one(c, MODELS_PAGES, &c->model);
    if (!e && jobspec_strategy_homepages(c->js->params.strategy))
        e = load_one(c, MODELS_HOMEPAGES, &c->home_model);
    if (!e && c->js->params.strategy == JOBSPEC_RELEVANCE_DEGREE)
        e = load_text(c, MODELS_KEYPHRASES);
    if (!e && c->js->params.strategy == JOBSPEC_WEIGHT_TABLE)
        e = load_text(c, MODELS_WEIGHTTABLE);
    return e;
}

/* The hotwords strategy's key terms, in the log: what it looks for in anchors. */
static void jobrun_log_hotwords(const struct ctx *c, const struct hotwords *h)
{
    struct buf b;
    buf_init(&b, 0);
    for (uint32_t i = 0; i < hotwords_count(h); i++) {
        size_t n;
        const char *t = hotwords_term(h, i, &n);
        if ((i && buf_append_str(&b, ", ")) || buf_append(&b, t, n))
            break;
    }
    log_info("job %lld: hot words (the topic's key terms, stemmed): %s", (long long)c->id,
             b.len ? b.data : "none");
    buf_release(&b);
}

/* The relevance_degree strategy's key phrases, in the log: what it counts in pages. */
static void jobrun_log_keyphrases(const struct ctx *c)
{
    struct buf b;
    buf_init(&b, 0);
    for (uint32_t i = 0; i < keyphrases_count(c->keys); i++) {
        size_t n;
        const char *t = keyphrases_term(c->keys, i, &n);
        if ((i && buf_append_str(&b, ", ")) || buf_append(&b, t, n))
            break;
    }
    log_info("job %lld: key phrases (TF-DF and information gain, stemmed): %s", (long long)c->id,
             b.len ? b.data : "none");
    buf_release(&b);
}

/* The weight_table strategy's table, in the log: each keyword with its weight. */
static void jobrun_log_weighttable(const struct ctx *c)
{
    struct buf b;
    buf_init(&b, 0);
    for (uint32_t i = 0; i < weighttable_count(c->table); i++) {
        size_t n;
        const char *t = weighttable_term(c->table, i, &n);
        if (buf_appendf(&b, "%s%.*s %.3f", i ? ", " : "", (int)n, t,
                        weighttable_weight(c->table, i)))
            break;
    }
    log_info("job %lld: topic weight table (TF-IDF, stemmed): %s", (long long)c->id,
             b.len ? b.data : "none");
    buf_release(&b);
}

/* Strategy learning_anchor (seed 004 §6.6): an anchor joins the classifier's training
 * when the page it led to has Pr[p|target] further than this from 0.5 (the thesis's
 * threshold on its SVM's scores, 0.4 to 1.0 of about +-1.5, on our scale), and the
 * frontier is scored again every so many pages (the thesis retrains when its ready queue
 * runs dry; ours never does, docs/crawl.md). */
#define LEARN_MARGIN        0.1
#define LEARN_RESCORE_PAGES 100

/* The frontier order of a page-level strategy (crawler/pageorder.h). */
static pageorder_fn jobrun_page_order(int strategy)
{
    switch (strategy) {
    case JOBSPEC_BFS:
        return pageorder_bfs;
    case JOBSPEC_BESTFIRST:
        return pageorder_bestfirst;
    case JOBSPEC_HISTORY:
        return pageorder_history;
    case JOBSPEC_HOTWORDS:
        return pageorder_hotwords;
    case JOBSPEC_RELEVANCE_DEGREE:
        return pageorder_relevance_degree;
    case JOBSPEC_WEIGHT_TABLE:
        return pageorder_weight_table;
    case JOBSPEC_LEARNING_ANCHOR:
        return pageorder_learning_anchor;
    default:
        return pageorder_page;
    }
}

/* The page-level strategies (issues 8 and 18): a page crawler with website post-processing. */
static enum err jobrun_crawl_pages(struct ctx *c, const struct crawlrun_config *rc,
                                   enum crawl_stop *stop)
{
    const struct jobspec_params *jp = &c->js->params;
    struct pagecrawl_params p = {
        .priority = jobrun_page_order(jp->strategy),
        .prior_target = jp->prior_target,
        .prior_harvest = jp->prior == 1,
        .prior_sites = jp->prior_sites,
        .p_err = pagecls_p_err(c->model),
        .p_threshold = jp->p_threshold,
        .max_pages_per_site = jp->max_pages_per_site,
        .concurrency = jp->concurrency,
        .home_model = jp->strategy == JOBSPEC_PAGE_HOMEPAGE ? c->home_model : NULL,
        .keys = jp->strategy == JOBSPEC_RELEVANCE_DEGREE ? c->keys : NULL,
        .rho = PAGEORDER_RHO,
        .other_sites_only = jp->strategy == JOBSPEC_RELEVANCE_DEGREE,
        .table = jp->strategy == JOBSPEC_WEIGHT_TABLE ? c->table : NULL,
        .admit_above = PAGEORDER_LINK_THRESHOLD,
        .learn_margin = LEARN_MARGIN,
        .rescore_every = LEARN_RESCORE_PAGES,
    };
    if (p.keys)
        jobrun_log_keyphrases(c);
    if (p.table)
        jobrun_log_weighttable(c);
    enum err e = ERR_OK;
    if (jp->strategy == JOBSPEC_HOTWORDS && !(e = hotwords_new(c->model, HOTWORDS_KEYS, &p.hot)))
        jobrun_log_hotwords(c, p.hot);
    if (!e && jp->strategy == JOBSPEC_LEARNING_ANCHOR)
        e = anchorcls_new(&pagecls_get_params(c->model)->tok, &p.learn);
    if (!e)
        e = pagecrawl_run(rc, c->model, &p, stop);
    if (p.learn)
        log_info("job %lld: anchor classifier learned from %llu relevant and %llu other anchors",
                 (long long)c->id, (unsigned long long)anchorcls_examples(p.learn, 1),
                 (unsigned long long)anchorcls_examples(p.learn, 0));
    anchorcls_free(p.learn);
    hotwords_free(p.hot);
    return e;
}

static enum err jobrun_crawl(struct ctx *c, enum crawl_stop *stop)
{
    const struct jobspec_params *jp = &c->js->params;
    int n;
    enum err e = jobteam_reclaim(c->s, c->id, &n); /* whatever dead runners held */
    if (e)
        return e;
    if (n)
        log_info("job %lld: %d websites claimed by runners gone went back to the border",
                 (long long)c->id, n);
    struct crawlrun_config rc = {
        .s = c->s,
        .job = c->id,
        .f = c->f,
        .worker = c->worker,
        .lease = c->keeper,
        .helper = c->helper,
        .quit = c->o->quit,
        .limits = {jp->max_pages, jp->max_relevant_sites, jp->max_seconds, jp->pprs_window,
                   jp->pprs_limit},
        .progress = jobrun_crawl_progress,
        .ctx = c,
    };
    if (jobspec_strategy_pages(jp->strategy))
        return jobrun_crawl_pages(c, &rc, stop);
    struct extcrawl_params p = {
        .weights = (enum edges_weights)jp->edge_weights,
        .site = {.prior_target = jp->prior_target,
                 .p_threshold = jp->p_threshold,
                 .l_threshold = jp->l_threshold,
                 .c = jp->c,
                 .max_pages = jp->max_pages_per_site,
                 .max_pages_to_decide = jp->max_pages_to_decide,
                 .min_pages_relevant = jp->min_pages_relevant},
        .p_err = pagecls_p_err(c->model),
        .prior_harvest = jp->prior == 1,
        .prior_sites = jp->prior_sites,
        .concurrency = jp->concurrency,
        .new_links_only = jp->linkrank_links == 1,
        .deepen_sites = jp->deepen_sites,
    };
    if (jp->strategy == JOBSPEC_HOMEPAGE) {
        /* Each website judged by its homepage alone, by the homepage classifier: with
         * one page and no error correction its verdict is Pr[target|homepage] > 0.5. */
        p.site.max_pages = 1;
        p.site.l_threshold = 0;
        p.site.max_pages_to_decide = 0;
        p.site.min_pages_relevant = 0;
        p.p_err = 0;
        p.deepen_sites = 0;
        return extcrawl_run(&rc, c->home_model, &p, stop);
    }
    return extcrawl_run(&rc, c->model, &p, stop);
}

static enum err run_phases(struct ctx *c, const char *state, enum crawl_stop *stop)
{
    enum err e = ERR_OK;
    if (strcmp(state, "queued") == 0 || strcmp(state, "training") == 0) {
        e = crawlstore_job_set_state(c->s, c->id, "training", NULL, NULL);
        if (!e)
            e = train(c);
        if (e == ERR_INTERRUPT && c->train_stop != CRAWL_RUNNING) {
            /* Paused, it trains again when resumed (apistore_job_resume); stopped, it
             * ends with nothing crawled. */
            *stop = c->train_stop;
            log_info("job %lld: %s during training", (long long)c->id, crawl_stop_name(*stop));
            return *stop == CRAWL_USER_PAUSE
                       ? crawlstore_job_set_state(c->s, c->id, "paused", NULL, NULL)
                       : crawlstore_job_set_state(c->s, c->id, "done", crawl_stop_name(*stop),
                                                  NULL);
        }
    } else {
        e = load_model(c);
    }
    if (!e)
        e = crawlstore_job_set_state(c->s, c->id, "crawling", NULL, NULL);
    if (!e && trainstore_clear(c->s, c->id) != ERR_OK) /* trained: the checkpoint goes */
        log_warn("job %lld: training checkpoint left: %s", (long long)c->id, err_msg());
    if (!e)
        e = jobrun_crawl(c, stop);
    if (e)
        return e;
    if (*stop == CRAWL_LEASE_LOST) {
        c->lease_lost = 1;
        return err_set(ERR_CONFLICT, "job %lld: another worker took it over", (long long)c->id);
    }
    if (*stop == CRAWL_USER_PAUSE)
        return crawlstore_job_set_state(c->s, c->id, "paused", NULL, NULL);
    if (*stop == CRAWL_LEFT) /* its process stops: the next runner goes on with it */
        return ERR_OK;
    return crawlstore_job_set_state(c->s, c->id, "done", crawl_stop_name(*stop), NULL);
}

/*
 * The database went away mid-run and the store gave up reconnecting: say so in the job
 * once the database answers again (within a minute more) and let the lease go, so
 * that the API shows why the job stands still and the next runner (a serve, crawl
 * --resume) takes it up at once. If the database is still away, the lease runs out.
 */
#define NOTE_WAIT_S 60 /* how long the interruption note waits for the database */
static void note_db_loss(struct store *s, int64_t id, const char *worker)
{
    char msg[512], note[600];
    snprintf(msg, sizeof msg, "%s", err_msg());
    snprintf(note, sizeof note, "interrupted, to be resumed: %s", msg);
    enum err e = ERR_DB;
    double give_up = monotime_s() + NOTE_WAIT_S; /* each attempt waits for the store too */
    while (e == ERR_DB && monotime_s() < give_up)
        e = crawlstore_job_interrupted(s, id, worker, note);
    if (e)
        log_error("job %lld: cannot record the interruption: %s (its lease runs out in %d s)",
                  (long long)id, err_msg(), joblease_seconds());
    err_set(ERR_DB, "%s", msg);
}

enum err jobrun_create(struct store *s, const struct jobspec *js, int64_t *id)
{
    struct buf body, params;
    buf_init(&body, 0);
    buf_init(&params, 0);
    enum err e = jobspec_to_json(js, &body);
    if (!e)
        e = jobspec_params_json(&js->params, &params);
    if (!e)
        e = crawlstore_job_create(s, js->topic, buf_str(&body), buf_str(&params), id);
    buf_release(&body);
    buf_release(&params);
    return e;
}

/* WARC capture of the job's fetches, if asked for (jobrun_options). */
static enum err warc_start(struct ctx *c)
{
    const struct jobrun_options *o = c->o;
    if (!o->warc_all && !c->js->params.warc)
        return ERR_OK;
    if (!o->warc_dir)
        return err_set(ERR_INVAL, "params.warc: WARC capture needs --warc-dir, which this run "
                                  "was not given");
    char prefix[64], part_of[64];
    snprintf(prefix, sizeof prefix, "sitescout-job-%" PRId64, c->id);
    snprintf(part_of, sizeof part_of, "sitescout job %" PRId64, c->id);
    struct warcwrite_config wc = {
        .dir = o->warc_dir, .prefix = prefix, .max_size = o->warc_max_size, .is_part_of = part_of};
    struct warcwrite *w;
    enum err e = warcwrite_new(&wc, &w);
    if (e)
        return e;
    fetcher_set_warc(c->f, w);
    warcwrite_unref(w); /* the fetcher holds it now */
    log_info("job %" PRId64 ": WARC capture into %s/%s-*.warc.gz", c->id, o->warc_dir, prefix);
    return ERR_OK;
}

/* The job's parameters from its stored body, and a fetcher for it. */
static enum err prepare(struct ctx *c, const struct crawlstore_job *job)
{
    const struct jobrun_options *o = c->o;
    enum err e = jobspec_parse(job->body_json, strlen(job->body_json), &c->js);
    if (!e && o->pool) {
        e = fetcher_attach(o->pool, c->js->params.concurrency, c->js->params.politeness_delay_ms,
                           &c->f);
    } else if (!e) {
        struct fetch_config fc;
        fetch_config_defaults(&fc);
        fc.proxy = o->proxy;
        fc.delay_ms = c->js->params.politeness_delay_ms;
        fc.max_in_flight = c->js->params.concurrency;
        e = fetcher_new(&fc, &c->f);
    }
    return e;
}

static void ctx_release(struct ctx *c)
{
    fetcher_free(c->f);
    pagecls_free(c->model);
    pagecls_free(c->home_model);
    keyphrases_free(c->keys);
    weighttable_free(c->table);
    jobspec_free(c->js);
}

/* The runner's name (o->worker or this process's), on its connection too; the job. */
static enum err ctx_start(struct ctx *c, struct crawlstore_job *job)
{
    if (c->o->worker)
        snprintf(c->worker, sizeof c->worker, "%s", c->o->worker);
    else
        joblease_worker_name(c->worker, sizeof c->worker, -1);
    enum err e = crawlstore_set_worker(c->s, c->worker);
    return e ? e : crawlstore_job_get(c->s, c->id, job);
}

enum err jobrun_run(struct store *s, int64_t id, const struct jobrun_options *o,
                    enum crawl_stop *stop)
{
    *stop = CRAWL_RUNNING;
    struct ctx c = {.s = s, .id = id, .o = o};
    struct crawlstore_job job;
    enum err e = ctx_start(&c, &job);
    if (e)
        return e;
    if (strcmp(job.state, "done") == 0 || strcmp(job.state, "failed") == 0) {
        crawlstore_job_release(&job);
        return err_set(ERR_CONFLICT, "job %lld is %s: nothing to resume", (long long)id, job.state);
    }
    if ((e = joblease_take(s, id, c.worker)) || /* a live runner is never pushed out */
        (e = joblease_keeper_start(s, id, c.worker, JOBTEAM_LEAD, &c.keeper))) {
        crawlstore_job_release(&job);
        return e;
    }
    e = prepare(&c, &job);
    if (!e) {
        e = warc_start(&c);
        if (!e)
            e = run_phases(&c, job.state, stop);
        if (e && e != ERR_DB && !c.lease_lost) {
            /* The job cannot go on: say why in the job itself. */
            char msg[512];
            snprintf(msg, sizeof msg, "%s", err_msg());
            if (crawlstore_job_set_state(s, id, "failed", NULL, msg) != ERR_OK)
                log_error("job %lld: cannot record the failure: %s", (long long)id, err_msg());
            err_set(e, "%s", msg);
        }
    }
    c.lease_lost |= joblease_keeper_lost(c.keeper);
    joblease_keeper_stop(c.keeper);
    if (e == ERR_DB && !c.lease_lost)
        note_db_loss(s, id, c.worker);
    else if (!c.lease_lost && joblease_release(s, id, c.worker) != ERR_OK)
        log_warn("job %lld: could not let its lease go: %s (it runs out in %d s)", (long long)id,
                 err_msg(), joblease_seconds());
    if (e != ERR_DB && jobteam_leave(s, id, c.worker) != ERR_OK)
        log_warn("job %lld: could not leave its runners: %s", (long long)id, err_msg());
    ctx_release(&c);
    crawlstore_job_release(&job);
    return e;
}

enum err jobrun_help(struct store *s, int64_t id, const struct jobrun_options *o,
                     enum crawl_stop *stop)
{
    *stop = CRAWL_RUNNING;
    struct ctx c = {.s = s, .id = id, .o = o, .helper = 1};
    struct crawlstore_job job;
    enum err e = ctx_start(&c, &job);
    if (e)
        return e;
    if (strcmp(job.state, "crawling") != 0)
        e = err_set(ERR_CONFLICT, "job %lld is %s: only a crawling job is helped", (long long)id,
                    job.state);
    if (!e)
        e = prepare(&c, &job);
    if (!e && jobspec_strategy_pages(c.js->params.strategy))
        e = err_set(ERR_CONFLICT, "job %lld: a page crawl is run by its lead alone", (long long)id);
    if (!e)
        e = load_model(&c);
    if (!e)
        e = joblease_keeper_start(s, id, c.worker, JOBTEAM_HELPER, &c.keeper);
    if (!e) {
        log_info("job %lld: %s examines websites beside its lead", (long long)id, c.worker);
        e = jobrun_crawl(&c, stop);
        c.lease_lost |= joblease_keeper_lost(c.keeper);
        joblease_keeper_stop(c.keeper);
        if (e != ERR_DB && jobteam_leave(s, id, c.worker) != ERR_OK)
            log_warn("job %lld: could not leave its runners: %s", (long long)id, err_msg());
    }
    ctx_release(&c);
    crawlstore_job_release(&job);
    return e;
}
