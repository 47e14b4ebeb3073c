/*
 * A job's runners, what the job's lease (store/joblease.h) and its team (store/jobteam.h)
 * both need to know of them: a runner's name ("host:pid", "host:pid:slot" for a thread
 * of `serve`), whether the process behind a name is gone, and how long a lease or a
 * runner's row lasts without renewal. Its own module so that neither of the two includes
 * the other for it.
 */
#ifndef SITESCOUT_STORE_RUNNER_H
#define SITESCOUT_STORE_RUNNER_H

#include <stddef.h>

#define RUNNER_LEASE_DEFAULT_SECONDS 30

/* The lease's length: $SITESCOUT_LEASE_SECONDS (1 to 3600) or RUNNER_LEASE_DEFAULT_SECONDS. */
int runner_lease_seconds(void);

/* This process's runner name: "host:pid", or "host:pid:slot" when slot >= 0. */
void runner_name(char *buf, size_t n, int slot);

/* Is worker (a runner name) a process of this host that no longer runs? */
int runner_gone(const char *worker);

#endif
