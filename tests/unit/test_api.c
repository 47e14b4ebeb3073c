/*
 * The HTTP API's routing (server/api.c) through api_handle, against the PostgreSQL
 * fixture and without an HTTP server: each route's happy path for one job, and the
 * errors a client sees (404, 405, 400 for a query argument, 415, 422), status, error
 * code, field and message as docs/api.md shows them.
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

#include "server/api.h"
#include "server/respcache.h"
#include "store/dbpool.h"
#include "store/store.h"
#include "testdb.h"

/* jansson: json_loadb gives a new reference (freed with json_decref); json_object_get
 * and json_array_get borrow. */

struct fixture {
    struct store *s; /* the test's own writes and reads */
    struct dbpool *pool;
    struct api_config cfg;
};

/* The last answer: status, headers, body (kept until the next request). */
static struct http_response last;

/* A clock 10 s on at each reading: an answer kept is always too old to be handed out, so
 * every GET reads the database (the cache has test_respcache). */
static int64_t clock_ms;
static int64_t fast_clock(void)
{
    return clock_ms += 10000;
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    if (!f || testdb_open_private("sitescout_api", &f->s) != 0)
        return -1; /* GET /api/jobs shows every job of the database */
    if (dbpool_new(store_url(f->s), 2, &f->pool) != ERR_OK)
        return -1;
    f->cfg.pool = f->pool;
    respcache_set_clock(fast_clock);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    free(last.body);
    dbpool_free(f->pool);
    store_free(f->s);
    free(f);
    respcache_set_clock(NULL);
    return 0;
}

static int empty(void **state)
{
    struct fixture *f = *state;
    return store_exec(f->s, "TRUNCATE jobs, sites, pages, edges, metrics CASCADE", 0, NULL) ==
                   ERR_OK
               ? 0
               : -1;
}

/* METHOD path with query args and headers (name, value, ..., NULL; or NULL), body or NULL:
 * the status. */
static int req(struct fixture *f, const char *method, const char *path, const char *const *args,
               const char *const *headers, const char *body)
{
    free(last.body);
    memset(&last, 0, sizeof last);
    struct http_request r = {.method = method,
                             .path = path,
                             .body = body ? body : "",
                             .body_len = body ? strlen(body) : 0,
                             .args = args,
                             .headers = headers};
    api_handle(&f->cfg, &r, &last);
    return last.status;
}

static int get(struct fixture *f, const char *path, const char *const *args)
{
    return req(f, "GET", path, args, NULL, NULL);
}

static const char *const content_json[] = {"Content-Type", "application/json", NULL};

/* A response header of the last answer, or NULL. */
static const char *header(const char *name)
{
    for (int i = 0; i < last.n_headers; i++)
        if (strcmp(last.header_names[i], name) == 0)
            return last.header_values[i];
    return NULL;
}

/* The last answer's body as JSON (the caller json_decrefs it). */
static json_t *body(void)
{
    assert_non_null(last.body);
    json_error_t jerr;
    json_t *j = json_loadb(last.body, last.body_len, 0, &jerr);
    if (!j)
        fail_msg("not JSON (%s): %.*s", jerr.text, (int)last.body_len, last.body);
    return j;
}

/* The last answer is the error status/code, naming field (NULL: none), saying msg. */
static void assert_error(int status, const char *code, const char *field, const char *msg)
{
    assert_int_equal(last.status, status);
    json_t *j = body();
    const json_t *e = json_object_get(j, "error");
    assert_string_equal(json_string_value(json_object_get(e, "code")), code);
    const json_t *fv = json_object_get(e, "field");
    if (field)
        assert_string_equal(json_string_value(fv), field);
    else
        assert_true(!fv || json_is_null(fv));
    if (msg)
        assert_string_equal(json_string_value(json_object_get(e, "message")), msg);
    json_decref(j);
}

static const char job_body[] =
    "{\"topic\": \"sci.space\","
    " \"relevant_sites\": [\"http://a.example/\", \"http://b.example/\"],"
    " \"other_sites\": [\"http://c.example/\", \"http://d.example/\"],"
    " \"params\": {\"max_pages\": 100}}";

/* POST /api/jobs: the new job's id. */
static int64_t create(struct fixture *f)
{
    assert_int_equal(req(f, "POST", "/api/jobs", NULL, content_json, job_body), 201);
    json_t *j = body();
    int64_t id = (int64_t)json_integer_value(json_object_get(j, "id"));
    assert_true(id > 0);
    char loc[64];
    snprintf(loc, sizeof loc, "/api/jobs/%lld", (long long)id);
    assert_string_equal(header("Location"), loc);
    assert_string_equal(json_string_value(json_object_get(j, "state")), "queued");
    json_decref(j);
    return id;
}

static void sql(struct fixture *f, const char *text, int64_t job)
{
    char id[32];
    snprintf(id, sizeof id, "%lld", (long long)job);
    const char *p[] = {id};
    assert_int_equal(store_exec(f->s, text, 1, p), ERR_OK);
}

/* The job's state as GET /api/jobs/{id} shows it. */
static void assert_state(struct fixture *f, const char *path, const char *state)
{
    assert_int_equal(get(f, path, NULL), 200);
    json_t *j = body();
    assert_string_equal(json_string_value(json_object_get(j, "state")), state);
    json_decref(j);
}

static void test_health_openapi_prometheus(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(get(f, "/api/health", NULL), 200);
    assert_string_equal(last.body, "{\"status\":\"ok\"}");
    assert_int_equal(get(f, "/api/openapi.json", NULL), 200);
    json_t *j = body();
    assert_non_null(json_object_get(json_object_get(j, "paths"), "/api/jobs/{id}/sites"));
    json_decref(j);
    int64_t id = create(f);
    assert_int_equal(get(f, "/metrics", NULL), 200);
    assert_string_equal(last.content_type, "text/plain; version=0.0.4; charset=utf-8");
    char line[96];
    snprintf(line, sizeof line, "sitescout_job_running{job_id=\"%lld\"} 0\n", (long long)id);
    assert_non_null(strstr(last.body, line));
}

static void test_a_job_through_its_routes(void **state)
{
    struct fixture *f = *state;
    int64_t id = create(f);
    char path[128], want[64];
    snprintf(path, sizeof path, "/api/jobs/%lld", (long long)id);

    /* Listed, and fetched. */
    const char *const queued[] = {"state", "queued", "limit", "1", NULL};
    assert_int_equal(get(f, "/api/jobs", queued), 200);
    json_t *j = body();
    assert_int_equal(json_integer_value(json_object_get(j, "total")), 1);
    assert_int_equal(
        json_integer_value(json_object_get(json_array_get(json_object_get(j, "jobs"), 0), "id")),
        id);
    json_decref(j);
    assert_state(f, path, "queued");
    assert_non_null(header("ETag"));

    /* Its websites, as the crawl would have left two of them. */
    sql(f,
        "INSERT INTO sites (job_id, host, homepage, role, state, confidence, relevant,"
        " examined_at) VALUES ($1, 'a.example', 'http://a.example/', 'start', 'examined', 0.9,"
        " true, now()), ($1, 'e.example', 'http://e.example/', 'discovered', 'examined', 0.2,"
        " false, now()), ($1, 'z.example', 'http://z.example/', 'discovered', 'border', NULL,"
        " NULL, NULL)",
        id);
    sql(f,
        "INSERT INTO pages (job_id, host, url, status, pr_target) VALUES"
        " ($1, 'a.example', 'http://a.example/', 200, 0.9)",
        id);
    char sub[192];
    const char *const relevant[] = {"relevant", "true", "order", "rank", "limit", "5", NULL};
    snprintf(sub, sizeof sub, "%s/sites", path);
    assert_int_equal(get(f, sub, relevant), 200);
    j = body();
    assert_int_equal(json_integer_value(json_object_get(j, "total")), 1);
    assert_string_equal(
        json_string_value(json_object_get(json_array_get(json_object_get(j, "sites"), 0), "host")),
        "a.example");
    json_decref(j);
    snprintf(sub, sizeof sub, "%s/sites/a.example", path);
    assert_int_equal(get(f, sub, NULL), 200);
    j = body();
    assert_int_equal(json_array_size(json_object_get(j, "pages")), 1);
    json_decref(j);
    snprintf(sub, sizeof sub, "%s/sites/a.example/pages", path);
    assert_int_equal(get(f, sub, NULL), 200);
    j = body();
    assert_string_equal(json_string_value(json_object_get(j, "host")), "a.example");
    assert_int_equal(
        json_integer_value(json_object_get(json_array_get(json_object_get(j, "pages"), 0), "n")),
        1);
    json_decref(j);
    snprintf(sub, sizeof sub, "%s/sites/nowhere.example", path);
    assert_int_equal(get(f, sub, NULL), 404);
    snprintf(want, sizeof want, "job %lld has no site nowhere.example", (long long)id);
    assert_error(404, "not_found", NULL, want);

    /* The exports: a file to download, by name or by the Accept header. */
    snprintf(sub, sizeof sub, "%s/sites.csv", path);
    assert_int_equal(get(f, sub, NULL), 200);
    assert_string_equal(last.content_type, "text/csv; charset=utf-8");
    assert_non_null(strstr(header("Content-Disposition"), "sites.csv"));
    assert_non_null(strstr(last.body, "a.example"));
    assert_non_null(strstr(last.body, "e.example"));
    const char *const ndjson[] = {"Accept", "application/x-ndjson", NULL};
    snprintf(sub, sizeof sub, "%s/sites", path);
    assert_int_equal(req(f, "GET", sub, NULL, ndjson, NULL), 200);
    assert_string_equal(last.content_type, "application/x-ndjson");
    assert_int_equal(strchr(strchr(last.body, '\n') + 1, '\n') - last.body + 1,
                     (long)last.body_len); /* two lines */

    /* Its metrics, border, labels, topic and graph. */
    const char *const since[] = {"since", "-5", NULL};
    snprintf(sub, sizeof sub, "%s/metrics", path);
    assert_int_equal(get(f, sub, since), 200);
    assert_string_equal(last.body, "{\"metrics\":[]}");
    snprintf(sub, sizeof sub, "%s/border", path);
    assert_int_equal(get(f, sub, NULL), 200);
    j = body();
    assert_string_equal(
        json_string_value(json_object_get(json_array_get(json_object_get(j, "border"), 0), "host")),
        "z.example");
    json_decref(j);
    static const char *const routes[] = {"/labels", "/topic", "/graph"};
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
        snprintf(sub, sizeof sub, "%s%s", path, routes[i]);
        if (get(f, sub, NULL) != 200)
            fail_msg("GET %s: %d %s", sub, last.status, last.body);
        json_decref(body());
    }

    /* Paused while it runs, resumed, ended, deleted. */
    snprintf(sub, sizeof sub, "%s/pause", path);
    assert_int_equal(req(f, "POST", sub, NULL, NULL, NULL), 409);
    snprintf(want, sizeof want, "job %lld is queued: only a running job can pause", (long long)id);
    assert_error(409, "conflict", NULL, want);
    sql(f, "UPDATE jobs SET state = 'crawling' WHERE id = $1", id);
    assert_int_equal(req(f, "POST", sub, NULL, NULL, NULL), 202);
    j = body();
    assert_string_equal(json_string_value(json_object_get(j, "stop_requested")), "pause");
    json_decref(j);
    sql(f, "UPDATE jobs SET state = 'paused', stop_requested = NULL WHERE id = $1", id);
    snprintf(sub, sizeof sub, "%s/resume", path);
    assert_int_equal(req(f, "POST", sub, NULL, NULL, NULL), 200);
    assert_state(f, path, "queued"); /* no model yet: it trains again */
    assert_int_equal(req(f, "DELETE", path, NULL, NULL, NULL), 409);
    snprintf(sub, sizeof sub, "%s/stop", path);
    assert_int_equal(req(f, "POST", sub, NULL, NULL, NULL), 200);
    j = body();
    assert_string_equal(json_string_value(json_object_get(j, "stop_reason")), "user_stop");
    json_decref(j);
    assert_int_equal(req(f, "DELETE", path, NULL, NULL, NULL), 204);
    assert_null(last.body);
    assert_int_equal(get(f, path, NULL), 404);
    snprintf(want, sizeof want, "no job %lld", (long long)id);
    assert_error(404, "not_found", NULL, want);
    snprintf(sub, sizeof sub, "%s/sites", path);
    assert_int_equal(get(f, sub, NULL), 404);
}

static void test_unknown_paths_jobs_and_methods(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(get(f, "/api/nothing", NULL), 404);
    assert_error(404, "not_found", NULL, "no such path: /api/nothing");
    assert_int_equal(get(f, "/api/jobs/999999999", NULL), 404);
    assert_error(404, "not_found", NULL, "no job 999999999");
    assert_int_equal(get(f, "/api/jobs/999999999/sites", NULL), 404);
    assert_int_equal(req(f, "POST", "/api/jobs/999999999/stop", NULL, NULL, NULL), 404);
    assert_int_equal(req(f, "DELETE", "/api/jobs/999999999", NULL, NULL, NULL), 404);
    /* Not a job id at all: no job either, the text echoed. */
    static const char *const not_ids[] = {"abc", "0", "-3", "12x", "99999999999999999999"};
    for (size_t i = 0; i < sizeof not_ids / sizeof not_ids[0]; i++) {
        char path[64], want[64];
        snprintf(path, sizeof path, "/api/jobs/%s", not_ids[i]);
        snprintf(want, sizeof want, "no job '%s'", not_ids[i]);
        assert_int_equal(get(f, path, NULL), 404);
        assert_error(404, "not_found", NULL, want);
    }
    assert_int_equal(req(f, "PUT", "/api/jobs", NULL, NULL, NULL), 405);
    assert_error(405, "method_not_allowed", NULL,
                 "PUT is not allowed here (allowed: GET, HEAD, POST, OPTIONS)");
    assert_string_equal(header("Allow"), "GET, HEAD, POST, OPTIONS");
    assert_int_equal(req(f, "POST", "/api/jobs/1/sites", NULL, NULL, NULL), 405);
    assert_string_equal(header("Allow"), "GET, HEAD, OPTIONS");
    assert_int_equal(req(f, "DELETE", "/api/health", NULL, NULL, NULL), 405);
}

/* One bad query argument: GET path?name=value is a 400 naming it, saying msg. */
static void assert_bad_arg(struct fixture *f, const char *path, const char *name, const char *value,
                           const char *msg)
{
    const char *const args[] = {name, value, NULL};
    if (get(f, path, args) != 400)
        fail_msg("GET %s?%s=%s: %d %s", path, name, value, last.status, last.body);
    assert_error(400, "invalid", name, msg);
}

static void test_query_arguments(void **state)
{
    struct fixture *f = *state;
    int64_t id = create(f);
    char sites[96], metrics[96], border[96], graph[96];
    snprintf(sites, sizeof sites, "/api/jobs/%lld/sites", (long long)id);
    snprintf(metrics, sizeof metrics, "/api/jobs/%lld/metrics", (long long)id);
    snprintf(border, sizeof border, "/api/jobs/%lld/border", (long long)id);
    snprintf(graph, sizeof graph, "/api/jobs/%lld/graph", (long long)id);
    assert_bad_arg(f, "/api/jobs", "sate", "done",
                   "unknown query parameter 'sate' (GET /api/jobs takes limit, offset, state)");
    assert_bad_arg(f, sites + 0, "verbose", "1",
                   "unknown query parameter 'verbose' (GET /api/jobs/{id}/sites takes relevant, "
                   "role, order, limit, offset)");
    assert_bad_arg(f, "/api/health", "x", "1",
                   "unknown query parameter 'x' (GET /api/health takes none)");
    /* Numbers: the whole text, in range. */
    static const char *const bad_limits[] = {
        "abc", "", "-1", "1001", "5x", "1.5", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad_limits / sizeof bad_limits[0]; i++) {
        assert_bad_arg(f, "/api/jobs", "limit", bad_limits[i],
                       "limit: must be an integer from 0 to 1000");
        assert_bad_arg(f, sites, "limit", bad_limits[i],
                       "limit: must be an integer from 0 to 1000");
        assert_bad_arg(f, border, "limit", bad_limits[i],
                       "limit: must be an integer from 0 to 1000");
    }
    assert_bad_arg(f, graph, "limit", "-1", "limit: must be an integer from 0 to 5000");
    assert_bad_arg(f, "/api/jobs", "offset", "x",
                   "offset: must be an integer from 0 to 4611686018427387903");
    assert_bad_arg(f, sites, "offset", "-2",
                   "offset: must be an integer from 0 to 4611686018427387903");
    static const char *const bad_since[] = {"yesterday", "", "1e309", "-inf", "nan", "3s"};
    for (size_t i = 0; i < sizeof bad_since / sizeof bad_since[0]; i++)
        assert_bad_arg(f, metrics, "since", bad_since[i],
                       "since: must be a number of seconds since the job started");
    assert_bad_arg(f, "/api/jobs", "state", "finished",
                   "state: must be queued, training, crawling, paused, done or failed");
    assert_bad_arg(f, sites, "order", "size", "order: must be confidence, rank, found or unsure");
    assert_bad_arg(f, sites, "relevant", "maybe", "relevant: must be true or false");
    assert_bad_arg(f, sites, "role", "train", "role: must be discovered or start");
    /* And good ones at the edges. */
    static const char *const good[][2] = {{"limit", "0"}, {"limit", "1000"}, {"offset", "7"}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        const char *const args[] = {good[i][0], good[i][1], NULL};
        assert_int_equal(get(f, "/api/jobs", args), 200);
    }
    static const char *const good_since[] = {"-1", "0", "12.5", "1e3"};
    for (size_t i = 0; i < sizeof good_since / sizeof good_since[0]; i++) {
        const char *const args[] = {"since", good_since[i], NULL};
        assert_int_equal(get(f, metrics, args), 200);
    }
}

static void test_job_bodies(void **state)
{
    struct fixture *f = *state;
    assert_int_equal(req(f, "POST", "/api/jobs", NULL, NULL, job_body), 415);
    assert_error(415, "unsupported_media_type", NULL,
                 "a job body must be sent as Content-Type: application/json");
    assert_int_equal(req(f, "POST", "/api/jobs", NULL, content_json, "{\"topic\": "), 400);
    assert_error(400, "bad_json", NULL, NULL);
    assert_int_equal(req(f, "POST", "/api/jobs", NULL, content_json,
                         "{\"topic\": \"x\", \"colour\": \"red\","
                         " \"relevant_sites\": [\"http://a.example/\", \"http://b.example/\"],"
                         " \"other_sites\": [\"http://c.example/\", \"http://d.example/\"]}"),
                     422);
    assert_error(422, "invalid", "colour", NULL);
    assert_int_equal(req(f, "POST", "/api/jobs", NULL, content_json,
                         "{\"topic\": \"x\", \"params\": {\"p_threshold\": 2},"
                         " \"relevant_sites\": [\"http://a.example/\", \"http://b.example/\"],"
                         " \"other_sites\": [\"http://c.example/\", \"http://d.example/\"]}"),
                     422);
    assert_error(422, "invalid", "params.p_threshold", NULL);
    assert_int_equal(req(f, "POST", "/api/jobs", NULL, content_json,
                         "{\"topic\": \"x\", \"params\": {\"warc\": true},"
                         " \"relevant_sites\": [\"http://a.example/\", \"http://b.example/\"],"
                         " \"other_sites\": [\"http://c.example/\", \"http://d.example/\"]}"),
                     422);
    assert_error(422, "invalid", "params.warc", NULL);
    /* None of them stored a job. */
    assert_int_equal(get(f, "/api/jobs", NULL), 200);
    json_t *j = body();
    assert_int_equal(json_integer_value(json_object_get(j, "total")), 0);
    json_decref(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_health_openapi_prometheus, empty),
        cmocka_unit_test_setup(test_a_job_through_its_routes, empty),
        cmocka_unit_test_setup(test_unknown_paths_jobs_and_methods, empty),
        cmocka_unit_test_setup(test_query_arguments, empty),
        cmocka_unit_test_setup(test_job_bodies, empty),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
