/* The external crawler: border sites from PostgreSQL, examined by many internal crawlers. */
#include "crawler/extcrawl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "classifier/pagecls.h"
#include "classifier/sitecls.h"
#include "common/log.h"
#include "crawler/crawlrun.h"
#include "crawler/fetch.h"
#include "crawler/verdict.h"
#include "store/crawlstore.h"

/* One website being examined. */
struct slot {
    struct sitecrawl *sc;
    char *host, *homepage;
    double rank;
    uint32_t gen; /* tags results, so answers for an abandoned site are recognised */
};

struct ext {
    struct store *s;
    int64_t job;
    struct fetcher *f;
    const char *worker; /* on the claims */
    const struct pagecls *model;
    struct pagecls_scratch *scratch;
    const struct extcrawl_params *p;
    struct crawlmeter *m;
    struct slot *slots;
    int active;
    uint32_t gen;
    int border_empty;
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

static uint64_t slot_tag(const struct ext *x, const struct slot *sl)
{
    return (uint64_t)(sl - x->slots) << 32 | sl->gen;
}

/* Submit the site's next URL, or report that it is finished (1). */
static int slot_advance(struct ext *x, struct slot *sl, enum err *e)
{
    const char *url = sitecrawl_next(sl->sc);
    if (!url)
        return 1;
    *e = fetcher_submit(x->f, url, slot_tag(x, sl));
    return 0;
}

/* A website none of whose pages could be classified: recorded as failed. */
static enum err slot_unread(struct ext *x, struct slot *sl)
{
    /* A dead host, robots.txt says no, or an alias that redirects elsewhere (whose
     * target then inherits this site's rank). */
    size_t n_pages, n_edges;
    const struct sitecrawl_page *pages = sitecrawl_pages(sl->sc, &n_pages);
    const struct edge *edges = sitecrawl_edges(sl->sc, &n_edges);
    const char *why = n_pages ? fetch_status_name(pages[0].status) : "nothing to fetch";
    log_debug("extcrawl: %s not examined: %s", sl->host, why);
    if (n_edges)
        x->border_empty = 0; /* its redirect targets join the border: look again */
    return verdict_store_unread(x->s, x->job, sl->host, why, edges, n_edges, sl->rank);
}

/* A website the internal crawler judged: its verdict, pages and links stored. */
static enum err slot_judged(struct ext *x, struct slot *sl)
{
    struct sitecrawl *sc = sl->sc;
    size_t n_pages, n_edges;
    const struct sitecrawl_page *pages = sitecrawl_pages(sc, &n_pages);
    const struct edge *edges = sitecrawl_edges(sc, &n_edges);
    struct crawlstore_page *cp = calloc(n_pages ? n_pages : 1, sizeof *cp);
    if (!cp)
        return err_set(ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n_pages; i++)
        cp[i] = (struct crawlstore_page){pages[i].final_url, fetch_status_name(pages[i].status),
                                         pages[i].http_status, pages[i].bytes, pages[i].pr_target};
    struct verdict v = {
        .host = sl->host,
        .confidence = sitecrawl_confidence(sc),
        .relevant = sitecrawl_relevant(sc),
        .pages_to_decide = (int)sitecrawl_pages_to_decide(sc),
        .fetches = sitecrawl_fetches(sc),
        .purpose = "crawl",
        .pages = cp,
        .n_pages = n_pages,
        .edges = edges,
        .n_edges = n_edges,
    };
    enum err e = verdict_store(x->s, x->job, x->p->weights, &v);
    free(cp);
    if (e == ERR_CONFLICT) {
        log_warn("extcrawl: %s", err_msg()); /* examined by another worker meanwhile */
        return ERR_OK;
    }
    if (e)
        return e;
    x->m->pages += v.fetches;
    x->m->examined++;
    x->m->relevant += v.relevant;
    crawlmeter_mark(x->m);
    x->border_empty = 0; /* its links may have added to the border */
    log_debug("extcrawl: %s examined: confidence %.3f, %s, %d pages", sl->host, v.confidence,
              v.relevant ? "relevant" : "not relevant", v.fetches);
    return ERR_OK;
}

/* Store a finished website and free its slot. */
static enum err slot_finish(struct ext *x, struct slot *sl)
{
    size_t n_pages;
    const struct sitecrawl_page *pages = sitecrawl_pages(sl->sc, &n_pages);
    size_t classified = 0;
    for (size_t i = 0; i < n_pages; i++)
        classified += !isnan(pages[i].pr_target);
    enum err e = classified ? slot_judged(x, sl) : slot_unread(x, sl);
    slot_clear(sl);
    x->active--;
    return e;
}

/* Claim the best border site into a free slot and start its examination. */
static enum err slot_start(struct ext *x, struct slot *sl)
{
    enum err e = crawlstore_claim(x->s, x->job, x->worker, &sl->host, &sl->homepage, &sl->rank);
    if (e == ERR_NOTFOUND) {
        x->border_empty = 1;
        return ERR_OK;
    }
    if (e)
        return e;
    struct sitecrawl_params sp = x->p->site;
    sp.p_err = x->p->p_err;
    if (x->p->prior_harvest)
        sp.prior_target = sitecls_prior((unsigned)x->m->relevant, (unsigned)x->m->examined,
                                        x->p->site.prior_target, (unsigned)x->p->prior_sites);
    sl->gen = ++x->gen;
    e = sitecrawl_new(sl->homepage, &sp, x->model, x->scratch, &sl->sc);
    if (e) {
        log_warn("extcrawl: %s: %s", sl->host, err_msg());
        e = crawlstore_site_failed(x->s, x->job, sl->host, err_msg());
        slot_clear(sl);
        return e;
    }
    x->active++;
    if (slot_advance(x, sl, &e))
        e = slot_finish(x, sl);
    return e;
}

/* ---- the strategy hooks (crawler/crawlrun) ---- */

static enum err ext_start(void *arg, struct crawlmeter *m, const struct crawlstore_counts *c)
{
    struct ext *x = arg;
    (void)c;
    x->m = m;
    enum err e = pagecls_scratch_new(x->model, &x->scratch);
    if (!e && !(x->slots = calloc((size_t)x->p->concurrency, sizeof *x->slots)))
        e = err_set(ERR_NOMEM, "out of memory");
    return e;
}

static enum err ext_refill(void *arg, int *exhausted)
{
    struct ext *x = arg;
    enum err e = ERR_OK;
    for (int i = 0; !e && i < x->p->concurrency && !x->border_empty; i++)
        if (!x->slots[i].sc)
            e = slot_start(x, &x->slots[i]);
    *exhausted = x->border_empty;
    return e;
}

static enum err ext_feed(void *arg, struct fetch_result *res)
{
    struct ext *x = arg;
    size_t idx = (size_t)(res->tag >> 32);
    uint32_t gen = (uint32_t)res->tag;
    if (idx >= (size_t)x->p->concurrency || !x->slots[idx].sc || x->slots[idx].gen != gen)
        return ERR_OK; /* an answer for a site given up on */
    struct slot *sl = &x->slots[idx];
    enum err e = sitecrawl_feed(sl->sc, res);
    if (!e && slot_advance(x, sl, &e))
        e = slot_finish(x, sl);
    return e;
}

static int64_t ext_in_flight(void *arg)
{
    return ((struct ext *)arg)->active;
}

/* The sites being examined have downloaded pages too: the page budget counts them. */
static int64_t ext_unrecorded(void *arg)
{
    struct ext *x = arg;
    int64_t n = 0;
    for (int i = 0; i < x->p->concurrency; i++)
        if (x->slots[i].sc)
            n += sitecrawl_fetches(x->slots[i].sc);
    return n;
}

/* Sites still in flight (user stop, pause, error) go back to the border. */
static void ext_finish(void *arg)
{
    struct ext *x = arg;
    if (x->slots) {
        for (int i = 0; i < x->p->concurrency; i++)
            slot_clear(&x->slots[i]);
        if (crawlstore_unclaim(x->s, x->job, x->worker, NULL) != ERR_OK)
            log_warn("extcrawl: could not return claimed sites to the border: %s", err_msg());
    }
    free(x->slots);
    x->slots = NULL;
    pagecls_scratch_free(x->scratch);
    x->scratch = NULL;
}

static const struct crawl_strategy website_strategy = {
    .start = ext_start,
    .refill = ext_refill,
    .feed = ext_feed,
    .in_flight = ext_in_flight,
    .unrecorded_pages = ext_unrecorded,
    .finish = ext_finish,
};

enum err extcrawl_run(const struct crawlrun_config *c, const struct pagecls *model,
                      const struct extcrawl_params *p, enum crawl_stop *why)
{
    *why = CRAWL_RUNNING;
    if (p->concurrency < 1)
        return err_set(ERR_INVAL, "concurrency must be at least 1");
    struct ext x = {
        .s = c->s, .job = c->job, .f = c->f, .worker = c->worker, .model = model, .p = p};
    return crawlrun_run(c, &website_strategy, &x, why);
}
