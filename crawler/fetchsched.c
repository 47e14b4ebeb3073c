/* The fetch scheduler: fair shares between clients, per-host politeness, robots.txt gating. */
#include "crawler/fetchsched.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "common/log.h"
#include "common/strmap.h"
#include "crawler/robots.h"
#include "crawler/url.h"

struct fetchsched_host {
    char *name;                          /* host[:port] */
    struct fetchsched_req *head, *tail;  /* waiting */
    int active;                          /* transfers in flight */
    int64_t next_ms;                     /* earliest start of the next request */
    int64_t last_ms;                     /* when its last transfer started or ended */
    size_t heap_pos;                     /* index + 1 in the ready heap; 0 = not in it */
    struct fetchsched_host *parked_next; /* in the parked list (see fetchsched_run) */
    int parked;
    struct robots_host robots;
    enum fetch_status down; /* FETCH_OK, or why the host cannot be reached ... */
    int64_t down_until_ms;  /* ... until then: its requests fail at once */
    char why[200];          /* why its robots.txt last failed ("" if it did not) */
};

struct fetchsched {
    struct fetchsched_config cfg;
    struct fetchsched_ops ops;
    void *ctx;
    struct strmap hosts;           /* name -> struct fetchsched_host */
    struct fetchsched_host **heap; /* hosts ready to start a request, by next_ms */
    size_t heap_len, heap_cap;
    int in_flight;
    struct fetchsched_host *parked; /* hosts whose next request's client is at its share */
    int active_clients;             /* clients with requests queued on hosts or in flight */
    int filling;                    /* schedule's second pass: slots nobody else can use now */
};

enum err fetchsched_new(const struct fetchsched_config *cfg, const struct fetchsched_ops *ops,
                        void *ctx, struct fetchsched **out)
{
    *out = calloc(1, sizeof **out);
    if (!*out)
        return err_set(ERR_NOMEM, "out of memory");
    (*out)->cfg = *cfg;
    (*out)->ops = *ops;
    (*out)->ctx = ctx;
    strmap_init(&(*out)->hosts);
    return ERR_OK;
}

void fetchsched_free(struct fetchsched *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->hosts.cap; i++) {
        struct fetchsched_host *h = s->hosts.slots[i].value;
        if (!s->hosts.slots[i].key)
            continue;
        if (h->head)
            log_error("fetcher: a scheduler freed with requests queued on %s", h->name);
        robots_host_release(&h->robots);
        free(h->name);
        free(h);
    }
    strmap_release(&s->hosts);
    free(s->heap);
    free(s);
}

void fetchsched_client_init(struct fetchsched_client *c, int cap, int delay_ms)
{
    memset(c, 0, sizeof *c);
    c->cap = cap;
    c->delay_ms = delay_ms;
}

int fetchsched_in_flight(const struct fetchsched *s)
{
    return s->in_flight;
}

/* ---- the ready heap: hosts that may start a request, earliest first ------ */

static void heap_swap(struct fetchsched *s, size_t i, size_t j)
{
    struct fetchsched_host *h = s->heap[i];
    s->heap[i] = s->heap[j];
    s->heap[j] = h;
    s->heap[i]->heap_pos = i + 1;
    s->heap[j]->heap_pos = j + 1;
}

static void heap_up(struct fetchsched *s, size_t i)
{
    while (i > 0 && s->heap[(i - 1) / 2]->next_ms > s->heap[i]->next_ms) {
        heap_swap(s, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static void heap_down(struct fetchsched *s, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < s->heap_len && s->heap[l]->next_ms < s->heap[m]->next_ms)
            m = l;
        if (r < s->heap_len && s->heap[r]->next_ms < s->heap[m]->next_ms)
            m = r;
        if (m == i)
            return;
        heap_swap(s, i, m);
        i = m;
    }
}

static enum err heap_push(struct fetchsched *s, struct fetchsched_host *h)
{
    if (h->heap_pos)
        return ERR_OK;
    enum err e = grow_array((void **)&s->heap, &s->heap_cap, s->heap_len + 1, sizeof *s->heap);
    if (e)
        return e;
    s->heap[s->heap_len] = h;
    h->heap_pos = ++s->heap_len;
    heap_up(s, s->heap_len - 1);
    return ERR_OK;
}

static struct fetchsched_host *heap_pop(struct fetchsched *s)
{
    struct fetchsched_host *top = s->heap[0];
    top->heap_pos = 0;
    s->heap_len--;
    if (s->heap_len) {
        s->heap[0] = s->heap[s->heap_len];
        s->heap[0]->heap_pos = 1;
        heap_down(s, 0);
    }
    return top;
}

/* Put h in the heap if it has work and a free connection. */
static void host_wake(struct fetchsched *s, struct fetchsched_host *h)
{
    if (h->head && h->active < s->cfg.per_host && heap_push(s, h) != ERR_OK)
        log_error("fetcher: %s", err_msg());
}

/* ---- clients' shares --------------------------------------------------- */

/* Hosts held back for a client at its share get another chance. */
static void unpark_all(struct fetchsched *s)
{
    struct fetchsched_host *h = s->parked;
    s->parked = NULL;
    while (h) {
        struct fetchsched_host *next = h->parked_next;
        h->parked_next = NULL;
        h->parked = 0;
        host_wake(s, h);
        h = next;
    }
}

/*
 * A request joins or leaves its host's queue (or a transfer): the client's pending
 * count, and the number of clients with something pending.
 */
static void pending_add(struct fetchsched *s, struct fetchsched_client *c, int d)
{
    if (c->pending == 0 && d > 0)
        s->active_clients++;
    c->pending += d;
    if (c->pending == 0 && d < 0) {
        s->active_clients--;
        unpark_all(s); /* the others' shares grew */
    }
}

/*
 * How many transfers client c may have running now: an equal share of the pool
 * among the clients with requests pending, never more than its own cap, at least one.
 */
static int client_share(const struct fetchsched *s, const struct fetchsched_client *c)
{
    int n = s->active_clients > 0 ? s->active_clients : 1;
    int share = (s->cfg.max_in_flight + n - 1) / n;
    if (share > c->cap)
        share = c->cap;
    return share > 0 ? share : 1;
}

static int client_may_start(const struct fetchsched *s, const struct fetchsched_client *c)
{
    return c->in_flight < (s->filling ? c->cap : client_share(s, c));
}

/* ---- requests and hosts ------------------------------------------------ */

void fetchsched_req_done(struct fetchsched *s, struct fetchsched_req *q)
{
    if (q->on_host) {
        q->on_host = 0;
        pending_add(s, q->client, -1);
    }
}

/* End q without a transfer. */
static void finish(struct fetchsched *s, struct fetchsched_req *q, enum fetch_status status,
                   const char *error)
{
    fetchsched_req_done(s, q);
    s->ops.finish(s->ctx, q, status, error);
}

static struct fetchsched_host *host_get(struct fetchsched *s, const char *url)
{
    size_t n;
    const char *name = url_host_ref(url, &n);
    if (!name)
        return NULL;
    struct fetchsched_host *h = strmap_get(&s->hosts, name, n);
    if (h)
        return h;
    h = calloc(1, sizeof *h);
    if (!h || !(h->name = strndup(name, n))) {
        free(h);
        return NULL;
    }
    robots_host_init(&h->robots);
    h->robots.retry_ms = s->cfg.robots_retry_ms;
    if (strmap_put(&s->hosts, name, n, h) != ERR_OK) {
        robots_host_release(&h->robots);
        free(h->name);
        free(h);
        return NULL;
    }
    return h;
}

void fetchsched_add(struct fetchsched *s, struct fetchsched_req *q)
{
    q->next = NULL;
    struct fetchsched_host *h = host_get(s, q->url);
    if (!h) {
        finish(s, q, FETCH_BAD_URL, "no host, or out of memory");
        return;
    }
    if (h->tail)
        h->tail->next = q;
    else
        h->head = q;
    h->tail = q;
    q->on_host = 1;
    pending_add(s, q->client, 1);
    host_wake(s, h);
}

void fetchsched_requeue(struct fetchsched *s, struct fetchsched_host *h, struct fetchsched_req *q)
{
    (void)s; /* the host wakes when its transfer is done */
    q->next = h->head;
    h->head = q;
    if (!h->tail)
        h->tail = q;
}

void fetchsched_retry(struct fetchsched *s, struct fetchsched_host *h, struct fetchsched_req *q,
                      int64_t at_ms)
{
    fetchsched_requeue(s, h, q);
    if (h->next_ms < at_ms) {
        h->next_ms = at_ms;
        if (h->heap_pos) /* later than it was: it may sink */
            heap_down(s, h->heap_pos - 1);
    }
}

static struct fetchsched_req *host_pop(struct fetchsched_host *h)
{
    struct fetchsched_req *q = h->head;
    h->head = q->next;
    if (!h->head)
        h->tail = NULL;
    q->next = NULL;
    return q;
}

/*
 * Bring to the front of h's queue the first request whose client may start a
 * transfer now, and return it; NULL if every client waiting on h is at its share.
 */
static struct fetchsched_req *host_front_startable(const struct fetchsched *s,
                                                   struct fetchsched_host *h)
{
    struct fetchsched_req *prev = NULL;
    for (struct fetchsched_req *q = h->head; q; prev = q, q = q->next) {
        if (!client_may_start(s, q->client))
            continue;
        if (prev) {
            prev->next = q->next;
            if (h->tail == q)
                h->tail = prev;
            q->next = h->head;
            h->head = q;
        }
        return q;
    }
    return NULL;
}

/* "scheme://host[:port]/robots.txt" for a normalised URL. */
static char *fetchsched_robots_url(const char *url)
{
    char *home = NULL;
    if (url_homepage(url, &home) != ERR_OK)
        return NULL;
    size_t n = strlen(home) + sizeof "robots.txt";
    char *r = malloc(n);
    if (r)
        snprintf(r, n, "%srobots.txt", home);
    free(home);
    return r;
}

/* ---- scheduling --------------------------------------------------------- */

/* Start a transfer for h's front request, through ops->start. */
static void start_page(struct fetchsched *s, struct fetchsched_host *h, int64_t now)
{
    struct fetchsched_req *q = host_pop(h);
    struct fetchsched_client *c = q->client;
    if (s->ops.start(s->ctx, h, q, q->url, c) != ERR_OK) {
        finish(s, q, FETCH_NETWORK, err_msg());
    } else {
        h->active++;
        s->in_flight++;
        c->in_flight++;
    }
    h->next_ms = now + c->delay_ms; /* with per_host > 1: spacing of starts */
    h->last_ms = now;
    host_wake(s, h);
}

/* Fetch h's robots.txt for client who. */
static void start_robots(struct fetchsched *s, struct fetchsched_host *h, const char *url,
                         struct fetchsched_client *who, int64_t now)
{
    char *rurl = fetchsched_robots_url(url);
    if (rurl && s->ops.start(s->ctx, h, NULL, rurl, who) == ERR_OK) {
        h->active++;
        s->in_flight++;
    } else {
        /* Could not even try: report it as unreachable so the policy backs off. */
        if (robots_host_report(&h->robots, 0, "", 0, ROBOTS_PRODUCT, now) != ERR_OK)
            log_warn("fetcher: %s", err_msg());
        host_wake(s, h);
    }
    free(rurl);
}

/* h's front request may go as far as the clients' shares and politeness go: robots.txt. */
static void host_start(struct fetchsched *s, struct fetchsched_host *h,
                       struct fetchsched_req *front, int64_t now)
{
    enum robots_verdict v = ROBOTS_ALLOW;
    int64_t retry_at = 0;
    if (s->cfg.obey_robots)
        v = robots_host_check(&h->robots, url_path_and_query(front->url), now, &retry_at);
    switch (v) {
    case ROBOTS_DISALLOW:
        if (h->robots.state == ROBOTS_GAVE_UP) {
            char why[sizeof h->why + 64];
            snprintf(why, sizeof why, "robots.txt unreachable%s%s: complete disallow",
                     h->why[0] ? ": " : "", h->why);
            finish(s, host_pop(h), FETCH_ROBOTS, why);
        } else {
            finish(s, host_pop(h), FETCH_ROBOTS, "disallowed by robots.txt");
        }
        host_wake(s, h);
        break;
    case ROBOTS_WAIT:
        h->next_ms = retry_at > now ? retry_at : now + 1;
        host_wake(s, h);
        break;
    case ROBOTS_FETCH:
        start_robots(s, h, front->url, front->client, now);
        break;
    case ROBOTS_ALLOW:
        start_page(s, h, now);
        break;
    }
}

/*
 * Start what may start now, each client within its share; returns ms until the next
 * host becomes ready (-1: none).
 */
static long schedule_pass(struct fetchsched *s, int64_t now)
{
    while (s->heap_len && s->in_flight < s->cfg.max_in_flight) {
        struct fetchsched_host *h = s->heap[0];
        if (h->next_ms > now)
            return (long)(h->next_ms - now);
        heap_pop(s);
        if (!h->head || h->active >= s->cfg.per_host)
            continue;
        if (h->down != FETCH_OK && now < h->down_until_ms) {
            const char *why = h->why[0]                  ? h->why
                              : h->down == FETCH_BLOCKED ? "destination refused: private, "
                                                           "reserved or this host's own"
                                                         : "host unreachable";
            while (h->head)
                finish(s, host_pop(h), h->down, why);
            continue;
        }
        /* Clients share the pool: one at its share waits while the others go on. */
        struct fetchsched_req *front = host_front_startable(s, h);
        if (!front) {
            if (!h->parked) {
                h->parked = 1;
                h->parked_next = s->parked;
                s->parked = h;
            }
            continue;
        }
        /* Politeness: the delay of the client asking, after the host's last request. */
        int64_t ready = h->last_ms + front->client->delay_ms;
        if (ready > now && h->last_ms) {
            h->next_ms = ready;
            host_wake(s, h);
            continue;
        }
        host_start(s, h, front, now);
    }
    return -1;
}

/* Is a host parked for a client that is still under its own cap? */
static int parked_fillable(const struct fetchsched *s)
{
    for (const struct fetchsched_host *h = s->parked; h; h = h->parked_next)
        for (const struct fetchsched_req *q = h->head; q; q = q->next)
            if (q->client->in_flight < q->client->cap)
                return 1;
    return 0;
}

/*
 * Two passes: first every client within its share; then, if slots are still free and
 * some hosts wait only because their client is at its share (the other clients have
 * nothing ready: their requests wait for a host's delay), those clients may use the
 * free slots up to their own cap. At the next completion the first pass runs first
 * again, so a client that becomes ready gets its share back as slots free up.
 */
long fetchsched_run(struct fetchsched *s, int64_t now)
{
    long wait = schedule_pass(s, now);
    if (s->in_flight < s->cfg.max_in_flight && parked_fillable(s)) {
        s->filling = 1;
        unpark_all(s);
        long w2 = schedule_pass(s, now);
        s->filling = 0;
        if (w2 >= 0 && (wait < 0 || w2 < wait))
            wait = w2;
    }
    return wait;
}

/* ---- transfers ending --------------------------------------------------- */

void fetchsched_robots_failed(struct fetchsched *s, struct fetchsched_host *h, const char *why)
{
    (void)s;
    snprintf(h->why, sizeof h->why, "%s", why ? why : "");
}

void fetchsched_robots_done(struct fetchsched *s, struct fetchsched_host *h, int status,
                            const char *body, size_t len, enum fetch_status down, int64_t now)
{
    (void)s;
    /*
     * A host that does not resolve or refuses connections has no pages to wait for:
     * fail its requests now instead of retrying robots.txt for minutes.
     */
    if (down == FETCH_DNS || down == FETCH_CONNECT || down == FETCH_BLOCKED) {
        h->down = down;
        h->down_until_ms = now + FETCHSCHED_HOST_DOWN_MS;
    }
    if (robots_host_report(&h->robots, status, body, len, ROBOTS_PRODUCT, now) != ERR_OK)
        log_warn("fetcher: robots.txt of %s: %s", h->name, err_msg());
    log_debug("fetcher: robots.txt of %s: status %d, %zu bytes%s%s", h->name, status, len,
              status ? "" : ": ", status ? "" : h->why);
    if (h->robots.state == ROBOTS_GAVE_UP)
        log_info("fetcher: robots.txt of %s unreachable %d times (last status %d): its pages "
                 "are not fetched in this run",
                 h->name, ROBOTS_MAX_ATTEMPTS, status);
}

/* h's transfer ended (or was aborted) at now: it waits delay_ms, or its Crawl-delay. */
static void host_rest(struct fetchsched *s, struct fetchsched_host *h, int delay_ms, int64_t now)
{
    h->active--;
    s->in_flight--;
    int robots_delay = robots_host_delay_ms(&h->robots);
    if (robots_delay > delay_ms)
        delay_ms = robots_delay;
    if (h->next_ms < now + delay_ms)
        h->next_ms = now + delay_ms;
    h->last_ms = now;
    host_wake(s, h);
}

void fetchsched_transfer_done(struct fetchsched *s, struct fetchsched_host *h,
                              struct fetchsched_client *c, int64_t now)
{
    int delay = 0;
    if (c) {
        delay = c->delay_ms;
        c->in_flight--;
        if (s->parked)
            unpark_all(s); /* its client may start another transfer */
    }
    host_rest(s, h, delay, now);
}

void fetchsched_transfer_aborted(struct fetchsched *s, struct fetchsched_host *h,
                                 struct fetchsched_req *q, int64_t now)
{
    struct fetchsched_client *c = q->client;
    c->in_flight--;
    fetchsched_req_done(s, q);
    /* The host waits the leaving client's delay before its next request. */
    h->active--;
    s->in_flight--;
    if (h->next_ms < now + c->delay_ms)
        h->next_ms = now + c->delay_ms;
    h->last_ms = now;
    host_wake(s, h);
}

struct fetchsched_req *fetchsched_client_leave(struct fetchsched *s, struct fetchsched_client *c)
{
    struct fetchsched_req *dropped = NULL;
    for (size_t i = 0; i < s->hosts.cap; i++) {
        struct fetchsched_host *h = s->hosts.slots[i].value;
        if (!s->hosts.slots[i].key)
            continue;
        struct fetchsched_req **link = &h->head;
        h->tail = NULL;
        while (*link) {
            struct fetchsched_req *q = *link;
            if (q->client == c) {
                *link = q->next;
                fetchsched_req_done(s, q);
                q->next = dropped;
                dropped = q;
            } else {
                h->tail = q;
                link = &q->next;
            }
        }
    }
    unpark_all(s);
    return dropped;
}
