/* HTTP/1.x message heads for the replay server: parse requests, re-frame recorded responses. */
#ifndef SITESCOUT_REPLAY_HTTPMSG_H
#define SITESCOUT_REPLAY_HTTPMSG_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

#define HTTPMSG_REQUEST_MAX       (16 * 1024) /* request line and headers */
#define HTTPMSG_RESPONSE_HEAD_MAX (32 * 1024) /* a recorded response head we re-frame */
#define HTTPMSG_HEADERS_MAX       100         /* header lines in a request */

/* A parsed request head. Pointers borrow the parsed data. */
struct httpmsg_request {
    const char *method;
    size_t method_len;
    const char *target; /* absolute-form ("http://h/p") or origin-form ("/p") */
    size_t target_len;
    int minor;        /* HTTP/1.minor */
    const char *host; /* the Host header, or NULL */
    size_t host_len;
    int keep_alive; /* the client may send another request on the connection */
    uint64_t content_length;
    int chunked; /* the request has a Transfer-Encoding body */
};

/* A parsed recorded response head. */
struct httpmsg_response {
    int status;
    size_t head_len; /* status line, headers and the empty line */
    int chunked;     /* Transfer-Encoding ends in chunked */
    int has_length;  /* a valid Content-Length was recorded */
    uint64_t content_length;
};

/*
 * The length of the head at the start of data (up to and including the empty line
 * that ends it; lines end in CRLF or LF), or 0 if data holds no complete head.
 */
size_t httpmsg_head_end(const char *data, size_t len);

/* Parse a complete request head of head_len bytes. ERR_PARSE (message says why) if malformed. */
enum err httpmsg_parse_request(const char *data, size_t head_len,
                               struct httpmsg_request *req) WARN_UNUSED;

/*
 * Parse the head of a recorded response at the start of data[len]. ERR_PARSE if the
 * status line is not HTTP/x NNN or the head does not end within len bytes.
 */
enum err httpmsg_parse_response(const char *data, size_t len,
                                struct httpmsg_response *resp) WARN_UNUSED;

/* Whether responses with this status never have a body (1xx, 204, 304). */
int httpmsg_bodyless(int status);

/*
 * Write the recorded head (resp parsed from head) to out[outsz] for sending: every
 * byte kept verbatim except the hop-by-hop headers Connection, Keep-Alive and
 * Proxy-Connection, which are dropped, and Content-Length, which is rewritten to
 * body_len if it is missing or wrong (and dropped for chunked bodies). A
 * "Connection: keep-alive" or "Connection: close" line is added. ERR_TOOBIG if
 * out is too small.
 */
enum err httpmsg_reframe(const char *head, const struct httpmsg_response *resp, uint64_t body_len,
                         int keep_alive, char *out, size_t outsz, size_t *outlen) WARN_UNUSED;

#endif
