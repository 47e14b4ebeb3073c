/* Client connections of the replay server: request parsing, pipelining, sending, lingering. */
#include "replay/conn.h"

#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/buf.h"
#include "common/log.h"
#include "common/monotime.h"

#define CONN_IN_MAX      (2 * HTTPMSG_REQUEST_MAX) /* buffered request bytes (pipelining) */
#define CONN_DISCARD_MAX (1024 * 1024) /* request bodies we read and drop; larger get 413 */
#define CONN_IDLE_MS     30000         /* an idle or half-sent request is dropped after this */
#define CONN_STALL_MS    60000         /* a client that takes no bytes for this long is dropped */
#define CONN_LINGER_MS   2000          /* reading leftovers after the last response, before close */

enum conn_state { CONN_IDLE, CONN_RESPOND, CONN_LINGER };

struct conn {
    struct conn *prev, *next;
    int fd;
    uint64_t id;
    enum conn_state state;
    int dead;        /* close when the current event is handled */
    int reset;       /* close with a TCP reset */
    int peer_closed; /* the client sent EOF */
    int gone;        /* the client's socket failed (reset, closed): it went away */
    uint32_t events; /* epoll interest */
    struct buf in;   /* received request bytes not handled yet */
    uint64_t discard;
    struct response *resp;
    struct timerheap_node timer; /* see conn_of */
    int64_t progress;            /* last time a send() moved bytes */
};

/* The connection a timer node is embedded in. */
static struct conn *conn_of(struct timerheap_node *node)
{
    return (struct conn *)(void *)((char *)node - offsetof(struct conn, timer));
}

/* ---- time ---------------------------------------------------------------------------- */

static double conn_wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void conn_timer_set(struct conn_set *cs, struct conn *c, int64_t when)
{
    timerheap_set(&cs->timers, &c->timer, when);
}

/* ---- connections --------------------------------------------------------------------------- */

static void conn_close(struct conn_set *cs, struct conn *c);
static void conn_pump(struct conn_set *cs, struct conn *c);
static void conn_respond(struct conn_set *cs, struct conn *c, const struct httpmsg_request *req,
                         int status_if_bad, const char *why);

static void conn_watch(struct conn_set *cs, struct conn *c, uint32_t events)
{
    if (c->events == events || c->dead)
        return;
    struct epoll_event ev = {.events = events, .data.ptr = c};
    if (epoll_ctl(cs->epfd, EPOLL_CTL_MOD, c->fd, &ev) != 0)
        c->dead = 1;
    else
        c->events = events;
}

/* Log r as ended at end_us (monotonic). */
static void conn_log(struct conn_set *cs, struct conn *c, struct response *r, int64_t end_us)
{
    uint64_t body = r->sent > r->head_len ? r->sent - r->head_len : 0;
    cs->stats.body_bytes += body;
    if (!cs->log)
        return;
    char fault[RESPONSE_FAULT_NAMES_MAX];
    response_fault_names(r->faults, fault, sizeof fault);
    struct alog_entry e = {
        .ts = r->ts,
        .method = r->method,
        .url = r->url,
        .status = r->status,
        .bytes = body,
        .ms = (double)(end_us - r->t0_us) / 1000.0,
        .conn = c->id,
        .fault = fault[0] ? fault : NULL,
    };
    alog_add(cs->log, &e);
}

static void conn_close(struct conn_set *cs, struct conn *c)
{
    timerheap_clear(&cs->timers, &c->timer);
    if (c->resp) {
        if (c->gone || c->peer_closed) /* a response cut short by its client */
            c->resp->faults |= RESPONSE_FAULT_HANGUP;
        conn_log(cs, c, c->resp, monotime_us());
        response_put(&cs->pool, c->resp);
    }
    if (c->reset) {
        struct linger lg = {1, 0}; /* close() then sends RST instead of FIN */
        setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    }
    close(c->fd);
    if (c->prev)
        c->prev->next = c->next;
    else
        cs->list = c->next;
    if (c->next)
        c->next->prev = c->prev;
    buf_release(&c->in);
    free(c);
    cs->n--;
}

/* The response is out: log it, then wait for the next request or close. It ended when its
 * last bytes were handed to the kernel: stamped before that send(), so that the log never
 * says it ended later than the client could have had it, however late this runs. */
static void conn_finish(struct conn_set *cs, struct conn *c)
{
    struct response *r = c->resp;
    int keep = r->keep_alive && !c->peer_closed && !cs->stopping;
    conn_log(cs, c, r, r->last_send_us ? r->last_send_us : monotime_us());
    response_put(&cs->pool, r);
    c->resp = NULL;
    if (keep) {
        c->state = CONN_IDLE;
        conn_watch(cs, c, EPOLLIN);
        conn_timer_set(cs, c, cs->now + CONN_IDLE_MS);
        return;
    }
    /* Half-close and drain what the client still sends, so that close() sends no RST
     * that could destroy the response in flight. */
    shutdown(c->fd, SHUT_WR);
    c->state = CONN_LINGER;
    conn_watch(cs, c, EPOLLIN);
    conn_timer_set(cs, c, cs->now + CONN_LINGER_MS);
}

/* Send what can be sent now; on return the connection waits for a timer or an event. */
static void conn_pump(struct conn_set *cs, struct conn *c)
{
    struct response *r = c->resp;
    for (;;) {
        if (r->out_off == r->out_len)
            r->out_off = r->out_len = 0;
        if (r->out_len < RESPONSE_OUT_CAP && r->produced < r->body_len) {
            uint64_t lim = r->body_len - r->produced;
            if (r->reset_at - r->produced < lim)
                lim = r->reset_at - r->produced;
            if (r->stall_at - r->produced < lim)
                lim = r->stall_at - r->produced;
            if (r->slow_step && r->allowance < lim)
                lim = r->allowance;
            if (lim > RESPONSE_OUT_CAP - r->out_len)
                lim = RESPONSE_OUT_CAP - r->out_len;
            if (lim) {
                ssize_t n = response_produce(r, r->out + r->out_len, (size_t)lim);
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
                conn_finish(cs, c);
            } else if (r->produced == r->stall_at) {
                /* Silence mid-body: no bytes, no close, until the timer ends it. */
                r->faults |= RESPONSE_FAULT_STALL;
                r->stall_at = UINT64_MAX;
                r->stall_end = cs->now + r->stall_ms;
                conn_watch(cs, c, 0);
                conn_timer_set(cs, c, r->stall_end);
            } else if (r->produced == r->reset_at) {
                r->faults |= RESPONSE_FAULT_RESET;
                c->reset = 1;
                c->dead = 1;
            } else if (r->slow_step && !r->allowance) {
                conn_watch(cs, c, 0);
                conn_timer_set(cs, c, r->slow_next);
            } else {
                log_warn("%s: the record ended early", r->url);
                c->dead = 1;
            }
            return;
        }
        r->last_send_us = monotime_us();
        ssize_t n = send(c->fd, r->out + r->out_off, r->out_len - r->out_off, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                conn_watch(cs, c, EPOLLOUT);
                conn_timer_set(cs, c, c->progress + CONN_STALL_MS);
            } else {
                c->dead = c->gone = 1; /* the client went away */
            }
            return;
        }
        r->out_off += (size_t)n;
        r->sent += (uint64_t)n;
        c->progress = cs->now;
    }
}

/* The latency delay (if any) is over: start sending. */
static void conn_start(struct conn_set *cs, struct conn *c)
{
    struct response *r = c->resp;
    r->start_at = 0;
    c->progress = cs->now;
    if (r->slow_step)
        r->slow_next = cs->now + r->slow_interval;
    conn_pump(cs, c);
}

/* Set up the response to one parsed request and start it. */
static void conn_respond(struct conn_set *cs, struct conn *c, const struct httpmsg_request *req,
                         int status_if_bad, const char *why)
{
    struct response *r = response_get(&cs->pool);
    if (!r) {
        c->dead = 1;
        return;
    }
    c->resp = r;
    c->state = CONN_RESPOND;
    timerheap_clear(&cs->timers, &c->timer);
    cs->stats.requests++;
    r->ts = conn_wall_s();
    r->t0_us = monotime_us();
    r->keep_alive = req && req->keep_alive && !cs->stopping && !status_if_bad;
    snprintf(r->method, sizeof r->method, "%.*s", req ? (int)req->method_len : 1,
             req ? req->method : "-");
    memcpy(r->url, "-", 2);
    double delay_ms = 0;
    if (status_if_bad)
        response_page(r, status_if_bad, NULL, why, 0);
    else
        delay_ms = router_answer(cs->router, &cs->pool, r, req);
    if (delay_ms > 0) {
        r->start_at = cs->now + (int64_t)ceil(delay_ms);
        conn_watch(cs, c, 0);
        conn_timer_set(cs, c, r->start_at);
        return;
    }
    conn_start(cs, c);
}

/* Drop n bytes from the front of the request buffer. */
static void conn_consume(struct conn *c, size_t n)
{
    memmove(c->in.data, c->in.data + n, c->in.len - n);
    c->in.len -= n;
    c->in.data[c->in.len] = '\0';
}

/* Answer the requests buffered on an idle connection, one at a time. */
static void conn_requests(struct conn_set *cs, struct conn *c)
{
    while (c->state == CONN_IDLE && !c->dead) {
        size_t k = 0;
        while (k < c->in.len && (c->in.data[k] == '\r' || c->in.data[k] == '\n'))
            k++;
        if (k)
            conn_consume(c, k);
        if (!c->in.len)
            break;
        size_t hl = httpmsg_head_end(c->in.data, c->in.len);
        if (!hl || hl > HTTPMSG_REQUEST_MAX) {
            if (hl || c->in.len >= HTTPMSG_REQUEST_MAX)
                conn_respond(cs, c, NULL, 431, "The request head is too large.");
            break; /* else wait for the rest */
        }
        struct httpmsg_request req;
        if (httpmsg_parse_request(c->in.data, hl, &req) != ERR_OK) {
            conn_respond(cs, c, NULL, 400, err_msg());
            break;
        }
        if (req.chunked) {
            conn_respond(cs, c, &req, 501, "Chunked request bodies are not supported.");
            break;
        }
        if (req.content_length > CONN_DISCARD_MAX) {
            conn_respond(cs, c, &req, 413, "The request body is too large.");
            break;
        }
        c->discard = req.content_length;
        conn_respond(cs, c, &req, 0, NULL);
        if (c->dead)
            return;
        conn_consume(c, hl);
        size_t drop = c->discard < c->in.len ? (size_t)c->discard : c->in.len;
        conn_consume(c, drop);
        c->discard -= drop;
    }
    if (c->state == CONN_IDLE && c->peer_closed)
        c->dead = 1;
}

/* Read what the socket has (an idle connection's requests, or leftovers while lingering). */
static void conn_read(struct conn_set *cs, struct conn *c)
{
    char tmp[16384];
    for (;;) {
        ssize_t n = recv(c->fd, tmp, sizeof tmp, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                c->dead = c->gone = 1;
            return;
        }
        if (n == 0) {
            c->peer_closed = 1;
            if (c->state == CONN_LINGER)
                c->dead = 1;
            return;
        }
        if (c->state == CONN_LINGER)
            continue;
        size_t off = 0;
        if (c->discard) {
            off = c->discard < (uint64_t)n ? (size_t)c->discard : (size_t)n;
            c->discard -= off;
        }
        if (off < (size_t)n && buf_append(&c->in, tmp + off, (size_t)n - off) != ERR_OK) {
            /* More than IN_MAX unanswered bytes: the head is too large (or a flood). */
            conn_respond(cs, c, NULL, 431, "The request head is too large.");
            return;
        }
        if (c->in.len >= HTTPMSG_REQUEST_MAX)
            return; /* enough to work on; the rest stays in the kernel */
    }
}

void conn_handle(struct conn_set *cs, struct conn *c, uint32_t ev)
{
    if ((ev & EPOLLERR) || ((ev & EPOLLHUP) && c->state == CONN_RESPOND)) {
        c->dead = c->gone = 1; /* the client went away */
    } else {
        if ((ev & (EPOLLIN | EPOLLHUP)) && c->state != CONN_RESPOND) {
            conn_read(cs, c);
            if (c->state == CONN_IDLE && !c->dead)
                conn_timer_set(cs, c, cs->now + CONN_IDLE_MS);
        }
        if (!c->dead && (ev & EPOLLOUT) && c->state == CONN_RESPOND && !c->resp->start_at)
            conn_pump(cs, c);
        if (!c->dead && c->state == CONN_IDLE)
            conn_requests(cs, c);
    }
    if (c->dead)
        conn_close(cs, c);
}

static void conn_timer(struct conn_set *cs, struct conn *c)
{
    struct response *r = c->resp;
    if (c->state != CONN_RESPOND) {
        c->dead = 1; /* idle too long, or done lingering */
    } else if (r->start_at) {
        conn_start(cs, c);
    } else if (r->stall_end) {
        r->stall_end = 0; /* the stall is over: the rest of the body goes out */
        c->progress = cs->now;
        conn_pump(cs, c);
    } else if (r->slow_step && !r->allowance && r->out_off == r->out_len) {
        /* A slow body's next piece is due (timers never fire early). */
        r->allowance = r->slow_step;
        r->slow_next += r->slow_interval;
        conn_pump(cs, c);
    } else if (cs->now - c->progress >= CONN_STALL_MS) {
        c->dead = 1;
    } else {
        conn_timer_set(cs, c, c->progress + CONN_STALL_MS);
    }
    if (!c->dead && c->state == CONN_IDLE)
        conn_requests(cs, c);
}

/* ---- the set ------------------------------------------------------------------------------- */

enum err conn_set_init(struct conn_set *cs, int epfd, struct router *rt,
                       const struct warc_archive *arc, struct alog *log)
{
    *cs = (struct conn_set){.epfd = epfd, .router = rt, .log = log};
    cs->pool.arc = arc;
    return timerheap_init(&cs->timers, CONN_MAX);
}

void conn_set_release(struct conn_set *cs)
{
    conn_close_all(cs);
    timerheap_release(&cs->timers);
    response_pool_release(&cs->pool);
}

void conn_set_tick(struct conn_set *cs)
{
    cs->now = monotime_us() / 1000;
}

int64_t conn_set_deadline(const struct conn_set *cs)
{
    const struct timerheap_node *first = timerheap_first(&cs->timers);
    return first ? first->deadline : INT64_MAX;
}

void conn_add(struct conn_set *cs, int fd)
{
    struct conn *c = cs->n < CONN_MAX ? calloc(1, sizeof *c) : NULL;
    if (!c) {
        close(fd);
        return;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    c->fd = fd;
    c->id = ++cs->next_id;
    c->timer.idx = TIMERHEAP_NONE;
    c->events = EPOLLIN;
    buf_init(&c->in, CONN_IN_MAX);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
    if (epoll_ctl(cs->epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
        close(fd);
        free(c);
        return;
    }
    c->next = cs->list;
    if (cs->list)
        cs->list->prev = c;
    cs->list = c;
    cs->n++;
    cs->stats.connections++;
    conn_timer_set(cs, c, cs->now + CONN_IDLE_MS);
}

void conn_expire(struct conn_set *cs)
{
    struct timerheap_node *first;
    while ((first = timerheap_first(&cs->timers)) && first->deadline <= cs->now) {
        struct conn *c = conn_of(first);
        timerheap_clear(&cs->timers, first);
        conn_timer(cs, c);
        if (c->dead)
            conn_close(cs, c);
    }
}

void conn_close_all(struct conn_set *cs)
{
    while (cs->list)
        conn_close(cs, cs->list);
}
