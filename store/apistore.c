/* The HTTP API's queries: JSON texts straight from PostgreSQL. */
#include "store/apistore.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/runner.h"
#include "store/judgestore.h"
#include "store/models.h"
#include "store/sqlnum.h"
#include "store/sqltime.h"
#include "store/store.h"

/* The first cell of a one-row result as a malloc'd string; ERR_NOTFOUND for no row. */
static enum err one_text(struct store *s, const char *sql, int n, const char *const *p,
                         const char *what, char **out)
{
    *out = NULL;
    struct store_rows *r;
    enum err e = store_query(s, sql, n, p, &r);
    if (e)
        return e;
    if (store_rows_count(r) < 1 || !store_rows_get(r, 0, 0)) {
        store_rows_free(r);
        return err_set(ERR_NOTFOUND, "%s", what);
    }
    *out = strdup(store_rows_get(r, 0, 0));
    store_rows_free(r);
    return *out ? ERR_OK : err_set(ERR_NOMEM, "out of memory");
}

/*
 * The size of job JOB's border, counted up to BORDER_CAP websites (a count of a million
 * took a second): BORDER_COUNT is the count, at most BORDER_CAP; BORDER_CAPPED whether
 * there are more. Both read the claim's index (job_id, rank DESC, ...) WHERE border.
 */
#define BORDER_CAP "10000"
#define BORDER_COUNT(JOB)                                                                          \
    "(SELECT count(*) FROM (SELECT 1 FROM sites b WHERE b.job_id = " JOB                           \
    " AND b.state = 'border' ORDER BY b.rank DESC LIMIT " BORDER_CAP ") b)"
#define BORDER_CAPPED(JOB)                                                                         \
    "EXISTS (SELECT 1 FROM sites b WHERE b.job_id = " JOB " AND b.state = 'border'"                \
    " ORDER BY b.rank DESC OFFSET " BORDER_CAP ")"

/*
 * Who runs a training or crawling job, and whether it still does: a runner that died
 * where it could not say so (kill -9, a database that stayed away or a full disk that
 * refused the note) leaves the job's state as it was; its lease ($2 seconds without a
 * heartbeat) says the truth. NULL for a job in another state.
 */
#define JOB_RUNNER                                                                                 \
    " 'runner', CASE WHEN j.state IN ('training', 'crawling') THEN json_build_object("             \
    "   'worker', j.worker, 'heartbeat_at', to_char(j.heartbeat_at" SQL_TIME ","                   \
    "   'alive', j.worker IS NOT NULL AND j.heartbeat_at IS NOT NULL"                              \
    "     AND j.heartbeat_at >= now() - make_interval(secs => $2::int)) END,"

/* The figures of the crawl model cm (a models row of kind MODELS_CRAWL), as JSON members. */
#define CRAWL_MODEL_FIGURES                                                                        \
    "'pages', cm.cv->'pages', 'terms', cm.cv->'terms', 'target_prior', cm.cv->'target_prior',"     \
    " 'threshold', cm.cv->'threshold', 'spies', cm.cv->'spies', 'fits', cm.cv->'fits',"            \
    " 'created_at', to_char(cm.created_at" SQL_TIME
/*
 * Who gives the job's verdicts (issue 30): its `judge` parameter (a job made before
 * there was one was judged by its examination), how many times a crawl model judged it
 * again, and the last of those models.
 */
#define JOB_JUDGE                                                                                  \
    " 'judge', json_build_object('mode', coalesce(j.params->>'judge', 'examination'),"             \
    "   'models', (SELECT count(*) FROM models cm WHERE cm.job_id = j.id"                          \
    "     AND cm.kind = '" MODELS_CRAWL "'),"                                                      \
    "   'last', (SELECT json_build_object('model_id', cm.id, " CRAWL_MODEL_FIGURES ")"             \
    "     FROM models cm WHERE cm.job_id = j.id AND cm.kind = '" MODELS_CRAWL "'"                  \
    "     ORDER BY cm.created_at DESC, cm.id DESC LIMIT 1),"                                       \
    "   'labels_pending', j.labels_changed_at IS DISTINCT FROM j.labels_judged_at),"

/*
 * What only the one-job answer carries (it is cached; the list is not): the border's
 * size, the crawl's fetches by outcome, and pages per second over the whole crawl and
 * over the last 10 s of its metrics.
 */
#define JOB_DETAIL                                                                                 \
    JOB_RUNNER JOB_JUDGE " 'border_sites', " BORDER_COUNT(                                         \
        "j.id") ","                                                                                \
                " 'border_sites_capped', " BORDER_CAPPED(                                          \
                    "j.id") ","                                                                    \
                            " 'fetches', coalesce((SELECT json_object_agg(f.kind, f.n ORDER BY "   \
                            "f.kind) FROM job_fetches f WHERE f.job_id = j.id), '{}'::json),"      \
                            " 'pages_per_second', (SELECT json_build_object("                      \
                            "   'overall', CASE WHEN m.elapsed_s > 0 THEN m.pages / m.elapsed_s "  \
                            "END,"                                                                 \
                            "   'recent', (SELECT CASE WHEN m.elapsed_s > q.elapsed_s"             \
                            "     THEN (m.pages - q.pages) / (m.elapsed_s - q.elapsed_s) END "     \
                            "FROM metrics q"                                                       \
                            "     WHERE q.job_id = j.id AND q.elapsed_s <= m.elapsed_s - 10 "      \
                            "ORDER BY q.ts DESC LIMIT 1))"                                         \
                            "   FROM metrics m WHERE m.job_id = j.id ORDER BY m.ts DESC LIMIT 1),"

/* One job as a JSON object (j is the jobs row); EXTRA: more members, each ending in ','. */
#define JOB_JSON_WITH(EXTRA)                                                                       \
    "json_build_object('id', j.id, 'topic', j.topic, 'state', j.state,"                            \
    " 'phase', CASE WHEN j.state IN ('training', 'crawling') THEN j.state END,"                    \
    " 'training', CASE WHEN j.state = 'training' THEN (SELECT json_build_object("                  \
    "   'sites_read', t.n, 'sites', t.sites, 'pages', t.pages,"                                    \
    "   'step', CASE WHEN t.n < t.sites THEN 'reading' ELSE 'cross-validating' END) FROM ("        \
    "   SELECT count(*) AS n, coalesce(sum((r.record->>'fetches')::bigint), 0) AS pages,"          \
    "     jsonb_array_length(j.body->'relevant_sites')"                                            \
    "       + jsonb_array_length(j.body->'other_sites') AS sites"                                  \
    "   FROM train_sites r WHERE r.job_id = j.id) t) END,"                                         \
    " 'stop_requested', j.stop_requested, 'stop_reason', j.stop_reason, 'error', j.error,"         \
    " 'warnings', j.warnings,"                                                                     \
    " 'params', j.params,"                                                                         \
    " 'counters', json_build_object('pages_downloaded', j.pages_downloaded,"                       \
    "   'sites_examined', j.sites_examined, 'relevant_found', j.relevant_found,"                   \
    "   'requests', j.requests),"                                                                  \
    " 'harvest_rate', CASE WHEN j.sites_examined > 0"                                              \
    "   THEN j.relevant_found::float8 / j.sites_examined END,"                                     \
    " 'pprs', CASE WHEN j.relevant_found > 0"                                                      \
    "   THEN j.pages_downloaded::float8 / j.relevant_found END,"                                   \
    " 'progress', json_build_object("                                                              \
    "   'max_pages', CASE WHEN (j.params->>'max_pages')::float8 > 0"                               \
    "     THEN least(1, j.pages_downloaded / (j.params->>'max_pages')::float8) END,"               \
    "   'max_relevant_sites', CASE WHEN (j.params->>'max_relevant_sites')::float8 > 0"             \
    "     THEN least(1, j.relevant_found / (j.params->>'max_relevant_sites')::float8) END,"        \
    "   'max_seconds', CASE WHEN (j.params->>'max_seconds')::float8 > 0"                           \
    "     THEN least(1, extract(epoch FROM coalesce(j.finished_at, now()) - j.started_at)"         \
    "       / (j.params->>'max_seconds')::float8) END)," EXTRA                                     \
    " 'created_at', to_char(j.created_at" SQL_TIME ","                                             \
    " 'started_at', to_char(j.started_at" SQL_TIME ","                                             \
    " 'finished_at', to_char(j.finished_at" SQL_TIME ","                                           \
    " 'updated_at', to_char(j.updated_at" SQL_TIME ")"
#define JOB_JSON JOB_JSON_WITH("")

enum err apistore_jobs(struct store *s, const char *state, int64_t limit, int64_t offset,
                       char **json)
{
    char l[32], o[32];
    const char *p[] = {NUM(l, limit), NUM(o, offset), state};
    return one_text(
        s,
        "SELECT json_build_object('jobs', coalesce((SELECT json_agg(x.j ORDER BY x.id DESC)"
        " FROM (SELECT j.id, " JOB_JSON " AS j FROM jobs j"
        " WHERE $3::text IS NULL OR j.state = $3 ORDER BY j.id DESC"
        " LIMIT $1 OFFSET $2) x), '[]'::json),"
        " 'total', (SELECT count(*) FROM jobs WHERE $3::text IS NULL OR state = $3),"
        " 'limit', $1::bigint, 'offset', $2::bigint)::text",
        3, p, "no jobs", json);
}

enum err apistore_job(struct store *s, int64_t id, char **json)
{
    char ids[32], secs[32];
    const char *p[] = {NUM(ids, id), NUM(secs, runner_lease_seconds())};
    char what[64];
    snprintf(what, sizeof what, "no job %" PRId64, id);
    return one_text(s, "SELECT " JOB_JSON_WITH(JOB_DETAIL) "::text FROM jobs j WHERE j.id = $1", 2,
                    p, what, json);
}

static enum err job_exists(struct store *s, int64_t job)
{
    char *t;
    char ids[32];
    const char *p[] = {NUM(ids, job)};
    char what[64];
    snprintf(what, sizeof what, "no job %" PRId64, job);
    enum err e = one_text(s, "SELECT state FROM jobs WHERE id = $1", 1, p, what, &t);
    free(t);
    return e;
}

/*
 * A website's "judged" member: who gave its verdict, the page classifier as it read
 * (examination: no model_id) or a crawl model, which one (its figures) and when; null for
 * a website with no verdict of the crawl's (a training example, one not examined).
 */
#define SITE_JUDGED                                                                                \
    " 'judged', CASE WHEN s.state = 'examined' AND s.role NOT IN ('train', 'train_other')"         \
    "   THEN json_build_object("                                                                   \
    "   'by', " JUDGESTORE_SQL_BY ", 'model_id', s.model_id,"                                      \
    "   'at', to_char(" JUDGESTORE_SQL_AT SQL_TIME ","                                             \
    "   'model', (SELECT json_build_object(" CRAWL_MODEL_FIGURES ")"                               \
    "     FROM models cm WHERE cm.id = s.model_id),"                                               \
    "   'links', CASE WHEN s.link_evidence IS NOT NULL AND s.label IS NULL"                        \
    "     THEN json_build_object('evidence', s.link_evidence, 'count', s.link_count,"              \
    "     'relevant', s.link_relevant) END,"                                                       \
    "   'like_rejected', CASE WHEN s.label IS NULL THEN s.like_rejected END) END,"

/* The sites a list shows: $1 job, $2 relevant or not (NULL: both), $5 role (NULL: both). */
#define SITES_WHERE                                                                                \
    "s.job_id = $1 AND s.state = 'examined' AND s.role NOT LIKE 'train%'"                          \
    " AND ($2::boolean IS NULL OR s.relevant = $2::boolean) AND ($5::text IS NULL OR s.role = $5)"

#define SITES_SQL(ORDER)                                                                           \
    "SELECT json_build_object('sites', coalesce((SELECT json_agg(json_build_object("               \
    "  'host', x.host, 'homepage', x.homepage, 'confidence', x.confidence,"                        \
    "  'relevant', x.relevant, 'pages_visited', x.pages_visited, 'role', x.role,"                  \
    "  'rank', x.rank, 'found_at', to_char(x.examined_at" SQL_TIME ","                             \
    "  'judged_by', x.judged_by) ORDER BY x.n) FROM ("                                             \
    "  SELECT s.*, " JUDGESTORE_SQL_BY " AS judged_by,"                                            \
    "  row_number() OVER (ORDER BY " ORDER ") AS n FROM sites s"                                   \
    "  WHERE " SITES_WHERE " ORDER BY " ORDER " LIMIT $3 OFFSET $4) x), '[]'::json),"              \
    " 'total', (SELECT count(*) FROM sites s WHERE " SITES_WHERE "),"                              \
    " 'limit', $3::bigint, 'offset', $4::bigint)::text"

enum err apistore_sites(struct store *s, int64_t job, int relevant, const char *role,
                        enum apistore_order order, int64_t limit, int64_t offset, char **json)
{
    *json = NULL;
    enum err e = job_exists(s, job);
    if (e)
        return e;
    /* One fixed statement per order: nothing from the request is spliced into SQL. */
    static const char *const sql[] = {
        SITES_SQL("s.confidence DESC NULLS LAST, s.examined_at, s.host"),
        SITES_SQL("s.rank DESC, s.confidence DESC NULLS LAST, s.host"),
        SITES_SQL("s.examined_at, s.host"),
        SITES_SQL("abs(s.confidence - 0.5) NULLS LAST, s.examined_at, s.host"),
    };
    char ids[32], l[32], o[32];
    const char *p[] = {NUM(ids, job),
                       relevant < 0 ? NULL
                       : relevant   ? "true"
                                    : "false",
                       NUM(l, limit), NUM(o, offset), role};
    return one_text(s, sql[order], 5, p, "no sites", json);
}

/* One JSON text about site host of job: sql takes $1 job, $2 host. ERR_NOTFOUND. */
static enum err site_text(struct store *s, int64_t job, const char *host, const char *sql,
                          char **json)
{
    *json = NULL;
    enum err e = job_exists(s, job);
    if (e)
        return e;
    char ids[32];
    const char *p[] = {NUM(ids, job), host};
    char what[320];
    snprintf(what, sizeof what, "job %" PRId64 " has no site %s", job, host);
    return one_text(s, sql, 2, p, what, json);
}

enum err apistore_site(struct store *s, int64_t job, const char *host, char **json)
{
    return site_text(
        s, job, host,
        "SELECT json_build_object('host', s.host, 'homepage', s.homepage, 'role', s.role,"
        " 'state', s.state, 'confidence', s.confidence, 'relevant', s.relevant,"
        " 'pages_visited', s.pages_visited, 'pages_to_classify', s.pages_to_class,"
        " 'rank', s.rank, 'found_at', to_char(s.examined_at" SQL_TIME
        ", 'error', s.error," SITE_JUDGED
        " 'pages', coalesce((SELECT json_agg(json_build_object('url', g.url, 'status', g.status,"
        "   'error', g.error, 'bytes', g.bytes, 'confidence', g.pr_target,"
        "   'purpose', g.purpose, 'fetched_at', to_char(g.fetched_at" SQL_TIME ") ORDER BY g.id)"
        "   FROM pages g WHERE g.job_id = s.job_id AND g.host = s.host), '[]'::json),"
        " 'edges_out', coalesce((SELECT json_agg(json_build_object('host', e.dst_host,"
        "   'conf_sum', e.conf_sum, 'page_count', e.page_count) ORDER BY e.dst_host)"
        "   FROM edges e WHERE e.job_id = s.job_id AND e.src_host = s.host), '[]'::json),"
        " 'edges_in', coalesce((SELECT json_agg(json_build_object('host', e.src_host,"
        "   'conf_sum', e.conf_sum, 'page_count', e.page_count) ORDER BY e.src_host)"
        "   FROM edges e WHERE e.job_id = s.job_id AND e.dst_host = s.host), '[]'::json)"
        ")::text FROM sites s WHERE s.job_id = $1 AND s.host = $2",
        json);
}

enum err apistore_site_pages(struct store *s, int64_t job, const char *host, char **json)
{
    /* pages.id is the order read: a site's pages go in with one INSERT, in order. */
    return site_text(
        s, job, host,
        "SELECT json_build_object('host', s.host, 'homepage', s.homepage, 'role', s.role,"
        " 'state', s.state, 'confidence', s.confidence, 'relevant', s.relevant,"
        " 'prior', s.prior, 'pages_visited', s.pages_visited,"
        " 'examined_relevant', CASE WHEN s.state = 'examined' AND s.role NOT LIKE 'train%'"
        "   THEN coalesce(s.examined_relevant, CASE WHEN s.label IS NULL THEN s.relevant"
        "   ELSE s.unlabelled_relevant END) END,"
        " 'p_threshold', (j.params->>'p_threshold')::float8,"
        " 'edge_weights', j.params->>'edge_weights',"
        " 'p_err', (SELECT m.p_err FROM models m WHERE m.job_id = j.id AND m.kind = 'pages'"
        "   ORDER BY m.created_at DESC LIMIT 1),"
        " 'stop', json_build_object('reason', coalesce(s.read_stop,"
        "   CASE WHEN s.state = 'failed' THEN 'unread' END),"
        "   'verdict_by', s.verdict_by, 'pages_to_decide', s.pages_to_class,"
        "   'error', s.error)," SITE_JUDGED
        " 'pages', coalesce((SELECT json_agg(json_build_object('n', g.n, 'url', g.url,"
        "   'status', g.status, 'error', g.error, 'confidence', g.pr_target,"
        "   'posterior', g.posterior, 'purpose', g.purpose) ORDER BY g.n)"
        "   FROM (SELECT g.*, row_number() OVER (ORDER BY g.id) AS n FROM pages g"
        "   WHERE g.job_id = s.job_id AND g.host = s.host) g), '[]'::json),"
        " 'edges_in', coalesce((SELECT json_agg(json_build_object('host', e.src_host,"
        "   'conf_sum', e.conf_sum, 'page_count', e.page_count, 'weight', e.weight,"
        "   'source_confidence', v.confidence) ORDER BY e.weight DESC NULLS LAST, e.src_host)"
        "   FROM edges e LEFT JOIN sites v ON v.job_id = e.job_id AND v.host = e.src_host"
        "   WHERE e.job_id = s.job_id AND e.dst_host = s.host), '[]'::json),"
        /* A training website has no reading to explain: it is one of the job's examples,
         * labelled by the list it came from; its pages trained the page classifier. */
        " 'training', CASE WHEN s.role IN ('train', 'train_other') THEN json_build_object("
        "   'label', CASE s.role WHEN 'train' THEN 'relevant' ELSE 'other' END,"
        "   'from', CASE s.role WHEN 'train' THEN 'relevant_sites' ELSE 'other_sites' END,"
        "   'pages_classified', (SELECT count(g.pr_target) FROM pages g"
        "     WHERE g.job_id = s.job_id AND g.host = s.host),"
        "   'mean_page_confidence', (SELECT avg(g.pr_target) FROM pages g"
        "     WHERE g.job_id = s.job_id AND g.host = s.host)) END"
        ")::text FROM sites s JOIN jobs j ON j.id = s.job_id WHERE s.job_id = $1 AND s.host = $2",
        json);
}

enum err apistore_border(struct store *s, int64_t job, int64_t limit, char **json)
{
    *json = NULL;
    enum err e = job_exists(s, job);
    if (e)
        return e;
    char ids[32], l[32];
    const char *p[] = {NUM(ids, job), NUM(l, limit)};
    /* The claim's order (store/crawlstore.c, crawlstore_claim). */
    return one_text(
        s,
        "SELECT json_build_object('border', coalesce((SELECT json_agg(json_build_object("
        "  'host', x.host, 'homepage', x.homepage, 'rank', x.rank, 'in_sites', x.in_sites,"
        "  'role', x.role, 'discovered_at', to_char(x.discovered_at" SQL_TIME
        ") ORDER BY x.n) FROM ("
        "  SELECT s.*, row_number() OVER (ORDER BY s.rank DESC, s.discovered_at, s.host) AS n"
        "  FROM sites s WHERE s.job_id = $1 AND s.state = 'border'"
        "  ORDER BY s.rank DESC, s.discovered_at, s.host LIMIT $2) x), '[]'::json),"
        " 'total', " BORDER_COUNT("$1") ", 'total_capped', " BORDER_CAPPED(
            "$1") ","
                  " 'limit', $2::bigint)::text",
        2, p, "no border", json);
}

enum err apistore_metrics(struct store *s, int64_t job, double since, char **json)
{
    *json = NULL;
    enum err e = job_exists(s, job);
    if (e)
        return e;
    char ids[32], sn[64];
    snprintf(sn, sizeof sn, "%.17g", since);
    const char *p[] = {NUM(ids, job), sn};
    return one_text(s,
                    "SELECT json_build_object('metrics', coalesce((SELECT json_agg("
                    " json_build_object('ts', to_char(m.ts" SQL_TIME ", 'elapsed_s', m.elapsed_s,"
                    " 'pages', m.pages,"
                    " 'sites_examined', m.sites_examined, 'relevant_found', m.relevant_found,"
                    " 'harvest_rate', m.harvest_rate, 'harvest_rate_window', m.harvest_rate_window,"
                    " 'pprs', m.pprs, 'pprs_window', m.pprs_window) ORDER BY m.id)"
                    " FROM metrics m WHERE m.job_id = $1 AND m.elapsed_s > $2::float8),"
                    " '[]'::json))::text",
                    2, p, "no metrics", json);
}

/* Run a statement that returns rows when it did something; *hit = row count. */
static enum err exec_count(struct store *s, const char *sql, int n, const char *const *p, int *hit)
{
    struct store_rows *r;
    enum err e = store_query(s, sql, n, p, &r);
    if (e)
        return e;
    *hit = store_rows_count(r);
    store_rows_free(r);
    return ERR_OK;
}

/*
 * Change job `job` with sql ($1 = the id), which returns a row only when the job's
 * state allows the change: ERR_NOTFOUND for no such job, ERR_CONFLICT ("job N " +
 * why) when the state does not allow it.
 */
static enum err job_transition(struct store *s, int64_t job, const char *sql, const char *why)
{
    enum err e = job_exists(s, job);
    if (e)
        return e;
    char ids[32];
    const char *p[] = {NUM(ids, job)};
    int hit;
    e = exec_count(s, sql, 1, p, &hit);
    if (!e && !hit)
        e = err_set(ERR_CONFLICT, "job %" PRId64 " %s", job, why);
    return e;
}

/*
 * The job's row is locked first: a crawl's batch of writes of the job (which locks that
 * row first, store/sitewrite.c) either committed before, and its rows are deleted by the
 * statement after (a new snapshot), or waits and then finds the job gone. sites, pages
 * and edges have no foreign key to jobs (migration 013): their rows go here.
 */
static enum err job_delete_tx(struct store *s, void *ctx)
{
    const char *const *p = ctx;
    int hit;
    enum err e = exec_count(s,
                            "SELECT 1 FROM jobs WHERE id = $1"
                            " AND state IN ('done', 'failed', 'paused') FOR UPDATE",
                            1, p, &hit);
    if (!e && !hit)
        e = err_set(ERR_CONFLICT, "job %s is queued or running: stop it first", p[0]);
    if (!e)
        e = store_exec(s,
                       "WITH pg AS (DELETE FROM pages WHERE job_id = $1),"
                       " ed AS (DELETE FROM edges WHERE job_id = $1),"
                       " st AS (DELETE FROM sites WHERE job_id = $1)"
                       " DELETE FROM jobs WHERE id = $1",
                       1, p);
    return e;
}

enum err apistore_job_delete(struct store *s, int64_t job)
{
    enum err e = job_exists(s, job);
    if (e)
        return e;
    char ids[32];
    const char *p[] = {NUM(ids, job)};
    return store_tx(s, job_delete_tx, (void *)p);
}

enum err apistore_job_end(struct store *s, int64_t job, int *ended)
{
    char ids[32];
    const char *p[] = {NUM(ids, job)};
    return exec_count(s,
                      "UPDATE jobs SET state = 'done', stop_reason = 'user_stop',"
                      " stop_requested = NULL, finished_at = now(), updated_at = now()"
                      " WHERE id = $1 AND state IN ('queued', 'paused') RETURNING id",
                      1, p, ended);
}

enum err apistore_job_resume(struct store *s, int64_t job)
{
    return job_transition(
        s, job,
        /* A job paused during training has no model yet: it trains again. */
        "UPDATE jobs SET state = CASE WHEN EXISTS (SELECT 1 FROM models m WHERE m.job_id = $1)"
        " THEN 'crawling' ELSE 'queued' END, worker = NULL, stop_requested = NULL,"
        " updated_at = now() WHERE id = $1 AND state = 'paused' RETURNING id",
        "is not paused");
}

static enum err prom_family(struct buf *out, const char *name, const char *help)
{
    return buf_appendf(out, "# HELP %s %s\n# TYPE %s counter\n", name, help, name);
}

enum err apistore_prometheus(struct store *s, struct buf *out)
{
    struct store_rows *jobs = NULL, *fetch = NULL, *train = NULL;
    /* Jobs that run, wait, or ended within the hour: an ended job's series then go
     * stale, as Prometheus expects of a target's series that end. */
#define PROM_JOBS                                                                                  \
    "SELECT id FROM jobs WHERE state NOT IN ('done', 'failed')"                                    \
    " OR finished_at > now() - interval '1 hour'"
    enum err e = store_query(s,
                             "SELECT id, pages_downloaded, sites_examined, relevant_found, state"
                             " FROM jobs WHERE id IN (" PROM_JOBS ") ORDER BY id",
                             0, NULL, &jobs);
    if (!e)
        e = store_query(s,
                        "SELECT job_id, kind, n FROM job_fetches"
                        " WHERE job_id IN (" PROM_JOBS ") ORDER BY 1, 2",
                        0, NULL, &fetch);
    if (!e)
        e = store_query(
            s,
            "SELECT j.id, count(r.idx), coalesce(sum((r.record->>'fetches')::bigint), 0)"
            " FROM jobs j LEFT JOIN train_sites r ON r.job_id = j.id"
            " WHERE j.state = 'training' GROUP BY j.id ORDER BY j.id",
            0, NULL, &train);
#undef PROM_JOBS
    static const char *const fam[][2] = {
        {"sitescout_pages_fetched_total", "Pages downloaded by a job's crawl."},
        {"sitescout_sites_examined_total", "Websites a job's crawl examined."},
        {"sitescout_relevant_found_total", "Relevant websites a job found."},
    };
    for (int f = 0; f < 3 && !e; f++) {
        e = prom_family(out, fam[f][0], fam[f][1]);
        for (int i = 0; !e && i < store_rows_count(jobs); i++)
            e = buf_appendf(out, "%s{job_id=\"%s\"} %s\n", fam[f][0], store_rows_get(jobs, i, 0),
                            store_rows_get(jobs, i, 1 + f));
    }
    if (!e)
        e = buf_appendf(out, "# HELP sitescout_job_running Whether a job is training or crawling.\n"
                             "# TYPE sitescout_job_running gauge\n");
    for (int i = 0; !e && i < store_rows_count(jobs); i++) {
        const char *st = store_rows_get(jobs, i, 4);
        e = buf_appendf(out, "sitescout_job_running{job_id=\"%s\"} %d\n",
                        store_rows_get(jobs, i, 0),
                        strcmp(st, "training") == 0 || strcmp(st, "crawling") == 0);
    }
    if (!e)
        e = prom_family(out, "sitescout_fetches_total",
                        "Crawl fetches of a job by outcome (ok, or the kind of error).");
    for (int i = 0; !e && i < store_rows_count(fetch); i++)
        e = buf_appendf(out, "sitescout_fetches_total{job_id=\"%s\",kind=\"%s\"} %s\n",
                        store_rows_get(fetch, i, 0), store_rows_get(fetch, i, 1),
                        store_rows_get(fetch, i, 2));
    static const char *const train_fam[][2] = {
        {"sitescout_training_sites_read", "Training websites a training job has read so far."},
        {"sitescout_training_pages_fetched", "Pages fetched for those training websites."},
    };
    for (int f = 0; f < 2 && !e; f++) {
        e = buf_appendf(out, "# HELP %s %s\n# TYPE %s gauge\n", train_fam[f][0], train_fam[f][1],
                        train_fam[f][0]);
        for (int i = 0; !e && i < store_rows_count(train); i++)
            e = buf_appendf(out, "%s{job_id=\"%s\"} %s\n", train_fam[f][0],
                            store_rows_get(train, i, 0), store_rows_get(train, i, 1 + f));
    }
    store_rows_free(jobs);
    store_rows_free(fetch);
    store_rows_free(train);
    return e;
}
