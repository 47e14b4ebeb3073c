/*
 * The website crawler's writes off its thread: a thread with a database connection of
 * its own writes the results queued to it, in the order queued, while the crawl thread
 * goes on parsing and classifying.
 * What is queued when the thread is free goes together (up to SITEWRITE_BATCH_MAX): one
 * round trip, one transaction (store/sitewrite.h, sitewrite_batch). Fewer than
 * SITEWRITER_LINGER_N wait up to SITEWRITER_LINGER_MS for more (not while the crawl
 * flushes): each transaction costs the database a commit and the job row's lock. Before,
 * the crawl thread waited for each write's round trip (BENCHMARKS.md, "Scale-out (#15)").
 *
 * What the crawl must know stored (the border before it concludes the border is empty,
 * the job's counters before it reads them, everything before the job ends) it gets by
 * sitewriter_flush. A write that finds its site examined already or its job ended
 * (ERR_CONFLICT) is logged and dropped, as the crawl thread did itself; any other error
 * stops the writer, and the next call returns it.
 */
#ifndef SITESCOUT_STORE_SITEWRITER_H
#define SITESCOUT_STORE_SITEWRITER_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "store/crawlstore.h"

#define SITEWRITER_QUEUE_MAX 64 /* queued results at most: a full queue waits */
#define SITEWRITER_LINGER_N  8  /* a batch smaller than this ... */
#define SITEWRITER_LINGER_MS 5  /* ... waits this long for more */

struct sitewriter;

/* Connect to url (as store_open, waiting up to timeout_ms) and start the thread. worker
 * (borrowed, for the writer's life; NULL: any) holds the claims that sitewriter_failed and
 * sitewriter_abandon give up: a site no longer claimed by it is left alone. */
enum err sitewriter_start(const char *url, int timeout_ms, int64_t job, const char *worker,
                          struct sitewriter **out) WARN_UNUSED;

/* How many times the writer's connection was lost and re-established (a crash of the
 * database may have lost its last acknowledged writes: store/store.h). */
int sitewriter_reconnects(struct sitewriter *w);

/* Queue r (copied) for crawlstore_site_done, or crawlstore_site_more. */
enum err sitewriter_done(struct sitewriter *w, const struct crawlstore_site_result *r) WARN_UNUSED;
enum err sitewriter_more(struct sitewriter *w, const struct crawlstore_site_result *r) WARN_UNUSED;
/* Queue a claimed site given up on (failed, with error) or put back on the border
 * unjudged, its fetches counted (store/sitewrite.h). (Every write of sites rows a crawl makes, but
 * its claims, goes through its writer: the writer's transactions lock the job's row first,
 * store/sitewrite.h.) */
enum err sitewriter_failed(struct sitewriter *w, const char *host, const char *error,
                           int fetches) WARN_UNUSED;
enum err sitewriter_abandon(struct sitewriter *w, const char *host, int fetches) WARN_UNUSED;

/* Results queued and not written yet (the one being written included). */
size_t sitewriter_pending(struct sitewriter *w);

/* Wait until everything queued is written. */
enum err sitewriter_flush(struct sitewriter *w) WARN_UNUSED;

/* Stop the thread and close the connection (NULL: nothing), having written everything
 * queued, or dropped it (discard: the job's lease is lost, another runner has it). */
void sitewriter_stop(struct sitewriter *w, int discard);

#endif
