/* Unit tests for server/jobspec: job bodies, jobs files, parameters and their errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "classifier/pagecls.h"
#include "job/jobspec.h"

static void assert_params_equal(const struct jobspec_params *a, const struct jobspec_params *b)
{
    assert_float_equal(a->p_threshold, b->p_threshold, 0);
    assert_int_equal(a->train_pages_per_site, b->train_pages_per_site);
    assert_int_equal(a->centroids_per_class, b->centroids_per_class);
    assert_int_equal(a->sites_per_centroid, b->sites_per_centroid);
    assert_int_equal(a->max_pages_per_site, b->max_pages_per_site);
    assert_int_equal(a->max_pages_to_decide, b->max_pages_to_decide);
    assert_int_equal(a->min_pages_relevant, b->min_pages_relevant);
    assert_float_equal(a->prior_target, b->prior_target, 0);
    assert_int_equal(a->politeness_delay_ms, b->politeness_delay_ms);
    assert_int_equal(a->concurrency, b->concurrency);
    assert_int_equal(a->cv_folds, b->cv_folds);
    assert_int_equal(a->seed, b->seed);
    assert_int_equal(a->classifier, b->classifier);
    assert_float_equal(a->svm_c, b->svm_c, 0);
}

static struct jobspec *parse_ok(const char *json)
{
    struct jobspec *j = NULL;
    enum err e = jobspec_parse(json, strlen(json), &j);
    if (e)
        fail_msg("parse failed: %s", err_msg());
    assert_non_null(j);
    return j;
}

static void test_valid_body(void **state)
{
    (void)state;
    struct jobspec *j = parse_ok(
        "{\"topic\": \"sci.space\","
        " \"relevant_sites\": [\"http://www.Space.com\", \"https://nasa.gov/missions/x.html\"],"
        " \"other_sites\": [\"http://cooking.org/\", \"http://bikes.org/\"],"
        " \"start_sites\": [\"http://start.net:8080/\"],"
        " \"params\": {\"p_threshold\": 0.8, \"max_pages_per_site\": 7, \"seed\": 3}}");
    assert_string_equal(j->topic, "sci.space");
    assert_int_equal(j->n_relevant, 2);
    /* Normalised and reduced to the website's homepage. */
    assert_string_equal(j->relevant_sites[0], "http://www.space.com/");
    assert_string_equal(j->relevant_sites[1], "https://nasa.gov/");
    assert_int_equal(j->n_other, 2);
    assert_string_equal(j->other_sites[0], "http://cooking.org/");
    assert_int_equal(j->n_start, 1);
    assert_string_equal(j->start_sites[0], "http://start.net:8080/");
    assert_float_equal(j->params.p_threshold, 0.8, 0);
    assert_int_equal(j->params.max_pages_per_site, 7);
    assert_int_equal(j->params.seed, 3);
    /* The others keep their defaults. */
    assert_int_equal(j->params.train_pages_per_site, 25);
    assert_float_equal(j->params.prior_target, 0.5, 0);
    jobspec_free(j);
    jobspec_free(NULL);
}

static void test_defaults(void **state)
{
    (void)state;
    struct jobspec *j =
        parse_ok("{\"topic\": \"t\", \"relevant_sites\": [\"http://a.com/\", \"http://a2.com/\"], "
                 "\"other_sites\": [\"http://b.com/\", \"http://b2.com/\"]}");
    struct jobspec_params d;
    jobspec_params_default(&d);
    assert_params_equal(&j->params, &d);
    assert_float_equal(d.p_threshold, 0.9, 0);
    assert_int_equal(d.train_pages_per_site, 25);
    assert_int_equal(d.centroids_per_class, 4);
    assert_int_equal(d.sites_per_centroid, 15);
    assert_int_equal(d.max_pages_per_site, 25);
    assert_int_equal(d.max_pages_to_decide, 0);
    assert_int_equal(d.min_pages_relevant, 2);
    assert_float_equal(d.prior_target, 0.5, 0);
    assert_int_equal(d.politeness_delay_ms, 1000);
    assert_int_equal(d.concurrency, 64);
    assert_int_equal(d.cv_folds, 10);
    assert_int_equal(j->n_start, 0);
    jobspec_free(j);
}

struct bad_case {
    const char *json;
    enum err code;
    const char *msg; /* must appear in err_msg() */
};

static void test_invalid_bodies_name_the_field(void **state)
{
    (void)state;
    static const struct bad_case cases[] = {
        {"{\"topic\": ", ERR_PARSE, "invalid JSON at line 1"},
        {"[1, 2]", ERR_INVAL, "must be a JSON object"},
        {"{\"relevant_sites\": [\"http://a.com/\"], \"other_sites\": [\"http://b.com/\"]}",
         ERR_INVAL, "topic: missing"},
        {"{\"topic\": 7, \"relevant_sites\": [\"http://a.com/\"], \"other_sites\": "
         "[\"http://b.com/\"]}",
         ERR_INVAL, "topic: must be a non-empty string"},
        {"{\"topic\": \"\", \"relevant_sites\": [\"http://a.com/\"], \"other_sites\": "
         "[\"http://b.com/\"]}",
         ERR_INVAL, "topic: must be a non-empty string"},
        {"{\"topic\": \"t\", \"other_sites\": [\"http://b.com/\"]}", ERR_INVAL,
         "relevant_sites: missing"},
        {"{\"topic\": \"t\", \"relevant_sites\": \"http://a.com/\", \"other_sites\": "
         "[\"http://b.com/\"]}",
         ERR_INVAL, "relevant_sites: must be an array"},
        {"{\"topic\": \"t\", \"relevant_sites\": [], \"other_sites\": [\"http://b.com/\"]}",
         ERR_INVAL, "relevant_sites: must list at least one website"},
        /* Training cross-validates by website: two of each at least (the README's first
         * example once failed after 23 s of training instead). */
        {"{\"topic\": \"t\", \"relevant_sites\": [\"http://a.com/\"], \"other_sites\": "
         "[\"http://b.com/\", \"http://c.com/\"]}",
         ERR_INVAL,
         "relevant_sites: must list at least 2 websites (training cross-validates by "
         "website; 1 given)"},
        {"{\"topic\": \"t\", \"relevant_sites\": [\"http://a.com/\", \"http://d.com/\"], "
         "\"other_sites\": [\"http://b.com/\"]}",
         ERR_INVAL, "other_sites: must list at least 2 websites"},
        {"{\"topic\": \"t\", \"relevant_sites\": [\"http://a.com/\", \"ftp://x.org/\"], "
         "\"other_sites\": [\"http://b.com/\"]}",
         ERR_INVAL, "relevant_sites[1]: 'ftp://x.org/' is not an http(s) URL"},
        {"{\"topic\": \"t\", \"relevant_sites\": [\"http://a.com/\", 3], \"other_sites\": "
         "[\"http://b.com/\"]}",
         ERR_INVAL, "relevant_sites[1]: must be a string"},
        {"{\"topic\": \"t\", \"relevant_sites\": [\"http://a.com/\"]}", ERR_INVAL,
         "other_sites: missing"},
        {"{\"topic\": \"t\", \"relevant_sites\": [\"http://a.com/\"], \"other_sites\": "
         "[\"http://b.com/\", \"http://A.com/x\"]}",
         ERR_INVAL, "other_sites[1]: website a.com is already in relevant_sites[0]"},
        {"{\"topic\": \"t\", \"relevant_sites\": [\"http://a.com/\", \"http://a.com/\"], "
         "\"other_sites\": [\"http://b.com/\"]}",
         ERR_INVAL, "relevant_sites[1]: website a.com is already in relevant_sites[0]"},
        {"{\"topic\": \"t\", \"relevant_sites\": [\"http://a.com/\"], \"other_sites\": "
         "[\"http://b.com/\"], \"start_sites\": {}}",
         ERR_INVAL, "start_sites: must be an array"},
        {"{\"topic\": \"t\", \"relevant_sites\": [\"http://a.com/\"], \"other_sites\": "
         "[\"http://b.com/\"], \"colour\": 1}",
         ERR_INVAL, "colour: unknown member"},
        {"{\"topic\": \"t\", \"topic\": \"u\", \"relevant_sites\": [\"http://a.com/\"], "
         "\"other_sites\": [\"http://b.com/\"]}",
         ERR_PARSE, "duplicate object key"},
        {"{\"topic\": \"t\", \"relevant_sites\": [\"http://a.com/\"], \"other_sites\": "
         "[\"http://b.com/\"], \"params\": []}",
         ERR_INVAL, "params: must be an object"},
        {"{\"topic\": \"t\", \"relevant_sites\": [\"http://a.com/\"], \"other_sites\": "
         "[\"http://b.com/\"], \"params\": {\"p_treshold\": 0.8}}",
         ERR_INVAL, "params.p_treshold: unknown parameter"},
        {"{\"topic\": \"t\", \"relevant_sites\": [\"http://a.com/\"], \"other_sites\": "
         "[\"http://b.com/\"], \"params\": {\"p_threshold\": 1.5}}",
         ERR_INVAL, "params.p_threshold: must be a number in (0.5, 1]"},
        {"{\"topic\": \"t\", \"relevant_sites\": [\"http://a.com/\"], \"other_sites\": "
         "[\"http://b.com/\"], \"params\": {\"p_threshold\": 0.5}}",
         ERR_INVAL, "params.p_threshold: must be"},
        {"{\"topic\": \"t\", \"relevant_sites\": [\"http://a.com/\"], \"other_sites\": "
         "[\"http://b.com/\"], \"params\": {\"p_threshold\": \"0.8\"}}",
         ERR_INVAL, "params.p_threshold: must be"},
        {"{\"topic\": \"t\", \"relevant_sites\": [\"http://a.com/\"], \"other_sites\": "
         "[\"http://b.com/\"], \"params\": {\"max_pages_per_site\": 7.5}}",
         ERR_INVAL, "params.max_pages_per_site: must be an integer from 1 to 100000"},
        {"{\"topic\": \"t\", \"relevant_sites\": [\"http://a.com/\"], \"other_sites\": "
         "[\"http://b.com/\"], \"params\": {\"prior_target\": 1}}",
         ERR_INVAL, "params.prior_target: must be a number in (0, 1)"},
        {"{\"topic\": \"t\", \"relevant_sites\": [\"http://a.com/\"], \"other_sites\": "
         "[\"http://b.com/\"], \"params\": {\"cv_folds\": 1}}",
         ERR_INVAL, "params.cv_folds"},
        /* URLs are taken as written or refused, never repaired (issue 16). */
        {"{\"topic\": \"t\", \"relevant_sites\": [\"http://a.com/\", "
         "\"http://d.com/x\\r\\n' OR 1=1;--\"], \"other_sites\": [\"http://b.com/\"]}",
         ERR_INVAL, "relevant_sites[1]: not a valid URL: byte 14 is a control character (0x0d)"},
        {"{\"topic\": \"t\", \"relevant_sites\": [\"http://a.com/\"], \"other_sites\": "
         "[\"http://b.com/x' OR 1=1;--\"]}",
         ERR_INVAL, "other_sites[0]: not a valid URL: byte 15 is a space"},
        {"{\"topic\": \"t\", \"relevant_sites\": [\"http://a.com/\"], \"other_sites\": "
         "[\"http://b.com/\"], \"start_sites\": [\"http://c.com/\\u0000x\"]}",
         ERR_PARSE, "\\u0000 is not allowed"}, /* jansson refuses NULs in strings */
        {"{\"topic\": \"t\", \"relevant_sites\": [\"http://a.com/<b>\"], "
         "\"other_sites\": [\"http://b.com/\"]}",
         ERR_INVAL, "relevant_sites[0]: not a valid URL: byte 13 is '<'"},
        {"{\"topic\": \"t\", \"relevant_sites\": [\" http://a.com/\"], "
         "\"other_sites\": [\"http://b.com/\"]}",
         ERR_INVAL, "relevant_sites[0]: not a valid URL: byte 0 is a space"},
        {"{\"topic\": \"t\", \"relevant_sites\": [\"http://a.com/\\u00e9\"], "
         "\"other_sites\": [\"http://b.com/\"]}",
         ERR_INVAL, "relevant_sites[0]: not a valid URL: byte 13 is a byte outside ASCII (0xc3)"},
        {"{\"topic\": \"t\", \"relevant_sites\": [\"http://a.com/50%\"], "
         "\"other_sites\": [\"http://b.com/\"]}",
         ERR_INVAL, "relevant_sites[0]: not a valid URL: byte 15 is a '%' that starts no"},
        /* Budgets have sane upper bounds (issue 16). */
        {"{\"topic\": \"t\", \"relevant_sites\": [\"http://a.com/\"], \"other_sites\": "
         "[\"http://b.com/\"], \"params\": {\"max_pages\": 1e12}}",
         ERR_INVAL, "params.max_pages: must be an integer from 0 to 1000000000"},
        {"{\"topic\": \"t\", \"relevant_sites\": [\"http://a.com/\"], \"other_sites\": "
         "[\"http://b.com/\"], \"params\": {\"max_relevant_sites\": 1000000001}}",
         ERR_INVAL, "params.max_relevant_sites: must be an integer from 0 to 1000000000"},
        {"{\"topic\": \"t\", \"relevant_sites\": [\"http://a.com/\"], \"other_sites\": "
         "[\"http://b.com/\"], \"params\": {\"pprs_window\": 1e10}}",
         ERR_INVAL, "params.pprs_window: must be an integer from 1 to 1000000000"},
        {"{\"topic\": \"t\", \"relevant_sites\": [\"http://a.com/\"], \"other_sites\": "
         "[\"http://b.com/\"], \"params\": {\"pprs_limit\": 1e10}}",
         ERR_INVAL, "params.pprs_limit: must be a number from 0 to 1000000000"},
        {"{\"topic\": \"t\", \"relevant_sites\": [\"http://a.com/\"], \"other_sites\": "
         "[\"http://b.com/\"], \"params\": {\"max_seconds\": 1e9}}",
         ERR_INVAL, "params.max_seconds: must be a number from 0 to 31536000"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct jobspec *j = (struct jobspec *)1;
        enum err e = jobspec_parse(cases[i].json, strlen(cases[i].json), &j);
        if (e != cases[i].code || j != NULL)
            fail_msg("case %zu: got %d (%s), want %d", i, e, err_msg(), cases[i].code);
        if (!strstr(err_msg(), cases[i].msg))
            fail_msg("case %zu: message '%s' lacks '%s'", i, err_msg(), cases[i].msg);
    }
}

/* The cause of a bad URL is quoted once, whole (err_set may wrap err_msg() itself). */
static void test_bad_url_message_whole(void **state)
{
    (void)state;
    const char *json = "{\"topic\": \"t\", \"relevant_sites\": [\"notaurl\"], "
                       "\"other_sites\": [\"http://b.com/\"]}";
    struct jobspec *j = NULL;
    assert_int_equal(jobspec_parse(json, strlen(json), &j), ERR_INVAL);
    assert_null(j);
    assert_string_equal(err_msg(),
                        "relevant_sites[0]: 'notaurl' is not an http(s) URL (not an absolute URL)");
}

static void test_params_set(void **state)
{
    (void)state;
    struct jobspec_params p;
    jobspec_params_default(&p);
    assert_int_equal(jobspec_params_set(&p, "politeness_delay_ms", "0"), ERR_OK);
    assert_int_equal(p.politeness_delay_ms, 0);
    assert_int_equal(jobspec_params_set(&p, "p_threshold", "0.85"), ERR_OK);
    assert_float_equal(p.p_threshold, 0.85, 0);
    assert_int_equal(jobspec_params_set(&p, "seed", "12345678901"), ERR_OK);
    assert_int_equal(p.seed, 12345678901LL);
    assert_int_equal(jobspec_params_set(&p, "max_pages_per_site", "1e1"), ERR_OK);
    assert_int_equal(p.max_pages_per_site, 10);

    struct jobspec_params before = p;
    assert_int_equal(jobspec_params_set(&p, "nope", "1"), ERR_NOTFOUND);
    assert_string_equal(err_msg(), "params.nope: unknown parameter");
    assert_int_equal(jobspec_params_set(&p, "concurrency", "0"), ERR_INVAL);
    assert_non_null(strstr(err_msg(), "params.concurrency: must be an integer from 1"));
    assert_int_equal(jobspec_params_set(&p, "concurrency", "8x"), ERR_INVAL);
    assert_non_null(strstr(err_msg(), "not '8x'"));
    assert_int_equal(jobspec_params_set(&p, "concurrency", ""), ERR_INVAL);
    assert_int_equal(jobspec_params_set(&p, "p_threshold", "nan"), ERR_INVAL);
    assert_int_equal(jobspec_params_set(&p, "p_threshold", "inf"), ERR_INVAL);
    assert_int_equal(jobspec_params_set(&p, "seed", "-1"), ERR_INVAL);
    assert_int_equal(jobspec_params_set(&p, "seed", "99999999999999999999999"), ERR_INVAL);
    assert_int_equal(jobspec_params_set(&p, "strategy", "best_first"), ERR_INVAL);
    assert_string_equal(err_msg(), "params.strategy: must be one of: website, page, bfs, homepage, "
                                   "page_homepage, bestfirst, history, hotwords, "
                                   "relevance_degree, weight_table, learning_anchor, "
                                   "context_graph, not "
                                   "'best_first'");
    assert_params_equal(&p, &before); /* failures change nothing */
}

/* Issue 18's strategies: each name is a strategy of its own, a page crawler. */
static void test_strategies(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int strategy, pages;
    } cases[] = {
        {"website", JOBSPEC_WEBSITE, 0},
        {"page", JOBSPEC_PAGE, 1},
        {"bfs", JOBSPEC_BFS, 1},
        {"homepage", JOBSPEC_HOMEPAGE, 0},
        {"page_homepage", JOBSPEC_PAGE_HOMEPAGE, 1},
        {"bestfirst", JOBSPEC_BESTFIRST, 1},
        {"history", JOBSPEC_HISTORY, 1},
        {"hotwords", JOBSPEC_HOTWORDS, 1},
        {"relevance_degree", JOBSPEC_RELEVANCE_DEGREE, 1},
        {"weight_table", JOBSPEC_WEIGHT_TABLE, 1},
        {"learning_anchor", JOBSPEC_LEARNING_ANCHOR, 1},
        {"context_graph", JOBSPEC_CONTEXT_GRAPH, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct jobspec_params p;
        jobspec_params_default(&p);
        assert_int_equal(jobspec_params_set(&p, "strategy", cases[i].name), ERR_OK);
        assert_int_equal(p.strategy, cases[i].strategy);
        assert_int_equal(jobspec_strategy_pages(p.strategy), cases[i].pages);
        assert_string_equal(jobspec_choice_name("strategy", p.strategy), cases[i].name);
    }
    assert_null(jobspec_choice_name("strategy", 12));
}

static void test_params_json_round_trip(void **state)
{
    (void)state;
    struct jobspec_params p;
    jobspec_params_default(&p);
    assert_int_equal(jobspec_params_set(&p, "p_threshold", "0.8125"), ERR_OK);
    assert_int_equal(jobspec_params_set(&p, "concurrency", "3"), ERR_OK);
    struct buf b;
    buf_init(&b, 0);
    assert_int_equal(buf_append_str(&b, "{\"topic\": \"t\", \"relevant_sites\": [\"http://a.com/\","
                                        " \"http://a2.com/\"], \"other_sites\": [\"http://b.com/\","
                                        " \"http://b2.com/\"], \"params\": "),
                     ERR_OK);
    assert_int_equal(jobspec_params_json(&p, &b), ERR_OK);
    assert_int_equal(buf_append_str(&b, "}"), ERR_OK);
    assert_non_null(strstr(buf_str(&b), "\"p_threshold\":0.8125"));
    struct jobspec *j = parse_ok(buf_str(&b));
    assert_params_equal(&j->params, &p);
    jobspec_free(j);
    buf_release(&b);
}

static const char jobs_file[] =
    "{\"a.topic\": {\"topic\": \"a.topic\", \"relevant_sites\": [\"http://a1.com/\", "
    "\"http://a2.com/\"],"
    "              \"other_sites\": [\"http://o1.com/\", \"http://o2.com/\"]},"
    " \"b.topic\": {\"topic\": \"b.topic\", \"relevant_sites\": [\"http://b1.com/\"],"
    "              \"other_sites\": [\"http://o1.com/\", 5]}}";

static void test_jobs_file(void **state)
{
    (void)state;
    struct jobspec *j = NULL;
    assert_int_equal(jobspec_select(jobs_file, strlen(jobs_file), "jobs.json", "a.topic", &j),
                     ERR_OK);
    assert_string_equal(j->topic, "a.topic");
    assert_string_equal(j->relevant_sites[0], "http://a1.com/");
    jobspec_free(j);

    /* Errors in an entry name the entry and the field. */
    assert_int_equal(jobspec_select(jobs_file, strlen(jobs_file), "jobs.json", "b.topic", &j),
                     ERR_INVAL);
    assert_null(j);
    assert_non_null(strstr(err_msg(), "jobs.json: [\"b.topic\"].other_sites[1]: must be a string"));

    /* An unknown topic lists the topics there. */
    assert_int_equal(jobspec_select(jobs_file, strlen(jobs_file), "jobs.json", "c", &j),
                     ERR_NOTFOUND);
    assert_non_null(strstr(err_msg(), "a.topic, b.topic"));
    /* Several entries and no topic: say so. */
    assert_int_equal(jobspec_select(jobs_file, strlen(jobs_file), "jobs.json", NULL, &j),
                     ERR_NOTFOUND);
    assert_non_null(strstr(err_msg(), "pick one"));

    /* One entry: no topic needed. */
    const char one[] =
        "{\"x\": {\"topic\": \"x\", \"relevant_sites\": [\"http://a.com/\", "
        "\"http://a2.com/\"], \"other_sites\": [\"http://b.com/\", \"http://b2.com/\"]}}";
    assert_int_equal(jobspec_select(one, strlen(one), "one.json", NULL, &j), ERR_OK);
    assert_string_equal(j->topic, "x");
    jobspec_free(j);

    /* A plain body: the topic, if given, must match. */
    const char body[] =
        "{\"topic\": \"x\", \"relevant_sites\": [\"http://a.com/\", "
        "\"http://a2.com/\"], \"other_sites\": [\"http://b.com/\", \"http://b2.com/\"]}";
    assert_int_equal(jobspec_select(body, strlen(body), "body.json", "x", &j), ERR_OK);
    jobspec_free(j);
    assert_int_equal(jobspec_select(body, strlen(body), "body.json", "y", &j), ERR_NOTFOUND);
    assert_null(j);
    const char bad[] = "{\"topic\": \"x\", \"relevant_sites\": [\"nope\"], "
                       "\"other_sites\": [\"http://b.com/\"]}";
    assert_int_equal(jobspec_select(bad, strlen(bad), "body.json", NULL, &j), ERR_INVAL);
    assert_non_null(strstr(err_msg(), "body.json: relevant_sites[0]: 'nope' is not"));

    assert_int_equal(jobspec_select("{}", 2, "empty.json", NULL, &j), ERR_INVAL);
    assert_int_equal(jobspec_select("{\"x\": 1}", 8, "n.json", "x", &j), ERR_INVAL);
    assert_non_null(strstr(err_msg(), "n.json: [\"x\"]: must be a JSON object"));
}

static void test_load_file(void **state)
{
    (void)state;
    char path[] = "/tmp/test_jobspec.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, jobs_file, strlen(jobs_file)), (ssize_t)strlen(jobs_file));
    close(fd);
    struct jobspec *j = NULL;
    assert_int_equal(jobspec_load(path, "a.topic", &j), ERR_OK);
    assert_string_equal(j->other_sites[0], "http://o1.com/");
    jobspec_free(j);
    unlink(path);
    assert_int_equal(jobspec_load(path, "a.topic", &j), ERR_IO);
    assert_non_null(strstr(err_msg(), "cannot open"));
    assert_null(j);
}

/* The warc parameter: a JSON boolean, "true" or "false" in --set, a boolean in the JSON out. */
static void test_warc_param(void **state)
{
    (void)state;
    static const char base[] = "{\"topic\": \"t\", \"relevant_sites\": [\"http://a.com/\", "
                               "\"http://b.com/\"], \"other_sites\": [\"http://c.com/\", "
                               "\"http://d.com/\"], \"params\": {\"warc\": %s}}";
    char body[512];
    snprintf(body, sizeof body, base, "true");
    struct jobspec *j = parse_ok(body);
    assert_int_equal(j->params.warc, 1);
    struct buf out;
    buf_init(&out, 0);
    assert_int_equal(jobspec_params_json(&j->params, &out), ERR_OK);
    assert_non_null(strstr(buf_str(&out), "\"warc\":true"));
    buf_release(&out);
    jobspec_free(j);
    const char *bad[] = {"1", "\"true\"", "null"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(body, sizeof body, base, bad[i]);
        j = NULL;
        assert_int_equal(jobspec_parse(body, strlen(body), &j), ERR_INVAL);
        assert_string_equal(err_msg(), "params.warc: must be true or false");
        assert_null(j);
    }
    struct jobspec_params p;
    jobspec_params_default(&p);
    assert_int_equal(p.warc, 0);
    assert_int_equal(jobspec_params_set(&p, "warc", "true"), ERR_OK);
    assert_int_equal(p.warc, 1);
    assert_int_equal(jobspec_params_set(&p, "warc", "false"), ERR_OK);
    assert_int_equal(p.warc, 0);
    assert_int_equal(jobspec_params_set(&p, "warc", "yes"), ERR_INVAL);
}

/* Issue 18 item 8: the page classifier, knn (default) or svm, with the svm's C. */
static void test_classifier_param(void **state)
{
    (void)state;
    static const char base[] = "{\"topic\": \"t\", \"relevant_sites\": [\"http://a.com/\", "
                               "\"http://b.com/\"], \"other_sites\": [\"http://c.com/\", "
                               "\"http://d.com/\"], \"params\": {%s}}";
    char body[512];
    snprintf(body, sizeof body, base, "\"classifier\": \"svm\", \"svm_c\": 0.25");
    struct jobspec *j = parse_ok(body);
    assert_int_equal(j->params.classifier, 1);
    assert_float_equal(j->params.svm_c, 0.25, 0);
    struct pagecls_params pp;
    jobspec_pagecls_params(&j->params, &pp);
    assert_int_equal(pp.kind, PAGECLS_SVM);
    assert_float_equal(pp.svm_c, 0.25, 0);
    struct buf out;
    buf_init(&out, 0);
    assert_int_equal(jobspec_params_json(&j->params, &out), ERR_OK);
    assert_non_null(strstr(buf_str(&out), "\"classifier\":\"svm\""));
    assert_non_null(strstr(buf_str(&out), "\"svm_c\":0.25"));
    buf_release(&out);
    jobspec_free(j);

    static const struct {
        const char *params, *msg;
    } bad[] = {
        {"\"classifier\": \"SVM\"", "params.classifier: must be one of: knn, svm"},
        {"\"classifier\": 1", "params.classifier: must be one of: knn, svm"},
        {"\"svm_c\": 0", "params.svm_c: must be a number in (0, 1000000]"},
        {"\"svm_c\": 1000001", "params.svm_c: must be a number in (0, 1000000]"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(body, sizeof body, base, bad[i].params);
        j = NULL;
        assert_int_equal(jobspec_parse(body, strlen(body), &j), ERR_INVAL);
        if (!strstr(err_msg(), bad[i].msg))
            fail_msg("%s: '%s', want '%s'", bad[i].params, err_msg(), bad[i].msg);
        assert_null(j);
    }

    struct jobspec_params p;
    jobspec_params_default(&p);
    assert_int_equal(p.classifier, 0);
    assert_string_equal(jobspec_choice_name("classifier", p.classifier), "knn");
    assert_float_equal(p.svm_c, 0.1, 0);
    jobspec_pagecls_params(&p, &pp);
    assert_int_equal(pp.kind, PAGECLS_KNN);
    assert_int_equal(jobspec_params_set(&p, "classifier", "svm"), ERR_OK);
    assert_int_equal(p.classifier, 1);
    assert_int_equal(jobspec_params_set(&p, "svm_c", "4"), ERR_OK);
    assert_float_equal(p.svm_c, 4, 0);
    assert_int_equal(jobspec_params_set(&p, "classifier", "centroid"), ERR_INVAL);
    assert_string_equal(err_msg(), "params.classifier: must be one of: knn, svm, not 'centroid'");
    assert_int_equal(p.classifier, 1);
}

/* Issue 14, session 9: centroids per class from the class's training websites. */
static void test_sites_per_centroid_param(void **state)
{
    (void)state;
    struct jobspec_params p;
    struct pagecls_params pp;
    jobspec_params_default(&p);
    jobspec_pagecls_params(&p, &pp);
    assert_int_equal(pp.sites_per_centroid, 15);
    assert_int_equal(pp.centroids, 4);
    assert_int_equal(jobspec_params_set(&p, "sites_per_centroid", "0"), ERR_OK);
    jobspec_pagecls_params(&p, &pp);
    assert_int_equal(pp.sites_per_centroid, 0);
    assert_int_equal(jobspec_params_set(&p, "sites_per_centroid", "100001"), ERR_INVAL);
    assert_string_equal(err_msg(), "params.sites_per_centroid: must be an integer from 0 to "
                                   "100000 (0: always centroids_per_class), not '100001'");
    assert_int_equal(jobspec_params_set(&p, "sites_per_centroid", "-1"), ERR_INVAL);
    assert_int_equal(p.sites_per_centroid, 0);
    struct buf out;
    buf_init(&out, 0);
    assert_int_equal(jobspec_params_json(&p, &out), ERR_OK);
    assert_non_null(strstr(buf_str(&out), "\"sites_per_centroid\":0"));
    buf_release(&out);
}

/* Issue 32: every choice's names come from its table: each name gives its value and
 * back, and a bad value's message lists every name, in order. */
static void test_choice_names_round_trip(void **state)
{
    (void)state;
    int choices = 0;
    for (size_t k = 0; jobspec_param_name(k); k++) {
        const char *param = jobspec_param_name(k);
        if (!jobspec_choice_name(param, 0))
            continue;
        choices++;
        struct jobspec_params p;
        jobspec_params_default(&p);
        assert_int_equal(jobspec_params_set(&p, param, "no-such-value"), ERR_INVAL);
        char want[1024];
        int w = snprintf(want, sizeof want, "params.%s: must be one of:", param);
        int n = 0;
        for (; jobspec_choice_name(param, n); n++) {
            const char *name = jobspec_choice_name(param, n);
            w += snprintf(want + w, sizeof want - (size_t)w, "%s %s", n ? "," : "", name);
            struct jobspec_params q;
            jobspec_params_default(&q);
            if (jobspec_params_set(&q, param, name) != ERR_OK)
                fail_msg("%s=%s: %s", param, name, err_msg());
            struct buf out;
            buf_init(&out, 0);
            assert_int_equal(jobspec_params_json(&q, &out), ERR_OK);
            char pair[256];
            snprintf(pair, sizeof pair, "\"%s\":\"%s\"", param, name);
            if (!strstr(buf_str(&out), pair))
                fail_msg("%s not in %s", pair, buf_str(&out));
            buf_release(&out);
        }
        snprintf(want + w, sizeof want - (size_t)w, ", not 'no-such-value'");
        assert_string_equal(err_msg(), want);
        assert_null(jobspec_choice_name(param, n));
        assert_null(jobspec_choice_name(param, -1));
        if (strcmp(param, "strategy") == 0)
            assert_int_equal(n, JOBSPEC_N_STRATEGIES);
        if (strcmp(param, "classifier") == 0)
            assert_int_equal(n, PAGECLS_N_KINDS);
    }
    /* strategy, edge_weights, prior, calibration, linkrank_links, classifier, judge */
    assert_true(choices >= 7);
}

/* Issue 32: a strategy that cannot work with the page classifier is refused, with the
 * reason, rather than run as something else. */
static void test_classifier_strategy_combinations(void **state)
{
    (void)state;
    static const char base[] = "{\"topic\": \"t\", \"relevant_sites\": [\"http://a.com/\", "
                               "\"http://b.com/\"], \"other_sites\": [\"http://c.com/\", "
                               "\"http://d.com/\"], \"params\": {%s}}";
    static const struct {
        const char *params, *msg; /* NULL: accepted */
    } cases[] = {
        {"\"classifier\": \"svm\", \"strategy\": \"hotwords\"",
         "params.classifier: svm does not work with strategy hotwords: its hot words are the "
         "terms the target class's centroids weigh most, and an SVM has no centroids, so it would "
         "crawl as bestfirst; hotwords takes classifier knn"},
        {"\"strategy\": \"context_graph\", \"classifier\": \"svm\"",
         "params.classifier: svm does not work with strategy context_graph: its layer classifier "
         "tells the context graph's layers apart, and an SVM tells two classes apart, so it would "
         "keep layer 0 and other alone; context_graph takes classifier knn"},
        {"\"classifier\": \"knn\", \"strategy\": \"hotwords\"", NULL},
        {"\"strategy\": \"context_graph\"", NULL},
        {"\"classifier\": \"svm\", \"strategy\": \"bestfirst\"", NULL},
        {"\"classifier\": \"svm\", \"strategy\": \"weight_table\"", NULL},
        {"\"classifier\": \"svm\", \"strategy\": \"page_homepage\"", NULL},
        {"\"classifier\": \"svm\"", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char body[512];
        snprintf(body, sizeof body, base, cases[i].params);
        struct jobspec *j = NULL;
        enum err e = jobspec_parse(body, strlen(body), &j);
        if (!cases[i].msg) {
            if (e)
                fail_msg("%s: %s", cases[i].params, err_msg());
            jobspec_free(j);
            continue;
        }
        assert_int_equal(e, ERR_INVAL);
        assert_null(j);
        assert_string_equal(err_msg(), cases[i].msg);
    }

    /* What goes with what, as --help lists it. */
    int refused = 0;
    for (int st = 0; st < JOBSPEC_N_STRATEGIES; st++)
        for (int k = 0; k < PAGECLS_N_KINDS; k++)
            refused += jobspec_strategy_refuses(st, k) != NULL;
    assert_int_equal(refused, 2);
    assert_non_null(jobspec_strategy_refuses(JOBSPEC_HOTWORDS, PAGECLS_SVM));
    assert_non_null(jobspec_strategy_refuses(JOBSPEC_CONTEXT_GRAPH, PAGECLS_SVM));
    assert_null(jobspec_strategy_refuses(JOBSPEC_HOTWORDS, PAGECLS_KNN));
    assert_null(jobspec_strategy_refuses(JOBSPEC_N_STRATEGIES, PAGECLS_SVM));
    assert_null(jobspec_strategy_refuses(JOBSPEC_HOTWORDS, PAGECLS_N_KINDS));

    /* Set one by one (--set), the parameters are checked once all are set. */
    struct jobspec_params p;
    jobspec_params_default(&p);
    assert_int_equal(jobspec_params_set(&p, "classifier", "svm"), ERR_OK);
    assert_int_equal(jobspec_params_check(&p), ERR_OK);
    assert_int_equal(jobspec_params_set(&p, "strategy", "hotwords"), ERR_OK);
    assert_int_equal(jobspec_params_check(&p), ERR_INVAL);
    assert_non_null(strstr(err_msg(), "params.classifier: svm does not work with strategy "
                                      "hotwords: "));
    assert_int_equal(jobspec_params_set(&p, "classifier", "knn"), ERR_OK);
    assert_int_equal(jobspec_params_check(&p), ERR_OK);

    /* A jobs file's entry names the file and the topic. */
    char file[600];
    snprintf(file, sizeof file, "{\"t\": %s}",
             "{\"topic\": \"t\", \"relevant_sites\": "
             "[\"http://a.com/\", \"http://b.com/\"], \"other_sites\": [\"http://c.com/\", "
             "\"http://d.com/\"], \"params\": {\"classifier\": \"svm\", \"strategy\": "
             "\"context_graph\"}}");
    struct jobspec *j = NULL;
    assert_int_equal(jobspec_select(file, strlen(file), "jobs.json", "t", &j), ERR_INVAL);
    assert_null(j);
    assert_non_null(strstr(err_msg(), "jobs.json: [\"t\"].params.classifier: svm does not work "
                                      "with strategy context_graph"));
}

/* Issue 32: the paper's LinkRank threshold (§4.3.4) as a choice; growing by default. */
static void test_linkrank_threshold_param(void **state)
{
    (void)state;
    struct jobspec_params p;
    jobspec_params_default(&p);
    assert_int_equal(p.linkrank_threshold, 0);
    assert_string_equal(jobspec_choice_name("linkrank_threshold", p.linkrank_threshold), "growing");
    assert_int_equal(jobspec_params_set(&p, "linkrank_threshold", "fixed"), ERR_OK);
    assert_int_equal(p.linkrank_threshold, 1);
    assert_int_equal(jobspec_params_set(&p, "linkrank_threshold", "paper"), ERR_INVAL);
    assert_non_null(strstr(err_msg(), "params.linkrank_threshold: must be one of: growing, fixed"));
    assert_int_equal(p.linkrank_threshold, 1);
    struct buf out;
    buf_init(&out, 0);
    assert_int_equal(jobspec_params_json(&p, &out), ERR_OK);
    assert_non_null(strstr(buf_str(&out), "\"linkrank_threshold\":\"fixed\""));
    buf_release(&out);
    struct jobspec *j = parse_ok("{\"topic\": \"t\", \"relevant_sites\": [\"http://a.com/\", "
                                 "\"http://a2.com/\"], \"other_sites\": [\"http://b.com/\", "
                                 "\"http://b2.com/\"], \"params\": {\"linkrank_threshold\": "
                                 "\"fixed\"}}");
    assert_int_equal(j->params.linkrank_threshold, 1);
    jobspec_free(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_body),
        cmocka_unit_test(test_warc_param),
        cmocka_unit_test(test_classifier_param),
        cmocka_unit_test(test_sites_per_centroid_param),
        cmocka_unit_test(test_linkrank_threshold_param),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_invalid_bodies_name_the_field),
        cmocka_unit_test(test_bad_url_message_whole),
        cmocka_unit_test(test_params_set),
        cmocka_unit_test(test_strategies),
        cmocka_unit_test(test_choice_names_round_trip),
        cmocka_unit_test(test_classifier_strategy_combinations),
        cmocka_unit_test(test_params_json_round_trip),
        cmocka_unit_test(test_jobs_file),
        cmocka_unit_test(test_load_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
