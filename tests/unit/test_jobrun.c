/*
 * Running a job (job/jobrun.c) against the PostgreSQL fixture and a replay of the demo
 * web: the demo's sci.space job trains, crawls to its page budget and ends done, its
 * counters equal to its rows, its model, metrics and lease as a user finds them; a job
 * another runner holds, and one that does not exist, are refused.
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

#include "crawler/fetch.h"
#include "job/jobrun.h"
#include "job/jobspec.h"
#include "store/joblease.h"
#include "store/store.h"
#include "testdb.h"
#include "testdemo.h"
#include "testreplay.h"

#define BUDGET 120

struct fixture {
    struct testreplay *replay;
    struct store *s;
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    if (!f || testreplay_group_setup((void **)&f->replay) != 0 || testdb_open(&f->s) != 0)
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    store_free(f->s);
    testreplay_group_teardown((void **)&f->replay);
    free(f);
    return 0;
}

/* The demo's sci.space job (demo/demo.jobs.json), fast: no politeness delay, 3 training
 * pages a website, a budget of BUDGET pages. */
static struct jobspec *demo_job(void)
{
    return testdemo_job(json_pack("{s:i, s:i, s:i, s:i}", "politeness_delay_ms", 0, "concurrency",
                                  16, "train_pages_per_site", 3, "max_pages", BUDGET));
}

/* The one number SQL gives for job id ($1). */
static int64_t count(struct store *s, const char *sql, int64_t id)
{
    char ids[32];
    snprintf(ids, sizeof ids, "%lld", (long long)id);
    const char *p[] = {ids};
    struct store_rows *r;
    if (store_query(s, sql, 1, p, &r) != ERR_OK)
        fail_msg("%s: %s", sql, err_msg());
    int64_t n = store_rows_i64(r, 0, 0, -1);
    store_rows_free(r);
    return n;
}

static void test_a_job_runs_to_its_budget(void **state)
{
    struct fixture *f = *state;
    struct jobspec *js = demo_job();
    int64_t id;
    assert_int_equal(jobrun_create_here(f->s, js, &id), ERR_OK);
    jobspec_free(js);
    struct jobrun_options o = {.proxy = f->replay->proxy};
    enum crawl_stop why = CRAWL_RUNNING;
    if (jobrun_run(f->s, id, &o, &why) != ERR_OK)
        fail_msg("job %lld: %s", (long long)id, err_msg());
    assert_int_equal(why, CRAWL_MAX_PAGES);

    struct store_rows *r;
    char ids[32];
    snprintf(ids, sizeof ids, "%lld", (long long)id);
    const char *p[] = {ids};
    assert_int_equal(store_query(f->s,
                                 "SELECT state, stop_reason, coalesce(error, ''), pages_downloaded,"
                                 " sites_examined, relevant_found, worker IS NULL FROM jobs"
                                 " WHERE id = $1",
                                 1, p, &r),
                     ERR_OK);
    assert_string_equal(store_rows_get(r, 0, 2), "");
    assert_string_equal(store_rows_get(r, 0, 0), "done");
    assert_string_equal(store_rows_get(r, 0, 1), "max_pages");
    int64_t pages = store_rows_i64(r, 0, 3, -1), examined = store_rows_i64(r, 0, 4, -1),
            relevant = store_rows_i64(r, 0, 5, -1);
    assert_string_equal(store_rows_get(r, 0, 6), "t"); /* its lease let go */
    store_rows_free(r);
    /* The budget is hard; what is left could not pay for one more website (25 pages). */
    if (pages > BUDGET || pages <= BUDGET - 25)
        fail_msg("%lld pages downloaded for a budget of %d", (long long)pages, BUDGET);
    assert_true(relevant > 0);
    /* Its counters are its rows; nothing is left claimed. */
    assert_int_equal(examined, count(f->s,
                                     "SELECT count(*) FROM sites WHERE job_id = $1 AND state ="
                                     " 'examined' AND role NOT LIKE 'train%'",
                                     id));
    assert_int_equal(relevant, count(f->s,
                                     "SELECT count(*) FROM sites WHERE job_id = $1 AND state ="
                                     " 'examined' AND role NOT LIKE 'train%' AND relevant",
                                     id));
    assert_int_equal(pages, count(f->s,
                                  "SELECT count(*) FROM pages WHERE job_id = $1"
                                  " AND purpose = 'crawl'",
                                  id));
    assert_int_equal(
        0, count(f->s, "SELECT count(*) FROM sites WHERE job_id = $1 AND state = 'claimed'", id));
    /* Trained: a model, its 55 training websites; and the crawl's time series. */
    assert_true(count(f->s, "SELECT count(*) FROM models WHERE job_id = $1", id) >= 1);
    assert_int_equal(55, count(f->s,
                               "SELECT count(*) FROM sites WHERE job_id = $1 AND role IN"
                               " ('train', 'train_other')",
                               id));
    assert_true(count(f->s, "SELECT count(*) FROM metrics WHERE job_id = $1", id) >= 1);

    /* Run again, a done job is refused and stays as it is. */
    why = CRAWL_RUNNING;
    assert_int_equal(jobrun_run(f->s, id, &o, &why), ERR_CONFLICT);
    char want[64];
    snprintf(want, sizeof want, "job %lld is done: nothing to resume", (long long)id);
    assert_string_equal(err_msg(), want);
    assert_int_equal(pages, count(f->s, "SELECT pages_downloaded FROM jobs WHERE id = $1", id));
    assert_int_equal(1,
                     count(f->s, "SELECT count(*) FROM jobs WHERE id = $1 AND state = 'done'", id));
}

static void test_a_job_held_or_unknown_is_refused(void **state)
{
    struct fixture *f = *state;
    struct jobspec *js = demo_job();
    int64_t id;
    assert_int_equal(jobrun_create(f->s, js, &id), ERR_OK);
    jobspec_free(js);
    assert_int_equal(joblease_take(f->s, id, "some-other-host:1"), ERR_OK);
    struct jobrun_options o = {.proxy = f->replay->proxy};
    enum crawl_stop why = CRAWL_RUNNING;
    assert_int_equal(jobrun_run(f->s, id, &o, &why), ERR_CONFLICT);
    assert_non_null(strstr(err_msg(), "is being run by some-other-host:1"));
    assert_int_equal(1, count(f->s,
                              "SELECT count(*) FROM jobs WHERE id = $1 AND state = 'queued'"
                              " AND worker = 'some-other-host:1'",
                              id));
    assert_int_equal(0, count(f->s, "SELECT count(*) FROM pages WHERE job_id = $1", id));
    assert_int_equal(joblease_release(f->s, id, "some-other-host:1"), ERR_OK);
    assert_int_equal(jobrun_run(f->s, id + 1000000, &o, &why), ERR_NOTFOUND);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_job_runs_to_its_budget),
        cmocka_unit_test(test_a_job_held_or_unknown_is_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
