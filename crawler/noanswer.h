/*
 * Internal to crawler/: is the web there? A run of the website crawler (crawler/extcrawl.c) asks it
 * before it records a website it could not reach as failed: until some website has answered (an
 * HTTP answer of any status), whether to this run or to another run of this process
 * within the last minute, websites whose first fetch fails at the network level go back
 * to the border instead. A wrong or missing proxy, or no network, must not destroy a
 * job's border; NOANSWER_MAX of them, and none of the websites in flight then answering,
 * end the run (ERR_NET: the job pauses). Another run's recent answer counts as this
 * run's: a run whose first websites are dead hosts (a cluster of them at the top of a
 * shared job's border, taken over from its lead) records them failed instead of pausing
 * the job (issue 33).
 */
#ifndef SITESCOUT_CRAWLER_NOANSWER_H
#define SITESCOUT_CRAWLER_NOANSWER_H

#include "common/err.h"

#define NOANSWER_MAX 8

/* One run's state; zero it to start. */
struct noanswer {
    int answered; /* a website answered this run */
    int unreached;
    char why[160]; /* the first unreached website's cause */
};

/* A website answered (this run; the process's clock of answers too). */
void noanswer_heard(struct noanswer *na);

/* Has a website answered this run, or another run of the process within a minute? */
int noanswer_answered(const struct noanswer *na);

/* host could not be reached (why) while nothing has answered: it goes back to the border. */
void noanswer_unreached(struct noanswer *na, const char *host, const char *why);

/* NOANSWER_MAX websites went back unreached and nothing has answered: start no more. */
int noanswer_doubt(const struct noanswer *na);

/* The run's end when nothing in flight answered either: ERR_NET with what to check. */
enum err noanswer_fail(const struct noanswer *na) WARN_UNUSED;

#endif
