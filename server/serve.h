/*
 * `sitescout serve`'s lifecycle: bring the schema up to date, serve the HTTP API,
 * run the submitted jobs (server/sched.h) until SIGINT or SIGTERM, then stop cleanly.
 */
#ifndef SITESCOUT_SERVER_SERVE_H
#define SITESCOUT_SERVER_SERVE_H

#include "common/err.h"
#include "server/sched.h"

#define SERVE_MAX_WORKERS     SCHED_MAX_WORKERS
#define SERVE_DEFAULT_WORKERS 2
#define SERVE_MAX_SLOTS       10000
#define SERVE_DEFAULT_SLOTS   128

/* Everything borrowed for the duration of serve_run. */
struct serve_opts {
    const char *host;   /* IPv4 address to listen on */
    int port;           /* 0 picks a free one */
    const char *db_url; /* NULL: $SITESCOUT_DB or the embedded cluster (store/dbopen) */
    const char *token;  /* every API call needs it, or NULL */
    int workers;        /* 0..SERVE_MAX_WORKERS (0: the API alone, no job run here) */
    int no_api;         /* `sitescout worker`: run jobs only, serve no API (host unused) */
    /* The fetch pool the jobs share (crawler/fetch.h's fetch_pool_new, with the proxy
     * and SERVE_MAX_SLOTS transfers at most; cli_serve makes it). */
    struct fetch_pool *pool;
    int conns_per_ip;   /* HTTP connections one client address may hold; 0: the default */
    int header_seconds; /* time for a request's line and headers to arrive; 0: the default */
    /* Jobs with params.warc write WARC files into warc_dir (NULL: none may), rotated
     * past warc_max_size bytes (0: 1 GiB). */
    const char *warc_dir;
    uint64_t warc_max_size;
    /* Browsers on this origin may call the API (CORS; api_config's); NULL: none. */
    const char *cors_origin;
    /* Called once the API listens, with the port it got (e.g. to announce it); with
     * no_api, once the workers run (host NULL, port 0). */
    void (*ready)(void *ctx, const char *host, int port);
    void *ctx;
};

/*
 * Serve (or, with no_api, only run jobs) until SIGINT or SIGTERM (it installs their handlers and
 * ignores SIGPIPE, and raises its soft limit of open files to the hard one, for connections and
 * fetches). On the signal, no new requests are taken and the running jobs pause; the next start
 * resumes them. Returns ERR_OK after a clean stop, or the error that kept it from
 * starting (err_msg says which).
 */
enum err serve_run(const struct serve_opts *o) WARN_UNUSED;

#endif
