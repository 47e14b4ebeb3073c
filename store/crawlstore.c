/* The crawl's durable state: jobs, sites, edges, pages, metrics (SQL over store.h). */
#include "store/crawlstore.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/buf.h"
#include "common/log.h"
#include "store/bgexec.h"
#include "store/sitewrite.h"
#include "store/sqlarray.h"
#include "store/sqlfetch.h"
#include "store/sqlnum.h"
#include "store/store.h"

/* ---- jobs ---------------------------------------------------------------- */

enum err crawlstore_job_create(struct store *s, const char *topic, const char *body_json,
                               const char *params_json, int64_t *id)
{
    return crawlstore_job_create_leased(s, topic, body_json, params_json, NULL, NULL, id);
}

enum err crawlstore_job_create_leased(struct store *s, const char *topic, const char *body_json,
                                      const char *params_json, const char *warnings_json,
                                      const char *worker, int64_t *id)
{
    const char *p[] = {topic, body_json, params_json, worker, warnings_json};
    struct store_rows *r;
    enum err e =
        store_query(s,
                    "INSERT INTO jobs (topic, body, params, worker, heartbeat_at, warnings)"
                    " VALUES ($1, $2::jsonb, $3::jsonb, $4,"
                    "  CASE WHEN $4::text IS NOT NULL THEN now() END,"
                    "  coalesce($5::jsonb, '[]')) "
                    "RETURNING id",
                    5, p, &r);
    if (e)
        return e;
    *id = store_rows_i64(r, 0, 0, 0);
    store_rows_free(r);
    return ERR_OK;
}

static void copy_field(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src ? src : "");
}

enum err crawlstore_job_get(struct store *s, int64_t id, struct crawlstore_job *out)
{
    memset(out, 0, sizeof *out);
    char ids[32];
    const char *p[] = {NUM(ids, id)};
    struct store_rows *r;
    enum err e = store_query(s,
                             "SELECT id, topic, state, coalesce(stop_requested, ''), body::text, "
                             "params::text, coalesce(stop_reason, ''), coalesce(error, ''), "
                             "coalesce(proxy, '') "
                             "FROM jobs WHERE id = $1",
                             1, p, &r);
    if (e)
        return e;
    if (store_rows_count(r) == 0) {
        store_rows_free(r);
        return err_set(ERR_NOTFOUND, "there is no job %lld", (long long)id);
    }
    out->id = id;
    copy_field(out->topic, sizeof out->topic, store_rows_get(r, 0, 1));
    copy_field(out->state, sizeof out->state, store_rows_get(r, 0, 2));
    copy_field(out->stop_requested, sizeof out->stop_requested, store_rows_get(r, 0, 3));
    out->body_json = strdup(store_rows_get(r, 0, 4));
    out->params_json = strdup(store_rows_get(r, 0, 5));
    copy_field(out->stop_reason, sizeof out->stop_reason, store_rows_get(r, 0, 6));
    out->error = strdup(store_rows_get(r, 0, 7));
    out->proxy = strdup(store_rows_get(r, 0, 8));
    store_rows_free(r);
    if (!out->body_json || !out->params_json || !out->error || !out->proxy) {
        crawlstore_job_release(out);
        return err_set(ERR_NOMEM, "out of memory");
    }
    return ERR_OK;
}

void crawlstore_job_release(struct crawlstore_job *j)
{
    free(j->body_json);
    free(j->params_json);
    free(j->error);
    free(j->proxy);
    j->body_json = j->params_json = j->error = j->proxy = NULL;
}

enum err crawlstore_job_add_warning(struct store *s, int64_t id, const char *code,
                                    const char *message)
{
    char ids[32];
    const char *p[] = {NUM(ids, id), code, message};
    return store_exec(s,
                      "UPDATE jobs SET warnings = warnings || jsonb_build_array("
                      "  jsonb_build_object('code', $2::text, 'message', $3::text)) "
                      "WHERE id = $1 AND NOT warnings @> jsonb_build_array("
                      "  jsonb_build_object('code', $2::text))",
                      3, p);
}

enum err crawlstore_job_exists(struct store *s, int64_t job)
{
    char j[32];
    const char *p[] = {NUM(j, job)};
    struct store_rows *r;
    enum err e = store_query(s, "SELECT 1 FROM jobs WHERE id = $1", 1, p, &r);
    if (e)
        return e;
    int found = store_rows_count(r) == 1;
    store_rows_free(r);
    return found ? ERR_OK : err_set(ERR_NOTFOUND, "no job %lld", (long long)job);
}

enum err crawlstore_job_set_proxy(struct store *s, int64_t id, const char *proxy)
{
    char ids[32];
    const char *p[] = {NUM(ids, id), proxy};
    return store_exec(s, "UPDATE jobs SET proxy = $2 WHERE id = $1", 2, p);
}

enum err crawlstore_job_set_state(struct store *s, int64_t id, const char *state,
                                  const char *stop_reason, const char *error)
{
    char ids[32];
    const char *p[] = {NUM(ids, id), state, stop_reason, error};
    return store_exec(s,
                      "UPDATE jobs SET state = $2, stop_reason = coalesce($3, stop_reason), "
                      " error = $4, updated_at = now(),"
                      " started_at = CASE WHEN $2 IN ('training', 'crawling') "
                      "   THEN coalesce(started_at, now()) ELSE started_at END,"
                      " finished_at = CASE WHEN $2 IN ('done', 'failed') THEN now() END,"
                      " stop_requested = CASE WHEN $2 IN ('done', 'failed', 'paused') "
                      "   THEN NULL ELSE stop_requested END "
                      "WHERE id = $1",
                      4, p);
}

enum err crawlstore_job_interrupted(struct store *s, int64_t id, const char *worker,
                                    const char *why)
{
    char ids[32];
    const char *p[] = {NUM(ids, id), worker, why};
    return store_exec(s,
                      "UPDATE jobs SET error = $3, worker = NULL, updated_at = now() "
                      "WHERE id = $1 AND worker = $2 AND state IN ('training', 'crawling')",
                      3, p);
}

enum err crawlstore_job_request(struct store *s, int64_t id, const char *what)
{
    char ids[32];
    const char *p[] = {NUM(ids, id), what};
    return store_exec(s, "UPDATE jobs SET stop_requested = $2, updated_at = now() WHERE id = $1", 2,
                      p);
}

enum err crawlstore_set_worker(struct store *s, const char *worker)
{
    const char *p[] = {worker};
    return store_exec(s, "SELECT set_config('application_name', $1, false)", 1, p);
}

enum err crawlstore_counts(struct store *s, int64_t job, struct crawlstore_counts *out)
{
    memset(out, 0, sizeof *out);
    char ids[32], max[32];
    const char *p[] = {NUM(ids, job), NUM(max, CRAWLSTORE_BORDER_COUNT_MAX)};
    /* In the border's order, to take its index: a plain LIMIT may seq-scan other jobs' rows. */
    struct store_rows *r;
    enum err e =
        store_query(s,
                    "SELECT j.pages_downloaded, j.sites_examined, j.relevant_found,"
                    " (SELECT count(*) FROM (SELECT 1 FROM sites WHERE job_id = $1"
                    "  AND state = 'border' ORDER BY rank DESC LIMIT $2::int) b),"
                    " (SELECT count(*) FROM sites WHERE job_id = $1 AND state = 'claimed') "
                    "FROM jobs j WHERE j.id = $1",
                    2, p, &r);
    if (e)
        return e;
    if (store_rows_count(r) == 1) {
        out->pages = store_rows_i64(r, 0, 0, 0);
        out->examined = store_rows_i64(r, 0, 1, 0);
        out->relevant = store_rows_i64(r, 0, 2, 0);
        out->border = store_rows_i64(r, 0, 3, 0);
        out->claimed = store_rows_i64(r, 0, 4, 0);
    }
    store_rows_free(r);
    return ERR_OK;
}

/* ---- sites --------------------------------------------------------------- */

enum err crawlstore_site_add(struct store *s, int64_t job, const char *host, const char *homepage,
                             const char *role, const char *state, double confidence, int relevant,
                             double rank)
{
    char ids[32], conf[40], rk[40];
    const char *p[] = {NUM(ids, job),
                       host,
                       homepage,
                       role,
                       state,
                       isnan(confidence) ? NULL : DBL(conf, confidence),
                       relevant < 0 ? NULL
                       : relevant   ? "true"
                                    : "false",
                       DBL(rk, rank)};
    return store_exec(s,
                      "INSERT INTO sites (job_id, host, homepage, role, state, confidence, "
                      " relevant, rank) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) "
                      "ON CONFLICT (job_id, host) DO UPDATE SET role = EXCLUDED.role,"
                      " state = EXCLUDED.state, homepage = EXCLUDED.homepage,"
                      " rank = greatest(sites.rank, EXCLUDED.rank) "
                      "WHERE sites.state = 'border' AND sites.role = 'discovered' "
                      " AND EXCLUDED.role <> 'discovered'",
                      8, p);
}

enum err crawlstore_claim_many(struct store *s, int64_t job, const char *worker, int n,
                               struct crawlstore_claimed *out, int *got)
{
    *got = 0;
    if (n < 1 || n > CRAWLSTORE_CLAIM_MAX)
        return err_set(ERR_INVAL, "a claim takes 1 to %d websites", CRAWLSTORE_CLAIM_MAX);
    char ids[32], lim[16];
    const char *p[] = {NUM(ids, job), worker, NUM(lim, n)};
    struct store_rows *r;
    enum err e = store_query_prepared(
        s,
        /* The pick is materialised: an IN (subquery) may be run again per row, and
         * each run, skipping other sessions' locks but not its own, picks more. */
        "WITH pick AS MATERIALIZED (SELECT host FROM sites"
        "  WHERE job_id = $1 AND state = 'border' ORDER BY rank DESC, discovered_at, host"
        "  LIMIT $3::int FOR UPDATE SKIP LOCKED), "
        "c AS (UPDATE sites s SET state = 'claimed', claimed_by = $2, claimed_at = now() "
        " FROM pick WHERE s.job_id = $1 AND s.host = pick.host "
        " RETURNING s.host, s.homepage, s.rank, s.discovered_at) "
        "SELECT host, homepage, rank FROM c ORDER BY rank DESC, discovered_at, host",
        3, p, &r);
    if (e)
        return e;
    int rows = store_rows_count(r);
    for (int i = 0; !e && i < rows && i < n; i++) {
        out[i].host = strdup(store_rows_get(r, i, 0));
        out[i].homepage = strdup(store_rows_get(r, i, 1));
        out[i].rank = store_rows_double(r, i, 2, NAN);
        if (!out[i].host || !out[i].homepage) {
            crawlstore_claimed_release(&out[i]);
            e = err_set(ERR_NOMEM, "out of memory");
        } else {
            (*got)++;
        }
    }
    store_rows_free(r);
    return e;
}

void crawlstore_claimed_release(struct crawlstore_claimed *c)
{
    free(c->host);
    free(c->homepage);
    c->host = c->homepage = NULL;
}

enum err crawlstore_claim(struct store *s, int64_t job, const char *worker, char **host,
                          char **homepage, double *rank)
{
    *host = *homepage = NULL;
    struct crawlstore_claimed c;
    int got;
    enum err e = crawlstore_claim_many(s, job, worker, 1, &c, &got);
    if (e)
        return e;
    if (!got)
        return ERR_NOTFOUND;
    *host = c.host;
    *homepage = c.homepage;
    if (rank)
        *rank = c.rank;
    return ERR_OK;
}

enum err crawlstore_unclaim(struct store *s, int64_t job, const char *worker, int *count)
{
    char ids[32];
    const char *p[] = {NUM(ids, job), worker};
    struct store_rows *r;
    enum err e = store_query(s,
                             "WITH lk AS (" JOB_LOCK "),"
                             " u AS (UPDATE sites SET state = 'border', claimed_by = NULL "
                             " WHERE job_id = $1 AND state = 'claimed' AND EXISTS (SELECT FROM lk)"
                             " AND ($2::text IS NULL OR claimed_by = $2) RETURNING 1) "
                             "SELECT count(*) FROM u",
                             2, p, &r);
    if (e)
        return e;
    if (count)
        *count = (int)store_rows_i64(r, 0, 0, 0);
    store_rows_free(r);
    return ERR_OK;
}

enum err crawlstore_unclaim_lost(struct store *s, int64_t job, const char *worker,
                                 const char *const *held, size_t n_held, int *count)
{
    if (count)
        *count = 0;
    struct buf a;
    enum err e = sqlarray_init(&a, 1);
    for (size_t i = 0; !e && i < n_held; i++)
        e = sqlarray_text(&a, held[i]);
    if (!e)
        e = sqlarray_close(&a, 1);
    char ids[32];
    const char *p[] = {NUM(ids, job), worker, buf_str(&a)};
    struct store_rows *r = NULL;
    if (!e)
        e = store_query(s,
                        "WITH lk AS (" JOB_LOCK "),"
                        " u AS (UPDATE sites SET state = 'border', claimed_by = NULL "
                        " WHERE job_id = $1 AND state = 'claimed' AND claimed_by = $2"
                        " AND NOT (host = ANY ($3::text[])) AND EXISTS (SELECT FROM lk)"
                        " RETURNING 1) "
                        "SELECT count(*) FROM u",
                        3, p, &r);
    sqlarray_release(&a, 1);
    if (e)
        return e;
    if (count)
        *count = (int)store_rows_i64(r, 0, 0, 0);
    store_rows_free(r);
    return ERR_OK;
}

/* r's pages, in the order read (unnest hands the rows out in array order, and pages.id
 * keeps it), and the job's fetches by outcome. */
static enum err write_pages(struct store *s, const char *job,
                            const struct crawlstore_site_result *r)
{
    if (!r->n_pages)
        return ERR_OK;
    struct buf a[SITEWRITE_PAGE_ARRAYS];
    enum err e = sitewrite_page_arrays(a, r);
    if (!e) {
        const char *p[] = {job,
                           r->host,
                           r->purpose,
                           buf_str(&a[0]),
                           buf_str(&a[1]),
                           buf_str(&a[2]),
                           buf_str(&a[3]),
                           buf_str(&a[4]),
                           buf_str(&a[5]),
                           buf_str(&a[6])};
        e = store_exec(s,
                       "WITH pg AS (INSERT INTO pages (job_id, host, purpose, url, error, status,"
                       " bytes, pr_target, posterior, terms) "
                       "SELECT $1, $2, $3, u, nullif(st, 'ok'), nullif(hs, 0), b, pr, po, tm "
                       "FROM unnest($4::text[], $5::text[], $6::int[], $7::int[], "
                       " $8::float8[], $9::float8[], $10::text[]) AS t(u, st, hs, b, pr, po, "
                       "tm)) " FETCHES_ADD("$1",
                                           "unnest($5::text[], $6::int[]) AS t(st, hs) WHERE $3 = "
                                           "'crawl'"),
                       10, p);
    }
    sqlarray_release(a, SITEWRITE_PAGE_ARRAYS);
    return e;
}

static enum err add_border(struct store *s, const char *job_id, const struct crawlstore_border *b,
                           size_t n)
{
    if (!n)
        return ERR_OK;
    struct buf a[3];
    enum err e = sqlarray_init(a, 3);
    for (size_t i = 0; !e && i < n; i++) {
        e = sqlarray_text(&a[0], b[i].host);
        if (!e)
            e = sqlarray_text(&a[1], b[i].homepage);
        if (!e)
            e = sqlarray_double(&a[2], b[i].rank);
    }
    if (!e)
        e = sqlarray_close(a, 3);
    if (!e) {
        const char *p[] = {job_id, buf_str(&a[0]), buf_str(&a[1]), buf_str(&a[2])};
        e = store_exec(s,
                       "INSERT INTO sites (job_id, host, homepage, rank) "
                       "SELECT $1, h, hp, r FROM unnest($2::text[], $3::text[], $4::float8[]) "
                       " AS t(h, hp, r) ON CONFLICT DO NOTHING",
                       4, p);
    }
    sqlarray_release(a, 3);
    return e;
}

static enum err sites_update_tx(struct store *s, int64_t job,
                                const struct crawlstore_site_result *r, size_t n,
                                const struct crawlstore_border *border, size_t n_border,
                                int64_t pages_delta)
{
    char ids[32], delta[32];
    const char *job_id = NUM(ids, job);
    const char *lock_p[] = {job_id};
    /* The job's row first (JOB_LOCK): a label's transaction takes it before the website's. */
    enum err e = store_exec(s, JOB_LOCK, 1, lock_p);
    if (!e)
        e = add_border(s, job_id, border, n_border);
    for (size_t i = 0; !e && i < n; i++) {
        char conf[40], ptd[16], fetches[16], found[32];
        const char *p[] = {job_id,
                           r[i].host,
                           r[i].homepage ? r[i].homepage : "",
                           DBL(conf, r[i].confidence),
                           r[i].relevant ? "true" : "false",
                           NUM(fetches, r[i].fetches),
                           NUM(ptd, r[i].pages_to_decide),
                           r[i].relevant ? NUM(found, r[i].found_pages) : NULL};
        e = store_exec(s,
                       "INSERT INTO sites (job_id, host, homepage, state, confidence, relevant,"
                       " pages_visited, pages_to_class, examined_at, found_pages) "
                       "VALUES ($1, $2, $3, 'examined', $4, $5, $6, $7, now(), $8) "
                       "ON CONFLICT (job_id, host) DO UPDATE SET state = 'examined',"
                       " confidence = EXCLUDED.confidence, relevant = EXCLUDED.relevant,"
                       " pages_visited = EXCLUDED.pages_visited,"
                       " pages_to_class = EXCLUDED.pages_to_class,"
                       " examined_at = coalesce(sites.examined_at, now()), claimed_by = NULL,"
                       " error = NULL, found_pages = EXCLUDED.found_pages "
                       "WHERE sites.role NOT IN ('train', 'train_other')",
                       8, p);
        if (!e)
            e = write_pages(s, job_id, &r[i]);
    }
    const char *q[] = {job_id, NUM(delta, pages_delta)};
    if (!e)
        e = store_exec(s,
                       "UPDATE jobs SET pages_downloaded = pages_downloaded + $2,"
                       " sites_examined = (SELECT count(*) FROM sites WHERE job_id = $1"
                       "  AND state = 'examined' AND role NOT IN ('train', 'train_other')),"
                       " relevant_found = (SELECT count(*) FROM sites WHERE job_id = $1"
                       "  AND state = 'examined' AND relevant"
                       "  AND role NOT IN ('train', 'train_other')),"
                       " updated_at = now() "
                       "WHERE id = $1",
                       2, q);
    return e;
}

struct sites_update {
    int64_t job;
    const struct crawlstore_site_result *r;
    size_t n;
    const struct crawlstore_border *border;
    size_t n_border;
    int64_t pages_delta;
};

static enum err sites_update_run(struct store *s, void *arg)
{
    struct sites_update *t = arg;
    return sites_update_tx(s, t->job, t->r, t->n, t->border, t->n_border, t->pages_delta);
}

enum err crawlstore_sites_update(struct store *s, int64_t job,
                                 const struct crawlstore_site_result *r, size_t n,
                                 const struct crawlstore_border *border, size_t n_border,
                                 int64_t pages_delta)
{
    struct sites_update t = {job, r, n, border, n_border, pages_delta};
    return store_tx(s, sites_update_run, &t);
}

void crawlstore_site_rows_free(struct crawlstore_site_row *rows, size_t n)
{
    for (size_t i = 0; rows && i < n; i++) {
        free(rows[i].host);
        free(rows[i].homepage);
    }
    free(rows);
}

enum err crawlstore_sites_list(struct store *s, int64_t job, struct crawlstore_site_row **out,
                               size_t *n)
{
    *out = NULL;
    *n = 0;
    char ids[32];
    const char *p[] = {NUM(ids, job)};
    struct store_rows *r;
    enum err e = store_query(s,
                             "SELECT host, homepage, state, role, rank FROM sites "
                             "WHERE job_id = $1 ORDER BY rank DESC, discovered_at, host",
                             1, p, &r);
    if (e)
        return e;
    int rows = store_rows_count(r);
    struct crawlstore_site_row *v = calloc(rows ? (size_t)rows : 1, sizeof *v);
    for (int i = 0; v && i < rows; i++) {
        v[i].host = strdup(store_rows_get(r, i, 0));
        v[i].homepage = strdup(store_rows_get(r, i, 1));
        copy_field(v[i].state, sizeof v[i].state, store_rows_get(r, i, 2));
        copy_field(v[i].role, sizeof v[i].role, store_rows_get(r, i, 3));
        v[i].rank = store_rows_double(r, i, 4, NAN);
        if (!v[i].host || !v[i].homepage) {
            crawlstore_site_rows_free(v, (size_t)i + 1);
            v = NULL;
        }
    }
    store_rows_free(r);
    if (!v)
        return err_set(ERR_NOMEM, "out of memory");
    *out = v;
    *n = (size_t)rows;
    return ERR_OK;
}

enum err crawlstore_job_add_requests(struct store *s, int64_t job, int64_t n)
{
    char id[32], delta[32];
    const char *p[] = {NUM(id, job), NUM(delta, n)};
    return store_exec(s, "UPDATE jobs SET requests = requests + $2 WHERE id = $1", 2, p);
}
