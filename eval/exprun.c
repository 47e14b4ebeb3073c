/* One crawl run of an experiment, and its Table 2 evaluation, measured into the report. */
#include "eval/exprun.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/monotime.h"
#include "crawler/fetch.h"
#include "eval/evaluate.h"
#include "eval/foundcurve.h"
#include "eval/jobscore.h"
#include "job/jobrun.h"
#include "store/crawlstore.h"

struct run_ctx {
    struct report_run *run;
    enum err e; /* first error adding a sample */
};

/* Every progress report of the crawl is a sample of its curve (after each website the
 * website crawler records, after each batch of pages the page crawlers read). */
static void on_progress(void *arg, const struct jobrun_progress *p)
{
    struct run_ctx *ctx = arg;
    if (p->phase != JOBRUN_CRAWLING || ctx->e)
        return;
    const struct crawl_progress *c = &p->crawl;
    struct report_point pt = {c->pages, c->examined, c->relevant, c->harvest_window,
                              isinf(c->pprs_window) ? NAN : c->pprs_window};
    ctx->e = report_run_add_point(ctx->run, &pt);
}

static enum err read_job_end(struct store *s, int64_t job, struct report_run *run)
{
    struct crawlstore_job j;
    enum err e = crawlstore_job_get(s, job, &j);
    if (e)
        return e;
    snprintf(run->state, sizeof run->state, "%s", j.state);
    snprintf(run->stop_reason, sizeof run->stop_reason, "%s", *j.error ? j.error : j.stop_reason);
    crawlstore_job_release(&j);
    struct crawlstore_counts c;
    e = crawlstore_counts(s, job, &c);
    if (e)
        return e;
    run->pages = c.pages;
    run->examined = c.examined;
    run->relevant = c.relevant;
    return ERR_OK;
}

enum err exprun_crawl(struct store *s, const struct jobspec *js, const struct labels *labels,
                      const char *proxy, struct report_run *run)
{
    enum err e = jobrun_create_here(s, js, &run->job_id);
    if (e)
        return e;
    struct run_ctx ctx = {.run = run};
    struct jobrun_options o = {.proxy = proxy, .progress = on_progress, .ctx = &ctx};
    enum crawl_stop stop;
    double t0 = monotime_s();
    e = jobrun_run(s, run->job_id, &o, &stop);
    run->seconds = monotime_s() - t0;
    if (e)
        return e;
    run->ran = 1;
    e = ctx.e;
    if (!e)
        e = read_job_end(s, run->job_id, run);
    if (!e)
        e = jobscore_get(s, run->job_id, labels, js->topic, &run->score);
    if (!e)
        e = foundcurve_build(run->score.verdicts, run->score.n_verdicts, 0, run->pages,
                             &run->found);
    report_run_sort(run);
    return e;
}

enum err exprun_table2(const struct jobspec *js, const struct labels *labels, const char *proxy,
                       struct report_table2 *t)
{
    struct evaluate_opts o = {0};
    o.mode = EVALUATE_CV;
    o.labels = labels;
    fetch_config_defaults(&o.fetch);
    o.fetch.proxy = proxy;
    struct evaluate_result *res = NULL;
    double t0 = monotime_s();
    enum err e = evaluate_run(js, &o, &res);
    if (e)
        return e;
    t->topic = js->topic;
    t->folds = res->folds;
    t->sites = res->n_sites;
    t->p_err = res->page_cv.p_err;
    t->p_threshold = js->params.p_threshold;
    t->pages_per_site = res->pages_per_site;
    t->web_precision = evalstats_precision(&res->website);
    t->web_recall = evalstats_recall(&res->website);
    t->web_f1 = evalstats_f1(&res->website);
    t->home_precision = evalstats_precision(&res->homepage);
    t->home_recall = evalstats_recall(&res->homepage);
    t->home_f1 = evalstats_f1(&res->homepage);
    t->seconds = monotime_s() - t0;
    evaluate_result_free(res);
    return ERR_OK;
}
