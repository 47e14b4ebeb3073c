/* The --proxy checks (fetchproxy.h). */
#include "crawler/fetchproxy.h"

#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

static const char *const proxy_schemes[] = {"http",    "https",  "socks4",
                                            "socks4a", "socks5", "socks5h"};

int fetch_proxy_invalid(const char *proxy, char *why, size_t cap)
{
    const char *sep = strstr(proxy, "://");
    size_t slen = sep ? (size_t)(sep - proxy) : 0;
    int known = 0;
    for (size_t i = 0; sep && i < sizeof proxy_schemes / sizeof *proxy_schemes; i++)
        known |=
            strlen(proxy_schemes[i]) == slen && strncasecmp(proxy, proxy_schemes[i], slen) == 0;
    if (!known) {
        snprintf(why, cap,
                 "'%.80s' is not a proxy URL: want SCHEME://HOST[:PORT], SCHEME one of http, "
                 "https, socks4, socks4a, socks5, socks5h",
                 proxy);
        return 1;
    }
    const char *host = sep + 3, *end = host + strcspn(host, "/?#");
    const char *at = memchr(host, '@', (size_t)(end - host));
    if (at)
        host = at + 1;
    const char *port = NULL;
    if (*host == '[') {
        const char *close = memchr(host, ']', (size_t)(end - host));
        if (close && close + 1 < end && close[1] == ':')
            port = close + 2;
        else if (!close || close + 1 != end)
            host = end; /* unusable: reported below */
    } else {
        port = memchr(host, ':', (size_t)(end - host));
        if (port)
            port++;
    }
    const char *host_end = port ? port - 1 : end;
    int bad_host = host >= host_end;
    for (const char *p = host; !bad_host && *host != '[' && p < host_end; p++)
        bad_host = !(isalnum((unsigned char)*p) || *p == '.' || *p == '-' || *p == '_');
    long n = 0;
    int bad_port = port && (port == end || end - port > 5);
    for (const char *p = port; !bad_port && p && p < end; p++) {
        bad_port = !isdigit((unsigned char)*p);
        n = n * 10 + (*p - '0');
    }
    bad_port |= port && (n < 1 || n > 65535);
    if (bad_host || bad_port || (*end && strcmp(end, "/") != 0)) {
        snprintf(why, cap, "'%.80s' is not a proxy URL: %s", proxy,
                 bad_host   ? "no usable host"
                 : bad_port ? "the port must be 1..65535"
                            : "a proxy URL has no path");
        return 1;
    }
    return 0;
}

int fetch_proxy_unreachable(const char *proxy, int timeout_ms, char *why, size_t cap)
{
    if (fetch_proxy_invalid(proxy, why, cap))
        return 1;
    const char *from = strstr(proxy, "://") + 3, *end = from + strcspn(from, "/?#");
    char name[160], host[128], port[8] = "1080";
    snprintf(name, sizeof name, "%.*s", (int)(end - from), from);
    const char *h = memchr(from, '@', (size_t)(end - from));
    h = h ? h + 1 : from;
    const char *h_end = end, *colon = NULL;
    if (*h == '[') {
        const char *close = memchr(h, ']', (size_t)(end - h));
        h++;
        h_end = close;
        colon = close + 1 < end ? close + 1 : NULL;
    } else {
        colon = memchr(h, ':', (size_t)(end - h));
        if (colon)
            h_end = colon;
    }
    snprintf(host, sizeof host, "%.*s", (int)(h_end - h), h);
    if (colon)
        snprintf(port, sizeof port, "%.*s", (int)(end - colon - 1), colon + 1);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res = NULL;
    int rc = getaddrinfo(host, port, &hints, &res);
    if (rc != 0) {
        snprintf(why, cap, "the proxy's host does not resolve (DNS): %s: %s", host,
                 gai_strerror(rc));
        return 1;
    }
    int err = ETIMEDOUT;
    for (struct addrinfo *a = res; a && err; a = a->ai_next) {
        int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0) {
            err = errno;
            continue;
        }
        err = connect(fd, a->ai_addr, a->ai_addrlen) == 0 ? 0 : errno;
        if (err == EINPROGRESS) {
            struct pollfd pfd = {.fd = fd, .events = POLLOUT};
            socklen_t len = sizeof err;
            if (poll(&pfd, 1, timeout_ms) <= 0)
                err = ETIMEDOUT;
            else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
                err = errno;
        }
        close(fd);
    }
    freeaddrinfo(res);
    if (!err)
        return 0;
    if (err == ECONNREFUSED)
        snprintf(why, cap, "connection refused by the proxy %s", name);
    else if (err == ETIMEDOUT)
        snprintf(why, cap, "timeout connecting to the proxy %s", name);
    else
        snprintf(why, cap, "cannot connect to the proxy %s: %s", name, strerror(err));
    return 1;
}
