/*
 * Checks of the raw parts of an HTTP request, pure (no I/O, no libmicrohttpd), so that
 * they are unit-tested on their own (tests/unit/test_httpcheck.c): server/http.c and
 * server/api.c apply them.
 */
#ifndef SITESCOUT_SERVER_HTTPCHECK_H
#define SITESCOUT_SERVER_HTTPCHECK_H

#include <stdint.h>

/*
 * Does the request target as sent (path and query, before decoding) hold an escaped
 * NUL, "%00"? Decoding it would cut the path or an argument short in C strings
 * ("/api/jobs/1%00" would read as job 1), so such a request is refused whole.
 */
int httpcheck_has_nul(const char *target);

/*
 * The credentials of an Authorization header value of the Bearer scheme, or NULL.
 * The scheme is case-insensitive (RFC 7235 §2.1: "bearer" and "BEARER" are Bearer);
 * one or more spaces separate it from the token. Points into value.
 */
const char *httpcheck_bearer(const char *value);

/*
 * A Content-Length value: 1 and *n when it is a decimal number (digits only, no sign,
 * no spaces), else 0. Values over UINT64_MAX give 1 and UINT64_MAX: too big is too big.
 */
int httpcheck_content_length(const char *value, uint64_t *n);

#endif
