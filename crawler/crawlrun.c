/* A job's crawl on the refill loop: stop conditions, polls, reports, metrics rows. */
#include "crawler/crawlrun.h"

#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/monotime.h"
#include "crawler/crawlloop.h"
#include "crawler/fetch.h"
#include "store/bgexec.h"
#include "store/crawlstore.h"
#include "store/jobteam.h"

#define POLL_MS  1000 /* how often the job row is checked for stop/pause */
#define DUE_MS   250  /* how often the lead asks whether the job should be judged now */
#define FLUSH_MS 2000 /* how often a strategy's kept verdicts and pages are written */
/* The planner's statistics are refreshed ANALYZE_FIRST pages into the crawl, then each
 * time the crawl's pages have grown ANALYZE_GROWTH times (crawlstore_analyze_start says
 * why). An ANALYZE of a sites table that holds earlier jobs' rows costs PostgreSQL
 * 0.2-0.8 s: at each doubling it was a third of the tenth job's database CPU. */
#define ANALYZE_FIRST  250
#define ANALYZE_GROWTH 4
/* A job crawled by several runners: every RECLAIM_POLLS polls, the websites of runners
 * whose site lease ran out go back to the border (store/jobteam.h). */
#define RECLAIM_POLLS 5

struct run {
    const struct crawlrun_config *c;
    const struct crawl_strategy *st;
    void *sctx;
    struct crawlmeter m;
    enum crawl_stop stop;
    double next_poll, next_flush, next_due;
    int64_t next_analyze;             /* pages */
    int64_t next_judge;               /* pages; 0: never (crawlrun_config.judge) */
    struct bgexec *analyze;           /* ANALYZE beside the crawl, not in its way */
    struct crawlmeter_point reported; /* the counters at the last progress report */
    int64_t claimed;                  /* the job's websites being examined, by anyone */
    uint64_t team_checked;            /* the poll team_busy last looked at the store */
};

/* The figures a report is about to give: what is in flight, the border, the counters. */
static void crawlrun_before_report(struct run *r)
{
    r->m.in_flight = r->st->in_flight(r->sctx);
    struct fetch_stats fs;
    fetcher_stats(r->c->f, &fs);
    r->m.robots_requests = (int64_t)fs.robots_requests;
    r->m.retries = (int64_t)fs.retries;
    if (r->st->border)
        r->m.border = r->st->border(r->sctx);
    r->reported = (struct crawlmeter_point){r->m.pages, r->m.examined, r->m.relevant};
}

static void crawlrun_report(struct run *r)
{
    crawlrun_before_report(r);
    crawlmeter_report(&r->m, r->stop, r->c->progress, r->c->ctx);
}

/*
 * Does a shared job's lead, with nothing to do (why: the border empty, or its budget
 * spent), have to wait? Yes while other runners hold websites (their links may feed the
 * border) or websites of runners gone have just come back to the border; for the budget,
 * also while others hold some of it (store/jobteam.h: an idle runner holds none). The
 * store is asked at most once a poll, and always for the budget: a lead that has not
 * polled yet knows nothing of the others (a new lead of a job whose lead died, beside a
 * helper holding pages: issue 29), and a lead whose allowance could not pay for a website
 * must not end a job whose pages are held by others.
 */
static int team_busy(struct run *r, enum crawl_stop why)
{
    const struct crawlrun_config *c = r->c;
    if (!r->st->shared || (r->claimed == 0 && why != CRAWL_MAX_PAGES))
        return 0;
    if (r->team_checked == r->m.polls)
        return 1;
    r->team_checked = r->m.polls;
    int back = 0, others = 0;
    int64_t held = 0;
    struct crawlstore_counts counts;
    if (jobteam_reclaim(c->s, c->job, &back) != ERR_OK ||
        crawlstore_counts(c->s, c->job, &counts) != ERR_OK ||
        jobteam_others(c->s, c->job, c->worker, &others, &held) != ERR_OK)
        return 1; /* cannot tell: look again at the next poll */
    r->claimed = counts.claimed;
    r->m.border = counts.border;
    return back > 0 || counts.claimed > 0 || (why == CRAWL_MAX_PAGES && held > 0);
}

static enum err loop_refill(void *arg)
{
    struct run *r = arg;
    if (r->stop == CRAWL_RUNNING) {
        r->m.pages_unrecorded = r->st->unrecorded_pages ? r->st->unrecorded_pages(r->sctx) : 0;
        r->stop = crawlmeter_budget_stop(&r->m);
        if (r->stop != CRAWL_RUNNING)
            log_debug("crawl: job %lld: %s (pages %lld, %lld more on their way)",
                      (long long)r->c->job, crawl_stop_name(r->stop), (long long)r->m.pages,
                      (long long)r->m.pages_unrecorded);
    }
    if (r->stop != CRAWL_RUNNING)
        return ERR_OK;
    enum crawl_stop blocked = CRAWL_RUNNING;
    enum err e = r->st->refill(r->sctx, &blocked);
    if (e || blocked == CRAWL_RUNNING || r->st->in_flight(r->sctx) != 0)
        return e;
    /* With nothing left here, a shared job goes on while others examine websites, whose
     * links may feed the border and which may give back pages of the budget: a helper
     * waits for the lead to end it; the lead ends it when nobody holds a website (a
     * runner gone holds its own until its lease runs out). */
    if ((blocked == CRAWL_BORDER_EMPTY || blocked == CRAWL_MAX_PAGES) &&
        (r->c->helper || team_busy(r, blocked)))
        return ERR_OK;
    r->stop = blocked;
    log_debug("crawl: job %lld: %s with nothing in flight (pages %lld, %d other runners)",
              (long long)r->c->job, crawl_stop_name(blocked), (long long)r->m.pages, r->m.team);
    return ERR_OK;
}

static int loop_finished(void *arg)
{
    struct run *r = arg;
    if (r->stop == CRAWL_USER_STOP || r->stop == CRAWL_USER_PAUSE || r->stop == CRAWL_LEASE_LOST ||
        r->stop == CRAWL_LEFT)
        return 1;
    return r->stop != CRAWL_RUNNING && r->st->in_flight(r->sctx) == 0;
}

static enum err loop_feed(void *arg, struct fetch_result *res)
{
    struct run *r = arg;
    return r->st->feed(r->sctx, res);
}

/* The regular look at the job row: a user's request, the heartbeat, a report. */
/* A shared job's counters are the store's: every runner's work counts, for the budgets,
 * the rates and the metrics rows. */
static void team_counts(struct run *r, const struct crawlstore_counts *c)
{
    struct crawlmeter *m = &r->m;
    if (c->pages <= m->pages && c->examined <= m->examined && c->relevant <= m->relevant)
        return;
    m->pages = c->pages > m->pages ? c->pages : m->pages;
    m->examined = c->examined > m->examined ? c->examined : m->examined;
    m->relevant = c->relevant > m->relevant ? c->relevant : m->relevant;
    crawlmeter_mark(m);
}

/* A shared job's runners: who else is live, and the websites of those who are not. */
static void poll_team(struct run *r)
{
    const struct crawlrun_config *c = r->c;
    int others = 0, back = 0;
    if (jobteam_renew(c->s, c->job, c->worker) == ERR_CONFLICT) /* the keeper says so too */
        log_warn("crawl: job %lld: %s", (long long)c->job, err_msg());
    if (jobteam_others(c->s, c->job, c->worker, &others, NULL) == ERR_OK)
        r->m.team = others;
    if (r->m.polls % RECLAIM_POLLS == 0 && jobteam_reclaim(c->s, c->job, &back) == ERR_OK && back)
        log_info("crawl: job %lld: %d websites of runners gone went back to the border",
                 (long long)c->job, back);
}

/* Should this runner leave the job (CRAWL_LEFT)? Its process stops, or, for a helper,
 * the job is no longer crawling (the lead ended or paused it). */
static int leaving(const struct run *r)
{
    const struct crawlrun_config *c = r->c;
    if (c->quit && atomic_load(c->quit))
        return 1;
    if (!c->helper)
        return 0;
    struct crawlstore_job j;
    if (crawlstore_job_get(c->s, c->job, &j) != ERR_OK)
        return 0;
    int ended = strcmp(j.state, "crawling") != 0;
    crawlstore_job_release(&j);
    return ended;
}

/* The regular look at the job row: a user's request, the heartbeat, a report. */
static void poll_job(struct run *r)
{
    const struct crawlrun_config *c = r->c;
    r->m.polls++;
    if (r->st->shared)
        poll_team(r);
    struct crawlstore_counts counts;
    if ((!r->st->border || r->st->shared) && crawlstore_counts(c->s, c->job, &counts) == ERR_OK) {
        if (!r->st->border)
            r->m.border = counts.border;
        r->claimed = counts.claimed;
        if (r->m.team)
            team_counts(r, &counts);
    }
    crawlrun_before_report(r);
    r->stop = crawlmeter_poll(&r->m, c->s, c->job, c->lease, r->stop, c->progress, c->ctx);
    if (r->stop == CRAWL_RUNNING && leaving(r))
        r->stop = CRAWL_LEFT;
}

/* The job's websites judged again (crawlrun_config.judge), the verdicts in memory written
 * first (by the strategy's flush; at the crawl's end, final, the caller did); the meter
 * counts the relevant ones as the judging left them. */
static enum err judge_now(struct run *r, int final)
{
    int flush = !final;
    enum err e = flush && r->st->flush ? r->st->flush(r->sctx) : ERR_OK;
    if (e)
        return e;
    int64_t relevant;
    if (r->c->judge(r->c->ctx, final, &relevant) != ERR_OK) {
        log_warn("crawl: job %lld: judging again: %s", (long long)r->c->job, err_msg());
        return ERR_OK;
    }
    if (relevant >= 0) {
        r->m.relevant = relevant;
        crawlmeter_mark(&r->m);
    }
    return ERR_OK;
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
    if (r->c->helper) /* the lead writes the job's metrics rows and keeps its statistics */
        return e;
    if (!e && crawlmeter_row_due(&r->m) && crawlmeter_write(&r->m, r->c->s, r->c->job) != ERR_OK)
        log_warn("crawl: job %lld: metrics: %s", (long long)r->c->job, err_msg());
    if (!e && r->next_judge > 0 && r->m.pages >= r->next_judge) {
        while (r->next_judge <= r->m.pages)
            r->next_judge *= 2;
        e = judge_now(r, 0);
    } else if (!e && r->c->judge && r->c->judge_due && t >= r->next_due) {
        r->next_due = t + DUE_MS / 1000.0;
        if (r->c->judge_due(r->c->ctx))
            e = judge_now(r, 0);
    }
    if (!e && r->m.pages >= r->next_analyze) {
        r->next_analyze = r->m.pages * ANALYZE_GROWTH;
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
    if (!e && st->shared) /* its claims are its own while it lives (store/jobteam.h) */
        e = jobteam_join(c->s, c->job, c->worker, c->helper ? JOBTEAM_HELPER : JOBTEAM_LEAD);
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
    crawlmeter_ledger(&r.m, c->s, c->job);
    r.m.border = counts.border;
    r.claimed = counts.claimed; /* a dead runner's, until they come back to the border */
    r.reported = (struct crawlmeter_point){r.m.pages, r.m.examined, r.m.relevant};
    r.next_flush = monotime_s() + FLUSH_MS / 1000.0;
    r.next_analyze = counts.pages + ANALYZE_FIRST;
    r.next_judge = c->judge && !c->helper ? c->judge_at : 0;
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
    if (crawlmeter_requests_settle(&r.m) != ERR_OK) /* the count stays a little high */
        log_warn("crawl: job %lld: requests: %s", (long long)c->job, err_msg());
    if (!e && c->judge && !c->helper && !r.m.lease_lost && r.stop != CRAWL_LEFT &&
        r.m.pages >= c->judge_at) { /* a crawl that read less is not judged */
        r.next_judge = 0;
        e = judge_now(&r, 1); /* flushed above; finish wrote what it gave back */
    }
    if (!e && !r.m.lease_lost && !c->helper)
        e = crawlmeter_write(&r.m, c->s, c->job);
    if (!e)
        crawlmeter_report(&r.m, r.stop, c->progress, c->ctx);
    crawlmeter_release(&r.m);
    bgexec_free(r.analyze);
    return e;
}
