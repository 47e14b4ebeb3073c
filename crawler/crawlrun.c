/* A job's crawl on the refill loop: stop conditions, polls, reports, metrics rows. */
#include "crawler/crawlrun.h"

#include <stdlib.h>

#include "common/log.h"
#include "common/monotime.h"
#include "crawler/crawlloop.h"
#include "crawler/fetch.h"
#include "store/bgexec.h"
#include "store/crawlstore.h"

#define POLL_MS  1000 /* how often the job row is checked for stop/pause */
#define FLUSH_MS 2000 /* how often a strategy's kept verdicts and pages are written */
/* The planner's statistics are refreshed ANALYZE_FIRST pages into the crawl, then each
 * time the crawl's pages double (crawlstore_analyze_start says why). */
#define ANALYZE_FIRST 250

struct run {
    const struct crawlrun_config *c;
    const struct crawl_strategy *st;
    void *sctx;
    struct crawlmeter m;
    enum crawl_stop stop;
    double next_poll, next_flush;
    int64_t next_analyze;             /* pages */
    struct bgexec *analyze;           /* ANALYZE beside the crawl, not in its way */
    struct crawlmeter_point reported; /* the counters at the last progress report */
};

/* The figures a report is about to give: what is in flight, the border, the counters. */
static void crawlrun_before_report(struct run *r)
{
    r->m.in_flight = r->st->in_flight(r->sctx);
    struct fetch_stats fs;
    fetcher_stats(r->c->f, &fs);
    r->m.robots_requests = (int64_t)fs.robots_requests;
    if (r->st->border)
        r->m.border = r->st->border(r->sctx);
    r->reported = (struct crawlmeter_point){r->m.pages, r->m.examined, r->m.relevant};
}

static void crawlrun_report(struct run *r)
{
    crawlrun_before_report(r);
    crawlmeter_report(&r->m, r->stop, r->c->progress, r->c->ctx);
}

static enum err loop_refill(void *arg)
{
    struct run *r = arg;
    if (r->stop == CRAWL_RUNNING) {
        r->m.pages_unrecorded = r->st->unrecorded_pages ? r->st->unrecorded_pages(r->sctx) : 0;
        r->stop = crawlmeter_budget_stop(&r->m);
    }
    if (r->stop != CRAWL_RUNNING)
        return ERR_OK;
    enum crawl_stop blocked = CRAWL_RUNNING;
    enum err e = r->st->refill(r->sctx, &blocked);
    if (!e && blocked != CRAWL_RUNNING && r->st->in_flight(r->sctx) == 0)
        r->stop = blocked;
    return e;
}

static int loop_finished(void *arg)
{
    struct run *r = arg;
    if (r->stop == CRAWL_USER_STOP || r->stop == CRAWL_USER_PAUSE || r->stop == CRAWL_LEASE_LOST)
        return 1;
    return r->stop != CRAWL_RUNNING && r->st->in_flight(r->sctx) == 0;
}

static enum err loop_feed(void *arg, struct fetch_result *res)
{
    struct run *r = arg;
    return r->st->feed(r->sctx, res);
}

/* The regular look at the job row: a user's request, the heartbeat, a report. */
static void poll_job(struct run *r)
{
    const struct crawlrun_config *c = r->c;
    struct crawlstore_counts counts;
    if (!r->st->border && crawlstore_counts(c->s, c->job, &counts) == ERR_OK)
        r->m.border = counts.border;
    crawlrun_before_report(r);
    r->stop = crawlmeter_poll(&r->m, c->s, c->job, c->lease, r->stop, c->progress, c->ctx);
}

static enum err loop_tick(void *arg)
{
    struct run *r = arg;
    double t = monotime_s();
    int changed = r->m.pages != r->reported.pages || r->m.examined != r->reported.examined ||
                  r->m.relevant != r->reported.relevant;
    if (changed && t < r->next_poll) /* between the polls too: short crawls draw a curve */
        crawlrun_report(r);
    if (t >= r->next_poll) {
        r->next_poll = t + POLL_MS / 1000.0;
        poll_job(r);
    }
    enum err e = ERR_OK;
    if (r->st->flush && t >= r->next_flush) { /* verdicts first: the metrics row counts them */
        r->next_flush = t + FLUSH_MS / 1000.0;
        e = r->st->flush(r->sctx);
    }
    if (!e && crawlmeter_row_due(&r->m) && crawlmeter_write(&r->m, r->c->s, r->c->job) != ERR_OK)
        log_warn("crawl: job %lld: metrics: %s", (long long)r->c->job, err_msg());
    if (!e && r->m.pages >= r->next_analyze) {
        r->next_analyze = r->m.pages * 2;
        if (!crawlstore_analyze_start(r->analyze))
            log_debug("crawl: job %lld: the last ANALYZE still runs", (long long)r->c->job);
    }
    return e;
}

static const struct crawlloop_hooks hooks = {loop_refill, loop_finished, loop_feed, loop_tick};

enum err crawlrun_run(const struct crawlrun_config *c, const struct crawl_strategy *st, void *sctx,
                      enum crawl_stop *why)
{
    *why = CRAWL_RUNNING;
    struct run r = {.c = c, .st = st, .sctx = sctx, .stop = CRAWL_RUNNING};
    struct crawlstore_counts counts;
    struct crawlstore_metrics *tail = NULL;
    struct crawlmeter_point *past = NULL;
    size_t n_tail = 0;
    double elapsed = 0;
    enum err e = crawlstore_counts(c->s, c->job, &counts);
    if (!e) /* a resumed crawl goes on from its earlier runs' last window */
        e = crawlstore_metrics_tail(c->s, c->job, c->limits.pprs_window, &tail, &n_tail, &elapsed);
    if (!e && !(past = calloc(n_tail + 1, sizeof *past)))
        e = err_set(ERR_NOMEM, "out of memory");
    for (size_t i = 0; !e && i < n_tail; i++)
        past[i] = (struct crawlmeter_point){tail[i].pages, tail[i].examined, tail[i].relevant};
    if (!e)
        e = bgexec_new(c->s, &r.analyze);
    if (!e && (e = crawlmeter_init(&r.m, &c->limits, counts.pages, counts.examined, counts.relevant,
                                   past, n_tail, elapsed)))
        bgexec_free(r.analyze);
    free(tail);
    free(past);
    if (e) {
        if (st->finish)
            st->finish(sctx);
        return e;
    }
    r.m.border = counts.border;
    r.reported = (struct crawlmeter_point){r.m.pages, r.m.examined, r.m.relevant};
    r.next_flush = monotime_s() + FLUSH_MS / 1000.0;
    r.next_analyze = counts.pages + ANALYZE_FIRST;
    e = st->start(sctx, &r.m, &counts);
    if (!e)
        e = crawlloop_run(c->f, &hooks, &r);
    r.m.lease_lost = r.stop == CRAWL_LEASE_LOST;
    if (!e) {
        *why = r.stop;
        if (st->flush && !r.m.lease_lost)
            e = st->flush(sctx);
    }
    crawlrun_before_report(&r); /* the border as the strategy sees it, before it lets go */
    if (st->finish)             /* gives back the work still held; the pages it cost count */
        st->finish(sctx);
    r.m.in_flight = 0;
    if (!e && !r.m.lease_lost)
        e = crawlmeter_write(&r.m, c->s, c->job);
    if (!e)
        crawlmeter_report(&r.m, r.stop, c->progress, c->ctx);
    crawlmeter_release(&r.m);
    bgexec_free(r.analyze);
    return e;
}
