/*
 * The website crawler's writes of examined websites: their rows, pages, edges, the
 * border's upserts and the job's counters (pages, websites, fetches by outcome) as
 * data-modifying CTEs of one statement per kind of write, for all the websites of a
 * batch that touch no row of each other's. A batch goes to the database in one round
 * trip and one transaction (store_pipeline), after a statement that locks the job's row
 * (BENCHMARKS.md, "Scale-out (#15)").
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

/* Append page pg to the seven page arrays a (url, status, HTTP status, bytes, pr_target,
 * posterior, terms). */
static enum err page_append(struct buf *a, const struct crawlstore_page *pg)
{
    enum err e = sqlarray_text(&a[0], pg->url);
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
    return e ? e : sqlarray_text(&a[6], pg->terms);
}

enum err sitewrite_page_arrays(struct buf a[SITEWRITE_PAGE_ARRAYS],
                               const struct crawlstore_site_result *r)
{
    enum err e = sqlarray_init(a, SITEWRITE_PAGE_ARRAYS);
    for (size_t i = 0; !e && i < r->n_pages; i++)
        e = page_append(a, &r->pages[i]);
    return e ? e : sqlarray_close(a, SITEWRITE_PAGE_ARRAYS);
}

/*
 * One statement writes the websites of one kind in a group (see groups_of): examined
 * (DONE), read deeper (MORE), or released (FAILED, ABANDON). The websites are arrays,
 * their pages and edges flattened arrays whose first array says whose they are (the
 * website's place in the statement's arrays, from 1):
 * $1 job; $2..$8 pages (website, url, status, HTTP status, bytes, pr_target, posterior);
 * $9..$14 edges (website, destination, its homepage, conf_sum, page_count, weight); the
 * websites' own arrays from $15; the pages' terms last (TERMS: $28 or $21).
 * The statement's first CTE, `site`, updates the websites that are to be written and
 * returns them (i, host, role, conf, purpose); it finds their rows by `host = ANY
 * (hosts)`, index lookups whatever plan the statement keeps (a plan made while the job
 * had few rows may otherwise join all of the job's sites by hash). The writes below are
 * those websites' only:
 * - the pages, in the order read (pages.id keeps the arrays' order);
 * - the job's fetches by outcome (job_fetches), its crawl pages counted;
 * - the edges, each once;
 * - the border: every destination joins it (if new), and its rank becomes the average
 *   weight of the examined sites linking to it (a start site keeps its rank, and an
 *   examined or failed site the rank it had then: an update that changes no indexed
 *   column can be HOT, with no new index entries). The links of all the statement's
 *   websites to one destination make one upsert, and the rows are locked in one order
 *   (ORDER BY d).
 */
#define PAGE_ARRAYS (1 + SITEWRITE_PAGE_ARRAYS) /* the website, then a page's */
#define DONE_TERMS  "$28"                       /* the pages' terms: the last parameter */
#define MORE_TERMS  "$21"
#define EDGE_ARRAYS 6
#define RUNS        "SELECT 1 FROM jobs WHERE id = $1 AND " JOB_RUNS
#define SITE_PAGES(TERMS)                                                                          \
    "unnest($2::int[], $3::text[], $4::text[], $5::int[], $6::int[], $7::float8[], $8::float8[],"  \
    " " TERMS "::text[])"                                                                          \
    " WITH ORDINALITY AS p(k, u, st, hs, b, pr, po, tm, j) JOIN site ON site.i = p.k"
#define SITE_EDGES                                                                                 \
    "unnest($9::int[], $10::text[], $11::text[], $12::float8[], $13::int[], $14::float8[])"        \
    " AS e(k, d, h, cs, pc, w) JOIN site ON site.i = e.k"
#define WRITES(TERMS)                                                                              \
    "pg AS (INSERT INTO pages (job_id, host, purpose, url, error, status, bytes, pr_target,"       \
    "  posterior, terms)"                                                                          \
    " SELECT $1, site.host, site.purpose, u, nullif(st, 'ok'), nullif(hs, 0), b, pr, po, tm"       \
    " FROM " SITE_PAGES(                                                                           \
        TERMS) " ORDER BY p.j), "                                                                  \
               "fk AS (" FETCHES_ADD(                                                              \
                   "$1",                                                                           \
                   SITE_PAGES(                                                                     \
                       TERMS) " WHERE site.purpose = 'crawl'") "), "                               \
                                                               "ed AS (INSERT INTO edges "         \
                                                               "(job_id, src_host, dst_host, "     \
                                                               "conf_sum, page_count, weight)"     \
                                                               " SELECT $1, site.host, d, cs, "    \
                                                               "pc, w FROM " SITE_EDGES            \
                                                               " ON CONFLICT DO NOTHING), "        \
                                                               "bd AS (INSERT INTO sites "         \
                                                               "(job_id, host, homepage, "         \
                                                               "in_sites, global_sum, local_sum,"  \
                                                               "  weight_sum, rank)"               \
                                                               " SELECT $1, d, min(h), count(*), " \
                                                               "sum(site.conf), "                  \
                                                               "sum(cs / greatest(pc, 1)), "       \
                                                               "sum(w),"                           \
                                                               "  sum(w) / count(*)"               \
                                                               " FROM " SITE_EDGES                 \
                                                               " WHERE d <> site.host GROUP BY d " \
                                                               "ORDER BY d"                        \
                                                               " ON CONFLICT (job_id, host) DO "   \
                                                               "UPDATE SET"                        \
                                                               "  in_sites = sites.in_sites + "    \
                                                               "EXCLUDED.in_sites,"                \
                                                               "  global_sum = sites.global_sum "  \
                                                               "+ EXCLUDED.global_sum,"            \
                                                               "  local_sum = sites.local_sum + "  \
                                                               "EXCLUDED.local_sum,"               \
                                                               "  weight_sum = sites.weight_sum "  \
                                                               "+ EXCLUDED.weight_sum,"            \
                                                               "  rank = CASE WHEN sites.role = "  \
                                                               "'start' OR sites.label IS NOT "    \
                                                               "NULL OR sites.state "              \
                                                               "NOT IN ('border', 'claimed')"      \
                                                               "   THEN sites.rank"                \
                                                               "   ELSE (sites.weight_sum + "      \
                                                               "EXCLUDED.weight_sum) / "           \
                                                               "(sites.in_sites + "                \
                                                               "EXCLUDED.in_sites)"                \
                                                               "   END), "

/*
 * Examined websites ($15 host, $16 confidence, $17 purpose, $18 relevant, $19 fetches,
 * $20 pages to decide, $21 prior, $22 verdict_by, $23 read_stop, $24 the pages of the
 * batch's writes before it, $25 the crawl model that gave the verdict or NULL, $26 the
 * examination's verdict when a model gave it, $27 the rejected website whose likeness
 * vetoed the model's verdict or NULL), not yet examined, of a job that runs. The job counts
 * their pages, the websites and the relevant ones (a training site counts in none). found_pages is
 * the job's pages when the website was judged: those counted before this statement, the batch's
 * before it and its own. Answers the places of those written.
 */
static const char site_done_sql[] =
    "WITH runs AS (" RUNS "), "
    "it AS (SELECT * FROM unnest($15::text[], $16::float8[], $17::text[], $18::bool[],"
    "  $19::int[], $20::int[], $21::float8[], $22::text[], $23::text[], $24::int[],"
    "  $25::bigint[], $26::bool[], $27::text[])"
    "  WITH ORDINALITY AS t(host, conf, purpose, rel, fetches, ptd, prior, vby, rstop, before,"
    "  model, erel, lrej, i)), "
    /* A labelled website keeps the label's verdict; the examination's is kept beside it. */
    "site AS (UPDATE sites s SET state = 'examined',"
    " confidence = CASE WHEN s.label IS NULL THEN it.conf WHEN s.label THEN 1 ELSE 0 END,"
    " relevant = coalesce(s.label, it.rel),"
    " unlabelled_relevant = CASE WHEN s.label IS NOT NULL THEN it.rel END,"
    " unlabelled_confidence = CASE WHEN s.label IS NOT NULL THEN it.conf END,"
    " model_id = it.model, judged_at = CASE WHEN it.model IS NOT NULL THEN now() END,"
    " examined_relevant = it.erel, like_rejected = it.lrej,"
    " pages_visited = it.fetches, pages_to_class = it.ptd, examined_at = now(),"
    " claimed_by = NULL, error = NULL, prior = it.prior, verdict_by = it.vby,"
    " read_stop = it.rstop,"
    " found_pages = CASE WHEN coalesce(s.label, it.rel)"
    "  THEN (SELECT pages_downloaded FROM jobs WHERE id = $1)"
    "  + it.before + it.fetches END"
    " FROM it WHERE s.job_id = $1 AND s.host = ANY ($15::text[]) AND s.host = it.host"
    "  AND s.state <> 'examined' AND EXISTS (SELECT 1 FROM runs)"
    " RETURNING it.i, s.host, s.role, s.confidence AS conf, it.purpose, s.relevant AS rel,"
    "  it.fetches), " WRITES(
        DONE_TERMS) "jb AS (UPDATE jobs SET pages_downloaded = pages_downloaded + c.fetches,"
                    " sites_examined = sites_examined + c.n, relevant_found = relevant_found + "
                    "c.rel,"
                    " updated_at = now()"
                    " FROM (SELECT sum(fetches) AS fetches, count(*) AS n, count(*) FILTER (WHERE "
                    "rel) AS rel"
                    "  FROM site WHERE role NOT IN ('train', 'train_other')) c WHERE id = $1 AND "
                    "c.n > 0)"
                    " SELECT i FROM site";

/*
 * Websites read deeper ($15 host, $16 confidence, $17 purpose, $18 fetches, $19
 * read_stop, $20 the site's pages_visited as its runner stored it before), examined, of a
 * job that runs. Answers the places of those written, -1 when the job runs, and -1 - i
 * for a website i written already: its pages_visited is past what it was before this
 * read (the batch's commit went through and its reply was lost; sent again, it writes
 * nothing twice). A store that holds fewer (an earlier write lost to a crash) is written.
 */
static const char site_more_sql[] =
    "WITH runs AS (" RUNS "), "
    "it AS (SELECT * FROM unnest($15::text[], $16::float8[], $17::text[], $18::int[],"
    "  $19::text[], $20::int[]) WITH ORDINALITY AS t(host, conf, purpose, fetches, rstop,"
    "  before, i)), "
    "site AS (UPDATE sites s SET pages_visited = s.pages_visited + it.fetches,"
    " read_stop = coalesce(it.rstop, s.read_stop)"
    " FROM it WHERE s.job_id = $1 AND s.host = ANY ($15::text[]) AND s.host = it.host"
    "  AND s.state = 'examined' AND s.pages_visited <= it.before AND EXISTS (SELECT 1 FROM runs)"
    " RETURNING it.i, s.host, s.role, it.conf, it.purpose, it.fetches), " WRITES(
        MORE_TERMS) "jb AS (UPDATE jobs SET pages_downloaded = pages_downloaded + c.fetches, "
                    "updated_at = now()"
                    " FROM (SELECT sum(fetches) AS fetches FROM site) c WHERE id = $1 AND "
                    "c.fetches > 0)"
                    " SELECT i FROM site UNION ALL SELECT -1 FROM runs"
                    " UNION ALL SELECT -1 - it.i FROM it JOIN sites s ON s.job_id = $1"
                    "  AND s.host = ANY ($15::text[]) AND s.host = it.host"
                    "  AND s.state = 'examined' AND s.pages_visited > it.before";

/*
 * Claimed websites ($2 host) that leave the claim without a verdict: failed ($3 'failed',
 * with why: $4) or back on the border ($3 'border'). The fetches they cost ($5) count in
 * the job's pages_downloaded (a training site's do not). Only a website still claimed (by
 * $6, unless NULL) leaves its claim: sent again after its commit went through, the
 * statement counts nothing twice, and it never takes a website another runner claimed
 * since. A website a crash put back on the border (its claim lost) is failed all the
 * same (it was fetched), but one given back unjudged stays on the border, not counted.
 */
/* A batch commits synchronously, whatever the server's synchronous_commit: a verdict
 * acknowledged to the crawl survives a crash of the server (the embedded cluster runs
 * with synchronous_commit = off, which can lose the last acknowledged commits; a lost
 * examination left its website claimed by a runner done with it, never judged). One
 * fsync per batch, on the writer's thread. */
static const char sync_commit_sql[] = "SELECT set_config('synchronous_commit', 'on', true)";

static const char site_release_sql[] =
    "WITH it AS (SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $5::int[])"
    "  AS t(host, st, err, fetches)), "
    "u AS (UPDATE sites s SET state = it.st, error = it.err, claimed_by = NULL,"
    "  pages_visited = CASE WHEN it.st = 'failed' THEN it.fetches ELSE 0 END"
    "  FROM it WHERE s.job_id = $1 AND s.host = ANY ($2::text[]) AND s.host = it.host"
    "  AND ((s.state = 'claimed' AND ($6::text IS NULL OR s.claimed_by = $6::text))"
    "   OR (s.state = 'border' AND it.st = 'failed'))"
    "  RETURNING s.role, it.fetches) "
    "UPDATE jobs SET pages_downloaded = pages_downloaded + c.fetches, updated_at = now() "
    "FROM (SELECT sum(fetches) AS fetches FROM u WHERE role NOT IN ('train', 'train_other')) c "
    "WHERE id = $1 AND c.fetches > 0 AND " JOB_RUNS;

/* ---- a batch's statements ---- */

#define STMT_ARRAYS (PAGE_ARRAYS + EDGE_ARRAYS + 13)
enum stmt_kind { STMT_DONE, STMT_MORE, STMT_RELEASE, STMT_KINDS };

/* One statement's websites (the batch's items[at[0]], ...) and its parameters. */
struct stmt {
    enum stmt_kind kind;
    size_t n, at[SITEWRITE_BATCH_MAX];
    struct buf a[STMT_ARRAYS];
    const char *p[1 + STMT_ARRAYS];
};

static enum stmt_kind kind_of(enum sitewrite_kind k)
{
    return k == SITEWRITE_DONE ? STMT_DONE : k == SITEWRITE_MORE ? STMT_MORE : STMT_RELEASE;
}

/* Append website r (its place k) to the page and edge arrays. */
static enum err pages_edges(struct buf *a, long long k, const struct crawlstore_site_result *r)
{
    enum err e = ERR_OK;
    for (size_t i = 0; !e && i < r->n_pages; i++) {
        e = sqlarray_long(&a[0], k);
        if (!e)
            e = page_append(a + 1, &r->pages[i]);
    }
    struct buf *b = a + PAGE_ARRAYS;
    for (size_t i = 0; !e && i < r->n_edges; i++) {
        const struct crawlstore_edge *ed = &r->edges[i];
        e = sqlarray_long(&b[0], k);
        if (!e)
            e = sqlarray_text(&b[1], ed->host);
        if (!e)
            e = sqlarray_text(&b[2], ed->homepage);
        if (!e)
            e = sqlarray_double(&b[3], ed->conf_sum);
        if (!e)
            e = sqlarray_long(&b[4], ed->page_count);
        if (!e)
            e = sqlarray_double(&b[5], ed->weight);
    }
    return e;
}

/* Append website r to a statement's own arrays (o = a + PAGE_ARRAYS + EDGE_ARRAYS);
 * before: the fetches of the batch's items before it. */
static enum err own_arrays(struct buf *o, enum stmt_kind kind, const struct sitewrite_item *it,
                           long long before)
{
    const struct crawlstore_site_result *r = it->r;
    if (kind == STMT_RELEASE) {
        int failed = it->kind == SITEWRITE_FAILED;
        enum err e = sqlarray_text(&o[0], r->host);
        if (!e)
            e = sqlarray_text(&o[1], failed ? "failed" : "border");
        if (!e)
            e = sqlarray_text(&o[2], failed ? r->error : NULL);
        return e ? e : sqlarray_long(&o[3], r->fetches);
    }
    enum err e = sqlarray_text(&o[0], r->host);
    if (!e)
        e = sqlarray_double(&o[1], r->confidence);
    if (!e)
        e = sqlarray_text(&o[2], r->purpose);
    if (kind == STMT_MORE) {
        if (!e)
            e = sqlarray_long(&o[3], r->fetches);
        if (!e)
            e = sqlarray_text(&o[4], r->read_stop);
        return e ? e : sqlarray_long(&o[5], r->fetches_before);
    }
    if (!e)
        e = sqlarray_text(&o[3], r->relevant ? "true" : "false");
    if (!e)
        e = sqlarray_long(&o[4], r->fetches);
    if (!e)
        e = sqlarray_long(&o[5], r->pages_to_decide);
    if (!e) /* the prior is stored only with a read_stop */
        e = sqlarray_double(&o[6], r->read_stop ? r->prior : NAN);
    if (!e)
        e = sqlarray_text(&o[7], r->verdict_by);
    if (!e)
        e = sqlarray_text(&o[8], r->read_stop);
    if (!e)
        e = sqlarray_long(&o[9], before);
    if (!e)
        e = r->model_id ? sqlarray_long(&o[10], r->model_id) : sqlarray_text(&o[10], NULL);
    if (!e)
        e = sqlarray_text(&o[11], r->model_id ? (r->exam_relevant ? "true" : "false") : NULL);
    return e ? e : sqlarray_text(&o[12], r->model_id ? r->like_rejected : NULL);
}

/* st's parameters and call; before[i]: the fetches of item i's group before it, which the
 * job's row does not count yet when its statement reads it (found_pages). */
static enum err stmt_build(struct stmt *st, const char *job, const struct sitewrite_item *items,
                           const long long *before, struct store_call *call)
{
    enum err e = sqlarray_init(st->a, STMT_ARRAYS);
    struct buf *own = st->a + PAGE_ARRAYS + EDGE_ARRAYS;
    for (size_t i = 0; !e && i < st->n; i++) {
        const struct sitewrite_item *it = &items[st->at[i]];
        if (st->kind != STMT_RELEASE)
            e = pages_edges(st->a, (long long)i + 1, it->r);
        if (!e)
            e = own_arrays(own, st->kind, it, before[st->at[i]]);
    }
    if (!e)
        e = sqlarray_close(st->a, STMT_ARRAYS);
    if (e)
        return e;
    st->p[0] = job;
    if (st->kind == STMT_RELEASE) {
        for (int i = 0; i < 4; i++)
            st->p[1 + i] = buf_str(&own[i]);
        st->p[5] = items[st->at[0]].r->claimed_by; /* the writer's, the same for all */
        *call = (struct store_call){site_release_sql, 6, st->p, NULL};
        return ERR_OK;
    }
    /* The arrays but the pages' terms, in order; then the terms (the last parameter). */
    int n_own = st->kind == STMT_DONE ? 13 : 6, n = 1;
    for (int i = 0; i < PAGE_ARRAYS + EDGE_ARRAYS + n_own; i++)
        if (i != PAGE_ARRAYS - 1)
            st->p[n++] = buf_str(&st->a[i]);
    st->p[n++] = buf_str(&st->a[PAGE_ARRAYS - 1]);
    *call =
        (struct store_call){st->kind == STMT_DONE ? site_done_sql : site_more_sql, n, st->p, NULL};
    return ERR_OK;
}

/* Is host the website of one of items[from..to)? */
static int a_website(const struct sitewrite_item *items, size_t from, size_t to, const char *host)
{
    for (size_t i = from; i < to; i++)
        if (strcmp(items[i].r->host, host) == 0)
            return 1;
    return 0;
}

/* Is host a destination of the links of one of items[from..to)? (Only examined websites
 * and deeper reads have links.) */
static int a_destination(const struct sitewrite_item *items, size_t from, size_t to,
                         const char *host)
{
    for (size_t i = from; i < to; i++)
        for (size_t j = 0; items[i].kind <= SITEWRITE_MORE && j < items[i].r->n_edges; j++)
            if (strcmp(items[i].r->edges[j].host, host) == 0)
                return 1;
    return 0;
}

/* Does items[to] touch a row of items[from..to): its website one of theirs or a
 * destination of their links, or a destination of its links one of their websites? */
static int touches(const struct sitewrite_item *items, size_t from, size_t to)
{
    const struct crawlstore_site_result *r = items[to].r;
    if (a_website(items, from, to, r->host) || a_destination(items, from, to, r->host))
        return 1;
    for (size_t j = 0; items[to].kind <= SITEWRITE_MORE && j < r->n_edges; j++)
        if (a_website(items, from, to, r->edges[j].host))
            return 1;
    return 0;
}

/*
 * The end of the group that begins at items[from]: the items after it up to the first
 * that touches a row of an earlier one. One statement must not change a row twice
 * (PostgreSQL refuses an upsert of a row the statement changed), and a group's writes
 * may go in any order: the groups keep the batch's.
 */
static size_t group_end(const struct sitewrite_item *items, size_t from, size_t n)
{
    size_t to = from + 1;
    while (to < n && !touches(items, from, to))
        to++;
    return to;
}

/* What a statement's rows say of its website i: written (ERR_OK), a conflict (why), or,
 * for a deeper read, a site whose examination was lost (ERR_NOTFOUND). */
static enum err outcome(struct sitewrite_item *it, enum stmt_kind kind, size_t i,
                        const struct store_rows *rows)
{
    if (kind == STMT_RELEASE)
        return ERR_OK;
    int written = 0, runs = 0;
    for (int r = 0; r < store_rows_count(rows); r++) {
        int64_t v = store_rows_i64(rows, r, 0, 0);
        written |= v == (int64_t)i + 1 || v == -2 - (int64_t)i; /* the latter: before */
        runs |= v == -1;
    }
    if (written)
        return ERR_OK;
    const char *host = it->r->host;
    if (kind == STMT_DONE) {
        snprintf(it->why, sizeof it->why,
                 "site %s is already examined (or unknown, or its job ended)", host);
        return ERR_CONFLICT;
    }
    if (!runs) {
        snprintf(it->why, sizeof it->why, "%s not read deeper: its job ended", host);
        return ERR_CONFLICT;
    }
    return ERR_NOTFOUND;
}

enum err sitewrite_batch(struct store *s, int64_t job, struct sitewrite_item *items, size_t n)
{
    if (n < 1 || n > SITEWRITE_BATCH_MAX)
        return err_set(ERR_INVAL, "a batch of website writes takes 1 to %d", SITEWRITE_BATCH_MAX);
    struct stmt *st = calloc(n, sizeof *st); /* at most a statement per item */
    if (!st)
        return err_set(ERR_NOMEM, "out of memory");
    long long before[SITEWRITE_BATCH_MAX]; /* see stmt_build */
    /*
     * The job's row is locked first: each write updates it (its counters) and locks
     * sites rows (its own, the border's) before that, in its own order; a transaction
     * of several writes, or a runner's crawl thread beside it, could otherwise hold some
     * of those rows while waiting for the job's row that another batch holds while
     * waiting for them. With the job's row first, the batches of a job's runners take
     * turns (sitewrite.h, JOB_LOCK). (store_pipeline sends a batch again if a deadlock
     * rolled it back all the same.)
     * Then each group of items that touch no row of each other's (group_end) is a
     * statement per kind.
     */
    struct store_call calls[SITEWRITE_BATCH_MAX + 2];
    char ids[32];
    const char *lock_p[] = {NUM(ids, job)};
    calls[0] = (struct store_call){JOB_LOCK, 1, lock_p, NULL};
    calls[1] = (struct store_call){sync_commit_sql, 0, NULL, NULL};
    size_t n_st = 0;
    for (size_t from = 0, to; from < n; from = to) {
        to = group_end(items, from, n);
        long long sum = 0; /* the earlier groups' pages are counted when this one reads */
        for (size_t i = from; i < to; i++) {
            before[i] = sum;
            sum += items[i].r->fetches;
        }
        size_t first = n_st;
        for (int k = 0; k < STMT_KINDS; k++) {
            for (size_t i = from; i < to; i++) {
                if (kind_of(items[i].kind) != (enum stmt_kind)k)
                    continue;
                if (n_st == first || st[n_st - 1].kind != (enum stmt_kind)k)
                    st[n_st++].kind = (enum stmt_kind)k;
                struct stmt *t = &st[n_st - 1];
                t->at[t->n++] = i;
            }
        }
    }
    enum err e = ERR_OK;
    for (size_t i = 0; i < n_st; i++) {
        enum err b = stmt_build(&st[i], ids, items, before, &calls[i + 2]);
        e = e ? e : b;
    }
    if (!e)
        e = store_pipeline(s, calls, (int)n_st + 2);
    store_rows_free(calls[0].rows);
    store_rows_free(calls[1].rows);
    for (size_t i = 0; i < n_st; i++) {
        for (size_t j = 0; !e && j < st[i].n; j++)
            items[st[i].at[j]].outcome =
                outcome(&items[st[i].at[j]], st[i].kind, j, calls[i + 2].rows);
        store_rows_free(calls[i + 2].rows); /* NULL when not written */
        sqlarray_release(st[i].a, STMT_ARRAYS);
    }
    free(st);
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
