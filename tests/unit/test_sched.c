/*
 * The job scheduler of `sitescout serve` (server/sched.c) against the PostgreSQL
 * fixture: its workers take every queued job, run each once to its end and let its
 * lease go; stopped, they end. The jobs' websites are on 127.0.0.1, which the fetcher
 * refuses (no private addresses), so each job fails at once in training: no web needed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "crawler/fetch.h"
#include "job/jobrun.h"
#include "job/jobspec.h"
#include "server/sched.h"
#include "store/store.h"
#include "testdb.h"

static int setup(void **state)
{
    struct store *s;
    if (testdb_open_private("sitescout_sched", &s) != 0)
        return -1; /* the workers take any job of the database */
    *state = s;
    return 0;
}

static int teardown(void **state)
{
    store_free(*state);
    return 0;
}

static int64_t new_job(struct store *s, const char *topic)
{
    char body[512];
    snprintf(body, sizeof body,
             "{\"topic\": \"%s\", \"relevant_sites\": [\"http://127.0.0.1:9/\","
             " \"http://127.0.0.2:9/\"], \"other_sites\": [\"http://127.0.0.3:9/\","
             " \"http://127.0.0.4:9/\"], \"params\": {\"max_pages\": 10}}",
             topic);
    struct jobspec *js = NULL;
    if (jobspec_parse(body, strlen(body), &js) != ERR_OK)
        fail_msg("%s", err_msg());
    int64_t id;
    assert_int_equal(jobrun_create(s, js, &id), ERR_OK);
    jobspec_free(js);
    return id;
}

/* The jobs of the database not yet ended (done or failed). */
static int64_t running(struct store *s)
{
    struct store_rows *r;
    assert_int_equal(store_query(s,
                                 "SELECT count(*) FROM jobs WHERE state NOT IN ('done', 'failed')",
                                 0, NULL, &r),
                     ERR_OK);
    int64_t n = store_rows_i64(r, 0, 0, -1);
    store_rows_free(r);
    return n;
}

static void test_every_queued_job_runs_once_and_lets_its_lease_go(void **state)
{
    struct store *s = *state;
    int64_t a = new_job(s, "first"), b = new_job(s, "second"), c = new_job(s, "third");
    struct fetch_config fc;
    fetch_config_defaults(&fc);
    struct fetch_pool *pool = NULL;
    assert_int_equal(fetch_pool_new(&fc, &pool), ERR_OK);
    struct sched_config sc = {.db_url = store_url(s), .workers = 2, .pool = pool};
    struct sched *sched = NULL;
    assert_int_equal(sched_new(&sc, &sched), ERR_OK);
    assert_int_equal(sched_start(sched), ERR_OK);
    /* Wait for the event: every job ended (60 s at most, in steps of 50 ms). */
    int64_t left = -1;
    for (int i = 0; i < 1200 && (left = running(s)) != 0; i++) {
        struct timespec ts = {0, 50 * 1000000L};
        nanosleep(&ts, NULL);
    }
    sched_free(sched);
    fetch_pool_free(pool);
    if (left != 0)
        fail_msg("the scheduler did not run every queued job within 60 s: %lld left",
                 (long long)left);
    /* Each ran to its end (its training's error), none holds a lease. */
    struct store_rows *r;
    assert_int_equal(
        store_query(s,
                    "SELECT id, state, error, worker IS NULL,"
                    " started_at IS NOT NULL, coalesce(finished_at >= started_at, false)"
                    " FROM jobs ORDER BY id",
                    0, NULL, &r),
        ERR_OK);
    assert_int_equal(store_rows_count(r), 3);
    const int64_t ids[] = {a, b, c};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(store_rows_i64(r, i, 0, -1), ids[i]);
        assert_string_equal(store_rows_get(r, i, 1), "failed");
        const char *error = store_rows_get(r, i, 2);
        if (!error || !strstr(error, "no training page could be fetched from the relevant sites"))
            fail_msg("job %lld: error %s", (long long)ids[i], error ? error : "(none)");
        for (int col = 3; col <= 5; col++)
            if (strcmp(store_rows_get(r, i, col), "t") != 0)
                fail_msg("job %lld: column %d (lease gone, started, ended) is not so",
                         (long long)ids[i], col);
    }
    store_rows_free(r);
}

static void test_stopped_with_no_job(void **state)
{
    struct store *s = *state;
    struct fetch_config fc;
    fetch_config_defaults(&fc);
    struct fetch_pool *pool = NULL;
    assert_int_equal(fetch_pool_new(&fc, &pool), ERR_OK);
    struct sched_config sc = {.db_url = store_url(s), .workers = 3, .pool = pool};
    struct sched *sched = NULL;
    assert_int_equal(sched_new(&sc, &sched), ERR_OK);
    assert_int_equal(sched_start(sched), ERR_OK);
    sched_stop(sched);
    sched_free(sched); /* returns: every worker saw the stop */
    fetch_pool_free(pool);
    assert_int_equal(running(s), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_queued_job_runs_once_and_lets_its_lease_go),
        cmocka_unit_test(test_stopped_with_no_job),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
