/* Training pages: the first k pages of a BFS of each training website, many sites at once. */
#include "crawler/trainset.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "classifier/ctxgraph.h"
#include "classifier/pagecls.h"
#include "common/grow.h"
#include "common/strmap.h"
#include "crawler/crawlloop.h"
#include "crawler/pageinfo.h"
#include "crawler/url.h"

/* Per-site BFS state next to the public record. */
struct site_state {
    char **queue; /* URLs to fetch, BFS order; [head, n) pending */
    size_t head, n, cap;
    struct strmap queued; /* URLs ever queued */
    struct strmap read;   /* final URLs of pages kept */
    size_t cap_pages;
    int in_flight;
    int home_seen; /* the homepage's result (after an offsite redirect: the target's) is in */
    int done;
};

struct trainset {
    struct trainset_params p;
    struct trainset_site *sites;
    struct site_state *st;
    size_t n;
    size_t sites_done, fetches;
};

void trainset_params_default(struct trainset_params *p)
{
    *p = (struct trainset_params){0};
    p->pages_per_site = 25;
}

static void page_release(struct trainset_page *pg)
{
    free(pg->url);
    free(pg->text);
    for (size_t i = 0; i < pg->n_transversal; i++)
        free(pg->transversal[i]);
    free(pg->transversal);
    for (size_t i = 0; i < pg->n_intrinsic; i++)
        free(pg->intrinsic[i]);
    free(pg->intrinsic);
}

static void state_release(struct site_state *st)
{
    for (size_t i = st->head; i < st->n; i++)
        free(st->queue[i]);
    free(st->queue);
    strmap_release(&st->queued);
    strmap_release(&st->read);
}

void trainset_site_release(struct trainset_site *s)
{
    for (size_t j = 0; j < s->n_pages; j++)
        page_release(&s->pages[j]);
    free(s->pages);
    free(s->homepage);
    free(s->site);
    free(s->home_error);
    *s = (struct trainset_site){0};
}

void trainset_free(struct trainset *ts)
{
    if (!ts)
        return;
    for (size_t i = 0; ts->sites && ts->st && i < ts->n; i++) {
        trainset_site_release(&ts->sites[i]);
        state_release(&ts->st[i]);
    }
    free(ts->sites);
    free(ts->st);
    free(ts);
}

/* Queue url (copied) unless it was queued or read before. */
static enum err enqueue(struct site_state *st, const char *url)
{
    size_t n = strlen(url);
    if (strmap_get(&st->queued, url, n) || strmap_get(&st->read, url, n))
        return ERR_OK;
    if (st->n == st->cap) {
        /* Reclaim the consumed head before growing. */
        if (st->head) {
            memmove(st->queue, st->queue + st->head, (st->n - st->head) * sizeof *st->queue);
            st->n -= st->head;
            st->head = 0;
        }
        enum err e = grow_array((void **)&st->queue, &st->cap, st->n + 1, sizeof *st->queue);
        if (e)
            return e;
    }
    char *copy = strdup(url);
    if (!copy)
        return err_set(ERR_NOMEM, "out of memory");
    enum err e = strmap_put(&st->queued, url, n, (void *)1);
    if (e) {
        free(copy);
        return e;
    }
    st->queue[st->n++] = copy;
    return ERR_OK;
}

enum err trainset_new(const char *const *homepages, size_t n, const struct trainset_params *p,
                      struct trainset **out)
{
    *out = NULL;
    if (p->pages_per_site < 1 || p->max_fetches < 0)
        return err_set(ERR_INVAL, "trainset: pages_per_site must be >= 1, max_fetches >= 0");
    struct trainset *ts = calloc(1, sizeof *ts);
    if (!ts)
        return err_set(ERR_NOMEM, "out of memory");
    ts->p = *p;
    if (!ts->p.max_fetches)
        ts->p.max_fetches = 3 * p->pages_per_site;
    ts->sites = calloc(n ? n : 1, sizeof *ts->sites);
    ts->st = calloc(n ? n : 1, sizeof *ts->st);
    if (!ts->sites || !ts->st) {
        trainset_free(ts);
        return err_set(ERR_NOMEM, "out of memory");
    }
    enum err e = ERR_OK;
    for (size_t i = 0; i < n && !e; i++) {
        struct trainset_site *s = &ts->sites[i];
        strmap_init(&ts->st[i].queued);
        strmap_init(&ts->st[i].read);
        ts->n = i + 1;
        char *norm = NULL;
        e = url_normalize(homepages[i], &norm);
        if (e) {
            e = err_set(e, "training site %zu: '%.200s': %s", i, homepages[i], err_msg());
            break;
        }
        e = url_homepage(norm, &s->homepage);
        free(norm);
        if (!e)
            e = url_homepage(s->homepage, &s->site);
        if (!e)
            e = enqueue(&ts->st[i], s->homepage);
    }
    if (e) {
        trainset_free(ts);
        return e;
    }
    *out = ts;
    return ERR_OK;
}

/* Website i is read: no more fetches for it; the caller may checkpoint it. */
static enum err site_finished(struct trainset *ts, size_t i)
{
    ts->st[i].done = 1;
    ts->sites_done++;
    return ts->p.site_done ? ts->p.site_done(ts->p.progress_ctx, i, &ts->sites[i]) : ERR_OK;
}

enum err trainset_restore(struct trainset *ts, size_t i, struct trainset_site *from)
{
    if (i >= ts->n || ts->st[i].done || ts->st[i].home_seen || !from->homepage ||
        strcmp(from->homepage, ts->sites[i].homepage) != 0)
        return err_set(ERR_INVAL, "training site %zu: the saved record is of another website", i);
    trainset_site_release(&ts->sites[i]);
    ts->sites[i] = *from;
    *from = (struct trainset_site){0};
    ts->st[i].done = 1;
    ts->st[i].home_seen = 1;
    ts->sites_done++;
    return ERR_OK;
}

static enum err submit_next(struct trainset *ts, struct fetcher *f, size_t i)
{
    struct site_state *st = &ts->st[i];
    if (st->done || st->in_flight)
        return ERR_OK;
    while (st->head < st->n) {
        char *url = st->queue[st->head];
        st->queue[st->head++] = NULL;
        /* Read meanwhile under another URL (a same-site redirect landed on it). */
        if (strmap_get(&st->read, url, strlen(url))) {
            free(url);
            continue;
        }
        enum err e = fetcher_submit(f, url, ts->p.tag_base + i);
        free(url);
        if (e)
            return e;
        st->in_flight = 1;
        return ERR_OK;
    }
    return site_finished(ts, i); /* nothing left to read on this website */
}

/* Step by step: start submits every homepage; feed takes a result whose tag
 * trainset_owns, records it and submits that site's next page. */
static enum err trainset_start(struct trainset *ts, struct fetcher *f)
{
    for (size_t i = 0; i < ts->n; i++) {
        enum err e = submit_next(ts, f, i);
        if (e)
            return e;
    }
    return ERR_OK;
}

static int trainset_owns(const struct trainset *ts, uint64_t tag)
{
    return tag >= ts->p.tag_base && tag - ts->p.tag_base < ts->n;
}

/* Keep a FETCH_OK page (unless it is one already read) and queue its intrinsic links. */
static enum err read_page(struct trainset_site *s, struct site_state *st,
                          const struct fetch_result *r)
{
    const char *final = r->final_url ? r->final_url : r->url;
    size_t fn = strlen(final);
    if (strmap_get(&st->read, final, fn))
        return ERR_OK; /* the same page under another URL */
    struct pageinfo *info;
    if (pageinfo_from_fetch(r, &info) != ERR_OK)
        return ERR_OK; /* HTML the parser gave up on: not a training page */
    enum err e = strmap_put(&st->read, final, fn, (void *)1);
    if (!e)
        e = grow_array((void **)&s->pages, &st->cap_pages, s->n_pages + 1, sizeof *s->pages);
    if (e)
        goto out;
    struct trainset_page *pg = &s->pages[s->n_pages];
    *pg = (struct trainset_page){0};
    if (!(pg->url = strdup(final))) {
        e = err_set(ERR_NOMEM, "out of memory");
        goto out;
    }
    /* Take the text and the transversal links over from the pageinfo. */
    pg->text = info->text;
    pg->text_len = info->text_len;
    info->text = NULL;
    pg->transversal = info->transversal;
    pg->n_transversal = info->n_transversal;
    info->transversal = NULL;
    info->n_transversal = 0;
    s->n_pages++;
    for (size_t i = 0; i < info->n_intrinsic && !e; i++)
        e = enqueue(st, info->intrinsic[i]);
    /* then the intrinsic links too (the context graph's edges within a website) */
    pg->intrinsic = info->intrinsic;
    pg->n_intrinsic = info->n_intrinsic;
    info->intrinsic = NULL;
    info->n_intrinsic = 0;
out:
    pageinfo_free(info);
    return e;
}

static enum err trainset_feed(struct trainset *ts, struct fetcher *f, const struct fetch_result *r)
{
    if (!trainset_owns(ts, r->tag))
        return err_set(ERR_INVAL, "trainset_feed: tag %llu is not ours",
                       (unsigned long long)r->tag);
    size_t i = (size_t)(r->tag - ts->p.tag_base);
    struct trainset_site *s = &ts->sites[i];
    struct site_state *st = &ts->st[i];
    if (!st->in_flight)
        return err_set(ERR_INVAL, "trainset_feed: no fetch outstanding for site %zu", i);
    st->in_flight = 0;
    ts->fetches++;
    int first = !st->home_seen;
    st->home_seen = 1;
    if (fetch_status_downloaded(r->status))
        s->fetches++;
    enum err e = ERR_OK;
    if (first) {
        s->home_status = r->status;
        s->home_http_status = r->http_status;
        free(s->home_error);
        s->home_error = NULL;
        if (r->status != FETCH_OK && r->status != FETCH_REDIRECT) {
            char why[256];
            snprintf(why, sizeof why, "%s", r->error ? r->error : fetch_status_name(r->status));
            if (!(s->home_error = strdup(why)))
                return err_set(ERR_NOMEM, "out of memory");
        }
    }
    if (r->status == FETCH_OK) {
        e = read_page(s, st, r);
    } else if (first && !s->redirected && r->status == FETCH_REDIRECT && r->redirect_url) {
        /* An alias homepage (x.com -> www.x.com): the target is the website to learn. */
        s->redirected = 1;
        st->home_seen = 0;
        free(s->site);
        s->site = NULL;
        e = url_homepage(r->redirect_url, &s->site);
        if (!e)
            e = enqueue(st, r->redirect_url);
    }
    if (e)
        return e;
    if ((int)s->n_pages >= ts->p.pages_per_site || s->fetches >= ts->p.max_fetches)
        return site_finished(ts, i);
    return submit_next(ts, f, i);
}

int trainset_done(const struct trainset *ts)
{
    return ts->sites_done == ts->n;
}

void trainset_get_progress(const struct trainset *ts, struct trainset_progress *out)
{
    *out = (struct trainset_progress){0};
    out->sites = ts->n;
    out->sites_done = ts->sites_done;
    out->fetches = ts->fetches;
    for (size_t i = 0; i < ts->n; i++) {
        size_t got = ts->sites[i].n_pages;
        out->pages_done += got;
        out->pages_expected += ts->st[i].done ? got : (size_t)ts->p.pages_per_site;
    }
}

static int trainset_report(struct trainset *ts)
{
    if (!ts->p.progress)
        return 0;
    struct trainset_progress pr;
    trainset_get_progress(ts, &pr);
    return ts->p.progress(ts->p.progress_ctx, &pr);
}

/* ---- trainset_run on the refill loop (crawler/crawlloop) ---- */

struct collect {
    struct trainset *ts;
    struct fetcher *f;
};

static int collect_finished(void *arg)
{
    return trainset_done(((struct collect *)arg)->ts);
}

static enum err collect_feed(void *arg, struct fetch_result *r)
{
    struct collect *c = arg;
    if (!trainset_owns(c->ts, r->tag))
        return err_set(ERR_CONFLICT, "trainset_run: a fetch result that is not ours");
    return trainset_feed(c->ts, c->f, r);
}

static enum err collect_tick(void *arg)
{
    struct collect *c = arg;
    return trainset_report(c->ts) ? err_set(ERR_INTERRUPT, "stopped") : ERR_OK;
}

enum err trainset_run(struct trainset *ts, struct fetcher *f)
{
    static const struct crawlloop_hooks hooks = {
        .finished = collect_finished, .feed = collect_feed, .tick = collect_tick};
    struct collect c = {ts, f};
    enum err e = trainset_start(ts, f);
    if (!e)
        e = collect_tick(&c);
    return e ? e : crawlloop_run(f, &hooks, &c);
}

size_t trainset_count(const struct trainset *ts)
{
    return ts->n;
}

const struct trainset_site *trainset_site(const struct trainset *ts, size_t i)
{
    return i < ts->n ? &ts->sites[i] : NULL;
}

/* Why website s gave no page. */
static const char *unread_cause(const struct trainset_site *s)
{
    if (s->home_error)
        return s->home_error;
    return s->home_status == FETCH_OK ? "no readable HTML" : fetch_status_name(s->home_status);
}

void trainset_unread(const struct trainset *ts, size_t from, size_t to, size_t *unread, char *why,
                     size_t cap)
{
    *unread = 0;
    if (cap)
        why[0] = '\0';
    size_t best = 0;
    if (to > ts->n)
        to = ts->n;
    for (size_t i = from; i < to; i++) {
        if (ts->sites[i].n_pages)
            continue;
        ++*unread;
        const char *c = unread_cause(&ts->sites[i]);
        size_t same = 0; /* a few hundred websites at most: counting pairs is fine */
        for (size_t j = from; j < to; j++)
            same += !ts->sites[j].n_pages && strcmp(unread_cause(&ts->sites[j]), c) == 0;
        if (same > best) {
            best = same;
            snprintf(why, cap, "%s", c);
        }
    }
}

/* Up to per_site pages of each website, in BFS order (the homepage first). */
static enum err docs_of(const struct trainset *ts, size_t n_relevant, size_t per_site,
                        struct pagecls_doc **docs, size_t *n_docs)
{
    size_t n = 0;
    for (size_t i = 0; i < ts->n; i++)
        n += ts->sites[i].n_pages < per_site ? ts->sites[i].n_pages : per_site;
    struct pagecls_doc *d = calloc(n ? n : 1, sizeof *d);
    if (!d)
        return err_set(ERR_NOMEM, "out of memory");
    size_t k = 0, classes[2] = {0, 0};
    for (size_t i = 0; i < ts->n; i++) {
        const struct trainset_site *site = &ts->sites[i];
        uint32_t cls = i < n_relevant ? PAGECLS_TARGET : PAGECLS_OTHER;
        for (size_t j = 0; j < site->n_pages && j < per_site; j++) {
            d[k++] = (struct pagecls_doc){site->pages[j].text, site->pages[j].text_len, cls,
                                          (uint32_t)i};
            classes[cls]++;
        }
    }
    if (!classes[PAGECLS_TARGET] || !classes[PAGECLS_OTHER]) {
        free(d);
        int rel = !classes[PAGECLS_TARGET];
        size_t unread;
        char why[256];
        trainset_unread(ts, rel ? 0 : n_relevant, rel ? n_relevant : ts->n, &unread, why,
                        sizeof why);
        return err_set(ERR_INVAL, "no training page could be fetched from the %s sites%s%s",
                       rel ? "relevant" : "other", why[0] ? ": " : "", why);
    }
    *docs = d;
    *n_docs = k;
    return ERR_OK;
}

enum err trainset_docs(const struct trainset *ts, size_t n_relevant, struct pagecls_doc **docs,
                       size_t *n_docs)
{
    return docs_of(ts, n_relevant, SIZE_MAX, docs, n_docs);
}

enum err trainset_home_docs(const struct trainset *ts, size_t n_relevant, struct pagecls_doc **docs,
                            size_t *n_docs)
{
    return docs_of(ts, n_relevant, 1, docs, n_docs);
}

static enum err add_edge(struct ctxgraph_edge **edges, size_t *n, size_t *cap, size_t from,
                         size_t to)
{
    enum err e = grow_array((void **)edges, cap, *n + 1, sizeof **edges);
    if (!e)
        (*edges)[(*n)++] = (struct ctxgraph_edge){from, to};
    return e;
}

/* Page from's link url as an edge: to the page read under that URL, else to the homepage
 * of the relevant website it is on. seen: the pages from already links to (index + 1). */
static enum err link_edge(const struct strmap *pages, const struct strmap *relevant,
                          struct strmap *seen, size_t from, const char *url,
                          struct ctxgraph_edge **edges, size_t *n, size_t *cap)
{
    void *to = strmap_get(pages, url, strlen(url));
    char *home = NULL;
    if (!to && url_homepage(url, &home) == ERR_OK)
        to = strmap_get(relevant, home, strlen(home));
    free(home);
    if (!to)
        return ERR_OK;
    char key[32];
    int kn = snprintf(key, sizeof key, "%zu", (size_t)(uintptr_t)to);
    if (strmap_get(seen, key, (size_t)kn))
        return ERR_OK;
    enum err e = strmap_put(seen, key, (size_t)kn, (void *)1);
    return e ? e : add_edge(edges, n, cap, from, (size_t)(uintptr_t)to - 1);
}

enum err trainset_links(const struct trainset *ts, size_t n_relevant, struct ctxgraph_edge **edges,
                        size_t *n_edges)
{
    struct strmap pages, relevant, seen;
    strmap_init(&pages);
    strmap_init(&relevant);
    strmap_init(&seen);
    *edges = NULL;
    *n_edges = 0;
    size_t cap = 0, k = 0;
    enum err e = ERR_OK;
    for (size_t i = 0; !e && i < ts->n; i++) {
        const struct trainset_site *s = &ts->sites[i];
        if (i < n_relevant && s->n_pages && s->site)
            e = strmap_put(&relevant, s->site, strlen(s->site), (void *)(uintptr_t)(k + 1));
        for (size_t j = 0; !e && j < s->n_pages; j++, k++)
            e = strmap_put(&pages, s->pages[j].url, strlen(s->pages[j].url),
                           (void *)(uintptr_t)(k + 1));
    }
    k = 0;
    for (size_t i = 0; !e && i < ts->n; i++)
        for (size_t j = 0; !e && j < ts->sites[i].n_pages; j++, k++) {
            const struct trainset_page *pg = &ts->sites[i].pages[j];
            strmap_release(&seen);
            strmap_init(&seen);
            for (size_t l = 0; !e && l < pg->n_intrinsic; l++)
                e = link_edge(&pages, &relevant, &seen, k, pg->intrinsic[l], edges, n_edges, &cap);
            for (size_t l = 0; !e && l < pg->n_transversal; l++)
                e = link_edge(&pages, &relevant, &seen, k, pg->transversal[l], edges, n_edges,
                              &cap);
        }
    strmap_release(&pages);
    strmap_release(&relevant);
    strmap_release(&seen);
    if (e) {
        free(*edges);
        *edges = NULL;
        *n_edges = 0;
    }
    return e;
}
