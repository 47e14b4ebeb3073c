/*
 * Content negotiation and validators of the HTTP API, pure (no I/O, no libmicrohttpd),
 * so that they are unit-tested on their own (tests/unit/test_httpneg.c): the Accept
 * header (RFC 9110 §12.5.1), entity tags and If-None-Match (§8.8.3, §13.1.2).
 */
#ifndef SITESCOUT_SERVER_HTTPNEG_H
#define SITESCOUT_SERVER_HTTPNEG_H

#include <stddef.h>

/*
 * Does an Accept header value take the media type "type/subtype" (parameters of type,
 * after ';', are ignored)? The most specific range that matches decides (the full type
 * over the type with any subtype over any type), and a q of 0 refuses; no range
 * matching refuses. NULL or an empty value takes everything. Names compare
 * case-insensitively.
 */
int httpneg_accepts(const char *accept, const char *type);

/* Whether a Content-Type header (NULL: none) says application/json, parameters aside. */
int httpneg_is_json(const char *content_type);

#define HTTPNEG_ETAG_LEN 40 /* room for an entity tag with its quotes and NUL */

/* The strong entity tag of a body: a quoted hash of its bytes and its length. */
void httpneg_etag(const void *body, size_t len, char out[HTTPNEG_ETAG_LEN]);

/*
 * Does an If-None-Match value match etag (as httpneg_etag writes it)? "*" matches any;
 * else a comma-separated list of entity tags compared weakly (a W/ prefix is ignored).
 * A malformed list matches nothing.
 */
int httpneg_none_match(const char *if_none_match, const char *etag);

#define HTTPNEG_MAX_ORIGIN 200

/*
 * Is origin a web origin as a browser sends it in its Origin header (RFC 6454 §6.1):
 * "http://" or "https://", a host name, an IPv4 address or an [IPv6] one, and an
 * optional ":port"; no path, no trailing '/'; at most HTTPNEG_MAX_ORIGIN bytes?
 */
int httpneg_origin_ok(const char *origin);

#endif
