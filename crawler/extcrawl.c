/* The external crawler: border sites from PostgreSQL, examined by many internal crawlers. */
#include "crawler/extcrawl.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "classifier/pagecls.h"
#include "classifier/sitecls.h"
#include "common/log.h"
#include "common/monotime.h"
#include "common/strmap.h"
#include "crawler/crawlrun.h"
#include "crawler/deepen.h"
#include "crawler/noanswer.h"
#include "crawler/fetch.h"
#include "crawler/verdict.h"
#include "store/crawlstore.h"
#include "store/jobteam.h"
#include "store/sitewriter.h"
#include "store/store.h"

/* One website being examined. */
struct slot {
    struct sitecrawl *sc;
    char *host, *homepage;
    double rank;
    uint32_t gen; /* tags results, so answers for an abandoned site are recognised */
    int waiting;  /* a fetch of it is out: one page the budget has promised */
    /* A second, deeper read of a relevant website (crawler/deepen.h): what the store
     * holds of it already. */
    int deepening;
    size_t pages_stored, edges_stored;
    int fetches_stored;
};

struct ext {
    struct store *s;
    struct sitewriter *w; /* the verdicts' writes, off this thread */
    int64_t job;
    struct fetcher *f;
    const char *worker; /* on the claims */
    int helper;         /* helps the job's lead (crawlrun_config.helper) */
    const struct pagecls *model;
    struct pagecls_scratch *scratch;
    const struct extcrawl_params *p;
    struct crawlmeter *m;
    struct slot *slots;
    int active;
    uint32_t gen;
    int border_empty;
    uint64_t empty_poll; /* the crawl's poll when the border was found empty */
    /* Websites claimed and not started yet, best first: a claim takes as many as there
     * are free slots the budget can pay for, in one round trip; those a refill did not
     * start wait for the next one, or go back to the border when this runner is blocked
     * (a claimed website makes others wait). */
    struct crawlstore_claimed claimed[CRAWLSTORE_CLAIM_MAX];
    int n_claimed, next_claimed;
    struct strmap known; /* linkrank_links=new: every website the job knows */
    struct deepen kept;  /* relevant websites with pages left, for a deeper read */
    int deepen_turn;     /* alternates deeper reads with claims while the border is low */
    /* The share of the job's page budget this runner holds (store/jobteam.h): pages it
     * was granted and pages it recorded in this run; the difference is its allowance. */
    int64_t granted, recorded;
    uint64_t grant_poll; /* the poll of the last grant ... */
    double grant_at;     /* ... and when */
    struct noanswer na;  /* is the web there? (crawler/noanswer.h) */
    /* The claims checked (claims_check): at these reconnects of the crawl's and the
     * writer's connections, and at this poll while idle. */
    int reconnects_seen;
    uint64_t idle_check_poll;
};

/* LinkRank's question (crawler/sitecrawl.h): does the job know this website already? */
static int host_known(void *ctx, const char *host)
{
    const struct ext *x = ctx;
    return strmap_get(&x->known, host, strlen(host)) != NULL;
}

/* The destinations of a stored website's links are known from now on. */
static enum err know_edges(struct ext *x, const struct edge *edges, size_t n)
{
    enum err e = ERR_OK;
    if (!x->p->new_links_only)
        return ERR_OK;
    for (size_t i = 0; !e && i < n; i++)
        e = strmap_put(&x->known, edges[i].host, strlen(edges[i].host), (void *)1);
    return e;
}

/*
 * The hard page budget (issue 13). A website is claimed only when the budget can pay
 * for the pages it may need (decide_cap) beyond what the websites in flight may still
 * need (slot_need); so no website is ever cut short undecided. A website whose verdict
 * is final goes on gathering links (LinkRank) only with pages nobody else may need; when
 * there are none, it is stored.
 */
static int64_t slot_committed(const struct slot *sl)
{
    return sitecrawl_fetches(sl->sc) - sl->fetches_stored + sl->waiting;
}

/* sitecrawl_claim_pages, never more than the whole budget (a budget below it still
 * examines websites, one at a time, and one cut short goes back to the border). */
static int64_t decide_cap(const struct ext *x)
{
    int64_t cap = sitecrawl_claim_pages(&x->p->site), max = x->m->lim.max_pages;
    return max > 0 && max < cap ? max : cap;
}

/* sitecrawl_pages_needed less the page on its way (a website read deeper, the only one
 * with fetches stored, has a final verdict). */
static int64_t slot_need(const struct slot *sl, int64_t cap)
{
    int64_t need = sitecrawl_pages_needed(sl->sc, (int)cap) - sl->waiting;
    return need > 0 ? need : 0;
}

/*
 * Pages the budget can pay for beyond those downloaded or on their way, and beyond
 * what the websites in flight may still need (slot_need); INT64_MAX without a budget.
 * The budget is this runner's allowance: alone, all the job's budget has left.
 */
static int64_t pages_spare(const struct ext *x)
{
    if (!x->m->lim.max_pages)
        return INT64_MAX;
    int64_t spare = x->granted - x->recorded, cap = decide_cap(x);
    for (int i = 0; i < x->p->concurrency; i++) {
        const struct slot *sl = &x->slots[i];
        if (sl->sc)
            spare -= slot_committed(sl) + slot_need(sl, cap);
    }
    return spare;
}

/* Pages this runner recorded: in the job's counters and out of its allowance. */
static void count_pages(struct ext *x, int64_t n)
{
    x->m->pages += n;
    x->recorded += n;
}

/*
 * The allowance, renewed once a poll and, when it cannot pay for another website, at
 * most every GRANT_S (at once when nothing is in flight); how much it holds is
 * jobteam_share's rule. A lead alone holds all that the job's budget has left, so one
 * process crawls exactly as before there were helpers. A helper (even one that sees no
 * lead: a new lead must find pages to refill with, issue 29), or a lead beside others or
 * before its first poll, holds what its websites in flight may need plus a few websites'
 * worth, and gives the rest back; with nothing in flight and nothing it can start (the
 * border empty, or less than a website's worth left) it holds nothing, so that the
 * lead, deciding whether the budget is spent, never waits for pages nobody can use.
 */
#define GRANT_S 0.05
static enum err renew_allowance(struct ext *x)
{
    int64_t max = x->m->lim.max_pages, cap = decide_cap(x);
    double t = monotime_s();
    int idle = x->active == 0;
    int short_of_pages = pages_spare(x) < cap;
    if (!max ||
        (x->m->polls == x->grant_poll && !(short_of_pages && (idle || t >= x->grant_at + GRANT_S))))
        return ERR_OK;
    x->grant_poll = x->m->polls;
    x->grant_at = t;
    int64_t held = x->granted - x->recorded, keep, more;
    struct jobteam_need need = {
        .role = x->helper ? JOBTEAM_HELPER : JOBTEAM_LEAD,
        .polled = x->m->polls > 0,
        .others = x->m->team,
        .nothing_to_start = idle && x->border_empty && !deepen_count(&x->kept),
        .concurrency = x->p->concurrency,
        .max_pages = max,
        .held = held,
        .committed = held - pages_spare(x),
        .site_pages = cap,
        .left = max - x->m->pages, /* the job's pages beside others (crawlrun's team counts) */
    };
    int shared = !jobteam_share(&need, &keep, &more);
    if (held == 0 && keep == 0 && more == 0)
        return ERR_OK; /* holds nothing and wants nothing */
    int64_t got;
    /* The store counts the job's pages from the verdicts written: all of ours first. */
    enum err e = sitewriter_flush(x->w);
    if (!e)
        e = jobteam_allow(x->s, x->job, x->worker, max, keep, more, &got);
    if (!e && shared && idle && keep + got > 0 && keep + got < cap) {
        keep = 0; /* not a website's worth: for others to use, or for nobody */
        e = jobteam_allow(x->s, x->job, x->worker, max, 0, 0, &got);
    }
    if (!e)
        x->granted = x->recorded + keep + got;
    return e;
}

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

/*
 * LinkRank's threshold for the next website (paper §4.3.4: go on reading a website
 * until it has given enough links). How many links are enough depends on how much
 * border is left: while the border holds BORDER_LOW_WATER websites per website in
 * flight, l_threshold; below, it grows as the border shrinks, so that a border running
 * dry is fed by every relevant website examined (without this, a calibrated crawl of
 * dev-large emptied its border after 10-20k pages). An irrelevant website's LinkRank
 * (divided by its small confidence) still ends its examination at once. 8 was chosen
 * on sci.space and rec.motorcycles (BENCHMARKS.md): a higher mark finds more by 30k
 * pages and fewer by 10k. linkrank_fixed: the paper's l_threshold throughout.
 */
#define BORDER_LOW_WATER 8
/* How long the site writer's connection may take (the crawl's own is up already). */
#define WRITER_CONNECT_MS 10000
static double link_threshold(const struct ext *x)
{
    double l = x->p->site.l_threshold, low = (double)BORDER_LOW_WATER * x->p->concurrency;
    if (l <= 0 || x->p->linkrank_fixed || (double)x->m->border >= low)
        return l;
    return l * low / (double)(x->m->border > 1 ? x->m->border : 1);
}

enum advance { ADVANCE_SUBMITTED, ADVANCE_DONE, ADVANCE_OVER_BUDGET };

/* Submit the site's next URL, or say why not: it is finished, or the budget is spent. */
static enum advance slot_advance(struct ext *x, struct slot *sl, enum err *e)
{
    const char *url = sitecrawl_next(sl->sc);
    if (!url)
        return ADVANCE_DONE;
    /* Its own need is part of the reserve (spare >= 0 then, barring a resumed job over
     * its budget); else it may only take a spare page. */
    int final = sitecrawl_verdict_final(sl->sc), needs = !final || slot_need(sl, decide_cap(x));
    int64_t spare = pages_spare(x);
    if (needs ? spare < 0 : spare <= 0)
        return final ? ADVANCE_DONE : ADVANCE_OVER_BUDGET;
    *e = crawlmeter_request(x->m); /* counted before it is made: a kill loses no count */
    if (!*e)
        *e = fetcher_submit(x->f, url, slot_tag(x, sl));
    sl->waiting = !*e;
    return ADVANCE_SUBMITTED;
}

/* A website none of whose pages could be classified (a dead host, robots.txt says no, an
 * alias that redirects elsewhere, whose target inherits its rank): recorded as failed. */
static enum err slot_unread(struct ext *x, struct slot *sl)
{
    size_t n_pages, n_edges;
    const struct sitecrawl_page *pages = sitecrawl_pages(sl->sc, &n_pages);
    const struct edge *edges = sitecrawl_edges(sl->sc, &n_edges);
    const char *why = n_pages ? fetch_status_name(pages[0].status) : "nothing to fetch";
    if (n_pages && pages[0].status == FETCH_OK && sitecrawl_unreadable(sl->sc))
        why = sitecrawl_unreadable(sl->sc); /* answered, but not as HTML we could read */
    log_debug("extcrawl: %s not examined: %s", sl->host, why);
    /* A robots.txt that could not be fetched disallows its host (RFC 9309): its pages
     * come back as robots refusals, which count here too while nothing has answered. */
    enum fetch_status first = n_pages ? pages[0].status : FETCH_OK;
    if (!noanswer_answered(&x->na) && n_pages &&
        (fetch_status_unreached(first) || first == FETCH_ROBOTS)) {
        noanswer_unreached(&x->na, sl->host, why);
        /* Back to the border, uncounted: nothing was downloaded (the job's requests
         * count the tries), and the website is examined again later. */
        log_debug("extcrawl: %s put back on the border: %s", sl->host, why);
        enum err e = sitewriter_abandon(x->w, sl->host, 0);
        if (!e)
            crawlmeter_mark(x->m);
        return e;
    }
    if (n_edges)
        x->border_empty = 0; /* its redirect targets join the border: look again */
    int fetches = sitecrawl_fetches(sl->sc);
    enum err e =
        verdict_queue_unread(x->s, x->w, x->job, sl->host, why, fetches, edges, n_edges, sl->rank);
    if (!e)
        e = know_edges(x, edges, n_edges);
    if (!e) {
        count_pages(x, fetches);
        crawlmeter_mark(x->m);
    }
    return e;
}

/*
 * Why reading sl's website stopped: the internal crawler's reason when it was done,
 * else `cut` (the crawl cut it short: "job_max_pages" or "job_stopped").
 */
static const char *read_stop(const struct slot *sl, const char *cut)
{
    enum sitecrawl_stop why = sitecrawl_stop(sl->sc);
    return why == SITECRAWL_READING ? cut : sitecrawl_stop_name(why);
}

/* The pages of an examination from `from` on, as the store takes them (*out malloc'd). */
static enum err store_pages(const struct sitecrawl *sc, size_t from, struct crawlstore_page **out,
                            size_t *n)
{
    size_t n_pages;
    const struct sitecrawl_page *pages = sitecrawl_pages(sc, &n_pages);
    *n = n_pages - from;
    *out = calloc(*n ? *n : 1, sizeof **out);
    if (!*out)
        return err_set(ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < *n; i++) {
        const struct sitecrawl_page *pg = &pages[from + i];
        (*out)[i] = (struct crawlstore_page){pg->final_url,   fetch_status_name(pg->status),
                                             pg->http_status, pg->bytes,
                                             pg->pr_target,   pg->posterior,
                                             pg->terms};
    }
    return ERR_OK;
}

/* A website the internal crawler judged: its verdict, pages and links stored. */
static enum err slot_judged(struct ext *x, struct slot *sl, const char *cut)
{
    struct sitecrawl *sc = sl->sc;
    size_t n_pages, n_edges;
    const struct edge *edges = sitecrawl_edges(sc, &n_edges);
    struct crawlstore_page *cp;
    enum err e = store_pages(sc, 0, &cp, &n_pages);
    if (e)
        return e;
    struct verdict v = {
        .host = sl->host,
        .confidence = sitecrawl_confidence(sc),
        .relevant = sitecrawl_relevant(sc),
        .pages_to_decide = (int)sitecrawl_pages_to_decide(sc),
        .fetches = sitecrawl_fetches(sc),
        .purpose = "crawl",
        .prior = sitecrawl_prior(sc),
        .verdict_by = sitecrawl_verdict_by(sc),
        .read_stop = read_stop(sl, cut),
        .pages = cp,
        .n_pages = n_pages,
        .edges = edges,
        .n_edges = n_edges,
    };
    if (x->p->site.model_conf) {
        size_t n_read;
        const struct sitecrawl_page *read = sitecrawl_pages(sc, &n_read);
        v.link_set = x->p->site.model_conf(x->p->site.model_conf_ctx, read, n_read,
                                           &v.link_confidence, &v.model_id, &v.like_rejected);
    }
    if (v.link_set && v.model_id) /* the last judging's model gives the verdict */
        verdict_by_model(&v);
    e = verdict_queue(x->w, x->p->weights, &v);
    free(cp);
    if (e)
        return e;
    if ((e = know_edges(x, edges, n_edges)))
        return e;
    if (v.relevant && sitecrawl_can_deepen(sc)) {
        struct deepen_site kept = {sc, sl->host, v.confidence, n_pages, n_edges, v.fetches};
        sl->sc = NULL, sl->host = NULL; /* the list's now */
        if ((e = deepen_keep(&x->kept, &kept)))
            return e;
    }
    count_pages(x, v.fetches);
    x->m->examined++;
    x->m->relevant += v.relevant;
    crawlmeter_mark(x->m);
    x->border_empty = 0; /* its links may have added to the border */
    log_debug("extcrawl: %s examined: confidence %.3f, %s, %d pages", sl->host, v.confidence,
              v.relevant ? "relevant" : "not relevant", v.fetches);
    return ERR_OK;
}

/* The end of a deeper read: what it added stored, the verdict as it was. */
static enum err slot_deepened(struct ext *x, struct slot *sl, const char *cut)
{
    struct sitecrawl *sc = sl->sc;
    size_t n_new, n_edges;
    const struct edge *edges = sitecrawl_edges(sc, &n_edges);
    struct crawlstore_page *cp;
    enum err e = store_pages(sc, sl->pages_stored, &cp, &n_new);
    if (e)
        return e;
    size_t n_pages = sl->pages_stored + n_new;
    struct verdict v = {
        .host = sl->host,
        .confidence = sitecrawl_confidence(sc),
        .relevant = 1, /* only relevant websites are read deeper */
        .fetches = sitecrawl_fetches(sc) - sl->fetches_stored,
        .purpose = "crawl",
        .read_stop = read_stop(sl, cut),
        .pages = cp,
        .n_pages = n_new,
        .edges = edges + sl->edges_stored,
        .n_edges = n_edges - sl->edges_stored,
        .fetches_before = sl->fetches_stored,
    };
    e = verdict_queue_more(x->w, x->p->weights, &v);
    free(cp);
    if (!e)
        e = know_edges(x, v.edges, v.n_edges);
    if (e)
        return e;
    count_pages(x, v.fetches);
    crawlmeter_mark(x->m);
    x->border_empty = 0; /* its links may have added to the border */
    log_debug("extcrawl: %s read deeper: %d more pages, %zu new websites linked", sl->host,
              v.fetches, v.n_edges);
    if (sitecrawl_can_deepen(sc)) { /* pages left: again, should the border run low again */
        struct deepen_site kept = {sc,      sl->host, v.confidence,
                                   n_pages, n_edges,  sitecrawl_fetches(sc)};
        sl->sc = NULL, sl->host = NULL; /* the list's now */
        e = deepen_keep(&x->kept, &kept);
    }
    return e;
}

/* A website the budget cannot finish: back on the border, its fetches counted. */
static enum err slot_abandon(struct ext *x, struct slot *sl)
{
    int fetches = sitecrawl_fetches(sl->sc);
    log_debug("extcrawl: %s put back on the border", sl->host);
    enum err e = sitewriter_abandon(x->w, sl->host, fetches);
    if (!e) {
        count_pages(x, fetches);
        crawlmeter_mark(x->m);
    }
    return e;
}

/* Store a finished website (or put it back, over budget) and free its slot. */
static enum err slot_finish(struct ext *x, struct slot *sl, enum advance how)
{
    size_t n_pages;
    const struct sitecrawl_page *pages = sitecrawl_pages(sl->sc, &n_pages);
    size_t classified = 0;
    for (size_t i = 0; i < n_pages; i++)
        classified += !isnan(pages[i].pr_target);
    /* Stopped before the internal crawler was done: no pages for its links to spare. */
    enum err e = sl->deepening                ? slot_deepened(x, sl, "job_max_pages")
                 : how == ADVANCE_OVER_BUDGET ? slot_abandon(x, sl)
                 : classified                 ? slot_judged(x, sl, "job_max_pages")
                                              : slot_unread(x, sl);
    slot_clear(sl);
    x->active--;
    return e;
}

/* Advance a site after a result or at its start; finish it when it will not go on. */
static enum err slot_step(struct ext *x, struct slot *sl)
{
    enum err e = ERR_OK;
    enum advance how = slot_advance(x, sl, &e);
    return how == ADVANCE_SUBMITTED ? e : slot_finish(x, sl, how);
}

/* Read deeper into the most confident relevant website kept. */
static enum err slot_resume(struct ext *x, struct slot *sl)
{
    struct deepen_site d;
    if (!deepen_take(&x->kept, &d))
        return ERR_OK;
    sl->sc = d.sc;
    sl->host = d.host;
    sl->gen = ++x->gen;
    sl->deepening = 1;
    sl->pages_stored = d.pages_stored;
    sl->edges_stored = d.edges_stored;
    sl->fetches_stored = d.fetches_stored;
    sitecrawl_deepen(sl->sc, link_threshold(x));
    x->active++;
    return slot_step(x, sl);
}

/* How many websites the next claim takes: the free slots the budget can pay for. (A
 * refill may give some of the slots to deeper reads: what it did not start waits for
 * the next refill. Claiming one at a time while deeper reads wait made 40% more
 * statements than giving those back at the end of each refill did.) */
static int claim_batch(const struct ext *x)
{
    int64_t free_slots = 0, cap = decide_cap(x), spare = pages_spare(x);
    for (int i = 0; i < x->p->concurrency; i++)
        free_slots += !x->slots[i].sc;
    int64_t n = cap > 0 && spare / cap < free_slots ? spare / cap : free_slots;
    return n < 1 ? 1 : n > CRAWLSTORE_CLAIM_MAX ? CRAWLSTORE_CLAIM_MAX : (int)n;
}

/* The best website claimed and not started yet into sl (ERR_NOTFOUND: the border is
 * empty), claiming more first when none is left. */
static enum err next_claimed(struct ext *x, struct slot *sl)
{
    if (x->next_claimed == x->n_claimed) {
        x->n_claimed = x->next_claimed = 0;
        enum err e = crawlstore_claim_many(x->s, x->job, x->worker, claim_batch(x), x->claimed,
                                           &x->n_claimed);
        if (!e && !x->n_claimed && sitewriter_pending(x->w)) { /* their links may fill it */
            if (!(e = sitewriter_flush(x->w)))
                e = crawlstore_claim_many(x->s, x->job, x->worker, claim_batch(x), x->claimed,
                                          &x->n_claimed);
        }
        if (e)
            return e;
        if (!x->n_claimed)
            return ERR_NOTFOUND;
    }
    struct crawlstore_claimed *c = &x->claimed[x->next_claimed++];
    sl->host = c->host;
    sl->homepage = c->homepage;
    sl->rank = c->rank;
    c->host = c->homepage = NULL; /* the slot's now */
    return ERR_OK;
}

/* The websites claimed and not started: back to the border through the writer
 * (give_back), or only forgotten (the store's claims stay, for crawlstore_unclaim or the
 * job's next runner). */
static enum err claimed_drop(struct ext *x, int give_back)
{
    enum err e = ERR_OK;
    for (int i = x->next_claimed; i < x->n_claimed; i++) {
        if (give_back && !e)
            e = sitewriter_abandon(x->w, x->claimed[i].host, 0);
        crawlstore_claimed_release(&x->claimed[i]);
    }
    x->n_claimed = x->next_claimed = 0;
    return e;
}

static int reconnects(const struct ext *x)
{
    return store_reconnects(x->s) + sitewriter_reconnects(x->w);
}

/*
 * No claim outlives this runner's knowledge of it. After a lost connection (a database
 * crash), or while it is idle, the websites claimed in its name are only those it holds:
 * being examined here, claimed and not started, or written and not yet stored (the
 * writer is flushed first). Any other was lost track of and goes back to the border: a
 * claim sent again after its first answer was lost, or a website whose examination a
 * crash lost after it was acknowledged (synchronous_commit = off), which would otherwise
 * stay claimed, never judged, and keep the job's lead waiting for ever.
 */
static enum err claims_check(struct ext *x)
{
    enum err e = sitewriter_flush(x->w);
    const char **held = NULL;
    size_t n = 0;
    if (!e && !(held = calloc((size_t)x->p->concurrency + CRAWLSTORE_CLAIM_MAX, sizeof *held)))
        e = err_set(ERR_NOMEM, "out of memory");
    for (int i = 0; !e && i < x->p->concurrency; i++)
        if (x->slots[i].sc && !x->slots[i].deepening)
            held[n++] = x->slots[i].host;
    for (int i = x->next_claimed; !e && i < x->n_claimed; i++)
        held[n++] = x->claimed[i].host;
    int back = 0;
    if (!e)
        e = crawlstore_unclaim_lost(x->s, x->job, x->worker, held, n, &back);
    free(held);
    if (e)
        return e;
    x->reconnects_seen = reconnects(x);
    if (back) {
        log_warn("extcrawl: %d websites claimed by this runner and lost track of (a database "
                 "crash?) went back to the border",
                 back);
        x->border_empty = 0;
    }
    return ERR_OK;
}

/* Claim the best border site into a free slot and start its examination. */
static enum err slot_start(struct ext *x, struct slot *sl)
{
    enum err e = next_claimed(x, sl);
    if (e == ERR_NOTFOUND) {
        x->border_empty = 1;
        x->empty_poll = x->m->polls;
        return ERR_OK;
    }
    if (e)
        return e;
    struct sitecrawl_params sp = x->p->site;
    sp.p_err = x->p->p_err;
    sp.l_threshold = link_threshold(x);
    if (x->p->new_links_only) {
        sp.host_known = host_known;
        sp.host_known_ctx = x;
    }
    if (x->p->prior_harvest)
        sp.prior_target = sitecls_prior((unsigned)x->m->relevant, (unsigned)x->m->examined,
                                        x->p->site.prior_target, (unsigned)x->p->prior_sites);
    sl->gen = ++x->gen;
    e = sitecrawl_new(sl->homepage, &sp, x->model, x->scratch, &sl->sc);
    if (e) {
        log_warn("extcrawl: %s: %s", sl->host, err_msg());
        e = sitewriter_failed(x->w, sl->host, err_msg(), 0);
        slot_clear(sl);
        return e;
    }
    x->active++;
    return slot_step(x, sl);
}

/*
 * Should the next free slot read deeper into a kept website rather than claim a new
 * one? Only while the border is low (as link_threshold has it) or empty, and then
 * every other time, so that the websites the deeper reads find are examined too.
 */
static int deepen_now(struct ext *x)
{
    if (!deepen_count(&x->kept))
        return 0;
    if (x->border_empty)
        return 1;
    if ((double)x->m->border >= (double)BORDER_LOW_WATER * x->p->concurrency)
        return 0;
    return x->deepen_turn ^= 1;
}

/* ---- the strategy hooks (crawler/crawlrun) ---- */

static enum err ext_start(void *arg, struct crawlmeter *m, const struct crawlstore_counts *c)
{
    struct ext *x = arg;
    (void)c;
    x->m = m;
    /* Its claims and the redirect targets it adds are what its verdicts, committed
     * synchronously (store/sitewrite.c), update: a crash must not take them either (a
     * verdict for a website whose row was lost is refused, and the website lost). */
    enum err e = store_sync_commit(x->s);
    if (!e)
        e = sitewriter_start(store_url(x->s), WRITER_CONNECT_MS, x->job, x->worker, &x->w);
    if (!e)
        e = pagecls_scratch_new(x->model, &x->scratch);
    struct crawlstore_site_row *rows = NULL;
    size_t n = 0;
    if (!e && x->p->new_links_only) /* the websites known before this run */
        e = crawlstore_sites_list(x->s, x->job, &rows, &n);
    for (size_t i = 0; !e && i < n; i++)
        e = strmap_put(&x->known, rows[i].host, strlen(rows[i].host), (void *)1);
    crawlstore_site_rows_free(rows, n);
    if (!e && !(x->slots = calloc((size_t)x->p->concurrency, sizeof *x->slots)))
        e = err_set(ERR_NOMEM, "out of memory");
    if (!e) {
        x->reconnects_seen = reconnects(x);
        x->idle_check_poll = UINT64_MAX;
    }
    return e;
}

static enum err ext_refill(void *arg, enum crawl_stop *blocked)
{
    struct ext *x = arg;
    enum err e = reconnects(x) != x->reconnects_seen ? claims_check(x) : ERR_OK;
    /* In doubt, start no more and wait for those in flight (dead links fail at once, live
     * websites take longer to answer); if none of them answers either, the network or the
     * proxy is down. */
    int doubt = noanswer_doubt(&x->na);
    if (!e && doubt && x->active == 0)
        e = noanswer_fail(&x->na);
    if (!e)
        e = renew_allowance(x);
    int affordable = 1;
    /* Found empty, the border may have grown since (other runners of a shared job, a
     * runner gone whose websites came back): the poll after says so. */
    if (x->border_empty && x->m->polls != x->empty_poll && x->m->border > 0)
        x->border_empty = 0;
    for (int i = 0; !e && !doubt && i < x->p->concurrency && affordable; i++) {
        struct slot *sl = &x->slots[i];
        if (sl->sc)
            continue;
        if (deepen_now(x)) /* a deeper read only takes pages nobody else may need */
            e = (affordable = pages_spare(x) > 0) ? slot_resume(x, sl) : ERR_OK;
        else if (x->border_empty)
            break;
        else if ((affordable = pages_spare(x) >= decide_cap(x)))
            e = slot_start(x, sl);
    }
    if (x->border_empty && !deepen_count(&x->kept))
        *blocked = CRAWL_BORDER_EMPTY;
    else if (!affordable)
        *blocked = CRAWL_MAX_PAGES;
    /* Claimed and not started (the slots went to deeper reads, or the budget cannot pay
     * for them now): kept for the next refill, unless this runner cannot start them
     * soon; a claimed website makes a shared job's lead wait. */
    if (!e && *blocked != CRAWL_RUNNING)
        e = claimed_drop(x, 1);
    /* Nothing to do: once a poll, no claim of this runner's may be left (claims_check). */
    if (!e && *blocked != CRAWL_RUNNING && x->active == 0 && x->idle_check_poll != x->m->polls) {
        x->idle_check_poll = x->m->polls;
        e = claims_check(x);
    }
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
    sl->waiting = 0;
    if (!fetch_status_unreached(res->status) && fetch_status_downloaded(res->status))
        noanswer_heard(&x->na);
    enum err e = sitecrawl_feed(sl->sc, res);
    return e ? e : slot_step(x, sl);
}

static int64_t ext_in_flight(void *arg)
{
    return ((struct ext *)arg)->active;
}

/* The sites being examined have downloaded pages (or have one on its way) too: the
 * page budget counts them. */
static int64_t ext_unrecorded(void *arg)
{
    struct ext *x = arg;
    int64_t n = 0;
    for (int i = 0; x->slots && i < x->p->concurrency; i++)
        if (x->slots[i].sc)
            n += slot_committed(&x->slots[i]);
    return n;
}

/* The verdicts queued are written (crawlrun: before a metrics row counts them). */
static enum err ext_flush(void *arg)
{
    struct ext *x = arg;
    return x->w ? sitewriter_flush(x->w) : ERR_OK;
}

/* Sites still in flight (user stop, pause, error) go back to the border, their
 * fetches counted, after the verdicts queued are written. */
static void ext_finish(void *arg)
{
    struct ext *x = arg;
    int write = !(x->m && x->m->lease_lost); /* else the job's new runner unclaims them */
    for (int i = 0; x->slots && i < x->p->concurrency; i++) {
        struct slot *sl = &x->slots[i];
        if (write && sl->sc &&
            (sl->deepening ? slot_deepened(x, sl, "job_stopped") : slot_abandon(x, sl)) != ERR_OK)
            log_warn("extcrawl: %s: %s", sl->host, err_msg());
        slot_clear(sl);
    }
    x->active = 0;
    (void)claimed_drop(x, 0); /* unclaimed below, with the rest */
    if (write && x->w && sitewriter_flush(x->w) != ERR_OK)
        log_warn("extcrawl: verdicts not written: %s", err_msg());
    sitewriter_stop(x->w, !write);
    x->w = NULL;
    if (x->slots && write && crawlstore_unclaim(x->s, x->job, x->worker, NULL) != ERR_OK)
        log_warn("extcrawl: could not return claimed sites to the border: %s", err_msg());
    free(x->slots);
    x->slots = NULL;
    if (x->kept.taken)
        log_info("extcrawl: %lu relevant websites read deeper for their links", x->kept.taken);
    deepen_release(&x->kept);
    pagecls_scratch_free(x->scratch);
    x->scratch = NULL;
    strmap_release(&x->known);
}

static const struct crawl_strategy website_strategy = {
    .start = ext_start,
    .refill = ext_refill,
    .feed = ext_feed,
    .in_flight = ext_in_flight,
    .unrecorded_pages = ext_unrecorded,
    .flush = ext_flush,
    .finish = ext_finish,
    .shared = 1,
};

enum err extcrawl_run(const struct crawlrun_config *c, const struct pagecls *model,
                      const struct extcrawl_params *p, enum crawl_stop *why)
{
    *why = CRAWL_RUNNING;
    if (p->concurrency < 1)
        return err_set(ERR_INVAL, "concurrency must be at least 1");
    struct ext x = {.s = c->s,
                    .job = c->job,
                    .f = c->f,
                    .worker = c->worker,
                    .helper = c->helper,
                    .model = model,
                    .p = p};
    strmap_init(&x.known);
    deepen_init(&x.kept, p->deepen_sites > 0 && !p->linkrank_fixed ? (size_t)p->deepen_sites : 0);
    return crawlrun_run(c, &website_strategy, &x, why);
}
