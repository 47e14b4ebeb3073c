/*
 * Internal to server/: the API's job controls, POST /api/jobs/{id}/stop, /pause and
 * /resume (docs/api.md). Each answers on resp (the job, 200 or 202 when a running job was
 * asked to; or the JSON error) and returns its error, ERR_DB telling the caller its
 * connection may be bad.
 */
#ifndef SITESCOUT_SERVER_APICONTROL_H
#define SITESCOUT_SERVER_APICONTROL_H

#include <stdint.h>

#include "common/err.h"
#include "server/http.h"

struct store;

/* what: "stop", "pause" or "resume". */
enum err apicontrol_job(struct store *s, struct http_response *resp, int64_t id, const char *what);

#endif
