/*
 * Internal to server/: the gate in front of libmicrohttpd. It accepts every connection itself and
 * holds it until the first request's head has come in, looking at the bytes with MSG_PEEK (so
 * libmicrohttpd still reads them all). A well-formed head is handed on with the
 * connection; a malformed one (httpcheck_head) is answered here, with the API's JSON
 * error body, and the connection closed; a head still incomplete at the deadline gets
 * 408. libmicrohttpd 0.9.75 would answer such requests with its own HTML pages, which
 * cannot be replaced. The gate also refuses connections beyond the caller's limits.
 *
 * One thread runs the gate (epoll). The callbacks run on it; hand_on and leave may
 * race with the caller's other threads, so the caller locks what they share.
 */
#ifndef SITESCOUT_SERVER_HTTPGATE_H
#define SITESCOUT_SERVER_HTTPGATE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "common/err.h"
#include "server/httpcheck.h"

#define HTTPGATE_ADDR_LEN 64 /* a client address as text, NUL included */

struct httpgate_ops {
    void *ctx;
    /*
     * A new connection from ip: HTTPGATE_TAKEN takes it (and a slot of the caller's),
     * HTTPGATE_REFUSED refuses it (ip has its share), HTTPGATE_FULL refuses it because
     * every slot is taken: the gate may then make room (see httpgate_start).
     */
    int (*admit)(void *ctx, const char *ip);
    /* The connections ip has open (those held here included). */
    unsigned (*open_from)(void *ctx, const char *ip);
    /* A connection the gate closed itself: the slot admit took is free again. */
    void (*leave)(void *ctx, const char *ip);
    /* A good head: the connection and its slot are the callee's from now on. */
    void (*hand_on)(void *ctx, int fd, const struct sockaddr *addr, socklen_t len);
    /*
     * The whole response (status line to body, malloc'd, *len its size) refusing a head:
     * what the checker found and why; HTTPCHECK_HEAD_MORE means the deadline passed
     * with the head incomplete. NULL: close without an answer.
     */
    char *(*refuse)(void *ctx, enum httpcheck_head what, const char *why, size_t *len);
};

enum { HTTPGATE_REFUSED, HTTPGATE_TAKEN, HTTPGATE_FULL };

struct httpgate;

/*
 * Serve listen_fd (the gate owns it from here, whatever the outcome): each connection's
 * head must be in within header_ms of its accept. When every slot is taken, a new
 * connection from an address with fewer open than another takes the place of the oldest
 * connection held here (still sending its first head) of an address with at least two
 * more than it, which is closed without an answer: many addresses holding every slot
 * with heads that never end cannot keep another address out. Without such a
 * connection, the new one is closed at once.
 */
enum err httpgate_start(int listen_fd, int64_t header_ms, const struct httpgate_ops *ops,
                        struct httpgate **out) WARN_UNUSED;

/* Stop accepting, close the connections still held, free. NULL is fine. */
void httpgate_stop(struct httpgate *g);

/* The client address of addr as text ("127.0.0.1", "::1"), for admit and leave. */
void httpgate_addr_text(const struct sockaddr *addr, char out[HTTPGATE_ADDR_LEN]);

#endif
