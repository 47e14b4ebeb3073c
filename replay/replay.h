/* The replay web server: WARC records served as the web, as an HTTP proxy with fault injection. */
#ifndef SITESCOUT_REPLAY_REPLAY_H
#define SITESCOUT_REPLAY_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "replay/warc.h"

/*
 * One thread, one epoll loop, non-blocking sockets, HTTP/1.1 keep-alive. Requests
 * may be absolute-form (as a proxy gets them: "GET http://host/path HTTP/1.1") or
 * origin-form routed by the Host header. A URL with a record gets the recorded
 * response (see httpmsg_reframe for the framing headers that change); an unknown
 * URL on a known host gets 404; an unknown host gets 502 with
 * "Proxy-Status: sitescout-replay; error=dns_error". docs/replay.md has the details.
 *
 * Faults are decided per request from (seed, URL, how many times this URL was asked
 * for before), so a run is reproducible whatever the order of concurrent requests.
 */

#define REPLAY_HOSTS_MAX 64 /* per kind of synthetic host */

struct replay_config {
    const char *listen;     /* "HOST:PORT" (port 0 = any free port); NULL = 127.0.0.1:8081 */
    const char *access_log; /* path, or NULL for none */
    uint64_t seed;
    double latency_ms; /* mean of an exponential delay before each response; 0 = none */
    double error_rate; /* share of requests answered 500 or 503 instead */
    double reset_rate; /* share of responses whose connection is reset halfway through the body */
    double slow_rate;  /* share of responses whose body is dribbled out ... */
    unsigned slow_ms;  /* ... over about this many milliseconds in all (0 = 2000) */
    double stall_rate; /* share of responses that go silent halfway through the body ... */
    unsigned stall_ms; /* ... for this many milliseconds (0 = 60000) */
    double loop_rate;  /* share of URLs that answer a redirect loop (per URL, not request) */
    const char *trap_hosts[REPLAY_HOSTS_MAX]; /* endless calendar pages */
    size_t ntrap;
    const char *huge_hosts[REPLAY_HOSTS_MAX]; /* 100 MB text/html pages */
    size_t nhuge;
    const char *junk_hosts[REPLAY_HOSTS_MAX]; /* binary junk labelled text/html */
    size_t njunk;
};

struct replay_stats {
    uint64_t connections;
    uint64_t requests;
    uint64_t body_bytes;
};

struct replay_server;

/*
 * Bind and listen (no requests are served before replay_server_run). The config's
 * strings are copied; the archive is borrowed and must outlive the server.
 */
enum err replay_server_new(const struct replay_config *cfg, const struct warc_archive *archive,
                           struct replay_server **out) WARN_UNUSED;

/* The bound address as "IP:PORT" (the real port when 0 was asked for). Borrowed. */
const char *replay_server_address(const struct replay_server *s);

/* Serve until replay_server_stop is called; then close every connection and flush the log. */
enum err replay_server_run(struct replay_server *s) WARN_UNUSED;

/* Ask a running server to stop. Async-signal-safe: may be called from a signal handler. */
void replay_server_stop(struct replay_server *s);

void replay_server_stats(const struct replay_server *s, struct replay_stats *out);

/* Close the socket, free everything. Accepts NULL. */
void replay_server_free(struct replay_server *s);

#endif
