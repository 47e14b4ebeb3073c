/*
 * Internal to server/: the API's replies (server/api.c): the one place where an enum err, or a
 * request the HTTP server found faulty, becomes an HTTP status and the JSON error body
 * {"error": {"code", "message", "field"}}.
 */
#ifndef SITESCOUT_SERVER_APIREPLY_H
#define SITESCOUT_SERVER_APIREPLY_H

#include "common/err.h"
#include "server/http.h"

/* Set resp's status and body (malloc'd, taken; the old one is freed). */
void api_set_body(struct http_response *resp, int status, char *body);

/*
 * Answer 200 with the JSON value o (taken: freed here), or 500 when o is NULL (a failed
 * allocation while it was built) or cannot be written. Returns ERR_OK or ERR_NOMEM.
 */
struct json_t;
enum err api_reply_json(struct http_response *resp, struct json_t *o);

/* The error body; status and code chosen by the caller. */
void api_reply_error(struct http_response *resp, int status, const char *code, const char *message,
                     const char *field);

/*
 * An error code and its message (err_msg()) as an HTTP status and the JSON error body
 * (ERR_INVAL as inval_status). Messages of the form "field.path: ..." name the field.
 */
void api_reply_err(struct http_response *resp, enum err e, int inval_status);

/* A request refused whatever its route (server/http.h); 0 when it has no fault. */
int api_reply_fault(const struct http_request *req, struct http_response *resp);

#endif
