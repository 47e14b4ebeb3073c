/* Applies the embedded sql/ migrations once, under an advisory lock. */
#include "store/migrate.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/log.h"
#include "store/store.h"

/* Advisory lock key shared by every sitescout process ("sitescou" in ASCII). */
#define MIGRATE_LOCK_KEY "7594574137745389941"

static enum err migration_recorded(struct store *s, int version, int *done)
{
    char v[16];
    snprintf(v, sizeof v, "%d", version);
    const char *p[] = {v};
    struct store_rows *r;
    enum err e = store_query(s, "SELECT 1 FROM schema_migrations WHERE version = $1", 1, p, &r);
    if (e)
        return e;
    *done = store_rows_count(r) > 0;
    store_rows_free(r);
    return ERR_OK;
}

static enum err apply_locked(struct store *s, int *applied)
{
    const char *key[] = {MIGRATE_LOCK_KEY};
    enum err e = store_exec(s, "SELECT pg_advisory_xact_lock($1::bigint)", 1, key);
    if (e)
        return e;
    e = store_exec(s,
                   "CREATE TABLE IF NOT EXISTS schema_migrations ("
                   " version integer PRIMARY KEY,"
                   " name text NOT NULL,"
                   " applied_at timestamptz NOT NULL DEFAULT now())",
                   0, NULL);
    if (e)
        return e;
    for (int i = 0; i < migrations_count; i++) {
        const struct migration *m = &migrations[i];
        /*
         * Every migration not recorded, not only those above the latest: numbers are
         * handed out to branches ahead of their merge, so 012 may reach a database
         * before 010 does, and 010 must still be applied then.
         */
        int done = 0;
        e = migration_recorded(s, m->version, &done);
        if (e)
            return e;
        if (done)
            continue;
        e = store_exec_script(s, m->sql);
        if (e)
            return err_set(e, "migration %s failed: %s", m->name, err_msg());
        char version[16];
        snprintf(version, sizeof version, "%d", m->version);
        const char *params[] = {version, m->name};
        e = store_exec(s, "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", 2,
                       params);
        if (e)
            return e;
        log_info("applied migration %s", m->name);
        (*applied)++;
    }
    return ERR_OK;
}

enum err migrate_apply(struct store *s, int *applied)
{
    int n = 0;
    enum err e = store_begin(s);
    if (e)
        return e;
    e = apply_locked(s, &n);
    if (e) {
        store_rollback(s);
        return e;
    }
    e = store_commit(s);
    if (!e && applied)
        *applied = n;
    return e;
}

enum err migrate_version(struct store *s, int *version)
{
    *version = 0;
    struct store_rows *rows;
    enum err e =
        store_query(s, "SELECT coalesce(max(version), 0) FROM schema_migrations", 0, NULL, &rows);
    if (e)
        return e;
    *version = (int)store_rows_i64(rows, 0, 0, 0);
    store_rows_free(rows);
    return ERR_OK;
}
