/* The fetcher's clients and pool: requests in, results out, one thread driving sched and curl. */
#include "crawler/fetch.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "common/monotime.h"
#include "crawler/fetchcurl.h"
#include "crawler/fetchproxy.h"
#include "crawler/fetchsched.h"
#include "crawler/robots.h"
#include "crawler/url.h"
#include "crawler/warcwrite.h"

struct fetcher;

/* A submitted URL, from fetcher_submit until its result is delivered. */
struct request {
    struct fetchsched_req s; /* first, so the scheduler's pointer is ours; s.url = current */
    struct fetcher *client;  /* whose result it is */
    uint64_t tag;
    char *url;     /* as submitted, normalised */
    char *current; /* after same-site redirects */
    int redirects;
    int retries; /* transient failures asked again */
    double elapsed_ms;
};

/*
 * The engine: one thread driving the scheduler and curl. Clients (struct fetcher)
 * submit to it and take their own results; the scheduler shares the transfers.
 */
struct fetch_pool {
    struct fetch_config cfg; /* proxy and user_agent: NULL (fetchcurl has copies) */
    pthread_t thread;
    int thread_started;

    /* Shared with other threads, under lock (which also guards every client's queue). */
    pthread_mutex_t lock;
    struct request *inbox_head, *inbox_tail; /* linked by s.next */
    struct fetcher *clients;
    int detach_pending; /* a client waits to be detached */
    int stop;

    /* Owned by the pool thread (curl: fetchcurl_wakeup from any thread). */
    struct fetchcurl *curl;
    struct fetchsched *sched;
};

/* A client of a pool: its requests and results. */
struct fetcher {
    struct fetchsched_client sched; /* first, so the scheduler's pointer is ours; pool thread */
    struct fetch_pool *pool;
    int owns_pool; /* made by fetcher_new: the pool goes with it */
    struct fetcher *next_client;

    /* Under pool->lock. */
    pthread_cond_t done_cond;
    struct fetch_result **done; /* FIFO ring of finished results */
    size_t done_cap, done_first, done_len;
    int outstanding;
    struct fetch_stats stats;
    int detaching, detached;
    struct warcwrite *warc; /* WARC capture of this client's transfers, or NULL */
};

static const char *const status_names[FETCH_STATUS_COUNT] = {
    "ok",       "http_error", "redirect", "too_many_redirects",
    "not_html", "robots",     "dns",      "connect",
    "timeout",  "blocked",    "network",  "bad_url",
};

const char *fetch_status_name(enum fetch_status s)
{
    return (unsigned)s < FETCH_STATUS_COUNT ? status_names[s] : "unknown";
}

int fetch_status_downloaded(enum fetch_status s)
{
    return s != FETCH_ROBOTS && s != FETCH_BLOCKED && s != FETCH_BAD_URL;
}

int fetch_status_unreached(enum fetch_status s)
{
    return s == FETCH_DNS || s == FETCH_CONNECT || s == FETCH_TIMEOUT || s == FETCH_NETWORK;
}

/* The pool's clock: its config's, or the monotonic one. */
static int64_t pool_now(const struct fetch_pool *f)
{
    return f->cfg.now_ms ? f->cfg.now_ms() : monotime_ms();
}

void fetch_config_defaults(struct fetch_config *c)
{
    memset(c, 0, sizeof *c);
    c->max_in_flight = 64;
    c->per_host = 1;
    c->delay_ms = 1000;
    c->connect_timeout_ms = 10000;
    c->timeout_ms = 30000;
    c->low_speed_bytes = 100;
    c->low_speed_secs = 15;
    c->max_body = (size_t)2 << 20;
    c->max_redirects = 5;
    c->obey_robots = 1;
    c->robots_retry_ms = ROBOTS_RETRY_MS;
    c->max_retries = 2;
    c->retry_ms = 1000;
}

int fetch_retry_wait_ms(const struct fetch_config *c, enum fetch_status status, int http_status,
                        long retry_after_s, int retries)
{
    int transient =
        status == FETCH_NETWORK || status == FETCH_TIMEOUT ||
        (status == FETCH_HTTP_ERROR &&
         (http_status == 429 || (http_status >= 500 && http_status <= 504 && http_status != 501)));
    if (!transient || retries < 0 || retries >= c->max_retries)
        return -1;
    if (status == FETCH_TIMEOUT && retries >= 1)
        return -1; /* a host that slow may well be so again: one more wait at most */
    long wait = (long)c->retry_ms << (retries < 16 ? retries : 16);
    if (retry_after_s > FETCH_RETRY_MAX_MS / 1000)
        return -1; /* the site asks for longer than a crawl waits on one page */
    if (retry_after_s * 1000 > wait)
        wait = retry_after_s * 1000;
    return (int)(wait < FETCH_RETRY_MAX_MS ? wait : FETCH_RETRY_MAX_MS);
}

void fetch_result_free(struct fetch_result *r)
{
    if (!r)
        return;
    free(r->url);
    free(r->final_url);
    free(r->content_type);
    free(r->redirect_url);
    free(r->body);
    free(r->error);
    free(r);
}

static void request_free(struct request *q)
{
    if (!q)
        return;
    free(q->url);
    free(q->current);
    free(q);
}

static void request_free_chain(struct fetchsched_req *s)
{
    while (s) {
        struct fetchsched_req *next = s->next;
        request_free((struct request *)s);
        s = next;
    }
}

/* ---- results ------------------------------------------------------------ */

/* Hand a finished result to its client. Takes ownership of r. Any thread. */
static void deliver(struct fetch_pool *f, struct fetcher *c, struct fetch_result *r)
{
    pthread_mutex_lock(&f->lock);
    if (c->done_len == c->done_cap) {
        size_t cap = c->done_cap ? c->done_cap * 2 : 256;
        struct fetch_result **ring = malloc(cap * sizeof *ring);
        if (!ring) {
            pthread_mutex_unlock(&f->lock);
            log_error("fetcher: out of memory: dropping the result of %s", r->url);
            fetch_result_free(r);
            return;
        }
        for (size_t i = 0; i < c->done_len; i++)
            ring[i] = c->done[(c->done_first + i) % c->done_cap];
        free(c->done);
        c->done = ring;
        c->done_cap = cap;
        c->done_first = 0;
    }
    c->done[(c->done_first + c->done_len) % c->done_cap] = r;
    c->done_len++;
    c->stats.completed++;
    c->stats.by_status[r->status]++;
    pthread_cond_signal(&c->done_cond);
    pthread_mutex_unlock(&f->lock);
}

/*
 * The result of q with status and a message (NULL for none); frees q. NULL (logged)
 * when out of memory. q must be out of the scheduler's hands.
 */
static struct fetch_result *result_take(struct request *q, enum fetch_status status,
                                        const char *error)
{
    struct fetch_result *r = calloc(1, sizeof *r);
    if (!r) {
        log_error("fetcher: out of memory: dropping the result of %s", q->url);
        request_free(q);
        return NULL;
    }
    r->tag = q->tag;
    r->url = q->url;
    r->final_url = q->current;
    q->url = q->current = NULL;
    r->status = status;
    r->redirects = q->redirects;
    r->retries = q->retries;
    r->elapsed_ms = q->elapsed_ms;
    r->error = error ? strdup(error) : NULL;
    request_free(q);
    return r;
}

/* Finish q without a response. Any thread. */
static void finish(struct fetch_pool *f, struct request *q, enum fetch_status status,
                   const char *error)
{
    struct fetcher *c = q->client;
    struct fetch_result *r = result_take(q, status, error);
    if (r)
        deliver(f, c, r);
}

/* ---- the scheduler's requests to the pool ------------------------------- */

static enum err pool_start_transfer(void *ctx, struct fetchsched_host *h, struct fetchsched_req *s,
                                    const char *url, struct fetchsched_client *who)
{
    struct fetch_pool *f = ctx;
    struct fetcher *c = (struct fetcher *)who;
    pthread_mutex_lock(&f->lock);
    struct warcwrite *warc = c ? c->warc : NULL;
    pthread_mutex_unlock(&f->lock);
    /*
     * Page transfers are grouped by client, to be cancelled when it leaves. A robots.txt
     * goes into the WARC files of the client that asked for it.
     */
    enum err e = fetchcurl_start(f->curl, url, h, s, s ? c : NULL, warc);
    if (e)
        return e;
    pthread_mutex_lock(&f->lock);
    if (s)
        c->stats.in_flight++;
    c->stats.requests++;
    if (!s)
        c->stats.robots_requests++;
    pthread_mutex_unlock(&f->lock);
    return ERR_OK;
}

static void pool_finish_request(void *ctx, struct fetchsched_req *s, enum fetch_status status,
                                const char *error)
{
    finish(ctx, (struct request *)s, status, error);
}

static const struct fetchsched_ops sched_ops = {pool_start_transfer, pool_finish_request};

/* ---- the pool thread ---------------------------------------------------- */

/* A page transfer ended: deliver its result, or follow a same-site redirect. */
static void page_ended(struct fetch_pool *f, struct fetchcurl_done *d)
{
    struct request *q = d->req;
    struct fetcher *c = q->client;
    q->elapsed_ms += d->elapsed_ms;
    pthread_mutex_lock(&f->lock);
    c->stats.in_flight--;
    c->stats.bytes += d->body_len;
    pthread_mutex_unlock(&f->lock);
    enum fetch_status status = d->status;
    const char *error = d->error;
    char why[256];
    int wait = fetch_retry_wait_ms(&f->cfg, status, d->http_status, d->retry_after_s, q->retries);
    if (wait >= 0) {
        /* A transient failure: first in its host's queue again, after the back-off. */
        log_debug("fetcher: %s: %s (%s): asking again in %d ms", q->current,
                  fetch_status_name(status), error ? error : "", wait);
        q->retries++;
        pthread_mutex_lock(&f->lock);
        c->stats.retries++;
        pthread_mutex_unlock(&f->lock);
        fetchsched_retry(f->sched, d->host, &q->s, pool_now(f) + wait);
        return;
    }
    if (status == FETCH_REDIRECT && d->same_site &&
        fetchcurl_url_refused(f->curl, d->location, why, sizeof why)) {
        /* Same host, so never so far; but each hop is checked, whatever "same site" means. */
        status = FETCH_BLOCKED;
        error = why;
    } else if (status == FETCH_REDIRECT && d->same_site) {
        if (q->redirects < f->cfg.max_redirects) {
            /* Same host: go first in its queue, after the usual delay. */
            free(q->current);
            q->current = d->location;
            q->s.url = q->current;
            d->location = NULL;
            q->redirects++;
            fetchsched_requeue(f->sched, d->host, &q->s);
            return;
        }
        status = FETCH_TOO_MANY_REDIRECTS;
        error = "too many redirects";
    }
    fetchsched_req_done(f->sched, &q->s);
    struct fetch_result *r = result_take(q, status, error);
    if (!r)
        return;
    if (status == FETCH_REDIRECT) {
        r->redirect_url = d->location; /* another site's */
        d->location = NULL;
    }
    r->http_status = d->http_status;
    r->content_type = d->content_type;
    r->body = d->body;
    r->body_len = d->body_len;
    r->truncated = d->truncated;
    d->content_type = d->body = NULL;
    deliver(f, c, r);
}

/* Hand every ended transfer to its client and to the scheduler. */
static void drain_curl(struct fetch_pool *f)
{
    struct fetchcurl_done d;
    while (fetchcurl_take_done(f->curl, &d)) {
        int64_t now = pool_now(f);
        struct fetchsched_client *c = NULL;
        if (d.req) {
            c = &((struct request *)d.req)->client->sched;
            page_ended(f, &d);
        } else {
            if (d.error || d.down != FETCH_OK || d.http_status >= 500) {
                char why[FETCHCURL_WHY_MAX];
                if (d.error)
                    snprintf(why, sizeof why, "%s", d.error);
                else
                    snprintf(why, sizeof why, "robots.txt answered HTTP status %d", d.http_status);
                fetchsched_robots_failed(f->sched, d.host, why);
            }
            fetchsched_robots_done(f->sched, d.host, d.http_status, d.body, d.body_len, d.down,
                                   now);
        }
        fetchsched_transfer_done(f->sched, d.host, c, now);
        fetchcurl_done_release(&d);
    }
}

/* Move submitted requests into the scheduler. */
static void take_inbox(struct fetch_pool *f)
{
    pthread_mutex_lock(&f->lock);
    struct request *q = f->inbox_head;
    f->inbox_head = f->inbox_tail = NULL;
    pthread_mutex_unlock(&f->lock);
    while (q) {
        struct request *next = (struct request *)q->s.next;
        char why[256];
        q->s.next = NULL;
        if (fetchcurl_url_refused(f->curl, q->current, why, sizeof why))
            finish(f, q, FETCH_BLOCKED, why); /* no request goes out */
        else
            fetchsched_add(f->sched, &q->s);
        q = next;
    }
}

/* Take c's requests out of the inbox and return them (linked by s.next). */
static struct fetchsched_req *inbox_remove(struct fetch_pool *f, const struct fetcher *c)
{
    pthread_mutex_lock(&f->lock);
    struct request *keep_head = NULL, *keep_tail = NULL;
    struct fetchsched_req *drop = NULL;
    for (struct request *q = f->inbox_head, *next; q; q = next) {
        next = (struct request *)q->s.next;
        q->s.next = NULL;
        if (q->client == c) {
            q->s.next = drop;
            drop = &q->s;
        } else {
            if (keep_tail)
                keep_tail->s.next = &q->s;
            else
                keep_head = q;
            keep_tail = q;
        }
    }
    f->inbox_head = keep_head;
    f->inbox_tail = keep_tail;
    pthread_mutex_unlock(&f->lock);
    return drop;
}

/*
 * Take client c out of the pool: its queued requests are dropped, its transfers
 * aborted (the host still gets its delay), then its fetcher_free may go on.
 */
static void detach_client(struct fetch_pool *f, struct fetcher *c)
{
    request_free_chain(inbox_remove(f, c));
    int64_t now = pool_now(f);
    void *host, *req;
    while (fetchcurl_cancel(f->curl, c, &host, &req)) {
        struct request *q = req;
        fetchsched_transfer_aborted(f->sched, host, &q->s, now);
        request_free(q);
    }
    request_free_chain(fetchsched_client_leave(f->sched, &c->sched));
    pthread_mutex_lock(&f->lock);
    for (struct fetcher **link = &f->clients; *link; link = &(*link)->next_client)
        if (*link == c) {
            *link = c->next_client;
            break;
        }
    c->detached = 1;
    pthread_cond_broadcast(&c->done_cond);
    pthread_mutex_unlock(&f->lock);
}

static void detach_pending(struct fetch_pool *f)
{
    for (;;) {
        struct fetcher *c = NULL;
        pthread_mutex_lock(&f->lock);
        for (struct fetcher *x = f->clients; x && !c; x = x->next_client)
            if (x->detaching)
                c = x;
        if (!c)
            f->detach_pending = 0;
        pthread_mutex_unlock(&f->lock);
        if (!c)
            return;
        detach_client(f, c);
    }
}

static void *pool_main(void *arg)
{
    struct fetch_pool *f = arg;
    for (;;) {
        pthread_mutex_lock(&f->lock);
        int stop = f->stop, detach = f->detach_pending;
        pthread_mutex_unlock(&f->lock);
        if (stop)
            break;
        if (detach)
            detach_pending(f);
        take_inbox(f);
        (void)fetchsched_run(f->sched, pool_now(f));
        fetchcurl_perform(f->curl);
        drain_curl(f);
        long wait = fetchsched_run(f->sched, pool_now(f));
        long curl_wait = fetchcurl_timeout(f->curl);
        if (curl_wait >= 0 && (wait < 0 || curl_wait < wait))
            wait = curl_wait;
        if (wait < 0 || wait > 1000)
            wait = 1000;
        fetchcurl_wait(f->curl, wait);
    }
    return NULL;
}

/* ---- public API --------------------------------------------------------- */

enum err fetch_pool_new(const struct fetch_config *c, struct fetch_pool **out)
{
    *out = NULL;
    if (c->max_in_flight < 1 || c->per_host < 1 || c->delay_ms < 0 || c->max_body < 1 ||
        c->max_redirects < 0 || c->robots_retry_ms < 1 || c->max_retries < 0 || c->retry_ms < 0)
        return err_set(ERR_INVAL, "bad fetcher configuration");
    char why[200];
    if (c->proxy && *c->proxy && fetch_proxy_invalid(c->proxy, why, sizeof why))
        return err_set(ERR_INVAL, "--proxy %s", why);
    struct fetch_pool *f = calloc(1, sizeof *f);
    if (!f)
        return err_set(ERR_NOMEM, "out of memory");
    f->cfg = *c;
    f->cfg.proxy = f->cfg.user_agent = NULL; /* the caller's; fetchcurl keeps copies */
    pthread_mutex_init(&f->lock, NULL);
    const struct fetchsched_config sc = {c->max_in_flight, c->per_host, c->obey_robots,
                                         c->robots_retry_ms};
    enum err e = fetchcurl_new(c, &f->curl);
    if (!e)
        e = fetchsched_new(&sc, &sched_ops, f, &f->sched);
    if (e) {
        fetch_pool_free(f);
        return e;
    }
    if (pthread_create(&f->thread, NULL, pool_main, f) != 0) {
        fetch_pool_free(f);
        return err_set(ERR_IO, "cannot start the fetcher thread");
    }
    f->thread_started = 1;
    *out = f;
    return ERR_OK;
}

void fetch_pool_free(struct fetch_pool *f)
{
    if (!f)
        return;
    if (f->clients)
        log_error("fetcher: a pool freed with clients attached");
    if (f->thread_started) {
        pthread_mutex_lock(&f->lock);
        f->stop = 1;
        pthread_mutex_unlock(&f->lock);
        fetchcurl_wakeup(f->curl);
        pthread_join(f->thread, NULL);
    }
    void *host, *req;
    while (f->curl && fetchcurl_cancel(f->curl, NULL, &host, &req))
        request_free(req);
    for (struct fetcher *c = f->clients; c && f->sched; c = c->next_client)
        request_free_chain(fetchsched_client_leave(f->sched, &c->sched));
    fetchsched_free(f->sched);
    fetchcurl_free(f->curl);
    for (struct request *q = f->inbox_head, *next; q; q = next) {
        next = (struct request *)q->s.next;
        request_free(q);
    }
    pthread_mutex_destroy(&f->lock);
    free(f);
}

enum err fetcher_attach(struct fetch_pool *p, int max_in_flight, int delay_ms, struct fetcher **out)
{
    *out = NULL;
    if (max_in_flight < 1 || delay_ms < 0)
        return err_set(ERR_INVAL, "bad fetcher configuration");
    struct fetcher *c = calloc(1, sizeof *c);
    if (!c)
        return err_set(ERR_NOMEM, "out of memory");
    c->pool = p;
    fetchsched_client_init(&c->sched, max_in_flight, delay_ms);
    pthread_cond_init(&c->done_cond, NULL);
    pthread_mutex_lock(&p->lock);
    c->next_client = p->clients;
    p->clients = c;
    pthread_mutex_unlock(&p->lock);
    *out = c;
    return ERR_OK;
}

enum err fetcher_new(const struct fetch_config *c, struct fetcher **out)
{
    *out = NULL;
    struct fetch_pool *p;
    enum err e = fetch_pool_new(c, &p);
    if (e)
        return e;
    e = fetcher_attach(p, c->max_in_flight, c->delay_ms, out);
    if (e) {
        fetch_pool_free(p);
        return e;
    }
    (*out)->owns_pool = 1;
    return ERR_OK;
}

void fetcher_free(struct fetcher *c)
{
    if (!c)
        return;
    struct fetch_pool *f = c->pool;
    pthread_mutex_lock(&f->lock);
    c->detaching = 1;
    f->detach_pending = 1;
    pthread_mutex_unlock(&f->lock);
    fetchcurl_wakeup(f->curl);
    pthread_mutex_lock(&f->lock);
    while (!c->detached)
        pthread_cond_wait(&c->done_cond, &f->lock);
    pthread_mutex_unlock(&f->lock);
    for (size_t i = 0; i < c->done_len; i++)
        fetch_result_free(c->done[(c->done_first + i) % c->done_cap]);
    free(c->done);
    pthread_cond_destroy(&c->done_cond);
    if (c->owns_pool)
        fetch_pool_free(f);
    warcwrite_unref(c->warc);
    free(c);
}

enum err fetcher_submit(struct fetcher *c, const char *url, uint64_t tag)
{
    struct fetch_pool *f = c->pool;
    struct request *q = calloc(1, sizeof *q);
    if (!q)
        return err_set(ERR_NOMEM, "out of memory");
    q->client = c;
    q->s.client = &c->sched;
    q->tag = tag;
    enum err e = url_normalize(url, &q->url);
    if (e) {
        /* Still a result, so that every submit gets exactly one answer. */
        q->url = strdup(url);
        q->current = strdup(url);
        pthread_mutex_lock(&f->lock);
        c->stats.submitted++;
        c->outstanding++;
        pthread_mutex_unlock(&f->lock);
        finish(f, q, FETCH_BAD_URL, err_msg());
        return ERR_OK;
    }
    q->current = strdup(q->url);
    if (!q->current) {
        request_free(q);
        return err_set(ERR_NOMEM, "out of memory");
    }
    q->s.url = q->current;
    pthread_mutex_lock(&f->lock);
    if (f->inbox_tail)
        f->inbox_tail->s.next = &q->s;
    else
        f->inbox_head = q;
    f->inbox_tail = q;
    c->stats.submitted++;
    c->outstanding++;
    pthread_mutex_unlock(&f->lock);
    fetchcurl_wakeup(f->curl);
    return ERR_OK;
}

enum err fetcher_next(struct fetcher *c, int timeout_ms, struct fetch_result **out)
{
    struct fetch_pool *f = c->pool;
    *out = NULL;
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    if (timeout_ms > 0) {
        deadline.tv_sec += timeout_ms / 1000;
        deadline.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
        if (deadline.tv_nsec >= 1000000000L) {
            deadline.tv_sec++;
            deadline.tv_nsec -= 1000000000L;
        }
    }
    pthread_mutex_lock(&f->lock);
    while (c->done_len == 0) {
        if (timeout_ms == 0)
            break;
        if (timeout_ms < 0)
            pthread_cond_wait(&c->done_cond, &f->lock);
        else if (pthread_cond_timedwait(&c->done_cond, &f->lock, &deadline) != 0)
            break;
    }
    if (c->done_len) {
        *out = c->done[c->done_first];
        c->done_first = (c->done_first + 1) % c->done_cap;
        c->done_len--;
        c->outstanding--;
    }
    pthread_mutex_unlock(&f->lock);
    return *out ? ERR_OK : ERR_TIMEOUT;
}

int fetcher_outstanding(struct fetcher *c)
{
    pthread_mutex_lock(&c->pool->lock);
    int n = c->outstanding;
    pthread_mutex_unlock(&c->pool->lock);
    return n;
}

void fetcher_stats(struct fetcher *c, struct fetch_stats *out)
{
    pthread_mutex_lock(&c->pool->lock);
    *out = c->stats;
    out->queued = c->outstanding - (int)c->done_len - out->in_flight;
    pthread_mutex_unlock(&c->pool->lock);
}

void fetcher_set_warc(struct fetcher *f, struct warcwrite *w)
{
    if (w)
        warcwrite_ref(w);
    pthread_mutex_lock(&f->pool->lock);
    struct warcwrite *old = f->warc;
    f->warc = w;
    pthread_mutex_unlock(&f->pool->lock);
    warcwrite_unref(old);
}
