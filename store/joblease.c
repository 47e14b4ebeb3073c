/* Job leases: one runner per job, renewed by heartbeat, taken over only when dead. */
#include "store/joblease.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "store/jobteam.h"
#include "store/runner.h"
#include "store/sqlnum.h"
#include "store/store.h"

/* Who holds job's lease and for how long it has not renewed it; ERR_NOTFOUND. */
static enum err holder(struct store *s, int64_t job, char *worker, size_t n, double *age)
{
    char id[32];
    const char *p[] = {NUM(id, job)};
    struct store_rows *r;
    enum err e = store_query(s,
                             "SELECT coalesce(worker, ''),"
                             " coalesce(extract(epoch FROM now() - heartbeat_at), 1e9) "
                             "FROM jobs WHERE id = $1",
                             1, p, &r);
    if (e)
        return e;
    if (store_rows_count(r) != 1) {
        store_rows_free(r);
        return err_set(ERR_NOTFOUND, "no job %lld", (long long)job);
    }
    snprintf(worker, n, "%s", store_rows_get(r, 0, 0));
    *age = store_rows_double(r, 0, 1, 1e9);
    store_rows_free(r);
    return ERR_OK;
}

/*
 * Taking a lease over from prev (gone, or silent for longer than a lease): end prev's
 * database sessions and wait until they are gone, since a killed or stalled process's
 * last statement may still run and claim a website after we looked. Connections are
 * named after their worker (crawlstore_set_worker).
 */
static enum err end_sessions(struct store *s, const char *prev, const char *worker)
{
    if (!prev || !*prev || strcmp(prev, worker) == 0)
        return ERR_OK;
    const char *p[] = {prev};
    for (int attempt = 0; attempt < 50; attempt++) {
        struct store_rows *r;
        enum err e = store_query(s,
                                 "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                                 "WHERE application_name = $1 AND pid <> pg_backend_pid()",
                                 1, p, &r);
        if (e)
            return e;
        int left = (int)store_rows_i64(r, 0, 0, 0);
        store_rows_free(r);
        if (!left)
            return ERR_OK;
        struct timespec ts = {0, 100 * 1000000L};
        nanosleep(&ts, NULL);
    }
    return err_set(ERR_TIMEOUT, "the previous worker %s keeps its database sessions", prev);
}

enum err joblease_take(struct store *s, int64_t job, const char *worker)
{
    char held[256], id[32], secs[16];
    double age = 0;
    enum err e = holder(s, job, held, sizeof held, &age);
    if (e)
        return e;
    const char *p[] = {NUM(id, job), worker, NUM(secs, runner_lease_seconds()),
                       runner_gone(held) ? held : NULL};
    struct store_rows *r;
    e = store_query(s,
                    "UPDATE jobs SET worker = $2, heartbeat_at = now() "
                    "WHERE id = $1 AND (worker IS NULL OR worker = $2 OR worker = $4"
                    " OR heartbeat_at IS NULL"
                    " OR heartbeat_at < now() - make_interval(secs => $3::int)) "
                    "RETURNING 1",
                    4, p, &r);
    if (e)
        return e;
    int taken = store_rows_count(r) == 1;
    store_rows_free(r);
    if (!taken)
        return err_set(ERR_CONFLICT,
                       "job %lld is being run by %s (its last heartbeat %.0f s ago; a lease "
                       "lasts %d s)",
                       (long long)job, held, age, runner_lease_seconds());
    return end_sessions(s, held, worker);
}

/* Let go of the leases that gone processes of this host still hold. */
static enum err reap_gone(struct store *s)
{
    struct store_rows *r;
    enum err e = store_query(s,
                             "SELECT id, worker FROM jobs WHERE worker IS NOT NULL"
                             " AND state IN ('queued', 'training', 'crawling')",
                             0, NULL, &r);
    for (int i = 0; !e && i < store_rows_count(r); i++) {
        const char *w = store_rows_get(r, i, 1);
        if (!runner_gone(w))
            continue;
        const char *p[] = {store_rows_get(r, i, 0), w};
        e = end_sessions(s, w, "");
        if (!e)
            e = store_exec(s, "UPDATE jobs SET worker = NULL WHERE id = $1 AND worker = $2", 2, p);
    }
    store_rows_free(r);
    return e;
}

enum err joblease_take_next(struct store *s, const char *worker, int64_t *job)
{
    *job = 0;
    enum err e = reap_gone(s);
    if (e)
        return e;
    char secs[16];
    const char *p[] = {worker, NUM(secs, runner_lease_seconds())};
    struct store_rows *r;
    e = store_query(s,
                    "WITH old AS (SELECT id, worker FROM jobs"
                    "  WHERE state IN ('queued', 'training', 'crawling')"
                    "  AND (worker IS NULL OR heartbeat_at IS NULL"
                    "   OR heartbeat_at < now() - make_interval(secs => $2::int))"
                    "  ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) "
                    "UPDATE jobs j SET worker = $1, heartbeat_at = now() FROM old "
                    "WHERE j.id = old.id RETURNING j.id, coalesce(old.worker, '')",
                    2, p, &r);
    if (e)
        return e;
    char prev[256] = "";
    if (store_rows_count(r) == 1) {
        *job = store_rows_i64(r, 0, 0, 0);
        snprintf(prev, sizeof prev, "%s", store_rows_get(r, 0, 1));
    }
    store_rows_free(r);
    return end_sessions(s, prev, worker);
}

enum err joblease_renew(struct store *s, int64_t job, const char *worker)
{
    char id[32];
    const char *p[] = {NUM(id, job), worker};
    int64_t n;
    enum err e = store_exec_rows(
        s, "UPDATE jobs SET heartbeat_at = now() WHERE id = $1 AND worker = $2", 2, p, &n);
    if (!e && n != 1)
        e = err_set(ERR_CONFLICT, "job %lld: another worker took the lease", (long long)job);
    return e;
}

enum err joblease_release(struct store *s, int64_t job, const char *worker)
{
    char id[32];
    const char *p[] = {NUM(id, job), worker};
    return store_exec(s, "UPDATE jobs SET worker = NULL WHERE id = $1 AND worker = $2", 2, p);
}

struct joblease_keeper {
    char *url, *worker;
    int64_t job;
    int lead; /* renews the job's lease too, not only the runner's row */
    pthread_t thread;
    atomic_int stop, lost;
};

static void *keep(void *arg)
{
    struct joblease_keeper *k = arg;
    struct store *s = NULL;
    while (!k->stop) {
        for (int i = 0; i < 10 && !k->stop; i++) { /* a second, in steps that notice a stop */
            struct timespec ts = {0, 100 * 1000000L};
            nanosleep(&ts, NULL);
        }
        if (k->stop)
            break;
        enum err e = s ? ERR_OK : store_open(k->url, 0, &s);
        if (!e && k->lead)
            e = joblease_renew(s, k->job, k->worker);
        if (!e)
            e = jobteam_renew(s, k->job, k->worker);
        if (e == ERR_CONFLICT) {
            log_error("job %lld: %s", (long long)k->job, err_msg());
            k->lost = 1;
            break;
        }
        if (e)
            log_warn("job %lld: heartbeat: %s", (long long)k->job, err_msg());
    }
    store_free(s);
    return NULL;
}

enum err joblease_keeper_start(struct store *s, int64_t job, const char *worker,
                               enum jobteam_role role, struct joblease_keeper **out)
{
    *out = NULL;
    enum err e = jobteam_join(s, job, worker, role);
    if (e)
        return e;
    struct joblease_keeper *k = calloc(1, sizeof *k);
    if (!k || !(k->url = strdup(store_url(s))) || !(k->worker = strdup(worker))) {
        if (k)
            free(k->url);
        free(k);
        return err_set(ERR_NOMEM, "out of memory");
    }
    k->job = job;
    k->lead = role == JOBTEAM_LEAD;
    if (pthread_create(&k->thread, NULL, keep, k) != 0) {
        free(k->url);
        free(k->worker);
        free(k);
        return err_set(ERR_IO, "no thread to keep job %lld's lease", (long long)job);
    }
    *out = k;
    return ERR_OK;
}

int joblease_keeper_lost(const struct joblease_keeper *k)
{
    return k && k->lost;
}

void joblease_keeper_stop(struct joblease_keeper *k)
{
    if (!k)
        return;
    k->stop = 1;
    pthread_join(k->thread, NULL);
    free(k->url);
    free(k->worker);
    free(k);
}
