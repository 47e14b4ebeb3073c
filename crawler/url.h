/* URL normalisation, RFC 3986 reference resolution and site identity for http(s) links. */
#ifndef SITESCOUT_CRAWLER_URL_H
#define SITESCOUT_CRAWLER_URL_H

#include <stddef.h>

#include "common/err.h"

/*
 * Longest normalised URL we accept, in bytes (without the NUL). Raw input may be
 * up to URL_INPUT_MAX bytes, since trimming, dot segments and decoding shrink it.
 */
#define URL_MAX       2048
#define URL_INPUT_MAX (2 * URL_MAX)

/*
 * The normal form, produced by url_normalize and url_resolve:
 *   - leading/trailing C0 controls and spaces trimmed, tabs/CR/LF removed anywhere,
 *     and '\' read as '/' before the query, as browsers do for http(s);
 *   - scheme http or https only, lower-cased; an authority ("//") is required;
 *   - userinfo ("user:pass@") dropped: it is never part of the site identity;
 *   - host lower-cased ASCII (no IDNA: other bytes are rejected), percent-escapes
 *     in it decoded, one trailing dot removed, only [a-z0-9._-] with DNS label
 *     limits; numeric IPv4 forms (0x7f.1, 2130706433) rewritten dotted-decimal as
 *     browsers do; IPv6 literals kept in brackets, in RFC 5952 text form;
 *   - port 1..65535, dropped when it is the scheme's default (an empty port too);
 *   - path: dot segments removed, empty path -> "/";
 *   - path and query: escapes of unreserved characters decoded, other escapes
 *     upper-cased, a stray '%' -> "%25", bytes outside RFC 3986 (space, controls,
 *     non-ASCII, "<>\"[]{}|^`") percent-encoded; the query is otherwise verbatim
 *     (parameters are neither reordered nor dropped; an empty "?" is kept);
 *   - fragment dropped;
 *   - at most URL_MAX bytes.
 * Normalising a normal form returns it unchanged.
 */

/*
 * Normalise an absolute http(s) URL. On success *out is a new string the caller
 * frees; on error *out is NULL and err_msg() says why: ERR_INVAL (not http(s), no
 * host, bad port or host, relative reference), ERR_TOOBIG (over the caps), ERR_NOMEM.
 */
enum err url_normalize(const char *in, char **out) WARN_UNUSED;

/*
 * The first byte of s that may not stand in a URL as written (RFC 3986 §2): a control
 * character, a space, a byte outside ASCII, one of <>"{}|\^` or a '%' that does not
 * start an escape %XX. NULL when there is none. For URLs a user gives (job bodies),
 * which are refused rather than repaired: url_normalize repairs links found in pages
 * as browsers do, so "http://a.com/x\r\n' OR 1=1" would pass it as http://a.com/x...
 */
const char *url_find_invalid(const char *s);

/*
 * Resolve the reference `ref` (an href, possibly relative) against `base` (the page
 * URL or its resolved <base href>; an absolute http(s) URL, normally already
 * normalised) per RFC 3986 §5.2, then normalise the result as above. Like browsers,
 * "http:g" with the base's own scheme is read as the relative "g" (§5.4.2 allows
 * this). *out as for url_normalize; non-http(s) references (mailto:, javascript:,
 * data:, ftp: ...) give ERR_INVAL.
 */
enum err url_resolve(const char *base, const char *ref, char **out) WARN_UNUSED;

/*
 * The functions below take a normalised URL (from url_normalize or url_resolve);
 * anything else gives ERR_INVAL / NULL / 0, or a meaningless but safe answer.
 *
 * The site identity is host[:port]: the host, plus the port only when it is not
 * the scheme's default. The scheme is not part of it, so http://a/ and https://a/
 * are one website, while a:8080 is a different website from a (DESIGN §3: a
 * website is all pages with the same host).
 */

/* Borrowed view of host[:port] inside url: returns a pointer into url and sets *len. */
const char *url_host_ref(const char *url, size_t *len);

/* host[:port] as a new string the caller frees. */
enum err url_host(const char *url, char **out) WARN_UNUSED;

/* The site's homepage "scheme://host[:port]/" as a new string the caller frees. */
enum err url_homepage(const char *url, char **out) WARN_UNUSED;

/*
 * 1 if a and b belong to the same website (equal host[:port]), else 0. A link from
 * page a to page b is intrinsic when this is 1, transversal otherwise.
 */
int url_same_site(const char *a, const char *b);

/*
 * Borrowed pointer into url at its path and query ("/p/a?q"), as robots.txt rules
 * match them; NULL if url is not normalised.
 */
const char *url_path_and_query(const char *url);

#endif
