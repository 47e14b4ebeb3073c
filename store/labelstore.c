/* A user's labels on a job's websites (labelstore.h). */
#include "store/labelstore.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "store/crawlstore.h"
#include "store/judgestore.h"
#include "store/sitewrite.h"
#include "store/sqlarray.h"
#include "store/sqlnum.h"
#include "store/sqltime.h"
#include "store/store.h"

/*
 * The label $3 (NULL: taken back) on website $2 of job $1, an example website excepted.
 * o: the website before, with its verdict after (the label's, or, taken back, the one it
 * had before its label). A border website newly labelled goes to the head of the border.
 */
static const char set_sql[] =
    "WITH o AS (SELECT s.host, s.label AS old_label, s.relevant AS old_rel,"
    "  CASE WHEN $3::bool IS NOT NULL THEN $3::bool"
    "   WHEN s.label IS NOT NULL THEN s.unlabelled_relevant ELSE s.relevant END AS rel,"
    "  CASE WHEN $3::bool THEN 1.0 WHEN NOT $3::bool THEN 0.0"
    "   WHEN s.label IS NOT NULL THEN s.unlabelled_confidence ELSE s.confidence END AS conf"
    "  FROM sites s WHERE s.job_id = $1 AND s.host = $2 AND s.role IN ('start', 'discovered')"
    "  FOR UPDATE), "
    "u AS (UPDATE sites s SET"
    "  unlabelled_relevant = CASE WHEN $3::bool IS NULL THEN NULL"
    "   WHEN o.old_label IS NULL THEN s.relevant ELSE s.unlabelled_relevant END,"
    "  unlabelled_confidence = CASE WHEN $3::bool IS NULL THEN NULL"
    "   WHEN o.old_label IS NULL THEN s.confidence ELSE s.unlabelled_confidence END,"
    "  label = $3::bool,"
    "  labelled_at = CASE WHEN $3::bool IS NULL THEN NULL"
    "   WHEN o.old_label IS NOT DISTINCT FROM $3::bool THEN s.labelled_at ELSE now() END,"
    "  relevant = o.rel, confidence = o.conf,"
    "  found_pages = CASE WHEN o.rel AND NOT coalesce(o.old_rel, false)"
    "   THEN (SELECT pages_downloaded FROM jobs WHERE id = $1) ELSE s.found_pages END,"
    "  rank = CASE WHEN $3::bool IS NOT NULL AND o.old_label IS NULL AND s.state = 'border'"
    "   THEN (SELECT coalesce(max(b.rank), 0) + 1 FROM sites b"
    "    WHERE b.job_id = $1 AND b.state = 'border') ELSE s.rank END"
    "  FROM o WHERE s.job_id = $1 AND s.host = o.host"
    "  RETURNING s.state, s.relevant, o.old_label IS DISTINCT FROM $3::bool AS changed,"
    "  s.confidence) "
    "SELECT state, relevant, changed, confidence FROM u";

/* Why set_sql found no website: no job, no such website, or an example website. */
static enum err not_labelled(struct store *s, const char *const *p, int64_t job, const char *host)
{
    struct store_rows *r;
    enum err e = store_query(s,
                             "SELECT EXISTS (SELECT 1 FROM jobs WHERE id = $1),"
                             " (SELECT role FROM sites WHERE job_id = $1 AND host = $2)",
                             2, p, &r);
    if (e)
        return e;
    if (strcmp(store_rows_get(r, 0, 0), "t") != 0)
        e = err_set(ERR_NOTFOUND, "no job %lld", (long long)job);
    else if (!store_rows_get(r, 0, 1))
        e = err_set(ERR_NOTFOUND, "job %lld has no website %s", (long long)job, host);
    else
        e = err_set(ERR_INVAL,
                    "%s is one of job %lld's example websites (%s): its role in the job is"
                    " its label",
                    host, (long long)job, store_rows_get(r, 0, 1));
    store_rows_free(r);
    return e;
}

struct set_ctx {
    const char *p[3];
    int64_t job;
    struct labelstore_result *out;
};

static enum err set_tx(struct store *s, void *arg)
{
    struct set_ctx *c = arg;
    struct store_rows *r;
    /* The job's row first, as a running job's writes take it (JOB_LOCK): the label's
     * website row, then the job's counters, would deadlock with a batch of the crawl's
     * writes that holds the job's row and wants that website (a border website it links). */
    enum err e = store_exec(s, JOB_LOCK, 1, c->p);
    if (!e)
        e = store_query(s, set_sql, 3, c->p, &r);
    if (e)
        return e;
    if (store_rows_count(r) != 1) {
        store_rows_free(r);
        return not_labelled(s, c->p, c->job, c->p[1]);
    }
    snprintf(c->out->state, sizeof c->out->state, "%s", store_rows_get(r, 0, 0));
    c->out->relevant = !store_rows_get(r, 0, 1) ? -1 : strcmp(store_rows_get(r, 0, 1), "t") == 0;
    c->out->changed = strcmp(store_rows_get(r, 0, 2), "t") == 0;
    c->out->confidence = store_rows_double(r, 0, 3, NAN);
    store_rows_free(r);
    e = store_query(s, JUDGESTORE_SQL_RECOUNT, 1, c->p, &r);
    if (e)
        return e;
    c->out->relevant_found = store_rows_i64(r, 0, 0, 0);
    store_rows_free(r);
    if (!c->out->changed)
        return ERR_OK;
    return store_exec(s, "UPDATE jobs SET labels_changed_at = clock_timestamp() WHERE id = $1", 1,
                      c->p);
}

enum err labelstore_set(struct store *s, int64_t job, const char *host, int label,
                        struct labelstore_result *out)
{
    *out = (struct labelstore_result){.relevant = -1, .confidence = NAN};
    if (label != LABELSTORE_CLEAR && label != LABELSTORE_NOT && label != LABELSTORE_RELEVANT)
        return err_set(ERR_INVAL, "a label is relevant, not relevant, or none (%d)", label);
    char lower[256], j[24];
    size_t n = strlen(host);
    if (n == 0 || n >= sizeof lower)
        return err_set(ERR_INVAL, "a website is a host name of 1 to %zu bytes", sizeof lower - 1);
    for (size_t i = 0; i <= n; i++)
        lower[i] = (char)tolower((unsigned char)host[i]);
    struct set_ctx c = {{NUM(j, job), lower,
                         label == LABELSTORE_CLEAR ? NULL
                         : label                   ? "true"
                                                   : "false"},
                        job,
                        out};
    return store_tx(s, set_tx, &c);
}

enum err labelstore_list(struct store *s, int64_t job, struct store_rows **out)
{
    char j[24];
    const char *p[] = {NUM(j, job)};
    *out = NULL;
    enum err e = crawlstore_job_exists(s, job);
    if (e)
        return e;
    return store_query(s,
                       "SELECT host, label, to_char(labelled_at" SQL_TIME
                       ", state, confidence, homepage"
                       " FROM sites WHERE job_id = $1 AND label IS NOT NULL"
                       " ORDER BY labelled_at DESC, host",
                       1, p, out);
}

enum err labelstore_pending(struct store *s, int64_t job, int settle_ms, int *pending,
                            struct labelstore_mark *mark)
{
    *pending = 0;
    mark->changed_at[0] = '\0';
    char j[24], ms[24];
    const char *p[] = {NUM(j, job), NUM(ms, settle_ms)};
    struct store_rows *r;
    enum err e = store_query(s,
                             "SELECT labels_changed_at < clock_timestamp()"
                             "  - make_interval(secs => $2::int / 1000.0),"
                             " labels_changed_at::text FROM jobs WHERE id = $1"
                             " AND labels_changed_at IS DISTINCT FROM labels_judged_at",
                             2, p, &r);
    if (e)
        return e;
    if (store_rows_count(r) == 1 && strcmp(store_rows_get(r, 0, 0), "t") == 0) {
        *pending = 1;
        snprintf(mark->changed_at, sizeof mark->changed_at, "%s", store_rows_get(r, 0, 1));
    }
    store_rows_free(r);
    return ERR_OK;
}

enum err labelstore_judged(struct store *s, int64_t job, const struct labelstore_mark *mark)
{
    char j[24];
    const char *p[] = {NUM(j, job), mark->changed_at};
    return store_exec(s, "UPDATE jobs SET labels_judged_at = $2::timestamptz WHERE id = $1", 2, p);
}

enum err labelstore_due(struct store *s, int settle_ms, int64_t *ids, int cap, int *n)
{
    *n = 0;
    char ms[24], c[24];
    const char *p[] = {NUM(ms, settle_ms), NUM(c, cap)};
    struct store_rows *r;
    enum err e = store_query(s,
                             "SELECT id FROM jobs WHERE state IN ('done', 'paused', 'failed')"
                             " AND labels_changed_at IS DISTINCT FROM labels_judged_at"
                             " AND labels_changed_at < clock_timestamp()"
                             "  - make_interval(secs => $1::int / 1000.0)"
                             " ORDER BY labels_changed_at LIMIT $2::int",
                             2, p, &r);
    if (e)
        return e;
    for (int i = 0; i < store_rows_count(r) && i < cap; i++)
        ids[(*n)++] = store_rows_i64(r, i, 0, 0);
    store_rows_free(r);
    return ERR_OK;
}

struct seeds_ctx {
    const char *p[5];
    int64_t job;
    struct store_rows *rows;
};

static enum err seeds_tx(struct store *s, void *arg)
{
    struct seeds_ctx *c = arg;
    struct store_rows *r;
    /* The job's row locked first, as a running job's writes take it (JOB_LOCK): the
     * start websites' rows, then the job's body, would deadlock with a batch. */
    enum err e = store_query(s,
                             "SELECT state IN ('queued', 'training', 'crawling', 'stopping',"
                             " 'paused'), state FROM jobs WHERE id = $1 FOR NO KEY UPDATE",
                             1, c->p, &r);
    if (e)
        return e;
    if (store_rows_count(r) != 1)
        e = err_set(ERR_NOTFOUND, "no job %lld", (long long)c->job);
    else if (strcmp(store_rows_get(r, 0, 0), "t") != 0)
        e = err_set(ERR_CONFLICT, "job %lld is %s: seeds are for a job that has not ended",
                    (long long)c->job, store_rows_get(r, 0, 1));
    store_rows_free(r);
    if (!e)
        e = store_exec(s,
                       "INSERT INTO sites (job_id, host, homepage, role, state, rank)"
                       " SELECT $1, t.h, t.hp, 'start', 'border', $4::float8"
                       " FROM unnest($2::text[], $3::text[]) AS t(h, hp)"
                       " ON CONFLICT (job_id, host) DO UPDATE SET role = 'start',"
                       " rank = greatest(sites.rank, EXCLUDED.rank)"
                       " WHERE sites.state = 'border' AND sites.role = 'discovered'",
                       4, c->p);
    const char *body[] = {c->p[0], c->p[4]};
    if (!e)
        e = store_exec(s,
                       "UPDATE jobs SET body = jsonb_set(body, '{start_sites}',"
                       " coalesce(body->'start_sites', '[]'::jsonb) || $2::jsonb),"
                       " updated_at = now() WHERE id = $1",
                       2, body);
    if (!e)
        e = store_query(s,
                        "SELECT host, role, state FROM sites WHERE job_id = $1"
                        " AND host = ANY ($2::text[]) ORDER BY host",
                        2, c->p, &c->rows);
    return e;
}

enum err labelstore_add_start_sites(struct store *s, int64_t job, char *const *hosts,
                                    char *const *homepages, size_t n, double rank,
                                    const char *new_start_json, struct store_rows **out)
{
    *out = NULL;
    struct buf a[2];
    char j[24], rk[40];
    enum err e = sqlarray_init(a, 2);
    for (size_t i = 0; !e && i < n; i++) {
        e = sqlarray_text(&a[0], hosts[i]);
        if (!e)
            e = sqlarray_text(&a[1], homepages[i]);
    }
    if (!e)
        e = sqlarray_close(a, 2);
    struct seeds_ctx c = {
        {NUM(j, job), buf_str(&a[0]), buf_str(&a[1]), DBL(rk, rank), new_start_json}, job, NULL};
    if (!e)
        e = store_tx(s, seeds_tx, &c);
    sqlarray_release(a, 2);
    if (e) {
        store_rows_free(c.rows);
        return e;
    }
    *out = c.rows;
    return ERR_OK;
}

enum err labelstore_links(struct store *s, int64_t job, const char *host, char *mode, size_t cap,
                          struct store_rows **out)
{
    *out = NULL;
    char j[24];
    const char *p[] = {NUM(j, job), host};
    struct store_rows *r;
    enum err e = store_query(s, "SELECT params->>'edge_weights' FROM jobs WHERE id = $1", 1, p, &r);
    if (e)
        return e;
    if (store_rows_count(r) != 1 || !store_rows_get(r, 0, 0))
        e = err_set(ERR_NOTFOUND, "no job %lld", (long long)job);
    else
        snprintf(mode, cap, "%s", store_rows_get(r, 0, 0));
    store_rows_free(r);
    if (!e)
        e = store_query(s,
                        "SELECT dst_host, conf_sum, page_count FROM edges"
                        " WHERE job_id = $1 AND src_host = $2 ORDER BY dst_host",
                        2, p, out);
    return e;
}

enum err labelstore_reweigh(struct store *s, int64_t job, const char *host, char *const *dsts,
                            const double *weights, size_t n)
{
    struct buf a[2];
    char j[24];
    enum err e = sqlarray_init(a, 2);
    for (size_t i = 0; !e && i < n; i++) {
        e = sqlarray_text(&a[0], dsts[i]);
        if (!e)
            e = sqlarray_double(&a[1], weights[i]);
    }
    if (!e)
        e = sqlarray_close(a, 2);
    const char *p[] = {NUM(j, job), host, buf_str(&a[0]), buf_str(&a[1])};
    if (!e && n)
        e = store_exec(s,
                       "WITH it AS (SELECT * FROM unnest($3::text[], $4::float8[]) AS t(d, w)), "
                       "old AS (SELECT e.dst_host, coalesce(e.weight, 0) AS w FROM edges e JOIN it"
                       "  ON e.dst_host = it.d WHERE e.job_id = $1 AND e.src_host = $2), "
                       "upd AS (UPDATE edges e SET weight = it.w FROM it WHERE e.job_id = $1"
                       "  AND e.src_host = $2 AND e.dst_host = it.d RETURNING e.dst_host, it.w) "
                       "UPDATE sites s SET weight_sum = s.weight_sum + upd.w - old.w,"
                       " rank = CASE WHEN s.role = 'start' OR s.label IS NOT NULL"
                       "  OR s.state NOT IN ('border', 'claimed') THEN s.rank"
                       "  ELSE (s.weight_sum + upd.w - old.w) / greatest(s.in_sites, 1) END"
                       " FROM upd JOIN old USING (dst_host)"
                       " WHERE s.job_id = $1 AND s.host = upd.dst_host",
                       4, p);
    sqlarray_release(a, 2);
    return e;
}
