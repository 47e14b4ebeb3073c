/* The runners of a job: lead and helpers, their heartbeats, and the site leases. */
#include "store/jobteam.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/buf.h"
#include "store/runner.h"
#include "store/sitewrite.h"
#include "store/sqlnum.h"
#include "store/store.h"

enum err jobteam_join(struct store *s, int64_t job, const char *worker, enum jobteam_role role)
{
    char id[32];
    const char *p[] = {NUM(id, job), worker, role == JOBTEAM_LEAD ? "lead" : "helper"};
    return store_exec(s,
                      "INSERT INTO job_workers (job_id, worker, role) VALUES ($1, $2, $3) "
                      "ON CONFLICT (job_id, worker) DO UPDATE SET role = EXCLUDED.role,"
                      " heartbeat_at = now()",
                      3, p);
}

enum err jobteam_renew(struct store *s, int64_t job, const char *worker)
{
    char id[32];
    const char *p[] = {NUM(id, job), worker};
    int64_t n;
    enum err e = store_exec_rows(
        s, "UPDATE job_workers SET heartbeat_at = now() WHERE job_id = $1 AND worker = $2", 2, p,
        &n);
    if (!e && n != 1)
        e = err_set(ERR_CONFLICT, "job %lld: this runner's site lease ran out", (long long)job);
    return e;
}

enum err jobteam_leave(struct store *s, int64_t job, const char *worker)
{
    char id[32];
    const char *p[] = {NUM(id, job), worker};
    return store_exec(s, "DELETE FROM job_workers WHERE job_id = $1 AND worker = $2", 2, p);
}

/* Remove the rows of job's runners that are processes of this host no longer running. */
static enum err drop_gone(struct store *s, int64_t job)
{
    char id[32];
    const char *p[] = {NUM(id, job)};
    struct store_rows *r;
    enum err e = store_query(s, "SELECT worker FROM job_workers WHERE job_id = $1", 1, p, &r);
    for (int i = 0; !e && i < store_rows_count(r); i++) {
        const char *w = store_rows_get(r, i, 0);
        const char *q[] = {id, w};
        if (runner_gone(w))
            e = store_exec(s, "DELETE FROM job_workers WHERE job_id = $1 AND worker = $2", 2, q);
    }
    if (r)
        store_rows_free(r);
    return e;
}

enum err jobteam_reclaim(struct store *s, int64_t job, int *count)
{
    if (count)
        *count = 0;
    enum err e = drop_gone(s, job);
    if (e)
        return e;
    char id[32], secs[16];
    const char *p[] = {NUM(id, job), NUM(secs, runner_lease_seconds())};
    struct store_rows *r;
    e = store_query(s,
                    "WITH gone AS (DELETE FROM job_workers WHERE job_id = $1"
                    "  AND heartbeat_at < now() - make_interval(secs => $2::int)),"
                    " lk AS (" JOB_LOCK "),"
                    " u AS (UPDATE sites SET state = 'border', claimed_by = NULL"
                    "  WHERE job_id = $1 AND state = 'claimed' AND EXISTS (SELECT FROM lk)"
                    "  AND NOT EXISTS"
                    "  (SELECT 1 FROM job_workers w WHERE w.job_id = $1"
                    "   AND w.worker = sites.claimed_by"
                    "   AND w.heartbeat_at >= now() - make_interval(secs => $2::int))"
                    "  RETURNING 1) "
                    "SELECT count(*) FROM u",
                    2, p, &r);
    if (e)
        return e;
    if (count)
        *count = (int)store_rows_i64(r, 0, 0, 0);
    store_rows_free(r);
    return ERR_OK;
}

struct allow {
    int64_t job;
    const char *worker;
    int64_t max_pages, keep, more, granted;
};

static enum err allow_tx(struct store *s, void *arg)
{
    struct allow *a = arg;
    char id[32];
    const char *p[] = {NUM(id, a->job), a->worker};
    struct store_rows *r;
    /* The job's row first, locked: the sums below are read after any other grant. */
    enum err e = store_query(s, "SELECT 1 FROM jobs WHERE id = $1 FOR UPDATE", 1, p, &r);
    if (!e) {
        store_rows_free(r);
        e = store_query(s,
                        "SELECT j.pages_downloaded, (SELECT coalesce(sum(allowance), 0)"
                        "  FROM job_workers w WHERE w.job_id = $1 AND w.worker <> $2) "
                        "FROM jobs j WHERE j.id = $1",
                        2, p, &r);
    }
    if (e)
        return e;
    int64_t left = a->max_pages - store_rows_i64(r, 0, 0, 0) - store_rows_i64(r, 0, 1, 0) - a->keep;
    store_rows_free(r);
    a->granted = left < 0 ? 0 : left < a->more ? left : a->more;
    char allowance[32];
    const char *q[] = {id, a->worker, NUM(allowance, a->keep + a->granted)};
    return store_exec(s, "UPDATE job_workers SET allowance = $3 WHERE job_id = $1 AND worker = $2",
                      3, q);
}

enum err jobteam_allow(struct store *s, int64_t job, const char *worker, int64_t max_pages,
                       int64_t keep, int64_t more, int64_t *granted)
{
    struct allow a = {job, worker, max_pages, keep < 0 ? 0 : keep, more < 0 ? 0 : more, 0};
    /* Run again, it grants the same: the job's pages, and the others' allowances. */
    enum err e = store_tx_idempotent(s, allow_tx, &a);
    *granted = e ? 0 : a.granted;
    return e;
}

int jobteam_share(const struct jobteam_need *n, int64_t *keep, int64_t *more)
{
    int64_t held = n->held < 0 ? 0 : n->held;
    if (n->role == JOBTEAM_LEAD && n->polled && n->others == 0) {
        *keep = held;
        *more = n->max_pages;
        return 1;
    }
    int64_t extra = (int64_t)JOBTEAM_SHARE_SITES * n->concurrency * n->site_pages;
    int64_t part = n->left / (n->others > 0 ? n->others + 1 : 1);
    if (part < n->site_pages)
        part = n->site_pages;
    int64_t want = n->nothing_to_start ? 0 : n->committed + (extra < part ? extra : part);
    *more = held > want ? 0 : want - held;
    *keep = held > want ? want : held;
    return 0;
}

enum err jobteam_others(struct store *s, int64_t job, const char *worker, int *n,
                        int64_t *allowance)
{
    *n = 0;
    if (allowance)
        *allowance = 0;
    char id[32], secs[16];
    const char *p[] = {NUM(id, job), worker, NUM(secs, runner_lease_seconds())};
    struct store_rows *r;
    enum err e = store_query(s,
                             "SELECT count(*), coalesce(sum(allowance), 0) FROM job_workers"
                             " WHERE job_id = $1 AND worker <> $2"
                             " AND heartbeat_at >= now() - make_interval(secs => $3::int)",
                             3, p, &r);
    if (e)
        return e;
    *n = (int)store_rows_i64(r, 0, 0, 0);
    if (allowance)
        *allowance = store_rows_i64(r, 0, 1, 0);
    store_rows_free(r);
    return ERR_OK;
}

enum err jobteam_pick(struct store *s, const int64_t *busy, size_t n_busy, int64_t *job)
{
    *job = 0;
    struct buf ids; /* a PostgreSQL array literal: {1,2,3} */
    buf_init(&ids, 0);
    enum err e = buf_append_str(&ids, "{");
    for (size_t i = 0; !e && i < n_busy; i++)
        e = buf_appendf(&ids, "%s%lld", i ? "," : "", (long long)busy[i]);
    if (!e)
        e = buf_append_str(&ids, "}");
    char secs[16];
    const char *p[] = {e ? "{}" : buf_str(&ids), NUM(secs, runner_lease_seconds())};
    struct store_rows *r = NULL;
    if (!e)
        e = store_query(
            s,
            "SELECT j.id FROM jobs j WHERE j.state = 'crawling' AND j.stop_requested IS NULL"
            " AND j.worker IS NOT NULL"
            " AND j.heartbeat_at >= now() - make_interval(secs => $2::int)"
            " AND j.params->>'strategy' IN ('website', 'homepage')"
            " AND NOT coalesce((j.params->>'warc')::boolean, false)"
            " AND (coalesce((j.params->>'max_pages')::bigint, 0) = 0"
            "  OR j.pages_downloaded < (j.params->>'max_pages')::bigint)"
            " AND NOT (j.id = ANY ($1::bigint[])) "
            "ORDER BY (SELECT count(*) FROM job_workers w WHERE w.job_id = j.id), j.id "
            "LIMIT 1",
            2, p, &r);
    buf_release(&ids);
    if (e)
        return e;
    if (store_rows_count(r) == 1)
        *job = store_rows_i64(r, 0, 0, 0);
    store_rows_free(r);
    return ERR_OK;
}
