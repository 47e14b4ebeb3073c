/* Unit tests for crawler/addrcheck: every spelling of a private or own address is refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "common/monotime.h"
#include "crawler/addrcheck.h"

struct verdict_case {
    const char *url;
    enum addrcheck_verdict want;
};

static const char *verdict_name(enum addrcheck_verdict v)
{
    return v == ADDRCHECK_PUBLIC ? "public" : v == ADDRCHECK_OWN ? "own" : "reserved";
}

static int setup(void **state)
{
    struct addrcheck *ac = NULL;
    if (addrcheck_new(&ac) != ERR_OK)
        return -1;
    *state = ac;
    return 0;
}

static int teardown(void **state)
{
    addrcheck_free(*state);
    return 0;
}

/*
 * Loopback and the other private or reserved destinations, however a URL spells them.
 * The verdict may be "own" as well as "reserved" (127.0.0.1 is both): either refuses.
 */
static void test_private_spellings_refused(void **state)
{
    static const char *const urls[] = {
        "http://127.0.0.1/",
        "http://127.1/",                  /* short form */
        "http://0x7f.1/",                 /* hex, short */
        "http://0x7f000001/",             /* one hex number */
        "http://2130706433/",             /* one decimal number */
        "http://017700000001/",           /* one octal number */
        "http://0177.0.0.1/",             /* octal first byte */
        "http://0x7F.0.0.0x1/",           /* mixed */
        "http://127.0.0.1./",             /* trailing dot */
        "http://%31%32%37.0.0.1/",        /* percent-escaped */
        "http://user:pw@127.0.0.1:8080/", /* userinfo and port */
        "HTTP://127.000.000.001/",        /* zeros: octal zeros */
        "http://0.0.0.0/",
        "http://0/",
        "http://[::]/",
        "http://[::1]/",
        "http://[0:0:0:0:0:0:0:1]:8080/",
        "http://[::ffff:127.0.0.1]/",      /* IPv4-mapped */
        "http://[::ffff:7f00:1]/",         /* the same, hex */
        "http://[0:0:0:0:0:ffff:7f00:1]/", /* the same, long */
        "http://[::127.0.0.1]/",           /* IPv4-compatible (deprecated) */
        "http://[::ffff:0:127.0.0.1]/",    /* IPv4-translated */
        "http://169.254.169.254/",         /* cloud metadata */
        "http://2852039166/",              /* the same, decimal */
        "http://0xa9.0xfe.0xa9.0xfe/",     /* the same, hex */
        "http://[::ffff:169.254.169.254]/",
        "http://[fe80::1]/",
        "http://[fe80::fc:ff:fe00:1]/",
        "http://[fec0::1]/", /* site-local (deprecated) */
        "http://[fc00::1]/", /* unique local fc00::/7 */
        "http://[fd00::2]/",
        "http://[fdff:ffff::1]/",
        "http://10.0.0.1/",
        "http://10.255.255.255/",
        "http://172.16.0.1/",
        "http://172.31.255.255/",
        "http://192.168.0.1/",
        "http://100.64.0.1/", /* CGNAT 100.64/10 */
        "http://100.127.255.254/",
        "http://192.0.0.8/",
        "http://192.0.2.1/", /* documentation */
        "http://198.51.100.7/",
        "http://203.0.113.9/",
        "http://198.18.0.1/", /* benchmarking */
        "http://198.19.255.255/",
        "http://224.0.0.1/", /* multicast */
        "http://239.255.255.250/",
        "http://240.0.0.1/",
        "http://255.255.255.255/",
        "http://[ff02::1]/",
        "http://[64:ff9b::10.0.0.1]/", /* NAT64 of a private address */
        "http://[64:ff9b::7f00:1]/",
        "http://[64:ff9b:1::8.8.8.8]/", /* local-use NAT64 */
        "http://[2002:a00:1::1]/",      /* 6to4 of 10.0.0.1 */
        "http://[2002:7f00:1::]/",      /* 6to4 of 127.0.0.1 */
        "http://[2002:c0a8:101::1]/",   /* 6to4 of 192.168.1.1 */
        "http://[2001:db8::1]/",        /* documentation */
        "http://[2001::1]/",            /* Teredo */
        "http://[2001:2::1]/",          /* benchmarking */
        "http://[100::1]/",             /* discard */
        "http://localhost/",
        "http://LOCALHOST:8080/",
        "http://localhost./",
        "http://api.localhost/",
        "http://not a url/",
    };
    struct addrcheck *ac = *state;
    int64_t now = monotime_ms();
    for (size_t i = 0; i < sizeof urls / sizeof urls[0]; i++)
        if (addrcheck_url(ac, urls[i], now) == ADDRCHECK_PUBLIC)
            fail_msg("%s: public, want refused", urls[i]);
}

/* Public addresses, the edges of the ranges around them, and names, are allowed. */
static void test_public_allowed(void **state)
{
    static const char *const urls[] = {
        "http://8.8.8.8/",
        "http://1.1.1.1:8080/",
        "http://134744072/", /* 8.8.8.8 */
        "http://0x08080808/",
        "http://9.255.255.255/",
        "http://11.0.0.0/",
        "http://100.63.255.255/",
        "http://100.128.0.0/",
        "http://126.255.255.255/",
        "http://128.0.0.1/",
        "http://169.253.255.255/",
        "http://169.255.0.0/",
        "http://172.15.255.255/",
        "http://172.32.0.0/",
        "http://192.167.255.255/",
        "http://192.169.0.0/",
        "http://198.17.255.255/",
        "http://198.20.0.0/",
        "http://223.255.255.255/",
        "http://[2606:4700:4700::1111]/",
        "http://[2a00:1450:4001:80b::200e]/",
        "http://[::ffff:8.8.8.8]/",
        "http://[64:ff9b::8.8.8.8]/",
        "http://[2002:808:808::1]/",
        "http://example.com/",
        "http://localhost.example.com/", /* a name like any other */
        "http://mylocalhost/",
        "http://10.0.0.1.nip.io/", /* a name: judged when connecting */
    };
    struct addrcheck *ac = *state;
    int64_t now = monotime_ms();
    for (size_t i = 0; i < sizeof urls / sizeof urls[0]; i++)
        if (addrcheck_url(ac, urls[i], now) != ADDRCHECK_PUBLIC)
            fail_msg("%s: refused, want public", urls[i]);
}

/* The address of an interface, as a URL host ("1.2.3.4" or "[v6]"), into out[cap]. */
static int url_of_interface(const struct sockaddr *sa, char *out, size_t cap)
{
    char text[INET6_ADDRSTRLEN];
    if (sa->sa_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)sa)->sin_addr, text,
                  sizeof text);
        snprintf(out, cap, "http://%s:8080/", text);
        return 1;
    }
    if (sa->sa_family == AF_INET6) {
        const struct sockaddr_in6 *in6 = (const void *)sa;
        inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof text);
        snprintf(out, cap, "http://[%s]:8080/", text);
        return 1;
    }
    return 0;
}

/*
 * Every address of this host's interfaces is "own", however public it may be (a
 * service bound to 0.0.0.0 answers there): as a URL, as the address connected to, and
 * as IPv4 in mapped IPv6 form. Own comes before the ranges, so 127.0.0.1 is "own" too:
 * this fails if the host's addresses are not read.
 */
static void test_own_addresses_refused(void **state)
{
    struct addrcheck *ac = *state;
    int64_t now = monotime_ms();
    struct ifaddrs *list = NULL;
    assert_int_equal(getifaddrs(&list), 0);
    int seen = 0;
    for (struct ifaddrs *i = list; i; i = i->ifa_next) {
        char url[128];
        if (!i->ifa_addr || !url_of_interface(i->ifa_addr, url, sizeof url))
            continue;
        if (i->ifa_addr->sa_family == AF_INET6 &&
            ((const struct sockaddr_in6 *)(const void *)i->ifa_addr)->sin6_scope_id)
            continue; /* fe80::x%eth0: a URL cannot carry the zone; the socket check below can */
        enum addrcheck_verdict v = addrcheck_url(ac, url, now);
        if (v != ADDRCHECK_OWN)
            fail_msg("%s (%s): %s, want own", url, i->ifa_name, verdict_name(v));
        seen++;
    }
    for (struct ifaddrs *i = list; i; i = i->ifa_next) {
        if (!i->ifa_addr ||
            (i->ifa_addr->sa_family != AF_INET && i->ifa_addr->sa_family != AF_INET6))
            continue;
        assert_int_equal(addrcheck_sockaddr(ac, i->ifa_addr, now), ADDRCHECK_OWN);
        if (i->ifa_addr->sa_family == AF_INET) {
            struct sockaddr_in6 mapped = {.sin6_family = AF_INET6};
            mapped.sin6_addr.s6_addr[10] = mapped.sin6_addr.s6_addr[11] = 0xff;
            memcpy(&mapped.sin6_addr.s6_addr[12],
                   &((const struct sockaddr_in *)(const void *)i->ifa_addr)->sin_addr, 4);
            assert_int_equal(addrcheck_sockaddr(ac, &mapped, now), ADDRCHECK_OWN);
        }
    }
    freeifaddrs(list);
    assert_true(seen >= 1); /* at least loopback */
}

/* The connection check sees sockaddrs: the ranges hold there as for URLs. */
static void test_sockaddrs(void **state)
{
    static const struct {
        int family;
        const char *addr;
        enum addrcheck_verdict want;
    } t[] = {
        {AF_INET, "10.1.2.3", ADDRCHECK_RESERVED},
        {AF_INET, "100.100.100.200", ADDRCHECK_RESERVED},
        {AF_INET, "169.254.169.254", ADDRCHECK_RESERVED},
        {AF_INET, "8.8.4.4", ADDRCHECK_PUBLIC},
        {AF_INET6, "::ffff:10.1.2.3", ADDRCHECK_RESERVED},
        {AF_INET6, "::ffff:8.8.4.4", ADDRCHECK_PUBLIC},
        {AF_INET6, "64:ff9b::a9fe:a9fe", ADDRCHECK_RESERVED},
        {AF_INET6, "2002:a9fe:a9fe::", ADDRCHECK_RESERVED},
        {AF_INET6, "fc00::", ADDRCHECK_RESERVED},
        {AF_INET6, "febf:ffff::1", ADDRCHECK_RESERVED},
        {AF_INET6, "::2", ADDRCHECK_RESERVED},
        {AF_INET6, "3fff:fff::1", ADDRCHECK_RESERVED},
        {AF_INET6, "4000::1", ADDRCHECK_RESERVED}, /* not allocated: outside 2000::/3 */
        {AF_INET6, "2001:4860:4860::8888", ADDRCHECK_PUBLIC},
        {AF_INET6, "2001:20::1", ADDRCHECK_PUBLIC}, /* ORCHIDv2 is not ORCHID */
    };
    struct addrcheck *ac = *state;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        struct sockaddr_storage ss = {0};
        if (t[i].family == AF_INET) {
            struct sockaddr_in *in = (struct sockaddr_in *)&ss;
            in->sin_family = AF_INET;
            assert_int_equal(inet_pton(AF_INET, t[i].addr, &in->sin_addr), 1);
        } else {
            struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
            in6->sin6_family = AF_INET6;
            assert_int_equal(inet_pton(AF_INET6, t[i].addr, &in6->sin6_addr), 1);
        }
        enum addrcheck_verdict v = addrcheck_sockaddr(ac, &ss, monotime_ms());
        if (v != t[i].want)
            fail_msg("%s: %s, want %s", t[i].addr, verdict_name(v), verdict_name(t[i].want));
    }
    struct sockaddr_storage unix_like = {.ss_family = AF_UNIX};
    assert_int_equal(addrcheck_sockaddr(ac, &unix_like, monotime_ms()), ADDRCHECK_RESERVED);
}

/* A clock that moves on (or back) re-reads the interfaces without losing them. */
static void test_refresh(void **state)
{
    struct addrcheck *ac = *state;
    int64_t now = monotime_ms();
    struct sockaddr_in lo = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(0x7f000001)};
    for (int64_t t = now; t < now + 5 * ADDRCHECK_REFRESH_MS; t += ADDRCHECK_REFRESH_MS / 2)
        assert_int_equal(addrcheck_sockaddr(ac, &lo, t), ADDRCHECK_OWN);
    assert_int_equal(addrcheck_sockaddr(ac, &lo, 0), ADDRCHECK_OWN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_private_spellings_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_public_allowed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_own_addresses_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_sockaddrs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refresh, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
