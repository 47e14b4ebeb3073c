/*
 * Internal to server/: the API's background refresher: a thread that answers a polled GET again
 * when its kept answer (server/respcache.h) has gone stale, so that no request waits for the
 * database. Before, the request that found the answer stale asked the database itself,
 * and the 50 or so connections its serving thread held waited with it: the API's p99
 * was the refresh's time (BENCHMARKS.md, "Scale-out (#15), session 10").
 */
#ifndef SITESCOUT_SERVER_APIREFRESH_H
#define SITESCOUT_SERVER_APIREFRESH_H

#include "common/err.h"

struct apirefresh;

#define APIREFRESH_QUEUE_MAX 64 /* refreshes waiting at most: past it, a caller refreshes */
#define APIREFRESH_ARGS_MAX  8  /* query arguments of a refreshed request at most */

/* What the thread does with a refresh: answer GET path with args again and keep the
 * answer (server/api.c's api_refresh, so that this file needs nothing of the API). */
typedef void (*apirefresh_fn)(void *ctx, const char *path, const char *const *args);

/* Start the thread; it calls fn(ctx, ...) (ctx is borrowed until the stop). */
enum err apirefresh_start(apirefresh_fn fn, void *ctx, struct apirefresh **out) WARN_UNUSED;

/*
 * Queue a refresh of GET path with its query arguments (args: name and value pairs,
 * NULL-terminated, at most APIREFRESH_ARGS_MAX pairs; copied). 0 when it was not
 * queued (full, stopping, out of memory): the caller refreshes it itself.
 */
int apirefresh_submit(struct apirefresh *rf, const char *path, const char *const *args);

/* Stop the thread (NULL: nothing); refreshes still queued are dropped. */
void apirefresh_stop(struct apirefresh *rf);

#endif
