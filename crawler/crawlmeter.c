/* Counters, windowed rates, budgets and metrics rows of a crawl. */
#include "crawler/crawlmeter.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/monotime.h"
#include "store/crawlstore.h"
#include "store/joblease.h"

#define WINDOW_MAX 65536 /* marks kept for the windowed rates */

/* Add a mark to the ring (the oldest goes when it is full). */
static void mark_point(struct crawlmeter *m, struct crawlmeter_point pt)
{
    if (m->win_len == WINDOW_MAX) {
        m->win_first = (m->win_first + 1) % WINDOW_MAX;
        m->win_len--;
    }
    m->win[(m->win_first + m->win_len) % WINDOW_MAX] = pt;
    m->win_len++;
}

enum err crawlmeter_init(struct crawlmeter *m, const struct crawlmeter_limits *lim, int64_t pages,
                         int64_t examined, int64_t relevant, const struct crawlmeter_point *past,
                         size_t n_past, double elapsed_s)
{
    memset(m, 0, sizeof *m);
    m->lim = *lim;
    m->t0 = monotime_s() - (elapsed_s > 0 ? elapsed_s : 0);
    m->win = calloc(WINDOW_MAX, sizeof *m->win);
    if (!m->win)
        return err_set(ERR_NOMEM, "out of memory");
    m->pages = pages;
    m->examined = examined;
    m->relevant = relevant;
    m->written_t = monotime_s();
    m->written_pages = pages;
    for (size_t i = 0; i < n_past; i++)
        mark_point(m, past[i]);
    crawlmeter_mark(m);
    return ERR_OK;
}

void crawlmeter_ledger(struct crawlmeter *m, struct store *s, int64_t job)
{
    m->ledger = s;
    m->ledger_job = job;
}

enum err crawlmeter_request(struct crawlmeter *m)
{
    if (m->ledger && m->requests >= m->requests_counted) {
        enum err e =
            crawlstore_job_add_requests(m->ledger, m->ledger_job, CRAWLMETER_REQUESTS_AHEAD);
        if (e)
            return e;
        m->requests_counted += CRAWLMETER_REQUESTS_AHEAD;
    }
    m->requests++;
    return ERR_OK;
}

enum err crawlmeter_requests_settle(struct crawlmeter *m)
{
    if (!m->ledger || m->requests_counted == m->requests)
        return ERR_OK;
    enum err e =
        crawlstore_job_add_requests(m->ledger, m->ledger_job, m->requests - m->requests_counted);
    if (!e)
        m->requests_counted = m->requests;
    return e;
}

void crawlmeter_release(struct crawlmeter *m)
{
    free(m->win);
    m->win = NULL;
}

void crawlmeter_mark(struct crawlmeter *m)
{
    mark_point(m, (struct crawlmeter_point){m->pages, m->examined, m->relevant});
}

/* The mark that starts the window of the last pprs_window pages (oldest if shorter). */
static const struct crawlmeter_point *window_start(const struct crawlmeter *m)
{
    const struct crawlmeter_point *best = NULL;
    for (size_t i = m->win_len; i-- > 0;) {
        const struct crawlmeter_point *pt = &m->win[(m->win_first + i) % WINDOW_MAX];
        if (m->pages - pt->pages > m->lim.pprs_window)
            break;
        best = pt;
    }
    return best;
}

static void crawlmeter_progress(const struct crawlmeter *m, enum crawl_stop stop,
                                struct crawl_progress *pr)
{
    memset(pr, 0, sizeof *pr);
    pr->elapsed_s = monotime_s() - m->t0;
    pr->pages = m->pages;
    pr->examined = m->examined;
    pr->relevant = m->relevant;
    pr->border = m->border;
    pr->in_flight = m->in_flight;
    pr->robots_requests = m->robots_requests;
    pr->retries = m->retries;
    pr->harvest_rate = m->examined ? (double)m->relevant / m->examined : NAN;
    pr->pprs = m->relevant ? (double)m->pages / m->relevant : NAN;
    pr->harvest_window = pr->pprs_window = NAN;
    pr->stop = stop;
    const struct crawlmeter_point *w = window_start(m);
    if (w) {
        int64_t pages = m->pages - w->pages, ex = m->examined - w->examined,
                rel = m->relevant - w->relevant;
        pr->harvest_window = ex ? (double)rel / ex : NAN;
        pr->pprs_window = rel > 0 ? (double)pages / rel : pages ? INFINITY : NAN;
    }
}

void crawlmeter_report(const struct crawlmeter *m, enum crawl_stop stop, crawl_progress_fn fn,
                       void *ctx)
{
    if (!fn)
        return;
    struct crawl_progress pr;
    crawlmeter_progress(m, stop, &pr);
    fn(ctx, &pr);
}

enum crawl_stop crawlmeter_budget_stop(const struct crawlmeter *m)
{
    const struct crawlmeter_limits *l = &m->lim;
    if (l->max_relevant && m->relevant >= l->max_relevant)
        return CRAWL_MAX_RELEVANT;
    if (l->max_pages && m->pages + m->pages_unrecorded >= l->max_pages)
        return CRAWL_MAX_PAGES;
    if (l->max_seconds > 0 && monotime_s() - m->t0 >= l->max_seconds)
        return CRAWL_MAX_SECONDS;
    if (l->pprs_limit > 0 && l->pprs_window > 0 && m->pages >= l->pprs_window) {
        struct crawl_progress pr;
        crawlmeter_progress(m, CRAWL_RUNNING, &pr);
        if (!isnan(pr.pprs_window) && pr.pprs_window > l->pprs_limit)
            return CRAWL_PPRS;
    }
    return CRAWL_RUNNING;
}

int crawlmeter_row_due(const struct crawlmeter *m)
{
    return m->pages - m->written_pages >= CRAWLMETER_ROW_PAGES ||
           monotime_s() - m->written_t >= CRAWLMETER_ROW_MS / 1000.0;
}

enum err crawlmeter_write(struct crawlmeter *m, struct store *s, int64_t job)
{
    m->written_t = monotime_s();
    m->written_pages = m->pages;
    struct crawl_progress pr;
    crawlmeter_progress(m, CRAWL_RUNNING, &pr);
    struct crawlstore_metrics row = {pr.elapsed_s,    pr.pages,
                                     pr.examined,     pr.relevant,
                                     pr.harvest_rate, pr.harvest_window,
                                     pr.pprs,         isinf(pr.pprs_window) ? NAN : pr.pprs_window};
    return crawlstore_metrics_add(s, job, &row);
}

/* A stop or pause a user asked for in the job row (API, another process). */
static enum crawl_stop user_request(struct store *s, int64_t job)
{
    struct crawlstore_job j;
    if (crawlstore_job_get(s, job, &j) != ERR_OK)
        return CRAWL_RUNNING;
    enum crawl_stop st = strcmp(j.stop_requested, "stop") == 0    ? CRAWL_USER_STOP
                         : strcmp(j.stop_requested, "pause") == 0 ? CRAWL_USER_PAUSE
                                                                  : CRAWL_RUNNING;
    crawlstore_job_release(&j);
    return st;
}

enum crawl_stop crawlmeter_poll(const struct crawlmeter *m, struct store *s, int64_t job,
                                const struct joblease_keeper *lease, enum crawl_stop stop,
                                crawl_progress_fn fn, void *ctx)
{
    enum crawl_stop u = user_request(s, job);
    if (u != CRAWL_RUNNING)
        stop = u;
    if (joblease_keeper_lost(lease)) { /* the keeper renews it; here we only look */
        log_error("crawl: job %lld: another worker took it over: stopping without writing more",
                  (long long)job);
        stop = CRAWL_LEASE_LOST;
    }
    crawlmeter_report(m, stop, fn, ctx);
    return stop;
}
