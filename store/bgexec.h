/*
 * One statement at a time on a connection of its own, in a thread of its own: for
 * maintenance the caller must not wait for (ANALYZE during a crawl: on a database with
 * a few jobs' rows it takes most of a second, and the crawl's main thread would stand
 * still meanwhile, issue 13).
 *
 * Ownership: bgexec_new hands out a runner freed with bgexec_free, which waits for the
 * statement under way. The connection is opened at the first run and kept. Errors are
 * logged, not returned: the caller goes on either way.
 */
#ifndef SITESCOUT_STORE_BGEXEC_H
#define SITESCOUT_STORE_BGEXEC_H

#include "common/err.h"

struct store;
struct bgexec;

/* A runner connecting where s is connected. */
enum err bgexec_new(const struct store *s, struct bgexec **out) WARN_UNUSED;
void bgexec_free(struct bgexec *b);

/* Start sql (a static string, no parameters) unless the last one still runs: then 0. */
int bgexec_run(struct bgexec *b, const char *sql);

/* Wait until no statement runs. */
void bgexec_wait(struct bgexec *b);

#endif
