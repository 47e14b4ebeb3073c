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
#include "classifier/ctxgraph.h"
#include "classifier/pagecls.h"
#include "classifier/pagevecs.h"
#include "common/buf.h"
#include "common/log.h"
#include "common/monotime.h"
#include "crawler/extcrawl.h"
#include "crawler/fetch.h"
#include "crawler/pagecrawl.h"
#include "crawler/warcwrite.h"
#include "job/jobctx.h"
#include "job/jobjudge.h"
#include "job/joblabels.h"
#include "job/jobspec.h"
#include "job/jobstrategy.h"
#include "job/jobwarn.h"
#include "store/crawlstore.h"
#include "store/joblease.h"
#include "store/judgestore.h"
#include "store/labelstore.h"
#include "store/jobteam.h"
#include "store/runner.h"
#include "store/store.h"
#include "store/trainstore.h"

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

/* Term i of a strategy's terms (obj) and its weight (NAN: the terms have none). */
typedef const char *(*log_term_fn)(const void *obj, uint32_t i, size_t *len, double *weight);

static const char *hotwords_log_term(const void *obj, uint32_t i, size_t *len, double *weight)
{
    *weight = NAN;
    return hotwords_term(obj, i, len);
}

static const char *keyphrases_log_term(const void *obj, uint32_t i, size_t *len, double *weight)
{
    *weight = NAN;
    return keyphrases_term(obj, i, len);
}

static const char *weighttable_log_term(const void *obj, uint32_t i, size_t *len, double *weight)
{
    *weight = weighttable_weight(obj, i);
    return weighttable_term(obj, i, len);
}

/* A strategy's n terms in the log, what it looks for: "what: a, b" or, with weights,
 * "what: a 0.500, b 0.250"; "none" for no term. */
static void jobrun_log_terms(const struct ctx *c, const char *what, const void *obj, uint32_t n,
                             log_term_fn term)
{
    struct buf b;
    buf_init(&b, 0);
    for (uint32_t i = 0; i < n; i++) {
        size_t len;
        double w;
        const char *t = term(obj, i, &len, &w);
        if (buf_appendf(&b, "%s%.*s", i ? ", " : "", (int)len, t) ||
            (!isnan(w) && buf_appendf(&b, " %.3f", w)))
            break;
    }
    log_info("job %lld: %s: %s", (long long)c->id, what, b.len ? b.data : "none");
    buf_release(&b);
}

/* Strategy learning_anchor (seed 004 §6.6): an anchor joins the classifier's training
 * when the page it led to has Pr[p|target] further than this from 0.5 (the thesis's
 * threshold on its SVM's scores, 0.4 to 1.0 of about +-1.5, on our scale), and the
 * frontier is scored again every so many pages (the thesis retrains when its ready queue
 * runs dry; ours never does, docs/crawl.md). */
#define LEARN_MARGIN        0.1
#define LEARN_RESCORE_PAGES 100

/* The page-level strategies (issues 8 and 18): a page crawler with website post-processing.
 * What a strategy reads is its row's (job/jobstrategy.h); the models it trained beside the
 * page classifier (c->keys, c->table, c->ctx) are those of its row's model alone. */
static enum err jobrun_crawl_pages(struct ctx *c, const struct jobstrategy *st,
                                   const struct crawlrun_config *rc, enum crawl_stop *stop)
{
    const struct jobspec_params *jp = &c->js->params;
    struct pagecrawl_params p = {
        .priority = st->order,
        .prior_target = jp->prior_target,
        .prior_harvest = jp->prior == 1,
        .prior_sites = jp->prior_sites,
        .p_err = pagecls_p_err(c->model),
        .p_threshold = jp->p_threshold,
        .max_pages_per_site = jp->max_pages_per_site,
        .concurrency = jp->concurrency,
        .home_model = st->flags & JOBSTRATEGY_HOMEPAGES ? c->home_model : NULL,
        .keys = c->keys,
        .rho = PAGEORDER_RHO,
        .own_host_last = (st->flags & JOBSTRATEGY_OWN_HOST_LAST) != 0,
        .table = c->table,
        .admit_above = PAGEORDER_LINK_THRESHOLD,
        .learn_margin = LEARN_MARGIN,
        .rescore_every = LEARN_RESCORE_PAGES,
        .ctx = c->ctx,
    };
    if (p.keys)
        jobrun_log_terms(c, "key phrases (TF-DF and information gain, stemmed)", c->keys,
                         keyphrases_count(c->keys), keyphrases_log_term);
    if (p.table)
        jobrun_log_terms(c, "topic weight table (TF-IDF, stemmed)", c->table,
                         weighttable_count(c->table), weighttable_log_term);
    if (p.ctx) {
        char b[64];
        int w = 0;
        for (uint32_t i = 0; i < ctxgraph_count(p.ctx) && w >= 0 && (size_t)w < sizeof b; i++)
            w += snprintf(b + w, sizeof b - (size_t)w, "%s%d", i ? " " : "",
                          ctxgraph_layer(p.ctx, i));
        log_info("job %lld: context graph layers with a class (%d: other): %s", (long long)c->id,
                 CTXGRAPH_OTHER, b);
    }
    enum err e = ERR_OK;
    if ((st->flags & JOBSTRATEGY_HOT_WORDS) && !(e = hotwords_new(c->model, HOTWORDS_KEYS, &p.hot)))
        jobrun_log_terms(c, "hot words (the topic's key terms, stemmed)", p.hot,
                         hotwords_count(p.hot), hotwords_log_term);
    if (!e && (st->flags & JOBSTRATEGY_LEARN_ANCHORS))
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

/* crawlrun_config.judge: the job's websites judged again by a model learnt from its crawl
 * and from every label its user gave (those given since count as judged). */
static enum err jobrun_judge(void *arg, int final, int64_t *relevant)
{
    struct ctx *c = arg;
    struct jobjudge_params p;
    int labels;
    struct labelstore_mark mark;
    enum err e = labelstore_pending(c->s, c->id, 0, &labels, &mark);
    if (!e)
        e = joblabels_params(c->s, c->id, final, &p);
    if (e)
        return e;
    /* From judge_spy_pages on, spies while the crawl runs too (docs/classifier.md, "When");
     * a label's judging is one fit: it shows within seconds. */
    if (!final && !labels && c->js->params.judge_spy_pages > 0)
        p.spy_pages = c->js->params.judge_spy_pages;
    p.keep_model = 1; /* the websites examined until the next judging weigh their links by it */
    if (!c->judged_terms && pagevecs_new(&c->judged_terms) != ERR_OK)
        log_warn("job %lld: judging without keeping its pages: %s", (long long)c->id, err_msg());
    struct jobjudge_result r;
    e = jobjudge_run_pages(c->s, c->id, &p, c->judged_terms, &c->judged_clusters, 0, &r);
    if (labels && e != ERR_DB) { /* a judging that cannot learn from them will not later */
        enum err m = labelstore_judged(c->s, c->id, &mark);
        e = e ? e : m;
    }
    if (e)
        return e;
    if (r.model) {
        jobjudge_model_free(c->crawl_model);
        c->crawl_model = r.model;
        c->crawl_model_id = r.model_id;
    }
    if (!r.model_id) {
        log_info("job %lld: not judged again: its crawl read %zu pages, %lld needed to learn from",
                 (long long)c->id, r.crawl_pages, (long long)p.min_pages);
        *relevant = -1; /* the meter keeps its count */
        return ERR_OK;
    }
    log_info("job %lld: judged %zu websites again with a model learnt from %zu pages (topic"
             " share %.3f, threshold %.3g from %zu spies) in %.2f s: %lld verdicts changed, %lld"
             " relevant",
             (long long)c->id, r.sites, r.pages, r.target_prior, r.threshold, r.spies, r.seconds,
             (long long)r.changed, (long long)r.relevant);
    *relevant = r.relevant;
    return ERR_OK;
}

/* crawlrun_config.judge_due: labels given since the last judging, settled. */
static int jobrun_judge_due(void *arg)
{
    struct ctx *c = arg;
    int pending;
    struct labelstore_mark mark;
    if (labelstore_pending(c->s, c->id, JOBLABELS_SETTLE_MS, &pending, &mark) != ERR_OK) {
        log_warn("job %lld: labels: %s", (long long)c->id, err_msg());
        return 0;
    }
    return pending;
}

/* How often a runner that does not judge looks for the job's newest crawl model. */
#define MODEL_LOOK_S 2.0

/*
 * The job's newest crawl model, for a helper: the lead judges (a lead resumed past
 * judge_pages judges at once), the helpers pick up its models (issue 31) and judge the
 * websites they examine by them. Looked for every MODEL_LOOK_S; a failure is logged, the
 * last model kept.
 */
static void model_refresh(struct ctx *c)
{
    double now = monotime_s();
    if (now - c->crawl_model_checked < MODEL_LOOK_S)
        return;
    c->crawl_model_checked = now;
    struct judgestore_summary last;
    if (judgestore_summary(c->s, c->id, &last) != ERR_OK) {
        log_warn("job %lld: crawl model: %s", (long long)c->id, err_msg());
        return;
    }
    if (!last.models || last.last_id == c->crawl_model_id)
        return;
    int64_t id;
    struct jobjudge_model *m;
    if (jobjudge_model_load(c->s, c->id, &id, &m) != ERR_OK) {
        log_warn("job %lld: crawl model %lld: %s", (long long)c->id, (long long)last.last_id,
                 err_msg());
        return;
    }
    jobjudge_model_free(c->crawl_model);
    c->crawl_model = m;
    c->crawl_model_id = id;
    size_t rejected = jobjudge_model_rejected(m);
    if (rejected)
        log_info("job %lld: the websites examined now are judged by the stored crawl model %lld,"
                 " vetoing those more like one of the %zu websites labelled not relevant than"
                 " like any relevant one",
                 (long long)c->id, (long long)id, rejected);
    else
        log_info("job %lld: the websites examined now are judged by the stored crawl model %lld",
                 (long long)c->id, (long long)id);
}

/* sitecrawl_params.model_conf: a website's confidence by the last judging's model. */
static int jobrun_site_score(void *arg, const struct sitecrawl_page *pages, size_t n, double *conf,
                             int64_t *model, const char **like_rejected)
{
    struct ctx *c = arg;
    if (c->helper)
        model_refresh(c);
    if (!c->crawl_model || !n)
        return 0;
    const char **terms = malloc(n * sizeof *terms);
    if (!terms)
        return 0;
    for (size_t i = 0; i < n; i++)
        terms[i] = pages[i].terms;
    int scored = jobjudge_model_score(c->crawl_model, terms, n, conf, like_rejected);
    *model = c->crawl_model_id;
    free(terms);
    return scored;
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
    const struct jobstrategy *st = jobstrategy_get((size_t)jp->strategy);
    if (st->flags & JOBSTRATEGY_PAGES)
        return jobrun_crawl_pages(c, st, &rc, stop);
    /* A website-level crawl of homepages reads each website's homepage alone: nothing to
     * judge again. */
    int home_only = (st->flags & JOBSTRATEGY_HOMEPAGES) != 0;
    int judging = jp->judge == 1 && !home_only;
    if (judging) {
        rc.judge = jobrun_judge;
        rc.judge_at = jp->judge_pages;
        rc.judge_due = jobrun_judge_due;
    }
    struct extcrawl_params p = {
        .weights = (enum edges_weights)jp->edge_weights,
        .site = {.prior_target = jp->prior_target,
                 .p_threshold = jp->p_threshold,
                 .l_threshold = jp->l_threshold,
                 .c = jp->c,
                 .max_pages = jp->max_pages_per_site,
                 .max_pages_to_decide = jp->max_pages_to_decide,
                 .min_pages_relevant = jp->min_pages_relevant,
                 .model_conf = judging ? jobrun_site_score : NULL,
                 .model_conf_ctx = c},
        .p_err = pagecls_p_err(c->model),
        .prior_harvest = jp->prior == 1,
        .prior_sites = jp->prior_sites,
        .concurrency = jp->concurrency,
        .new_links_only = jp->linkrank_links == 1,
        .deepen_sites = jp->deepen_sites,
        .linkrank_fixed = jp->linkrank_threshold == 1,
    };
    if (home_only) {
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
            e = jobtrain_train(c);
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
        e = jobtrain_load(c);
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
                  (long long)id, err_msg(), runner_lease_seconds());
    err_set(ERR_DB, "%s", msg);
}

static enum err create(struct store *s, const struct jobspec *js, const char *worker, int64_t *id)
{
    struct buf body, params, warnings;
    buf_init(&body, 0);
    buf_init(&params, 0);
    buf_init(&warnings, 0);
    enum err e = jobspec_to_json(js, &body);
    if (!e)
        e = jobspec_params_json(&js->params, &params);
    if (!e)
        e = jobwarn_json(js, &warnings, NULL);
    if (!e)
        e = crawlstore_job_create_leased(s, js->topic, buf_str(&body), buf_str(&params),
                                         buf_str(&warnings), worker, id);
    buf_release(&body);
    buf_release(&params);
    buf_release(&warnings);
    return e;
}

enum err jobrun_create(struct store *s, const struct jobspec *js, int64_t *id)
{
    return create(s, js, NULL, id);
}

enum err jobrun_create_here(struct store *s, const struct jobspec *js, int64_t *id)
{
    char worker[256];
    runner_name(worker, sizeof worker, -1); /* jobrun_run's, without o->worker */
    return create(s, js, worker, id);
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
        /* A job keeps its proxy: a run without one fetches through the job's; a run
         * given one records it for the next. */
        const char *proxy = o->proxy ? o->proxy : job->proxy[0] ? job->proxy : NULL;
        if (o->proxy && strcmp(o->proxy, job->proxy) != 0)
            e = crawlstore_job_set_proxy(c->s, c->id, o->proxy);
        struct fetch_config fc;
        fetch_config_defaults(&fc);
        fc.proxy = proxy;
        fc.delay_ms = c->js->params.politeness_delay_ms;
        fc.max_in_flight = c->js->params.concurrency;
        if (!e)
            e = fetcher_new(&fc, &c->f);
    }
    return e;
}

static void ctx_release(struct ctx *c)
{
    fetcher_free(c->f);
    pagecls_free(c->model);
    jobjudge_model_free(c->crawl_model);
    c->crawl_model = NULL;
    pagevecs_free(c->judged_terms);
    c->judged_terms = NULL;
    sitejudge_clusters_release(&c->judged_clusters);
    pagecls_free(c->home_model);
    keyphrases_free(c->keys);
    weighttable_free(c->table);
    ctxgraph_free(c->ctx);
    jobspec_free(c->js);
}

/* The runner's name (o->worker or this process's), on its connection too; the job. */
static enum err ctx_start(struct ctx *c, struct crawlstore_job *job)
{
    if (c->o->worker)
        snprintf(c->worker, sizeof c->worker, "%s", c->o->worker);
    else
        runner_name(c->worker, sizeof c->worker, -1);
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
            /* The job cannot go on: say why in the job itself. Unreachable websites
             * (ERR_NET: the proxy or the network) pause it, resumable once fixed. */
            char msg[512];
            snprintf(msg, sizeof msg, "%s", err_msg());
            if (crawlstore_job_set_state(s, id, e == ERR_NET ? "paused" : "failed", NULL, msg) !=
                ERR_OK)
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
                 err_msg(), runner_lease_seconds());
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
        e = jobtrain_load(&c);
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
