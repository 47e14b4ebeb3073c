/*
 * Internal to server/: checks of the raw parts of an HTTP request, pure (no I/O, no libmicrohttpd),
 * so that they are unit-tested on their own (tests/unit/test_httpcheck.c): server/http.c and
 * server/api.c apply them.
 */
#ifndef SITESCOUT_SERVER_HTTPCHECK_H
#define SITESCOUT_SERVER_HTTPCHECK_H

#include <stddef.h>
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

/*
 * Is text valid UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing past
 * U+10FFFF)? A decoded path that is not names nothing: PostgreSQL would refuse it as
 * text, and JSON cannot echo it.
 */
int httpcheck_utf8(const char *text);

/*
 * Limits on a request's head (request line and header fields), kept well inside the
 * 32 KiB libmicrohttpd has for a connection, so that it never meets a head it would
 * refuse with its own HTML page (server/httpgate.c checks every first head first).
 */
#define HTTPCHECK_MAX_LINE    8192 /* the request line, without its end */
#define HTTPCHECK_MAX_HEAD    8192 /* the whole head, with the empty line ending it */
#define HTTPCHECK_MAX_FIELDS  100
#define HTTPCHECK_PEEK_ENOUGH (HTTPCHECK_MAX_LINE + HTTPCHECK_MAX_HEAD) /* see httpcheck_head */

/* What the first bytes of a request show (httpcheck_head). */
enum httpcheck_head {
    HTTPCHECK_HEAD_MORE,         /* no fault so far, and the head has not ended */
    HTTPCHECK_HEAD_OK,           /* a well-formed head */
    HTTPCHECK_HEAD_BAD,          /* 400: malformed */
    HTTPCHECK_HEAD_NUL,          /* 400: a NUL byte in the request line */
    HTTPCHECK_HEAD_URI_TOO_LONG, /* 414: a request line over HTTPCHECK_MAX_LINE */
    HTTPCHECK_HEAD_TOO_BIG,      /* 431: a head over HTTPCHECK_MAX_HEAD or MAX_FIELDS */
    HTTPCHECK_HEAD_VERSION,      /* 505: a version other than HTTP/1.0 and HTTP/1.1 */
};

/*
 * Check the first n bytes of a request (RFC 9112 §2-§3, §5, §6.3): optional empty lines,
 * then "METHOD SP target SP HTTP/1.x", then "name: value" lines, then an empty line.
 * Lines end in CRLF or a bare LF; a bare CR, a control byte in a value, a name that is
 * not a token, obsolete line folding, a Content-Length that is not a number (or two that
 * differ, or one beside Transfer-Encoding), two Host or two Authorization fields are
 * faults. A fault is reported as soon as
 * the bytes show it, before the head ends; more than HTTPCHECK_PEEK_ENOUGH bytes never
 * give HTTPCHECK_HEAD_MORE. *why (static) says what is wrong; *head_len is the head's
 * length on HTTPCHECK_HEAD_OK.
 */
enum httpcheck_head httpcheck_head(const char *p, size_t n, size_t *head_len, const char **why);

#endif
