/*
 * A pool of database connections for threads that each need their own (a struct
 * store is not thread-safe): take one, use it, give it back.
 *
 * Ownership: dbpool_new hands out a pool freed with dbpool_free (after every
 * connection is back). dbpool_take lends a connection until dbpool_give.
 */
#ifndef SITESCOUT_STORE_DBPOOL_H
#define SITESCOUT_STORE_DBPOOL_H

#include "common/err.h"

struct store;
struct dbpool;

/* A pool for url keeping at most max_idle idle connections. */
enum err dbpool_new(const char *url, int max_idle, struct dbpool **out) WARN_UNUSED;
void dbpool_free(struct dbpool *p);

/* An idle connection, or a new one. */
enum err dbpool_take(struct dbpool *p, struct store **out) WARN_UNUSED;

/* Give a connection back (NULL is fine); bad = 1 closes it instead (after an error). */
void dbpool_give(struct dbpool *p, struct store *s, int bad);

#endif
