/* The replay server: listening socket, one epoll loop, accepting; connections live in conn.c. */
#include "replay/replay.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/log.h"
#include "common/num.h"
#include "replay/alog.h"
#include "replay/conn.h"
#include "replay/router.h"

#define REPLAY_ACCEPT_PAUSE_MS 100  /* out of descriptors: retry accept() after this */
#define REPLAY_FLUSH_MS        1000 /* access log */
#define REPLAY_EVENTS_MAX      256

struct replay_server {
    const struct warc_archive *arc;
    struct replay_config cfg; /* strings point into owned copies */
    char *owned[3 * REPLAY_HOSTS_MAX + 2];
    size_t nowned;
    int lfd, epfd, stopfd;
    char address[96];
    struct alog *log;
    struct router router;
    struct conn_set conns;
    int64_t accept_resume; /* 0 = accepting */
};

static void replay_accept(struct replay_server *s)
{
    for (;;) {
        int fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                log_warn("replay: accept: %s; pausing for %d ms", strerror(errno),
                         REPLAY_ACCEPT_PAUSE_MS);
                struct epoll_event ev = {.events = 0, .data.ptr = &s->lfd};
                epoll_ctl(s->epfd, EPOLL_CTL_MOD, s->lfd, &ev);
                s->accept_resume = s->conns.now + REPLAY_ACCEPT_PAUSE_MS;
            }
            return;
        }
        conn_add(&s->conns, fd);
    }
}

static enum err replay_listen(struct replay_server *s, const char *spec)
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
    int p;
    if (!num_parse_int(port, 0, 65535, &p))
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
static const char *replay_own(struct replay_server *s, const char *str, int lower)
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

static enum err replay_config_copy(struct replay_server *s, const struct replay_config *cfg)
{
    s->cfg = *cfg;
    if (cfg->error_rate < 0 || cfg->error_rate > 1 || cfg->reset_rate < 0 || cfg->reset_rate > 1 ||
        cfg->slow_rate < 0 || cfg->slow_rate > 1 || cfg->stall_rate < 0 || cfg->stall_rate > 1 ||
        cfg->loop_rate < 0 || cfg->loop_rate > 1 || cfg->latency_ms < 0)
        return err_set(ERR_INVAL, "fault rates must lie in [0, 1] and latency must be >= 0");
    if (cfg->ntrap > REPLAY_HOSTS_MAX || cfg->nhuge > REPLAY_HOSTS_MAX ||
        cfg->njunk > REPLAY_HOSTS_MAX)
        return err_set(ERR_INVAL, "at most %d hosts of each kind", REPLAY_HOSTS_MAX);
    int ok = 1;
    for (size_t i = 0; i < cfg->ntrap; i++)
        ok &= (s->cfg.trap_hosts[i] = replay_own(s, cfg->trap_hosts[i], 1)) != NULL;
    for (size_t i = 0; i < cfg->nhuge; i++)
        ok &= (s->cfg.huge_hosts[i] = replay_own(s, cfg->huge_hosts[i], 1)) != NULL;
    for (size_t i = 0; i < cfg->njunk; i++)
        ok &= (s->cfg.junk_hosts[i] = replay_own(s, cfg->junk_hosts[i], 1)) != NULL;
    s->cfg.listen = replay_own(s, cfg->listen ? cfg->listen : "127.0.0.1:8081", 0);
    ok &= s->cfg.listen != NULL;
    if (cfg->access_log)
        ok &= (s->cfg.access_log = replay_own(s, cfg->access_log, 0)) != NULL;
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
    enum err e = replay_config_copy(s, cfg);
    if (e)
        goto out;
    router_init(&s->router, &s->cfg, archive);
    s->epfd = epoll_create1(EPOLL_CLOEXEC);
    s->stopfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (s->epfd < 0 || s->stopfd < 0) {
        e = err_set(ERR_IO, "epoll/eventfd: %s", strerror(errno));
        goto out;
    }
    if ((e = replay_listen(s, s->cfg.listen)))
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
    e = conn_set_init(&s->conns, s->epfd, &s->router, archive, s->log);
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
    *out = s->conns.stats;
}

/* Milliseconds until the next timer, log flush or accept retry (-1: none). */
static int replay_timeout(const struct replay_server *s, int64_t next_flush)
{
    int64_t when = conn_set_deadline(&s->conns);
    if (s->log && next_flush < when)
        when = next_flush;
    if (s->accept_resume && s->accept_resume < when)
        when = s->accept_resume;
    if (when == INT64_MAX)
        return -1;
    int64_t d = when - s->conns.now;
    return d < 0 ? 0 : d > 60000 ? 60000 : (int)d;
}

/* After the events of a loop turn: timers, the accept pause, the log. */
static void replay_housekeep(struct replay_server *s, int64_t *next_flush)
{
    conn_expire(&s->conns);
    if (s->accept_resume && s->conns.now >= s->accept_resume) {
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = &s->lfd};
        epoll_ctl(s->epfd, EPOLL_CTL_MOD, s->lfd, &ev);
        s->accept_resume = 0;
    }
    if (s->log && s->conns.now >= *next_flush) {
        (void)!alog_flush(s->log);
        *next_flush = s->conns.now + REPLAY_FLUSH_MS;
    }
}

enum err replay_server_run(struct replay_server *s)
{
    struct epoll_event evs[REPLAY_EVENTS_MAX];
    enum err e = ERR_OK;
    conn_set_tick(&s->conns);
    int64_t next_flush = s->conns.now + REPLAY_FLUSH_MS;
    while (!s->conns.stopping) {
        int n = epoll_wait(s->epfd, evs, REPLAY_EVENTS_MAX, replay_timeout(s, next_flush));
        if (n < 0 && errno != EINTR) {
            e = err_set(ERR_IO, "epoll_wait: %s", strerror(errno));
            break;
        }
        conn_set_tick(&s->conns);
        for (int i = 0; i < n; i++) {
            void *p = evs[i].data.ptr;
            if (p == &s->lfd)
                replay_accept(s);
            else if (p == &s->stopfd)
                s->conns.stopping = 1;
            else
                conn_handle(&s->conns, p, evs[i].events);
        }
        replay_housekeep(s, &next_flush);
    }
    conn_close_all(&s->conns);
    if (s->log)
        (void)!alog_flush(s->log);
    return e;
}

void replay_server_free(struct replay_server *s)
{
    if (!s)
        return;
    conn_set_release(&s->conns);
    router_release(&s->router);
    alog_close(s->log);
    if (s->lfd >= 0)
        close(s->lfd);
    if (s->epfd >= 0)
        close(s->epfd);
    if (s->stopfd >= 0)
        close(s->stopfd);
    for (size_t i = 0; i < s->nowned; i++)
        free(s->owned[i]);
    free(s);
}
