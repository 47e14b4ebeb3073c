/* The external crawler's edge weights (paper Figure 3) and its border in PostgreSQL. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crawler/extcrawl.h"
#include "store/crawlstore.h"
#include "store/migrate.h"
#include "store/store.h"
#include "testdb.h"

static void test_figure3_edge_weights(void **state)
{
    (void)state;
    /* W has confidence 0.6; two of its pages link to U, with 0.9 and 0.5. */
    double sum = 0.9 + 0.5;
    assert_float_equal(edges_weight(EDGES_GLOBAL, 0.6, sum, 2), 0.6, 1e-12);
    assert_float_equal(edges_weight(EDGES_LOCAL, 0.6, sum, 2), 0.7, 1e-12);
    assert_float_equal(edges_weight(EDGES_COMBINED, 0.6, sum, 2), 0.65, 1e-12);
    assert_int_equal(edges_weights_parse("combined"), EDGES_COMBINED);
    assert_int_equal(edges_weights_parse("nope"), -1);
}

static double site_rank(struct store *s, int64_t job, const char *host)
{
    char ids[32];
    snprintf(ids, sizeof ids, "%lld", (long long)job);
    const char *p[] = {ids, host};
    struct store_rows *r;
    assert_int_equal(
        store_query(s, "SELECT rank FROM sites WHERE job_id = $1 AND host = $2", 2, p, &r), ERR_OK);
    assert_int_equal(store_rows_count(r), 1);
    double v = store_rows_double(r, 0, 0, NAN);
    store_rows_free(r);
    return v;
}

/* The one cell of sql ($1 = job) as text (a static copy). */
static const char *one_cell(struct store *s, int64_t job, const char *sql)
{
    static char out[256];
    char ids[32];
    snprintf(ids, sizeof ids, "%lld", (long long)job);
    const char *p[] = {ids};
    struct store_rows *r;
    assert_int_equal(store_query(s, sql, 1, p, &r), ERR_OK);
    assert_int_equal(store_rows_count(r), 1);
    const char *v = store_rows_get(r, 0, 0);
    snprintf(out, sizeof out, "%s", v ? v : "(null)");
    store_rows_free(r);
    return out;
}

static void examine(struct store *s, int64_t job, const char *host, double conf,
                    const struct crawlstore_edge *edges, size_t n_edges)
{
    struct crawlstore_page pages[] = {{"http://x/", "ok", 200, 100, conf, conf, NULL},
                                      {"http://x/gone", "http_error", 404, 10, NAN, conf, NULL}};
    struct crawlstore_site_result r = {host,      conf,  conf > 0.5, 1,    2, "crawl", pages,
                                       2,         edges, n_edges,    NULL, 0, 0.5,     "threshold",
                                       "verdict", NULL,  NULL,       0,    0, 0,       NULL};
    assert_int_equal(crawlstore_site_done(s, job, &r), ERR_OK);
}

static void test_border_ranks_and_claims(void **state)
{
    (void)state;
    struct store *s;
    assert_int_equal(testdb_open(&s), 0);
    int64_t job;
    assert_int_equal(crawlstore_job_create(s, "t", "{}", "{}", &job), ERR_OK);
    assert_int_equal(crawlstore_site_add(s, job, "start.test", "http://start.test/", "start",
                                         "border", NAN, -1, 2.0),
                     ERR_OK);
    char *host, *home;
    double rank;
    /* The start site is claimed first; the border is then empty. */
    assert_int_equal(crawlstore_claim(s, job, "w1", &host, &home, &rank), ERR_OK);
    assert_string_equal(host, "start.test");
    assert_float_equal(rank, 2.0, 1e-12);
    free(host);
    free(home);
    assert_int_equal(crawlstore_claim(s, job, "w1", &host, &home, &rank), ERR_NOTFOUND);

    /* Figure 3 with combined weights: start.test (0.6) links to u.test from 0.9 and 0.5. */
    struct crawlstore_edge e1[] = {
        {"u.test", "http://u.test/", 1.4, 2, edges_weight(EDGES_COMBINED, 0.6, 1.4, 2)},
        {"v.test", "http://v.test/", 0.9, 1, edges_weight(EDGES_COMBINED, 0.6, 0.9, 1)}};
    examine(s, job, "start.test", 0.6, e1, 2);
    assert_float_equal(site_rank(s, job, "u.test"), 0.65, 1e-9);
    assert_float_equal(site_rank(s, job, "v.test"), 0.75, 1e-9);

    /* Examining a site twice is refused and changes nothing. */
    struct crawlstore_page pg[] = {{"http://x/", "ok", 200, 1, 0.5, 0.5, NULL}};
    struct crawlstore_site_result again = {"start.test", 0.1, 0,    1, 1,   "crawl", pg,   1,
                                           NULL,         0,   NULL, 0, NAN, NULL,    NULL, NULL,
                                           NULL,         0,   0,    0, NULL};
    assert_int_equal(crawlstore_site_done(s, job, &again), ERR_CONFLICT);

    /* The explanation is stored with the verdict: prior, how, why, posteriors, weights. */
    assert_string_equal(one_cell(s, job,
                                 "SELECT prior || ' ' || verdict_by || ' ' || read_stop FROM sites"
                                 " WHERE job_id = $1 AND host = 'start.test'"),
                        "0.5 threshold verdict");
    assert_string_equal(
        one_cell(s, job,
                 "SELECT string_agg(coalesce(posterior::text, '-'), ' ' ORDER BY id)"
                 " FROM pages WHERE job_id = $1 AND host = 'start.test'"),
        "0.6 0.6");
    assert_string_equal(one_cell(s, job,
                                 "SELECT string_agg(round(weight::numeric, 6)::text, ' '"
                                 " ORDER BY dst_host) FROM edges WHERE job_id = $1"),
                        "0.650000 0.750000");

    /* Highest rank first: v.test (0.75), by two workers: different sites. */
    char *h1, *h2, *x;
    assert_int_equal(crawlstore_claim(s, job, "w1", &h1, &x, NULL), ERR_OK);
    free(x);
    assert_int_equal(crawlstore_claim(s, job, "w2", &h2, &x, NULL), ERR_OK);
    free(x);
    assert_string_equal(h1, "v.test");
    assert_string_equal(h2, "u.test");

    /* v.test (0.2) also links to u.test from one page with 0.1: rank = (0.65 + 0.15) / 2. */
    struct crawlstore_edge e2[] = {
        {"u.test", "http://u.test/", 0.1, 1, edges_weight(EDGES_COMBINED, 0.2, 0.1, 1)}};
    examine(s, job, "v.test", 0.2, e2, 1);
    assert_float_equal(site_rank(s, job, "u.test"), 0.4, 1e-9);

    /* w2 dies: its claim goes back to the border; w1's unclaim leaves it alone. */
    int n = -1;
    assert_int_equal(crawlstore_unclaim(s, job, "w1", &n), ERR_OK);
    assert_int_equal(n, 0);
    assert_int_equal(crawlstore_unclaim(s, job, NULL, &n), ERR_OK);
    assert_int_equal(n, 1);

    struct crawlstore_counts c;
    assert_int_equal(crawlstore_counts(s, job, &c), ERR_OK);
    assert_int_equal(c.examined, 2);
    assert_int_equal(c.relevant, 1);
    assert_int_equal(c.pages, 4);
    assert_int_equal(c.border, 1);
    free(h1);
    free(h2);
    store_free(s);
}

/*
 * Claims a runner lost track of (a claim sent again after its answer was lost, an
 * examination a crash took) go back to the border; those it holds, and other runners',
 * stay claimed.
 */
static void test_lost_claims_given_back(void **state)
{
    (void)state;
    struct store *s;
    assert_int_equal(testdb_open(&s), 0);
    int64_t job;
    assert_int_equal(crawlstore_job_create(s, "t", "{}", "{}", &job), ERR_OK);
    const char *hosts[] = {"a.test", "b.test", "c.test", "d.test"};
    for (int i = 0; i < 4; i++) {
        char home[32];
        snprintf(home, sizeof home, "http://%s/", hosts[i]);
        assert_int_equal(
            crawlstore_site_add(s, job, hosts[i], home, "discovered", "border", NAN, -1, 4.0 - i),
            ERR_OK);
    }
    struct crawlstore_claimed c[3];
    int got;
    assert_int_equal(crawlstore_claim_many(s, job, "w1", 3, c, &got), ERR_OK);
    assert_int_equal(got, 3);
    char *h, *home;
    assert_int_equal(crawlstore_claim(s, job, "w2", &h, &home, NULL), ERR_OK);
    const char *held[] = {"b.test"};
    int back = -1;
    assert_int_equal(crawlstore_unclaim_lost(s, job, "w1", held, 1, &back), ERR_OK);
    assert_int_equal(back, 2);
    assert_string_equal(one_cell(s, job,
                                 "SELECT string_agg(host || ' ' || state || ' '"
                                 " || coalesce(claimed_by, '-'), ', ' ORDER BY host)"
                                 " FROM sites WHERE job_id = $1"),
                        "a.test border -, b.test claimed w1, c.test border -, d.test claimed w2");
    assert_int_equal(crawlstore_unclaim_lost(s, job, "w1", held, 1, &back), ERR_OK);
    assert_int_equal(back, 0);
    assert_int_equal(crawlstore_unclaim_lost(s, job, "w1", NULL, 0, &back), ERR_OK);
    assert_int_equal(back, 1);
    for (int i = 0; i < 3; i++)
        crawlstore_claimed_release(&c[i]);
    free(h);
    free(home);
    store_free(s);
}

/*
 * A crash of a database with synchronous_commit = off can lose a website's acknowledged
 * examination; the deeper read that follows finds it unexamined and records it then,
 * counters and rows agreeing (it used to fail the job: "site ... is not examined").
 */
static void test_deeper_read_of_a_lost_examination(void **state)
{
    (void)state;
    struct store *s;
    assert_int_equal(testdb_open(&s), 0);
    int64_t job;
    assert_int_equal(crawlstore_job_create(s, "t", "{}", "{}", &job), ERR_OK);
    assert_int_equal(crawlstore_site_add(s, job, "lost.test", "http://lost.test/", "discovered",
                                         "border", NAN, -1, 1.0),
                     ERR_OK);
    char *host, *home;
    assert_int_equal(crawlstore_claim(s, job, "w1", &host, &home, NULL), ERR_OK);
    free(host);
    free(home);
    struct crawlstore_page pg[] = {{"http://lost.test/deep", "ok", 200, 1, 0.8, 0.9, NULL},
                                   {"http://lost.test/deeper", "ok", 200, 1, 0.7, 0.9, NULL}};
    struct crawlstore_site_result more = {
        "lost.test",     0.9,  1,    0, 3, "crawl", pg,  2, NULL, 0, NULL, 0, NAN, NULL,
        "no_more_pages", NULL, NULL, 0, 0, 0,       NULL};
    assert_int_equal(crawlstore_site_more(s, job, &more), ERR_OK);
    assert_string_equal(one_cell(s, job,
                                 "SELECT state || ' ' || relevant || ' ' || pages_visited"
                                 " || ' ' || coalesce(claimed_by, '-') FROM sites"
                                 " WHERE job_id = $1 AND host = 'lost.test'"),
                        "examined true 3 -");
    struct crawlstore_counts c;
    assert_int_equal(crawlstore_counts(s, job, &c), ERR_OK);
    assert_int_equal(c.examined, 1);
    assert_int_equal(c.relevant, 1);
    assert_int_equal(c.pages, 3);
    assert_string_equal(one_cell(s, job,
                                 "SELECT count(*) FROM pages WHERE job_id = $1"
                                 " AND host = 'lost.test'"),
                        "2");
    /* A site with no row at all: refused, nothing written. */
    more.host = "nowhere.test";
    assert_int_equal(crawlstore_site_more(s, job, &more), ERR_CONFLICT);
    assert_int_equal(crawlstore_counts(s, job, &c), ERR_OK);
    assert_int_equal(c.pages, 3);
    store_free(s);
}

/*
 * A running crawl counts its border every second: beyond CRAWLSTORE_BORDER_COUNT_MAX
 * websites it is counted as that many (a million took seconds to count). Claims come in
 * the border's order, ties in rank by discovery, then by host.
 */
static void test_large_border_counted_up_to_the_cap(void **state)
{
    (void)state;
    struct store *s;
    assert_int_equal(testdb_open(&s), 0);
    int64_t job;
    assert_int_equal(crawlstore_job_create(s, "t", "{}", "{}", &job), ERR_OK);
    char ids[32], n[32];
    snprintf(ids, sizeof ids, "%lld", (long long)job);
    snprintf(n, sizeof n, "%d", CRAWLSTORE_BORDER_COUNT_MAX + 50);
    const char *p[] = {ids, n};
    /* Ranks 0..9 (ties by the thousand), all found at once but the last three. */
    assert_int_equal(store_exec(s,
                                "INSERT INTO sites (job_id, host, homepage, rank, discovered_at) "
                                "SELECT $1, 'h' || i || '.test', 'http://h' || i || '.test/',"
                                " i % 10, CASE i WHEN 9 THEN now() - interval '1 s'"
                                " WHEN 19 THEN now() - interval '2 s' ELSE now() END "
                                "FROM generate_series(1, $2::int) i",
                                2, p),
                     ERR_OK);
    struct crawlstore_counts c;
    assert_int_equal(crawlstore_counts(s, job, &c), ERR_OK);
    assert_int_equal(c.border, CRAWLSTORE_BORDER_COUNT_MAX);
    assert_int_equal(c.claimed, 0);
    const char *want[] = {"h19.test", "h9.test", "h10009.test"}; /* then by host, as text */
    for (int i = 0; i < 3; i++) {
        char *host, *home;
        double rank;
        assert_int_equal(crawlstore_claim(s, job, "w1", &host, &home, &rank), ERR_OK);
        assert_string_equal(host, want[i]);
        assert_float_equal(rank, 9, 0);
        free(host);
        free(home);
    }
    assert_int_equal(crawlstore_counts(s, job, &c), ERR_OK);
    assert_int_equal(c.border, CRAWLSTORE_BORDER_COUNT_MAX);
    assert_int_equal(c.claimed, 3);

    /* Several at once: exactly as many as asked, best first, the same order. */
    struct crawlstore_claimed many[CRAWLSTORE_CLAIM_MAX];
    int got;
    assert_int_equal(crawlstore_claim_many(s, job, "w2", 20, many, &got), ERR_OK);
    assert_int_equal(got, 20);
    for (int i = 0; i < got; i++) {
        assert_float_equal(many[i].rank, 9, 0);
        if (i > 0) /* ties by host, as text */
            assert_true(strcmp(many[i - 1].host, many[i].host) < 0);
    }
    assert_int_equal(crawlstore_counts(s, job, &c), ERR_OK);
    assert_int_equal(c.claimed, 23);
    for (int i = 0; i < got; i++)
        crawlstore_claimed_release(&many[i]);
    assert_int_equal(crawlstore_claim_many(s, job, "w2", 0, many, &got), ERR_INVAL);
    assert_int_equal(crawlstore_claim_many(s, job, "w2", CRAWLSTORE_CLAIM_MAX + 1, many, &got),
                     ERR_INVAL);
    store_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_figure3_edge_weights),
        cmocka_unit_test(test_border_ranks_and_claims),
        cmocka_unit_test(test_deeper_read_of_a_lost_examination),
        cmocka_unit_test(test_lost_claims_given_back),
        cmocka_unit_test(test_large_border_counted_up_to_the_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
