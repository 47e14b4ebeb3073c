/* The fetcher: a libcurl multi loop on its own thread, polite per host, robots.txt first. */
#define _GNU_SOURCE /* memmem */
#include "crawler/fetch.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>

#include "common/grow.h"
#include "common/buf.h"
#include "common/log.h"
#include "common/strmap.h"
#include "crawler/robots.h"
#include "crawler/url.h"

#define HEADER_MAX 8192 /* longest header value we keep */

struct request {
    struct request *next;
    struct fetcher *client; /* whose result it is */
    int on_host;            /* on a host's queue or in a transfer (counted in pending) */
    uint64_t tag;
    char *url;     /* as submitted, normalised */
    char *current; /* after same-site redirects */
    int redirects;
    double elapsed_ms;
};

struct host {
    char *name;                  /* host[:port] */
    struct request *head, *tail; /* waiting */
    int active;                  /* transfers in flight */
    int64_t next_ms;             /* earliest start of the next request */
    int64_t last_ms;             /* when its last transfer started or ended */
    size_t heap_pos;             /* index + 1 in the ready heap; 0 = not in it */
    struct host *parked_next;    /* in the pool's parked list (see schedule) */
    int parked;
    struct robots_host robots;
    enum fetch_status down;      /* FETCH_OK, or why the host cannot be reached ... */
    int64_t down_until_ms;       /* ... until then: its requests fail at once */
};

/* How long a host that does not resolve or refuses connections is given up on. */
#define HOST_DOWN_MS (10 * 60 * 1000)

enum abort_reason { ABORT_NONE, ABORT_NOT_HTML, ABORT_TOO_BIG, ABORT_BLOCKED };

struct transfer {
    struct transfer *prev, *next; /* the pool's list of running transfers */
    CURL *easy;
    struct fetch_pool *f;
    struct host *host;
    struct request *req; /* NULL: this is the host's robots.txt */
    struct buf body;
    size_t body_max;
    char *content_type, *location, *proxy_error;
    enum abort_reason abort;
    int64_t start_ms;
    char errbuf[CURL_ERROR_SIZE];
};

/*
 * The engine: one thread, one curl multi handle, the hosts. Clients (struct fetcher)
 * submit to it and take their own results; it shares its transfers between them.
 */
struct fetch_pool {
    struct fetch_config cfg;
    char *proxy, *user_agent;
    CURLM *multi;
    pthread_t thread;
    int thread_started;

    /* Shared with other threads, under lock (which also guards every client's queue). */
    pthread_mutex_t lock;
    struct request *inbox_head, *inbox_tail;
    struct fetcher *clients;
    int detach_pending; /* a client waits to be detached */
    int stop;

    /* Owned by the pool thread. */
    struct strmap hosts; /* name -> struct host */
    struct host **heap;  /* hosts ready to start a request, by next_ms */
    struct transfer *running;
    size_t heap_len, heap_cap;
    int in_flight;
    struct host *parked; /* hosts whose next request's client is at its share */
    int active_clients;  /* clients with requests queued on hosts or in flight */
    int filling;         /* schedule's second pass: slots nobody else can use now */
};

/* A client of a pool: its requests and results. */
struct fetcher {
    struct fetch_pool *pool;
    int owns_pool; /* made by fetcher_new: the pool goes with it */
    struct fetcher *next_client;
    int cap, delay_ms;

    /* Under pool->lock. */
    pthread_cond_t done_cond;
    struct fetch_result **done; /* FIFO ring of finished results */
    size_t done_cap, done_first, done_len;
    int outstanding;
    struct fetch_stats stats;
    int detaching, detached;

    /* Owned by the pool thread. */
    int in_flight; /* page transfers running */
    int pending;   /* requests on host queues or in flight */
};

static const char *const status_names[FETCH_STATUS_COUNT] = {
    "ok",      "http_error", "redirect", "too_many_redirects", "not_html", "robots",
    "dns",     "connect",    "timeout",  "blocked",            "network",  "bad_url",
};

const char *fetch_status_name(enum fetch_status s)
{
    return (unsigned)s < FETCH_STATUS_COUNT ? status_names[s] : "unknown";
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
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
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

/* ---- addresses ---------------------------------------------------------- */

static int v4_is_private(uint32_t a)
{
    return (a >> 24) == 0 || (a >> 24) == 10 || (a >> 24) == 127 ||
           (a >> 16) == 0xA9FE ||            /* 169.254/16 link-local */
           (a >> 20) == 0xAC1 ||             /* 172.16/12 */
           (a >> 16) == 0xC0A8 ||            /* 192.168/16 */
           (a >> 22) == (100 << 2 | 1) ||    /* 100.64/10 shared address space */
           (a >> 8) == 0xC00000 ||           /* 192.0.0/24 protocol assignments */
           (a >> 17) == (198 << 7 | 9) ||    /* 198.18/15 benchmarking */
           (a >> 28) >= 0xE;                 /* multicast, reserved, broadcast */
}

int fetch_addr_is_private(const void *sockaddr)
{
    const struct sockaddr *sa = sockaddr;
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = sockaddr;
        return v4_is_private(ntohl(in->sin_addr.s_addr));
    }
    if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = sockaddr;
        const uint8_t *b = in6->sin6_addr.s6_addr;
        static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
        if (memcmp(b, mapped, 12) == 0)
            return v4_is_private((uint32_t)b[12] << 24 | (uint32_t)b[13] << 16 |
                                 (uint32_t)b[14] << 8 | b[15]);
        int zero = 1;
        for (int i = 0; i < 15; i++)
            zero &= b[i] == 0;
        return (zero && (b[15] == 0 || b[15] == 1)) || /* :: and ::1 */
               (b[0] & 0xfe) == 0xfc ||                /* fc00::/7 unique local */
               (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) || /* fe80::/10 link-local */
               b[0] == 0xff;                           /* multicast */
    }
    return 1; /* anything else (unix sockets...) is not the public web */
}

/* Refuse to connect to private destinations: checked on the address actually used. */
static curl_socket_t open_socket(void *clientp, curlsocktype purpose, struct curl_sockaddr *a)
{
    struct transfer *t = clientp;
    if (purpose == CURLSOCKTYPE_IPCXN && fetch_addr_is_private(&a->addr)) {
        t->abort = ABORT_BLOCKED;
        return CURL_SOCKET_BAD;
    }
    return socket(a->family, a->socktype, a->protocol);
}

/* ---- the ready heap: hosts that may start a request, earliest first ------ */

static void heap_swap(struct fetch_pool *f, size_t i, size_t j)
{
    struct host *h = f->heap[i];
    f->heap[i] = f->heap[j];
    f->heap[j] = h;
    f->heap[i]->heap_pos = i + 1;
    f->heap[j]->heap_pos = j + 1;
}

static void heap_up(struct fetch_pool *f, size_t i)
{
    while (i > 0 && f->heap[(i - 1) / 2]->next_ms > f->heap[i]->next_ms) {
        heap_swap(f, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static void heap_down(struct fetch_pool *f, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < f->heap_len && f->heap[l]->next_ms < f->heap[m]->next_ms)
            m = l;
        if (r < f->heap_len && f->heap[r]->next_ms < f->heap[m]->next_ms)
            m = r;
        if (m == i)
            return;
        heap_swap(f, i, m);
        i = m;
    }
}

static enum err heap_push(struct fetch_pool *f, struct host *h)
{
    if (h->heap_pos)
        return ERR_OK;
    enum err e = grow_array((void **)&f->heap, &f->heap_cap, f->heap_len + 1, sizeof *f->heap);
    if (e)
        return e;
    f->heap[f->heap_len] = h;
    h->heap_pos = ++f->heap_len;
    heap_up(f, f->heap_len - 1);
    return ERR_OK;
}

static struct host *heap_pop(struct fetch_pool *f)
{
    struct host *top = f->heap[0];
    top->heap_pos = 0;
    f->heap_len--;
    if (f->heap_len) {
        f->heap[0] = f->heap[f->heap_len];
        f->heap[0]->heap_pos = 1;
        heap_down(f, 0);
    }
    return top;
}

/* Put h in the heap if it has work and a free connection. */
static void host_wake(struct fetch_pool *f, struct host *h)
{
    if (h->head && h->active < f->cfg.per_host && heap_push(f, h) != ERR_OK)
        log_error("fetcher: %s", err_msg());
}

/* ---- clients' shares --------------------------------------------------- */

/* Hosts held back for a client at its share get another chance. */
static void unpark_all(struct fetch_pool *f)
{
    struct host *h = f->parked;
    f->parked = NULL;
    while (h) {
        struct host *next = h->parked_next;
        h->parked_next = NULL;
        h->parked = 0;
        host_wake(f, h);
        h = next;
    }
}


/*
 * A request joins or leaves its host's queue (or a transfer): the client's pending
 * count, and the number of clients with something pending. Pool thread only.
 */
static void pending_add(struct fetch_pool *f, struct fetcher *c, int d)
{
    if (c->pending == 0 && d > 0)
        f->active_clients++;
    c->pending += d;
    if (c->pending == 0 && d < 0) {
        f->active_clients--;
        unpark_all(f); /* the others' shares grew */
    }
}

/*
 * How many transfers client c may have running now: an equal share of the pool
 * among the clients with requests pending, never more than its own cap, at least one.
 */
static int client_share(const struct fetch_pool *f, const struct fetcher *c)
{
    int n = f->active_clients > 0 ? f->active_clients : 1;
    int share = (f->cfg.max_in_flight + n - 1) / n;
    if (share > c->cap)
        share = c->cap;
    return share > 0 ? share : 1;
}

static int client_may_start(const struct fetch_pool *f, const struct fetcher *c)
{
    return c->in_flight < (f->filling ? c->cap : client_share(f, c));
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
 * Finish request q with status, a message (NULL for none) and, for FETCH_REDIRECT,
 * the other site's URL (taken over). Frees q.
 */
static void finish_redirect(struct fetch_pool *f, struct request *q, enum fetch_status status,
                            struct transfer *t, const char *error, char *redirect_url)
{
    struct fetch_result *r = calloc(1, sizeof *r);
    if (!r) {
        log_error("fetcher: out of memory: dropping the result of %s", q->url);
        if (q->on_host)
            pending_add(f, q->client, -1);
        request_free(q);
        free(redirect_url);
        return;
    }
    struct fetcher *c = q->client;
    if (q->on_host)
        pending_add(f, c, -1);
    r->redirect_url = redirect_url;
    r->tag = q->tag;
    r->url = q->url;
    r->final_url = q->current;
    q->url = q->current = NULL;
    r->status = status;
    r->redirects = q->redirects;
    r->elapsed_ms = q->elapsed_ms;
    r->error = error ? strdup(error) : NULL;
    if (t) {
        long code = 0;
        curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &code);
        r->http_status = (int)code;
        r->content_type = t->content_type;
        t->content_type = NULL;
        if (t->body.len || status == FETCH_OK) {
            r->body_len = t->body.len;
            r->body = buf_detach(&t->body);
        }
        r->truncated = t->abort == ABORT_TOO_BIG;
    }
    request_free(q);
    deliver(f, c, r);
}

static void finish(struct fetch_pool *f, struct request *q, enum fetch_status status,
                   struct transfer *t, const char *error)
{
    finish_redirect(f, q, status, t, error, NULL);
}

/* ---- transfers ---------------------------------------------------------- */

static size_t on_header(char *data, size_t size, size_t n, void *userp)
{
    struct transfer *t = userp;
    size_t len = size * n;
    if (len >= 5 && strncmp(data, "HTTP/", 5) == 0) {
        /* A new response (after a redirect followed by curl, or a 100): forget the last. */
        free(t->content_type);
        free(t->location);
        free(t->proxy_error);
        t->content_type = t->location = t->proxy_error = NULL;
        return len;
    }
    const char *colon = memchr(data, ':', len);
    if (!colon)
        return len;
    size_t name_len = (size_t)(colon - data);
    const char *v = colon + 1, *end = data + len;
    while (v < end && (*v == ' ' || *v == '\t'))
        v++;
    while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' ' || end[-1] == '\t'))
        end--;
    size_t vlen = (size_t)(end - v);
    if (vlen > HEADER_MAX)
        return len;
    char **slot = NULL;
    if (name_len == 12 && strncasecmp(data, "Content-Type", 12) == 0)
        slot = &t->content_type;
    else if (name_len == 8 && strncasecmp(data, "Location", 8) == 0)
        slot = &t->location;
    else if ((name_len == 12 && strncasecmp(data, "Proxy-Status", 12) == 0 &&
              memmem(v, vlen, "error=", 6)) ||
             (name_len == 13 && strncasecmp(data, "X-Squid-Error", 13) == 0))
        slot = &t->proxy_error; /* RFC 9209 Proxy-Status with an error, or squid's header */
    if (slot) {
        free(*slot);
        *slot = strndup(v, vlen);
    }
    return len;
}

static int is_html_type(const char *ct)
{
    if (!ct)
        return 1; /* no type: old servers; let the HTML parser judge */
    size_t n = strcspn(ct, "; \t");
    return (n == 9 && strncasecmp(ct, "text/html", 9) == 0) ||
           (n == 21 && strncasecmp(ct, "application/xhtml+xml", 21) == 0);
}

static size_t on_body(char *data, size_t size, size_t n, void *userp)
{
    struct transfer *t = userp;
    size_t len = size * n;
    if (t->req && t->body.len == 0) {
        long code = 0;
        curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &code);
        if (code >= 200 && code < 300 && !is_html_type(t->content_type)) {
            t->abort = ABORT_NOT_HTML; /* don't download PDFs and images */
            return 0;
        }
    }
    size_t room = t->body_max - t->body.len;
    if (len > room) {
        if (buf_append(&t->body, data, room) != ERR_OK)
            return 0;
        t->abort = ABORT_TOO_BIG;
        return 0;
    }
    return buf_append(&t->body, data, len) == ERR_OK ? len : 0;
}

static void transfer_free(struct transfer *t)
{
    if (!t)
        return;
    if (t->easy)
        curl_easy_cleanup(t->easy);
    buf_release(&t->body);
    free(t->content_type);
    free(t->location);
    free(t->proxy_error);
    free(t);
}

/* Take t off the pool's list of running transfers (and out of curl's multi handle). */
static void running_remove(struct fetch_pool *f, struct transfer *t)
{
    curl_multi_remove_handle(f->multi, t->easy);
    if (t->prev)
        t->prev->next = t->next;
    else
        f->running = t->next;
    if (t->next)
        t->next->prev = t->prev;
    t->prev = t->next = NULL;
}

/*
 * Start fetching url on host h; req NULL means the host's robots.txt. The request
 * counts for client `who` (for robots.txt: the client whose request needs it).
 */
static enum err transfer_start(struct fetch_pool *f, struct host *h, struct request *req,
                               const char *url, struct fetcher *who)
{
    struct transfer *t = calloc(1, sizeof *t);
    if (!t || !(t->easy = curl_easy_init())) {
        free(t);
        return err_set(ERR_NOMEM, "out of memory starting a transfer");
    }
    t->f = f;
    t->host = h;
    t->req = req;
    t->body_max = req ? f->cfg.max_body : ROBOTS_PARSE_MAX;
    buf_init(&t->body, t->body_max + 1);
    t->start_ms = now_ms();
    CURL *e = t->easy;
    curl_easy_setopt(e, CURLOPT_URL, url);
    curl_easy_setopt(e, CURLOPT_PRIVATE, t);
    curl_easy_setopt(e, CURLOPT_ERRORBUFFER, t->errbuf);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_USERAGENT, f->user_agent);
    curl_easy_setopt(e, CURLOPT_ACCEPT_ENCODING, ""); /* every encoding curl can decode */
    curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)f->cfg.connect_timeout_ms);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)f->cfg.timeout_ms);
    curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, (long)f->cfg.low_speed_bytes);
    curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, (long)f->cfg.low_speed_secs);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, t);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, t);
    if (!req) {
        /* RFC 9309 §2.3.1.2: follow at least five redirects for robots.txt. */
        curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 1L);
        curl_easy_setopt(e, CURLOPT_MAXREDIRS, 5L);
        curl_easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    }
    if (f->proxy) {
        curl_easy_setopt(e, CURLOPT_PROXY, f->proxy);
    } else if (!f->cfg.allow_private) {
        curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, open_socket);
        curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, t);
    }
    if (curl_multi_add_handle(f->multi, e) != CURLM_OK) {
        transfer_free(t);
        return err_set(ERR_NET, "curl refused a transfer");
    }
    h->active++;
    f->in_flight++;
    if (req)
        req->client->in_flight++;
    t->next = f->running;
    if (f->running)
        f->running->prev = t;
    f->running = t;
    pthread_mutex_lock(&f->lock);
    if (req)
        who->stats.in_flight++;
    who->stats.requests++;
    if (!req)
        who->stats.robots_requests++;
    pthread_mutex_unlock(&f->lock);
    return ERR_OK;
}

/* Classify a curl failure. */
static enum fetch_status curl_failure(CURLcode rc)
{
    switch (rc) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY: return FETCH_DNS;
    case CURLE_COULDNT_CONNECT: return FETCH_CONNECT;
    case CURLE_OPERATION_TIMEDOUT: return FETCH_TIMEOUT;
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL: return FETCH_BAD_URL;
    default: return FETCH_NETWORK;
    }
}

/*
 * The proxy could not reach the host. RFC 9209 error types (error=dns_error,
 * connection_refused, connection_timeout, ...) or squid's ERR_DNS_FAIL and kin.
 */
static enum fetch_status proxy_failure(const char *e)
{
    if (strstr(e, "dns_") || strstr(e, "ERR_DNS"))
        return FETCH_DNS;
    if (strstr(e, "timeout") || strstr(e, "TIMEOUT"))
        return FETCH_TIMEOUT;
    if (strstr(e, "connection_") || strstr(e, "destination_") || strstr(e, "ERR_CONNECT"))
        return FETCH_CONNECT;
    return FETCH_NETWORK;
}

static void robots_done(struct fetch_pool *f, struct transfer *t, CURLcode rc, int64_t now)
{
    long code = 0;
    if (rc == CURLE_OK || (rc == CURLE_WRITE_ERROR && t->abort == ABORT_TOO_BIG))
        curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &code);
    if (t->proxy_error)
        code = 0; /* the proxy could not reach the host: unreachable, not a 5xx of the host */
    /*
     * A host that does not resolve or refuses connections has no pages to wait for:
     * fail its requests now instead of retrying robots.txt for minutes.
     */
    enum fetch_status down = FETCH_OK;
    if (t->proxy_error)
        down = proxy_failure(t->proxy_error);
    else if (rc != CURLE_OK && t->abort == ABORT_BLOCKED)
        down = FETCH_BLOCKED;
    else if (rc != CURLE_OK)
        down = curl_failure(rc);
    if (down == FETCH_DNS || down == FETCH_CONNECT || down == FETCH_BLOCKED) {
        t->host->down = down;
        t->host->down_until_ms = now + HOST_DOWN_MS;
    }
    if (robots_host_report(&t->host->robots, (int)code, buf_str(&t->body), t->body.len,
                           ROBOTS_PRODUCT, now) != ERR_OK)
        log_warn("fetcher: robots.txt of %s: %s", t->host->name, err_msg());
    log_debug("fetcher: robots.txt of %s: status %ld, %zu bytes", t->host->name, code,
              t->body.len);
}

/* A page transfer ended: deliver its result, or follow a same-site redirect. */
static void page_done(struct fetch_pool *f, struct transfer *t, CURLcode rc)
{
    struct request *q = t->req;
    struct host *h = t->host;
    t->req = NULL;
    q->elapsed_ms += (double)(now_ms() - t->start_ms);
    long code = 0;
    curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &code);

    if (t->abort == ABORT_BLOCKED) {
        finish(f, q, FETCH_BLOCKED, t, "destination address is private or local");
        return;
    }
    if (t->abort == ABORT_NOT_HTML) {
        finish(f, q, FETCH_NOT_HTML, t, t->content_type ? t->content_type : "not HTML");
        return;
    }
    if (rc != CURLE_OK && !(rc == CURLE_WRITE_ERROR && t->abort == ABORT_TOO_BIG)) {
        finish(f, q, curl_failure(rc), t, t->errbuf[0] ? t->errbuf : curl_easy_strerror(rc));
        return;
    }
    if (t->proxy_error) {
        finish(f, q, proxy_failure(t->proxy_error), t, t->proxy_error);
        return;
    }
    if (code >= 300 && code < 400 && t->location) {
        char *target = NULL;
        if (url_resolve(q->current, t->location, &target) != ERR_OK) {
            finish(f, q, FETCH_HTTP_ERROR, t, "redirect to an unusable Location");
            return;
        }
        if (!url_same_site(q->current, target)) {
            finish_redirect(f, q, FETCH_REDIRECT, t, NULL, target);
            return;
        }
        if (q->redirects >= f->cfg.max_redirects) {
            free(target);
            finish(f, q, FETCH_TOO_MANY_REDIRECTS, t, "too many redirects");
            return;
        }
        free(q->current);
        q->current = target;
        q->redirects++;
        /* Same host: go first in its queue, after the usual delay. */
        q->next = h->head;
        h->head = q;
        if (!h->tail)
            h->tail = q;
        return;
    }
    if (code >= 200 && code < 300) {
        finish(f, q, FETCH_OK, t, NULL);
        return;
    }
    char msg[64];
    snprintf(msg, sizeof msg, "HTTP status %ld", code);
    finish(f, q, FETCH_HTTP_ERROR, t, msg);
}

static void transfer_done(struct fetch_pool *f, CURL *easy, CURLcode rc)
{
    struct transfer *t = NULL;
    curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&t);
    running_remove(f, t);
    int64_t now = now_ms();
    struct host *h = t->host;
    int delay = 0;
    if (t->req) {
        struct fetcher *c = t->req->client;
        delay = c->delay_ms;
        c->in_flight--;
        pthread_mutex_lock(&f->lock);
        c->stats.in_flight--;
        c->stats.bytes += t->body.len;
        pthread_mutex_unlock(&f->lock);
        page_done(f, t, rc);
        if (f->parked)
            unpark_all(f); /* its client may start another transfer */
    } else {
        robots_done(f, t, rc, now);
    }
    h->active--;
    f->in_flight--;
    int robots_delay = robots_host_delay_ms(&h->robots);
    if (robots_delay > delay)
        delay = robots_delay;
    if (h->next_ms < now + delay)
        h->next_ms = now + delay;
    h->last_ms = now;
    host_wake(f, h);
    transfer_free(t);
}

/* ---- scheduling --------------------------------------------------------- */

static struct host *host_get(struct fetch_pool *f, const char *url)
{
    size_t n;
    const char *name = url_host_ref(url, &n);
    if (!name)
        return NULL;
    struct host *h = strmap_get(&f->hosts, name, n);
    if (h)
        return h;
    h = calloc(1, sizeof *h);
    if (!h || !(h->name = strndup(name, n))) {
        free(h);
        return NULL;
    }
    robots_host_init(&h->robots);
    h->robots.retry_ms = f->cfg.robots_retry_ms;
    if (strmap_put(&f->hosts, name, n, h) != ERR_OK) {
        robots_host_release(&h->robots);
        free(h->name);
        free(h);
        return NULL;
    }
    return h;
}

/* Move submitted requests into their hosts' queues. */
static void take_inbox(struct fetch_pool *f)
{
    pthread_mutex_lock(&f->lock);
    struct request *q = f->inbox_head;
    f->inbox_head = f->inbox_tail = NULL;
    pthread_mutex_unlock(&f->lock);
    while (q) {
        struct request *next = q->next;
        q->next = NULL;
        struct host *h = host_get(f, q->current);
        if (!h) {
            finish(f, q, FETCH_BAD_URL, NULL, "no host, or out of memory");
        } else {
            if (h->tail)
                h->tail->next = q;
            else
                h->head = q;
            h->tail = q;
            q->on_host = 1;
            pending_add(f, q->client, 1);
            host_wake(f, h);
        }
        q = next;
    }
}

static struct request *host_pop(struct host *h)
{
    struct request *q = h->head;
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
static struct request *host_front_startable(const struct fetch_pool *f, struct host *h)
{
    struct request *prev = NULL;
    for (struct request *q = h->head; q; prev = q, q = q->next) {
        if (!client_may_start(f, q->client))
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
static char *robots_url(const char *url)
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

/*
 * Start what may start now, each client within its share; returns ms until the next
 * host becomes ready (-1: none).
 */
static long schedule_pass(struct fetch_pool *f)
{
    int64_t now = now_ms();
    while (f->heap_len && f->in_flight < f->cfg.max_in_flight) {
        struct host *h = f->heap[0];
        if (h->next_ms > now)
            return (long)(h->next_ms - now);
        heap_pop(f);
        if (!h->head || h->active >= f->cfg.per_host)
            continue;
        if (h->down != FETCH_OK && now < h->down_until_ms) {
            while (h->head)
                finish(f, host_pop(h), h->down, NULL, "host unreachable");
            continue;
        }
        /* Clients share the pool: one at its share waits while the others go on. */
        struct request *front = host_front_startable(f, h);
        if (!front) {
            if (!h->parked) {
                h->parked = 1;
                h->parked_next = f->parked;
                f->parked = h;
            }
            continue;
        }
        /* Politeness: the delay of the client asking, after the host's last request. */
        int64_t ready = h->last_ms + front->client->delay_ms;
        if (ready > now && h->last_ms) {
            h->next_ms = ready;
            host_wake(f, h);
            continue;
        }
        const char *url = front->current;
        enum robots_verdict v = ROBOTS_ALLOW;
        int64_t retry_at = 0;
        if (f->cfg.obey_robots)
            v = robots_host_check(&h->robots, url_path_and_query(url), now, &retry_at);
        switch (v) {
        case ROBOTS_DISALLOW:
            finish(f, host_pop(h), FETCH_ROBOTS, NULL, "disallowed by robots.txt");
            host_wake(f, h);
            break;
        case ROBOTS_WAIT:
            h->next_ms = retry_at > now ? retry_at : now + 1;
            host_wake(f, h);
            break;
        case ROBOTS_FETCH: {
            char *rurl = robots_url(url);
            if (!rurl || transfer_start(f, h, NULL, rurl, front->client) != ERR_OK) {
                /* Could not even try: report it as unreachable so the policy backs off. */
                if (robots_host_report(&h->robots, 0, "", 0, ROBOTS_PRODUCT, now) != ERR_OK)
                    log_warn("fetcher: %s", err_msg());
                host_wake(f, h);
            }
            free(rurl);
            break;
        }
        case ROBOTS_ALLOW: {
            struct request *q = host_pop(h);
            int delay = q->client->delay_ms;
            if (transfer_start(f, h, q, q->current, q->client) != ERR_OK)
                finish(f, q, FETCH_NETWORK, NULL, err_msg());
            h->next_ms = now + delay; /* with per_host > 1: spacing of starts */
            h->last_ms = now;
            host_wake(f, h);
            break;
        }
        }
    }
    return -1;
}

/* Is a host parked for a client that is still under its own cap? */
static int parked_fillable(const struct fetch_pool *f)
{
    for (const struct host *h = f->parked; h; h = h->parked_next)
        for (const struct request *q = h->head; q; q = q->next)
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
static long schedule(struct fetch_pool *f)
{
    long wait = schedule_pass(f);
    if (f->in_flight < f->cfg.max_in_flight && parked_fillable(f)) {
        f->filling = 1;
        unpark_all(f);
        long w2 = schedule_pass(f);
        f->filling = 0;
        if (w2 >= 0 && (wait < 0 || w2 < wait))
            wait = w2;
    }
    return wait;
}

static void drain_curl(struct fetch_pool *f)
{
    CURLMsg *m;
    int left;
    while ((m = curl_multi_info_read(f->multi, &left)) != NULL)
        if (m->msg == CURLMSG_DONE)
            transfer_done(f, m->easy_handle, m->data.result);
}

/*
 * Take client c out of the pool: its queued requests are dropped, its transfers
 * aborted (the host still gets its delay), then its fetcher_free may go on.
 */
static void detach_client(struct fetch_pool *f, struct fetcher *c)
{
    pthread_mutex_lock(&f->lock);
    struct request *keep_head = NULL, *keep_tail = NULL, *drop = NULL;
    for (struct request *q = f->inbox_head, *next; q; q = next) {
        next = q->next;
        q->next = NULL;
        if (q->client == c) {
            q->next = drop;
            drop = q;
        } else {
            if (keep_tail)
                keep_tail->next = q;
            else
                keep_head = q;
            keep_tail = q;
        }
    }
    f->inbox_head = keep_head;
    f->inbox_tail = keep_tail;
    pthread_mutex_unlock(&f->lock);
    while (drop) {
        struct request *next = drop->next;
        request_free(drop);
        drop = next;
    }
    for (size_t i = 0; i < f->hosts.cap; i++) {
        struct host *h = f->hosts.slots[i].value;
        if (!f->hosts.slots[i].key)
            continue;
        struct request **link = &h->head;
        h->tail = NULL;
        while (*link) {
            struct request *q = *link;
            if (q->client == c) {
                *link = q->next;
                pending_add(f, c, -1);
                request_free(q);
            } else {
                h->tail = q;
                link = &q->next;
            }
        }
    }
    int64_t now = now_ms();
    for (struct transfer *t = f->running, *next; t; t = next) {
        next = t->next;
        if (!t->req || t->req->client != c)
            continue;
        running_remove(f, t);
        struct host *h = t->host;
        h->active--;
        f->in_flight--;
        c->in_flight--;
        pending_add(f, c, -1);
        if (h->next_ms < now + c->delay_ms)
            h->next_ms = now + c->delay_ms;
        h->last_ms = now;
        host_wake(f, h);
        request_free(t->req);
        t->req = NULL;
        transfer_free(t);
    }
    unpark_all(f);
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
        (void)schedule(f);
        int running;
        curl_multi_perform(f->multi, &running);
        drain_curl(f);
        long wait = schedule(f);
        long curl_wait = -1;
        curl_multi_timeout(f->multi, &curl_wait);
        if (curl_wait >= 0 && (wait < 0 || curl_wait < wait))
            wait = curl_wait;
        if (wait < 0 || wait > 1000)
            wait = 1000;
        curl_multi_poll(f->multi, NULL, 0, (int)wait, NULL);
    }
    return NULL;
}

/* ---- public API --------------------------------------------------------- */

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static void curl_global(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

enum err fetch_pool_new(const struct fetch_config *c, struct fetch_pool **out)
{
    *out = NULL;
    pthread_once(&curl_once, curl_global);
    if (c->max_in_flight < 1 || c->per_host < 1 || c->delay_ms < 0 || c->max_body < 1 ||
        c->max_redirects < 0 || c->robots_retry_ms < 1)
        return err_set(ERR_INVAL, "bad fetcher configuration");
    struct fetch_pool *f = calloc(1, sizeof *f);
    if (!f)
        return err_set(ERR_NOMEM, "out of memory");
    f->cfg = *c;
    char ua[256];
    snprintf(ua, sizeof ua, "sitescout/%s (+%s)", SITESCOUT_VERSION, FETCH_INFO_URL);
    f->user_agent = strdup(c->user_agent ? c->user_agent : ua);
    f->proxy = c->proxy && *c->proxy ? strdup(c->proxy) : NULL;
    f->cfg.user_agent = f->user_agent;
    f->cfg.proxy = f->proxy;
    strmap_init(&f->hosts);
    pthread_mutex_init(&f->lock, NULL);
    f->multi = curl_multi_init();
    if (!f->user_agent || !f->multi || (c->proxy && *c->proxy && !f->proxy)) {
        fetch_pool_free(f);
        return err_set(ERR_NOMEM, "out of memory");
    }
    curl_multi_setopt(f->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, (long)f->cfg.max_in_flight);
    curl_multi_setopt(f->multi, CURLMOPT_MAXCONNECTS, (long)f->cfg.max_in_flight * 2);
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
        curl_multi_wakeup(f->multi);
        pthread_join(f->thread, NULL);
    }
    for (struct transfer *t = f->running, *next; t; t = next) {
        next = t->next;
        curl_multi_remove_handle(f->multi, t->easy);
        request_free(t->req);
        transfer_free(t);
    }
    if (f->multi)
        curl_multi_cleanup(f->multi);
    for (size_t i = 0; i < f->hosts.cap; i++) {
        struct host *h = f->hosts.slots[i].value;
        if (!f->hosts.slots[i].key)
            continue;
        while (h->head)
            request_free(host_pop(h));
        robots_host_release(&h->robots);
        free(h->name);
        free(h);
    }
    strmap_release(&f->hosts);
    for (struct request *q = f->inbox_head, *next; q; q = next) {
        next = q->next;
        request_free(q);
    }
    free(f->heap);
    pthread_mutex_destroy(&f->lock);
    free(f->proxy);
    free(f->user_agent);
    free(f);
}

enum err fetcher_attach(struct fetch_pool *p, int max_in_flight, int delay_ms,
                        struct fetcher **out)
{
    *out = NULL;
    if (max_in_flight < 1 || delay_ms < 0)
        return err_set(ERR_INVAL, "bad fetcher configuration");
    struct fetcher *c = calloc(1, sizeof *c);
    if (!c)
        return err_set(ERR_NOMEM, "out of memory");
    c->pool = p;
    c->cap = max_in_flight;
    c->delay_ms = delay_ms;
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
    curl_multi_wakeup(f->multi);
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
    free(c);
}

enum err fetcher_submit(struct fetcher *c, const char *url, uint64_t tag)
{
    struct fetch_pool *f = c->pool;
    struct request *q = calloc(1, sizeof *q);
    if (!q)
        return err_set(ERR_NOMEM, "out of memory");
    q->client = c;
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
        finish(f, q, FETCH_BAD_URL, NULL, err_msg());
        return ERR_OK;
    }
    q->current = strdup(q->url);
    if (!q->current) {
        request_free(q);
        return err_set(ERR_NOMEM, "out of memory");
    }
    pthread_mutex_lock(&f->lock);
    if (f->inbox_tail)
        f->inbox_tail->next = q;
    else
        f->inbox_head = q;
    f->inbox_tail = q;
    c->stats.submitted++;
    c->outstanding++;
    pthread_mutex_unlock(&f->lock);
    curl_multi_wakeup(f->multi);
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
