/*
 * Internal to crawler/: the fetch scheduler: which client and which host may start a transfer now.
 * No curl, no threads, no clock: the caller passes the time in (monotonic ms) and does the
 * transfers, so the policy can be tested by itself (tests/unit/test_fetchsched.c).
 *
 * Policy (the one fetch.h promises):
 * - Fair shares: while k clients have requests pending, each may run ceil(max_in_flight
 *   / k) transfers, never more than its own cap, at least one.
 * - Work-conserving: slots left free because the other clients have nothing ready (their
 *   hosts wait for a delay) go, in a second pass, to clients still under their own cap.
 * - Politeness: per_host transfers at once on a host; between the end of a host's
 *   request and its next start, the delay of the client whose request ended (or the
 *   host's robots.txt Crawl-delay, if longer), and at least the next asking client's
 *   own delay since the host's last request. A host's delay is kept across clients.
 * - robots.txt gates a host: fetched once (as a transfer with no request), obeyed
 *   before any page of the host. A host that does not resolve, refuses connections or
 *   is private fails its requests at once for a while.
 *
 * Ownership: requests (struct fetchsched_req) and clients belong to the caller, who
 * embeds them in its own structs; the scheduler links them in its queues until it
 * hands a request back (ops->finish, fetchsched_client_leave) or the caller ends it
 * (fetchsched_req_done). Hosts belong to the scheduler and live until fetchsched_free.
 */
#ifndef SITESCOUT_CRAWLER_FETCHSCHED_H
#define SITESCOUT_CRAWLER_FETCHSCHED_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "crawler/fetch.h"

/* A client: set cap and delay_ms with fetchsched_client_init; the rest is the scheduler's. */
struct fetchsched_client {
    int cap;       /* transfers of its own at once */
    int delay_ms;  /* its politeness delay */
    int in_flight; /* page transfers running */
    int pending;   /* requests on host queues or in transfers */
};

/* A request: the caller sets client and url; next and on_host are the scheduler's. */
struct fetchsched_req {
    struct fetchsched_req *next;
    struct fetchsched_client *client;
    const char *url; /* normalised, absolute; the caller keeps it valid */
    int on_host;     /* queued on a host or in a transfer (counted in client->pending) */
};

struct fetchsched_host;
struct fetchsched;

/* What the scheduler asks of the one who runs the transfers. */
struct fetchsched_ops {
    /*
     * Start fetching url on host h: req's page, or (req NULL) the host's robots.txt
     * asked for by client who. An error leaves nothing started.
     */
    enum err (*start)(void *ctx, struct fetchsched_host *h, struct fetchsched_req *req,
                      const char *url, struct fetchsched_client *who);
    /* req ends without a transfer (status, message); it is no longer the scheduler's. */
    void (*finish)(void *ctx, struct fetchsched_req *req, enum fetch_status status,
                   const char *error);
};

struct fetchsched_config {
    int max_in_flight;   /* transfers at once, all clients together */
    int per_host;        /* transfers at once on one host */
    int obey_robots;     /* fetch and obey robots.txt */
    int robots_retry_ms; /* first wait after an unreachable robots.txt */
};

/* How long a host that does not resolve or refuses connections is given up on. */
#define FETCHSCHED_HOST_DOWN_MS (10 * 60 * 1000)

enum err fetchsched_new(const struct fetchsched_config *cfg, const struct fetchsched_ops *ops,
                        void *ctx, struct fetchsched **out) WARN_UNUSED;

/* Free the hosts. Every request must have been handed back first. NULL is fine. */
void fetchsched_free(struct fetchsched *s);

void fetchsched_client_init(struct fetchsched_client *c, int cap, int delay_ms);

/* Transfers running, all clients together. */
int fetchsched_in_flight(const struct fetchsched *s);

/* Queue q on its URL's host (or finish it with FETCH_BAD_URL if it has none). */
void fetchsched_add(struct fetchsched *s, struct fetchsched_req *q);

/*
 * Start (through ops->start) whatever may start at time now, and finish what cannot
 * be fetched. Returns the ms until a waiting host becomes ready, or -1 for none.
 */
long fetchsched_run(struct fetchsched *s, int64_t now);

/* The caller ends q after its transfer (or drops it): q leaves its client's count. */
void fetchsched_req_done(struct fetchsched *s, struct fetchsched_req *q);

/* q (its url changed by a same-site redirect) goes first in host h's queue again. */
void fetchsched_requeue(struct fetchsched *s, struct fetchsched_host *h, struct fetchsched_req *q);

/*
 * q's transfer on h failed in a way worth asking again (fetch_retry_wait_ms): q goes
 * first in h's queue, and h starts nothing before at_ms. Call before
 * fetchsched_transfer_done.
 */
void fetchsched_retry(struct fetchsched *s, struct fetchsched_host *h, struct fetchsched_req *q,
                      int64_t at_ms);

/*
 * h's robots.txt transfer ended: HTTP status (0 if the host was not reached), the body,
 * and down: FETCH_DNS, FETCH_CONNECT or FETCH_BLOCKED if the host is unreachable, else
 * FETCH_OK. Call before fetchsched_transfer_done.
 */
void fetchsched_robots_done(struct fetchsched *s, struct fetchsched_host *h, int status,
                            const char *body, size_t len, enum fetch_status down, int64_t now);

/*
 * Why h's last robots.txt transfer failed ("connection refused by the proxy ..."), given
 * before fetchsched_robots_done: the requests that fail for it (the host down, robots.txt
 * unreachable) say so instead of a bare "host unreachable".
 */
void fetchsched_robots_failed(struct fetchsched *s, struct fetchsched_host *h, const char *why);

/* A transfer on h ended at now: for client c's page, or (c NULL) robots.txt. */
void fetchsched_transfer_done(struct fetchsched *s, struct fetchsched_host *h,
                              struct fetchsched_client *c, int64_t now);

/* q's transfer on h was aborted at now (its client leaves): q is done, h keeps its delay. */
void fetchsched_transfer_aborted(struct fetchsched *s, struct fetchsched_host *h,
                                 struct fetchsched_req *q, int64_t now);

/*
 * Client c leaves: its queued requests are taken off the hosts and returned (linked by
 * next) for the caller to free. Abort its transfers first (fetchsched_transfer_aborted).
 */
struct fetchsched_req *fetchsched_client_leave(struct fetchsched *s, struct fetchsched_client *c);

#endif
