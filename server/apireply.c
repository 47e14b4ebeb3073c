/*
 * The API's replies (see apireply.h). jansson builds the error bodies: json_pack returns
 * a new reference (json_decref'd here); the "o" format steals, none is used here.
 */
#include "server/apireply.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"

void api_set_body(struct http_response *resp, int status, char *body)
{
    free(resp->body);
    resp->status = status;
    resp->body = body;
    resp->body_len = body ? strlen(body) : 0;
}

/* The error body; status and code chosen by the caller. */
void api_reply_error(struct http_response *resp, int status, const char *code, const char *message,
                     const char *field)
{
    json_t *j = json_pack("{s:{s:s, s:s, s:s?}}", "error", "code", code, "message",
                          message ? message : "", "field", field);
    char *text = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    api_set_body(resp, status, text ? text : strdup("{\"error\": {\"code\": \"internal\"}}"));
    resp->content_type = "application/json";
}

/*
 * The edge: an error code and its message (err_msg()) become an HTTP status and the
 * JSON error body. Messages of the form "field.path: ..." name the field.
 */
void api_reply_err(struct http_response *resp, enum err e, int inval_status)
{
    const char *msg = err_msg();
    char field[128] = "";
    size_t n = strspn(msg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.[]");
    if (n && n < sizeof field && msg[n] == ':' && msg[n + 1] == ' ')
        snprintf(field, sizeof field, "%.*s", (int)n, msg);
    int status = 500;
    const char *code = "internal";
    switch (e) {
    case ERR_INVAL:
        status = inval_status;
        code = "invalid";
        break;
    case ERR_PARSE:
        status = 400;
        code = "bad_json";
        break;
    case ERR_NOTFOUND:
        status = 404;
        code = "not_found";
        break;
    case ERR_CONFLICT:
        status = 409;
        code = "conflict";
        break;
    case ERR_TOOBIG:
        status = 413;
        code = "too_big";
        break;
    case ERR_DB:
        status = 503;
        code = "database";
        break;
    case ERR_TIMEOUT:
        status = 504;
        code = "timeout";
        break;
    default:
        break;
    }
    if (status >= 500)
        log_warn("api: %s", msg);
    /* The database's own words (a statement, a constraint, a server's address) are for
       the log: the client is told what happened, not how. */
    if (e == ERR_DB) {
        msg = "the database failed or does not answer (the server's log says why)";
        field[0] = '\0';
    }
    api_reply_error(resp, status, code, msg, field[0] ? field : NULL);
}

/* A request refused whatever its route (server/http.h); 0 when it has no fault. */
int api_reply_fault(const struct http_request *req, struct http_response *resp)
{
    char msg[96];
    switch (req->fault) {
    case HTTP_FAULT_NONE:
        return 0;
    case HTTP_FAULT_NUL:
        api_reply_error(
            resp, 400, "bad_request",
            "the path or the query holds a NUL (%00 or a raw byte), which none may hold", NULL);
        return 1;
    case HTTP_FAULT_NO_HOST:
        api_reply_error(resp, 400, "bad_request", "an HTTP/1.1 request needs a Host header", NULL);
        return 1;
    case HTTP_FAULT_TOO_BIG:
        snprintf(msg, sizeof msg, "request body over %zu bytes", (size_t)HTTP_MAX_BODY);
        api_reply_error(resp, 413, "too_big", msg, NULL);
        return 1;
    case HTTP_FAULT_LENGTH_REQUIRED:
        api_reply_error(resp, 411, "length_required",
                        "send the body with a Content-Length, not in chunks (Transfer-Encoding)",
                        NULL);
        return 1;
    default: { /* the gate's faults: their detail says what */
        static const struct {
            enum http_fault fault;
            int status;
            const char *code;
        } gate[] = {
            {HTTP_FAULT_MALFORMED, 400, "bad_request"}, {HTTP_FAULT_URI_TOO_LONG, 414, "too_big"},
            {HTTP_FAULT_HEAD_TOO_BIG, 431, "too_big"},  {HTTP_FAULT_VERSION, 505, "bad_request"},
            {HTTP_FAULT_HEAD_TIMEOUT, 408, "timeout"},
        };
        for (size_t i = 0; i < sizeof gate / sizeof gate[0]; i++)
            if (gate[i].fault == req->fault) {
                api_reply_error(resp, gate[i].status, gate[i].code, req->fault_detail, NULL);
                return 1;
            }
        api_reply_error(resp, 400, "bad_request", "malformed request", NULL);
        return 1;
    }
    }
}

enum err api_reply_json(struct http_response *resp, json_t *o)
{
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    if (!text) {
        api_reply_err(resp, err_set(ERR_NOMEM, "out of memory"), 500);
        return ERR_NOMEM;
    }
    api_set_body(resp, 200, text);
    return ERR_OK;
}
