/* robots.txt (RFC 9309): rules for our product token, path matching, per-host fetch policy. */
#ifndef SITESCOUT_CRAWLER_ROBOTS_H
#define SITESCOUT_CRAWLER_ROBOTS_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

#define ROBOTS_PRODUCT      "sitescout"  /* our product token (RFC 9309 §2.2.1) */
#define ROBOTS_PARSE_MAX    (500 * 1024) /* bytes of a body that are read (§2.5) */
#define ROBOTS_DELAY_MAX_MS 30000        /* Crawl-delay is capped at 30 s */
#define ROBOTS_PATH_MAX     8192         /* longer paths are not matched: disallowed */

/*
 * The rules that apply to one product token, from one robots.txt body. Immutable
 * once parsed, so it may be shared between threads for reading. NULL stands for
 * "no rules": everything allowed, no Crawl-delay.
 */
struct robots;

/*
 * Parse the first ROBOTS_PARSE_MAX bytes of body (a truncated last line is
 * dropped) for `product` (letters, '_' and '-' only, e.g. ROBOTS_PRODUCT). Keeps
 * the groups whose user-agent token equals product case-insensitively, all of them
 * merged, else the "*" groups merged, else nothing (§2.2.1). Accepts a UTF-8 BOM,
 * CR, LF and CRLF line ends, comments, and ignores lines it cannot read. Rules
 * before any user-agent line belong to no group. Allow/Disallow patterns are
 * compared after percent-encoding normalisation (§2.2.2); '*' matches any run of
 * bytes and a final '$' anchors at the end (§2.2.3).
 * On success *out is owned by the caller (robots_free); ERR_INVAL for a bad
 * product token, ERR_NOMEM.
 */
enum err robots_parse(const char *body, size_t len, const char *product,
                      struct robots **out) WARN_UNUSED;
void robots_free(struct robots *r);

/*
 * 1 if the rules let us fetch path (path and query, starting with '/', e.g. from
 * url_path_and_query), else 0. The longest matching pattern decides, Allow on a
 * tie; no match allows. "/robots.txt" is always allowed. r may be NULL.
 */
int robots_allowed(const struct robots *r, const char *path);

/*
 * The Crawl-delay of the chosen groups in ms (the largest if several), capped at
 * ROBOTS_DELAY_MAX_MS; 0 when none is given. The caller waits the larger of this
 * and its own per-host delay. r may be NULL.
 */
int robots_crawl_delay_ms(const struct robots *r);

/* Number of Allow/Disallow rules kept (for tests and logs). */
size_t robots_rule_count(const struct robots *r);

/*
 * Per-host policy: what may be fetched on one host while its robots.txt is
 * unknown, being fetched, known, or unreachable. No I/O: the fetcher asks
 * robots_host_check before every request and reports the robots.txt outcome
 * with robots_host_report; time is passed in (any monotonic clock, in ms).
 *
 *   first check          -> ROBOTS_FETCH (the caller fetches /robots.txt,
 *                           following up to 5 redirects), then ROBOTS_WAIT for
 *                           other callers until the report or until the fetch
 *                           lease (ROBOTS_LEASE_MS) runs out and FETCH is re-issued
 *   2xx                  -> the body's rules
 *   3xx (too many hops)  -> unavailable: allow all (RFC 9309 §2.3.1.2)
 *   4xx except 429       -> unavailable: allow all (§2.3.1.3)
 *   429, 5xx, status 0   -> unreachable: complete disallow (§2.3.1.4), reported as
 *   (network error or       ROBOTS_WAIT until a retry after ROBOTS_RETRY_MS, then
 *   timeout), others        4x that; after ROBOTS_MAX_ATTEMPTS failures in a row
 *                           the host is disallowed for the rest of the job
 * 429 counts as unreachable, as Google treats it: it asks us to slow down, it does
 * not say that robots.txt is absent.
 *
 * The retries are a per-site deadline (issue 16): a website is examined once, now, and
 * training and the budget's tail wait for the websites in flight, so a host whose
 * robots.txt fails is given 2 s and 8 s more (three requests in about ten seconds, plus
 * the fetches themselves) and then skipped. Minutes of back-off stalled whole jobs on
 * a faulty web.
 */
#define ROBOTS_LEASE_MS     (2 * 60 * 1000)
#define ROBOTS_RETRY_MS     2000
#define ROBOTS_MAX_ATTEMPTS 3

enum robots_state {
    ROBOTS_UNKNOWN,  /* never fetched */
    ROBOTS_FETCHING, /* a caller got ROBOTS_FETCH and has not reported yet */
    ROBOTS_KNOWN,    /* rules (possibly NULL: allow all) */
    ROBOTS_BACKOFF,  /* unreachable; retry at until_ms */
    ROBOTS_GAVE_UP,  /* unreachable too often: nothing is fetched */
};

enum robots_verdict {
    ROBOTS_ALLOW,    /* fetch the page */
    ROBOTS_DISALLOW, /* do not fetch the page in this job */
    ROBOTS_FETCH,    /* fetch /robots.txt now, then robots_host_report */
    ROBOTS_WAIT,     /* ask again at *retry_at_ms */
};

struct robots_host {
    enum robots_state state;
    struct robots *rules; /* owned; meaningful in ROBOTS_KNOWN */
    int failures;         /* unreachable outcomes in a row */
    int64_t until_ms;     /* FETCHING: lease end; BACKOFF: retry time */
    int64_t retry_ms;     /* first back-off; ROBOTS_RETRY_MS unless changed after init */
};

/* Embedded lifecycle (init sets retry_ms = ROBOTS_RETRY_MS); release frees the rules. */
void robots_host_init(struct robots_host *h);
void robots_host_release(struct robots_host *h);

/* May `path` be fetched at now_ms? Sets *retry_at_ms (may be NULL) for ROBOTS_WAIT only. */
enum robots_verdict robots_host_check(struct robots_host *h, const char *path, int64_t now_ms,
                                      int64_t *retry_at_ms);

/*
 * Report a robots.txt fetch: the final HTTP status (0 for a network error or
 * timeout) and, for 2xx, the body (borrowed). The latest report wins, whatever the
 * state. A failed parse (ERR_NOMEM, or ERR_INVAL for a bad product token) counts
 * as an unreachable outcome.
 */
enum err robots_host_report(struct robots_host *h, int status, const char *body, size_t len,
                            const char *product, int64_t now_ms) WARN_UNUSED;

/* robots_crawl_delay_ms of the known rules; 0 in any other state. */
int robots_host_delay_ms(const struct robots_host *h);

#endif
