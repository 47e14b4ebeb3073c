/*
 * Internal to server/: the API's labels (issue 31, docs/api.md "Labels"): PUT and DELETE
 * /api/jobs/{id}/sites/{host}/label, GET /api/jobs/{id}/labels. Each answers on resp
 * (a JSON body, or the JSON error) and returns its error, ERR_DB telling the caller its
 * connection may be bad.
 */
#ifndef SITESCOUT_SERVER_APILABELS_H
#define SITESCOUT_SERVER_APILABELS_H

#include <stdint.h>

#include "common/err.h"
#include "server/http.h"

struct store;

/* Body {"relevant": true|false}: the label; answers what it did (200). */
enum err apilabels_put(struct store *s, const struct http_request *req, struct http_response *resp,
                       int64_t job, const char *host);

/* The label taken back (200; a website without one answers as it is). */
enum err apilabels_delete(struct store *s, struct http_response *resp, int64_t job,
                          const char *host);

/* {"job_id", "labels": [{"host", "relevant", "labelled_at", "state", "confidence"}]}. */
enum err apilabels_list(struct store *s, struct http_response *resp, int64_t job);

#endif
