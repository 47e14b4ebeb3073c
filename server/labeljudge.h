/*
 * Internal to server/: `serve`'s label judge (issue 31): a thread that judges again the jobs nobody
 * runs (done, paused, failed) whose user gave or took back labels (job/joblabels.h), a few times a
 * second; a running job's lead does it for its own job. On its own connection.
 */
#ifndef SITESCOUT_SERVER_LABELJUDGE_H
#define SITESCOUT_SERVER_LABELJUDGE_H

#include "common/err.h"

struct labeljudge;

/* Start it on the database at url (borrowed for its life). */
enum err labeljudge_start(const char *url, struct labeljudge **out) WARN_UNUSED;

/* Stop it (a judging under way ends first) and free it. NULL is fine. */
void labeljudge_stop(struct labeljudge *lj);

#endif
