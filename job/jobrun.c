/* Runs a crawl job through its phases, durably, resuming where it stood. */
#include "job/jobrun.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "classifier/pagecls.h"
#include "common/buf.h"
#include "common/log.h"
#include "crawler/edges.h"
#include "crawler/extcrawl.h"
#include "crawler/fetch.h"
#include "crawler/pagecrawl.h"
#include "crawler/trainset.h"
#include "crawler/url.h"
#include "job/jobspec.h"
#include "store/crawlstore.h"
#include "store/models.h"
#include "store/store.h"

/* Start sites go first: their rank is above any average of weights in [0, 1]. */
#define START_RANK 2.0

struct ctx {
    struct store *s;
    int64_t id;
    const struct jobrun_options *o;
    struct jobspec *js;
    struct fetcher *f;
    struct pagecls *model;
    char worker[128];
};

static int train_progress(void *arg, const struct trainset_progress *tp)
{
    struct ctx *c = arg;
    if (c->o->progress) {
        struct jobrun_progress p = {0};
        p.phase = JOBRUN_TRAINING;
        p.train_pages_done = tp->pages_done;
        p.train_pages_expected = tp->pages_expected;
        c->o->progress(c->o->ctx, &p);
    }
    return 0;
}

static void crawl_progress(void *arg, const struct crawl_progress *ep)
{
    struct ctx *c = arg;
    if (c->o->progress) {
        struct jobrun_progress p = {0};
        p.phase = JOBRUN_CRAWLING;
        p.crawl = *ep;
        c->o->progress(c->o->ctx, &p);
    }
}

/* Record one training website: examined, with its pages and (if relevant) its links. */
static enum err record_training_site(struct ctx *c, const struct trainset_site *ts, int relevant,
                                     struct pagecls_scratch *scratch)
{
    char *host = NULL, *home = NULL;
    struct edgeset es;
    edgeset_init(&es);
    struct crawlstore_page *pages = calloc(ts->n_pages ? ts->n_pages : 1, sizeof *pages);
    struct crawlstore_edge *edges = NULL;
    enum err e = pages ? url_host(ts->site, &host) : err_set(ERR_NOMEM, "out of memory");
    if (!e)
        e = url_homepage(ts->site, &home);
    for (size_t i = 0; !e && i < ts->n_pages; i++) {
        const struct trainset_page *pg = &ts->pages[i];
        struct pagecls_result r;
        e = pagecls_classify(c->model, scratch, pg->text, pg->text_len, &r);
        if (e)
            break;
        pages[i] = (struct crawlstore_page){pg->url, "ok", 200, pg->text_len, r.pr[PAGECLS_TARGET]};
        /* Only the relevant training sites seed the border (DESIGN §3.4). */
        if (relevant)
            e = edgeset_add_page(&es, pg->transversal, pg->n_transversal, r.pr[PAGECLS_TARGET]);
    }
    double conf = relevant ? 1.0 : 0.0; /* known, not guessed */
    if (!e && es.n && !(edges = calloc(es.n, sizeof *edges)))
        e = err_set(ERR_NOMEM, "out of memory");
    for (size_t i = 0; !e && i < es.n; i++)
        edges[i] = (struct crawlstore_edge){
            es.edges[i].host, es.edges[i].homepage, es.edges[i].conf_sum, es.edges[i].page_count,
            extcrawl_edge_weight((enum extcrawl_weights)c->js->params.edge_weights, conf,
                                 es.edges[i].conf_sum, es.edges[i].page_count)};
    if (!e)
        e = crawlstore_site_add(c->s, c->id, host, home, relevant ? "train" : "train_other",
                                "claimed", NAN, -1, 0);
    if (!e) {
        struct crawlstore_site_result res = {host,  conf, relevant,  (int)ts->n_pages,
                                             ts->fetches, "train", pages, ts->n_pages,
                                             edges, es.n, home, 0};
        e = crawlstore_site_done(c->s, c->id, &res);
        if (e == ERR_CONFLICT)
            e = ERR_OK; /* recorded by an earlier run of this job */
    }
    free(pages);
    free(edges);
    edgeset_release(&es);
    free(host);
    free(home);
    return e;
}

static enum err train(struct ctx *c)
{
    const struct jobspec *js = c->js;
    size_t n = js->n_relevant + js->n_other;
    const char **homes = malloc(n * sizeof *homes);
    struct pagecls_doc *docs = NULL;
    struct trainset *ts = NULL;
    struct pagecls_scratch *scratch = NULL;
    struct buf model_bytes, params_json;
    buf_init(&model_bytes, 0);
    buf_init(&params_json, 0);
    enum err e = homes ? ERR_OK : err_set(ERR_NOMEM, "out of memory");
    for (size_t i = 0; !e && i < n; i++)
        homes[i] = i < js->n_relevant ? js->relevant_sites[i] : js->other_sites[i - js->n_relevant];

    struct trainset_params tp;
    trainset_params_default(&tp);
    tp.pages_per_site = js->params.train_pages_per_site;
    tp.progress = train_progress;
    tp.progress_ctx = c;
    if (!e)
        e = trainset_new(homes, n, &tp, &ts);
    if (!e)
        e = trainset_run(ts, c->f);
    if (e)
        goto out;

    size_t n_docs = 0;
    for (size_t i = 0; i < n; i++)
        n_docs += trainset_site(ts, i)->n_pages;
    docs = calloc(n_docs ? n_docs : 1, sizeof *docs);
    if (!docs) {
        e = err_set(ERR_NOMEM, "out of memory");
        goto out;
    }
    size_t k = 0;
    size_t classes[2] = {0, 0};
    for (size_t i = 0; i < n; i++) {
        const struct trainset_site *site = trainset_site(ts, i);
        uint32_t cls = i < js->n_relevant ? PAGECLS_TARGET : PAGECLS_OTHER;
        classes[cls] += site->n_pages;
        for (size_t j = 0; j < site->n_pages; j++)
            docs[k++] = (struct pagecls_doc){site->pages[j].text, site->pages[j].text_len, cls,
                                             (uint32_t)i};
    }
    if (!classes[0] || !classes[1]) {
        e = err_set(ERR_INVAL, "no training page could be fetched from the %s sites",
                    classes[0] ? "other" : "relevant");
        goto out;
    }
    struct pagecls_params pp;
    pagecls_params_default(&pp);
    pp.centroids = (uint32_t)js->params.centroids_per_class;
    pp.seed = (uint64_t)js->params.seed;
    log_info("job %lld: training on %zu pages of %zu websites", (long long)c->id, n_docs, n);
    e = pagecls_train_cv(&pp, docs, n_docs, (uint32_t)js->params.cv_folds, &c->model, NULL);
    if (e)
        goto out;
    const struct pagecls_cv *cv = pagecls_get_cv(c->model);
    char cv_json[256];
    snprintf(cv_json, sizeof cv_json,
             "{\"folds\": %u, \"sites\": %u, \"pages\": %llu, \"accuracy\": %.6f, \"p_err\": %.6f}",
             cv->folds, cv->sites, (unsigned long long)cv->pages, cv->accuracy, cv->p_err);
    log_info("job %lld: page accuracy %.3f (p_err %.3f) in %u-fold cross-validation",
             (long long)c->id, cv->accuracy, cv->p_err, cv->folds);
    int64_t model_id;
    e = pagecls_serialize(c->model, &model_bytes);
    if (!e)
        e = jobspec_params_json(&js->params, &params_json);
    if (!e)
        e = models_save(c->s, c->id, PAGECLS_FORMAT_VERSION, cv->p_err, cv->accuracy, cv_json,
                        buf_str(&params_json), model_bytes.data, model_bytes.len, &model_id);
    if (!e)
        e = pagecls_scratch_new(c->model, &scratch);
    for (size_t i = 0; !e && i < n; i++) {
        const struct trainset_site *site = trainset_site(ts, i);
        if (site->n_pages)
            e = record_training_site(c, site, i < js->n_relevant, scratch);
    }
    /* Start sites are examined first. */
    for (size_t i = 0; !e && i < js->n_start; i++) {
        char *host = NULL;
        e = url_host(js->start_sites[i], &host);
        if (!e)
            e = crawlstore_site_add(c->s, c->id, host, js->start_sites[i], "start", "border", NAN,
                                    -1, START_RANK);
        free(host);
    }
out:
    pagecls_scratch_free(scratch);
    buf_release(&model_bytes);
    buf_release(&params_json);
    trainset_free(ts);
    free(docs);
    free(homes);
    return e;
}

static enum err load_model(struct ctx *c)
{
    struct models_record *m;
    enum err e = models_load_latest(c->s, c->id, &m);
    if (e == ERR_NOTFOUND)
        return err_set(ERR_NOTFOUND, "job %lld has no trained model", (long long)c->id);
    if (e)
        return e;
    e = pagecls_deserialize(m->data, m->len, &c->model);
    models_record_free(m);
    return e;
}

/* The baselines of issue 8: a page crawler with website post-processing. */
static enum err crawl_pages(struct ctx *c, enum crawl_stop *stop)
{
    const struct jobspec_params *jp = &c->js->params;
    struct pagecrawl_params p = {
        .bfs = jp->strategy == JOBSPEC_BFS,
        .prior_target = jp->prior_target,
        .prior_harvest = jp->prior == 1,
        .prior_sites = jp->prior_sites,
        .p_err = pagecls_p_err(c->model),
        .p_threshold = jp->p_threshold,
        .max_pages_per_site = jp->max_pages_per_site,
        .concurrency = jp->concurrency,
        .limits = {jp->max_pages, jp->max_relevant_sites, jp->max_seconds, jp->pprs_window,
                   jp->pprs_limit},
        .worker = c->worker,
    };
    return pagecrawl_run(c->s, c->id, c->f, c->model, &p, crawl_progress, c, stop);
}

static enum err crawl(struct ctx *c, enum crawl_stop *stop)
{
    const struct jobspec_params *jp = &c->js->params;
    int n;
    enum err e = crawlstore_unclaim(c->s, c->id, NULL, &n); /* whatever a dead run held */
    if (e)
        return e;
    if (n)
        log_info("job %lld: %d websites claimed by an earlier run went back to the border",
                 (long long)c->id, n);
    if (jp->strategy == JOBSPEC_PAGE || jp->strategy == JOBSPEC_BFS)
        return crawl_pages(c, stop);
    struct extcrawl_params p = {
        .weights = (enum extcrawl_weights)jp->edge_weights,
        .site = {.prior_target = jp->prior_target,
                 .p_threshold = jp->p_threshold,
                 .l_threshold = jp->l_threshold,
                 .c = jp->c,
                 .max_pages = jp->max_pages_per_site,
                 .max_pages_to_decide = jp->max_pages_to_decide},
        .p_err = pagecls_p_err(c->model),
        .prior_harvest = jp->prior == 1,
        .prior_sites = jp->prior_sites,
        .concurrency = jp->concurrency,
        .max_pages = jp->max_pages,
        .max_relevant = jp->max_relevant_sites,
        .max_seconds = jp->max_seconds,
        .pprs_window = jp->pprs_window,
        .pprs_limit = jp->pprs_limit,
        .worker = c->worker,
    };
    if (jp->strategy == JOBSPEC_HOMEPAGE) {
        /* Each website judged by its homepage alone (the homepage classifier's crawl). */
        p.site.max_pages = 1;
        p.site.l_threshold = 0;
        p.site.max_pages_to_decide = 0;
    }
    return extcrawl_run(c->s, c->id, c->f, c->model, &p, crawl_progress, c, stop);
}

static enum err run_phases(struct ctx *c, const char *state, enum crawl_stop *stop)
{
    enum err e = ERR_OK;
    if (strcmp(state, "queued") == 0 || strcmp(state, "training") == 0) {
        e = crawlstore_job_set_state(c->s, c->id, "training", NULL, NULL);
        if (!e)
            e = train(c);
    } else {
        e = load_model(c);
    }
    if (!e)
        e = crawlstore_job_set_state(c->s, c->id, "crawling", NULL, NULL);
    if (!e)
        e = crawl(c, stop);
    if (e)
        return e;
    if (*stop == CRAWL_USER_PAUSE)
        return crawlstore_job_set_state(c->s, c->id, "paused", NULL, NULL);
    return crawlstore_job_set_state(c->s, c->id, "done", crawl_stop_name(*stop), NULL);
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

enum err jobrun_run(struct store *s, int64_t id, const struct jobrun_options *o,
                    enum crawl_stop *stop)
{
    *stop = CRAWL_RUNNING;
    struct ctx c = {.s = s, .id = id, .o = o};
    if (o->worker)
        snprintf(c.worker, sizeof c.worker, "%s", o->worker);
    else {
        char host[64] = "localhost";
        gethostname(host, sizeof host - 1);
        snprintf(c.worker, sizeof c.worker, "%s:%d", host, (int)getpid());
    }
    struct crawlstore_job job;
    enum err e = crawlstore_set_worker(s, c.worker);
    if (!e)
        e = crawlstore_fence(s, id, c.worker);
    if (!e)
        e = crawlstore_job_heartbeat(s, id, c.worker); /* the next run fences us by name */
    if (!e)
        e = crawlstore_job_get(s, id, &job);
    if (e)
        return e;
    if (strcmp(job.state, "done") == 0 || strcmp(job.state, "failed") == 0) {
        crawlstore_job_release(&job);
        return err_set(ERR_CONFLICT, "job %lld is %s: nothing to resume", (long long)id,
                       job.state);
    }
    e = jobspec_parse(job.body_json, strlen(job.body_json), &c.js);
    if (!e && o->pool) {
        e = fetcher_attach(o->pool, c.js->params.concurrency, c.js->params.politeness_delay_ms,
                           &c.f);
    } else if (!e) {
        struct fetch_config fc;
        fetch_config_defaults(&fc);
        fc.proxy = o->proxy;
        fc.delay_ms = c.js->params.politeness_delay_ms;
        fc.max_in_flight = c.js->params.concurrency;
        e = fetcher_new(&fc, &c.f);
    }
    if (!e) {
        e = run_phases(&c, job.state, stop);
        if (e && e != ERR_DB) {
            /* The job cannot go on: say why in the job itself. */
            char msg[512];
            snprintf(msg, sizeof msg, "%s", err_msg());
            if (crawlstore_job_set_state(s, id, "failed", NULL, msg) != ERR_OK)
                log_error("job %lld: cannot record the failure: %s", (long long)id, err_msg());
            err_set(e, "%s", msg);
        }
    }
    fetcher_free(c.f);
    pagecls_free(c.model);
    jobspec_free(c.js);
    crawlstore_job_release(&job);
    return e;
}
