/* The replay server: one epoll loop serving WARC records over HTTP/1.1, with fault injection. */
#define _GNU_SOURCE /* accept4 */
#include "replay/replay.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/log.h"
#include "replay/alog.h"
#include "replay/httpmsg.h"
#include "replay/synth.h"
#include "replay/warcreader.h"
#include "replay/warcurl.h"

#define CONNS_MAX       8192                      /* more connections are closed at once */
#define OUT_CAP         (32 * 1024)               /* bytes handed to one send() */
#define IN_MAX          (2 * HTTPMSG_REQUEST_MAX) /* buffered request bytes (pipelining) */
#define DISCARD_MAX     (1024 * 1024) /* request bodies we read and drop; larger get 413 */
#define IDLE_MS         30000         /* an idle or half-sent request is dropped after this */
#define STALL_MS        60000         /* a client that takes no bytes for this long is dropped */
#define LINGER_MS       2000          /* reading leftovers after the last response, before close */
#define ACCEPT_PAUSE_MS 100           /* out of descriptors: retry accept() after this */
#define FLUSH_MS        1000          /* access log */
#define SLOW_STEPS      20            /* a slow body goes out in this many pieces */
#define SLOW_MS_DEFAULT 2000
#define LATENCY_CAP     20.0              /* latency draws are capped at this many means */
#define ATTEMPTS_MAX    ((size_t)1 << 20) /* URLs whose request counts are remembered */
#define POOL_MAX        64                /* idle responses and readers kept for reuse */
#define EVENTS_MAX      256
#define NO_TIMER        ((size_t)-1)

enum body_kind { BODY_MEM, BODY_RECORD, BODY_HUGE, BODY_JUNK };
enum fault_bits { FAULT_ERROR = 1, FAULT_RESET = 2, FAULT_SLOW = 4 };
enum conn_state { ST_IDLE, ST_RESPOND, ST_LINGER };

/* One response in flight: the head, then body bytes produced on demand. */
struct response {
    struct response *next_free;
    /* for the access log */
    char method[16];
    char url[WARCURL_MAX];
    int status;
    unsigned faults;
    double ts;
    int64_t t0_us;
    int keep_alive;
    /* the body source */
    enum body_kind kind;
    uint64_t body_len; /* body bytes to send (0 for HEAD) */
    uint64_t produced; /* body bytes put into out so far */
    uint64_t head_len; /* the first head_len bytes sent are the head */
    uint64_t sent;
    uint64_t junk_seed;
    struct warcreader *reader;
    size_t stash_off, stash_len; /* body bytes waiting in stash */
    /* faults */
    int64_t start_at;   /* monotonic ms when the latency delay ends; 0 = started */
    uint64_t reset_at;  /* reset the connection after this many body bytes; UINT64_MAX = never */
    uint64_t slow_step; /* body bytes per slow tick; 0 = not slow */
    uint64_t allowance; /* body bytes that may go before the next tick */
    int64_t slow_next;
    int64_t slow_interval;
    size_t out_len, out_off;
    char out[OUT_CAP];
    char stash[HTTPMSG_RESPONSE_HEAD_MAX];
};

struct conn {
    struct conn *prev, *next;
    int fd;
    uint64_t id;
    enum conn_state state;
    int dead;        /* close when the current event is handled */
    int reset;       /* close with a TCP reset */
    int peer_closed; /* the client sent EOF */
    uint32_t events; /* epoll interest */
    struct buf in;   /* received request bytes not handled yet */
    uint64_t discard;
    struct response *resp;
    int64_t deadline;
    size_t heap_idx;
    int64_t progress; /* last time a send() moved bytes */
};

struct attempt {
    uint64_t key; /* URL hash, never 0 */
    uint64_t count;
};

struct replay_server {
    const struct warc_archive *arc;
    struct replay_config cfg; /* strings point into owned copies */
    char *owned[3 * REPLAY_HOSTS_MAX + 2];
    size_t nowned;
    int lfd, epfd, stopfd;
    char address[96];
    int64_t now; /* monotonic ms, updated once per loop turn */
    struct conn *conns;
    size_t nconns;
    struct conn **heap;
    size_t nheap;
    struct alog *log;
    struct response *free_resps;
    size_t nfree_resps;
    struct warcreader *free_readers[POOL_MAX];
    size_t nfree_readers;
    struct attempt *att;
    size_t att_cap, att_n;
    uint64_t next_id;
    int64_t accept_resume; /* 0 = accepting */
    int stopping;
    struct replay_stats stats;
};

/* ---- time ---------------------------------------------------------------------------- */

static int64_t mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- the timer heap: at most one deadline per connection --------------------------------- */

static void heap_place(struct replay_server *s, size_t i, struct conn *c)
{
    s->heap[i] = c;
    c->heap_idx = i;
}

static void heap_up(struct replay_server *s, size_t i)
{
    struct conn *c = s->heap[i];
    while (i > 0 && s->heap[(i - 1) / 2]->deadline > c->deadline) {
        heap_place(s, i, s->heap[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    heap_place(s, i, c);
}

static void heap_down(struct replay_server *s, size_t i)
{
    struct conn *c = s->heap[i];
    for (;;) {
        size_t k = 2 * i + 1;
        if (k >= s->nheap)
            break;
        if (k + 1 < s->nheap && s->heap[k + 1]->deadline < s->heap[k]->deadline)
            k++;
        if (s->heap[k]->deadline >= c->deadline)
            break;
        heap_place(s, i, s->heap[k]);
        i = k;
    }
    heap_place(s, i, c);
}

static void timer_clear(struct replay_server *s, struct conn *c)
{
    size_t i = c->heap_idx;
    if (i == NO_TIMER)
        return;
    c->heap_idx = NO_TIMER;
    struct conn *last = s->heap[--s->nheap];
    if (i == s->nheap)
        return;
    heap_place(s, i, last);
    heap_up(s, i);
    heap_down(s, last->heap_idx);
}

static void timer_set(struct replay_server *s, struct conn *c, int64_t when)
{
    c->deadline = when;
    if (c->heap_idx == NO_TIMER) {
        heap_place(s, s->nheap++, c); /* room: the heap has CONNS_MAX slots */
        heap_up(s, c->heap_idx);
    } else {
        heap_up(s, c->heap_idx);
        heap_down(s, c->heap_idx);
    }
}

/* ---- pools ----------------------------------------------------------------------------- */

static struct response *resp_get(struct replay_server *s)
{
    struct response *r = s->free_resps;
    if (r) {
        s->free_resps = r->next_free;
        s->nfree_resps--;
    } else if (!(r = malloc(sizeof *r))) {
        return NULL;
    }
    /* Everything but the two big buffers starts from zero. */
    memset(r, 0, offsetof(struct response, out));
    r->reset_at = UINT64_MAX;
    return r;
}

static void reader_put(struct replay_server *s, struct warcreader *rd)
{
    if (!rd)
        return;
    if (s->nfree_readers < POOL_MAX)
        s->free_readers[s->nfree_readers++] = rd;
    else
        warcreader_free(rd);
}

static void resp_put(struct replay_server *s, struct response *r)
{
    reader_put(s, r->reader);
    r->reader = NULL;
    if (s->nfree_resps < POOL_MAX) {
        r->next_free = s->free_resps;
        s->free_resps = r;
        s->nfree_resps++;
    } else {
        free(r);
    }
}

static struct warcreader *reader_get(struct replay_server *s)
{
    if (s->nfree_readers)
        return s->free_readers[--s->nfree_readers];
    return warcreader_new();
}

/* ---- deterministic faults ---------------------------------------------------------------- */

/* How often this URL was asked for before (then count this request). */
static uint64_t attempts_before(struct replay_server *s, uint64_t key)
{
    key |= 1;
    if (s->att_n + 1 > s->att_cap / 2 && s->att_cap < ATTEMPTS_MAX) {
        size_t cap = s->att_cap ? s->att_cap * 2 : 1024;
        struct attempt *t = calloc(cap, sizeof *t);
        if (t) {
            for (size_t i = 0; i < s->att_cap; i++) {
                if (!s->att[i].key)
                    continue;
                size_t j = s->att[i].key & (cap - 1);
                while (t[j].key)
                    j = (j + 1) & (cap - 1);
                t[j] = s->att[i];
            }
            free(s->att);
            s->att = t;
            s->att_cap = cap;
        }
    }
    if (!s->att_cap)
        return 0;
    size_t mask = s->att_cap - 1;
    for (size_t i = key & mask;; i = (i + 1) & mask) {
        if (s->att[i].key == key)
            return s->att[i].count++;
        if (!s->att[i].key) {
            if (s->att_n + 1 > s->att_cap / 2)
                return 0; /* full: new URLs count as first requests */
            s->att[i] = (struct attempt){key, 1};
            s->att_n++;
            return 0;
        }
    }
}

struct faults {
    double delay_ms;
    int error; /* 0, 500 or 503 */
    int reset;
    int slow;
};

static double unit(uint64_t x)
{
    return (double)(x >> 11) * 0x1.0p-53;
}

static void faults_decide(struct replay_server *s, const char *url, size_t len, struct faults *f)
{
    const struct replay_config *c = &s->cfg;
    memset(f, 0, sizeof *f);
    if (c->latency_ms <= 0 && c->error_rate <= 0 && c->reset_rate <= 0 && c->slow_rate <= 0)
        return;
    uint64_t h = synth_hash64(url, len);
    uint64_t n = attempts_before(s, h);
    uint64_t st = synth_mix64(c->seed ^ synth_mix64(h ^ synth_mix64(n)));
    if (c->latency_ms > 0) {
        double d = -c->latency_ms * log(1.0 - unit(synth_mix64(st + 1)));
        f->delay_ms = d < LATENCY_CAP * c->latency_ms ? d : LATENCY_CAP * c->latency_ms;
    }
    if (unit(synth_mix64(st + 2)) < c->error_rate)
        f->error = unit(synth_mix64(st + 3)) < 0.5 ? 500 : 503;
    f->reset = unit(synth_mix64(st + 4)) < c->reset_rate;
    f->slow = unit(synth_mix64(st + 5)) < c->slow_rate;
}

/* ---- building responses ------------------------------------------------------------------ */

static const char *reason(int status)
{
    switch (status) {
    case 200:
        return "OK";
    case 400:
        return "Bad Request";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 413:
        return "Content Too Large";
    case 431:
        return "Request Header Fields Too Large";
    case 500:
        return "Internal Server Error";
    case 501:
        return "Not Implemented";
    case 502:
        return "Bad Gateway";
    case 503:
        return "Service Unavailable";
    }
    return "Error";
}

/* Escape text for HTML into dst[cap] (always NUL-terminated). */
static void html_escape(const char *src, char *dst, size_t cap)
{
    size_t n = 0;
    for (; *src && n + 7 < cap; src++) {
        const char *rep = NULL;
        switch (*src) {
        case '&':
            rep = "&amp;";
            break;
        case '<':
            rep = "&lt;";
            break;
        case '>':
            rep = "&gt;";
            break;
        case '"':
            rep = "&quot;";
            break;
        }
        if (rep) {
            memcpy(dst + n, rep, strlen(rep));
            n += strlen(rep);
        } else {
            dst[n++] = *src;
        }
    }
    dst[n] = '\0';
}

/* Head for a generated body of body_len bytes; the body itself goes to the stash. */
static void put_head(struct response *r, int status, const char *ctype, uint64_t body_len,
                     const char *extra)
{
    int n = snprintf(r->out, OUT_CAP,
                     "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %" PRIu64
                     "\r\n%sConnection: %s\r\n\r\n",
                     status, reason(status), ctype, body_len, extra ? extra : "",
                     r->keep_alive ? "keep-alive" : "close");
    r->out_len = (size_t)n;
    r->head_len = (uint64_t)n;
    r->status = status;
}

/* A small generated HTML page (errors, 404, 502). */
static void respond_page(struct response *r, int status, const char *extra, const char *msg,
                         int head_only)
{
    char url[1024];
    html_escape(r->url, url, sizeof url);
    int n = snprintf(r->stash, sizeof r->stash,
                     "<!DOCTYPE html>\n<html><head><title>%d %s</title></head>\n<body>\n"
                     "<h1>%s</h1>\n<p>%s</p>\n<p><code>%s</code></p>\n</body></html>\n",
                     status, reason(status), reason(status), msg, url);
    size_t len = n < 0 ? 0 : (size_t)n >= sizeof r->stash ? sizeof r->stash - 1 : (size_t)n;
    put_head(r, status, "text/html; charset=utf-8", len, extra);
    r->kind = BODY_MEM;
    r->stash_off = 0;
    r->stash_len = len;
    r->body_len = head_only ? 0 : len;
}

static void respond_error_fault(struct response *r, int status, int head_only)
{
    r->faults |= FAULT_ERROR;
    respond_page(r, status, status == 503 ? "Retry-After: 1\r\n" : NULL,
                 "The replay web injected this error (--error-rate).", head_only);
}

/* The recorded response; nonzero if the record cannot be served. */
static int respond_record(struct replay_server *s, struct response *r,
                          const struct warc_record *rec, int head_only)
{
    struct warcreader *rd = reader_get(s);
    if (!rd || warcreader_start(rd, s->arc, rec) != ERR_OK) {
        log_warn("%s: %s", r->url, rd ? err_msg() : "out of memory");
        reader_put(s, rd);
        return -1;
    }
    size_t want = rec->length < sizeof r->stash ? (size_t)rec->length : sizeof r->stash, got = 0;
    enum err e = ERR_OK;
    while (got < want) {
        size_t n;
        if ((e = warcreader_read(rd, r->stash + got, want - got, &n)) != ERR_OK || !n)
            break;
        got += n;
    }
    if (got < want) {
        log_warn("%s: cannot read the record: %s", r->url, e ? err_msg() : "the block ends early");
        reader_put(s, rd);
        return -1;
    }
    struct httpmsg_response h;
    if (httpmsg_parse_response(r->stash, got, &h) != ERR_OK) {
        log_warn("%s: the recorded response is not HTTP: %s", r->url, err_msg());
        reader_put(s, rd);
        return -1;
    }
    uint64_t body_len = rec->length - h.head_len;
    if (h.chunked)
        r->keep_alive = 0; /* recorded chunks are sent as they are: trust no framing after them */
    size_t hl;
    if (httpmsg_reframe(r->stash, &h, body_len, r->keep_alive, r->out, OUT_CAP, &hl) != ERR_OK) {
        log_warn("%s: %s", r->url, err_msg());
        reader_put(s, rd);
        return -1;
    }
    r->out_len = hl;
    r->head_len = hl;
    r->status = h.status;
    if (head_only || httpmsg_bodyless(h.status)) {
        reader_put(s, rd);
        return 0;
    }
    r->kind = BODY_RECORD;
    r->reader = rd;
    r->stash_off = h.head_len;
    r->stash_len = got;
    r->body_len = body_len;
    return 0;
}

/* Which synthetic host this authority is: 'T'rap, 'H'uge, 'J'unk or 0. */
static int synth_kind(const struct replay_server *s, const char *host, size_t len)
{
    const struct replay_config *c = &s->cfg;
    for (size_t i = 0; i < c->ntrap; i++)
        if (strlen(c->trap_hosts[i]) == len && strncasecmp(c->trap_hosts[i], host, len) == 0)
            return 'T';
    for (size_t i = 0; i < c->nhuge; i++)
        if (strlen(c->huge_hosts[i]) == len && strncasecmp(c->huge_hosts[i], host, len) == 0)
            return 'H';
    for (size_t i = 0; i < c->njunk; i++)
        if (strlen(c->junk_hosts[i]) == len && strncasecmp(c->junk_hosts[i], host, len) == 0)
            return 'J';
    return 0;
}

static void respond_synth(struct replay_server *s, struct response *r, int kind, const char *path,
                          size_t path_len, int head_only)
{
    if (kind == 'T') {
        struct buf b;
        buf_init(&b, sizeof r->stash - 1);
        if (synth_trap_page(path, path_len, &b) != ERR_OK) {
            buf_release(&b);
            respond_page(r, 500, NULL, "The calendar page did not fit.", head_only);
            return;
        }
        memcpy(r->stash, b.data, b.len);
        r->stash_off = 0;
        r->stash_len = b.len;
        r->kind = BODY_MEM;
        put_head(r, 200, "text/html; charset=utf-8", b.len, NULL);
        r->body_len = head_only ? 0 : b.len;
        buf_release(&b);
    } else if (kind == 'H') {
        r->kind = BODY_HUGE;
        put_head(r, 200, "text/html", SYNTH_HUGE_BYTES, NULL);
        r->body_len = head_only ? 0 : SYNTH_HUGE_BYTES;
    } else {
        r->kind = BODY_JUNK;
        r->junk_seed = synth_mix64(s->cfg.seed ^ synth_hash64(r->url, strlen(r->url)));
        uint64_t len = synth_junk_length(r->junk_seed);
        put_head(r, 200, "text/html", len, NULL);
        r->body_len = head_only ? 0 : len;
    }
}

/* ---- connections --------------------------------------------------------------------------- */

static void conn_watch(struct replay_server *s, struct conn *c, uint32_t events)
{
    if (c->events == events || c->dead)
        return;
    struct epoll_event ev = {.events = events, .data.ptr = c};
    if (epoll_ctl(s->epfd, EPOLL_CTL_MOD, c->fd, &ev) != 0)
        c->dead = 1;
    else
        c->events = events;
}

static void resp_log(struct replay_server *s, struct conn *c, struct response *r)
{
    uint64_t body = r->sent > r->head_len ? r->sent - r->head_len : 0;
    s->stats.body_bytes += body;
    if (!s->log)
        return;
    char fault[32] = "";
    static const char *const names[] = {"error", "reset", "slow"};
    for (int i = 0; i < 3; i++) {
        if (r->faults & (1u << i)) {
            if (fault[0])
                strcat(fault, "+");
            strcat(fault, names[i]);
        }
    }
    struct alog_entry e = {
        .ts = r->ts,
        .method = r->method,
        .url = r->url,
        .status = r->status,
        .bytes = body,
        .ms = (double)(mono_us() - r->t0_us) / 1000.0,
        .conn = c->id,
        .fault = fault[0] ? fault : NULL,
    };
    alog_add(s->log, &e);
}

static void conn_close(struct replay_server *s, struct conn *c)
{
    timer_clear(s, c);
    if (c->resp) {
        resp_log(s, c, c->resp);
        resp_put(s, c->resp);
    }
    if (c->reset) {
        struct linger lg = {1, 0}; /* close() then sends RST instead of FIN */
        setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    }
    close(c->fd);
    if (c->prev)
        c->prev->next = c->next;
    else
        s->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    buf_release(&c->in);
    free(c);
    s->nconns--;
}

/* The response is out: log it, then wait for the next request or close. */
static void conn_finish(struct replay_server *s, struct conn *c)
{
    struct response *r = c->resp;
    int keep = r->keep_alive && !c->peer_closed && !s->stopping;
    resp_log(s, c, r);
    resp_put(s, r);
    c->resp = NULL;
    if (keep) {
        c->state = ST_IDLE;
        conn_watch(s, c, EPOLLIN);
        timer_set(s, c, s->now + IDLE_MS);
        return;
    }
    /* Half-close and drain what the client still sends, so that close() sends no RST
     * that could destroy the response in flight. */
    shutdown(c->fd, SHUT_WR);
    c->state = ST_LINGER;
    conn_watch(s, c, EPOLLIN);
    timer_set(s, c, s->now + LINGER_MS);
}

/* Next body bytes into dst[n]: how many, or -1 if the source failed. */
static ssize_t produce(struct response *r, char *dst, size_t n)
{
    if (r->stash_off < r->stash_len) {
        size_t k = r->stash_len - r->stash_off;
        if (k > n)
            k = n;
        memcpy(dst, r->stash + r->stash_off, k);
        r->stash_off += k;
        return (ssize_t)k;
    }
    switch (r->kind) {
    case BODY_MEM:
        return 0;
    case BODY_RECORD: {
        size_t got;
        if (warcreader_read(r->reader, dst, n, &got) != ERR_OK) {
            log_warn("%s: %s", r->url, err_msg());
            return -1;
        }
        return (ssize_t)got;
    }
    case BODY_HUGE:
        synth_huge_fill(r->produced, dst, n);
        return (ssize_t)n;
    case BODY_JUNK:
        synth_junk_fill(r->junk_seed, r->produced, dst, n);
        return (ssize_t)n;
    }
    return -1;
}

/* Send what can be sent now; on return the connection waits for a timer or an event. */
static void conn_pump(struct replay_server *s, struct conn *c)
{
    struct response *r = c->resp;
    for (;;) {
        if (r->out_off == r->out_len)
            r->out_off = r->out_len = 0;
        if (r->out_len < OUT_CAP && r->produced < r->body_len) {
            uint64_t lim = r->body_len - r->produced;
            if (r->reset_at - r->produced < lim)
                lim = r->reset_at - r->produced;
            if (r->slow_step && r->allowance < lim)
                lim = r->allowance;
            if (lim > OUT_CAP - r->out_len)
                lim = OUT_CAP - r->out_len;
            if (lim) {
                ssize_t n = produce(r, r->out + r->out_len, (size_t)lim);
                if (n < 0) {
                    c->dead = 1;
                    return;
                }
                r->out_len += (size_t)n;
                r->produced += (uint64_t)n;
                if (r->slow_step)
                    r->allowance -= (uint64_t)n;
            }
        }
        if (r->out_off == r->out_len) {
            if (r->produced == r->body_len) {
                conn_finish(s, c);
            } else if (r->produced == r->reset_at) {
                r->faults |= FAULT_RESET;
                c->reset = 1;
                c->dead = 1;
            } else if (r->slow_step && !r->allowance) {
                conn_watch(s, c, 0);
                timer_set(s, c, r->slow_next);
            } else {
                log_warn("%s: the record ended early", r->url);
                c->dead = 1;
            }
            return;
        }
        ssize_t n = send(c->fd, r->out + r->out_off, r->out_len - r->out_off, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                conn_watch(s, c, EPOLLOUT);
                timer_set(s, c, c->progress + STALL_MS);
            } else {
                c->dead = 1; /* the client went away */
            }
            return;
        }
        r->out_off += (size_t)n;
        r->sent += (uint64_t)n;
        c->progress = s->now;
    }
}

/* The latency delay (if any) is over: start sending. */
static void resp_start(struct replay_server *s, struct conn *c)
{
    struct response *r = c->resp;
    r->start_at = 0;
    c->progress = s->now;
    if (r->slow_step)
        r->slow_next = s->now + r->slow_interval;
    conn_pump(s, c);
}

/* Set up the response to one parsed request and start it. */
static void conn_respond(struct replay_server *s, struct conn *c, const struct httpmsg_request *req,
                         int status_if_bad, const char *why)
{
    struct response *r = resp_get(s);
    if (!r) {
        c->dead = 1;
        return;
    }
    c->resp = r;
    c->state = ST_RESPOND;
    timer_clear(s, c);
    s->stats.requests++;
    r->ts = wall_s();
    r->t0_us = mono_us();
    r->keep_alive = req && req->keep_alive && !s->stopping && !status_if_bad;
    snprintf(r->method, sizeof r->method, "%.*s", req ? (int)req->method_len : 1,
             req ? req->method : "-");
    strcpy(r->url, "-");
    if (status_if_bad) {
        respond_page(r, status_if_bad, NULL, why, 0);
        resp_start(s, c);
        return;
    }
    int head_only = strcmp(r->method, "HEAD") == 0;

    /* The URL: absolute-form as a proxy gets it, or origin-form plus Host. */
    char raw[WARCURL_MAX];
    const char *t = req->target;
    size_t tl = req->target_len, ulen, hoff, hlen;
    int n;
    if (tl && t[0] == '/') {
        if (!req->host) {
            snprintf(r->url, sizeof r->url, "%.*s", (int)tl, t);
            respond_page(r, 400, NULL, "An origin-form request needs a Host header.", head_only);
            resp_start(s, c);
            return;
        }
        n = snprintf(raw, sizeof raw, "http://%.*s%.*s", (int)req->host_len, req->host, (int)tl, t);
    } else {
        n = snprintf(raw, sizeof raw, "%.*s", (int)tl, t);
    }
    snprintf(r->url, sizeof r->url, "%s", raw);
    if (n < 0 || (size_t)n >= sizeof raw ||
        warcurl_normalize(raw, (size_t)n, r->url, sizeof r->url, &ulen, &hoff, &hlen) != ERR_OK) {
        if (strcasecmp(r->method, "CONNECT") == 0)
            respond_page(r, 501, "Allow: GET, HEAD\r\n",
                         "CONNECT is not supported: the replay web speaks plain HTTP only.", 0);
        else
            respond_page(r, 400, NULL, "The request target is not an http URL.", head_only);
        resp_start(s, c);
        return;
    }
    if (strcmp(r->method, "GET") != 0 && !head_only) {
        respond_page(r, 405, "Allow: GET, HEAD\r\n", "The replay web answers GET and HEAD only.",
                     0);
        resp_start(s, c);
        return;
    }

    struct faults f;
    faults_decide(s, r->url, ulen, &f);
    const char *host = r->url + hoff, *path = host + hlen;
    int kind = synth_kind(s, host, hlen);
    int content = 0; /* a real page: resets and slowness apply */
    const struct warc_record *rec = NULL;
    if (!kind) {
        rec = warc_archive_find(s->arc, r->url, ulen);
        if (!rec && strncmp(r->url, "http://", 7) == 0 && ulen + 2 < sizeof raw) {
            /* An archive of an https site still answers its plain http URLs. */
            snprintf(raw, sizeof raw, "https://%s", r->url + 7);
            rec = warc_archive_find(s->arc, raw, ulen + 1);
        }
    }
    int known = kind || rec || warc_archive_has_host(s->arc, host, hlen);
    if (!known) {
        respond_page(r, 502,
                     "Proxy-Status: sitescout-replay; error=dns_error; rcode=\"NXDOMAIN\"\r\n",
                     "Unknown host: the replay web has no such host.", head_only);
    } else if (kind && strcmp(path, "/robots.txt") == 0) {
        respond_page(r, 404, NULL, "This synthetic host has no robots.txt.", head_only);
    } else if (f.error) {
        respond_error_fault(r, f.error, head_only);
    } else if (kind) {
        respond_synth(s, r, kind, path, strlen(path), head_only);
        content = 1;
    } else if (!rec) {
        respond_page(r, 404, NULL, "The replay web has no page at this URL.", head_only);
    } else if (respond_record(s, r, rec, head_only) == 0) {
        content = 1;
    } else {
        respond_page(r, 502, NULL, "The archived record for this URL cannot be read.", head_only);
    }
    if (content && r->body_len) {
        if (f.reset)
            r->reset_at = r->body_len / 2;
        if (f.slow) {
            unsigned total = s->cfg.slow_ms ? s->cfg.slow_ms : SLOW_MS_DEFAULT;
            r->faults |= FAULT_SLOW;
            r->slow_step = (r->body_len + SLOW_STEPS - 1) / SLOW_STEPS;
            r->allowance = r->slow_step;
            r->slow_interval = total / SLOW_STEPS ? total / SLOW_STEPS : 1;
        }
    }
    if (f.delay_ms > 0) {
        r->start_at = s->now + (int64_t)ceil(f.delay_ms);
        conn_watch(s, c, 0);
        timer_set(s, c, r->start_at);
        return;
    }
    resp_start(s, c);
}

/* Drop n bytes from the front of the request buffer. */
static void in_consume(struct conn *c, size_t n)
{
    memmove(c->in.data, c->in.data + n, c->in.len - n);
    c->in.len -= n;
    c->in.data[c->in.len] = '\0';
}

/* Answer the requests buffered on an idle connection, one at a time. */
static void conn_requests(struct replay_server *s, struct conn *c)
{
    while (c->state == ST_IDLE && !c->dead) {
        size_t k = 0;
        while (k < c->in.len && (c->in.data[k] == '\r' || c->in.data[k] == '\n'))
            k++;
        if (k)
            in_consume(c, k);
        if (!c->in.len)
            break;
        size_t hl = httpmsg_head_end(c->in.data, c->in.len);
        if (!hl || hl > HTTPMSG_REQUEST_MAX) {
            if (hl || c->in.len >= HTTPMSG_REQUEST_MAX)
                conn_respond(s, c, NULL, 431, "The request head is too large.");
            break; /* else wait for the rest */
        }
        struct httpmsg_request req;
        if (httpmsg_parse_request(c->in.data, hl, &req) != ERR_OK) {
            conn_respond(s, c, NULL, 400, err_msg());
            break;
        }
        if (req.chunked) {
            conn_respond(s, c, &req, 501, "Chunked request bodies are not supported.");
            break;
        }
        if (req.content_length > DISCARD_MAX) {
            conn_respond(s, c, &req, 413, "The request body is too large.");
            break;
        }
        c->discard = req.content_length;
        conn_respond(s, c, &req, 0, NULL);
        if (c->dead)
            return;
        in_consume(c, hl);
        size_t drop = c->discard < c->in.len ? (size_t)c->discard : c->in.len;
        in_consume(c, drop);
        c->discard -= drop;
    }
    if (c->state == ST_IDLE && c->peer_closed)
        c->dead = 1;
}

/* Read what the socket has (an idle connection's requests, or leftovers while lingering). */
static void conn_read(struct replay_server *s, struct conn *c)
{
    char tmp[16384];
    for (;;) {
        ssize_t n = recv(c->fd, tmp, sizeof tmp, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                c->dead = 1;
            return;
        }
        if (n == 0) {
            c->peer_closed = 1;
            if (c->state == ST_LINGER)
                c->dead = 1;
            return;
        }
        if (c->state == ST_LINGER)
            continue;
        size_t off = 0;
        if (c->discard) {
            off = c->discard < (uint64_t)n ? (size_t)c->discard : (size_t)n;
            c->discard -= off;
        }
        if (off < (size_t)n && buf_append(&c->in, tmp + off, (size_t)n - off) != ERR_OK) {
            /* More than IN_MAX unanswered bytes: the head is too large (or a flood). */
            conn_respond(s, c, NULL, 431, "The request head is too large.");
            return;
        }
        if (c->in.len >= HTTPMSG_REQUEST_MAX)
            return; /* enough to work on; the rest stays in the kernel */
    }
}

static void conn_event(struct replay_server *s, struct conn *c, uint32_t ev)
{
    if ((ev & EPOLLERR) || ((ev & EPOLLHUP) && c->state == ST_RESPOND)) {
        c->dead = 1;
    } else {
        if ((ev & (EPOLLIN | EPOLLHUP)) && c->state != ST_RESPOND) {
            conn_read(s, c);
            if (c->state == ST_IDLE && !c->dead)
                timer_set(s, c, s->now + IDLE_MS);
        }
        if (!c->dead && (ev & EPOLLOUT) && c->state == ST_RESPOND && !c->resp->start_at)
            conn_pump(s, c);
        if (!c->dead && c->state == ST_IDLE)
            conn_requests(s, c);
    }
    if (c->dead)
        conn_close(s, c);
}

static void conn_timer(struct replay_server *s, struct conn *c)
{
    struct response *r = c->resp;
    if (c->state != ST_RESPOND) {
        c->dead = 1; /* idle too long, or done lingering */
    } else if (r->start_at) {
        resp_start(s, c);
    } else if (r->slow_step && !r->allowance && r->out_off == r->out_len) {
        /* A slow body's next piece is due (timers never fire early). */
        r->allowance = r->slow_step;
        r->slow_next += r->slow_interval;
        conn_pump(s, c);
    } else if (s->now - c->progress >= STALL_MS) {
        c->dead = 1;
    } else {
        timer_set(s, c, c->progress + STALL_MS);
    }
    if (!c->dead && c->state == ST_IDLE)
        conn_requests(s, c);
}

static void accept_all(struct replay_server *s)
{
    for (;;) {
        int fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                log_warn("replay: accept: %s; pausing for %d ms", strerror(errno), ACCEPT_PAUSE_MS);
                struct epoll_event ev = {.events = 0, .data.ptr = &s->lfd};
                epoll_ctl(s->epfd, EPOLL_CTL_MOD, s->lfd, &ev);
                s->accept_resume = s->now + ACCEPT_PAUSE_MS;
            }
            return;
        }
        struct conn *c = s->nconns < CONNS_MAX ? calloc(1, sizeof *c) : NULL;
        if (!c) {
            close(fd);
            continue;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        c->fd = fd;
        c->id = ++s->next_id;
        c->heap_idx = NO_TIMER;
        c->events = EPOLLIN;
        buf_init(&c->in, IN_MAX);
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
        if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
            close(fd);
            free(c);
            continue;
        }
        c->next = s->conns;
        if (s->conns)
            s->conns->prev = c;
        s->conns = c;
        s->nconns++;
        s->stats.connections++;
        timer_set(s, c, s->now + IDLE_MS);
    }
}

/* ---- the server ----------------------------------------------------------------------------- */

static enum err listen_on(struct replay_server *s, const char *spec)
{
    char host[256];
    const char *colon = strrchr(spec, ':');
    if (!colon || (size_t)(colon - spec) >= sizeof host)
        return err_set(ERR_INVAL, "listen address '%s' is not HOST:PORT", spec);
    const char *h = spec;
    size_t hl = (size_t)(colon - spec);
    if (hl >= 2 && h[0] == '[' && h[hl - 1] == ']')
        h++, hl -= 2;
    memcpy(host, h, hl);
    host[hl] = '\0';
    const char *port = colon + 1;
    char *end;
    long p = strtol(port, &end, 10);
    if (!*port || *end || p < 0 || p > 65535)
        return err_set(ERR_INVAL, "listen address '%s' has a bad port", spec);

    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE | AI_NUMERICSERV};
    struct addrinfo *ai = NULL;
    int rc = getaddrinfo(hl ? host : "127.0.0.1", port, &hints, &ai);
    if (rc != 0)
        return err_set(ERR_INVAL, "listen address '%s': %s", spec, gai_strerror(rc));
    int err = 0;
    for (struct addrinfo *a = ai; a; a = a->ai_next) {
        int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            err = errno;
            continue;
        }
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, a->ai_addr, a->ai_addrlen) == 0 && listen(fd, SOMAXCONN) == 0) {
            s->lfd = fd;
            break;
        }
        err = errno;
        close(fd);
    }
    freeaddrinfo(ai);
    if (s->lfd < 0)
        return err_set(ERR_NET, "cannot listen on %s: %s", spec, strerror(err));

    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    char ip[INET6_ADDRSTRLEN] = "?";
    unsigned bound = 0;
    if (getsockname(s->lfd, (struct sockaddr *)&ss, &sl) == 0) {
        if (ss.ss_family == AF_INET6) {
            struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
            inet_ntop(AF_INET6, &a6->sin6_addr, ip, sizeof ip);
            bound = ntohs(a6->sin6_port);
            snprintf(s->address, sizeof s->address, "[%s]:%u", ip, bound);
            return ERR_OK;
        }
        struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
        inet_ntop(AF_INET, &a4->sin_addr, ip, sizeof ip);
        bound = ntohs(a4->sin_port);
    }
    snprintf(s->address, sizeof s->address, "%s:%u", ip, bound);
    return ERR_OK;
}

/* Keep a copy of a config string (host names lower-cased); NULL on out of memory. */
static const char *own(struct replay_server *s, const char *str, int lower)
{
    char *p = strdup(str);
    if (!p)
        return NULL;
    for (char *q = p; lower && *q; q++)
        if (*q >= 'A' && *q <= 'Z')
            *q = (char)(*q - 'A' + 'a');
    s->owned[s->nowned++] = p;
    return p;
}

static enum err config_copy(struct replay_server *s, const struct replay_config *cfg)
{
    s->cfg = *cfg;
    if (cfg->error_rate < 0 || cfg->error_rate > 1 || cfg->reset_rate < 0 || cfg->reset_rate > 1 ||
        cfg->slow_rate < 0 || cfg->slow_rate > 1 || cfg->latency_ms < 0)
        return err_set(ERR_INVAL, "fault rates must lie in [0, 1] and latency must be >= 0");
    if (cfg->ntrap > REPLAY_HOSTS_MAX || cfg->nhuge > REPLAY_HOSTS_MAX ||
        cfg->njunk > REPLAY_HOSTS_MAX)
        return err_set(ERR_INVAL, "at most %d hosts of each kind", REPLAY_HOSTS_MAX);
    int ok = 1;
    for (size_t i = 0; i < cfg->ntrap; i++)
        ok &= (s->cfg.trap_hosts[i] = own(s, cfg->trap_hosts[i], 1)) != NULL;
    for (size_t i = 0; i < cfg->nhuge; i++)
        ok &= (s->cfg.huge_hosts[i] = own(s, cfg->huge_hosts[i], 1)) != NULL;
    for (size_t i = 0; i < cfg->njunk; i++)
        ok &= (s->cfg.junk_hosts[i] = own(s, cfg->junk_hosts[i], 1)) != NULL;
    s->cfg.listen = own(s, cfg->listen ? cfg->listen : "127.0.0.1:8081", 0);
    ok &= s->cfg.listen != NULL;
    if (cfg->access_log)
        ok &= (s->cfg.access_log = own(s, cfg->access_log, 0)) != NULL;
    return ok ? ERR_OK : err_set(ERR_NOMEM, "out of memory");
}

enum err replay_server_new(const struct replay_config *cfg, const struct warc_archive *archive,
                           struct replay_server **out)
{
    *out = NULL;
    struct replay_server *s = calloc(1, sizeof *s);
    if (!s)
        return err_set(ERR_NOMEM, "out of memory");
    s->arc = archive;
    s->lfd = s->epfd = s->stopfd = -1;
    enum err e = config_copy(s, cfg);
    if (e)
        goto out;
    s->heap = calloc(CONNS_MAX, sizeof *s->heap);
    if (!s->heap) {
        e = err_set(ERR_NOMEM, "out of memory");
        goto out;
    }
    s->epfd = epoll_create1(EPOLL_CLOEXEC);
    s->stopfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (s->epfd < 0 || s->stopfd < 0) {
        e = err_set(ERR_IO, "epoll/eventfd: %s", strerror(errno));
        goto out;
    }
    if ((e = listen_on(s, s->cfg.listen)))
        goto out;
    struct epoll_event lev = {.events = EPOLLIN, .data.ptr = &s->lfd};
    struct epoll_event sev = {.events = EPOLLIN, .data.ptr = &s->stopfd};
    if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->lfd, &lev) != 0 ||
        epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->stopfd, &sev) != 0) {
        e = err_set(ERR_IO, "epoll_ctl: %s", strerror(errno));
        goto out;
    }
    if (s->cfg.access_log && (e = alog_open(s->cfg.access_log, &s->log)))
        goto out;
out:
    if (e) {
        replay_server_free(s);
        return e;
    }
    *out = s;
    return ERR_OK;
}

const char *replay_server_address(const struct replay_server *s)
{
    return s->address;
}

void replay_server_stop(struct replay_server *s)
{
    uint64_t one = 1;
    ssize_t n = write(s->stopfd, &one, sizeof one);
    (void)n; /* a full eventfd is already a stop request */
}

void replay_server_stats(const struct replay_server *s, struct replay_stats *out)
{
    *out = s->stats;
}

/* Milliseconds until the next timer, log flush or accept retry (-1: none). */
static int next_timeout(const struct replay_server *s, int64_t next_flush)
{
    int64_t when = INT64_MAX;
    if (s->nheap)
        when = s->heap[0]->deadline;
    if (s->log && next_flush < when)
        when = next_flush;
    if (s->accept_resume && s->accept_resume < when)
        when = s->accept_resume;
    if (when == INT64_MAX)
        return -1;
    int64_t d = when - s->now;
    return d < 0 ? 0 : d > 60000 ? 60000 : (int)d;
}

enum err replay_server_run(struct replay_server *s)
{
    struct epoll_event evs[EVENTS_MAX];
    enum err e = ERR_OK;
    s->now = mono_us() / 1000;
    int64_t next_flush = s->now + FLUSH_MS;
    while (!s->stopping) {
        int n = epoll_wait(s->epfd, evs, EVENTS_MAX, next_timeout(s, next_flush));
        if (n < 0 && errno != EINTR) {
            e = err_set(ERR_IO, "epoll_wait: %s", strerror(errno));
            break;
        }
        s->now = mono_us() / 1000;
        for (int i = 0; i < n; i++) {
            void *p = evs[i].data.ptr;
            if (p == &s->lfd)
                accept_all(s);
            else if (p == &s->stopfd)
                s->stopping = 1;
            else
                conn_event(s, p, evs[i].events);
        }
        while (s->nheap && s->heap[0]->deadline <= s->now) {
            struct conn *c = s->heap[0];
            timer_clear(s, c);
            conn_timer(s, c);
            if (c->dead)
                conn_close(s, c);
        }
        if (s->accept_resume && s->now >= s->accept_resume) {
            struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &s->lfd};
            epoll_ctl(s->epfd, EPOLL_CTL_MOD, s->lfd, &ev);
            s->accept_resume = 0;
        }
        if (s->log && s->now >= next_flush) {
            (void)!alog_flush(s->log);
            next_flush = s->now + FLUSH_MS;
        }
    }
    while (s->conns)
        conn_close(s, s->conns);
    if (s->log)
        (void)!alog_flush(s->log);
    return e;
}

void replay_server_free(struct replay_server *s)
{
    if (!s)
        return;
    while (s->conns)
        conn_close(s, s->conns);
    alog_close(s->log);
    if (s->lfd >= 0)
        close(s->lfd);
    if (s->epfd >= 0)
        close(s->epfd);
    if (s->stopfd >= 0)
        close(s->stopfd);
    while (s->free_resps) {
        struct response *r = s->free_resps;
        s->free_resps = r->next_free;
        free(r);
    }
    for (size_t i = 0; i < s->nfree_readers; i++)
        warcreader_free(s->free_readers[i]);
    free(s->att);
    free(s->heap);
    for (size_t i = 0; i < s->nowned; i++)
        free(s->owned[i]);
    free(s);
}
