/* The --proxy a fetcher is given: its form, and whether it can be reached. */
#ifndef SITESCOUT_CRAWLER_FETCHPROXY_H
#define SITESCOUT_CRAWLER_FETCHPROXY_H

#include <stddef.h>

/*
 * Is proxy a proxy URL a fetcher can use: SCHEME://[USER[:PASS]@]HOST[:PORT][/], the
 * scheme one of http, https, socks4, socks4a, socks5, socks5h, the port 1..65535? 0 if
 * so, else 1 with why[cap] saying what is wrong. The one check of --proxy (every
 * command that takes it) and of fetch_pool_new.
 */
int fetch_proxy_invalid(const char *proxy, char *why, size_t cap);

/*
 * Can a TCP connection to the proxy (a URL fetch_proxy_invalid takes; port 1080 when it
 * has none, as curl's) be made within timeout_ms? 0 if so, else 1 with why[cap] in the
 * words of a fetch's failure ("connection refused by the proxy 127.0.0.1:9", "the
 * proxy's host does not resolve (DNS): ...", "timeout connecting to the proxy ..."):
 * what `crawl` and `eval` check before they store a job, and `serve` and `worker` warn of.
 */
int fetch_proxy_unreachable(const char *proxy, int timeout_ms, char *why, size_t cap);

#endif
