/*
 * The gate in front of libmicrohttpd. It accepts every connection itself and holds it
 * until the first request's head has come in, looking at the bytes with MSG_PEEK (so
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
    /* A new connection from ip: 1 takes it (and a slot of the caller's), 0 refuses it. */
    int (*admit)(void *ctx, const char *ip);
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

struct httpgate;

/*
 * Serve listen_fd (the gate owns it from here, whatever the outcome): each connection's
 * head must be in within header_ms of its accept.
 */
enum err httpgate_start(int listen_fd, int64_t header_ms, const struct httpgate_ops *ops,
                        struct httpgate **out) WARN_UNUSED;

/* Stop accepting, close the connections still held, free. NULL is fine. */
void httpgate_stop(struct httpgate *g);

/* The client address of addr as text ("127.0.0.1", "::1"), for admit and leave. */
void httpgate_addr_text(const struct sockaddr *addr, char out[HTTPGATE_ADDR_LEN]);

#endif
