/* The internal crawler: best-first through one website, classifying as it goes. */
#include "crawler/sitecrawl.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "classifier/pagecls.h"
#include "common/grow.h"
#include "common/strmap.h"
#include "crawler/edges.h"
#include "crawler/pageinfo.h"
#include "crawler/url.h"

/* A page of the website known from links, fetched or not. */
struct cand {
    char *url;
    double weight_sum; /* sum of weight(q, p) over linking pages q read so far */
    int weight_n;      /* number of such pages */
    int taken;         /* handed out for fetching */
};

struct sitecrawl {
    struct sitecrawl_params p;
    const struct pagecls *model;
    struct pagecls_scratch *scratch;
    char *home;

    struct cand *cands;
    size_t n_cands, cap_cands;
    struct strmap known; /* url -> index + 1 into cands */
    long outstanding;    /* index of the candidate handed out, or -1 */

    struct sitecls cls;
    struct sitecls_linkrank linkrank;
    unsigned pages_to_decide;
    int verdict_closed; /* p_threshold reached or the classification budget spent */
    int fetches;
    int done;
    enum sitecrawl_stop stop; /* why done */
    double prior;             /* the posterior before any page */

    struct sitecrawl_page *pages;
    size_t n_pages, cap_pages;
    struct edgeset edges;
    char unreadable[200]; /* why the last page whose HTML could not be read was not */
};

/* Make url a candidate (if new) and credit it with one linking page's weight. */
static enum err add_link(struct sitecrawl *sc, const char *url, double weight)
{
    size_t n = strlen(url);
    uintptr_t idx = (uintptr_t)strmap_get(&sc->known, url, n);
    if (!idx) {
        enum err e =
            grow_array((void **)&sc->cands, &sc->cap_cands, sc->n_cands + 1, sizeof *sc->cands);
        if (e)
            return e;
        char *copy = strdup(url);
        if (!copy)
            return err_set(ERR_NOMEM, "out of memory");
        sc->cands[sc->n_cands] = (struct cand){copy, 0, 0, 0};
        idx = ++sc->n_cands;
        e = strmap_put(&sc->known, url, n, (void *)idx);
        if (e)
            return e;
    }
    struct cand *c = &sc->cands[idx - 1];
    if (weight >= 0) {
        c->weight_sum += weight;
        c->weight_n++;
    }
    return ERR_OK;
}

enum err sitecrawl_new(const char *homepage, const struct sitecrawl_params *p,
                       const struct pagecls *model, struct pagecls_scratch *scratch,
                       struct sitecrawl **out)
{
    *out = NULL;
    if (p->max_pages < 1 || p->c < 1)
        return err_set(ERR_INVAL, "max_pages must be >= 1 and c >= 1");
    struct sitecrawl *sc = calloc(1, sizeof *sc);
    if (!sc)
        return err_set(ERR_NOMEM, "out of memory");
    sc->p = *p;
    sc->model = model;
    sc->scratch = scratch;
    sc->outstanding = -1;
    strmap_init(&sc->known);
    edgeset_init(&sc->edges);
    sitecls_linkrank_init(&sc->linkrank, p->c);
    enum err e = sitecls_init(&sc->cls, p->prior_target, p->p_err, p->p_threshold);
    if (!e)
        sc->prior = sitecls_confidence(&sc->cls);
    if (!e)
        e = url_normalize(homepage, &sc->home);
    if (!e)
        e = add_link(sc, sc->home, -1);
    if (e) {
        sitecrawl_free(sc);
        return e;
    }
    *out = sc;
    return ERR_OK;
}

void sitecrawl_free(struct sitecrawl *sc)
{
    if (!sc)
        return;
    for (size_t i = 0; i < sc->n_cands; i++)
        free(sc->cands[i].url);
    for (size_t i = 0; i < sc->n_pages; i++) {
        free(sc->pages[i].url);
        free(sc->pages[i].final_url);
        free(sc->pages[i].terms);
    }
    free(sc->cands);
    free(sc->pages);
    strmap_release(&sc->known);
    edgeset_release(&sc->edges);
    free(sc->home);
    free(sc);
}

const char *sitecrawl_next(struct sitecrawl *sc)
{
    if (sc->done)
        return NULL;
    if (sc->outstanding >= 0)
        return sc->cands[sc->outstanding].url;
    /* Highest average weight first; among equals the first found (the homepage first). */
    long best = -1;
    double best_rank = -1;
    for (size_t i = 0; i < sc->n_cands; i++) {
        const struct cand *c = &sc->cands[i];
        if (c->taken)
            continue;
        double rank = c->weight_n ? c->weight_sum / c->weight_n : 0;
        if (rank > best_rank) {
            best = (long)i;
            best_rank = rank;
        }
    }
    if (best < 0) {
        sc->done = 1; /* nothing left to read on this website */
        sc->stop = SITECRAWL_NO_PAGES;
        return NULL;
    }
    sc->cands[best].taken = 1;
    sc->outstanding = best;
    return sc->cands[best].url;
}

/* Keep a fetch; `again`: a redirect to a page read before, kept under the URL asked;
 * terms: its term counts (the page's now), or NULL. */
static enum err record_page(struct sitecrawl *sc, const struct fetch_result *r, double pr,
                            size_t n_transversal, int again, char *terms)
{
    enum err e =
        grow_array((void **)&sc->pages, &sc->cap_pages, sc->n_pages + 1, sizeof *sc->pages);
    if (e) {
        free(terms);
        return e;
    }
    struct sitecrawl_page *pg = &sc->pages[sc->n_pages];
    *pg = (struct sitecrawl_page){0};
    pg->url = strdup(r->url);
    pg->final_url = strdup(r->final_url && !again ? r->final_url : r->url);
    pg->terms = terms;
    if (!pg->url || !pg->final_url) {
        free(pg->url);
        free(pg->final_url);
        free(pg->terms);
        return err_set(ERR_NOMEM, "out of memory");
    }
    pg->status = r->status;
    pg->http_status = r->http_status;
    pg->bytes = r->body_len;
    pg->pr_target = pr;
    pg->n_transversal = n_transversal;
    sc->n_pages++;
    return ERR_OK;
}

/* Read one fetched page: classify it, learn its links. */
static enum err read_page(struct sitecrawl *sc, const struct fetch_result *r)
{
    if (r->final_url && strcmp(r->final_url, r->url) != 0) {
        uintptr_t idx = (uintptr_t)strmap_get(&sc->known, r->final_url, strlen(r->final_url));
        if (idx && sc->cands[idx - 1].taken) /* redirected to a page read before: once only */
            return record_page(sc, r, NAN, 0, 1, NULL);
    }
    struct pageinfo *info;
    if (pageinfo_from_fetch(r, &info) != ERR_OK) {
        /* The parser gave up (its budgets: a page of 200k nested <div>s): no evidence. */
        snprintf(sc->unreadable, sizeof sc->unreadable, "unreadable HTML: %s", err_msg());
        return record_page(sc, r, NAN, 0, 0, NULL);
    }
    /* The final URL is known now: a later link to it must not fetch it again. */
    enum err e = ERR_OK;
    if (r->final_url && strcmp(r->final_url, r->url) != 0) {
        e = add_link(sc, r->final_url, -1);
        if (!e) {
            uintptr_t idx = (uintptr_t)strmap_get(&sc->known, r->final_url, strlen(r->final_url));
            sc->cands[idx - 1].taken = 1;
        }
    }
    struct pagecls_result res;
    if (!e)
        e = pagecls_classify(sc->model, sc->scratch, info->text, info->text_len, &res);
    if (e)
        goto out;
    double pr = res.pr[PAGECLS_TARGET];
    if (!sc->verdict_closed)
        (void)sitecls_add_page(&sc->cls, pr);
    double w = pagecls_link_weight(res.pr, pagecls_classes(sc->model));
    for (size_t i = 0; !e && i < info->n_intrinsic; i++)
        e = add_link(sc, info->intrinsic[i], w);
    size_t known_before = sc->edges.n, links = info->n_transversal;
    if (!e)
        e = edgeset_add_page(&sc->edges, info->transversal, info->n_transversal, pr);
    if (!e && sc->p.host_known) { /* the destinations this page adds: edgeset appends them */
        links = 0;
        for (size_t i = known_before; i < sc->edges.n; i++)
            links += !sc->p.host_known(sc->p.host_known_ctx, sc->edges.edges[i].host);
    }
    sitecls_linkrank_add(&sc->linkrank, pr, links);
    struct buf terms;
    buf_init(&terms, 0);
    if (!e)
        e = pagecls_term_counts(sc->scratch, info->text, info->text_len, &terms);
    if (!e)
        e = record_page(sc, r, pr, info->n_transversal, 0, buf_detach(&terms));
    buf_release(&terms);
out:
    pageinfo_free(info);
    return e;
}

enum err sitecrawl_feed(struct sitecrawl *sc, const struct fetch_result *r)
{
    if (sc->outstanding < 0)
        return err_set(ERR_INVAL, "sitecrawl_feed without a URL handed out");
    sc->outstanding = -1;
    enum err e = ERR_OK;
    if (fetch_status_downloaded(r->status))
        sc->fetches++;
    if (r->status == FETCH_OK) {
        e = read_page(sc, r);
    } else {
        if (r->status == FETCH_REDIRECT && r->redirect_url) {
            /* The website boundary: a redirect to another host is a transversal link,
             * with no page evidence behind it (0.5: neither class). */
            e = edgeset_add_page(&sc->edges, &r->redirect_url, 1, 0.5);
        }
        if (!e)
            e = record_page(sc, r, NAN, r->status == FETCH_REDIRECT, 0, NULL);
    }
    if (e)
        return e;
    sc->pages[sc->n_pages - 1].posterior = sitecls_confidence(&sc->cls);
    if (!sc->verdict_closed) {
        sc->pages_to_decide = sitecls_pages(&sc->cls);
        sc->verdict_closed =
            sitecls_decided(&sc->cls) ||
            (sc->p.max_pages_to_decide > 0 && sc->fetches >= sc->p.max_pages_to_decide);
    }
    int enough_links =
        sc->p.l_threshold <= 0 ||
        sitecls_linkrank_value(&sc->linkrank, sitecls_confidence(&sc->cls)) >= sc->p.l_threshold;
    double model;
    int64_t model_id;
    /* Not yet by the examination's confidence: the crawl model's, if lower, wants fewer
     * links (asked only then: it scores every page read so far). */
    if (!enough_links && sc->verdict_closed && sc->p.model_conf &&
        sc->fetches >= SITECRAWL_MODEL_PAGES &&
        sc->p.model_conf(sc->p.model_conf_ctx, sc->pages, sc->n_pages, &model, &model_id, NULL) &&
        model < sitecls_confidence(&sc->cls))
        enough_links = sitecls_linkrank_value(&sc->linkrank, model) >= sc->p.l_threshold;
    if (sc->verdict_closed && enough_links) {
        sc->done = 1;
        sc->stop = sc->p.l_threshold <= 0 ? SITECRAWL_VERDICT : SITECRAWL_LINKRANK;
    } else if (sc->fetches >= sc->p.max_pages) {
        sc->done = 1;
        sc->stop = SITECRAWL_SITE_PAGES;
    }
    return ERR_OK;
}

const char *sitecrawl_unreadable(const struct sitecrawl *sc)
{
    return sc->unreadable[0] ? sc->unreadable : NULL;
}

int sitecrawl_done(const struct sitecrawl *sc)
{
    return sc->done;
}

double sitecrawl_confidence(const struct sitecrawl *sc)
{
    return sitecls_confidence(&sc->cls);
}

int sitecrawl_relevant(const struct sitecrawl *sc)
{
    return sitecls_relevant_min(
        &sc->cls, sc->p.min_pages_relevant > 0 ? (unsigned)sc->p.min_pages_relevant : 0);
}

int sitecrawl_decided(const struct sitecrawl *sc)
{
    return sitecls_decided(&sc->cls);
}

int sitecrawl_verdict_final(const struct sitecrawl *sc)
{
    return sc->verdict_closed;
}

unsigned sitecrawl_pages_to_decide(const struct sitecrawl *sc)
{
    return sc->pages_to_decide;
}

int sitecrawl_fetches(const struct sitecrawl *sc)
{
    return sc->fetches;
}

int sitecrawl_claim_pages(const struct sitecrawl_params *p)
{
    int cap = p->max_pages;
    if (p->max_pages_to_decide > 0 && p->max_pages_to_decide < cap)
        cap = p->max_pages_to_decide;
    if (p->model_conf && cap < SITECRAWL_MODEL_PAGES)
        cap = p->max_pages < SITECRAWL_MODEL_PAGES ? p->max_pages : SITECRAWL_MODEL_PAGES;
    return cap;
}

int sitecrawl_pages_needed(const struct sitecrawl *sc, int cap)
{
    int need = 0;
    if (!sc->verdict_closed)
        need = cap - sc->fetches;
    else if (sc->p.model_conf && sitecrawl_relevant(sc))
        need = (cap < SITECRAWL_MODEL_PAGES ? cap : SITECRAWL_MODEL_PAGES) - sc->fetches;
    return need > 0 ? need : 0;
}

double sitecrawl_linkrank(const struct sitecrawl *sc)
{
    return sitecls_linkrank_value(&sc->linkrank, sitecls_confidence(&sc->cls));
}

int sitecrawl_can_deepen(const struct sitecrawl *sc)
{
    if (sc->outstanding >= 0 || sc->fetches >= sc->p.max_pages)
        return 0;
    for (size_t i = 0; i < sc->n_cands; i++)
        if (!sc->cands[i].taken)
            return 1;
    return 0;
}

double sitecrawl_prior(const struct sitecrawl *sc)
{
    return sc->prior;
}

enum sitecrawl_stop sitecrawl_stop(const struct sitecrawl *sc)
{
    return sc->done ? sc->stop : SITECRAWL_READING;
}

const char *sitecrawl_stop_name(enum sitecrawl_stop stop)
{
    switch (stop) {
    case SITECRAWL_VERDICT:
        return "verdict";
    case SITECRAWL_LINKRANK:
        return "linkrank";
    case SITECRAWL_SITE_PAGES:
        return "max_pages_per_site";
    case SITECRAWL_NO_PAGES:
        return "no_more_pages";
    case SITECRAWL_READING:
        break;
    }
    return "reading";
}

const char *sitecrawl_verdict_by(const struct sitecrawl *sc)
{
    if (sitecls_decided(&sc->cls))
        return "threshold";
    return sc->verdict_closed ? "decide_limit" : "undecided";
}

void sitecrawl_deepen(struct sitecrawl *sc, double l_threshold)
{
    sc->p.l_threshold = l_threshold;
    sc->done = !sitecrawl_can_deepen(sc);
    sc->stop = !sc->done                        ? SITECRAWL_READING
               : sc->fetches >= sc->p.max_pages ? SITECRAWL_SITE_PAGES
                                                : SITECRAWL_NO_PAGES;
}

const struct sitecrawl_page *sitecrawl_pages(const struct sitecrawl *sc, size_t *n)
{
    *n = sc->n_pages;
    return sc->pages;
}

const struct edge *sitecrawl_edges(const struct sitecrawl *sc, size_t *n)
{
    *n = sc->edges.n;
    return sc->edges.edges;
}
