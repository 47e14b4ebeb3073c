/*
 * Internal to server/: the API's graph of a job (docs/api.md, "The graph"): GET
 * /api/jobs/{id}/graph?limit=N, the dashboard's picture of what was found. Answers on resp (the
 * JSON body, or the JSON error) and returns its error, ERR_DB telling the caller its connection may
 * be bad.
 */
#ifndef SITESCOUT_SERVER_APIGRAPH_H
#define SITESCOUT_SERVER_APIGRAPH_H

#include <stdint.h>

#include "common/err.h"
#include "server/http.h"
#include "store/graphstore.h"

struct store;

/* The job's websites (up to max_nodes) and the links among them (200), or 404. */
enum err apigraph_get(struct store *s, struct http_response *resp, int64_t job,
                      int64_t max_nodes) WARN_UNUSED;

#endif
