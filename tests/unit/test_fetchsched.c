/*
 * The fetch scheduler by itself, with time passed in by hand: fair shares ceil(N/k),
 * each client's own cap, the second pass that gives unused slots to others, a host's
 * delay kept across clients (and robots.txt's longer Crawl-delay), one transfer per
 * host, a leaving client's requests dropped. The transfers are this test's own: it
 * records what the scheduler starts and ends them when a case says so.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crawler/fetchsched.h"

#define MAX_REQS    512
#define MAX_CLIENTS 8

/* A transfer the scheduler started. */
struct started {
    struct fetchsched_host *host;
    struct fetchsched_req *req; /* NULL: robots.txt */
    struct fetchsched_client *who;
    char url[128];
    int ended;
};

struct world {
    struct fetchsched *s;
    struct fetchsched_client clients[MAX_CLIENTS];
    struct fetchsched_req reqs[MAX_REQS];
    char urls[MAX_REQS][96];
    size_t n_reqs;
    struct started runs[MAX_REQS];
    size_t n_runs;
    enum fetch_status finished[MAX_REQS]; /* ended without a transfer, in order */
    size_t n_finished;
};

static enum err on_start(void *ctx, struct fetchsched_host *h, struct fetchsched_req *req,
                         const char *url, struct fetchsched_client *who)
{
    struct world *w = ctx;
    assert_true(w->n_runs < MAX_REQS);
    struct started *r = &w->runs[w->n_runs++];
    r->host = h;
    r->req = req;
    r->who = who;
    snprintf(r->url, sizeof r->url, "%s", url);
    return ERR_OK;
}

static void on_finish(void *ctx, struct fetchsched_req *req, enum fetch_status status,
                      const char *error)
{
    struct world *w = ctx;
    (void)req;
    (void)error;
    w->finished[w->n_finished++] = status;
}

static const struct fetchsched_ops ops = {on_start, on_finish};

static struct world *world_new(int max_in_flight, int per_host, int obey_robots)
{
    struct world *w = calloc(1, sizeof *w);
    assert_non_null(w);
    const struct fetchsched_config cfg = {max_in_flight, per_host, obey_robots, 60000};
    assert_int_equal(fetchsched_new(&cfg, &ops, w, &w->s), ERR_OK);
    return w;
}

/* Requests still queued go back to the test before the scheduler goes. */
static void world_free(struct world *w)
{
    for (int c = 0; c < MAX_CLIENTS; c++)
        (void)fetchsched_client_leave(w->s, &w->clients[c]);
    fetchsched_free(w->s);
    free(w);
}

/* Queue http://HOST/PATH for client c. */
static void add(struct world *w, int c, const char *host, const char *path)
{
    assert_true(w->n_reqs < MAX_REQS);
    size_t i = w->n_reqs++;
    snprintf(w->urls[i], sizeof w->urls[i], "http://%s/%s", host, path);
    w->reqs[i].client = &w->clients[c];
    w->reqs[i].url = w->urls[i];
    fetchsched_add(w->s, &w->reqs[i]);
}

/* n requests of client c, each on a host of its own. */
static void add_hosts(struct world *w, int c, int n)
{
    for (int i = 0; i < n; i++) {
        char host[64];
        snprintf(host, sizeof host, "c%d-h%d.test", c, i);
        add(w, c, host, "");
    }
}

/* End the page transfer runs[i] at now, as the pool does. */
static void end_run(struct world *w, size_t i, int64_t now)
{
    struct started *r = &w->runs[i];
    assert_false(r->ended);
    assert_non_null(r->req);
    r->ended = 1;
    fetchsched_req_done(w->s, r->req);
    fetchsched_transfer_done(w->s, r->host, r->req->client, now);
}

/* The first running page transfer of client c. */
static size_t running_of(const struct world *w, int c)
{
    for (size_t i = 0; i < w->n_runs; i++)
        if (!w->runs[i].ended && w->runs[i].req && w->runs[i].who == &w->clients[c])
            return i;
    fail_msg("client %d has nothing running", c);
    return 0;
}

/* While k clients want more than the pool holds, each runs at most ceil(N/k), and
 * the pool is full. */
static void test_fair_shares(void **state)
{
    (void)state;
    static const struct {
        int n, k, share;
    } rows[] = {
        {64, 1, 64}, {64, 2, 32}, {10, 3, 4}, {8, 3, 3}, {10, 4, 3}, {3, 5, 1}, {7, 7, 1},
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        struct world *w = world_new(rows[r].n, 1, 0);
        for (int c = 0; c < rows[r].k; c++) {
            fetchsched_client_init(&w->clients[c], 1000, 0);
            add_hosts(w, c, rows[r].n + 2);
        }
        assert_int_equal(fetchsched_run(w->s, 0), -1);
        int total = 0, max = 0;
        for (int c = 0; c < rows[r].k; c++) {
            int running = w->clients[c].in_flight;
            if (running > rows[r].share)
                fail_msg("row %zu: client %d runs %d, share %d", r, c, running, rows[r].share);
            total += running;
            max = running > max ? running : max;
        }
        assert_int_equal(total, rows[r].n);
        assert_int_equal(fetchsched_in_flight(w->s), rows[r].n);
        assert_int_equal(max, rows[r].share);
        world_free(w);
    }
}

/*
 * A client never runs more than its own cap; slots a capped client leaves go to the
 * others in the second pass, up to their caps.
 */
static void test_caps_and_second_pass(void **state)
{
    (void)state;
    static const struct {
        int n, k, cap[3], want[3];
    } rows[] = {
        {10, 1, {3}, {3}},              /* alone, capped */
        {10, 2, {2, 100}, {2, 8}},      /* share 5: B takes what A cannot */
        {10, 2, {4, 4}, {4, 4}},        /* both capped under their share: 2 slots idle */
        {9, 3, {1, 2, 100}, {1, 2, 6}}, /* share 3 */
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        struct world *w = world_new(rows[r].n, 1, 0);
        for (int c = 0; c < rows[r].k; c++) {
            fetchsched_client_init(&w->clients[c], rows[r].cap[c], 0);
            add_hosts(w, c, 12);
        }
        (void)fetchsched_run(w->s, 0);
        for (int c = 0; c < rows[r].k; c++)
            if (w->clients[c].in_flight != rows[r].want[c])
                fail_msg("row %zu: client %d runs %d, want %d", r, c, w->clients[c].in_flight,
                         rows[r].want[c]);
        world_free(w);
    }
}

/*
 * A's only host waits for its delay: B uses the whole pool meanwhile (second pass);
 * once A's host is ready, A gets a slot back as soon as one frees up.
 */
static void test_waiting_client_lends_its_slots(void **state)
{
    (void)state;
    struct world *w = world_new(4, 1, 0);
    fetchsched_client_init(&w->clients[0], 100, 1000);
    fetchsched_client_init(&w->clients[1], 100, 0);
    add(w, 0, "a.test", "1");
    add(w, 0, "a.test", "2");
    add_hosts(w, 1, 10);
    (void)fetchsched_run(w->s, 0);
    assert_int_equal(w->clients[0].in_flight, 1); /* one host: one transfer */
    assert_int_equal(w->clients[1].in_flight, 3); /* share 2, plus the free slot */

    end_run(w, running_of(w, 0), 10);
    assert_int_equal(fetchsched_run(w->s, 10), 1000); /* a.test: 10 + 1000 */
    assert_int_equal(w->clients[0].in_flight, 0);
    assert_int_equal(w->clients[1].in_flight, 4); /* A has nothing ready: B fills */

    assert_int_equal(fetchsched_run(w->s, 1010), -1); /* a.test ready, the pool full */
    assert_int_equal(w->clients[0].in_flight, 0);
    end_run(w, running_of(w, 1), 1010);
    (void)fetchsched_run(w->s, 1010);
    assert_int_equal(w->clients[0].in_flight, 1); /* A is under its share: first */
    assert_int_equal(w->clients[1].in_flight, 3);
    assert_string_equal(w->runs[w->n_runs - 1].url, "http://a.test/2");
    world_free(w);
}

enum step_kind { RUN, END };

/* One step of a politeness timeline: at `at`, run the scheduler or end the running
 * page; after a RUN, `url` started (NULL: nothing) and it said to come back in `wait`. */
struct step {
    enum step_kind kind;
    int64_t at;
    const char *url;
    long wait;
};

static void play(struct world *w, const struct step *steps, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct step *st = &steps[i];
        if (st->kind == END) {
            size_t last = w->n_runs - 1;
            end_run(w, last, st->at);
            continue;
        }
        size_t before = w->n_runs;
        long wait = fetchsched_run(w->s, st->at);
        if (st->url) {
            if (w->n_runs != before + 1)
                fail_msg("step %zu: %zu transfers started, want 1", i, w->n_runs - before);
            assert_string_equal(w->runs[before].url, st->url);
        } else if (w->n_runs != before) {
            fail_msg("step %zu: %s started at %lld", i, w->runs[before].url, (long long)st->at);
        }
        if (wait != st->wait)
            fail_msg("step %zu: wait %ld, want %ld", i, wait, st->wait);
    }
}

/*
 * Two clients on one host: after a request ends the host rests that request's
 * client's delay, and the next asker's own delay counts from the host's last request.
 */
static void test_host_delay_across_clients(void **state)
{
    (void)state;
    struct world *w = world_new(10, 1, 0);
    fetchsched_client_init(&w->clients[0], 10, 1000);
    fetchsched_client_init(&w->clients[1], 10, 200);
    add(w, 0, "h.test", "1");
    add(w, 1, "h.test", "2");
    add(w, 0, "h.test", "3");
    static const struct step steps[] = {
        {RUN, 0, "http://h.test/1", -1},
        {END, 100, NULL, 0},
        {RUN, 300, NULL, 800},              /* A's 1000 ms, though B asks next */
        {RUN, 1100, "http://h.test/2", -1}, /* B */
        {END, 1150, NULL, 0},
        {RUN, 1350, NULL, 800}, /* B's 200 ms passed; A waits its own 1000 */
        {RUN, 2149, NULL, 1},
        {RUN, 2150, "http://h.test/3", -1},
    };
    play(w, steps, sizeof steps / sizeof steps[0]);
    world_free(w);
}

/* Issue 29: a page asked again goes first in its host's queue, and the host starts
 * nothing (not even another request) before the back-off is over. */
static void test_retry_backoff(void **state)
{
    (void)state;
    struct world *w = world_new(10, 1, 0);
    fetchsched_client_init(&w->clients[0], 10, 100);
    add(w, 0, "h.test", "1");
    add(w, 0, "h.test", "2");
    assert_int_equal(fetchsched_run(w->s, 0), -1);
    assert_int_equal(w->n_runs, 1);
    assert_string_equal(w->runs[0].url, "http://h.test/1");
    /* /1 answered 503 at 50: asked again 1000 ms later, the host holding back meanwhile. */
    fetchsched_retry(w->s, w->runs[0].host, w->runs[0].req, 1050);
    fetchsched_transfer_done(w->s, w->runs[0].host, w->runs[0].req->client, 50);
    w->runs[0].ended = 1;
    assert_int_equal(fetchsched_run(w->s, 150), 900); /* not /2 after the 100 ms delay */
    assert_int_equal(w->n_runs, 1);
    assert_int_equal(fetchsched_run(w->s, 1049), 1);
    assert_int_equal(fetchsched_run(w->s, 1050), -1);
    assert_int_equal(w->n_runs, 2);
    assert_string_equal(w->runs[1].url, "http://h.test/1"); /* first again */
    end_run(w, 1, 1100);
    assert_int_equal(fetchsched_run(w->s, 1200), -1);
    assert_int_equal(w->n_runs, 3);
    assert_string_equal(w->runs[2].url, "http://h.test/2");
    end_run(w, 2, 1250);
    world_free(w);
}

/* robots.txt first; its Crawl-delay, longer than the clients' delays, holds for both. */
static void test_robots_crawl_delay(void **state)
{
    (void)state;
    struct world *w = world_new(10, 1, 1);
    fetchsched_client_init(&w->clients[0], 10, 100);
    fetchsched_client_init(&w->clients[1], 10, 0);
    add(w, 0, "r.test", "1");
    add(w, 1, "r.test", "2");
    add(w, 1, "r.test", "private/3");
    (void)fetchsched_run(w->s, 0);
    assert_int_equal(w->n_runs, 1);
    assert_null(w->runs[0].req);
    assert_string_equal(w->runs[0].url, "http://r.test/robots.txt");
    assert_ptr_equal(w->runs[0].who, &w->clients[0]);
    static const char body[] = "User-agent: *\nCrawl-delay: 5\nDisallow: /private\n";
    fetchsched_robots_done(w->s, w->runs[0].host, 200, body, sizeof body - 1, FETCH_OK, 10);
    fetchsched_transfer_done(w->s, w->runs[0].host, NULL, 10);
    w->runs[0].ended = 1;
    static const struct step steps[] = {
        {RUN, 100, NULL, 4910},
        {RUN, 5010, "http://r.test/1", -1},
        {END, 5100, NULL, 0},
        {RUN, 5200, NULL, 4900}, /* B's delay is 0, the host's 5 s */
        {RUN, 10100, "http://r.test/2", -1},
        {END, 10100, NULL, 0},
    };
    play(w, steps, sizeof steps / sizeof steps[0]);
    /* Disallowed: ended without a transfer, once the host's delay has passed. */
    assert_int_equal(fetchsched_run(w->s, 15100), -1);
    assert_int_equal(w->n_finished, 1);
    assert_int_equal(w->finished[0], FETCH_ROBOTS);
    assert_int_equal(w->clients[1].pending, 0);
    world_free(w);
}

/* per_host transfers at once on a host, whatever the pool and the client allow. */
static void test_transfers_per_host(void **state)
{
    (void)state;
    static const int per_host[] = {1, 2, 3};
    for (size_t r = 0; r < sizeof per_host / sizeof per_host[0]; r++) {
        struct world *w = world_new(10, per_host[r], 0);
        fetchsched_client_init(&w->clients[0], 10, 0);
        for (int i = 0; i < 6; i++) {
            char path[16];
            snprintf(path, sizeof path, "%d", i);
            add(w, 0, "one.test", path);
        }
        (void)fetchsched_run(w->s, 0);
        (void)fetchsched_run(w->s, 0);
        assert_int_equal(w->clients[0].in_flight, per_host[r]);
        end_run(w, running_of(w, 0), 5);
        (void)fetchsched_run(w->s, 5);
        assert_int_equal(w->clients[0].in_flight, per_host[r]);
        assert_int_equal(w->n_runs, (size_t)per_host[r] + 1);
        assert_string_equal(w->runs[per_host[r]].url, w->urls[per_host[r]]); /* in order */
        world_free(w);
    }
}

/* A client that leaves takes its queued requests along; the other gets the pool. */
static void test_client_leaves(void **state)
{
    (void)state;
    struct world *w = world_new(4, 1, 0);
    fetchsched_client_init(&w->clients[0], 100, 500);
    fetchsched_client_init(&w->clients[1], 100, 0);
    add_hosts(w, 0, 6);
    add_hosts(w, 1, 6);
    (void)fetchsched_run(w->s, 0);
    assert_int_equal(w->clients[0].in_flight, 2);
    assert_int_equal(w->clients[1].in_flight, 2);

    for (size_t i = 0; i < w->n_runs; i++) /* the pool aborts A's transfers first */
        if (w->runs[i].who == &w->clients[0]) {
            w->runs[i].ended = 1;
            fetchsched_transfer_aborted(w->s, w->runs[i].host, w->runs[i].req, 20);
        }
    int dropped = 0;
    for (struct fetchsched_req *q = fetchsched_client_leave(w->s, &w->clients[0]); q; q = q->next) {
        assert_ptr_equal(q->client, &w->clients[0]);
        dropped++;
    }
    assert_int_equal(dropped, 4);
    assert_int_equal(w->clients[0].pending, 0);
    assert_int_equal(w->clients[0].in_flight, 0);
    assert_int_equal(w->n_finished, 0); /* dropped, not answered */

    (void)fetchsched_run(w->s, 20);
    assert_int_equal(w->clients[1].in_flight, 4);
    for (size_t i = 4; i < w->n_runs; i++)
        assert_ptr_equal(w->runs[i].who, &w->clients[1]);
    world_free(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fair_shares),
        cmocka_unit_test(test_caps_and_second_pass),
        cmocka_unit_test(test_waiting_client_lends_its_slots),
        cmocka_unit_test(test_host_delay_across_clients),
        cmocka_unit_test(test_retry_backoff),
        cmocka_unit_test(test_robots_crawl_delay),
        cmocka_unit_test(test_transfers_per_host),
        cmocka_unit_test(test_client_leaves),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
