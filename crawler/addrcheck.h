/*
 * Which network destinations the crawler may reach: public addresses only, and none of
 * this host's own.
 *
 * Refused (ADDRCHECK_RESERVED): every IPv4 range that is not public unicast (0/8,
 * 10/8, 100.64/10, 127/8, 169.254/16, 172.16/12, 192.0.0/24, 192.0.2/24, 192.88.99/24,
 * 192.168/16, 198.18/15, 198.51.100/24, 203.0.113/24, 224/4 multicast, 240/4 and the
 * broadcast address), every IPv6 address outside global unicast 2000::/3 (::, ::1,
 * ::a.b.c.d, fc00::/7, fe80::/10, ff00::/8, ...) and the special blocks inside it
 * (Teredo 2001::/32, 2001:2::/48, 2001:10::/28, 2001:db8::/32, 3fff::/20). IPv6
 * forms that carry an IPv4 address are judged by that address: ::ffff:a.b.c.d
 * (mapped), 64:ff9b::a.b.c.d (NAT64) and 2002:AABB:CCDD::/48 (6to4). The names
 * "localhost" and "*.localhost" never leave the host (RFC 6761) and are refused too.
 *
 * Refused (ADDRCHECK_OWN): every address of this host's interfaces (getifaddrs),
 * however public, and IPv6 forms carrying one of its IPv4 addresses. A service bound
 * to 0.0.0.0 answers on all of them. The list is read at addrcheck_new and again
 * when a check finds it older than ADDRCHECK_REFRESH_MS.
 *
 * Threads: a struct addrcheck is used by one thread at a time (no locks).
 */
#ifndef SITESCOUT_CRAWLER_ADDRCHECK_H
#define SITESCOUT_CRAWLER_ADDRCHECK_H

#include <stdint.h>

#include "common/err.h"

#define ADDRCHECK_REFRESH_MS 10000 /* how old the list of the host's addresses may get */
#define ADDRCHECK_OWN_MAX    4096  /* addresses of each family kept (more: a warning) */

enum addrcheck_verdict {
    ADDRCHECK_PUBLIC,   /* may be fetched */
    ADDRCHECK_RESERVED, /* private, loopback, link-local, multicast, reserved ... */
    ADDRCHECK_OWN,      /* an address of this host */
};

struct addrcheck;

/*
 * Read this host's addresses now. If they cannot be read (getifaddrs fails), a
 * warning is logged and only the ranges are checked until a later refresh works.
 * *out is the caller's, freed with addrcheck_free.
 */
enum err addrcheck_new(struct addrcheck **out) WARN_UNUSED;

void addrcheck_free(struct addrcheck *ac);

/*
 * The verdict on a struct sockaddr (AF_INET or AF_INET6; any other family is
 * RESERVED), e.g. the address a connection is about to be opened to. now_ms
 * (monotonic) says whether the host's addresses are due for a refresh.
 */
enum addrcheck_verdict addrcheck_sockaddr(struct addrcheck *ac, const void *sockaddr,
                                          int64_t now_ms);

/*
 * The verdict on the host of an http(s) URL in any spelling (url_normalize reads
 * 127.1, 0x7f.1, 2130706433, 0177.0.0.1 and [::ffff:7f00:1] as the addresses they
 * are). An IP literal is judged as above, "localhost" names are RESERVED, any other
 * name is PUBLIC (its addresses are only known when connecting). A URL that does not
 * normalise is RESERVED: it cannot be fetched anyway.
 */
enum addrcheck_verdict addrcheck_url(struct addrcheck *ac, const char *url, int64_t now_ms);

/* Why a destination is refused, for messages: "is private or reserved", ... */
const char *addrcheck_verdict_text(enum addrcheck_verdict v);

#endif
