/*
 * store/sitewriter against the test cluster: results queued are written in order off
 * the caller's thread and are all there after a flush; a result whose site is examined
 * already is dropped with a warning and the writer goes on; a write the database
 * refuses stops the writer, and the caller hears of it at its next call; stopping with
 * discard drops what is still queued, without a flush. sitewrite_batch, which writes
 * what is queued together: each website's outcome, nothing of a refused batch, and a
 * batch rolled back by a deadlock sent again.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/crawlstore.h"
#include "store/judgestore.h"
#include "store/labelstore.h"
#include "store/sitewrite.h"
#include "store/sitewriter.h"
#include "store/sqlfetch.h"
#include "store/store.h"
#include "testdb.h"

#define N_SITES  100
#define EXAMINED "SELECT count(*) FROM sites WHERE job_id = $1 AND state = 'examined'"

/* The count sql answers for $1 = job and, when host is not NULL, $2 = host. */
static long long of_host(struct store *s, int64_t job, const char *sql, const char *host)
{
    char ids[32];
    snprintf(ids, sizeof ids, "%lld", (long long)job);
    const char *p[] = {ids, host};
    struct store_rows *r;
    assert_int_equal(store_query(s, sql, host ? 2 : 1, p, &r), ERR_OK);
    long long n = store_rows_i64(r, 0, 0, -1);
    store_rows_free(r);
    return n;
}

static long long count(struct store *s, int64_t job, const char *sql)
{
    return of_host(s, job, sql, NULL);
}

/* A job with N_SITES claimed websites h0.test ... */
static int64_t job_with_sites(struct store *s)
{
    int64_t job;
    assert_int_equal(crawlstore_job_create(s, "w", "{}", "{}", &job), ERR_OK);
    for (int i = 0; i < N_SITES; i++) {
        char host[32], home[48];
        snprintf(host, sizeof host, "h%d.test", i);
        snprintf(home, sizeof home, "http://%s/", host);
        assert_int_equal(
            crawlstore_site_add(s, job, host, home, "discovered", "claimed", NAN, -1, 1.0), ERR_OK);
    }
    return job;
}

/* A connection, a job with its websites, and a writer for it. */
static struct sitewriter *start(struct store **s, int64_t *job)
{
    assert_int_equal(testdb_open(s), 0);
    *job = job_with_sites(*s);
    struct sitewriter *w;
    assert_int_equal(sitewriter_start(testdb_url(), 5000, *job, NULL, &w), ERR_OK);
    return w;
}

/* Site i's result: 2 pages, and a link to site i + 1 (new, or on the border). */
static enum err queue(struct sitewriter *w, int i, const char *host_override)
{
    char host[32], url[64], dst[32], dst_home[48];
    snprintf(host, sizeof host, "h%d.test", i);
    snprintf(url, sizeof url, "http://%s/a", host);
    snprintf(dst, sizeof dst, "h%d.test", i + 1);
    snprintf(dst_home, sizeof dst_home, "http://%s/", dst);
    struct crawlstore_page pages[] = {{url, "ok", 200, 100, 0.9, 0.9, "alpha:2 beta:1"},
                                      {url, "http_error", 404, 10, NAN, 0.9, NULL}};
    struct crawlstore_edge edges[] = {{dst, dst_home, 0.9, 1, 0.8}};
    struct crawlstore_site_result r = {host_override ? host_override : host,
                                       0.9,
                                       1,
                                       1,
                                       2,
                                       "crawl",
                                       pages,
                                       2,
                                       edges,
                                       1,
                                       NULL,
                                       0,
                                       0.5,
                                       "threshold",
                                       "verdict",
                                       NULL,
                                       NULL,
                                       0,
                                       0,
                                       0,
                                       NULL};
    /* The caller's buffers die here: the writer must have copied them. */
    return sitewriter_done(w, &r);
}

static void test_written_in_order(void **state)
{
    (void)state;
    struct store *s;
    int64_t job;
    struct sitewriter *w = start(&s, &job);
    for (int i = 0; i < N_SITES; i++)
        assert_int_equal(queue(w, i, NULL), ERR_OK);
    assert_int_equal(queue(w, 3, NULL), ERR_OK); /* examined already: dropped, not fatal */
    assert_int_equal(sitewriter_flush(w), ERR_OK);
    assert_int_equal(sitewriter_pending(w), 0);
    assert_int_equal(count(s, job, EXAMINED), N_SITES);
    assert_int_equal(count(s, job, "SELECT count(*) FROM pages WHERE job_id = $1"), 2 * N_SITES);
    assert_int_equal(count(s, job, "SELECT pages_downloaded FROM jobs WHERE id = $1"), 2 * N_SITES);
    assert_int_equal(count(s, job, "SELECT sites_examined FROM jobs WHERE id = $1"), N_SITES);
    /* Each site links to the next, claimed already: only h100.test joins the border. */
    assert_int_equal(count(s, job,
                           "SELECT count(*) FROM sites WHERE job_id = $1"
                           " AND state = 'border'"),
                     1);
    assert_int_equal(count(s, job, "SELECT count(*) FROM edges WHERE job_id = $1"), N_SITES);
    /* In order: the pages' ids follow the sites' numbers. */
    assert_int_equal(
        count(s, job,
              "SELECT count(*) FROM (SELECT host, lag(host) OVER (ORDER BY id) AS prev"
              " FROM pages WHERE job_id = $1) p WHERE prev IS NOT NULL AND host <> prev"
              " AND substr(host, 2, length(host) - 6)::int"
              "  <> substr(prev, 2, length(prev) - 6)::int + 1"),
        0);
    /* The fetches by outcome, counted as written, are those of the stored pages. */
    assert_int_equal(count(s, job, "SELECT sum(n) FROM job_fetches WHERE job_id = $1"),
                     2 * N_SITES);
    assert_int_equal(
        count(s, job,
              "SELECT count(*) FROM ((SELECT kind, n FROM job_fetches WHERE job_id = $1)"
              " EXCEPT (SELECT " FETCH_KIND_OF(
                  "error", "status") ", count(*)"
                                     " FROM pages WHERE job_id = $1 GROUP BY 1)) d"),
        0);
    sitewriter_stop(w, 0);
    store_free(s);
}

static void test_refused_write_stops_it(void **state)
{
    (void)state;
    struct store *s;
    int64_t job;
    struct sitewriter *w = start(&s, &job);
    assert_int_equal(queue(w, 0, NULL), ERR_OK);
    assert_int_equal(sitewriter_flush(w), ERR_OK);         /* written alone */
    assert_int_equal(queue(w, 1, "bad\xff.test"), ERR_OK); /* not UTF-8: refused */
    assert_int_equal(sitewriter_flush(w), ERR_DB);
    assert_non_null(strstr(err_msg(), "UTF8"));
    assert_int_equal(queue(w, 2, NULL), ERR_DB); /* stopped: nothing more is taken */
    sitewriter_stop(w, 0);
    assert_int_equal(count(s, job, EXAMINED), 1);
    store_free(s);
}

/* Site i's result as queue() makes it, into storage that outlives the call. */
struct result {
    char host[32], url[64], dst[32], dst_home[48];
    struct crawlstore_page pages[1];
    struct crawlstore_edge edges[1];
    struct crawlstore_site_result r;
};
static void result_make(struct result *x, int i, const char *host_override)
{
    if (host_override)
        snprintf(x->host, sizeof x->host, "%s", host_override);
    else
        snprintf(x->host, sizeof x->host, "h%d.test", i);
    snprintf(x->url, sizeof x->url, "http://h%d.test/a", i);
    snprintf(x->dst, sizeof x->dst, "h%d.test", i + 1);
    snprintf(x->dst_home, sizeof x->dst_home, "http://%s/", x->dst);
    x->pages[0] = (struct crawlstore_page){x->url, "ok", 200, 100, 0.9, 0.9, NULL};
    x->edges[0] = (struct crawlstore_edge){x->dst, x->dst_home, 0.9, 1, 0.8};
    x->r = (struct crawlstore_site_result){.host = x->host,
                                           .confidence = 0.9,
                                           .relevant = 1,
                                           .pages_to_decide = 1,
                                           .fetches = 1,
                                           .purpose = "crawl",
                                           .pages = x->pages,
                                           .n_pages = 1,
                                           .edges = x->edges,
                                           .n_edges = 1,
                                           .prior = NAN,
                                           .fetches_before = 1};
}

/* sitewrite_batch: one round trip, each website's outcome; a refused one writes none. */
static void test_batch_outcomes(void **state)
{
    (void)state;
    struct store *s;
    int64_t job;
    struct sitewriter *w = start(&s, &job);
    sitewriter_stop(w, 0);
    struct result x[4];
    result_make(&x[0], 0, NULL);
    result_make(&x[1], 1, NULL);
    result_make(&x[2], 0, NULL); /* site 0 again: examined by the first */
    result_make(&x[3], 2, NULL);
    struct sitewrite_item items[4];
    for (int i = 0; i < 4; i++)
        items[i] = (struct sitewrite_item){.r = &x[i].r, .kind = SITEWRITE_DONE};
    assert_int_equal(sitewrite_batch(s, job, items, 4), ERR_OK);
    assert_int_equal(items[0].outcome, ERR_OK);
    assert_int_equal(items[1].outcome, ERR_OK);
    assert_int_equal(items[2].outcome, ERR_CONFLICT);
    assert_non_null(strstr(items[2].why, "h0.test is already examined"));
    assert_int_equal(items[3].outcome, ERR_OK);
    assert_int_equal(count(s, job, EXAMINED), 3);
    assert_int_equal(count(s, job, "SELECT pages_downloaded FROM jobs WHERE id = $1"), 3);
    /* A deeper read of site 1 and a new site 4 that the database refuses: neither. */
    result_make(&x[0], 1, NULL);
    result_make(&x[1], 4, "bad\xff.test");
    items[0] = (struct sitewrite_item){.r = &x[0].r, .kind = SITEWRITE_MORE};
    items[1] = (struct sitewrite_item){.r = &x[1].r, .kind = SITEWRITE_DONE};
    assert_int_equal(sitewrite_batch(s, job, items, 2), ERR_DB);
    assert_int_equal(count(s, job,
                           "SELECT pages_visited FROM sites WHERE job_id = $1"
                           " AND host = 'h1.test'"),
                     1);
    assert_int_equal(count(s, job, "SELECT pages_downloaded FROM jobs WHERE id = $1"), 3);
    /* The deeper read alone: written. */
    assert_int_equal(sitewrite_batch(s, job, items, 1), ERR_OK);
    assert_int_equal(items[0].outcome, ERR_OK);
    assert_int_equal(count(s, job,
                           "SELECT pages_visited FROM sites WHERE job_id = $1"
                           " AND host = 'h1.test'"),
                     2);
    assert_int_equal(sitewrite_batch(s, job, items, 0), ERR_INVAL);
    store_free(s);
}

/* The rank of host h ($1 job) times 1000, rounded. */
static long long rank_of(struct store *s, int64_t job, const char *h)
{
    char sql[160];
    snprintf(sql, sizeof sql,
             "SELECT round(rank * 1000) FROM sites WHERE job_id = $1 AND host = '%s'", h);
    return count(s, job, sql);
}

/*
 * A link to a website on the border or claimed moves its rank (the average weight of
 * the links to it); a link to an examined one counts (in_sites) but leaves its rank, the
 * rank it was examined with. The fetches by outcome count the written pages.
 */
static void test_rank_of_examined_kept(void **state)
{
    (void)state;
    struct store *s;
    int64_t job;
    struct sitewriter *w = start(&s, &job);
    sitewriter_stop(w, 0);
    struct result x[3];
    result_make(&x[0], 0, NULL); /* h0 links to h1 (claimed): its rank becomes 0.8 */
    result_make(&x[1], 1, NULL); /* h1 examined */
    struct sitewrite_item items[3];
    for (int i = 0; i < 2; i++)
        items[i] = (struct sitewrite_item){.r = &x[i].r, .kind = SITEWRITE_DONE};
    assert_int_equal(sitewrite_batch(s, job, items, 2), ERR_OK);
    assert_int_equal(rank_of(s, job, "h1.test"), 800);
    result_make(&x[0], 0, "h10.test"); /* links to h1 (examined) */
    result_make(&x[1], 4, "h11.test"); /* links to h5 (claimed) */
    result_make(&x[2], 6, "h12.test"); /* links to h7 (claimed) too, but is refused */
    snprintf(x[2].url, sizeof x[2].url, "http://h12.test/\xff");
    for (int i = 0; i < 3; i++) {
        x[i].edges[0].weight = 0.2;
        items[i] = (struct sitewrite_item){.r = &x[i].r, .kind = SITEWRITE_DONE};
    }
    assert_int_equal(sitewrite_batch(s, job, items, 3), ERR_DB);
    assert_int_equal(sitewrite_batch(s, job, items, 2), ERR_OK);
    assert_int_equal(rank_of(s, job, "h1.test"), 800);
    assert_int_equal(
        count(s, job, "SELECT in_sites FROM sites WHERE job_id = $1 AND host = 'h1.test'"), 2);
    assert_int_equal(rank_of(s, job, "h5.test"), 200);
    assert_int_equal(rank_of(s, job, "h7.test"), 1000);
    assert_int_equal(count(s, job, "SELECT n FROM job_fetches WHERE job_id = $1 AND kind = 'ok'"),
                     4);
    store_free(s);
}

/*
 * Websites that touch no row of each other's go in one statement per kind: three
 * examined (two link to one destination: one upsert), one failed, one given back, one
 * read deeper. Then two that do (the second is the first's destination): the first's
 * link counts before the second is examined, as in the batch's order.
 */
static void test_folded_batch(void **state)
{
    (void)state;
    struct store *s;
    int64_t job;
    struct sitewriter *w = start(&s, &job);
    sitewriter_stop(w, 0);
    struct result x[8];
    result_make(&x[0], 5, NULL); /* examined first: read deeper below */
    struct sitewrite_item items[8] = {{.r = &x[0].r, .kind = SITEWRITE_DONE}};
    assert_int_equal(sitewrite_batch(s, job, items, 1), ERR_OK);
    result_make(&x[0], 10, NULL); /* -> h11 */
    result_make(&x[1], 20, NULL); /* -> h50 */
    snprintf(x[1].dst, sizeof x[1].dst, "h50.test");
    result_make(&x[2], 30, NULL); /* -> h50 */
    snprintf(x[2].dst, sizeof x[2].dst, "h50.test");
    x[2].edges[0].weight = 0.2;
    x[2].r.relevant = 0;
    result_make(&x[3], 40, NULL);
    x[3].r.error = "dns";
    result_make(&x[4], 41, NULL);
    result_make(&x[5], 5, NULL); /* h5 read deeper -> h6 */
    x[5].r.fetches = 3;
    enum sitewrite_kind kinds[] = {SITEWRITE_DONE,   SITEWRITE_DONE,    SITEWRITE_DONE,
                                   SITEWRITE_FAILED, SITEWRITE_ABANDON, SITEWRITE_MORE};
    for (int i = 0; i < 6; i++)
        items[i] = (struct sitewrite_item){.r = &x[i].r, .kind = kinds[i]};
    assert_int_equal(sitewrite_batch(s, job, items, 6), ERR_OK);
    for (int i = 0; i < 6; i++)
        assert_int_equal(items[i].outcome, ERR_OK);
    assert_int_equal(count(s, job, EXAMINED), 4);
    assert_int_equal(count(s, job, "SELECT sites_examined FROM jobs WHERE id = $1"), 4);
    assert_int_equal(count(s, job, "SELECT relevant_found FROM jobs WHERE id = $1"), 3);
    assert_int_equal(count(s, job, "SELECT pages_downloaded FROM jobs WHERE id = $1"), 1 + 5 + 3);
    const char *sq = "SELECT round(rank * 1000) FROM sites WHERE job_id = $1 AND host = $2";
    const char *in = "SELECT in_sites FROM sites WHERE job_id = $1 AND host = $2";
    assert_int_equal(of_host(s, job, in, "h50.test"), 2);
    assert_int_equal(of_host(s, job, sq, "h50.test"), 500);
    assert_int_equal(of_host(s, job, sq, "h11.test"), 800);
    assert_int_equal(of_host(s, job, in, "h6.test"), 2); /* h5's two reads */
    const char *st = "SELECT CASE state WHEN 'failed' THEN 1 WHEN 'border' THEN 2 END"
                     " FROM sites WHERE job_id = $1 AND host = $2";
    assert_int_equal(of_host(s, job, st, "h40.test"), 1);
    assert_int_equal(of_host(s, job, st, "h41.test"), 2);
    assert_int_equal(of_host(s, job,
                             "SELECT pages_visited FROM sites WHERE job_id = $1 AND host = $2",
                             "h5.test"),
                     4);
    /* found_pages: the job's pages when each relevant website was judged, in batch order */
    const char *fp = "SELECT found_pages FROM sites WHERE job_id = $1 AND host = $2";
    assert_int_equal(of_host(s, job, fp, "h10.test"), 2);
    assert_int_equal(of_host(s, job, fp, "h20.test"), 3);
    assert_int_equal(
        of_host(s, job, "SELECT count(*) FROM pages WHERE job_id = $1 AND host <> $2", "none"), 5);
    /* h60 links to h61, examined after it in the same batch */
    result_make(&x[6], 60, NULL);
    result_make(&x[7], 61, NULL);
    items[0] = (struct sitewrite_item){.r = &x[6].r, .kind = SITEWRITE_DONE};
    items[1] = (struct sitewrite_item){.r = &x[7].r, .kind = SITEWRITE_DONE};
    assert_int_equal(sitewrite_batch(s, job, items, 2), ERR_OK);
    assert_int_equal(items[1].outcome, ERR_OK);
    assert_int_equal(of_host(s, job, sq, "h61.test"), 800);
    assert_int_equal(of_host(s, job, in, "h61.test"), 1);
    store_free(s);
}

/* Until another session waits for a lock s holds (60 s at most). */
static void wait_blocked(struct store *s, int64_t job)
{
    const char *waits = "SELECT count(*) FROM pg_locks WHERE NOT granted"
                        " AND pg_backend_pid() = ANY (pg_blocking_pids(pid)) AND $1 > 0";
    for (int i = 0; count(s, job, waits) == 0; i++) {
        assert_true(i < 6000);
        struct timespec ts = {0, 10 * 1000000L};
        nanosleep(&ts, NULL);
    }
}

struct batch_thread {
    int64_t job;
    struct result x;
    struct sitewrite_item item;
    enum err e;
};

static void *batch_main(void *arg)
{
    struct batch_thread *b = arg;
    struct store *s;
    b->e = store_open(testdb_url(), 5000, &s);
    if (!b->e) {
        b->item = (struct sitewrite_item){.r = &b->x.r, .kind = SITEWRITE_DONE};
        b->e = sitewrite_batch(s, b->job, &b->item, 1);
        store_free(s);
    }
    return NULL;
}

/*
 * A session that holds a sites row a batch wants and then asks for the job's row (as a
 * crawl thread's own write once did) deadlocks with the batch, which holds the job's row
 * first. PostgreSQL breaks the deadlock by rolling the batch back (the batch waited
 * first, so its check comes first); the batch goes again and is written.
 */
static void test_batch_after_a_deadlock(void **state)
{
    (void)state;
    struct store *s;
    int64_t job;
    struct sitewriter *w = start(&s, &job);
    sitewriter_stop(w, 0);
    char ids[32];
    snprintf(ids, sizeof ids, "%lld", (long long)job);
    const char *p[] = {ids};
    /* Site 5 links to site 6: the batch will upsert h6.test. */
    assert_int_equal(store_begin(s), ERR_OK);
    assert_int_equal(store_exec(s,
                                "UPDATE sites SET rank = rank WHERE job_id = $1"
                                " AND host = 'h6.test'",
                                1, p),
                     ERR_OK);
    /* This session never checks for the deadlock first, however slow the machine. */
    assert_int_equal(store_exec(s, "SET LOCAL deadlock_timeout = '10min'", 0, NULL), ERR_OK);
    /* On the heap: a failed check below must not leave the thread writing to a dead frame. */
    struct batch_thread *b = calloc(1, sizeof *b);
    assert_non_null(b);
    b->job = job;
    result_make(&b->x, 5, NULL);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, batch_main, b), 0);
    /* The batch holds the job's row once it waits for h6.test, the one row this session holds. */
    wait_blocked(s, job);
    assert_int_equal(store_exec(s, "UPDATE jobs SET updated_at = now() WHERE id = $1", 1, p),
                     ERR_OK);
    assert_int_equal(store_commit(s), ERR_OK);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_int_equal(b->e, ERR_OK);
    assert_int_equal(b->item.outcome, ERR_OK);
    free(b);
    assert_int_equal(count(s, job, EXAMINED), 1);
    store_free(s);
}

struct label_thread {
    int64_t job, model; /* model: a judging's verdict on h3.test, else a label */
    int seeds;          /* h3.test added as a start website instead */
    struct labelstore_result out;
    enum err e;
    char msg[512];
};

static void *label_main(void *arg)
{
    struct label_thread *l = arg;
    struct store *s = NULL;
    l->e = store_open(testdb_url(), 5000, &s);
    char *host[] = {"h3.test"}, *home[] = {"http://h3.test/"};
    if (!l->e && l->seeds) {
        struct store_rows *rows = NULL;
        l->e = labelstore_add_start_sites(s, l->job, host, home, 1, 1.0, "[\"http://h3.test/\"]",
                                          &rows);
        l->out.changed = !l->e;
        store_rows_free(rows);
    } else if (!l->e && l->model) {
        struct judgestore_verdict v = {"h3.test", 0.9, 1, NAN, 0, 0, NULL};
        int64_t relevant, changed;
        l->e = judgestore_write(s, l->job, l->model, &v, 1, &relevant, &changed);
        l->out.changed = changed == 1;
    } else if (!l->e) {
        l->e = labelstore_set(s, l->job, "h3.test", LABELSTORE_RELEVANT, &l->out);
    }
    if (s)
        store_free(s);
    snprintf(l->msg, sizeof l->msg, "%s", l->e ? err_msg() : "");
    return NULL;
}

/*
 * A label, a judging's verdicts or start websites added, given while a batch of the
 * crawl's writes holds the job's row (JOB_LOCK) and goes on to a row of that website (a
 * border website its pages link to, a website it reads deeper), wait for the job's row
 * before they take the website's: the batch is not blocked, and they are written after
 * it. (Taking the website's row first, then the job's for its counters, deadlocked with
 * the batch, and `sitescout label` failed.)
 */
static void label_waits(int judging, int seeds)
{
    struct store *s;
    int64_t job;
    struct sitewriter *w = start(&s, &job);
    sitewriter_stop(w, 0);
    char ids[32];
    snprintf(ids, sizeof ids, "%lld", (long long)job);
    const char *p[] = {ids};
    int64_t model = 0;
    if (judging) {
        assert_int_equal(store_exec(s,
                                    "UPDATE sites SET state = 'examined', relevant = false"
                                    " WHERE job_id = $1 AND host = 'h3.test'",
                                    1, p),
                         ERR_OK);
        model = of_host(s, job,
                        "INSERT INTO models (job_id, format_version, p_err, data, kind)"
                        " VALUES ($1, 1, 0, '\\x00', 'crawl') RETURNING id",
                        NULL);
        assert_true(model > 0);
    }
    assert_int_equal(store_begin(s), ERR_OK);
    assert_int_equal(store_exec(s, "SET LOCAL deadlock_timeout = '10min'", 0, NULL), ERR_OK);
    assert_int_equal(store_exec(s, JOB_LOCK, 1, p), ERR_OK);
    struct label_thread *l = calloc(1, sizeof *l);
    assert_non_null(l);
    l->job = job;
    l->model = model;
    l->seeds = seeds;
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, label_main, l), 0);
    wait_blocked(s, job);
    /* The batch's own write of the website: waits for nobody. */
    assert_int_equal(store_exec(s,
                                "UPDATE sites SET rank = rank + 1 WHERE job_id = $1"
                                " AND host = 'h3.test'",
                                1, p),
                     ERR_OK);
    assert_int_equal(store_commit(s), ERR_OK);
    assert_int_equal(pthread_join(t, NULL), 0);
    if (l->e)
        fail_msg("the %s failed: %s", seeds ? "seeds" : judging ? "judging" : "label", l->msg);
    assert_int_equal(l->out.changed, 1);
    free(l);
    if (!seeds)
        assert_int_equal(of_host(s, job,
                                 judging ? "SELECT count(*) FROM sites WHERE job_id = $1"
                                           " AND host = $2 AND relevant AND model_id IS NOT NULL"
                                         : "SELECT count(*) FROM sites WHERE job_id = $1"
                                           " AND host = $2 AND label",
                                 "h3.test"),
                         1);
    store_free(s);
}

static void test_label_waits_for_the_job_row(void **state)
{
    (void)state;
    label_waits(0, 0);
}

static void test_judging_waits_for_the_job_row(void **state)
{
    (void)state;
    label_waits(1, 0);
}

static void test_seeds_wait_for_the_job_row(void **state)
{
    (void)state;
    label_waits(0, 1);
}

static void test_stop_discard(void **state)
{
    (void)state;
    struct store *s;
    int64_t job;
    struct sitewriter *w = start(&s, &job);
    for (int i = 0; i < N_SITES; i++)
        assert_int_equal(queue(w, i, NULL), ERR_OK);
    sitewriter_stop(w, 1);
    /* Whatever was written was written whole: a site's pages with it, and counted. */
    long long examined = count(s, job, EXAMINED);
    assert_true(examined <= N_SITES);
    assert_int_equal(count(s, job, "SELECT count(*) FROM pages WHERE job_id = $1"), 2 * examined);
    assert_int_equal(count(s, job, "SELECT sites_examined FROM jobs WHERE id = $1"), examined);
    sitewriter_stop(NULL, 0);
    store_free(s);
}

/*
 * A batch sent again after its commit went through and the reply was lost (a crash;
 * store_pipeline sends it again after reconnecting): nothing is written twice, no counter
 * counts twice, and each write says it is written (the examination: examined already).
 * A claim given up is only given up by its holder: a website another runner claimed since
 * stays theirs.
 */
static void test_batch_sent_again(void **state)
{
    (void)state;
    struct store *s;
    int64_t job;
    struct sitewriter *w = start(&s, &job);
    sitewriter_stop(w, 0);
    char ids[32];
    snprintf(ids, sizeof ids, "%lld", (long long)job);
    const char *p[] = {ids};
    assert_int_equal(store_exec(s, "UPDATE sites SET claimed_by = 'me' WHERE job_id = $1", 1, p),
                     ERR_OK);
    struct result x[4];
    result_make(&x[0], 1, NULL);
    struct sitewrite_item items[4] = {{.r = &x[0].r, .kind = SITEWRITE_DONE}};
    assert_int_equal(sitewrite_batch(s, job, items, 1), ERR_OK);
    result_make(&x[0], 1, NULL); /* h1 read deeper: 3 more pages */
    x[0].r.fetches = 3;
    result_make(&x[1], 2, NULL);
    x[1].r.fetches = 2;
    x[1].r.error = "dns";
    x[1].r.claimed_by = "me";
    result_make(&x[2], 3, NULL);
    x[2].r.fetches = 4;
    x[2].r.claimed_by = "me";
    result_make(&x[3], 4, NULL);
    enum sitewrite_kind kinds[] = {SITEWRITE_MORE, SITEWRITE_FAILED, SITEWRITE_ABANDON,
                                   SITEWRITE_DONE};
    const char *pages = "SELECT pages_downloaded FROM jobs WHERE id = $1";
    const char *visited = "SELECT pages_visited FROM sites WHERE job_id = $1 AND host = $2";
    const char *rows = "SELECT count(*) FROM pages WHERE job_id = $1";
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < 4; i++)
            items[i] = (struct sitewrite_item){.r = &x[i].r, .kind = kinds[i]};
        assert_int_equal(sitewrite_batch(s, job, items, 4), ERR_OK);
        for (int i = 0; i < 3; i++)
            assert_int_equal(items[i].outcome, ERR_OK);
        assert_int_equal(items[3].outcome, round == 0 ? ERR_OK : ERR_CONFLICT);
        assert_int_equal(count(s, job, pages), 1 + 3 + 2 + 4 + 1);
        assert_int_equal(of_host(s, job, visited, "h1.test"), 1 + 3);
        assert_int_equal(count(s, job, rows), 3);
        assert_int_equal(count(s, job, EXAMINED), 2);
    }
    /* h5, given up by "me" after "other" claimed it: left to "other". */
    assert_int_equal(store_exec(s,
                                "UPDATE sites SET claimed_by = 'other' WHERE job_id = $1"
                                " AND host = 'h5.test'",
                                1, p),
                     ERR_OK);
    result_make(&x[0], 5, NULL);
    x[0].r.claimed_by = "me";
    items[0] = (struct sitewrite_item){.r = &x[0].r, .kind = SITEWRITE_ABANDON};
    assert_int_equal(sitewrite_batch(s, job, items, 1), ERR_OK);
    assert_int_equal(count(s, job, pages), 11);
    assert_int_equal(of_host(s, job,
                             "SELECT count(*) FROM sites WHERE job_id = $1 AND host = $2"
                             " AND state = 'claimed' AND claimed_by = 'other'",
                             "h5.test"),
                     1);
    store_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_written_in_order),
        cmocka_unit_test(test_refused_write_stops_it),
        cmocka_unit_test(test_batch_outcomes),
        cmocka_unit_test(test_batch_after_a_deadlock),
        cmocka_unit_test(test_stop_discard),
        cmocka_unit_test(test_rank_of_examined_kept),
        cmocka_unit_test(test_folded_batch),
        cmocka_unit_test(test_batch_sent_again),
        cmocka_unit_test(test_label_waits_for_the_job_row),
        cmocka_unit_test(test_judging_waits_for_the_job_row),
        cmocka_unit_test(test_seeds_wait_for_the_job_row),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
