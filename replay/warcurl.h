/* URLs the way web archives key them: the replay layer's own normaliser (no crawler code). */
#ifndef SITESCOUT_REPLAY_WARCURL_H
#define SITESCOUT_REPLAY_WARCURL_H

#include <stddef.h>

#include "common/err.h"

#define WARCURL_MAX 8192 /* cap on a URL, normalised or not */

/*
 * Normalise an absolute http(s) URL the way archives write them: scheme and host in
 * lower case, no userinfo, no default port (80 for http, 443 for https), no
 * fragment, "/" for an empty path. Path and query are kept byte for byte, but for
 * the hex digits of percent escapes, which are upper-cased (RFC 3986 §6.2.2.1), and a
 * URL with a control character or space before the fragment is refused. Writes a
 * NUL-terminated string of *outlen bytes to out[outsz] (the caller's). ERR_INVAL if the
 * URL is not absolute http(s) or has a bad port, ERR_TOOBIG if it does not fit.
 * *host_off and *host_len (may be NULL) locate the authority in the output.
 */
enum err warcurl_normalize(const char *url, size_t len, char *out, size_t outsz, size_t *outlen,
                           size_t *host_off, size_t *host_len) WARN_UNUSED;

/* The authority of a normalised URL (between "://" and the next '/'), borrowed from url. */
const char *warcurl_host(const char *url, size_t *len);

#endif
