/*
 * The API's routes (server/api.c dispatches them): one row each, in enum route_id's
 * order, with the query arguments it takes and the media type it answers; and the checks
 * a request meets against its route before it is answered.
 */
#ifndef SITESCOUT_SERVER_APIROUTES_H
#define SITESCOUT_SERVER_APIROUTES_H

#include "server/api.h"
#include "server/http.h"

/* Indexes api_routes[] (server/api.h). */
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
};

/* Does req use only r's query arguments? Else a 400 on resp naming the first other, and 0. */
int apiroutes_known_args(const struct http_request *req, struct http_response *resp,
                         const struct api_route *r);

/* Does r take the method? HEAD is GET without the body (libmicrohttpd drops it). */
int apiroutes_takes_method(const struct api_route *r, const char *method);

#endif
