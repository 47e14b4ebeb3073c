/*
 * Several fetchers on one fetch_pool (the jobs of `sitescout serve`), against a real
 * replay of the demo web: a client that arrives while another fills the pool gets
 * its share at once instead of queueing behind it; a client alone uses the whole
 * pool, and so does a client whose only competitor is waiting on a host's delay; two
 * clients on one host keep the host's delay between them (each its own);
 * a client that goes away takes its requests with it and the others carry on.
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
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "crawler/fetch.h"
#include "crawler/fetchproxy.h"
#include "testreplay.h"

#define MAX_HOSTS 160

static char *hosts[MAX_HOSTS];
static size_t n_hosts;

/* The demo web's hosts, from demo/demo.sites.tsv. */
static int load_hosts(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/demo/demo.sites.tsv", getenv("SITESCOUT_SRC"));
    FILE *in = fopen(path, "r");
    if (!in)
        return -1;
    char line[1024];
    while (fgets(line, sizeof line, in) && n_hosts < MAX_HOSTS) {
        line[strcspn(line, "\t\n")] = '\0';
        if (strcmp(line, "host") != 0 && *line)
            hosts[n_hosts++] = strdup(line);
    }
    fclose(in);
    return n_hosts >= 100 ? 0 : -1;
}

static int setup(void **state)
{
    (void)state;
    return getenv("SITESCOUT_SRC") ? load_hosts() : -1;
}

static int teardown(void **state)
{
    (void)state;
    for (size_t i = 0; i < n_hosts; i++)
        free(hosts[i]);
    return 0;
}

static void submit_homepages(struct fetcher *f, size_t from, size_t n)
{
    for (size_t i = from; i < from + n; i++) {
        char url[512];
        snprintf(url, sizeof url, "http://%s/", hosts[i]);
        assert_int_equal(fetcher_submit(f, url, i), ERR_OK);
    }
}

/* The test's clock (fetch_config.now_ms), read on the pool's thread: it stands still
 * unless the test moves it, so a host's delay lasts as long as the test wants. */
static _Atomic int64_t test_now = 1000000;
static int64_t test_clock(void)
{
    return test_now;
}

static struct fetch_pool *new_pool_clock(const char *proxy, int max_in_flight,
                                         int64_t (*now_ms)(void))
{
    struct fetch_config fc;
    fetch_config_defaults(&fc);
    fc.proxy = proxy;
    fc.max_in_flight = max_in_flight;
    fc.now_ms = now_ms;
    struct fetch_pool *p;
    assert_int_equal(fetch_pool_new(&fc, &p), ERR_OK);
    return p;
}

static struct fetch_pool *new_pool(const char *proxy, int max_in_flight)
{
    return new_pool_clock(proxy, max_in_flight, NULL);
}

/* Events are waited for this long at most (a busy machine), then the test fails. */
#define WAIT_S 30

static int64_t now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec;
}

/*
 * A fills a pool of 4 with 60 websites; B then asks for 6. B must not wait behind
 * A's queue: it is done while A has done well under half of its websites.
 */
static void test_latecomer_gets_its_share(void **state)
{
    (void)state;
    static const char *const args[] = {"--latency-ms", "15", "--seed", "3", NULL};
    struct testreplay *r;
    assert_int_equal(testreplay_start(args, &r), 0);
    struct fetch_pool *p = new_pool(r->proxy, 4);
    struct fetcher *a, *b;
    assert_int_equal(fetcher_attach(p, 4, 0, &a), ERR_OK);
    assert_int_equal(fetcher_attach(p, 4, 0, &b), ERR_OK);
    submit_homepages(a, 0, 60);
    struct fetch_stats st;
    int a_max = 0;
    for (int64_t until = now_s() + WAIT_S; a_max < 4 && now_s() < until;) {
        fetcher_stats(a, &st); /* A alone: the whole pool */
        if (st.in_flight > a_max)
            a_max = st.in_flight;
        usleep(500);
    }
    if (a_max < 4)
        fail_msg("waited %d s for A, alone, to run 4 transfers: at most %d", WAIT_S, a_max);
    submit_homepages(b, 60, 6);
    int a_done = 0, b_done = 0, a_done_when_b_done = -1;
    while (a_done < 60 || b_done < 6) {
        struct fetch_result *res;
        if (b_done < 6 && fetcher_next(b, 0, &res) == ERR_OK) {
            assert_true(res->tag >= 60 && res->tag < 66);
            fetch_result_free(res);
            if (++b_done == 6)
                a_done_when_b_done = a_done;
            continue;
        }
        if (fetcher_next(a, 5, &res) == ERR_OK) {
            assert_true(res->tag < 60);
            fetch_result_free(res);
            a_done++;
        }
    }
    /* Fair: B had 2 of the 4 slots from its start; 6 websites (robots.txt + page each). */
    assert_true(a_done_when_b_done >= 0);
    if (a_done_when_b_done >= 30) /* without sharing: 60, B waits behind all of A */
        fail_msg("A had %d of its 60 websites when B was done with 6", a_done_when_b_done);
    assert_true(a_done_when_b_done < 30);
    fetcher_stats(b, &st);
    assert_int_equal(st.completed, 6);
    assert_int_equal(st.robots_requests, 6);
    assert_int_equal(fetcher_outstanding(a), 0);
    fetcher_free(a);
    fetcher_free(b);
    fetch_pool_free(p);
    testreplay_stop(r);
}

/*
 * B has pages of one website only, with a 400 ms delay, on a clock that stands still:
 * after its robots.txt and at most one page it has nothing that could start until the
 * test moves the clock on. A must not be held to half the pool meanwhile: it gets all 4
 * transfers.
 */
static void test_idle_share_is_used(void **state)
{
    (void)state;
    static const char *const args[] = {"--latency-ms", "15", "--seed", "5", NULL};
    struct testreplay *r;
    assert_int_equal(testreplay_start(args, &r), 0);
    struct fetch_pool *p = new_pool_clock(r->proxy, 4, test_clock);
    struct fetcher *a, *b;
    assert_int_equal(fetcher_attach(p, 4, 0, &a), ERR_OK);
    assert_int_equal(fetcher_attach(p, 4, 400, &b), ERR_OK);
    /* B's website is none of A's: A never waits on B's host. Any paths: the answer may
     * be 404, the request counts all the same. */
    for (int i = 0; i < 6; i++) {
        char url[512];
        snprintf(url, sizeof url, "http://%s/b%d.html", hosts[99], i);
        assert_int_equal(fetcher_submit(b, url, (uint64_t)i), ERR_OK);
    }
    submit_homepages(a, 0, 60);
    int a_done = 0, a_max = 0;
    for (int64_t until = now_s() + WAIT_S; a_done < 60 && now_s() < until;) {
        struct fetch_stats sa;
        fetcher_stats(a, &sa);
        if (sa.in_flight > a_max)
            a_max = sa.in_flight;
        struct fetch_result *res;
        if (fetcher_next(a, 1, &res) == ERR_OK) {
            fetch_result_free(res);
            a_done++;
        }
    }
    assert_int_equal(a_done, 60);
    /* The clock stood still: B's host delay never ended, its other pages still wait. */
    struct fetch_stats sb;
    fetcher_stats(b, &sb);
    if (sb.completed > 1)
        fail_msg("B got %d of its 6 pages on a clock that stood still", (int)sb.completed);
    if (a_max < 4) /* without the second pass: 2, half the pool */
        fail_msg("A ran at most %d transfers while B waited on its host's delay", a_max);
    for (int got = 0; got < 6;) {
        test_now += 400; /* B's delay ends, page after page */
        struct fetch_result *res;
        assert_int_equal(fetcher_next(b, 10000, &res), ERR_OK);
        fetch_result_free(res);
        got++;
    }
    fetcher_free(a);
    fetcher_free(b);
    fetch_pool_free(p);
    testreplay_stop(r);
}

/* Arrival times (s) of the replay's requests to host, in log order. */
static size_t host_arrivals(const char *log, const char *host, double *ts, size_t max)
{
    FILE *in = fopen(log, "r");
    assert_non_null(in);
    char line[4096], needle[600];
    snprintf(needle, sizeof needle, "\"url\": \"http://%s/", host);
    size_t n = 0;
    while (fgets(line, sizeof line, in) && n < max) {
        if (!strstr(line, needle))
            continue;
        assert_int_equal(sscanf(line, "{\"ts\": %lf", &ts[n]), 1);
        n++;
    }
    fclose(in);
    return n;
}

/*
 * A (delay 100 ms) and B (delay 400 ms) fetch pages of one website: robots.txt once
 * for both, and every request at least its client's delay after the one before.
 */
static void test_one_host_two_clients_polite(void **state)
{
    (void)state;
    char log[] = "/tmp/sitescout-fetch-share-XXXXXX";
    int fd = mkstemp(log);
    assert_true(fd >= 0);
    close(fd);
    const char *args[] = {"--access-log", log, NULL};
    struct testreplay *r;
    assert_int_equal(testreplay_start(args, &r), 0);
    struct fetch_pool *p = new_pool(r->proxy, 8);
    struct fetcher *a, *b;
    assert_int_equal(fetcher_attach(p, 8, 100, &a), ERR_OK);
    assert_int_equal(fetcher_attach(p, 8, 400, &b), ERR_OK);
    /* Any paths: the answer may be 404, the request counts all the same. */
    for (int i = 0; i < 4; i++) {
        char url[256];
        snprintf(url, sizeof url, "http://www.oceansummit.com/a%d.html", i);
        assert_int_equal(fetcher_submit(a, url, (uint64_t)i), ERR_OK);
        snprintf(url, sizeof url, "http://www.oceansummit.com/b%d.html", i);
        assert_int_equal(fetcher_submit(b, url, (uint64_t)i), ERR_OK);
    }
    for (int got = 0; got < 8;) {
        struct fetch_result *res;
        if (fetcher_next(a, 10, &res) == ERR_OK || fetcher_next(b, 10, &res) == ERR_OK) {
            fetch_result_free(res);
            got++;
        }
    }
    fetcher_free(a);
    fetcher_free(b);
    fetch_pool_free(p);
    testreplay_stop(r); /* flushes the log */

    double ts[16];
    size_t n = host_arrivals(log, "www.oceansummit.com", ts, 16);
    assert_int_equal(n, 9); /* robots.txt once, then the 8 pages */
    FILE *in = fopen(log, "r");
    char line[4096];
    size_t i = 0;
    double prev = 0;
    while (fgets(line, sizeof line, in)) {
        if (!strstr(line, "www.oceansummit.com"))
            continue;
        if (i > 0) {
            double gap_ms = (ts[i] - prev) * 1000.0;
            double want = strstr(line, "/b") ? 400 : 100;
            if (gap_ms < want - 2) /* log timestamps are rounded to the ms */
                fail_msg("request %zu came %.1f ms after the one before, not %.0f: %s", i, gap_ms,
                         want, line);
        }
        prev = ts[i++];
    }
    fclose(in);
    unlink(log);
}

/* B goes away with requests queued and running; A still gets every result. */
static void test_client_leaves(void **state)
{
    (void)state;
    static const char *const args[] = {"--latency-ms", "10", NULL};
    struct testreplay *r;
    assert_int_equal(testreplay_start(args, &r), 0);
    struct fetch_pool *p = new_pool(r->proxy, 6);
    struct fetcher *a, *b;
    assert_int_equal(fetcher_attach(p, 6, 0, &a), ERR_OK);
    assert_int_equal(fetcher_attach(p, 6, 0, &b), ERR_OK);
    submit_homepages(a, 0, 40);
    submit_homepages(b, 40, 40);
    struct fetch_result *res;
    assert_int_equal(fetcher_next(b, 10000, &res), ERR_OK);
    fetch_result_free(res);
    fetcher_free(b);
    int got = 0;
    while (got < 40 && fetcher_next(a, 10000, &res) == ERR_OK) {
        assert_true(res->tag < 40);
        fetch_result_free(res);
        got++;
    }
    assert_int_equal(got, 40);
    /* A newcomer on the same pool works too. */
    assert_int_equal(fetcher_attach(p, 2, 0, &b), ERR_OK);
    submit_homepages(b, 80, 3);
    for (got = 0; got < 3 && fetcher_next(b, 10000, &res) == ERR_OK; got++)
        fetch_result_free(res);
    assert_int_equal(got, 3);
    fetcher_free(b);
    fetcher_free(a);
    fetch_pool_free(p);
    testreplay_stop(r);
}

/* Issue 29: which failures are asked again, after how long, how many times. */
static void test_retry_rule(void **state)
{
    (void)state;
    struct fetch_config fc;
    fetch_config_defaults(&fc);
    static const struct {
        enum fetch_status status;
        int http, retry_after, retries, want;
    } cases[] = {
        {FETCH_HTTP_ERROR, 500, 0, 0, 1000}, /* first back-off retry_ms */
        {FETCH_HTTP_ERROR, 503, 0, 1, 2000}, /* then doubled */
        {FETCH_HTTP_ERROR, 503, 0, 2, -1},   /* max_retries (2) spent */
        {FETCH_HTTP_ERROR, 502, 0, 0, 1000},
        {FETCH_HTTP_ERROR, 504, 0, 0, 1000},
        {FETCH_HTTP_ERROR, 429, 0, 0, 1000},
        {FETCH_HTTP_ERROR, 503, 5, 0, 5000}, /* Retry-After when longer */
        {FETCH_HTTP_ERROR, 503, 1, 1, 2000}, /* ... not when shorter */
        {FETCH_HTTP_ERROR, 503, 31, 0, -1},  /* over FETCH_RETRY_MAX_MS: not waited for */
        {FETCH_HTTP_ERROR, 501, 0, 0, -1},   /* not implemented: not transient */
        {FETCH_HTTP_ERROR, 404, 0, 0, -1},
        {FETCH_HTTP_ERROR, 403, 0, 0, -1},
        {FETCH_NETWORK, 0, 0, 0, 1000}, /* a reset, a body cut short */
        {FETCH_TIMEOUT, 0, 0, 0, 1000},
        {FETCH_TIMEOUT, 0, 0, 1, -1}, /* a timeout once only: it costs a timeout */
        {FETCH_OK, 200, 0, 0, -1},
        {FETCH_DNS, 0, 0, 0, -1}, /* the host is gone: the scheduler's business */
        {FETCH_CONNECT, 0, 0, 0, -1},
        {FETCH_BLOCKED, 0, 0, 0, -1},
        {FETCH_ROBOTS, 0, 0, 0, -1},
        {FETCH_NOT_HTML, 200, 0, 0, -1},
        {FETCH_REDIRECT, 301, 0, 0, -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int got = fetch_retry_wait_ms(&fc, cases[i].status, cases[i].http, cases[i].retry_after,
                                      cases[i].retries);
        if (got != cases[i].want)
            fail_msg("case %zu (%s %d, Retry-After %d, retry %d): %d ms, want %d", i,
                     fetch_status_name(cases[i].status), cases[i].http, cases[i].retry_after,
                     cases[i].retries, got, cases[i].want);
    }
    fc.max_retries = 0;
    assert_int_equal(fetch_retry_wait_ms(&fc, FETCH_HTTP_ERROR, 503, 0, 0), -1);
}

/* Issue 28: --proxy is checked in one place, and a bad one is refused with why. */
static void test_proxy_check(void **state)
{
    (void)state;
    static const struct {
        const char *proxy;
        int bad;
    } cases[] = {
        {"http://127.0.0.1:8081", 0}, {"http://127.0.0.1:8081/", 0}, {"HTTP://proxy.example", 0},
        {"socks5h://[::1]:1080", 0},  {"https://u:p@proxy:3128", 0}, {"notaurl", 1},
        {"127.0.0.1:8081", 1},        {"ftp://127.0.0.1:21", 1},     {"http://", 1},
        {"http://:8081", 1},          {"http://host:0", 1},          {"http://host:65536", 1},
        {"http://host:80x", 1},       {"http://host:", 1},           {"http://host/path", 1},
        {"http://ho st:1", 1},
    };
    char why[200];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        why[0] = '\0';
        if (fetch_proxy_invalid(cases[i].proxy, why, sizeof why) != cases[i].bad)
            fail_msg("'%s': want %s, got '%s'", cases[i].proxy, cases[i].bad ? "bad" : "good", why);
        if (cases[i].bad)
            assert_non_null(strstr(why, "is not a proxy URL"));
    }
    struct fetch_config fc;
    fetch_config_defaults(&fc);
    fc.proxy = "notaurl";
    struct fetch_pool *p;
    assert_int_equal(fetch_pool_new(&fc, &p), ERR_INVAL);
}

/* Issue 28: a proxy with nothing listening is named in every fetch's error. */
static void test_proxy_refused(void **state)
{
    (void)state;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sa;
    assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
    close(fd); /* a port nobody listens on */
    char proxy[64], want[96];
    snprintf(proxy, sizeof proxy, "http://127.0.0.1:%u", ntohs(sa.sin_port));
    snprintf(want, sizeof want, "connection refused by the proxy 127.0.0.1:%u", ntohs(sa.sin_port));
    struct fetch_config fc;
    fetch_config_defaults(&fc);
    fc.proxy = proxy;
    struct fetcher *f;
    assert_int_equal(fetcher_new(&fc, &f), ERR_OK);
    assert_int_equal(fetcher_submit(f, "http://www.example.org/", 1), ERR_OK);
    assert_int_equal(fetcher_submit(f, "http://www.example.org/b", 2), ERR_OK);
    for (int i = 0; i < 2; i++) {
        struct fetch_result *r;
        assert_int_equal(fetcher_next(f, 30000, &r), ERR_OK);
        assert_int_equal(r->status, FETCH_CONNECT);
        if (!r->error || strstr(r->error, want) == NULL)
            fail_msg("fetch %d: error '%s', want '%s'", i, r->error ? r->error : "(none)", want);
        fetch_result_free(r);
    }
    fetcher_free(f);
}

static void test_bad_config(void **state)
{
    (void)state;
    struct fetch_config fc;
    fetch_config_defaults(&fc);
    fc.max_in_flight = 0;
    struct fetch_pool *p;
    assert_int_equal(fetch_pool_new(&fc, &p), ERR_INVAL);
    p = new_pool(NULL, 2);
    struct fetcher *f;
    assert_int_equal(fetcher_attach(p, 0, 0, &f), ERR_INVAL);
    assert_int_equal(fetcher_attach(p, 1, -1, &f), ERR_INVAL);
    fetch_pool_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_config),
        cmocka_unit_test(test_retry_rule),
        cmocka_unit_test(test_proxy_check),
        cmocka_unit_test(test_proxy_refused),
        cmocka_unit_test(test_latecomer_gets_its_share),
        cmocka_unit_test(test_idle_share_is_used),
        cmocka_unit_test(test_one_host_two_clients_polite),
        cmocka_unit_test(test_client_leaves),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
