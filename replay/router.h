/* Internal to replay/: which answer a request to the replay web gets: a record, a synthetic page,
 * an error, faults. */
#ifndef SITESCOUT_REPLAY_ROUTER_H
#define SITESCOUT_REPLAY_ROUTER_H

#include "replay/faults.h"
#include "replay/httpmsg.h"
#include "replay/replay.h"
#include "replay/response.h"
#include "replay/warc.h"

/*
 * The routing of replay.h's contract: absolute-form or origin-form plus Host, GET and
 * HEAD only, synthetic hosts before the archive, the http-to-https fallback, 404 on a
 * known host, 502 on an unknown one, and the faults drawn for the URL.
 */
struct router {
    const struct replay_config *cfg; /* borrowed: host lists, seed, slow_ms */
    const struct warc_archive *arc;  /* borrowed */
    struct faults faults;            /* owned */
};

/* Embedded; cfg and arc must outlive the router. */
void router_init(struct router *rt, const struct replay_config *cfg,
                 const struct warc_archive *arc);
void router_release(struct router *rt);

/*
 * Set r up to answer req (r->method and r->keep_alive already set by the caller; records
 * are read with readers of pool). Returns the injected latency in ms before the first
 * byte (0 = none).
 */
double router_answer(struct router *rt, struct response_pool *pool, struct response *r,
                     const struct httpmsg_request *req);

#endif
