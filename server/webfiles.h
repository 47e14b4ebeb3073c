/*
 * The dashboard (web/, embedded at build time by server/CMakeLists.txt). Only the exact
 * paths of a fixed table are served, so no request path ever reaches the file system.
 * The files are public (they are in the repository), so they need no token; the API
 * calls they make do.
 */
#ifndef SITESCOUT_SERVER_WEBFILES_H
#define SITESCOUT_SERVER_WEBFILES_H

#include "server/http.h"

/* Answer a GET (or HEAD) of a dashboard file: 1 answered, 0 not one of them, -1 out of memory. */
int webfiles_answer(const struct http_request *req, struct http_response *resp);

#endif
