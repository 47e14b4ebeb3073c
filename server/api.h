/*
 * The HTTP API of `sitescout serve` (docs/api.md): routing and JSON bodies; its error
 * replies (an enum err as an HTTP status and a JSON error body) are server/apireply.c;
 * its routes, api_routes[], are described in server/apiroutes.h.
 *
 * Ownership: the struct api_config is borrowed for the life of the server; api_handle
 * fills a struct http_response whose body the HTTP server frees.
 */
#ifndef SITESCOUT_SERVER_API_H
#define SITESCOUT_SERVER_API_H

#include "server/apiroutes.h"
#include "server/http.h"

struct dbpool;
struct apirefresh;

struct api_config {
    struct dbpool *pool;
    const char *token; /* required as "Authorization: Bearer T" when set; or NULL */
    int warc;          /* WARC capture is available (serve --warc-dir): jobs may ask for it */
    /* Refreshes kept answers that went stale in the background (server/apirefresh.h);
     * NULL: the request that finds one stale refreshes it. */
    struct apirefresh *refresh;
    /* Browsers on this origin may call the API (CORS, docs/api.md "Conventions"); NULL:
     * none but the server's own. */
    const char *cors_origin;
};

/* The OpenAPI description (web/openapi.json, embedded at build time), served at
 * /api/openapi.json. */
extern const char api_openapi[];
extern const size_t api_openapi_len;

/* The http_handler_fn of the API; ctx is a struct api_config. */
void api_handle(void *ctx, const struct http_request *req, struct http_response *resp);

/* Answer GET path with query arguments args (name and value pairs, NULL-terminated)
 * again and keep the answer (server/respcache.h): the background refresher's
 * apirefresh_fn (server/apirefresh.h); ctx is a struct api_config. */
void api_refresh(void *ctx, const char *path, const char *const *args);

#endif
