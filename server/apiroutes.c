/* A request's checks against its route (apiroutes.h; the routes are server/api.c's). */
#include "server/apiroutes.h"

#include <stdio.h>
#include <string.h>

#include "server/apireply.h"
#include "server/httpcheck.h"

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
