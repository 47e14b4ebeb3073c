/* The gate: accepts connections and checks each one's first request head (httpgate.h). */
#include "server/httpgate.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "common/log.h"
#include "common/monotime.h"

#define WAIT_MS    250 /* the longest epoll wait: deadlines are checked at least this often */
#define MAX_EVENTS 64
/* Enough to see any head, or that it is too long. */
#define PEEK_BYTES (HTTPCHECK_PEEK_ENOUGH + 1)
/* Bytes read and dropped before answering, so that close sends no reset. */
#define DRAIN_MAX 65536
/* Connections accepted, or cut, in a row before the other events are seen to. */
#define BATCH 64
/* How often the held connections' deadlines are looked at. */
#define SCAN_MS 100

/* A connection held until its first head is in. */
struct held {
    struct held *prev, *next;
    int fd;
    int64_t deadline_ms;
    struct sockaddr_storage addr;
    socklen_t addr_len;
    char ip[HTTPGATE_ADDR_LEN];
};

struct httpgate {
    int listen_fd, epoll_fd, wake_fd;
    int64_t header_ms;
    struct httpgate_ops ops;
    struct held *held;   /* the gate thread's alone, newest first */
    struct held *oldest; /* its last */
    struct held *gone;   /* closed to make room: freed after the events at hand (make_room) */
    int cut;             /* connections cut since the last log line */
    int evicted;         /* closed to make room since the last log line */
    int64_t next_scan;   /* when expire() walks the held list next */
    pthread_t thread;
    int running;
    char peek[PEEK_BYTES];
};

void httpgate_addr_text(const struct sockaddr *addr, char out[HTTPGATE_ADDR_LEN])
{
    const void *a = NULL;
    if (addr->sa_family == AF_INET)
        a = &((const struct sockaddr_in *)addr)->sin_addr;
    else if (addr->sa_family == AF_INET6)
        a = &((const struct sockaddr_in6 *)addr)->sin6_addr;
    if (!a || !inet_ntop(addr->sa_family, a, out, HTTPGATE_ADDR_LEN))
        snprintf(out, HTTPGATE_ADDR_LEN, "?");
}

static void unlink_held(struct httpgate *g, struct held *k)
{
    if (k->prev)
        k->prev->next = k->next;
    else
        g->held = k->next;
    if (k->next)
        k->next->prev = k->prev;
    else
        g->oldest = k->prev;
    epoll_ctl(g->epoll_fd, EPOLL_CTL_DEL, k->fd, NULL);
}

/* Close a held connection the gate is done with; its slot is given back. */
static void drop(struct httpgate *g, struct held *k)
{
    unlink_held(g, k);
    close(k->fd);
    g->ops.leave(g->ops.ctx, k->ip);
    free(k);
}

/*
 * Answer a refused head and close. What the client sent is read first (up to
 * DRAIN_MAX), so that closing with unread bytes does not reset the connection before
 * the client has read the answer. The socket is non-blocking: an answer that does not
 * fit the send buffer at once is cut (these answers are a few hundred bytes).
 */
static void refuse(struct httpgate *g, struct held *k, enum httpcheck_head what, const char *why)
{
    char sink[4096];
    for (size_t drained = 0; drained < DRAIN_MAX;) {
        ssize_t r = recv(k->fd, sink, sizeof sink, MSG_DONTWAIT);
        if (r <= 0)
            break;
        drained += (size_t)r;
    }
    size_t len = 0;
    char *answer = g->ops.refuse(g->ops.ctx, what, why, &len);
    if (answer) {
        ssize_t sent = send(k->fd, answer, len, MSG_DONTWAIT | MSG_NOSIGNAL);
        (void)sent;
        free(answer);
    }
    shutdown(k->fd, SHUT_WR);
    drop(g, k);
}

/* Look at what a held connection has sent so far; hand it on, answer it, or wait. */
static void inspect(struct httpgate *g, struct held *k, uint32_t events)
{
    if (k->fd < 0)
        return; /* closed to make room in this round */
    ssize_t n = recv(k->fd, g->peek, sizeof g->peek, MSG_PEEK | MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (n <= 0) { /* closed by the client, or an error: nothing to answer */
        drop(g, k);
        return;
    }
    size_t head_len;
    const char *why;
    enum httpcheck_head what = httpcheck_head(g->peek, (size_t)n, &head_len, &why);
    if (what == HTTPCHECK_HEAD_OK) {
        unlink_held(g, k);
        g->ops.hand_on(g->ops.ctx, k->fd, (struct sockaddr *)&k->addr, k->addr_len);
        free(k);
    } else if (what != HTTPCHECK_HEAD_MORE) {
        refuse(g, k, what, why);
    } else if (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) {
        drop(g, k); /* the client stopped sending with its head unfinished */
    }
}

/*
 * Every slot is taken and ip wants one: close the oldest held connection (BATCH looked
 * at, at most) of an address with at least two more open than ip, so that addresses
 * share the slots (httpgate_start). 1 when one was closed.
 */
static int make_room(struct httpgate *g, const char *ip)
{
    unsigned mine = g->ops.open_from(g->ops.ctx, ip);
    struct held *k = g->oldest;
    for (int n = 0; k && n < BATCH; n++, k = k->prev)
        if (g->ops.open_from(g->ops.ctx, k->ip) > mine + 1) {
            unlink_held(g, k);
            close(k->fd);
            g->ops.leave(g->ops.ctx, k->ip);
            k->fd = -1; /* an event of this round may still name it: inspect skips it */
            k->next = g->gone;
            g->gone = k;
            g->evicted++;
            return 1;
        }
    return 0;
}

/* Accept what waits, BATCH at most: the listening socket is level-triggered, so the rest
   come back with the next epoll_wait, after the other events. */
static void accept_all(struct httpgate *g)
{
    for (int n = 0; n < BATCH; n++) {
        struct held *k = calloc(1, sizeof *k);
        if (!k)
            return; /* tried again at the next event */
        k->addr_len = sizeof k->addr;
        k->fd = accept4(g->listen_fd, (struct sockaddr *)&k->addr, &k->addr_len,
                        SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (k->fd < 0) {
            if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR && errno != ECONNABORTED)
                log_warn("http: accept: %s", strerror(errno));
            free(k);
            return;
        }
        httpgate_addr_text((struct sockaddr *)&k->addr, k->ip);
        int admit = g->ops.admit(g->ops.ctx, k->ip);
        if (admit == HTTPGATE_FULL && make_room(g, k->ip))
            admit = g->ops.admit(g->ops.ctx, k->ip);
        if (admit != HTTPGATE_TAKEN) {
            close(k->fd);
            free(k);
            continue;
        }
        k->deadline_ms = monotime_ms() + g->header_ms;
        k->next = g->held;
        if (g->held)
            g->held->prev = k;
        else
            g->oldest = k;
        g->held = k;
        /* Edge-triggered: peeked bytes stay in the socket, so level-triggered would spin. */
        struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP | EPOLLET, .data.ptr = k};
        if (epoll_ctl(g->epoll_fd, EPOLL_CTL_ADD, k->fd, &ev) != 0)
            drop(g, k);
    }
}

/*
 * Answer and close the connections past their deadline, BATCH at most: a slow flood's
 * thousands, all due at once, would keep the gate from accepting meanwhile. 1 when
 * more are due (the loop comes back at once, after the events).
 */
static int expire(struct httpgate *g)
{
    int64_t now = monotime_ms();
    int cut = 0;
    for (struct held *k = g->held, *next; k && cut < BATCH; k = next) {
        next = k->next;
        if (k->deadline_ms > now)
            continue;
        refuse(g, k, HTTPCHECK_HEAD_MORE, "the request's head did not come in time");
        cut++;
    }
    g->cut += cut;
    if (cut < BATCH && g->cut) {
        log_info("http: closed %d connection%s too slow to send a request", g->cut,
                 g->cut == 1 ? "" : "s");
        g->cut = 0;
    }
    if (g->evicted) {
        log_info("http: every connection taken: closed %d still sending a first request, of "
                 "addresses holding the most, for other addresses",
                 g->evicted);
        g->evicted = 0;
    }
    return cut == BATCH;
}

static int set_nonblocking(int fd)
{
    int flags = fcntl(fd, F_GETFL);
    return flags < 0 ? -1 : fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

static void *gate_main(void *arg)
{
    struct httpgate *g = arg;
    struct epoll_event ev[MAX_EVENTS];
    for (int more = 0;;) {
        int n = epoll_wait(g->epoll_fd, ev, MAX_EVENTS, more ? 0 : WAIT_MS);
        for (int i = 0; i < n; i++) {
            if (ev[i].data.ptr == &g->listen_fd)
                accept_all(g);
            else if (ev[i].data.ptr == &g->wake_fd)
                return NULL;
            else
                inspect(g, ev[i].data.ptr, ev[i].events);
        }
        for (struct held *k; (k = g->gone);) {
            g->gone = k->next;
            free(k);
        }
        /* The held list is walked every SCAN_MS, not after every event: a slow flood
           sends thousands of events a second. */
        int64_t now = monotime_ms();
        if (more || now >= g->next_scan) {
            more = expire(g);
            g->next_scan = now + SCAN_MS;
        }
    }
}

enum err httpgate_start(int listen_fd, int64_t header_ms, const struct httpgate_ops *ops,
                        struct httpgate **out)
{
    *out = NULL;
    struct httpgate *g = calloc(1, sizeof *g);
    if (!g) {
        close(listen_fd);
        return err_set(ERR_NOMEM, "out of memory");
    }
    g->listen_fd = listen_fd;
    g->header_ms = header_ms;
    g->ops = *ops;
    g->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    g->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    struct epoll_event on_listen = {.events = EPOLLIN, .data.ptr = &g->listen_fd};
    struct epoll_event on_wake = {.events = EPOLLIN, .data.ptr = &g->wake_fd};
    if (g->epoll_fd < 0 || g->wake_fd < 0 || set_nonblocking(listen_fd) != 0 ||
        epoll_ctl(g->epoll_fd, EPOLL_CTL_ADD, listen_fd, &on_listen) != 0 ||
        epoll_ctl(g->epoll_fd, EPOLL_CTL_ADD, g->wake_fd, &on_wake) != 0 ||
        pthread_create(&g->thread, NULL, gate_main, g) != 0) {
        enum err e = err_set(ERR_IO, "cannot start the connection gate: %s", strerror(errno));
        httpgate_stop(g);
        return e;
    }
    g->running = 1;
    *out = g;
    return ERR_OK;
}

void httpgate_stop(struct httpgate *g)
{
    if (!g)
        return;
    if (g->running) {
        uint64_t one = 1;
        ssize_t w = write(g->wake_fd, &one, sizeof one);
        (void)w;
        pthread_join(g->thread, NULL);
    }
    while (g->held)
        drop(g, g->held);
    for (struct held *k; (k = g->gone);) {
        g->gone = k->next;
        free(k);
    }
    close(g->listen_fd);
    if (g->wake_fd >= 0)
        close(g->wake_fd);
    if (g->epoll_fd >= 0)
        close(g->epoll_fd);
    free(g);
}
