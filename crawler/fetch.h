/*
 * The fetcher, the contract for the rest of the code. Inside: fetch.c (clients and the
 * pool's thread), fetchsched.c (who may start what when: shares, politeness, robots.txt)
 * and fetchcurl.c (the only user of libcurl). One thread drives a curl multi handle with
 * many transfers in flight, at most `per_host` at a time on one host and a pause of
 * the per-host delay (or the host's robots.txt Crawl-delay, if longer) between two
 * requests to a host. robots.txt is fetched once per host and obeyed before any
 * page of that host. Redirects are followed by us: same-site hops up to
 * max_redirects; a redirect to another site ends the fetch with FETCH_REDIRECT (the
 * paper's website boundary: the target is a transversal link).
 *
 * Sharing: a fetch_pool is the engine (the thread, the connections, the hosts with
 * their robots.txt and politeness). A fetcher is one client of a pool: its own
 * requests, results and stats. Several fetchers attached to one pool (the jobs of
 * `sitescout serve`) share it fairly: while k clients have requests pending, each
 * may run ceil(max_in_flight / k) transfers (never more than its own cap); slots a
 * client leaves unused because it has nothing ready (its hosts wait for their delay)
 * go to the others until it has. A host's delay is kept across clients, so two jobs
 * crawling one site fetch it no faster than one. fetcher_new makes a private pool
 * with one client.
 *
 * Threads: fetcher_submit and fetcher_next may be called from any thread.
 * Ownership: fetcher_next hands out results the caller frees with fetch_result_free.
 */
#ifndef SITESCOUT_CRAWLER_FETCH_H
#define SITESCOUT_CRAWLER_FETCH_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

struct fetch_config {
    int max_in_flight;      /* transfers (= hosts) at once; default 64 */
    int per_host;           /* connections per host; default 1 */
    int delay_ms;           /* pause between requests to one host; default 1000 */
    int connect_timeout_ms; /* default 10000 */
    int timeout_ms;         /* whole transfer; default 30000 */
    int low_speed_bytes;    /* abort below this many bytes/s ... */
    int low_speed_secs;     /* ... for this long; defaults 100 and 15 */
    size_t max_body;        /* bytes kept of a body; default 2 MiB (more aborts) */
    int max_redirects;      /* same-site hops; default 5 */
    int obey_robots;        /* default 1 */
    int robots_retry_ms;    /* first wait after an unreachable robots.txt; default 2000 */
    int max_retries;        /* a page's transient failures asked again; default 2 */
    int retry_ms;           /* first back-off before asking again; default 1000 */
    int allow_private;      /* allow private, reserved and own addresses (addrcheck.h); 0 */
    const char *proxy;      /* e.g. "http://127.0.0.1:8081", or NULL */
    const char *user_agent; /* default "sitescout/VERSION (+FETCH_INFO_URL)" */
    /* The clock of the hosts' delays and the retries' back-offs (monotonic ms), read on
     * the pool's thread; NULL (the default): common/monotime. Tests pass their own to
     * hold a delay for as long as they need. */
    int64_t (*now_ms)(void);
};

#define FETCH_INFO_URL "https://github.com/sitescout/sitescout"

/* A config with every default filled in. */
void fetch_config_defaults(struct fetch_config *c);

enum fetch_status {
    FETCH_OK,         /* 2xx with an HTML body (maybe truncated at max_body) */
    FETCH_HTTP_ERROR, /* another status: 4xx, 5xx, a 3xx without a usable Location */
    FETCH_REDIRECT,   /* redirected to another site: see redirect_url */
    FETCH_TOO_MANY_REDIRECTS,
    FETCH_NOT_HTML, /* 2xx, but not text/html or application/xhtml+xml */
    FETCH_ROBOTS,   /* robots.txt disallows it: not fetched */
    FETCH_DNS,      /* the host does not resolve */
    FETCH_CONNECT,  /* could not connect */
    FETCH_TIMEOUT,  /* too slow */
    FETCH_BLOCKED,  /* a private, reserved or this host's own address: not fetched */
    FETCH_NETWORK,  /* another transfer failure (reset, bad response, ...) */
    FETCH_BAD_URL,  /* not a fetchable http(s) URL */
    FETCH_STATUS_COUNT
};

/*
 * Transient failures (issue 29): a 5xx that says "try later" (500, 502, 503, 504), a 429,
 * a connection reset or cut body (FETCH_NETWORK) and a timeout are asked again on the
 * same host, first in its queue, after a back-off of retry_ms << attempt (1 s, 2 s ...)
 * or the answer's Retry-After if longer; the host waits out the back-off (no other
 * request of it starts meanwhile), up to max_retries times a page (a timeout once). A Retry-After
 * over FETCH_RETRY_MAX_MS is not waited for: the failure is the result. The result counts as one
 * page (fetch_status_downloaded) whatever its attempts; the requests are in fetch_stats.requests
 * and fetch_stats.retries.
 */
#define FETCH_RETRY_MAX_MS 30000

/*
 * The back-off in ms before asking again after a failure (status, http_status, the
 * answer's Retry-After in seconds or 0) of attempt `retries` + 1, or -1: not again.
 */
int fetch_retry_wait_ms(const struct fetch_config *c, enum fetch_status status, int http_status,
                        long retry_after_s, int retries);

/* Short stable name of a status ("ok", "robots", ...), for logs and metrics. */
const char *fetch_status_name(enum fetch_status s);

/*
 * Did a fetch that ended with status s go out on the network (an HTTP answer or a
 * network error)? Those are the pages a crawl's budget and pages_downloaded count;
 * robots.txt refusals, blocked destinations and bad URLs cost no request. Same-site
 * redirect hops within one fetch count as one page.
 */
int fetch_status_downloaded(enum fetch_status s);

/*
 * Did a fetch that ended with status s fail before any answer came (the name did not
 * resolve, no connection, a timeout, a reset)? Many of those in a row, with no answer
 * at all, say the network or the proxy is down rather than the websites.
 */
int fetch_status_unreached(enum fetch_status s);

struct fetch_result {
    uint64_t tag;    /* the caller's, from fetcher_submit */
    char *url;       /* the requested URL, normalised */
    char *final_url; /* after same-site redirects (== url without) */
    enum fetch_status status;
    int http_status;    /* of the last response; 0 if none */
    char *content_type; /* Content-Type header, or NULL */
    char *redirect_url; /* FETCH_REDIRECT: the other site's URL, normalised */
    char *body;         /* NUL-terminated; NULL when there is none */
    size_t body_len;
    int truncated;     /* body cut at max_body */
    int redirects;     /* same-site hops followed */
    int retries;       /* transient failures asked again (fetch_retry_wait_ms) */
    char *error;       /* why, for failures; NULL on success */
    double elapsed_ms; /* from the first request to the end, delays excluded */
};

void fetch_result_free(struct fetch_result *r);

struct fetch_stats {
    uint64_t submitted, completed, requests, robots_requests, bytes;
    uint64_t retries; /* page requests that asked again after a transient failure */
    uint64_t by_status[FETCH_STATUS_COUNT];
    int in_flight, queued;
};

struct fetch_pool;
struct fetcher;

/*
 * Start a pool: its thread and up to c->max_in_flight transfers for all its clients
 * together. The config is copied; c->delay_ms is only the default of fetcher_new.
 */
enum err fetch_pool_new(const struct fetch_config *c, struct fetch_pool **out) WARN_UNUSED;

/* Stop the pool's thread and free it. Free its fetchers first. NULL is fine. */
void fetch_pool_free(struct fetch_pool *p);

/*
 * A new client of pool p: at most max_in_flight transfers of its own at once, and
 * delay_ms between the end of a request to a host and its next request there.
 */
enum err fetcher_attach(struct fetch_pool *p, int max_in_flight, int delay_ms,
                        struct fetcher **out) WARN_UNUSED;

/* A private pool with one client, per c. The config is copied. */
enum err fetcher_new(const struct fetch_config *c, struct fetcher **out) WARN_UNUSED;

/*
 * Detach from the pool and free: queued requests are dropped, transfers aborted
 * (the pool goes on for the others; a private pool is freed too). NULL is fine.
 */
void fetcher_free(struct fetcher *f);

/* Queue url (absolute) for fetching; its result comes back from fetcher_next with tag. */
enum err fetcher_submit(struct fetcher *f, const char *url, uint64_t tag) WARN_UNUSED;

/*
 * Wait up to timeout_ms (-1 = forever) for a finished fetch. Returns ERR_OK with
 * *out set, or ERR_TIMEOUT with *out NULL.
 */
enum err fetcher_next(struct fetcher *f, int timeout_ms, struct fetch_result **out) WARN_UNUSED;

/* Requests submitted whose results have not been taken yet (this client's). */
int fetcher_outstanding(struct fetcher *f);

void fetcher_stats(struct fetcher *f, struct fetch_stats *out);

struct warcwrite;

/*
 * Archive this client's exchanges from now on into w (crawler/warcwrite.h), or stop
 * with NULL: its pages, and the robots.txt it causes to be fetched. The fetcher takes
 * a reference of its own (dropped by fetcher_free); a transfer running still holds
 * one until it ends.
 */
void fetcher_set_warc(struct fetcher *f, struct warcwrite *w);

#endif
