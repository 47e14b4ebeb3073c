/* The replay web as a process: index the archives, serve them until SIGINT or SIGTERM. */
#ifndef SITESCOUT_REPLAY_REPLAYD_H
#define SITESCOUT_REPLAY_REPLAYD_H

#include <stddef.h>

#include "common/err.h"
#include "replay/replay.h"

#define REPLAYD_WARCS_MAX 64

/* What `sitescout replay` was asked for; the caller owns every string. */
struct replayd_opts {
    const char *warcs[REPLAYD_WARCS_MAX]; /* files or directories of them; at least one */
    size_t nwarcs;
    struct replay_config cfg;
};

/*
 * Index the archives (counts on the log), start the server, print "listening on
 * IP:PORT" on stdout (flushed) when ready, serve until SIGINT or SIGTERM (handlers
 * installed for the run, then set back to the default), and log the request counts.
 * Errors (err_msg says which): an archive that cannot be read, a bad listen address,
 * the loop failing. Not reentrant: one run per process at a time.
 */
enum err replayd_run(const struct replayd_opts *o) WARN_UNUSED;

#endif
