/*
 * Internal to crawler/: the fetcher's libcurl side, the only file that includes curl: a multi
 * handle with its running transfers, one easy handle per transfer, response headers and bodies
 * (capped), the destination checks, and the reading of an ended transfer as a
 * fetch status (curl and proxy failures, HTML or not, redirects).
 *
 * Threads: one thread drives a struct fetchcurl; only fetchcurl_wakeup may be called
 * from others. Ownership: the caller's pointers given to fetchcurl_start come back
 * untouched in struct fetchcurl_done or from fetchcurl_cancel; a done's strings are its
 * own until fetchcurl_done_release (take one by setting it to NULL).
 */
#ifndef SITESCOUT_CRAWLER_FETCHCURL_H
#define SITESCOUT_CRAWLER_FETCHCURL_H

#include <stddef.h>

#include "common/err.h"
#include "crawler/fetch.h"

struct fetchcurl;

/* Bytes of a failure's message (fetchcurl_done.error), NUL included. */
#define FETCHCURL_WHY_MAX 256

/* Everything of c that transfers need is copied. */
enum err fetchcurl_new(const struct fetch_config *c, struct fetchcurl **out) WARN_UNUSED;

/* Cancel what is left (see fetchcurl_cancel first to get the caller's pointers back). */
void fetchcurl_free(struct fetchcurl *fc);

struct warcwrite;

/*
 * Start fetching url: a page (req not NULL) or a robots.txt (req NULL: up to five
 * redirects followed here, each hop checked as fetchcurl_url_refused says; body read
 * up to ROBOTS_PARSE_MAX). host, req and group are the
 * caller's; group marks transfers fetchcurl_cancel may cancel together.
 *
 * warc, if not NULL, archives each exchange of the transfer (every robots.txt hop
 * too) as it ends: the request as curl sent it, and the response as received when
 * one came from the site (crawler/warcwrite.h; the body as curl handed it on,
 * decoded, see crawler/warcrec.h). The transfer holds a reference to warc until it
 * is freed.
 */
enum err fetchcurl_start(struct fetchcurl *fc, const char *url, void *host, void *req,
                         const void *group, struct warcwrite *warc) WARN_UNUSED;

/* An ended transfer. */
struct fetchcurl_done {
    void *host, *req;  /* as started; req NULL: a robots.txt */
    double elapsed_ms; /* from its start */
    int http_status;   /* of the last response; 0 if none */
    char *content_type;
    char *body; /* NUL-terminated; for pages NULL when empty and not FETCH_OK */
    size_t body_len;
    int truncated;      /* cut at the body cap */
    long retry_after_s; /* pages: the answer's Retry-After in seconds, 0 if none */
    /*
     * Pages: the outcome. FETCH_REDIRECT: a 3xx whose Location resolves to `location`;
     * same_site says whether it stays on the site (the caller follows it or not).
     */
    enum fetch_status status;
    char *error;    /* why, for failures */
    char *location; /* FETCH_REDIRECT: the target, normalised */
    int same_site;
    /* robots.txt: FETCH_DNS, FETCH_CONNECT or FETCH_BLOCKED if the host is unreachable;
     * error then (and for other failures) says why. */
    enum fetch_status down;
};

/* Run curl: move data for every transfer that can. */
void fetchcurl_perform(struct fetchcurl *fc);

/* Take the next ended transfer into *out: 1, or 0 if none has ended. */
int fetchcurl_take_done(struct fetchcurl *fc, struct fetchcurl_done *out);

void fetchcurl_done_release(struct fetchcurl_done *d);

/*
 * Cancel one running transfer started with group (NULL: any transfer at all) and give
 * back its host and req: 1, or 0 if there is none.
 */
int fetchcurl_cancel(struct fetchcurl *fc, const void *group, void **host, void **req);

/* Wait up to max_ms for curl's sockets or timers, or a fetchcurl_wakeup. */
void fetchcurl_wait(struct fetchcurl *fc, long max_ms);

/* Ms until curl's next timer, or -1 for none. */
long fetchcurl_timeout(struct fetchcurl *fc);

/* End a fetchcurl_wait now. Any thread. */
void fetchcurl_wakeup(struct fetchcurl *fc);

/*
 * Destinations (crawler/addrcheck.h): unless allow_private, a transfer never connects
 * to a private, reserved or this host's own address. Without a proxy every connection
 * curl opens is checked on the address it goes to (DNS names included). With a proxy,
 * which resolves names itself, only URLs are checked: this function, called for every
 * page URL before its transfer starts and for every redirect hop.
 *
 * 0 if url may be fetched as far as its host tells, else 1 with why[cap] saying why
 * ("destination 127.0.0.1 is private, local or reserved"): an IP literal in any
 * spelling that is private, reserved or this host's own, or a localhost name.
 */
int fetchcurl_url_refused(struct fetchcurl *fc, const char *url, char *why, size_t cap);

#endif
