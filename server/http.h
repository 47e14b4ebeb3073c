/*
 * A small HTTP server (the only user of libmicrohttpd): one handler callback gets a
 * whole request (method, path, query, headers, a capped body) and fills a response.
 * Requests are served on a small pool of threads, so the handler must be thread-safe.
 * A request with a fault (enum http_fault) goes to the handler as soon as its headers
 * are in, without its body, and the handler answers the fault.
 *
 * Ownership: http_start hands out a struct http the caller frees with http_stop.
 * Everything in a struct http_request is borrowed for the duration of the callback;
 * the handler sets resp->body to malloc'd memory that the server frees.
 */
#ifndef SITESCOUT_SERVER_HTTP_H
#define SITESCOUT_SERVER_HTTP_H

#include <stddef.h>

#include "common/err.h"

#define HTTP_MAX_BODY    ((size_t)1 << 20) /* request bodies above this get 413 */
#define HTTP_MAX_HEADERS 8                 /* extra response headers */

/*
 * Limits against clients that hold connections (docs/api.md, "Limits"): the
 * connections one client address may have open at once (more are closed as soon as
 * they are accepted), all connections (HTTP_MAX_CONNECTIONS, or half of RLIMIT_NOFILE
 * if that is lower; when all are taken, an address holding fewer takes the place of a
 * connection of one holding the most that is still sending its first head:
 * server/httpgate.h), and the seconds a request's line and headers may take to arrive,
 * however steadily the bytes trickle in (then the connection is closed). A request's
 * body must arrive within HTTP_BODY_SECONDS of its headers.
 */
#define HTTP_DEFAULT_CONNS_PER_IP   64
#define HTTP_MAX_CONNS_PER_IP       1024
#define HTTP_MAX_CONNECTIONS        2048
#define HTTP_DEFAULT_HEADER_SECONDS 10
#define HTTP_MAX_HEADER_SECONDS     600
#define HTTP_BODY_SECONDS           60

/* Why a request is refused whatever its route (the handler answers it first). */
enum http_fault {
    HTTP_FAULT_NONE,
    HTTP_FAULT_NUL,             /* a NUL (%00 or a raw byte) in the path or the query */
    HTTP_FAULT_NO_HOST,         /* HTTP/1.1 without a Host header */
    HTTP_FAULT_TOO_BIG,         /* a body over HTTP_MAX_BODY, declared (answered before it is
                                   read, then the connection closes) or sent (dropped) */
    HTTP_FAULT_LENGTH_REQUIRED, /* 411: a body sent with Transfer-Encoding (chunked) */
    /* Found in a head, by the gate in a connection's first (server/httpgate.h: the
       request has no method, path or headers) or by server/http.c in a later one;
       fault_detail says what, and the connection is closed after the answer. */
    HTTP_FAULT_MALFORMED,    /* 400: the request line or a header line */
    HTTP_FAULT_URI_TOO_LONG, /* 414 */
    HTTP_FAULT_HEAD_TOO_BIG, /* 431 */
    HTTP_FAULT_VERSION,      /* 505: not HTTP/1.0 or HTTP/1.1 */
    HTTP_FAULT_HEAD_TIMEOUT, /* 408: the head did not come within the deadline */
};

struct http_request {
    const char *method; /* "GET", "POST", ... */
    const char *path;   /* without the query string, not decoded beyond MHD's */
    const char *body;   /* NUL-terminated; "" when none */
    size_t body_len;
    enum http_fault fault;
    const char *fault_detail; /* for the framing faults: what is wrong (static) */
    void *conn; /* for http_request_header / http_request_arg; NULL for the gate's faults */
    /* A request made inside the process (conn NULL: the background refresher's, a
     * test's): its query arguments and its headers, name and value pairs,
     * NULL-terminated; or NULL. */
    const char *const *args;
    const char *const *headers;
};

/* A request header (case-insensitive name) or query argument (decoded); NULL if absent. */
const char *http_request_header(const struct http_request *r, const char *name);
const char *http_request_arg(const struct http_request *r, const char *name);
/*
 * The first query argument whose name is not in allowed (NULL-terminated), or NULL when
 * every one is known. Borrowed from the request.
 */
const char *http_request_unknown_arg(const struct http_request *r, const char *const *allowed);

struct http_response {
    int status;
    const char *content_type; /* static string; default "application/json" */
    char *body;               /* malloc'd, taken by the server; may be NULL */
    size_t body_len;
    const char *header_names[HTTP_MAX_HEADERS];
    char header_values[HTTP_MAX_HEADERS][256];
    int n_headers;
};

/* Add a response header (the name must be a static string). */
void http_response_header(struct http_response *resp, const char *name, const char *value);

typedef void (*http_handler_fn)(void *ctx, const struct http_request *req,
                                struct http_response *resp);

struct http;

struct http_config {
    const char *host;   /* an IPv4 address */
    int port;           /* 0 picks a free one */
    int threads;        /* serving threads; 0: 4 */
    int conns_per_ip;   /* 1..HTTP_MAX_CONNS_PER_IP; 0: HTTP_DEFAULT_CONNS_PER_IP */
    int header_seconds; /* 1..HTTP_MAX_HEADER_SECONDS; 0: HTTP_DEFAULT_HEADER_SECONDS */
    http_handler_fn fn;
    void *ctx;
};

/*
 * Listen as c says and serve. *bound_port is the port actually bound. ERR_IO when the
 * address cannot be bound (err_msg names it and the system's reason).
 */
enum err http_start(const struct http_config *c, struct http **out, int *bound_port) WARN_UNUSED;

/* Stop accepting, finish the requests in flight and free the server. NULL is fine. */
void http_stop(struct http *h);

#endif
