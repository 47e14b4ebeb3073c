/*
 * A replay server of one WARC file on 127.0.0.1 (a free port), served by a thread of
 * its own, so that crawls of the same process can use it as their proxy. Used by
 * `sitescout experiment`.
 *
 * Ownership: the struct owns the archive, the server and the thread;
 * replaythread_stop releases them all (also after a failed start).
 */
#ifndef SITESCOUT_EVAL_REPLAYTHREAD_H
#define SITESCOUT_EVAL_REPLAYTHREAD_H

#include <pthread.h>

#include "common/err.h"

struct warc_archive;
struct replay_server;

struct replaythread {
    struct warc_archive *archive;
    struct replay_server *srv;
    pthread_t thread;
    int running;
    enum err rc;     /* what the server returned when it stopped */
    char proxy[128]; /* "http://127.0.0.1:PORT" once started */
};

/* Start serving warc; rt is zeroed by the caller. */
enum err replaythread_start(struct replaythread *rt, const char *warc) WARN_UNUSED;

/* Stop the server, join the thread and free everything; safe to call twice. */
void replaythread_stop(struct replaythread *rt);

#endif
