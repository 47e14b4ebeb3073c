/*
 * Internal to server/: the crawl models the API read last, kept (server/apiexplain.c). A
 * user reads the verdicts of one job's websites one after the other, most by one model,
 * and reading a model (a megabyte or more from the database) is most of such an answer's
 * time (20-40 ms against 3). A stored model never changes, so a kept one is never stale.
 * A model is opaque here: read-only once made, shared by the threads that use it, freed
 * (by the free function it was kept with) when it is neither kept nor in use.
 * Thread-safe.
 */
#ifndef SITESCOUT_SERVER_MODELCACHE_H
#define SITESCOUT_SERVER_MODELCACHE_H

#include <stdint.h>

#include "common/err.h"

#define MODELCACHE_SLOTS 2 /* models kept at most */

/* Reads job's model id into *out (a new one the cache then owns). */
typedef enum err (*modelcache_load)(void *ctx, int64_t job, int64_t id, void **out);

/*
 * job's model id into *out: the kept one, or one read by load (then kept in an empty
 * slot or in place of the least recently used one no caller uses; when every slot is in
 * use, the caller's own). Either way the caller gives it back with modelcache_done.
 * load's error is returned, nothing kept.
 */
enum err modelcache_get(int64_t job, int64_t id, modelcache_load load, void *ctx,
                        void (*free_model)(void *), void **out) WARN_UNUSED;

/* A caller done with model (modelcache_get's, NULL: nothing). */
void modelcache_done(void *model);

/* Forget every model kept (freed when no caller uses it); for tests. */
void modelcache_clear(void);

#endif
