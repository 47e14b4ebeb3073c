/* The external crawler: border sites from PostgreSQL, examined by many internal crawlers. */
#include "crawler/extcrawl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "classifier/pagecls.h"
#include "classifier/sitecls.h"
#include "common/log.h"
#include "crawler/crawlmeter.h"
#include "crawler/fetch.h"
#include "store/crawlstore.h"


#define POLL_MS 1000           /* how often the job row is checked for stop/pause */
#define DRAIN_MAX 32           /* results taken at once */

double extcrawl_edge_weight(enum extcrawl_weights mode, double site_confidence, double conf_sum,
                            int page_count)
{
    double local = page_count > 0 ? conf_sum / page_count : site_confidence;
    switch (mode) {
    case EXTCRAWL_GLOBAL: return site_confidence;
    case EXTCRAWL_LOCAL: return local;
    case EXTCRAWL_COMBINED: break;
    }
    return (local + site_confidence) / 2;
}

int extcrawl_weights_parse(const char *name)
{
    static const char *const names[] = {"global", "local", "combined"};
    for (int i = 0; i < 3; i++)
        if (name && strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

/* One website being examined. */
struct slot {
    struct sitecrawl *sc;
    char *host, *homepage;
    double rank;
    uint32_t gen; /* tags results, so answers for an abandoned site are recognised */
};

struct run {
    struct store *s;
    int64_t job;
    struct fetcher *f;
    const struct pagecls *model;
    struct pagecls_scratch *scratch;
    const struct extcrawl_params *p;
    struct slot *slots;
    int active;
    uint32_t gen;
    struct crawlmeter m;
    int border_empty;
    int site_done; /* a website was recorded since the last progress report */
};

static void slot_clear(struct slot *sl)
{
    sitecrawl_free(sl->sc);
    free(sl->host);
    free(sl->homepage);
    uint32_t gen = sl->gen;
    memset(sl, 0, sizeof *sl);
    sl->gen = gen;
}

static uint64_t slot_tag(const struct run *r, const struct slot *sl)
{
    return (uint64_t)(sl - r->slots) << 32 | sl->gen;
}

/* Submit the site's next URL, or report that it is finished (1). */
static int slot_advance(struct run *r, struct slot *sl, enum err *e)
{
    const char *url = sitecrawl_next(sl->sc);
    if (!url)
        return 1;
    *e = fetcher_submit(r->f, url, slot_tag(r, sl));
    return 0;
}

/* Store a finished website and free its slot. */
static enum err slot_finish(struct run *r, struct slot *sl)
{
    struct sitecrawl *sc = sl->sc;
    size_t n_pages, n_edges;
    const struct sitecrawl_page *pages = sitecrawl_pages(sc, &n_pages);
    const struct edge *edges = sitecrawl_edges(sc, &n_edges);
    size_t classified = 0;
    for (size_t i = 0; i < n_pages; i++)
        classified += !isnan(pages[i].pr_target);
    enum err e = ERR_OK;

    if (classified == 0) {
        /* Not a website we could read: a dead host, robots.txt says no, or an alias
         * that redirects elsewhere (whose target then inherits this site's rank). */
        const char *why = n_pages ? fetch_status_name(pages[0].status) : "nothing to fetch";
        for (size_t i = 0; !e && i < n_edges; i++)
            e = crawlstore_site_add(r->s, r->job, edges[i].host, edges[i].homepage, "discovered",
                                    "border", NAN, -1, sl->rank);
        if (!e)
            e = crawlstore_site_failed(r->s, r->job, sl->host, why);
        log_debug("extcrawl: %s not examined: %s", sl->host, why);
        slot_clear(sl);
        r->active--;
        return e;
    }

    double conf = sitecrawl_confidence(sc);
    struct crawlstore_page *cp = calloc(n_pages ? n_pages : 1, sizeof *cp);
    struct crawlstore_edge *ce = calloc(n_edges ? n_edges : 1, sizeof *ce);
    if (!cp || !ce) {
        free(cp);
        free(ce);
        return err_set(ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < n_pages; i++)
        cp[i] = (struct crawlstore_page){pages[i].final_url, fetch_status_name(pages[i].status),
                                         pages[i].http_status, pages[i].bytes,
                                         pages[i].pr_target};
    for (size_t i = 0; i < n_edges; i++)
        ce[i] = (struct crawlstore_edge){
            edges[i].host, edges[i].homepage, edges[i].conf_sum, edges[i].page_count,
            extcrawl_edge_weight(r->p->weights, conf, edges[i].conf_sum, edges[i].page_count)};
    struct crawlstore_site_result res = {
        .host = sl->host,
        .confidence = conf,
        .relevant = sitecrawl_relevant(sc),
        .pages_to_decide = (int)sitecrawl_pages_to_decide(sc),
        .fetches = sitecrawl_fetches(sc),
        .purpose = "crawl",
        .pages = cp,
        .n_pages = n_pages,
        .edges = ce,
        .n_edges = n_edges,
    };
    e = crawlstore_site_done(r->s, r->job, &res);
    if (e == ERR_CONFLICT) {
        log_warn("extcrawl: %s", err_msg()); /* examined by another worker meanwhile */
        e = ERR_OK;
    } else if (!e) {
        r->m.pages += res.fetches;
        r->m.examined++;
        r->m.relevant += res.relevant;
        crawlmeter_mark(&r->m);
        r->site_done = 1;
        r->border_empty = 0; /* its links may have added to the border */
        log_debug("extcrawl: %s examined: confidence %.3f, %s, %d pages", sl->host, conf,
                  res.relevant ? "relevant" : "not relevant", res.fetches);
    }
    free(cp);
    free(ce);
    slot_clear(sl);
    r->active--;
    return e;
}

/* Claim border sites into free slots. */
static enum err fill_slots(struct run *r)
{
    for (int i = 0; i < r->p->concurrency && !r->border_empty; i++) {
        struct slot *sl = &r->slots[i];
        if (sl->sc)
            continue;
        enum err e = crawlstore_claim(r->s, r->job, r->p->worker, &sl->host, &sl->homepage,
                                      &sl->rank);
        if (e == ERR_NOTFOUND) {
            r->border_empty = 1;
            return ERR_OK;
        }
        if (e)
            return e;
        struct sitecrawl_params sp = r->p->site;
        sp.p_err = r->p->p_err;
        if (r->p->prior_harvest)
            sp.prior_target = sitecls_prior((unsigned)r->m.relevant, (unsigned)r->m.examined,
                                            r->p->site.prior_target, (unsigned)r->p->prior_sites);
        sl->gen = ++r->gen;
        e = sitecrawl_new(sl->homepage, &sp, r->model, r->scratch, &sl->sc);
        if (e) {
            log_warn("extcrawl: %s: %s", sl->host, err_msg());
            e = crawlstore_site_failed(r->s, r->job, sl->host, err_msg());
            slot_clear(sl);
            if (e)
                return e;
            continue;
        }
        r->active++;
        if (slot_advance(r, sl, &e)) {
            e = slot_finish(r, sl);
        }
        if (e)
            return e;
    }
    return ERR_OK;
}

static enum err handle_result(struct run *r, struct fetch_result *res)
{
    size_t idx = (size_t)(res->tag >> 32);
    uint32_t gen = (uint32_t)res->tag;
    if (idx >= (size_t)r->p->concurrency || !r->slots[idx].sc || r->slots[idx].gen != gen)
        return ERR_OK; /* an answer for a site given up on */
    struct slot *sl = &r->slots[idx];
    enum err e = sitecrawl_feed(sl->sc, res);
    if (e)
        return e;
    if (slot_advance(r, sl, &e))
        e = slot_finish(r, sl);
    return e;
}

static void report(struct run *r, enum crawl_stop stop, crawl_progress_fn progress,
                   void *ctx)
{
    r->m.in_flight = r->active;
    crawlmeter_report(&r->m, stop, progress, ctx);
}

enum err extcrawl_run(struct store *s, int64_t job, struct fetcher *f, const struct pagecls *model,
                      const struct extcrawl_params *p, crawl_progress_fn progress, void *ctx,
                      enum crawl_stop *why)
{
    *why = CRAWL_RUNNING;
    if (p->concurrency < 1)
        return err_set(ERR_INVAL, "concurrency must be at least 1");
    struct run r = {.s = s, .job = job, .f = f, .model = model, .p = p};
    struct crawlstore_counts c;
    enum err e = crawlstore_counts(s, job, &c);
    if (e)
        return e;
    struct crawlmeter_limits lim = {p->max_pages, p->max_relevant, p->max_seconds, p->pprs_window,
                                    p->pprs_limit};
    e = crawlmeter_init(&r.m, &lim, c.pages, c.examined, c.relevant);
    if (e)
        return e;
    r.m.border = c.border;
    e = pagecls_scratch_new(model, &r.scratch);
    if (e)
        goto out;
    r.slots = calloc((size_t)p->concurrency, sizeof *r.slots);
    if (!r.slots) {
        e = err_set(ERR_NOMEM, "out of memory");
        goto out;
    }

    double next_poll = 0;
    enum crawl_stop stop = CRAWL_RUNNING;
    for (;;) {
        if (stop == CRAWL_RUNNING) {
            /* The sites being examined have downloaded pages too: count them, so that
             * the page budget stops new claims in time (they are finished still). */
            r.m.pages_unrecorded = 0;
            for (int i = 0; i < p->concurrency; i++)
                if (r.slots[i].sc)
                    r.m.pages_unrecorded += sitecrawl_fetches(r.slots[i].sc);
            stop = crawlmeter_budget_stop(&r.m);
        }
        if (stop == CRAWL_RUNNING) {
            e = fill_slots(&r);
            if (e)
                goto out;
            if (r.active == 0 && r.border_empty)
                stop = CRAWL_BORDER_EMPTY;
        }
        /* A user stop or pause abandons the sites in flight (they go back to the
         * border); a budget lets them finish, so no verdict is cut short. */
        if (stop == CRAWL_USER_STOP || stop == CRAWL_USER_PAUSE || r.active == 0) {
            if (stop != CRAWL_RUNNING)
                break;
        }
        struct fetch_result *res = NULL;
        if (r.active > 0 && fetcher_next(f, 200, &res) == ERR_OK) {
            e = handle_result(&r, res);
            fetch_result_free(res);
            if (e)
                goto out;
            /* More results may be waiting: take a batch before polling the database (a
             * bounded one, so that metrics rows keep their pace on a fast web). */
            for (int i = 0; i < DRAIN_MAX && fetcher_next(f, 0, &res) == ERR_OK; i++) {
                e = handle_result(&r, res);
                fetch_result_free(res);
                if (e)
                    goto out;
            }
        }
        double t = crawlmeter_clock();
        if (r.site_done && t < next_poll) /* between the polls too: short crawls draw a curve */
            report(&r, stop, progress, ctx);
        r.site_done = 0;
        if (t >= next_poll) {
            next_poll = t + POLL_MS / 1000.0;
            if (crawlstore_counts(s, job, &c) == ERR_OK)
                r.m.border = c.border;
            r.m.in_flight = r.active;
            stop = crawlmeter_poll(&r.m, s, job, p->worker, stop, progress, ctx);
        }
        if (crawlmeter_row_due(&r.m)) {
            if (crawlmeter_write(&r.m, s, job) != ERR_OK)
                log_warn("extcrawl: metrics: %s", err_msg());
        }
    }
    *why = stop;
    e = crawlmeter_write(&r.m, s, job);
    report(&r, stop, progress, ctx);
out:
    /* Sites still in flight (user stop, pause, error) go back to the border. */
    if (r.slots) {
        for (int i = 0; i < p->concurrency; i++)
            slot_clear(&r.slots[i]);
        if (crawlstore_unclaim(s, job, p->worker, NULL) != ERR_OK)
            log_warn("extcrawl: could not return claimed sites to the border: %s", err_msg());
    }
    free(r.slots);
    crawlmeter_release(&r.m);
    pagecls_scratch_free(r.scratch);
    return e;
}
