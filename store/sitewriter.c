/* The website crawler's writes on a thread of their own (see sitewriter.h). */
#include "store/sitewriter.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "store/sitewrite.h"
#include "store/store.h"

/* A queued result: r points into the item's own copies. */
struct item {
    struct item *next;
    enum sitewrite_kind kind;
    struct crawlstore_site_result r;
};

struct sitewriter {
    struct store *s;
    int64_t job;
    const char *worker;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;    /* the thread: work, or stop */
    pthread_cond_t changed; /* the crawl: room in the queue, or everything written */
    struct item *head, *tail;
    size_t pending; /* queued + the one being written */
    int flushing;   /* crawl threads waiting in sitewriter_flush: no lingering */
    int stopping, discard;
    int reconnects; /* store_reconnects of s, read by the writer's thread */
    enum err error; /* the first write that failed (not a conflict): the writer stopped */
    char why[512];
};

/* ---- a deep copy of a result, in one allocation ---- */

static size_t text_size(const char *s)
{
    return s ? strlen(s) + 1 : 0;
}

static const char *text_copy(char **at, const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    memcpy(*at, s, n);
    const char *copy = *at;
    *at += n;
    return copy;
}

static struct item *item_copy(const struct crawlstore_site_result *r, enum sitewrite_kind kind)
{
    size_t text = text_size(r->host) + text_size(r->purpose) + text_size(r->homepage) +
                  text_size(r->verdict_by) + text_size(r->read_stop) + text_size(r->error) +
                  text_size(r->like_rejected);
    for (size_t i = 0; i < r->n_pages; i++)
        text += text_size(r->pages[i].url) + text_size(r->pages[i].status) +
                text_size(r->pages[i].terms);
    for (size_t i = 0; i < r->n_edges; i++)
        text += text_size(r->edges[i].host) + text_size(r->edges[i].homepage);
    size_t pages = r->n_pages * sizeof(struct crawlstore_page);
    size_t edges = r->n_edges * sizeof(struct crawlstore_edge);
    struct item *it = malloc(sizeof *it + pages + edges + text);
    if (!it)
        return NULL;
    struct crawlstore_page *pg = (struct crawlstore_page *)(it + 1);
    struct crawlstore_edge *ed = (struct crawlstore_edge *)((char *)pg + pages);
    char *at = (char *)ed + edges;
    *it = (struct item){.kind = kind, .r = *r};
    it->r.host = text_copy(&at, r->host);
    it->r.purpose = text_copy(&at, r->purpose);
    it->r.homepage = text_copy(&at, r->homepage);
    it->r.verdict_by = text_copy(&at, r->verdict_by);
    it->r.read_stop = text_copy(&at, r->read_stop);
    it->r.error = text_copy(&at, r->error);
    it->r.like_rejected = text_copy(&at, r->like_rejected);
    for (size_t i = 0; i < r->n_pages; i++) {
        pg[i] = r->pages[i];
        pg[i].url = text_copy(&at, r->pages[i].url);
        pg[i].status = text_copy(&at, r->pages[i].status);
        pg[i].terms = text_copy(&at, r->pages[i].terms);
    }
    for (size_t i = 0; i < r->n_edges; i++) {
        ed[i] = r->edges[i];
        ed[i].host = text_copy(&at, r->edges[i].host);
        ed[i].homepage = text_copy(&at, r->edges[i].homepage);
    }
    it->r.pages = pg;
    it->r.edges = ed;
    return it;
}

/* ---- the thread ---- */

/* The lock held: a small batch waits a little for more (sitewriter.h). */
static void linger(struct sitewriter *w)
{
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    long ns = until.tv_nsec + SITEWRITER_LINGER_MS * 1000000L;
    until.tv_sec += ns / 1000000000L;
    until.tv_nsec = ns % 1000000000L;
    while (!w->stopping && !w->flushing && w->pending < SITEWRITER_LINGER_N)
        if (pthread_cond_timedwait(&w->wake, &w->lock, &until) != 0)
            break; /* timed out */
}

/*
 * Everything queued (up to SITEWRITE_BATCH_MAX results) goes in one round trip and one
 * transaction: a crawl that queues faster than one write a round trip gets batches.
 */
static void *writer_main(void *arg)
{
    struct sitewriter *w = arg;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (!w->head && !w->stopping)
            pthread_cond_wait(&w->wake, &w->lock);
        if (!w->head || (w->stopping && w->discard))
            break;
        linger(w);
        struct sitewrite_item batch[SITEWRITE_BATCH_MAX];
        size_t n = 0;
        for (struct item *it = w->head; it && n < SITEWRITE_BATCH_MAX; it = it->next)
            batch[n++] = (struct sitewrite_item){.r = &it->r, .kind = it->kind};
        pthread_mutex_unlock(&w->lock); /* the crawl only appends meanwhile */
        enum err e = sitewrite_batch(w->s, w->job, batch, n);
        for (size_t i = 0; !e && i < n; i++)
            if (batch[i].outcome) /* examined by another runner meanwhile, or the job ended */
                log_warn("extcrawl: %s", batch[i].why);
        pthread_mutex_lock(&w->lock);
        w->reconnects = store_reconnects(w->s);
        for (size_t i = 0; i < n; i++) {
            struct item *it = w->head;
            w->head = it->next;
            w->pending--;
            free(it);
        }
        if (!w->head)
            w->tail = NULL;
        if (e) {
            w->error = e;
            snprintf(w->why, sizeof w->why, "%s", err_msg());
            break;
        }
        pthread_cond_broadcast(&w->changed);
    }
    /* Stopped: by a failed write, or told to drop the rest. */
    while (w->head) {
        struct item *it = w->head;
        w->head = it->next;
        free(it);
    }
    w->tail = NULL;
    w->pending = 0;
    w->stopping = 1;
    pthread_cond_broadcast(&w->changed);
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

/* The writer's error, set again on the calling thread (lock held). */
static enum err writer_error(struct sitewriter *w)
{
    if (w->error)
        return err_set(w->error, "%s", w->why);
    return err_set(ERR_DB, "the site writer has stopped");
}

/* ---- the crawl's side ---- */

enum err sitewriter_start(const char *url, int timeout_ms, int64_t job, const char *worker,
                          struct sitewriter **out)
{
    *out = NULL;
    struct sitewriter *w = calloc(1, sizeof *w);
    if (!w)
        return err_set(ERR_NOMEM, "out of memory");
    w->job = job;
    w->worker = worker;
    enum err e = store_open(url, timeout_ms, &w->s);
    if (e) {
        free(w);
        return e;
    }
    pthread_mutex_init(&w->lock, NULL);
    pthread_condattr_t monotonic;
    pthread_condattr_init(&monotonic);
    pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC); /* linger's deadline */
    pthread_cond_init(&w->wake, &monotonic);
    pthread_condattr_destroy(&monotonic);
    pthread_cond_init(&w->changed, NULL);
    if (pthread_create(&w->thread, NULL, writer_main, w) != 0) {
        pthread_cond_destroy(&w->changed);
        pthread_cond_destroy(&w->wake);
        pthread_mutex_destroy(&w->lock);
        store_free(w->s);
        free(w);
        return err_set(ERR_IO, "cannot start the site writer's thread");
    }
    *out = w;
    return ERR_OK;
}

static enum err enqueue(struct sitewriter *w, const struct crawlstore_site_result *r,
                        enum sitewrite_kind kind)
{
    struct item *it = item_copy(r, kind);
    if (!it)
        return err_set(ERR_NOMEM, "out of memory");
    pthread_mutex_lock(&w->lock);
    while (!w->stopping && w->pending >= SITEWRITER_QUEUE_MAX)
        pthread_cond_wait(&w->changed, &w->lock);
    if (w->stopping) {
        enum err e = writer_error(w);
        pthread_mutex_unlock(&w->lock);
        free(it);
        return e;
    }
    if (w->tail)
        w->tail->next = it;
    else
        w->head = it;
    w->tail = it;
    w->pending++;
    if (w->pending == 1 || w->pending >= SITEWRITER_LINGER_N) /* idle, or lingering enough */
        pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    return ERR_OK;
}

enum err sitewriter_done(struct sitewriter *w, const struct crawlstore_site_result *r)
{
    return enqueue(w, r, SITEWRITE_DONE);
}

enum err sitewriter_more(struct sitewriter *w, const struct crawlstore_site_result *r)
{
    return enqueue(w, r, SITEWRITE_MORE);
}

enum err sitewriter_failed(struct sitewriter *w, const char *host, const char *error, int fetches)
{
    struct crawlstore_site_result r = {
        .host = host, .fetches = fetches, .error = error, .claimed_by = w->worker};
    return enqueue(w, &r, SITEWRITE_FAILED);
}

enum err sitewriter_abandon(struct sitewriter *w, const char *host, int fetches)
{
    struct crawlstore_site_result r = {.host = host, .fetches = fetches, .claimed_by = w->worker};
    return enqueue(w, &r, SITEWRITE_ABANDON);
}

int sitewriter_reconnects(struct sitewriter *w)
{
    pthread_mutex_lock(&w->lock);
    int n = w->reconnects;
    pthread_mutex_unlock(&w->lock);
    return n;
}

size_t sitewriter_pending(struct sitewriter *w)
{
    pthread_mutex_lock(&w->lock);
    size_t n = w->pending;
    pthread_mutex_unlock(&w->lock);
    return n;
}

enum err sitewriter_flush(struct sitewriter *w)
{
    pthread_mutex_lock(&w->lock);
    w->flushing++;
    pthread_cond_signal(&w->wake); /* a lingering writer writes now */
    while (!w->stopping && w->pending)
        pthread_cond_wait(&w->changed, &w->lock);
    w->flushing--;
    enum err e = w->stopping ? writer_error(w) : ERR_OK;
    pthread_mutex_unlock(&w->lock);
    return e;
}

void sitewriter_stop(struct sitewriter *w, int discard)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->lock);
    if (!w->stopping) {
        w->stopping = 1;
        w->discard = discard;
        pthread_cond_signal(&w->wake);
    }
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    pthread_cond_destroy(&w->changed);
    pthread_cond_destroy(&w->wake);
    pthread_mutex_destroy(&w->lock);
    store_free(w->s);
    free(w);
}
