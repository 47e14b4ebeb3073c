/*
 * The API's routes: what a route is (struct api_route), their names (enum route_id,
 * which indexes server/api.c's table api_routes[], one row of designated initialisers
 * per route: method, pattern, query arguments, media type, flags, handler); and the
 * checks a request meets against its route before it is answered.
 */
#ifndef SITESCOUT_SERVER_APIROUTES_H
#define SITESCOUT_SERVER_APIROUTES_H

#include <stdint.h>

#include "server/http.h"

/* A request being answered (server/api.c's): its path parameters, its connection. */
struct api_call;

/* A route's handler: answer c; id is the {id} of a route with API_ROUTE_JOB, else 0. */
typedef void (*api_handler_fn)(struct api_call *c, int64_t id);

enum api_route_flag {
    API_ROUTE_JOB = 1 << 0,    /* its path starts /api/jobs/{id}: a job id, else 404 */
    API_ROUTE_CACHED = 1 << 1, /* polled: its answers are kept (server/respcache.h) */
    /* also answers the export's text/csv or NDJSON when the Accept header asks first */
    API_ROUTE_EXPORTS = 1 << 2,
};

/*
 * A route the API serves, as "METHOD /path/{param}" (for the OpenAPI check). Every GET
 * route also takes HEAD (the same status and headers, no body).
 */
struct api_route {
    const char *method;
    const char *pattern;
    const char *const *args; /* the query arguments it takes (NULL-terminated); others: 400 */
    /* The media type of its answers, which the request's Accept must take (else 406);
     * NULL: it answers no body. */
    const char *produces;
    unsigned flags; /* enum api_route_flag */
    api_handler_fn handler;
};

/* Indexes api_routes[]; a new route is a name here and a row there (server/api.c). */
enum route_id {
    R_HEALTH,
    R_OPENAPI,
    R_PROMETHEUS,
    R_JOBS_LIST,
    R_JOBS_CREATE,
    R_JOB_GET,
    R_JOB_DELETE,
    R_JOB_STOP,
    R_JOB_PAUSE,
    R_JOB_RESUME,
    R_SITES,
    R_SITE,
    R_METRICS,
    R_SITES_CSV,
    R_SITES_NDJSON,
    R_SITE_PAGES,
    R_BORDER,
    R_LABEL_PUT,
    R_LABEL_DELETE,
    R_LABELS,
    R_SEEDS,
    R_TOPIC,
    R_GRAPH,
    R_COUNT /* the number of routes */
};

/* The routes, indexed by enum route_id (defined in server/api.c, next to the handlers). */
extern const struct api_route api_routes[];
extern const int api_routes_count;

/* Does req use only r's query arguments? Else a 400 on resp naming the first other, and 0. */
int apiroutes_known_args(const struct http_request *req, struct http_response *resp,
                         const struct api_route *r);

/* Does r take the method? HEAD is GET without the body (libmicrohttpd drops it). */
int apiroutes_takes_method(const struct api_route *r, const char *method);

#endif
