/*
 * Job leases (issues 15 and 16): which process runs a job, so that two never do.
 *
 * A runner holds a job's lease under its worker name ("host:pid", "host:pid:slot" for a
 * thread of `serve`) in jobs.worker, renewed by heartbeat (jobs.heartbeat_at) about
 * once a second while it trains and crawls, and let go when the run ends. Anyone may
 * take a lease that nobody holds, whose holder has not renewed it for
 * runner_lease_seconds() (store/runner.h), or whose holder is a process of this host that is gone
 * (so a crash is resumed at once). A live holder is never pushed out: a taker is refused, naming
 * it. A holder that finds its lease taken (it stalled for longer than a lease) stops without
 * writing anything more.
 */
#ifndef SITESCOUT_STORE_JOBLEASE_H
#define SITESCOUT_STORE_JOBLEASE_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "store/jobteam.h"

struct store;

/*
 * Take job's lease for worker (or keep it: it is ours). ERR_NOTFOUND: no such job;
 * ERR_CONFLICT: a live process holds it (err_msg names it and when it last renewed).
 */
enum err joblease_take(struct store *s, int64_t job, const char *worker) WARN_UNUSED;

/*
 * The oldest job that needs a runner (queued, training or crawling) and whose lease
 * nobody holds (or ran out), taken for worker in one statement: two processes never
 * take the same one. *job = 0 when there is none. Leases held by gone processes of
 * this host are let go first.
 */
enum err joblease_take_next(struct store *s, const char *worker, int64_t *job) WARN_UNUSED;

/* Renew the lease. ERR_CONFLICT: another worker holds it now: stop writing. */
enum err joblease_renew(struct store *s, int64_t job, const char *worker) WARN_UNUSED;

/* Let the lease go (the run ended, paused or failed), if it is still ours. */
enum err joblease_release(struct store *s, int64_t job, const char *worker) WARN_UNUSED;

/*
 * A thread that renews, every second on a connection of its own (to where s is
 * connected), worker's row among job's runners (store/jobteam.h: joined first, in role)
 * and, for the lead, job's lease, so that a long stretch of work without a database
 * call (training's cross-validation takes seconds to minutes) never lets them run out.
 * It ends when stopped or when it finds either taken (joblease_keeper_lost says so).
 */
struct joblease_keeper;
enum err joblease_keeper_start(struct store *s, int64_t job, const char *worker,
                               enum jobteam_role role, struct joblease_keeper **out) WARN_UNUSED;
int joblease_keeper_lost(const struct joblease_keeper *k);
/* Stop the thread and free (NULL is fine). */
void joblease_keeper_stop(struct joblease_keeper *k);

#endif
