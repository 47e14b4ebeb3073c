/* The page crawlers (focused and breadth-first) with website post-processing. */
#include "crawler/pagecrawl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classifier/anchorcls.h"
#include "classifier/ctxgraph.h"
#include "classifier/hotwords.h"
#include "classifier/keyphrases.h"
#include "classifier/weighttable.h"
#include "classifier/pagecls.h"
#include "classifier/sitecls.h"
#include "common/grow.h"
#include "common/log.h"
#include "common/strmap.h"
#include "crawler/crawlrun.h"
#include "crawler/edges.h"
#include "crawler/fetch.h"
#include "crawler/pageinfo.h"
#include "crawler/url.h"
#include "store/crawlstore.h"

#define DEFER_MAX   256  /* frontier pages looked at to find one on an idle website */
#define ANCHORS_MAX 1024 /* bytes of anchor text kept per frontier page (learning_anchor) */

struct site {
    char *host, *homepage;
    int skip;    /* examined before this crawl (training, earlier run): not crawled */
    int fetches; /* downloads (robots-disallowed URLs excluded) */
    int in_flight;
    struct sitecls cls;
    int classified;                  /* pages classified */
    int relevant;                    /* as counted in the meter */
    double home_pr;                  /* homepage post-processing: its Pr[target]; NaN unread */
    int64_t found_pages;             /* the crawl's pages when it last turned relevant */
    int dirty;                       /* changed since the last flush */
    int stored;                      /* has a row in the sites table */
    double best;                     /* the best rank of its frontier pages so far */
    struct crawlstore_page *pending; /* pages since the last flush (url strings owned) */
    size_t n_pending, cap_pending;
};

enum page_state { PAGE_FRONTIER, PAGE_FETCHING, PAGE_DONE };

struct page {
    char *url;
    struct site *site;
    struct pageorder_links in; /* the downloaded pages linking here */
    double priority;           /* p->priority(&in) */
    int admit;                 /* a border page: in the frontier whatever its priority */
    char *anchors;             /* learning_anchor: the anchors of its in-links, joined */
    size_t heap_pos;           /* index + 1 in the frontier heap; 0 = not in it */
    enum page_state state;
};

struct run {
    struct store *s;
    int64_t job;
    struct fetcher *f;
    const struct pagecls *model;
    struct pagecls_scratch *scratch, *home_scratch, *ctx_scratch;
    const struct pagecrawl_params *p;
    struct crawlmeter *m;
    struct strmap pages, sites;
    struct page **heap;
    size_t heap_len, heap_cap;
    uint64_t seq;
    int in_flight;
    int64_t pages_flushed;                   /* meter pages already added to the job's counter */
    int64_t layer_pages[CTXGRAPH_OTHER + 1]; /* context_graph: pages read in each layer */
    int own_host_reached;      /* own_host_last: seed 001's queue ran empty, links within hosts
                                * are read (in priority order) */
    int other_hosts_in_flight; /* pages in flight that a link from another host brought */
};

/* ---- the frontier: a heap of pages, best first -------------------------- */

/* a before b? The higher priority first, then the earlier found. */
static int before(const struct run *r, const struct page *a, const struct page *b)
{
    (void)r;
    if (a->priority != b->priority)
        return a->priority > b->priority;
    return a->in.seq < b->in.seq;
}

static void heap_set(struct run *r, size_t i, struct page *pg)
{
    r->heap[i] = pg;
    pg->heap_pos = i + 1;
}

static void heap_up(struct run *r, size_t i)
{
    struct page *pg = r->heap[i];
    while (i > 0 && before(r, pg, r->heap[(i - 1) / 2])) {
        heap_set(r, i, r->heap[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    heap_set(r, i, pg);
}

static void heap_down(struct run *r, size_t i)
{
    struct page *pg = r->heap[i];
    for (;;) {
        size_t l = 2 * i + 1, rr = l + 1, m = i;
        const struct page *best = pg;
        if (l < r->heap_len && before(r, r->heap[l], best))
            m = l, best = r->heap[l];
        if (rr < r->heap_len && before(r, r->heap[rr], best))
            m = rr;
        if (m == i)
            break;
        heap_set(r, i, r->heap[m]);
        i = m;
    }
    heap_set(r, i, pg);
}

static enum err heap_push(struct run *r, struct page *pg)
{
    enum err e = grow_array((void **)&r->heap, &r->heap_cap, r->heap_len + 1, sizeof *r->heap);
    if (e)
        return e;
    heap_set(r, r->heap_len++, pg);
    heap_up(r, r->heap_len - 1);
    return ERR_OK;
}

/* Take pg out of the frontier, wherever it is in the heap. */
static void heap_remove(struct run *r, struct page *pg)
{
    size_t i = pg->heap_pos - 1;
    pg->heap_pos = 0;
    if (i == --r->heap_len)
        return;
    struct page *moved = r->heap[r->heap_len];
    heap_set(r, i, moved);
    heap_up(r, i);
    if (moved->heap_pos == i + 1) /* did not go up: it may have to go down */
        heap_down(r, i);
}

static struct page *heap_pop(struct run *r)
{
    struct page *top = r->heap[0];
    heap_remove(r, top);
    return top;
}

/* ---- websites and pages ------------------------------------------------- */

static struct site *site_get(struct run *r, const char *url)
{
    size_t n;
    const char *name = url_host_ref(url, &n);
    if (!name)
        return NULL;
    struct site *st = strmap_get(&r->sites, name, n);
    if (st)
        return st;
    st = calloc(1, sizeof *st);
    if (!st || url_host(url, &st->host) != ERR_OK || url_homepage(url, &st->homepage) != ERR_OK ||
        strmap_put(&r->sites, name, n, st) != ERR_OK) {
        if (st) {
            free(st->host);
            free(st->homepage);
        }
        free(st);
        return NULL;
    }
    st->home_pr = NAN;
    return st;
}

/* Is a frontier page's priority enough for it to be fetched (seed 002's threshold)? */
static int admitted(const struct run *r, const struct page *pg)
{
    return !r->p->table || pg->admit || pg->priority > r->p->admit_above;
}

/*
 * Links to url (one from a downloaded page, or all a redirect's source had): a new page
 * joins the frontier, a page already there has its summary updated. always: a border
 * page, admitted whatever its priority.
 */
static enum err add_link(struct run *r, const char *url, const struct pageorder_links *from,
                         int always)
{
    struct page *pg = strmap_get(&r->pages, url, strlen(url));
    if (pg) {
        if (pg->state != PAGE_FRONTIER)
            return ERR_OK;
        pageorder_links_add(&pg->in, from);
        pg->admit |= always;
        double was = pg->priority;
        pg->priority = r->p->priority(&pg->in);
        if (pg->heap_pos && pg->priority != was) {
            heap_up(r, pg->heap_pos - 1);
            heap_down(r, pg->heap_pos - 1);
        } else if (!pg->heap_pos && !pg->site->skip && admitted(r, pg)) {
            return heap_push(r, pg); /* a new link took it over the threshold */
        }
        return ERR_OK;
    }
    struct site *st = site_get(r, url);
    if (!st)
        return ERR_OK; /* not a URL with a host: nothing to fetch */
    if (from->conf_max > st->best)
        st->best = from->conf_max;
    pg = calloc(1, sizeof *pg);
    if (!pg || !(pg->url = strdup(url))) {
        free(pg);
        return err_set(ERR_NOMEM, "out of memory");
    }
    pg->site = st;
    pg->in = *from;
    pg->in.seq = ++r->seq;
    pg->priority = r->p->priority(&pg->in);
    pg->admit = always;
    if (strmap_put(&r->pages, url, strlen(url), pg) != ERR_OK) {
        free(pg->url);
        free(pg);
        return err_set(ERR_NOMEM, "out of memory");
    }
    return st->skip || !admitted(r, pg) ? ERR_OK : heap_push(r, pg);
}

/* A URL that was downloaded under another name (a redirect's target): not again. */
static enum err mark_done(struct run *r, const char *url)
{
    struct pageorder_links none = pageorder_link(0, 1, 0);
    enum err e = add_link(r, url, &none, 0);
    struct page *pg = strmap_get(&r->pages, url, strlen(url));
    if (!e && pg && pg->state == PAGE_FRONTIER) {
        if (pg->heap_pos)
            heap_remove(r, pg);
        pg->state = PAGE_DONE;
    }
    return e;
}

/* Keep a download for the next flush, stored as url. */
static enum err site_keep_page(struct site *st, const char *url_as, const struct fetch_result *res,
                               double pr)
{
    enum err e =
        grow_array((void **)&st->pending, &st->cap_pending, st->n_pending + 1, sizeof *st->pending);
    if (e)
        return e;
    char *url = strdup(url_as);
    if (!url)
        return err_set(ERR_NOMEM, "out of memory");
    st->pending[st->n_pending++] = (struct crawlstore_page){
        url, fetch_status_name(res->status), res->http_status, res->body_len, pr, NAN, NULL};
    st->dirty = 1;
    return ERR_OK;
}

static void site_drop_pending(struct site *st)
{
    for (size_t i = 0; i < st->n_pending; i++)
        free((char *)st->pending[i].url);
    st->n_pending = 0;
}

/* ---- the crawl ---------------------------------------------------------- */

/* The best frontier page on a website that may take one more fetch now, or NULL. */
static struct page *pick(struct run *r)
{
    struct page *deferred[DEFER_MAX], *found = NULL;
    size_t n_deferred = 0, other_hosts_deferred = 0;
    while (r->heap_len && !found) {
        struct page *pg = heap_pop(r);
        struct site *st = pg->site;
        if (st->skip || st->fetches + st->in_flight >= r->p->max_pages_per_site) {
            continue; /* the guard: this website gave enough pages */
        }
        if (st->in_flight > 0 && n_deferred < DEFER_MAX) {
            deferred[n_deferred++] = pg; /* its website is busy: the fetcher would queue it */
            other_hosts_deferred += pg->in.other_hosts > 0;
            continue;
        }
        found = pg;
    }
    /* The best page left was linked only from its own host: until seed 001's queue is
     * empty (no link from another host waiting, none in flight that could bring more),
     * it waits; then the crawl reads on where the seed's would end. */
    if (found && r->p->own_host_last && !found->in.other_hosts && !r->own_host_reached) {
        if (other_hosts_deferred || r->other_hosts_in_flight) {
            if (heap_push(r, found) != ERR_OK)
                log_warn("pagecrawl: %s", err_msg());
            found = NULL;
        } else {
            r->own_host_reached = 1;
            log_info("job %lld: relevance_degree: no link to another host left after %lld "
                     "pages, where seed 001's crawl ends; reading the links within websites "
                     "that it disregards",
                     (long long)r->job, (long long)r->m->pages);
        }
    }
    for (size_t i = 0; i < n_deferred; i++)
        if (heap_push(r, deferred[i]) != ERR_OK)
            log_warn("pagecrawl: %s", err_msg());
    return found;
}

static enum err submit_more(struct run *r)
{
    int64_t max = r->m->lim.max_pages;
    while (r->in_flight < r->p->concurrency && (!max || r->m->pages + r->in_flight < max)) {
        struct page *pg = pick(r);
        if (!pg)
            return ERR_OK;
        enum err e = crawlmeter_request(r->m); /* counted before it is made */
        if (!e)
            e = fetcher_submit(r->f, pg->url, (uint64_t)(uintptr_t)pg);
        if (e)
            return e;
        pg->state = PAGE_FETCHING;
        pg->site->in_flight++;
        r->in_flight++;
        r->other_hosts_in_flight += pg->in.other_hosts > 0;
    }
    return ERR_OK;
}

/* The website's verdict as it stands now, counted in the meter. */
static void site_judged(struct run *r, struct site *st, int relevant)
{
    r->m->relevant += relevant - st->relevant;
    if (relevant && !st->relevant)
        st->found_pages = r->m->pages;
    st->relevant = relevant;
}

/* Homepage post-processing: the homepage classifier on the website's homepage only. */
static enum err judge_by_homepage(struct run *r, struct site *st, const struct fetch_result *res,
                                  const struct pageinfo *info)
{
    if (strcmp(res->url, st->homepage) != 0)
        return ERR_OK;
    struct pagecls_result cr;
    enum err e =
        pagecls_classify(r->p->home_model, r->home_scratch, info->text, info->text_len, &cr);
    if (e)
        return e;
    st->home_pr = cr.pr[PAGECLS_TARGET];
    site_judged(r, st, st->home_pr > 0.5);
    return ERR_OK;
}

/* The confidence a website is stored with. */
static double site_confidence(const struct run *r, const struct site *st)
{
    if (r->p->home_model)
        return isnan(st->home_pr) ? 0.5 : st->home_pr;
    return sitecls_confidence(&st->cls);
}

/* A frontier page keeps its in-links' anchor text (up to ANCHORS_MAX bytes), what the
 * anchor classifier learns from once the page is read. */
static enum err keep_anchor(struct run *r, const char *url, const char *anchor)
{
    struct page *pg = strmap_get(&r->pages, url, strlen(url));
    if (!pg || pg->state != PAGE_FRONTIER)
        return ERR_OK;
    size_t have = pg->anchors ? strlen(pg->anchors) : 0, add = strlen(anchor);
    if (have + 1 + add >= ANCHORS_MAX)
        return ERR_OK;
    size_t cap = pg->anchors ? have + 1 : 0; /* what pg->anchors holds at least */
    if (grow_array((void **)&pg->anchors, &cap, have + add + 2, 1) != ERR_OK)
        return err_set(ERR_NOMEM, "out of memory");
    char *s = pg->anchors;
    if (have)
        s[have++] = ' ';
    memcpy(s + have, anchor, add + 1);
    return ERR_OK;
}

/* Link i of a page (out: what the page passes on), its anchor scored when anchors is set. */
static enum err add_link_from(struct run *r, const char *url, char *const *anchors, size_t i,
                              struct pageorder_links *out)
{
    enum err e = ERR_OK;
    out->hot_max = 0;
    if (anchors && r->p->hot)
        e = hotwords_score(r->p->hot, anchors[i], strlen(anchors[i]), &out->hot_max);
    if (!e && r->p->table) {
        /* Seed 002's Anchor_Relevancy_Score and, for the URL description the seed took
         * from its search engine, the URL's own words. */
        e = weighttable_relevance(r->p->table, anchors ? anchors[i] : "",
                                  anchors ? strlen(anchors[i]) : 0, &out->anchor_max);
        if (!e)
            e = weighttable_relevance(r->p->table, url, strlen(url), &out->url_score);
    }
    if (!e && r->p->learn) /* seed 004 Algorithm 5: anchor_score[] := classify(out_anchor[]) */
        e = anchorcls_score(r->p->learn, anchors ? anchors[i] : "",
                            anchors ? strlen(anchors[i]) : 0, &out->anchor_max);
    if (!e)
        e = add_link(r, url, out, 0);
    if (!e && r->p->learn && anchors && anchors[i][0])
        e = keep_anchor(r, url, anchors[i]);
    return e;
}

/* Seed 004 Algorithm 5, "threshold := retrain_anchor; sorted_links :=
 * sort_decreasing(non_processed_queue)": the frontier scored again by the anchor
 * classifier as it now stands, each page by all its in-links' anchors together. */
static enum err rescore(struct run *r)
{
    for (size_t i = 0; i < r->heap_len; i++) {
        struct page *pg = r->heap[i];
        double a = 0.5;
        if (pg->anchors) {
            enum err e = anchorcls_score(r->p->learn, pg->anchors, strlen(pg->anchors), &a);
            if (e)
                return e;
        }
        pg->in.anchor_max = a;
        pg->priority = r->p->priority(&pg->in);
    }
    for (size_t i = r->heap_len / 2; i-- > 0;)
        heap_down(r, i);
    return ERR_OK;
}

/* Classify a downloaded page, feed its website's verdict, put its links on the frontier. */
static enum err read_page(struct run *r, struct page *pg, const struct fetch_result *res,
                          double *pr)
{
    struct site *st = pg->site;
    struct pageinfo *info;
    if ((r->p->hot || r->p->table || r->p->learn ? pageinfo_from_fetch_anchors(res, &info)
                                                 : pageinfo_from_fetch(res, &info)) != ERR_OK)
        return ERR_OK; /* unparseable: downloaded, not classified */
    struct pagecls_result cr;
    enum err e = pagecls_classify(r->model, r->scratch, info->text, info->text_len, &cr);
    if (!e) {
        *pr = cr.pr[PAGECLS_TARGET];
        if (st->classified++ == 0) {
            double prior = r->p->prior_target;
            if (r->p->prior_harvest)
                prior = sitecls_prior((unsigned)r->m->relevant, (unsigned)r->m->examined, prior,
                                      (unsigned)r->p->prior_sites);
            e = sitecls_init(&st->cls, prior, r->p->p_err, r->p->p_threshold);
            r->m->examined++;
        }
    }
    if (!e && r->p->learn && pg->anchors && fabs(*pr - 0.5) > r->p->learn_margin)
        /* Algorithm 5: if abs(score) > threshold then add_to_training: the anchors
         * that led here, labelled by the page classifier's verdict on the page. */
        e = anchorcls_add(r->p->learn, pg->anchors, strlen(pg->anchors), *pr > 0.5);
    if (!e) {
        (void)sitecls_add_page(&st->cls, *pr);
        if (r->p->home_model)
            e = judge_by_homepage(r, st, res, info);
        else
            site_judged(r, st, sitecls_relevant(&st->cls));
    }
    if (!e) {
        /* Its out-links take its score and its history-path distance, the parent's
         * distance being the lowest its in-links brought (seed 004, eq. 6.1). */
        struct pageorder_links out =
            pageorder_link(*pr, pageorder_history_distance(*pr, pg->in.dist_min), 0);
        if (r->p->keys) {
            /* Seed 001 eq. 1: R_i from the key phrases page i holds and R_j, the best
             * degree its in-links brought. */
            uint32_t lambda;
            e = keyphrases_lambda(r->p->keys, info->text, info->text_len, &lambda);
            out.rel_max = pageorder_relevance(lambda, keyphrases_count(r->p->keys), r->p->rho,
                                              fmin(1.0, pg->in.rel_max));
        }
        if (!e && r->p->table) /* seed 002: Relevancy(P) of the page linking on */
            e = weighttable_relevance(r->p->table, info->text, info->text_len, &out.rel_sum);
        if (!e && r->p->ctx) {
            /* Seed 004 Algorithm 3: layer_belong := maximum(scoreL[i]); save_score(out_links,
             * scoreL, layer_belong): its links join the queue of its layer. */
            int layer = CTXGRAPH_OTHER;
            double conf = 0;
            e = ctxgraph_classify(r->p->ctx, r->ctx_scratch, info->text, info->text_len, &layer,
                                  &conf);
            out.layer_max = pageorder_layer_score(layer, conf);
            r->layer_pages[layer]++;
        }
        /* Seed 001 §2.1: a link to page i's own host does not take R_i in the seed's
         * queue; it waits below every link to another host (pageorder_relevance_degree). */
        struct pageorder_links own = out;
        if (r->p->own_host_last) {
            out.other_hosts = 1;
            own.rel_own = out.rel_max;
            own.rel_max = 0;
        }
        for (size_t i = 0; !e && i < info->n_intrinsic; i++)
            e = add_link_from(r, info->intrinsic[i], info->intrinsic_anchor, i, &own);
        size_t new_sites = 0; /* a link flood's bound, as the website crawler's (edges.h) */
        for (size_t i = 0; !e && i < info->n_transversal; i++) {
            size_t hn;
            const char *h = url_host_ref(info->transversal[i], &hn);
            if (h && !strmap_get(&r->sites, h, hn) && new_sites++ >= EDGES_PAGE_MAX_NEW)
                continue;
            e = add_link_from(r, info->transversal[i], info->transversal_anchor, i, &out);
        }
    }
    pageinfo_free(info);
    return e;
}

static enum err handle_result(struct run *r, const struct fetch_result *res)
{
    struct page *pg = (struct page *)(uintptr_t)res->tag;
    struct site *st = pg->site;
    pg->state = PAGE_DONE;
    st->in_flight--;
    r->in_flight--;
    r->other_hosts_in_flight -= pg->in.other_hosts > 0; /* unchanged while it was fetched */
    if (!fetch_status_downloaded(res->status))
        return ERR_OK; /* robots.txt said no, or no request could be made */
    st->fetches++;
    r->m->pages++;
    double pr = NAN;
    enum err e = ERR_OK;
    int again = 0; /* redirected to a page read before: its evidence counts once */
    if (res->final_url && strcmp(res->final_url, res->url) != 0) {
        const struct page *to = strmap_get(&r->pages, res->final_url, strlen(res->final_url));
        again = to && to->state == PAGE_DONE;
        if (!again)
            e = mark_done(r, res->final_url);
    }
    if (!e && res->status == FETCH_REDIRECT && res->redirect_url)
        e = add_link(r, res->redirect_url, &pg->in, pg->admit); /* takes all its links brought */
    if (!e && res->status == FETCH_OK && !again)
        e = read_page(r, pg, res, &pr);
    if (!e && r->p->learn && r->p->rescore_every > 0 && r->m->pages % r->p->rescore_every == 0)
        e = rescore(r);
    if (!e)
        e = site_keep_page(st,
                           again            ? res->url
                           : res->final_url ? res->final_url
                                            : res->url,
                           res, pr);
    crawlmeter_mark(r->m);
    return e;
}

/* Write the verdicts of the websites that changed, with their new pages. */
static enum err flush(struct run *r)
{
    size_t n = 0, nb = 0;
    for (size_t i = 0; i < r->sites.cap; i++) {
        struct site *st = r->sites.slots[i].value;
        n += r->sites.slots[i].key && st->dirty;
        nb += r->sites.slots[i].key && !st->stored;
    }
    struct crawlstore_site_result *res = calloc(n ? n : 1, sizeof *res);
    struct crawlstore_border *border = calloc(nb ? nb : 1, sizeof *border);
    if (!res || !border) {
        free(res);
        free(border);
        return err_set(ERR_NOMEM, "out of memory");
    }
    size_t k = 0, kb = 0;
    for (size_t i = 0; i < r->sites.cap; i++) {
        struct site *st = r->sites.slots[i].value;
        if (r->sites.slots[i].key && !st->stored && !st->classified)
            border[kb++] = (struct crawlstore_border){st->host, st->homepage, st->best};
        if (!r->sites.slots[i].key || !st->dirty || !st->classified)
            continue; /* a website none of whose pages could be read is not examined */
        res[k++] = (struct crawlstore_site_result){
            .host = st->host,
            .homepage = st->homepage,
            .confidence = site_confidence(r, st),
            .relevant = st->relevant,
            .pages_to_decide =
                r->p->home_model ? !isnan(st->home_pr) : (int)sitecls_pages(&st->cls),
            .fetches = st->fetches,
            .purpose = "crawl",
            .pages = st->pending,
            .n_pages = st->n_pending,
            .found_pages = st->found_pages,
        };
    }
    enum err e =
        crawlstore_sites_update(r->s, r->job, res, k, border, kb, r->m->pages - r->pages_flushed);
    free(res);
    free(border);
    if (e)
        return e;
    r->pages_flushed = r->m->pages;
    for (size_t i = 0; i < r->sites.cap; i++) {
        struct site *st = r->sites.slots[i].value;
        if (!r->sites.slots[i].key)
            continue;
        if (st->dirty && st->classified) {
            site_drop_pending(st);
            st->dirty = 0;
        }
        st->stored = 1;
    }
    return ERR_OK;
}

/*
 * A border website's homepage, linked from the training websites (or a start site). Its
 * rank stands for its parent's score; its parents are relevant training pages, whose
 * history-path distance is 0 (seed 004 §6.5), so the border keeps its rank order.
 */
static enum err seed_link(struct run *r, const char *url, double rank)
{
    struct pageorder_links l = pageorder_link(rank, 0, 0);
    /* Seed 001 starts from URLs "representative for a given topic": a border site's R is
     * its rank, a start site's (SEED_START_RANK, served first) counts as 1 for its links. */
    l.rel_max = rank;
    l.other_hosts = 1; /* linked from other websites */
    /* Seed 002 enqueues its seed URLs as they are: the border is in the frontier whatever
     * its link score, its rank standing for the parents' relevancy. */
    l.rel_sum = rank;
    /* The context graph's: found on relevant training pages, layer 0, at their rank. */
    l.layer_max = pageorder_layer_score(0, rank);
    return add_link(r, url, &l, 1);
}

/* The frontier starts from the job's border; examined websites are not crawled again. */
static enum err pagecrawl_seed(struct run *r)
{
    struct crawlstore_site_row *rows;
    size_t n;
    enum err e = crawlstore_sites_list(r->s, r->job, &rows, &n);
    if (e)
        return e;
    for (size_t i = 0; !e && i < n; i++) {
        struct site *st = site_get(r, rows[i].homepage);
        if (st) {
            st->stored = 1;
            st->skip = strcmp(rows[i].state, "border") != 0;
        }
    }
    for (size_t i = 0; !e && i < n; i++)
        if (strcmp(rows[i].state, "border") == 0)
            e = seed_link(r, rows[i].homepage, rows[i].rank);
    crawlstore_site_rows_free(rows, n);
    return e;
}

static void run_free(struct run *r)
{
    for (size_t i = 0; i < r->pages.cap; i++) {
        struct page *pg = r->pages.slots[i].value;
        if (r->pages.slots[i].key) {
            free(pg->url);
            free(pg->anchors);
            free(pg);
        }
    }
    for (size_t i = 0; i < r->sites.cap; i++) {
        struct site *st = r->sites.slots[i].value;
        if (r->sites.slots[i].key) {
            site_drop_pending(st);
            free(st->pending);
            free(st->host);
            free(st->homepage);
            free(st);
        }
    }
    strmap_release(&r->pages);
    strmap_release(&r->sites);
    free(r->heap);
    r->heap = NULL;
    pagecls_scratch_free(r->scratch);
    pagecls_scratch_free(r->home_scratch);
    pagecls_scratch_free(r->ctx_scratch);
    r->scratch = r->home_scratch = r->ctx_scratch = NULL;
}

/* ---- the strategy hooks (crawler/crawlrun) ---- */

static enum err page_start(void *arg, struct crawlmeter *m, const struct crawlstore_counts *c)
{
    struct run *r = arg;
    r->m = m;
    r->pages_flushed = c->pages;
    enum err e = pagecls_scratch_new(r->model, &r->scratch);
    if (!e && r->p->home_model)
        e = pagecls_scratch_new(r->p->home_model, &r->home_scratch);
    if (!e && r->p->ctx)
        e = ctxgraph_scratch_new(r->p->ctx, &r->ctx_scratch);
    return e ? e : pagecrawl_seed(r);
}

static enum err page_refill(void *arg, enum crawl_stop *blocked)
{
    struct run *r = arg;
    enum err e = submit_more(r);
    if (r->heap_len == 0)
        *blocked = CRAWL_BORDER_EMPTY;
    return e;
}

static enum err page_feed(void *arg, struct fetch_result *res)
{
    return handle_result(arg, res);
}

static int64_t page_in_flight(void *arg)
{
    return ((struct run *)arg)->in_flight;
}

static int64_t page_border(void *arg)
{
    return (int64_t)((struct run *)arg)->heap_len;
}

static enum err page_flush(void *arg)
{
    return flush(arg);
}

static void page_finish(void *arg)
{
    struct run *r = arg;
    if (r->p->ctx) {
        char b[160];
        int n = 0;
        for (int k = 0; k <= CTXGRAPH_OTHER && n >= 0 && (size_t)n < sizeof b; k++)
            n += snprintf(b + n, sizeof b - (size_t)n, "%s%lld", k ? " " : "",
                          (long long)r->layer_pages[k]);
        log_info("job %lld: context graph: pages read by layer 0..%d, other: %s", (long long)r->job,
                 CTXGRAPH_N, b);
    }
    run_free(r);
}

static const struct crawl_strategy page_strategy = {
    .start = page_start,
    .refill = page_refill,
    .feed = page_feed,
    .in_flight = page_in_flight,
    .border = page_border,
    .flush = page_flush,
    .finish = page_finish,
};

enum err pagecrawl_run(const struct crawlrun_config *c, const struct pagecls *model,
                       const struct pagecrawl_params *p, enum crawl_stop *why)
{
    *why = CRAWL_RUNNING;
    if (p->concurrency < 1 || p->max_pages_per_site < 1 || !p->priority)
        return err_set(ERR_INVAL,
                       "concurrency and max_pages_per_site must be at least 1, with a priority");
    struct run r = {.s = c->s, .job = c->job, .f = c->f, .model = model, .p = p};
    strmap_init(&r.pages);
    strmap_init(&r.sites);
    return crawlrun_run(c, &page_strategy, &r, why);
}
