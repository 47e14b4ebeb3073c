/*
 * Internal to server/: the API's topic routes (issue 31, docs/api.md "Labels"): POST
 * /api/jobs/{id}/seeds adds start websites to a job that runs, GET /api/jobs/{id}/topic answers the
 * body of the next job on its topic. Each answers on resp (JSON, or the JSON error) and returns its
 * error, ERR_DB telling the caller its connection may be bad.
 */
#ifndef SITESCOUT_SERVER_APITOPIC_H
#define SITESCOUT_SERVER_APITOPIC_H

#include <stdint.h>

#include "common/err.h"
#include "server/http.h"

struct store;

/* Body {"start_sites": [URL, ...]}; 200 {"job_id", "start_sites": [{"host", "role",
 * "state"}]}. */
enum err apitopic_seeds(struct store *s, const struct http_request *req, struct http_response *resp,
                        int64_t job);

/* 200: a job body (job/jobtopic.h). */
enum err apitopic_body(struct store *s, struct http_response *resp, int64_t job);

#endif
