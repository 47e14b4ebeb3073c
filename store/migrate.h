/*
 * Schema migrations: the numbered files of sql/, compiled into the binary, applied
 * in order inside one transaction under an advisory lock, recorded in
 * schema_migrations. Idempotent, and safe when several processes start at once.
 */
#ifndef SITESCOUT_STORE_MIGRATE_H
#define SITESCOUT_STORE_MIGRATE_H

#include "common/err.h"

struct store;

struct migration {
    int version;      /* the file's number: 001_init.sql -> 1 */
    const char *name; /* file name */
    const char *sql;
};

/* Generated from sql/ by cmake/embed_sql.cmake, sorted by version. */
extern const struct migration migrations[];
extern const int migrations_count;

/*
 * Apply every migration not recorded yet (also one numbered below the latest recorded),
 * in order; *applied (may be NULL) = how many were applied now.
 */
enum err migrate_apply(struct store *s, int *applied) WARN_UNUSED;

/* Highest version recorded in the database (0 = none). */
enum err migrate_version(struct store *s, int *version) WARN_UNUSED;

#endif
