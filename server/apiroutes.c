/* The API's routes and a request's checks against its route (apiroutes.h). */
#include "server/apiroutes.h"

#include <stdio.h>
#include <string.h>

#include "server/apireply.h"
#include "server/httpcheck.h"

/* Indexed by enum route_id. */
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
const struct api_route api_routes[] = {
    {"GET", "/api/health", no_args, JSON},
    {"GET", "/api/openapi.json", no_args, JSON},
    {"GET", "/metrics", no_args, "text/plain"},
    {"GET", "/api/jobs", jobs_args, JSON},
    {"POST", "/api/jobs", no_args, JSON},
    {"GET", "/api/jobs/{id}", no_args, JSON},
    {"DELETE", "/api/jobs/{id}", no_args, NULL},
    {"POST", "/api/jobs/{id}/stop", no_args, JSON},
    {"POST", "/api/jobs/{id}/pause", no_args, JSON},
    {"POST", "/api/jobs/{id}/resume", no_args, JSON},
    {"GET", "/api/jobs/{id}/sites", sites_args, JSON}, /* or CSV, NDJSON by Accept */
    {"GET", "/api/jobs/{id}/sites/{host}", no_args, JSON},
    {"GET", "/api/jobs/{id}/metrics", metrics_args, JSON},
    {"GET", "/api/jobs/{id}/sites.csv", export_args, CSV},
    {"GET", "/api/jobs/{id}/sites.ndjson", export_args, NDJSON},
    {"GET", "/api/jobs/{id}/sites/{host}/pages", no_args, JSON},
    {"GET", "/api/jobs/{id}/border", border_args, JSON},
    {"PUT", "/api/jobs/{id}/sites/{host}/label", no_args, JSON},
    {"DELETE", "/api/jobs/{id}/sites/{host}/label", no_args, JSON},
    {"GET", "/api/jobs/{id}/labels", no_args, JSON},
    {"POST", "/api/jobs/{id}/seeds", no_args, JSON},
    {"GET", "/api/jobs/{id}/topic", no_args, JSON},
    {"GET", "/api/jobs/{id}/graph", graph_args, JSON},
};
#undef JSON
#undef CSV
#undef NDJSON
const int api_routes_count = (int)(sizeof api_routes / sizeof api_routes[0]);
_Static_assert(sizeof api_routes / sizeof api_routes[0] == R_GRAPH + 1,
               "a route in enum route_id and in api_routes[]");

/* Does the request use only the route's query arguments? Else a 400 naming the first other. */
int apiroutes_known_args(const struct http_request *req, struct http_response *resp,
                         const struct api_route *r)
{
    const char *bad = http_request_unknown_arg(req, r->args);
    if (!bad)
        return 1;
    if (!httpcheck_utf8(bad)) { /* JSON cannot echo it */
        api_reply_error(resp, 400, "invalid",
                        "unknown query parameter (its name is not UTF-8 once decoded)", NULL);
        return 0;
    }
    char takes[128] = "";
    for (size_t i = 0, n = 0; r->args[i] && n < sizeof takes; i++)
        n += (size_t)snprintf(takes + n, sizeof takes - n, "%s%s", i ? ", " : "", r->args[i]);
    char msg[320];
    snprintf(msg, sizeof msg, "unknown query parameter '%.80s' (%s %s takes %s)", bad, r->method,
             r->pattern, *takes ? takes : "none");
    api_reply_error(resp, 400, "invalid", msg, bad);
    return 0;
}

/* Does the route take the method? HEAD is GET without the body (libmicrohttpd drops it). */
int apiroutes_takes_method(const struct api_route *r, const char *method)
{
    return strcmp(r->method, method) == 0 ||
           (strcmp(method, "HEAD") == 0 && strcmp(r->method, "GET") == 0);
}
