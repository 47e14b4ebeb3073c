/* Public destinations only: reserved IPv4/IPv6 ranges, embedded IPv4, this host's own addresses. */
#include "crawler/addrcheck.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "common/log.h"
#include "common/monotime.h"
#include "crawler/url.h"

struct addrcheck {
    uint32_t *v4; /* this host's IPv4 addresses, host byte order */
    size_t n4;
    uint8_t (*v6)[16]; /* and IPv6 addresses */
    size_t n6;
    int64_t read_at; /* monotonic ms of the last refresh attempt */
    int warned;      /* getifaddrs failed and we said so */
};

/* ---- ranges -------------------------------------------------------------- */

/* a lies in prefix/len (both host byte order). */
static int v4_in(uint32_t a, uint32_t prefix, int len)
{
    return (a >> (32 - len)) == (prefix >> (32 - len));
}

static int addrcheck_reserved_v4(uint32_t a)
{
    static const struct {
        uint32_t prefix;
        int len;
    } ranges[] = {
        {0x00000000, 8},  /* 0/8 "this network"; 0.0.0.0 reaches this host */
        {0x0A000000, 8},  /* 10/8 private */
        {0x64400000, 10}, /* 100.64/10 shared address space (CGNAT) */
        {0x7F000000, 8},  /* 127/8 loopback */
        {0xA9FE0000, 16}, /* 169.254/16 link-local (cloud metadata at .169.254) */
        {0xAC100000, 12}, /* 172.16/12 private */
        {0xC0000000, 24}, /* 192.0.0/24 protocol assignments */
        {0xC0000200, 24}, /* 192.0.2/24 documentation */
        {0xC0586300, 24}, /* 192.88.99/24 6to4 relays (deprecated) */
        {0xC0A80000, 16}, /* 192.168/16 private */
        {0xC6120000, 15}, /* 198.18/15 benchmarking */
        {0xC6336400, 24}, /* 198.51.100/24 documentation */
        {0xCB007100, 24}, /* 203.0.113/24 documentation */
        {0xE0000000, 4},  /* 224/4 multicast */
        {0xF0000000, 4},  /* 240/4 reserved, and 255.255.255.255 */
    };
    for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++)
        if (v4_in(a, ranges[i].prefix, ranges[i].len))
            return 1;
    return 0;
}

static uint32_t v4_at(const uint8_t *b)
{
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

/*
 * The IPv4 address an IPv6 address stands for, where it stands for one that a
 * connection would reach: mapped ::ffff:0:0/96, NAT64 64:ff9b::/96, 6to4 2002::/16.
 */
static int v6_embedded_v4(const uint8_t b[16], uint32_t *v4)
{
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
    static const uint8_t nat64[12] = {0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};
    if (memcmp(b, mapped, 12) == 0 || memcmp(b, nat64, 12) == 0) {
        *v4 = v4_at(b + 12);
        return 1;
    }
    if (b[0] == 0x20 && b[1] == 0x02) {
        *v4 = v4_at(b + 2);
        return 1;
    }
    return 0;
}

/* b lies in the prefix of len bits given by its first bytes p. */
static int v6_in(const uint8_t b[16], const uint8_t *p, int len)
{
    int whole = len / 8, rest = len % 8;
    if (memcmp(b, p, (size_t)whole) != 0)
        return 0;
    return !rest || ((b[whole] ^ p[whole]) & (0xff << (8 - rest)) & 0xff) == 0;
}

static int addrcheck_reserved_v6(const uint8_t b[16])
{
    uint32_t v4;
    if (v6_embedded_v4(b, &v4))
        return addrcheck_reserved_v4(v4);
    if ((b[0] & 0xe0) != 0x20)
        return 1; /* outside global unicast 2000::/3: ::, ::1, fc00::/7, fe80::/10, ff00::/8 ... */
    static const struct {
        uint8_t p[6];
        int len;
    } special[] = {
        {{0x20, 0x01, 0x00, 0x00}, 32},       /* Teredo */
        {{0x20, 0x01, 0x00, 0x02, 0, 0}, 48}, /* benchmarking */
        {{0x20, 0x01, 0x00, 0x10}, 28},       /* ORCHID */
        {{0x20, 0x01, 0x0d, 0xb8}, 32},       /* documentation */
        {{0x3f, 0xff, 0x00, 0x00}, 20},       /* documentation */
    };
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
        if (v6_in(b, special[i].p, special[i].len))
            return 1;
    return 0;
}

/* ---- this host's addresses ----------------------------------------------- */

/* Read the interfaces' addresses; on failure keep the old list (and warn once). */
static void own_refresh(struct addrcheck *ac, int64_t now_ms)
{
    ac->read_at = now_ms;
    struct ifaddrs *list = NULL;
    if (getifaddrs(&list) != 0) {
        if (!ac->warned)
            log_warn("fetcher: cannot list this host's addresses (getifaddrs): only private and "
                     "reserved ranges are refused until it works");
        ac->warned = 1;
        return;
    }
    size_t n4 = 0, n6 = 0, over = 0;
    for (struct ifaddrs *i = list; i; i = i->ifa_next) {
        const struct sockaddr *sa = i->ifa_addr;
        if (!sa)
            continue;
        if (sa->sa_family == AF_INET && n4 < ADDRCHECK_OWN_MAX)
            ac->v4[n4++] = ntohl(((const struct sockaddr_in *)(const void *)sa)->sin_addr.s_addr);
        else if (sa->sa_family == AF_INET6 && n6 < ADDRCHECK_OWN_MAX)
            memcpy(ac->v6[n6++], ((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr.s6_addr,
                   16);
        else if (sa->sa_family == AF_INET || sa->sa_family == AF_INET6)
            over++;
    }
    freeifaddrs(list);
    if (over && !ac->warned)
        log_warn("fetcher: this host has over %d addresses of a family: %zu are not refused as "
                 "its own",
                 ADDRCHECK_OWN_MAX, over);
    ac->warned = over > 0;
    ac->n4 = n4;
    ac->n6 = n6;
}

static void own_maybe_refresh(struct addrcheck *ac, int64_t now_ms)
{
    if (now_ms - ac->read_at >= ADDRCHECK_REFRESH_MS || now_ms < ac->read_at)
        own_refresh(ac, now_ms);
}

static int own_v4(const struct addrcheck *ac, uint32_t a)
{
    for (size_t i = 0; i < ac->n4; i++)
        if (ac->v4[i] == a)
            return 1;
    return 0;
}

static int own_v6(const struct addrcheck *ac, const uint8_t b[16])
{
    for (size_t i = 0; i < ac->n6; i++)
        if (memcmp(ac->v6[i], b, 16) == 0)
            return 1;
    uint32_t v4;
    return v6_embedded_v4(b, &v4) && own_v4(ac, v4);
}

/* ---- verdicts ------------------------------------------------------------ */

static enum addrcheck_verdict verdict_v4(struct addrcheck *ac, uint32_t a, int64_t now_ms)
{
    own_maybe_refresh(ac, now_ms);
    if (own_v4(ac, a))
        return ADDRCHECK_OWN;
    return addrcheck_reserved_v4(a) ? ADDRCHECK_RESERVED : ADDRCHECK_PUBLIC;
}

static enum addrcheck_verdict verdict_v6(struct addrcheck *ac, const uint8_t b[16], int64_t now_ms)
{
    own_maybe_refresh(ac, now_ms);
    if (own_v6(ac, b))
        return ADDRCHECK_OWN;
    return addrcheck_reserved_v6(b) ? ADDRCHECK_RESERVED : ADDRCHECK_PUBLIC;
}

enum addrcheck_verdict addrcheck_sockaddr(struct addrcheck *ac, const void *sockaddr,
                                          int64_t now_ms)
{
    const struct sockaddr *sa = sockaddr;
    if (sa->sa_family == AF_INET) {
        const struct sockaddr_in *in = sockaddr;
        return verdict_v4(ac, ntohl(in->sin_addr.s_addr), now_ms);
    }
    if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = sockaddr;
        return verdict_v6(ac, in6->sin6_addr.s6_addr, now_ms);
    }
    return ADDRCHECK_RESERVED; /* unix sockets and the like are not the web */
}

/* "localhost" or a name under it (RFC 6761 §6.3), h[n] lower case without a port. */
static int is_localhost(const char *h, size_t n)
{
    return (n == 9 && memcmp(h, "localhost", 9) == 0) ||
           (n > 10 && memcmp(h + n - 10, ".localhost", 10) == 0);
}

enum addrcheck_verdict addrcheck_url(struct addrcheck *ac, const char *url, int64_t now_ms)
{
    char *norm = NULL;
    enum addrcheck_verdict v = ADDRCHECK_RESERVED;
    if (url_normalize(url, &norm) != ERR_OK)
        goto out;
    size_t n = 0;
    const char *h = url_host_ref(norm, &n);
    if (!h)
        goto out;
    char host[64]; /* the longest IP literal is 47 bytes with its brackets */
    if (h[0] == '[') {
        /* The normal form keeps IPv6 literals as "[text]", maybe with a port. */
        const char *close = memchr(h, ']', n);
        uint8_t b[16];
        size_t len = close ? (size_t)(close - h - 1) : sizeof host;
        if (len >= sizeof host)
            goto out;
        memcpy(host, h + 1, len);
        host[len] = '\0';
        if (inet_pton(AF_INET6, host, b) == 1)
            v = verdict_v6(ac, b, now_ms);
        goto out;
    }
    size_t hn = strcspn(h, ":/?"); /* url_normalize wrote IPv4 forms dotted-decimal */
    v = ADDRCHECK_PUBLIC;
    struct in_addr a;
    if (is_localhost(h, hn)) {
        v = ADDRCHECK_RESERVED;
    } else if (hn < sizeof host) {
        memcpy(host, h, hn);
        host[hn] = '\0';
        if (inet_pton(AF_INET, host, &a) == 1)
            v = verdict_v4(ac, ntohl(a.s_addr), now_ms);
    }
out:
    free(norm);
    return v;
}

const char *addrcheck_verdict_text(enum addrcheck_verdict v)
{
    switch (v) {
    case ADDRCHECK_PUBLIC:
        return "is public";
    case ADDRCHECK_RESERVED:
        return "is private, local or reserved";
    case ADDRCHECK_OWN:
        return "is an address of this host";
    }
    return "is refused";
}

/* ---- lifecycle ----------------------------------------------------------- */

enum err addrcheck_new(struct addrcheck **out)
{
    struct addrcheck *ac = calloc(1, sizeof *ac);
    *out = NULL;
    if (!ac || !(ac->v4 = calloc(ADDRCHECK_OWN_MAX, sizeof *ac->v4)) ||
        !(ac->v6 = calloc(ADDRCHECK_OWN_MAX, sizeof *ac->v6))) {
        addrcheck_free(ac);
        return err_set(ERR_NOMEM, "out of memory");
    }
    own_refresh(ac, monotime_ms());
    *out = ac;
    return ERR_OK;
}

void addrcheck_free(struct addrcheck *ac)
{
    if (!ac)
        return;
    free(ac->v4);
    free(ac->v6);
    free(ac);
}
