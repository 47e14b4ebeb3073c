/* A job's runners (store/jobteam): rows, site leases, the shared page budget, picking. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/crawlstore.h"
#include "store/joblease.h"
#include "store/jobteam.h"
#include "store/runner.h"
#include "store/store.h"
#include "testdb.h"

static int setup(void **state)
{
    struct store *s;
    if (testdb_open_private("sitescout_jobteam", &s) != 0)
        return -1; /* jobteam_pick looks at every job of the database */
    *state = s;
    return 0;
}

static int teardown(void **state)
{
    store_free(*state);
    return 0;
}

/* A job being crawled by lead (its lease taken), with params as given. */
static int64_t crawling_job(struct store *s, const char *params, const char *lead)
{
    int64_t job;
    assert_int_equal(crawlstore_job_create(s, "t", "{}", params, &job), ERR_OK);
    assert_int_equal(crawlstore_job_set_state(s, job, "crawling", NULL, NULL), ERR_OK);
    assert_int_equal(joblease_take(s, job, lead), ERR_OK);
    assert_int_equal(jobteam_join(s, job, lead, JOBTEAM_LEAD), ERR_OK);
    return job;
}

static int64_t number(struct store *s, const char *sql, int64_t job)
{
    char id[32];
    snprintf(id, sizeof id, "%lld", (long long)job);
    const char *p[] = {id};
    struct store_rows *r;
    assert_int_equal(store_query(s, sql, 1, p, &r), ERR_OK);
    int64_t v = store_rows_i64(r, 0, 0, -1);
    store_rows_free(r);
    return v;
}

/* Make worker's row look as if it had not been renewed for a while. */
static void age_row(struct store *s, int64_t job, const char *worker, int seconds)
{
    char id[32], secs[16];
    snprintf(id, sizeof id, "%lld", (long long)job);
    snprintf(secs, sizeof secs, "%d", seconds);
    const char *p[] = {id, worker, secs};
    assert_int_equal(store_exec(s,
                                "UPDATE job_workers SET heartbeat_at = now() - "
                                "make_interval(secs => $3::int) WHERE job_id = $1 AND worker = $2",
                                3, p),
                     ERR_OK);
}

/* n border sites a0.test, a1.test, ... claimed by worker. */
static void claim_sites(struct store *s, int64_t job, const char *prefix, int n, const char *worker)
{
    for (int i = 0; i < n; i++) {
        char host[64], home[80];
        snprintf(host, sizeof host, "%s%d.test", prefix, i);
        snprintf(home, sizeof home, "http://%s/", host);
        assert_int_equal(crawlstore_site_add(s, job, host, home, "start", "border", NAN, -1, 1.0),
                         ERR_OK);
    }
    for (int i = 0; i < n; i++) {
        char *host, *home;
        assert_int_equal(crawlstore_claim(s, job, worker, &host, &home, NULL), ERR_OK);
        free(host);
        free(home);
    }
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
    snprintf(buf, n, "%s:%d:1", host, (int)pid);
}

static const char *const claimed_by_sql =
    "SELECT count(*) FROM sites WHERE job_id = $1 AND state = 'claimed'";

/* The claims of a live runner stay; those of a runner silent past its lease, of a
 * process of this host that is gone, or of a runner without a row go back. */
static void test_reclaim(void **state)
{
    struct store *s = *state;
    int64_t job = crawling_job(s, "{}", "other-host:1");
    char gone[128];
    gone_worker(gone, sizeof gone);
    assert_int_equal(jobteam_join(s, job, "other-host:2", JOBTEAM_HELPER), ERR_OK);
    assert_int_equal(jobteam_join(s, job, gone, JOBTEAM_HELPER), ERR_OK);
    claim_sites(s, job, "a", 2, "other-host:1");
    claim_sites(s, job, "b", 3, "other-host:2");
    claim_sites(s, job, "c", 4, gone);
    claim_sites(s, job, "d", 1, "never-joined:9");
    int back = -1;
    assert_int_equal(jobteam_reclaim(s, job, &back), ERR_OK);
    assert_int_equal(back, 4 + 1); /* the gone process's and the stranger's */
    assert_int_equal(number(s, claimed_by_sql, job), 2 + 3);
    int others = -1;
    assert_int_equal(jobteam_others(s, job, "other-host:1", &others, NULL), ERR_OK);
    assert_int_equal(others, 1);

    age_row(s, job, "other-host:2", runner_lease_seconds() + 1);
    assert_int_equal(jobteam_others(s, job, "other-host:1", &others, NULL), ERR_OK);
    assert_int_equal(others, 0); /* silent past its lease: not counted live ... */
    assert_int_equal(jobteam_reclaim(s, job, &back), ERR_OK);
    assert_int_equal(back, 3); /* ... and its websites go back */
    assert_int_equal(number(s, claimed_by_sql, job), 2);
    /* Its row went with them: it must stop writing. */
    assert_int_equal(jobteam_renew(s, job, "other-host:2"), ERR_CONFLICT);
    assert_int_equal(jobteam_renew(s, job, "other-host:1"), ERR_OK);
    assert_int_equal(jobteam_leave(s, job, "other-host:1"), ERR_OK);
    assert_int_equal(number(s, "SELECT count(*) FROM job_workers WHERE job_id = $1", job), 0);
}

/* pages_downloaded + the runners' allowances never pass max_pages. */
static void test_allowance(void **state)
{
    struct store *s = *state;
    int64_t job = crawling_job(s, "{}", "other-host:1");
    assert_int_equal(jobteam_join(s, job, "other-host:2", JOBTEAM_HELPER), ERR_OK);
    int64_t got = -1;
    assert_int_equal(jobteam_allow(s, job, "other-host:1", 100, 0, 100, &got), ERR_OK);
    assert_int_equal(got, 100); /* alone: all of it */
    assert_int_equal(jobteam_allow(s, job, "other-host:2", 100, 0, 50, &got), ERR_OK);
    assert_int_equal(got, 0); /* none left */
    assert_int_equal(jobteam_allow(s, job, "other-host:1", 100, 30, 0, &got), ERR_OK);
    assert_int_equal(got, 0); /* keeps 30, gives 70 back */
    assert_int_equal(jobteam_allow(s, job, "other-host:2", 100, 0, 50, &got), ERR_OK);
    assert_int_equal(got, 50);
    /* Recorded pages count: 100 - 15 downloaded - 30 - 50 leaves 5. */
    char id[32];
    snprintf(id, sizeof id, "%lld", (long long)job);
    const char *p[] = {id};
    assert_int_equal(store_exec(s, "UPDATE jobs SET pages_downloaded = 15 WHERE id = $1", 1, p),
                     ERR_OK);
    assert_int_equal(jobteam_allow(s, job, "other-host:1", 100, 30, 100, &got), ERR_OK);
    assert_int_equal(got, 5);
    assert_int_equal(number(s,
                            "SELECT sum(allowance) + max(j.pages_downloaded) FROM job_workers w"
                            " JOIN jobs j ON j.id = w.job_id WHERE w.job_id = $1",
                            job),
                     100);
    int n = 0;
    int64_t held = -1;
    assert_int_equal(jobteam_others(s, job, "other-host:1", &n, &held), ERR_OK);
    assert_int_equal(n, 1);
    assert_int_equal(held, 50); /* what the lead waits on before it ends the job */
    /* A runner that leaves frees its share. */
    assert_int_equal(jobteam_leave(s, job, "other-host:2"), ERR_OK);
    assert_int_equal(jobteam_allow(s, job, "other-host:1", 100, 35, 100, &got), ERR_OK);
    assert_int_equal(got, 50);
}

/*
 * How much of the budget a runner asks to hold (issue 29): only a lead that has polled
 * and seen nobody else takes all that is left; a helper that sees no lead (the lead died)
 * stays bounded, so that the job's next lead finds pages to refill with.
 */
static void test_share(void **state)
{
    (void)state;
    struct jobteam_need n = {.role = JOBTEAM_LEAD,
                             .polled = 1,
                             .others = 0,
                             .concurrency = 4,
                             .max_pages = 3000,
                             .held = 120,
                             .committed = 70,
                             .site_pages = 25,
                             .left = 3000};
    int64_t keep = -1, more = -1;
    assert_int_equal(jobteam_share(&n, &keep, &more), 1); /* a lead alone */
    assert_int_equal(keep, 120);
    assert_int_equal(more, 3000);

    n.role = JOBTEAM_HELPER; /* alone too, but a helper: what it may need, no more */
    assert_int_equal(jobteam_share(&n, &keep, &more), 0);
    assert_int_equal(keep, 120);
    assert_int_equal(more, 70 + JOBTEAM_SHARE_SITES * 4 * 25 - 120);
    n.held = 2500; /* a helper holding the rest of the budget gives it back */
    assert_int_equal(jobteam_share(&n, &keep, &more), 0);
    assert_int_equal(keep, 70 + JOBTEAM_SHARE_SITES * 4 * 25);
    assert_int_equal(more, 0);

    n.role = JOBTEAM_LEAD; /* a lead before its first poll knows no better */
    n.polled = 0;
    assert_int_equal(jobteam_share(&n, &keep, &more), 0);
    assert_int_equal(keep, 70 + JOBTEAM_SHARE_SITES * 4 * 25);
    n.polled = 1; /* nor beside others */
    n.others = 1;
    assert_int_equal(jobteam_share(&n, &keep, &more), 0);
    assert_int_equal(more, 0);
    /* Many websites at once, little left: its even part of what is left. A helper
     * holding the last 900 pages gives half back when a new lead comes ... */
    n.role = JOBTEAM_HELPER;
    n.concurrency = 32;
    n.left = 900;
    n.held = 900;
    assert_int_equal(jobteam_share(&n, &keep, &more), 0);
    assert_int_equal(keep, 70 + 900 / 2);
    assert_int_equal(more, 0);
    n.left = 30; /* ... and keeps a website's worth at least */
    n.held = 0;
    n.committed = 0;
    assert_int_equal(jobteam_share(&n, &keep, &more), 0);
    assert_int_equal(more, 25);
    n.nothing_to_start = 1; /* with nothing to start, it holds nothing */
    n.committed = 0;
    assert_int_equal(jobteam_share(&n, &keep, &more), 0);
    assert_int_equal(keep, 0);
    assert_int_equal(more, 0);
}

/* A helper's bounded share leaves the rest of the budget to a new lead (issue 29): the
 * lead died, its row is gone; the helper renews as jobteam_share says, the lead finds
 * what the helper does not hold. */
static void test_new_lead_refills(void **state)
{
    struct store *s = *state;
    int64_t job = crawling_job(s, "{}", "other-host:1");
    assert_int_equal(jobteam_join(s, job, "other-host:2", JOBTEAM_HELPER), ERR_OK);
    assert_int_equal(jobteam_leave(s, job, "other-host:1"), ERR_OK); /* the lead is gone */
    struct jobteam_need n = {.role = JOBTEAM_HELPER,
                             .polled = 1,
                             .others = 0,
                             .concurrency = 4,
                             .max_pages = 3000,
                             .held = 0,
                             .committed = 0,
                             .site_pages = 25,
                             .left = 3000};
    int64_t keep, more, got = -1;
    assert_int_equal(jobteam_share(&n, &keep, &more), 0);
    assert_int_equal(jobteam_allow(s, job, "other-host:2", 3000, keep, more, &got), ERR_OK);
    assert_int_equal(got, JOBTEAM_SHARE_SITES * 4 * 25);
    assert_int_equal(jobteam_join(s, job, "other-host:3", JOBTEAM_LEAD), ERR_OK);
    n.role = JOBTEAM_LEAD;
    n.polled = 0; /* the new lead's first refill, before its first poll */
    assert_int_equal(jobteam_share(&n, &keep, &more), 0);
    assert_int_equal(jobteam_allow(s, job, "other-host:3", 3000, keep, more, &got), ERR_OK);
    assert_int_equal(got, JOBTEAM_SHARE_SITES * 4 * 25); /* a website's worth and more */
    int others = 0;
    int64_t held = -1;
    assert_int_equal(jobteam_others(s, job, "other-host:3", &others, &held), ERR_OK);
    assert_int_equal(others, 1);
    assert_int_equal(held, JOBTEAM_SHARE_SITES * 4 * 25); /* what it waits on at the end */
}

/* A helper is offered crawling website-level jobs with a live lead and budget left, the
 * fewest runners first, never one this process runs already. */
static void test_pick(void **state)
{
    struct store *s = *state;
    int64_t job = 0;
    assert_int_equal(jobteam_pick(s, NULL, 0, &job), ERR_OK);
    assert_int_equal(job, 0);
    int64_t pages = crawling_job(s, "{\"strategy\": \"page\"}", "other-host:1");
    int64_t warc = crawling_job(s, "{\"strategy\": \"website\", \"warc\": true}", "other-host:1");
    int64_t spent =
        crawling_job(s, "{\"strategy\": \"website\", \"max_pages\": 10}", "other-host:1");
    char id[32];
    snprintf(id, sizeof id, "%lld", (long long)spent);
    const char *p[] = {id};
    assert_int_equal(store_exec(s, "UPDATE jobs SET pages_downloaded = 10 WHERE id = $1", 1, p),
                     ERR_OK);
    assert_int_equal(jobteam_pick(s, NULL, 0, &job), ERR_OK);
    assert_int_equal(job, 0); /* a page crawl, WARC capture, a spent budget: none */
    (void)pages, (void)warc;

    int64_t a = crawling_job(s, "{\"strategy\": \"website\", \"max_pages\": 10}", "other-host:1");
    int64_t b = crawling_job(s, "{\"strategy\": \"homepage\"}", "other-host:2");
    assert_int_equal(jobteam_join(s, a, "other-host:3", JOBTEAM_HELPER), ERR_OK);
    assert_int_equal(jobteam_pick(s, NULL, 0, &job), ERR_OK);
    assert_int_equal(job, b); /* fewer runners */
    assert_int_equal(jobteam_pick(s, &b, 1, &job), ERR_OK);
    assert_int_equal(job, a); /* b runs here already */
    assert_int_equal(crawlstore_job_request(s, a, "pause"), ERR_OK);
    assert_int_equal(jobteam_pick(s, &b, 1, &job), ERR_OK);
    assert_int_equal(job, 0); /* a pause asked for */
    assert_int_equal(joblease_release(s, b, "other-host:2"), ERR_OK);
    assert_int_equal(jobteam_pick(s, NULL, 0, &job), ERR_OK);
    assert_int_equal(job, 0); /* no lead: it is for joblease_take_next */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reclaim), cmocka_unit_test(test_allowance),
        cmocka_unit_test(test_share),   cmocka_unit_test(test_new_lead_refills),
        cmocka_unit_test(test_pick),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
