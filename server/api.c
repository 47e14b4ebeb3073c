/*
 * The HTTP API: routes, request checks and JSON. Job data comes as JSON text from
 * store/apistore.c; the error bodies are server/apireply.c's.
 */
#include "server/api.h"

#include <float.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <strings.h>

#include "common/ascii.h"
#include "common/buf.h"
#include "common/jsontext.h"
#include "common/log.h"
#include "common/num.h"
#include "common/monotime.h"
#include "store/dbpool.h"
#include "job/jobrun.h"
#include "job/jobspec.h"
#include "store/apistore.h"
#include "store/siteexport.h"
#include "store/crawlstore.h"
#include "store/store.h"
#include "server/httpcheck.h"
#include "server/httpneg.h"
#include "server/apicontrol.h"
#include "server/apiexplain.h"
#include "server/apigraph.h"
#include "server/apilabels.h"
#include "server/apirefresh.h"
#include "server/apiroutes.h"
#include "server/apitopic.h"
#include "server/apireply.h"
#include "server/respcache.h"
#include "server/webfiles.h"

#define API_MAX_LIMIT     1000
#define API_DEFAULT_LIMIT 50
#define API_MAX_SEGMENTS  8

/* A request being answered: its path parameters and a database connection. */
struct api_call {
    const struct api_config *cfg;
    const struct http_request *req;
    struct http_response *resp;
    char params[2][256]; /* {id}, {host} in order of appearance */
    int n_params;
    struct store *s;
    int db_bad;
};

/* Match path against a pattern; fills the {params}. */
static int match(const char *pattern, const char *path, struct api_call *c)
{
    c->n_params = 0;
    const char *p = pattern, *q = path;
    while (*p && *q) {
        if (*p != '/' || *q != '/')
            return 0;
        p++, q++;
        size_t pl = strcspn(p, "/"), ql = strcspn(q, "/");
        if (*p == '{') {
            if (ql == 0 || ql >= sizeof c->params[0] || c->n_params == 2)
                return 0;
            snprintf(c->params[c->n_params++], sizeof c->params[0], "%.*s", (int)ql, q);
        } else if (pl != ql || strncmp(p, q, pl) != 0) {
            return 0;
        }
        p += pl, q += ql;
    }
    return !*p && !*q;
}

/* A strict non-negative integer query argument; -1 with a 400 already set on error. */
static int64_t arg_int(struct api_call *c, const char *name, int64_t def, int64_t max)
{
    const char *v = http_request_arg(c->req, name);
    if (!v)
        return def;
    int64_t x;
    if (!num_parse_i64(v, 0, max, &x)) {
        char msg[160];
        snprintf(msg, sizeof msg, "%s: must be an integer from 0 to %" PRId64, name, max);
        api_reply_error(c->resp, 400, "invalid", msg, name);
        return -1;
    }
    return x;
}

static int job_id(struct api_call *c, int64_t *id)
{
    int64_t x;
    if (!num_parse_i64(c->params[0], 1, INT64_MAX, &x)) {
        char msg[300];
        snprintf(msg, sizeof msg, "no job '%s'", c->params[0]);
        api_reply_error(c->resp, 404, "not_found", msg, NULL);
        return 0;
    }
    *id = x;
    return 1;
}

static int api_db(struct api_call *c)
{
    if (c->s)
        return 1;
    enum err e = dbpool_take(c->cfg->pool, &c->s);
    if (e)
        api_reply_err(c->resp, e, 500);
    return !e;
}

/* Reply with a JSON text from the store, or with its error. */
static void reply_json(struct api_call *c, enum err e, int status, char *json)
{
    if (e) {
        free(json);
        c->db_bad = e == ERR_DB;
        api_reply_err(c->resp, e, 422);
        return;
    }
    api_set_body(c->resp, status, json);
}

static void job_reply(struct api_call *c, int64_t id, int status)
{
    char *json;
    enum err e = apistore_job(c->s, id, &json);
    reply_json(c, e, status, json);
}

/*
 * A new job, and the answer read in the same transaction: the job as created (queued),
 * whichever runner takes it up the moment it is committed.
 */
struct create {
    const struct jobspec *js;
    int64_t id;
    char *json;
};

static enum err create_tx(struct store *s, void *arg)
{
    struct create *x = arg;
    free(x->json); /* a transaction run again after a lost connection */
    x->json = NULL;
    enum err e = jobrun_create(s, x->js, &x->id);
    return e ? e : apistore_job(s, x->id, &x->json);
}

static void create_job(struct api_call *c, int64_t none)
{
    if (!httpneg_is_json(http_request_header(c->req, "Content-Type"))) {
        api_reply_error(c->resp, 415, "unsupported_media_type",
                        "a job body must be sent as Content-Type: application/json", NULL);
        return;
    }
    struct jobspec *js = NULL;
    int64_t id = 0;
    enum err e = jobspec_parse(c->req->body, c->req->body_len, &js);
    if (!e && js->params.warc && !c->cfg->warc)
        e = err_set(ERR_INVAL, "params.warc: this server captures no WARC (start it with "
                               "--warc-dir DIR)");
    if (e) {
        api_reply_err(c->resp, e, 422);
        goto out;
    }
    if (!api_db(c))
        goto out;
    struct create x = {js, 0, NULL};
    e = store_tx(c->s, create_tx, &x);
    id = x.id;
    if (e) {
        free(x.json);
        c->db_bad = e == ERR_DB;
        api_reply_err(c->resp, e, 422);
        goto out;
    }
    char loc[64];
    snprintf(loc, sizeof loc, "/api/jobs/%" PRId64, id);
    http_response_header(c->resp, "Location", loc);
    reply_json(c, ERR_OK, 201, x.json);
out:
    jobspec_free(js);
}

static void list_jobs(struct api_call *c, int64_t id)
{
    static const char *const states[] = {"queued", "training", "crawling", "paused",
                                         "done",   "failed",   NULL};
    const char *state = http_request_arg(c->req, "state");
    size_t k = 0;
    while (state && states[k] && strcmp(states[k], state) != 0)
        k++;
    if (state && !states[k]) {
        api_reply_error(c->resp, 400, "invalid",
                        "state: must be queued, training, crawling, paused, done or failed",
                        "state");
        return;
    }
    int64_t limit = arg_int(c, "limit", API_DEFAULT_LIMIT, API_MAX_LIMIT);
    int64_t offset = limit < 0 ? -1 : arg_int(c, "offset", 0, INT64_MAX / 2);
    if (limit < 0 || offset < 0 || !api_db(c))
        return;
    char *json;
    enum err e = apistore_jobs(c->s, state, limit, offset, &json);
    reply_json(c, e, 200, json);
}

static void list_sites(struct api_call *c, int64_t id)
{
    int relevant = -1;
    const char *rv = http_request_arg(c->req, "relevant");
    if (rv) {
        if (strcmp(rv, "true") == 0)
            relevant = 1;
        else if (strcmp(rv, "false") == 0)
            relevant = 0;
        else {
            api_reply_error(c->resp, 400, "invalid", "relevant: must be true or false", "relevant");
            return;
        }
    }
    const char *role = http_request_arg(c->req, "role");
    if (role && strcmp(role, "discovered") != 0 && strcmp(role, "start") != 0) {
        api_reply_error(c->resp, 400, "invalid", "role: must be discovered or start", "role");
        return;
    }
    enum apistore_order order = APISTORE_BY_CONFIDENCE;
    const char *ov = http_request_arg(c->req, "order");
    if (ov) {
        if (strcmp(ov, "confidence") == 0)
            order = APISTORE_BY_CONFIDENCE;
        else if (strcmp(ov, "rank") == 0)
            order = APISTORE_BY_RANK;
        else if (strcmp(ov, "found") == 0)
            order = APISTORE_BY_FOUND;
        else if (strcmp(ov, "unsure") == 0)
            order = APISTORE_BY_UNSURE;
        else {
            api_reply_error(c->resp, 400, "invalid",
                            "order: must be confidence, rank, found or unsure", "order");
            return;
        }
    }
    int64_t limit = arg_int(c, "limit", API_DEFAULT_LIMIT, API_MAX_LIMIT);
    int64_t offset = limit < 0 ? -1 : arg_int(c, "offset", 0, INT64_MAX / 2);
    if (limit < 0 || offset < 0 || !api_db(c))
        return;
    char *json;
    enum err e = apistore_sites(c->s, id, relevant, role, order, limit, offset, &json);
    reply_json(c, e, 200, json);
}

static void job_metrics(struct api_call *c, int64_t id)
{
    double since = -1;
    const char *sv = http_request_arg(c->req, "since");
    /* negative: from the start */
    if (sv && !num_parse_double(sv, -DBL_MAX, DBL_MAX, &since)) {
        api_reply_error(c->resp, 400, "invalid",
                        "since: must be a number of seconds since the job started", "since");
        return;
    }
    if (!api_db(c))
        return;
    char *json;
    enum err e = apistore_metrics(c->s, id, since, &json);
    reply_json(c, e, 200, json);
}

/* GET /api/jobs/{id}/sites.csv or .ndjson: every website examined, or ?relevant=true. */
static void export_sites(struct api_call *c, int64_t id, enum siteexport_format f)
{
    const char *rv = http_request_arg(c->req, "relevant");
    if (rv && strcmp(rv, "true") != 0) {
        api_reply_error(c->resp, 400, "invalid",
                        "relevant: must be true (leave it out for every website examined)",
                        "relevant");
        return;
    }
    if (!api_db(c))
        return;
    struct buf out;
    buf_init(&out, 0);
    enum err e = siteexport_write(c->s, id, rv != NULL, f, &out);
    if (e) {
        buf_release(&out);
        reply_json(c, e, 200, NULL);
        return;
    }
    c->resp->content_type =
        f == SITEEXPORT_CSV ? "text/csv; charset=utf-8" : "application/x-ndjson";
    char name[64];
    snprintf(name, sizeof name, "attachment; filename=\"job-%" PRId64 "-sites.%s\"", id,
             f == SITEEXPORT_CSV ? "csv" : "ndjson");
    http_response_header(c->resp, "Content-Disposition", name);
    api_set_body(c->resp, 200, buf_detach(&out));
}

/*
 * GET /api/jobs/{id}/sites by content negotiation: the export's format when the Accept
 * header's first media type is CSV or NDJSON, else -1 (JSON). Quality values are not
 * weighed: clients that want a file ask for it first.
 */
static int negotiated_export(const struct api_call *c)
{
    const char *accept = http_request_header(c->req, "Accept");
    if (!accept)
        return -1;
    while (*accept == ' ')
        accept++;
    size_t n = strcspn(accept, ",;");
    while (n && accept[n - 1] == ' ')
        n--;
    if (n == 8 && ascii_starts_with_ci(accept, n, "text/csv"))
        return SITEEXPORT_CSV;
    if ((n == 20 && ascii_starts_with_ci(accept, n, "application/x-ndjson")) ||
        (n == 18 && ascii_starts_with_ci(accept, n, "application/ndjson")))
        return SITEEXPORT_NDJSON;
    return -1;
}

/* stop, pause or resume. */
static void job_control(struct api_call *c, int64_t id, const char *what)
{
    if (api_db(c))
        c->db_bad = apicontrol_job(c->s, c->resp, id, what) == ERR_DB;
}

static void prometheus(struct api_call *c, int64_t id)
{
    if (!api_db(c))
        return;
    struct buf out;
    buf_init(&out, 0);
    enum err e = apistore_prometheus(c->s, &out);
    if (e) {
        buf_release(&out);
        reply_json(c, e, 200, NULL);
        return;
    }
    api_set_body(c->resp, 200, buf_detach(&out));
    c->resp->content_type = "text/plain; version=0.0.4; charset=utf-8";
}

static void health(struct api_call *c, int64_t id)
{
    if (!api_db(c))
        return;
    /* A pooled connection to a database gone would wait for it to come back (the
       store's reconnect, 30 s): health says at once that it does not answer. */
    if (!store_ping(store_url(c->s))) {
        c->db_bad = 1;
        api_reply_err(c->resp, err_set(ERR_DB, "the database does not answer"), 503);
        return;
    }
    reply_json(c, store_check(c->s), 200, strdup("{\"status\":\"ok\"}"));
}

static void openapi(struct api_call *c, int64_t id)
{
    char *json = malloc(api_openapi_len + 1);
    if (json) {
        memcpy(json, api_openapi, api_openapi_len);
        json[api_openapi_len] = '\0';
    }
    api_set_body(c->resp, json ? 200 : 500, json);
}

static void get_job(struct api_call *c, int64_t id)
{
    if (api_db(c))
        job_reply(c, id, 200);
}

static void delete_job(struct api_call *c, int64_t id)
{
    respcache_drop_job(id);
    if (!api_db(c))
        return;
    reply_json(c, apistore_job_delete(c->s, id), 204, NULL);
}

static void stop_job(struct api_call *c, int64_t id)
{
    job_control(c, id, "stop");
}

static void pause_job(struct api_call *c, int64_t id)
{
    job_control(c, id, "pause");
}

static void resume_job(struct api_call *c, int64_t id)
{
    job_control(c, id, "resume");
}

/* The list, or the export's file when the Accept header asks for one first. */
static void sites(struct api_call *c, int64_t id)
{
    int f = negotiated_export(c);
    if (f < 0) {
        list_sites(c, id);
        return;
    }
    static const char *const list_only[] = {"role", "order", "limit", "offset"};
    for (size_t i = 0; i < sizeof list_only / sizeof list_only[0]; i++)
        if (http_request_arg(c->req, list_only[i])) {
            char msg[128];
            snprintf(msg, sizeof msg, "%s: not taken with Accept: %s (the file is the whole list)",
                     list_only[i], f == SITEEXPORT_CSV ? "text/csv" : "application/x-ndjson");
            api_reply_error(c->resp, 400, "invalid", msg, list_only[i]);
            return;
        }
    export_sites(c, id, (enum siteexport_format)f);
}

static void site(struct api_call *c, int64_t id)
{
    if (!api_db(c))
        return;
    char *json;
    enum err e = apistore_site(c->s, id, c->params[1], &json);
    reply_json(c, e, 200, json);
}

static void sites_csv(struct api_call *c, int64_t id)
{
    export_sites(c, id, SITEEXPORT_CSV);
}

static void sites_ndjson(struct api_call *c, int64_t id)
{
    export_sites(c, id, SITEEXPORT_NDJSON);
}

static void site_pages(struct api_call *c, int64_t id)
{
    if (!api_db(c))
        return;
    char *json;
    enum err e = apistore_site_pages(c->s, id, c->params[1], &json);
    if (!e)
        e = apiexplain_crawl_model(c->s, id, c->params[1], &json);
    reply_json(c, e, 200, json);
}

static void border(struct api_call *c, int64_t id)
{
    int64_t limit = arg_int(c, "limit", API_DEFAULT_LIMIT, API_MAX_LIMIT);
    if (limit < 0 || !api_db(c))
        return;
    char *json;
    enum err e = apistore_border(c->s, id, limit, &json);
    reply_json(c, e, 200, json);
}

static void label_put(struct api_call *c, int64_t id)
{
    if (api_db(c))
        c->db_bad = apilabels_put(c->s, c->req, c->resp, id, c->params[1]) == ERR_DB;
}

static void label_delete(struct api_call *c, int64_t id)
{
    if (api_db(c))
        c->db_bad = apilabels_delete(c->s, c->resp, id, c->params[1]) == ERR_DB;
}

static void labels(struct api_call *c, int64_t id)
{
    if (api_db(c))
        c->db_bad = apilabels_list(c->s, c->resp, id) == ERR_DB;
}

static void seeds(struct api_call *c, int64_t id)
{
    if (api_db(c))
        c->db_bad = apitopic_seeds(c->s, c->req, c->resp, id) == ERR_DB;
}

static void topic(struct api_call *c, int64_t id)
{
    if (api_db(c))
        c->db_bad = apitopic_body(c->s, c->resp, id) == ERR_DB;
}

static void graph(struct api_call *c, int64_t id)
{
    int64_t limit = arg_int(c, "limit", GRAPHSTORE_DEFAULT_NODES, GRAPHSTORE_MAX_NODES);
    if (limit < 0 || !api_db(c))
        return;
    c->db_bad = apigraph_get(c->s, c->resp, id, limit) == ERR_DB;
}

static const char *const no_args[] = {NULL};
static const char *const jobs_args[] = {"limit", "offset", "state", NULL};
static const char *const sites_args[] = {"relevant", "role", "order", "limit", "offset", NULL};
static const char *const metrics_args[] = {"since", NULL};
static const char *const export_args[] = {"relevant", NULL};
static const char *const border_args[] = {"limit", NULL};
static const char *const graph_args[] = {"limit", NULL};
#define JSON   "application/json"
#define CSV    "text/csv"
#define NDJSON "application/x-ndjson"
#define JOB    API_ROUTE_JOB
#define CACHED API_ROUTE_CACHED
#define JOBS   "/api/jobs/{id}"
/* One row per route (docs/api.md; web/openapi.json lists the same, tests/integration/
 * conventions.sh checks it against --print-routes). */
const struct api_route api_routes[] = {
    [R_HEALTH] = {"GET", "/api/health", no_args, JSON, 0, health},
    [R_OPENAPI] = {"GET", "/api/openapi.json", no_args, JSON, 0, openapi},
    [R_PROMETHEUS] = {"GET", "/metrics", no_args, "text/plain", 0, prometheus},
    [R_JOBS_LIST] = {"GET", "/api/jobs", jobs_args, JSON, 0, list_jobs},
    [R_JOBS_CREATE] = {"POST", "/api/jobs", no_args, JSON, 0, create_job},
    [R_JOB_GET] = {"GET", JOBS, no_args, JSON, JOB | CACHED, get_job},
    [R_JOB_DELETE] = {"DELETE", JOBS, no_args, NULL, JOB, delete_job},
    [R_JOB_STOP] = {"POST", JOBS "/stop", no_args, JSON, JOB, stop_job},
    [R_JOB_PAUSE] = {"POST", JOBS "/pause", no_args, JSON, JOB, pause_job},
    [R_JOB_RESUME] = {"POST", JOBS "/resume", no_args, JSON, JOB, resume_job},
    [R_SITES] = {"GET", JOBS "/sites", sites_args, JSON, JOB | CACHED | API_ROUTE_EXPORTS, sites},
    [R_SITE] = {"GET", JOBS "/sites/{host}", no_args, JSON, JOB, site},
    [R_METRICS] = {"GET", JOBS "/metrics", metrics_args, JSON, JOB, job_metrics},
    [R_SITES_CSV] = {"GET", JOBS "/sites.csv", export_args, CSV, JOB, sites_csv},
    [R_SITES_NDJSON] = {"GET", JOBS "/sites.ndjson", export_args, NDJSON, JOB, sites_ndjson},
    [R_SITE_PAGES] = {"GET", JOBS "/sites/{host}/pages", no_args, JSON, JOB, site_pages},
    [R_BORDER] = {"GET", JOBS "/border", border_args, JSON, JOB | CACHED, border},
    [R_LABEL_PUT] = {"PUT", JOBS "/sites/{host}/label", no_args, JSON, JOB, label_put},
    [R_LABEL_DELETE] = {"DELETE", JOBS "/sites/{host}/label", no_args, JSON, JOB, label_delete},
    [R_LABELS] = {"GET", JOBS "/labels", no_args, JSON, JOB, labels},
    [R_SEEDS] = {"POST", JOBS "/seeds", no_args, JSON, JOB, seeds},
    [R_TOPIC] = {"GET", JOBS "/topic", no_args, JSON, JOB, topic},
    [R_GRAPH] = {"GET", JOBS "/graph", graph_args, JSON, JOB, graph},
};
#undef JSON
#undef CSV
#undef NDJSON
#undef JOB
#undef CACHED
#undef JOBS
const int api_routes_count = (int)(sizeof api_routes / sizeof api_routes[0]);
_Static_assert(sizeof api_routes / sizeof api_routes[0] == R_COUNT,
               "one row of api_routes[] per enum route_id");

/*
 * The cache key of a polled GET (server/respcache.h): the route, the job and the
 * route's arguments in the route's order; 0 for a route whose answers are not kept.
 */
static int cache_key(const struct api_call *c, enum route_id r, int64_t id, char *key, size_t cap)
{
    unsigned flags = api_routes[r].flags;
    if (!(flags & API_ROUTE_CACHED))
        return 0;
    if ((flags & API_ROUTE_EXPORTS) && negotiated_export(c) >= 0)
        return 0; /* a file: not kept */
    int n = snprintf(key, cap, "%d|%" PRId64, (int)r, id);
    for (const char *const *a = api_routes[r].args; *a && n > 0 && (size_t)n < cap; a++) {
        const char *v = http_request_arg(c->req, *a);
        n += snprintf(key + n, cap - (size_t)n, "|%s", v ? v : "\x01");
    }
    return n > 0 && (size_t)n < cap;
}

/* Hand the refresh of c's stale answer to the background refresher: 1 when it took it. */
static int submit_refresh(const struct api_call *c, enum route_id r)
{
    const char *args[2 * APIREFRESH_ARGS_MAX + 1];
    int n = 0;
    for (const char *const *a = api_routes[r].args; *a && n < 2 * APIREFRESH_ARGS_MAX; a++) {
        const char *v = http_request_arg(c->req, *a);
        if (v) {
            args[n++] = *a;
            args[n++] = v;
        }
    }
    args[n] = NULL;
    return apirefresh_submit(c->cfg->refresh, c->req->path, args);
}

static void dispatch(struct api_call *c, enum route_id r)
{
    int64_t id = 0;
    if ((api_routes[r].flags & API_ROUTE_JOB) && !job_id(c, &id))
        return;
    char key[512];
    int cached = cache_key(c, r, id, key, sizeof key);
    if (cached) {
        int refresh;
        char *json = respcache_get(key, &refresh);
        if (json && (!refresh || submit_refresh(c, r))) {
            api_set_body(c->resp, 200, json);
            return;
        }
        free(json); /* none kept, or stale with nobody else to refresh it */
    }
    api_routes[r].handler(c, id);
    if (cached && c->resp->status == 200 && c->resp->body)
        respcache_put(key, id, c->resp->body);
    else if (cached)
        respcache_missed(key);
}

void api_refresh(void *ctx, const char *path, const char *const *args)
{
    const struct api_config *cfg = ctx;
    struct http_request req = {.method = "GET", .path = path, .body = "", .args = args};
    struct http_response resp = {0};
    struct api_call c = {.cfg = cfg, .req = &req, .resp = &resp};
    for (int i = 0; i < api_routes_count; i++) {
        if (strcmp(api_routes[i].method, "GET") != 0 || !match(api_routes[i].pattern, path, &c))
            continue;
        enum route_id r = (enum route_id)i;
        int64_t id = 0;
        char key[512];
        if (job_id(&c, &id) && cache_key(&c, r, id, key, sizeof key)) {
            api_routes[r].handler(&c, id);
            if (resp.status == 200 && resp.body)
                respcache_put(key, id, resp.body);
        }
        dbpool_give(cfg->pool, c.s, c.db_bad);
        break;
    }
    free(resp.body);
}

static int authorized(const struct api_config *cfg, const struct http_request *req)
{
    if (!cfg->token)
        return 1;
    const char *h = http_request_header(req, "Authorization");
    const char *t = h ? httpcheck_bearer(h) : NULL;
    if (!t)
        return 0;
    /* Compare in constant time: the token is a secret. */
    size_t n = strlen(cfg->token), m = strlen(t);
    unsigned diff = n != m;
    for (size_t i = 0; i < n; i++)
        diff |= (unsigned char)cfg->token[i] ^ (unsigned char)(i < m ? t[i] : 0);
    return diff == 0;
}

/* The methods the request's path takes, as an Allow header lists them; 0 for no route. */
static int path_methods(struct api_call *c, char *allow, size_t cap)
{
    size_t n = 0;
    allow[0] = '\0';
    for (int i = 0; i < api_routes_count && n < cap; i++)
        if (match(api_routes[i].pattern, c->req->path, c))
            n += (size_t)snprintf(allow + n, cap - n, "%s%s%s", n ? ", " : "", api_routes[i].method,
                                  strcmp(api_routes[i].method, "GET") == 0 ? ", HEAD" : "");
    if (n && n < cap)
        snprintf(allow + n, cap - n, ", OPTIONS");
    return n > 0;
}

/* Does the request's Accept header take the route's answer? Else a 406. */
static int acceptable(struct api_call *c, enum route_id r)
{
    const char *type = api_routes[r].produces;
    int exports = (api_routes[r].flags & API_ROUTE_EXPORTS) != 0;
    if (!type || (exports && negotiated_export(c) >= 0))
        return 1;
    if (httpneg_accepts(http_request_header(c->req, "Accept"), type))
        return 1;
    char msg[200];
    snprintf(msg, sizeof msg, "%s %s answers %s%s, which the Accept header does not take",
             api_routes[r].method, api_routes[r].pattern, type,
             exports ? " (or text/csv, application/x-ndjson)" : "");
    api_reply_error(c->resp, 406, "not_acceptable", msg, NULL);
    return 0;
}

/* Is the request from the origin the server lets browsers call it from (CORS)? */
static int cors_origin(const struct api_call *c)
{
    const char *origin = http_request_header(c->req, "Origin");
    return c->cfg->cors_origin && origin && strcmp(origin, c->cfg->cors_origin) == 0;
}

/*
 * A CORS preflight (OPTIONS with Access-Control-Request-Method) from the allowed origin
 * to a route's path: answered before the token, which browsers never send with it.
 */
static int preflight(struct api_call *c)
{
    char allow[96];
    if (strcmp(c->req->method, "OPTIONS") != 0 || !cors_origin(c) ||
        !http_request_header(c->req, "Access-Control-Request-Method") ||
        !path_methods(c, allow, sizeof allow))
        return 0;
    http_response_header(c->resp, "Access-Control-Allow-Methods", allow);
    http_response_header(c->resp, "Access-Control-Allow-Headers",
                         "Authorization, Content-Type, If-None-Match");
    http_response_header(c->resp, "Access-Control-Max-Age", "600");
    api_set_body(c->resp, 204, NULL);
    return 1;
}

/*
 * Order matters: a CORS preflight goes first (browsers send it without the token); then
 * the dashboard's files, which are public; then, when the server has a token, every
 * other path wants it before anything else is said, so that 404 and 405 do not tell a
 * stranger which routes exist.
 */
static void answer(struct api_call *c)
{
    const struct http_request *req = c->req;
    struct http_response *resp = c->resp;
    if (preflight(c))
        return;
    int web = webfiles_answer(req, resp);
    if (web < 0)
        api_reply_error(resp, 500, "internal", "out of memory", NULL);
    if (web)
        return;
    if (!httpcheck_utf8(req->path)) { /* %ff: no route's parameter, nor JSON, can hold it */
        api_reply_error(resp, 404, "not_found",
                        "no such path: it is not UTF-8 once its %XX escapes are decoded", NULL);
        return;
    }
    if (!authorized(c->cfg, req)) {
        http_response_header(resp, "WWW-Authenticate", "Bearer");
        api_reply_error(resp, 401, "unauthorized",
                        "this server wants 'Authorization: Bearer TOKEN'", NULL);
        return;
    }
    char allow[96];
    if (!path_methods(c, allow, sizeof allow)) {
        char msg[300];
        snprintf(msg, sizeof msg, "no such path: %.200s", req->path);
        api_reply_error(resp, 404, "not_found", msg, NULL);
        return;
    }
    for (int i = 0; i < api_routes_count; i++) {
        if (!match(api_routes[i].pattern, req->path, c) ||
            !apiroutes_takes_method(&api_routes[i], req->method))
            continue;
        if (apiroutes_known_args(c->req, c->resp, &api_routes[i]) &&
            acceptable(c, (enum route_id)i))
            dispatch(c, (enum route_id)i);
        dbpool_give(c->cfg->pool, c->s, c->db_bad);
        return;
    }
    http_response_header(resp, "Allow", allow);
    if (strcmp(req->method, "OPTIONS") == 0) {
        api_set_body(resp, 204, NULL);
        return;
    }
    char msg[160];
    snprintf(msg, sizeof msg, "%s is not allowed here (allowed: %s)", req->method, allow);
    api_reply_error(resp, 405, "method_not_allowed", msg, NULL);
}

/*
 * What every answer gets (docs/api.md, "Conventions"): JSON in the one compact style; a
 * successful GET or HEAD an entity tag, and 304 without a body when If-None-Match
 * holds it; the CORS headers for the allowed origin.
 */
static void finish(struct api_call *c)
{
    struct http_response *resp = c->resp;
    int get = strcmp(c->req->method, "GET") == 0 || strcmp(c->req->method, "HEAD") == 0;
    if (resp->body && (!resp->content_type || httpneg_is_json(resp->content_type)))
        resp->body_len = jsontext_compact(resp->body, resp->body_len);
    if (get && resp->status == 200 && resp->body) {
        char tag[HTTPNEG_ETAG_LEN];
        httpneg_etag(resp->body, resp->body_len, tag);
        http_response_header(resp, "ETag", tag);
        const char *inm = http_request_header(c->req, "If-None-Match");
        if (inm && httpneg_none_match(inm, tag))
            api_set_body(resp, 304, NULL);
    }
    if (cors_origin(c)) {
        http_response_header(resp, "Access-Control-Allow-Origin", c->cfg->cors_origin);
        http_response_header(resp, "Access-Control-Expose-Headers",
                             "ETag, Location, Content-Disposition");
    }
    if (c->cfg->cors_origin) /* the answer depends on the Origin header: caches must know */
        http_response_header(resp, "Vary", "Origin");
}

/* A malformed request is refused first: it says nothing about the server. */
void api_handle(void *ctx, const struct http_request *req, struct http_response *resp)
{
    struct api_call c = {.cfg = ctx, .req = req, .resp = resp};
    if (api_reply_fault(req, resp))
        return;
    answer(&c);
    finish(&c);
}
