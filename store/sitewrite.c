/*
 * The website crawler's writes of examined websites. Each website is one statement: its
 * row, its pages, its edges, the border's upserts and the job's counters (pages,
 * websites, fetches by outcome) as data-modifying CTEs. A batch of them goes to the
 * database in one round trip and one transaction (store_pipeline), after a statement
 * that locks the job's row (BENCHMARKS.md, "Scale-out (#15)").
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "store/crawlstore.h"
#include "store/sitewrite.h"
#include "store/sqlarray.h"
#include "store/sqlfetch.h"
#include "store/sqlnum.h"
#include "store/store.h"

enum err sitewrite_page_arrays(struct buf a[SITEWRITE_PAGE_ARRAYS],
                               const struct crawlstore_site_result *r)
{
    enum err e = sqlarray_init(a, SITEWRITE_PAGE_ARRAYS);
    for (size_t i = 0; !e && i < r->n_pages; i++) {
        const struct crawlstore_page *pg = &r->pages[i];
        e = sqlarray_text(&a[0], pg->url);
        if (!e)
            e = sqlarray_text(&a[1], pg->status);
        if (!e)
            e = sqlarray_long(&a[2], pg->http_status);
        if (!e)
            e = sqlarray_long(&a[3], (long long)pg->bytes);
        if (!e)
            e = sqlarray_double(&a[4], pg->pr_target);
        if (!e)
            e = sqlarray_double(&a[5], pg->posterior);
    }
    return e ? e : sqlarray_close(a, SITEWRITE_PAGE_ARRAYS);
}

/* Five literals of r's edges: destination host, its homepage, conf_sum, page_count,
 * weight. */
#define EDGE_ARRAYS 5
static enum err edge_arrays(struct buf a[EDGE_ARRAYS], const struct crawlstore_site_result *r)
{
    enum err e = sqlarray_init(a, EDGE_ARRAYS);
    for (size_t i = 0; !e && i < r->n_edges; i++) {
        const struct crawlstore_edge *ed = &r->edges[i];
        e = sqlarray_text(&a[0], ed->host);
        if (!e)
            e = sqlarray_text(&a[1], ed->homepage);
        if (!e)
            e = sqlarray_double(&a[2], ed->conf_sum);
        if (!e)
            e = sqlarray_long(&a[3], ed->page_count);
        if (!e)
            e = sqlarray_double(&a[4], ed->weight);
    }
    return e ? e : sqlarray_close(a, EDGE_ARRAYS);
}

/*
 * The parameters both statements share: $1 job, $2 host, $3 the site's confidence,
 * $4 the pages' purpose, $5..$10 the page arrays, $11..$15 the edge arrays; each
 * statement's own follow from $16. Its first CTE, `site`, returns a row when the site
 * is to be written; the writes below happen only then:
 * - the pages, in the order read (unnest hands them out in array order, and pages.id
 *   keeps it);
 * - the job's fetches by outcome (job_fetches), its crawl pages counted;
 * - the edges, each once;
 * - the border: every destination joins it (if new), and its rank becomes the average
 *   weight of the examined sites linking to it (a start site keeps its rank, and an
 *   examined or failed site the rank it had then: an update that changes no indexed
 *   column can be HOT, with no new index entries). The rows
 *   are locked in one order (ORDER BY d): runners never deadlock on them.
 */
#define N_SHARED 15
/* The job's fetches by outcome, when the site is written. */
#define FETCHES_CTE                                                                                \
    "fk AS (" FETCHES_ADD("$1", "$4", "$6", "$7", "EXISTS (SELECT 1 FROM site)") "), "
/* The job runs. (Its row is locked already, by the batch's first statement: the job
 * cannot be deleted until the batch commits, apistore_job_delete.) */
#define RUNS "SELECT 1 FROM jobs WHERE id = $1 AND " JOB_RUNS
#define WRITES                                                                                     \
    "pg AS (INSERT INTO pages (job_id, host, purpose, url, error, status, bytes, pr_target,"       \
    "  posterior)"                                                                                 \
    " SELECT $1, $2, $4, u, nullif(st, 'ok'), nullif(hs, 0), b, pr, po"                            \
    " FROM unnest($5::text[], $6::text[], $7::int[], $8::int[], $9::float8[], $10::float8[])"      \
    "  WITH ORDINALITY AS t(u, st, hs, b, pr, po, i)"                                              \
    " WHERE EXISTS (SELECT 1 FROM site) ORDER BY i), "                                             \
    "ed AS (INSERT INTO edges (job_id, src_host, dst_host, conf_sum, page_count, weight)"          \
    " SELECT $1, $2, d, cs, pc, w"                                                                 \
    " FROM unnest($11::text[], $13::float8[], $14::int[], $15::float8[]) AS t(d, cs, pc, w)"       \
    " WHERE EXISTS (SELECT 1 FROM site) ON CONFLICT DO NOTHING), " FETCHES_CTE                     \
    "bd AS (INSERT INTO sites (job_id, host, homepage, in_sites, global_sum, local_sum,"           \
    "  weight_sum, rank)"                                                                          \
    " SELECT $1, d, h, 1, $3::float8, cs / greatest(pc, 1), w, w"                                  \
    " FROM unnest($11::text[], $12::text[], $13::float8[], $14::int[], $15::float8[])"             \
    "  AS t(d, h, cs, pc, w)"                                                                      \
    " WHERE d <> $2 AND EXISTS (SELECT 1 FROM site) ORDER BY d"                                    \
    " ON CONFLICT (job_id, host) DO UPDATE SET"                                                    \
    "  in_sites = sites.in_sites + 1,"                                                             \
    "  global_sum = sites.global_sum + EXCLUDED.global_sum,"                                       \
    "  local_sum = sites.local_sum + EXCLUDED.local_sum,"                                          \
    "  weight_sum = sites.weight_sum + EXCLUDED.weight_sum,"                                       \
    "  rank = CASE WHEN sites.role = 'start' OR sites.state NOT IN ('border', 'claimed')"          \
    "   THEN sites.rank"                                                                           \
    "   ELSE (sites.weight_sum + EXCLUDED.weight_sum) / (sites.in_sites + 1) END), "

/*
 * crawlstore_site_done: the verdict ($16 relevant, $17 fetches, $18 pages to decide,
 * $19 prior, $20 verdict_by, $21 read_stop) on a site not yet examined of a job that
 * runs; the job counts its pages, the site and a relevant one (a training site counts
 * in none). found_pages reads the job's pages before this statement's own: the pages
 * downloaded when it was found.
 */
static const char site_done_sql[] =
    "WITH runs AS (" RUNS "), "
    "site AS (UPDATE sites SET state = 'examined', confidence = $3, relevant = $16,"
    " pages_visited = $17, pages_to_class = $18, examined_at = now(), claimed_by = NULL,"
    " error = NULL, prior = $19, verdict_by = $20, read_stop = $21,"
    " found_pages = CASE WHEN $16 THEN (SELECT pages_downloaded + $17::int FROM jobs"
    "  WHERE id = $1) END"
    " WHERE job_id = $1 AND host = $2 AND state <> 'examined'"
    "  AND EXISTS (SELECT 1 FROM runs)"
    " RETURNING role), " WRITES "jb AS (UPDATE jobs SET pages_downloaded = pages_downloaded + $17,"
    " sites_examined = sites_examined + 1,"
    " relevant_found = relevant_found + CASE WHEN $16 THEN 1 ELSE 0 END, updated_at = now()"
    " WHERE id = $1 AND EXISTS (SELECT 1 FROM site WHERE role NOT IN ('train', 'train_other')))"
    " SELECT role FROM site";

/*
 * crawlstore_site_more: $16 fetches and $17 read_stop on an examined site of a job that
 * runs. Answers whether the site was found examined and whether the job runs.
 */
static const char site_more_sql[] =
    "WITH runs AS (" RUNS "), "
    "site AS (UPDATE sites SET pages_visited = pages_visited + $16::int,"
    " read_stop = coalesce($17::text, read_stop)"
    " WHERE job_id = $1 AND host = $2 AND state = 'examined' AND EXISTS (SELECT 1 FROM runs)"
    " RETURNING 1), " WRITES
    "jb AS (UPDATE jobs SET pages_downloaded = pages_downloaded + $16::int, updated_at = now()"
    " WHERE id = $1 AND EXISTS (SELECT 1 FROM site))"
    " SELECT (SELECT count(*) FROM site), (SELECT count(*) FROM runs)";

/*
 * SITEWRITE_FAILED and _ABANDON: a claimed site leaves the claim without a verdict,
 * failed ($3, with why: $4) or back on the border. The fetches it cost ($5)
 * count in the job's pages_downloaded (a training site's do not), in the same statement.
 */
static const char site_release_sql[] =
    "WITH u AS (UPDATE sites SET state = $3, error = $4, claimed_by = NULL,"
    "  pages_visited = CASE WHEN $3 = 'failed' THEN $5::int ELSE 0 END"
    "  WHERE job_id = $1 AND host = $2 AND state <> 'examined' RETURNING role) "
    "UPDATE jobs SET pages_downloaded = pages_downloaded + $5::int,"
    " updated_at = now() "
    "WHERE id = $1 AND $5::int > 0 AND " JOB_RUNS
    " AND EXISTS (SELECT 1 FROM u WHERE role NOT IN ('train', 'train_other'))";

/* One write's parameters: the shared ones and the statement's own, with their texts. */
struct params {
    struct buf pa[SITEWRITE_PAGE_ARRAYS], ea[EDGE_ARRAYS];
    char ids[32], conf[40], fetches[16], ptd[16], prior[40];
    const char *p[N_SHARED + 6];
};

static enum err params_build(struct params *q, int64_t job, const struct sitewrite_item *it,
                             struct store_call *call)
{
    const struct crawlstore_site_result *r = it->r;
    if (it->kind == SITEWRITE_FAILED || it->kind == SITEWRITE_ABANDON) { /* no arrays */
        const char *p[] = {
            NUM(q->ids, job), r->host, it->kind == SITEWRITE_FAILED ? "failed" : "border",
            it->kind == SITEWRITE_FAILED ? r->error : NULL, NUM(q->fetches, r->fetches)};
        memcpy(q->p, p, sizeof p);
        *call = (struct store_call){site_release_sql, 5, q->p, NULL};
        return ERR_OK;
    }
    enum err e = sitewrite_page_arrays(q->pa, r);
    enum err e2 = edge_arrays(q->ea, r);
    const char *shared[N_SHARED] = {NUM(q->ids, job),
                                    r->host,
                                    DBL(q->conf, r->confidence),
                                    r->purpose,
                                    buf_str(&q->pa[0]),
                                    buf_str(&q->pa[1]),
                                    buf_str(&q->pa[2]),
                                    buf_str(&q->pa[3]),
                                    buf_str(&q->pa[4]),
                                    buf_str(&q->pa[5]),
                                    buf_str(&q->ea[0]),
                                    buf_str(&q->ea[1]),
                                    buf_str(&q->ea[2]),
                                    buf_str(&q->ea[3]),
                                    buf_str(&q->ea[4])};
    memcpy(q->p, shared, sizeof shared);
    const char **own = q->p + N_SHARED;
    if (it->kind == SITEWRITE_MORE) {
        own[0] = NUM(q->fetches, r->fetches);
        own[1] = r->read_stop;
        *call = (struct store_call){site_more_sql, N_SHARED + 2, q->p, NULL};
    } else {
        own[0] = r->relevant ? "true" : "false";
        own[1] = NUM(q->fetches, r->fetches);
        own[2] = NUM(q->ptd, r->pages_to_decide);
        own[3] = !r->read_stop || isnan(r->prior) ? NULL : DBL(q->prior, r->prior);
        own[4] = r->verdict_by;
        own[5] = r->read_stop;
        *call = (struct store_call){site_done_sql, N_SHARED + 6, q->p, NULL};
    }
    return e ? e : e2;
}

static void params_release(struct params *q)
{
    sqlarray_release(q->pa, SITEWRITE_PAGE_ARRAYS);
    sqlarray_release(q->ea, EDGE_ARRAYS);
}

/* What a write's rows say: written (ERR_OK), a conflict (why), or, for a deeper read,
 * a site whose examination was lost (ERR_NOTFOUND). */
static enum err outcome(struct sitewrite_item *it, const struct store_rows *rows)
{
    const char *host = it->r->host;
    if (it->kind == SITEWRITE_FAILED || it->kind == SITEWRITE_ABANDON)
        return ERR_OK;
    if (it->kind == SITEWRITE_DONE) {
        if (store_rows_count(rows) == 1)
            return ERR_OK;
        snprintf(it->why, sizeof it->why,
                 "site %s is already examined (or unknown, or its job ended)", host);
        return ERR_CONFLICT;
    }
    if (store_rows_i64(rows, 0, 0, 0) == 1)
        return ERR_OK;
    if (store_rows_i64(rows, 0, 1, 0) != 1) {
        snprintf(it->why, sizeof it->why, "%s not read deeper: its job ended", host);
        return ERR_CONFLICT;
    }
    return ERR_NOTFOUND;
}

enum err sitewrite_batch(struct store *s, int64_t job, struct sitewrite_item *items, size_t n)
{
    if (n < 1 || n > SITEWRITE_BATCH_MAX)
        return err_set(ERR_INVAL, "a batch of website writes takes 1 to %d", SITEWRITE_BATCH_MAX);
    struct params *q = calloc(n, sizeof *q);
    if (!q)
        return err_set(ERR_NOMEM, "out of memory");
    /*
     * The job's row is locked first: each write updates it (its counters) and locks
     * sites rows (its own, the border's) before that, in its own order; a transaction
     * of several writes, or a runner's crawl thread beside it, could otherwise hold some
     * of those rows while waiting for the job's row that another batch holds while
     * waiting for them. With the job's row first, the batches of a job's runners take
     * turns. (store_pipeline sends a batch again if a deadlock rolled it back all the
     * same.)
     */
    struct store_call calls[SITEWRITE_BATCH_MAX + 1];
    char ids[32];
    const char *lock_p[] = {NUM(ids, job)};
    calls[0] = (struct store_call){JOB_LOCK, 1, lock_p, NULL};
    enum err e = ERR_OK;
    for (size_t i = 0; i < n; i++) {
        enum err b = params_build(&q[i], job, &items[i], &calls[i + 1]);
        e = e ? e : b;
    }
    if (!e)
        e = store_pipeline(s, calls, (int)n + 1);
    store_rows_free(calls[0].rows);
    for (size_t i = 0; i < n; i++) {
        if (!e)
            items[i].outcome = outcome(&items[i], calls[i + 1].rows);
        store_rows_free(calls[i + 1].rows); /* NULL when not written */
        params_release(&q[i]);
    }
    free(q);
    /*
     * A deeper read of a site not examined: its examination was lost, as a crash loses
     * the last commits of a database that runs with synchronous_commit = off
     * (store/pgembed.c) although they were acknowledged. It is recorded now, from what
     * this deeper read has (its verdict stands: only relevant websites are read deeper);
     * the pages of the lost part, never counted, stay lost.
     */
    for (size_t i = 0; !e && i < n; i++) {
        if (items[i].outcome != ERR_NOTFOUND)
            continue;
        log_warn("database: %s had lost its examination (a database crash?); recorded again",
                 items[i].r->host);
        struct sitewrite_item again = {.r = items[i].r, .kind = SITEWRITE_DONE};
        e = sitewrite_batch(s, job, &again, 1);
        items[i].outcome = again.outcome;
        memcpy(items[i].why, again.why, sizeof again.why);
    }
    return e;
}

/* One write, its conflict as the error. */
static enum err write_one(struct store *s, int64_t job, const struct crawlstore_site_result *r,
                          enum sitewrite_kind kind)
{
    struct sitewrite_item it = {.r = r, .kind = kind};
    enum err e = sitewrite_batch(s, job, &it, 1);
    if (!e && it.outcome)
        e = err_set(it.outcome, "%s", it.why);
    return e;
}

enum err crawlstore_site_done(struct store *s, int64_t job, const struct crawlstore_site_result *r)
{
    return write_one(s, job, r, SITEWRITE_DONE);
}

enum err crawlstore_site_more(struct store *s, int64_t job, const struct crawlstore_site_result *r)
{
    return write_one(s, job, r, SITEWRITE_MORE);
}
