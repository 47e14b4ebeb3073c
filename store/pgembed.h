/*
 * The embedded PostgreSQL cluster: a private cluster in a project-local directory,
 * reached over a unix socket in that directory (and optionally 127.0.0.1:PORT).
 * When run as root the server runs as the `postgres` user, since PostgreSQL refuses
 * to run as root. Process management only; SQL goes through store.h.
 */
#ifndef SITESCOUT_STORE_PGEMBED_H
#define SITESCOUT_STORE_PGEMBED_H

#include "common/err.h"

#define PGEMBED_DEFAULT_PORT 5432
#define PGEMBED_DBNAME       "sitescout"
#define PGEMBED_USER         "sitescout"

struct pgembed {
    char *base_dir; /* <home>/var/pg: holds data/, run/, postgres.log, lock */
    char *data_dir; /* cluster files */
    char *run_dir;  /* unix socket directory */
    char *log_file; /* server log */
    char *bin_dir;  /* directory of initdb and pg_ctl */
    int port;       /* TCP port and socket name suffix */
    int tcp;        /* also listen on 127.0.0.1:port */
};

/*
 * Prepare paths under base_dir (e.g. <home>/var/pg). Does not touch the disk.
 * $SITESCOUT_PG_BIN overrides where initdb/pg_ctl are looked up.
 */
enum err pgembed_init(struct pgembed *pg, const char *base_dir, int port, int tcp) WARN_UNUSED;
void pgembed_release(struct pgembed *pg);

/*
 * Create the cluster if needed, recover from a stale pid file or a crashed server,
 * start it and create the sitescout database. Safe to call when already running
 * and from several processes at once (a file lock serialises them).
 */
enum err pgembed_start(struct pgembed *pg) WARN_UNUSED;

/* Stop the server (fast shutdown). ERR_OK if it was not running. */
enum err pgembed_stop(struct pgembed *pg) WARN_UNUSED;

/* *pid = postmaster pid if the server runs and answers, else 0. */
enum err pgembed_status(const struct pgembed *pg, long *pid) WARN_UNUSED;

/* Connection URL of the sitescout database; malloc'd, caller frees. NULL on OOM. */
char *pgembed_url(const struct pgembed *pg);

#endif
