/*
 * The HTTP API's queries (store/apistore) against a real PostgreSQL: jobs created,
 * listed, fetched, ended, resumed and deleted; a job's websites page by page in each
 * order, and its border; what the API would show of each (the JSON texts, parsed).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/apistore.h"
#include "store/crawlstore.h"
#include "store/store.h"
#include "testdb.h"

/* jansson: json_loads gives a new reference (freed with json_decref); json_object_get and
 * json_array_get borrow. */

static int setup(void **state)
{
    struct store *s;
    if (testdb_open_private("sitescout_apistore", &s) != 0)
        return -1; /* the job list shows every job of the database */
    *state = s;
    return 0;
}

static int teardown(void **state)
{
    store_free(*state);
    return 0;
}

/* Each test starts with no job. */
static int empty(void **state)
{
    return store_exec(*state, "TRUNCATE jobs, sites, pages, edges, metrics CASCADE", 0, NULL) ==
                   ERR_OK
               ? 0
               : -1;
}

static int64_t new_job(struct store *s, const char *topic)
{
    int64_t job;
    assert_int_equal(crawlstore_job_create(s, topic, "{}", "{\"max_pages\": 100}", &job), ERR_OK);
    return job;
}

static void set_state(struct store *s, int64_t job, const char *state)
{
    char id[32];
    snprintf(id, sizeof id, "%lld", (long long)job);
    const char *p[] = {id, state};
    assert_int_equal(store_exec(s, "UPDATE jobs SET state = $2 WHERE id = $1", 2, p), ERR_OK);
}

/*
 * A website of job: role, state, confidence ("" for NULL), relevant ("" for NULL), rank,
 * and its examination (or discovery, on the border) `at` seconds into a fixed day.
 */
static void add_site(struct store *s, int64_t job, const char *host, const char *role,
                     const char *state, const char *confidence, const char *relevant,
                     const char *rank, const char *at)
{
    char id[32];
    snprintf(id, sizeof id, "%lld", (long long)job);
    const char *p[] = {
        id,   host, role, state, *confidence ? confidence : NULL, *relevant ? relevant : NULL,
        rank, at};
    assert_int_equal(
        store_exec(s,
                   "INSERT INTO sites (job_id, host, homepage, role, state, confidence, relevant,"
                   " rank, examined_at, discovered_at) VALUES ($1, $2, 'http://' || $2 || '/',"
                   " $3, $4, $5, $6, $7, CASE WHEN $4 = 'examined' THEN timestamptz"
                   " '2026-01-01 00:00:00+00' + make_interval(secs => $8::float8) END,"
                   " timestamptz '2026-01-01 00:00:00+00' + make_interval(secs => $8::float8))",
                   8, p),
        ERR_OK);
}

static json_t *parse(char *text)
{
    assert_non_null(text);
    json_error_t jerr;
    json_t *j = json_loads(text, 0, &jerr);
    if (!j)
        fail_msg("not JSON (%s): %s", jerr.text, text);
    free(text);
    return j;
}

static int64_t int_of(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    if (!json_is_integer(v))
        fail_msg("no integer '%s'", key);
    return (int64_t)json_integer_value(v);
}

static const char *str_of(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    if (!json_is_string(v))
        fail_msg("no string '%s'", key);
    return json_string_value(v);
}

/* The "host" (or "id") of each element of array key of o, joined with spaces. */
static void list_of(const json_t *o, const char *key, const char *field, char *out, size_t cap)
{
    const json_t *a = json_object_get(o, key);
    assert_true(json_is_array(a));
    size_t n = 0, i;
    const json_t *x;
    out[0] = '\0';
    json_array_foreach(a, i, x)
    {
        const json_t *v = json_object_get(x, field);
        if (json_is_string(v))
            n += (size_t)snprintf(out + n, cap - n, "%s%s", n ? " " : "", json_string_value(v));
        else
            n += (size_t)snprintf(out + n, cap - n, "%s%lld", n ? " " : "",
                                  (long long)json_integer_value(v));
        assert_true(n < cap);
    }
}

/* The sites page of job as the API would show it. */
static json_t *sites(struct store *s, int64_t job, int relevant, const char *role,
                     enum apistore_order order, int64_t limit, int64_t offset)
{
    char *text = NULL;
    assert_int_equal(apistore_sites(s, job, relevant, role, order, limit, offset, &text), ERR_OK);
    return parse(text);
}

static void test_jobs_listed_newest_first(void **state)
{
    struct store *s = *state;
    int64_t a = new_job(s, "alpha"), b = new_job(s, "beta"), c = new_job(s, "gamma");
    set_state(s, b, "done");
    char want[128], got[256];
    char *text = NULL;
    assert_int_equal(apistore_jobs(s, NULL, 50, 0, &text), ERR_OK);
    json_t *j = parse(text);
    snprintf(want, sizeof want, "%lld %lld %lld", (long long)c, (long long)b, (long long)a);
    list_of(j, "jobs", "id", got, sizeof got);
    assert_string_equal(got, want);
    assert_int_equal(int_of(j, "total"), 3);
    json_decref(j);

    /* A page of one, the second: the total is still every job. */
    assert_int_equal(apistore_jobs(s, NULL, 1, 1, &text), ERR_OK);
    j = parse(text);
    snprintf(want, sizeof want, "%lld", (long long)b);
    list_of(j, "jobs", "id", got, sizeof got);
    assert_string_equal(got, want);
    assert_int_equal(int_of(j, "total"), 3);
    assert_int_equal(int_of(j, "limit"), 1);
    assert_int_equal(int_of(j, "offset"), 1);
    json_decref(j);

    /* Past the end: an empty page. A state: only its jobs, counted alone. */
    assert_int_equal(apistore_jobs(s, NULL, 50, 3, &text), ERR_OK);
    j = parse(text);
    assert_int_equal(json_array_size(json_object_get(j, "jobs")), 0);
    assert_int_equal(int_of(j, "total"), 3);
    json_decref(j);
    assert_int_equal(apistore_jobs(s, "queued", 50, 0, &text), ERR_OK);
    j = parse(text);
    snprintf(want, sizeof want, "%lld %lld", (long long)c, (long long)a);
    list_of(j, "jobs", "id", got, sizeof got);
    assert_string_equal(got, want);
    assert_int_equal(int_of(j, "total"), 2);
    json_decref(j);
    assert_int_equal(apistore_jobs(s, "failed", 50, 0, &text), ERR_OK);
    j = parse(text);
    assert_int_equal(json_array_size(json_object_get(j, "jobs")), 0);
    assert_int_equal(int_of(j, "total"), 0);
    json_decref(j);
}

static void test_job_fetched(void **state)
{
    struct store *s = *state;
    int64_t job = new_job(s, "rec.sport.hockey");
    char *text = NULL;
    assert_int_equal(apistore_job(s, job, &text), ERR_OK);
    json_t *j = parse(text);
    assert_int_equal(int_of(j, "id"), job);
    assert_string_equal(str_of(j, "topic"), "rec.sport.hockey");
    assert_string_equal(str_of(j, "state"), "queued");
    assert_true(json_is_null(json_object_get(j, "phase")));
    assert_true(json_is_null(json_object_get(j, "runner"))); /* not running */
    assert_int_equal(int_of(json_object_get(j, "params"), "max_pages"), 100);
    const json_t *counters = json_object_get(j, "counters");
    assert_int_equal(int_of(counters, "pages_downloaded"), 0);
    assert_int_equal(int_of(counters, "relevant_found"), 0);
    assert_true(json_is_null(json_object_get(j, "harvest_rate"))); /* nothing examined */
    assert_true(json_is_null(json_object_get(j, "pprs")));
    assert_int_equal(int_of(j, "border_sites"), 0);
    json_decref(j);

    /* Counters give the rates; the page budget, the progress. */
    char id[32];
    snprintf(id, sizeof id, "%lld", (long long)job);
    const char *p[] = {id};
    assert_int_equal(store_exec(s,
                                "UPDATE jobs SET state = 'crawling', pages_downloaded = 50,"
                                " sites_examined = 4, relevant_found = 2 WHERE id = $1",
                                1, p),
                     ERR_OK);
    assert_int_equal(apistore_job(s, job, &text), ERR_OK);
    j = parse(text);
    assert_string_equal(str_of(j, "phase"), "crawling");
    assert_true(json_number_value(json_object_get(j, "harvest_rate")) == 0.5);
    assert_true(json_number_value(json_object_get(j, "pprs")) == 25);
    assert_true(json_number_value(json_object_get(json_object_get(j, "progress"), "max_pages")) ==
                0.5);
    assert_false(json_is_true(json_object_get(json_object_get(j, "runner"), "alive")));
    json_decref(j);

    text = NULL;
    assert_int_equal(apistore_job(s, job + 1000, &text), ERR_NOTFOUND);
    assert_null(text);
    char want[64];
    snprintf(want, sizeof want, "no job %lld", (long long)(job + 1000));
    assert_string_equal(err_msg(), want);
}

/*
 * A job's websites: examined ones in the list (training sites, the border and failed
 * ones left out), in each order, page by page.
 */
static int64_t job_with_sites(struct store *s)
{
    int64_t job = new_job(s, "sites");
    /* host, role, state, confidence, relevant, rank, seconds */
    add_site(s, job, "b.example", "discovered", "examined", "0.8", "true", "0.2", "30");
    add_site(s, job, "a.example", "discovered", "examined", "0.8", "true", "0.5", "30");
    add_site(s, job, "c.example", "start", "examined", "0.8", "true", "0.1", "10");
    add_site(s, job, "d.example", "discovered", "examined", "0.95", "true", "0.1", "40");
    add_site(s, job, "e.example", "discovered", "examined", "0.2", "false", "0.9", "20");
    add_site(s, job, "f.example", "discovered", "examined", "", "false", "0.3", "5");
    add_site(s, job, "t.example", "train", "examined", "0.99", "true", "0", "1");
    add_site(s, job, "u.example", "train_other", "examined", "0.01", "false", "0", "2");
    add_site(s, job, "x.example", "discovered", "border", "", "", "0.7", "3");
    add_site(s, job, "y.example", "discovered", "border", "", "", "0.7", "1");
    add_site(s, job, "z.example", "discovered", "border", "", "", "0.9", "4");
    add_site(s, job, "w.example", "discovered", "failed", "", "", "0.4", "6");
    return job;
}

static void test_sites_in_each_order(void **state)
{
    struct store *s = *state;
    int64_t job = job_with_sites(s);
    char got[512];
    /* Confidence first (unknown last), then the earlier examined, then the host. */
    json_t *j = sites(s, job, -1, NULL, APISTORE_BY_CONFIDENCE, 50, 0);
    list_of(j, "sites", "host", got, sizeof got);
    assert_string_equal(got, "d.example c.example a.example b.example e.example f.example");
    assert_int_equal(int_of(j, "total"), 6);
    const json_t *first = json_array_get(json_object_get(j, "sites"), 0);
    assert_string_equal(str_of(first, "homepage"), "http://d.example/");
    assert_string_equal(str_of(first, "role"), "discovered");
    assert_string_equal(str_of(first, "judged_by"), "examination");
    assert_true(json_is_true(json_object_get(first, "relevant")));
    assert_non_null(strstr(str_of(first, "found_at"), "2026-01-01T00:00:40"));
    json_decref(j);
    /* Rank first, then confidence, then host. */
    j = sites(s, job, -1, NULL, APISTORE_BY_RANK, 50, 0);
    list_of(j, "sites", "host", got, sizeof got);
    assert_string_equal(got, "e.example a.example f.example b.example d.example c.example");
    json_decref(j);
    /* As found: examined first, then host. */
    j = sites(s, job, -1, NULL, APISTORE_BY_FOUND, 50, 0);
    list_of(j, "sites", "host", got, sizeof got);
    assert_string_equal(got, "f.example c.example e.example a.example b.example d.example");
    json_decref(j);
}

static void test_sites_filtered(void **state)
{
    struct store *s = *state;
    int64_t job = job_with_sites(s);
    char got[512];
    json_t *j = sites(s, job, 1, NULL, APISTORE_BY_CONFIDENCE, 50, 0);
    list_of(j, "sites", "host", got, sizeof got);
    assert_string_equal(got, "d.example c.example a.example b.example");
    assert_int_equal(int_of(j, "total"), 4);
    json_decref(j);
    j = sites(s, job, 0, NULL, APISTORE_BY_CONFIDENCE, 50, 0);
    list_of(j, "sites", "host", got, sizeof got);
    assert_string_equal(got, "e.example f.example");
    assert_int_equal(int_of(j, "total"), 2);
    json_decref(j);
    j = sites(s, job, 1, "start", APISTORE_BY_CONFIDENCE, 50, 0);
    list_of(j, "sites", "host", got, sizeof got);
    assert_string_equal(got, "c.example");
    assert_int_equal(int_of(j, "total"), 1);
    json_decref(j);
    j = sites(s, job, -1, "discovered", APISTORE_BY_CONFIDENCE, 50, 0);
    assert_int_equal(int_of(j, "total"), 5);
    json_decref(j);
}

static void test_sites_page_by_page(void **state)
{
    struct store *s = *state;
    int64_t job = job_with_sites(s);
    const char *const want[] = {"d.example c.example", "a.example b.example",
                                "e.example f.example"};
    char got[512];
    for (int page = 0; page < 3; page++) {
        json_t *j = sites(s, job, -1, NULL, APISTORE_BY_CONFIDENCE, 2, 2 * page);
        list_of(j, "sites", "host", got, sizeof got);
        assert_string_equal(got, want[page]);
        assert_int_equal(int_of(j, "total"), 6);
        assert_int_equal(int_of(j, "limit"), 2);
        assert_int_equal(int_of(j, "offset"), 2 * page);
        json_decref(j);
    }
    /* The last page is short; past the end, and a limit of 0, are empty; total stays. */
    json_t *j = sites(s, job, -1, NULL, APISTORE_BY_CONFIDENCE, 4, 4);
    list_of(j, "sites", "host", got, sizeof got);
    assert_string_equal(got, "e.example f.example");
    json_decref(j);
    j = sites(s, job, -1, NULL, APISTORE_BY_CONFIDENCE, 50, 6);
    assert_int_equal(json_array_size(json_object_get(j, "sites")), 0);
    assert_int_equal(int_of(j, "total"), 6);
    json_decref(j);
    j = sites(s, job, -1, NULL, APISTORE_BY_CONFIDENCE, 0, 0);
    assert_int_equal(json_array_size(json_object_get(j, "sites")), 0);
    assert_int_equal(int_of(j, "total"), 6);
    json_decref(j);
}

static void test_sites_of_unknown_and_empty_jobs(void **state)
{
    struct store *s = *state;
    int64_t job = new_job(s, "empty");
    json_t *j = sites(s, job, -1, NULL, APISTORE_BY_CONFIDENCE, 50, 0);
    assert_int_equal(json_array_size(json_object_get(j, "sites")), 0);
    assert_int_equal(int_of(j, "total"), 0);
    json_decref(j);
    char *text = NULL;
    assert_int_equal(apistore_sites(s, job + 1, -1, NULL, APISTORE_BY_RANK, 50, 0, &text),
                     ERR_NOTFOUND);
    assert_null(text);
    assert_int_equal(apistore_border(s, job + 1, 50, &text), ERR_NOTFOUND);
    assert_int_equal(apistore_metrics(s, job + 1, -1, &text), ERR_NOTFOUND);
    assert_int_equal(apistore_site(s, job + 1, "a.example", &text), ERR_NOTFOUND);
}

static void test_border_in_claim_order(void **state)
{
    struct store *s = *state;
    int64_t job = job_with_sites(s);
    char *text = NULL;
    char got[512];
    /* Best rank first, then the earlier found, then the host. */
    assert_int_equal(apistore_border(s, job, 50, &text), ERR_OK);
    json_t *j = parse(text);
    list_of(j, "border", "host", got, sizeof got);
    assert_string_equal(got, "z.example y.example x.example");
    assert_int_equal(int_of(j, "total"), 3);
    assert_false(json_is_true(json_object_get(j, "total_capped")));
    json_decref(j);
    assert_int_equal(apistore_border(s, job, 2, &text), ERR_OK);
    j = parse(text);
    list_of(j, "border", "host", got, sizeof got);
    assert_string_equal(got, "z.example y.example");
    assert_int_equal(int_of(j, "total"), 3);
    json_decref(j);
    /* The job counts its border too. */
    assert_int_equal(apistore_job(s, job, &text), ERR_OK);
    j = parse(text);
    assert_int_equal(int_of(j, "border_sites"), 3);
    json_decref(j);
}

static void test_one_site(void **state)
{
    struct store *s = *state;
    int64_t job = job_with_sites(s);
    char id[32];
    snprintf(id, sizeof id, "%lld", (long long)job);
    const char *p[] = {id};
    assert_int_equal(store_exec(s,
                                "INSERT INTO pages (job_id, host, url, status, pr_target) VALUES"
                                " ($1, 'a.example', 'http://a.example/', 200, 0.9),"
                                " ($1, 'a.example', 'http://a.example/b', 404, NULL),"
                                " ($1, 'b.example', 'http://b.example/', 200, 0.7)",
                                1, p),
                     ERR_OK);
    assert_int_equal(store_exec(s,
                                "INSERT INTO edges (job_id, src_host, dst_host, conf_sum,"
                                " page_count) VALUES ($1, 'a.example', 'z.example', 0.9, 1),"
                                " ($1, 'a.example', 'x.example', 1.5, 2),"
                                " ($1, 'd.example', 'a.example', 0.4, 1)",
                                1, p),
                     ERR_OK);
    char *text = NULL;
    assert_int_equal(apistore_site(s, job, "a.example", &text), ERR_OK);
    json_t *j = parse(text);
    char got[256];
    assert_string_equal(str_of(j, "state"), "examined");
    list_of(j, "pages", "url", got, sizeof got);
    assert_string_equal(got, "http://a.example/ http://a.example/b"); /* as read */
    list_of(j, "edges_out", "host", got, sizeof got);
    assert_string_equal(got, "x.example z.example");
    list_of(j, "edges_in", "host", got, sizeof got);
    assert_string_equal(got, "d.example");
    json_decref(j);
    assert_int_equal(apistore_site(s, job, "nowhere.example", &text), ERR_NOTFOUND);
    char want[96];
    snprintf(want, sizeof want, "job %lld has no site nowhere.example", (long long)job);
    assert_string_equal(err_msg(), want);
}

static void test_end_resume_delete(void **state)
{
    struct store *s = *state;
    int64_t job = job_with_sites(s);
    /* A queued job cannot be deleted, nor resumed; it can be ended. */
    assert_int_equal(apistore_job_delete(s, job), ERR_CONFLICT);
    assert_int_equal(apistore_job_resume(s, job), ERR_CONFLICT);
    char want[96];
    snprintf(want, sizeof want, "job %lld is not paused", (long long)job);
    assert_string_equal(err_msg(), want);
    /* A paused job resumes: with no model, it trains again (queued). */
    set_state(s, job, "paused");
    assert_int_equal(apistore_job_resume(s, job), ERR_OK);
    char *text = NULL;
    assert_int_equal(apistore_job(s, job, &text), ERR_OK);
    json_t *j = parse(text);
    assert_string_equal(str_of(j, "state"), "queued");
    json_decref(j);
    /* A running job is not ended by the API's stop (the runner must be told). */
    set_state(s, job, "crawling");
    int ended = -1;
    assert_int_equal(apistore_job_end(s, job, &ended), ERR_OK);
    assert_int_equal(ended, 0);
    assert_int_equal(apistore_job_delete(s, job), ERR_CONFLICT);
    set_state(s, job, "queued");
    assert_int_equal(apistore_job_end(s, job, &ended), ERR_OK);
    assert_int_equal(ended, 1);
    assert_int_equal(apistore_job(s, job, &text), ERR_OK);
    j = parse(text);
    assert_string_equal(str_of(j, "state"), "done");
    assert_string_equal(str_of(j, "stop_reason"), "user_stop");
    json_decref(j);

    /* Deleted: gone, with its websites; another job keeps its own. */
    int64_t other = job_with_sites(s);
    assert_int_equal(apistore_job_delete(s, job), ERR_OK);
    assert_int_equal(apistore_job(s, job, &text), ERR_NOTFOUND);
    assert_int_equal(apistore_sites(s, job, -1, NULL, APISTORE_BY_CONFIDENCE, 50, 0, &text),
                     ERR_NOTFOUND);
    assert_int_equal(apistore_job_delete(s, job), ERR_NOTFOUND);
    struct store_rows *r;
    assert_int_equal(store_query(s, "SELECT job_id, count(*) FROM sites GROUP BY 1", 0, NULL, &r),
                     ERR_OK);
    assert_int_equal(store_rows_count(r), 1);
    assert_int_equal(store_rows_i64(r, 0, 0, -1), other);
    assert_int_equal(store_rows_i64(r, 0, 1, -1), 12);
    store_rows_free(r);
    assert_int_equal(apistore_jobs(s, NULL, 50, 0, &text), ERR_OK);
    j = parse(text);
    assert_int_equal(int_of(j, "total"), 1);
    json_decref(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_jobs_listed_newest_first, empty),
        cmocka_unit_test_setup(test_job_fetched, empty),
        cmocka_unit_test_setup(test_sites_in_each_order, empty),
        cmocka_unit_test_setup(test_sites_filtered, empty),
        cmocka_unit_test_setup(test_sites_page_by_page, empty),
        cmocka_unit_test_setup(test_sites_of_unknown_and_empty_jobs, empty),
        cmocka_unit_test_setup(test_border_in_claim_order, empty),
        cmocka_unit_test_setup(test_one_site, empty),
        cmocka_unit_test_setup(test_end_resume_delete, empty),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
