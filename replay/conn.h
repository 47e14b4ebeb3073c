/* Internal to replay/: the replay server's client connections: read requests, answer them in order,
 * send, close. */
#ifndef SITESCOUT_REPLAY_CONN_H
#define SITESCOUT_REPLAY_CONN_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "replay/alog.h"
#include "replay/replay.h"
#include "replay/response.h"
#include "replay/router.h"
#include "replay/timerheap.h"

#define CONN_MAX 8192 /* more connections are closed at once */

struct conn;

/*
 * Every connection of one server and what they share. Embedded in the server, which
 * owns the epoll descriptor, the router and the log; the set owns its connections,
 * their timers and the response pool. Each connection is registered with epoll with
 * itself as data.ptr, to be handed back to conn_handle.
 */
struct conn_set {
    int epfd;     /* borrowed */
    int64_t now;  /* monotonic ms, read once per loop turn (conn_set_tick) */
    int stopping; /* the server stops: finish the responses, keep nothing alive */
    struct conn *list;
    size_t n;
    uint64_t next_id;
    struct timerheap timers; /* at most one deadline per connection */
    struct response_pool pool;
    struct router *router; /* borrowed */
    struct alog *log;      /* borrowed; NULL = no access log */
    struct replay_stats stats;
};

enum err conn_set_init(struct conn_set *cs, int epfd, struct router *rt,
                       const struct warc_archive *arc, struct alog *log) WARN_UNUSED;

/* Close every connection (their responses are logged), free everything. */
void conn_set_release(struct conn_set *cs);

/* Read the clock into cs->now. */
void conn_set_tick(struct conn_set *cs);

/* The earliest deadline of a connection (monotonic ms), or INT64_MAX. */
int64_t conn_set_deadline(const struct conn_set *cs);

/* Take an accepted socket (non-blocking); it is closed at once if the set is full. */
void conn_add(struct conn_set *cs, int fd);

/* An epoll event for connection c. */
void conn_handle(struct conn_set *cs, struct conn *c, uint32_t events);

/* Run the timers that are due at cs->now. */
void conn_expire(struct conn_set *cs);

/* Close every connection now. */
void conn_close_all(struct conn_set *cs);

#endif
