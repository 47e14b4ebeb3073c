/* How commands find their database: --db URL, else $SITESCOUT_DB, else the embedded cluster. */
#ifndef SITESCOUT_STORE_DBOPEN_H
#define SITESCOUT_STORE_DBOPEN_H

#include "common/err.h"
#include "store/pgembed.h"

struct store;

/* The embedded cluster of this checkout (<home>/var/pg), or of base_dir if given. */
enum err dbopen_embedded(struct pgembed *pg, const char *base_dir, int port, int tcp) WARN_UNUSED;

/*
 * The URL to use: `url` if given, else $SITESCOUT_DB, else the embedded cluster
 * (in base_dir, or the default one when NULL), which is started if it is not
 * running. *out is malloc'd; the caller frees it.
 */
enum err dbopen_resolve_url(const char *url, const char *base_dir, char **out) WARN_UNUSED;

/* Resolve as above, connect and bring the schema up to date. */
enum err dbopen_open(const char *url, const char *base_dir, struct store **out) WARN_UNUSED;

#endif
