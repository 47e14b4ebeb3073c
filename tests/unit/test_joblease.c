/* Job leases (store/joblease): one holder, renewed, refused while alive, taken when dead. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/crawlstore.h"
#include "store/joblease.h"
#include "store/runner.h"
#include "store/store.h"
#include "testdb.h"

static int setup(void **state)
{
    struct store *s;
    if (testdb_open_private("sitescout_joblease", &s) != 0)
        return -1; /* take_next looks at every job of the database */
    *state = s;
    return 0;
}

static int teardown(void **state)
{
    store_free(*state);
    return 0;
}

static int64_t new_job(struct store *s)
{
    int64_t job;
    assert_int_equal(crawlstore_job_create(s, "t", "{}", "{}", &job), ERR_OK);
    return job;
}

/* Make job's lease look as if its holder had not renewed it for a while. */
static void age_lease(struct store *s, int64_t job, int seconds)
{
    char id[32], secs[16];
    snprintf(id, sizeof id, "%lld", (long long)job);
    snprintf(secs, sizeof secs, "%d", seconds);
    const char *p[] = {id, secs};
    assert_int_equal(store_exec(s,
                                "UPDATE jobs SET heartbeat_at = now() - make_interval(secs => "
                                "$2::int) WHERE id = $1",
                                2, p),
                     ERR_OK);
}

static void test_one_holder(void **state)
{
    struct store *s = *state;
    int64_t job = new_job(s);
    assert_int_equal(joblease_take(s, job, "other-host:1"), ERR_OK);
    assert_int_equal(joblease_take(s, job, "other-host:1"), ERR_OK); /* ours already */
    assert_int_equal(joblease_take(s, job, "other-host:2"), ERR_CONFLICT);
    assert_non_null(strstr(err_msg(), "is being run by other-host:1"));
    assert_int_equal(joblease_renew(s, job, "other-host:1"), ERR_OK);
    assert_int_equal(joblease_renew(s, job, "other-host:2"), ERR_CONFLICT);
    /* Only the holder lets it go. */
    assert_int_equal(joblease_release(s, job, "other-host:2"), ERR_OK);
    assert_int_equal(joblease_take(s, job, "other-host:2"), ERR_CONFLICT);
    assert_int_equal(joblease_release(s, job, "other-host:1"), ERR_OK);
    assert_int_equal(joblease_take(s, job, "other-host:2"), ERR_OK);
    assert_int_equal(joblease_take(s, 999999999, "other-host:2"), ERR_NOTFOUND);
}

static void test_expired_lease_is_taken(void **state)
{
    struct store *s = *state;
    int64_t job = new_job(s);
    assert_int_equal(joblease_take(s, job, "other-host:1"), ERR_OK);
    age_lease(s, job, runner_lease_seconds() - 1 > 0 ? runner_lease_seconds() - 2 : 0);
    assert_int_equal(joblease_take(s, job, "other-host:2"), ERR_CONFLICT); /* not yet */
    age_lease(s, job, runner_lease_seconds() + 1);
    assert_int_equal(joblease_take(s, job, "other-host:2"), ERR_OK);
    /* The old holder, back from its stall, learns it lost the job. */
    assert_int_equal(joblease_renew(s, job, "other-host:1"), ERR_CONFLICT);
}

/* A worker name of this host whose process has ended. */
static void gone_worker(char *buf, size_t n)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(0);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    char host[64];
    assert_int_equal(gethostname(host, sizeof host - 1), 0);
    host[sizeof host - 1] = '\0';
    snprintf(buf, n, "%s:%d:3", host, (int)pid);
}

static void test_gone_holder_of_this_host(void **state)
{
    struct store *s = *state;
    char gone[128], me[128];
    gone_worker(gone, sizeof gone);
    runner_name(me, sizeof me, -1);
    assert_true(runner_gone(gone));
    assert_false(runner_gone(me));
    assert_false(runner_gone("some-other-host:1"));
    assert_false(runner_gone("garbage"));
    assert_false(runner_gone(NULL));
    int64_t job = new_job(s);
    assert_int_equal(joblease_take(s, job, gone), ERR_OK);
    assert_int_equal(joblease_take(s, job, me), ERR_OK); /* at once, not after a lease */
}

static void test_take_next(void **state)
{
    struct store *s = *state;
    /* Leave only these jobs runnable: end the other tests' (the database is ours). */
    assert_int_equal(store_exec(s, "UPDATE jobs SET state = 'done', worker = NULL", 0, NULL),
                     ERR_OK);
    int64_t a = new_job(s), b = new_job(s), got;
    assert_int_equal(joblease_take_next(s, "other-host:1", &got), ERR_OK);
    assert_int_equal(got, a);
    assert_int_equal(joblease_take_next(s, "other-host:2", &got), ERR_OK);
    assert_int_equal(got, b);
    assert_int_equal(joblease_take_next(s, "other-host:3", &got), ERR_OK);
    assert_int_equal(got, 0); /* both held */
    age_lease(s, a, runner_lease_seconds() + 1);
    assert_int_equal(joblease_take_next(s, "other-host:3", &got), ERR_OK);
    assert_int_equal(got, a); /* its holder went silent */
    char gone[128];
    gone_worker(gone, sizeof gone);
    assert_int_equal(joblease_release(s, b, "other-host:2"), ERR_OK);
    assert_int_equal(joblease_take(s, b, gone), ERR_OK);
    assert_int_equal(joblease_take_next(s, "other-host:4", &got), ERR_OK);
    assert_int_equal(got, b); /* its holder, of this host, is gone */
}

/* Seconds since job's last heartbeat. */
static double lease_age(struct store *s, int64_t job)
{
    char id[32];
    snprintf(id, sizeof id, "%lld", (long long)job);
    const char *p[] = {id};
    struct store_rows *r;
    assert_int_equal(store_query(s,
                                 "SELECT extract(epoch FROM now() - heartbeat_at) FROM jobs "
                                 "WHERE id = $1",
                                 1, p, &r),
                     ERR_OK);
    double age = store_rows_double(r, 0, 0, 1e9);
    store_rows_free(r);
    return age;
}

static void test_keeper(void **state)
{
    struct store *s = *state;
    int64_t job = new_job(s);
    assert_int_equal(joblease_take(s, job, "other-host:7"), ERR_OK);
    struct joblease_keeper *k;
    assert_int_equal(joblease_keeper_start(s, job, "other-host:7", JOBTEAM_LEAD, &k), ERR_OK);
    age_lease(s, job, 600);
    /* It renews on its own, every second (waiting up to 20 s on a loaded machine). */
    for (int i = 0; i < 200 && lease_age(s, job) > 60; i++)
        usleep(100 * 1000);
    assert_true(lease_age(s, job) < 60);
    assert_false(joblease_keeper_lost(k));
    /* Someone takes the lease: the keeper notices and says so. */
    age_lease(s, job, runner_lease_seconds() + 1);
    assert_int_equal(joblease_take(s, job, "other-host:8"), ERR_OK);
    for (int i = 0; i < 200 && !joblease_keeper_lost(k); i++)
        usleep(100 * 1000);
    assert_true(joblease_keeper_lost(k));
    joblease_keeper_stop(k);
    joblease_keeper_stop(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_holder),
        cmocka_unit_test(test_expired_lease_is_taken),
        cmocka_unit_test(test_gone_holder_of_this_host),
        cmocka_unit_test(test_take_next),
        cmocka_unit_test(test_keeper),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
