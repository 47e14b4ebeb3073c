/* Unit tests for crawler/url: RFC 3986 resolution, normalisation, rejection, site identity. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "crawler/url.h"

struct pair {
    const char *in;
    const char *want; /* NULL: must be rejected */
};

struct triple {
    const char *base;
    const char *ref;
    const char *want; /* NULL: must be rejected with ERR_INVAL */
};

/* Checks one normalisation; a normal form must also be a fixed point. */
static void check_normalize(const char *in, const char *want)
{
    char *out = NULL;
    enum err e = url_normalize(in, &out);
    if (!want) {
        if (e == ERR_OK)
            fail_msg("url_normalize(\"%s\") = \"%s\", want rejection", in, out);
        assert_null(out);
        assert_true(err_msg()[0] != '\0');
        return;
    }
    if (e != ERR_OK)
        fail_msg("url_normalize(\"%s\") failed: %s", in, err_msg());
    if (strcmp(out, want))
        fail_msg("url_normalize(\"%s\") = \"%s\", want \"%s\"", in, out, want);
    char *again = NULL;
    assert_int_equal(url_normalize(out, &again), ERR_OK);
    if (strcmp(again, out))
        fail_msg("not idempotent: \"%s\" -> \"%s\"", out, again);
    free(again);
    free(out);
}

static void check_resolve(const struct triple *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char *out = NULL;
        enum err e = url_resolve(t[i].base, t[i].ref, &out);
        if (!t[i].want) {
            if (e == ERR_OK)
                fail_msg("resolve(\"%s\", \"%s\") = \"%s\", want rejection", t[i].base, t[i].ref,
                         out);
            assert_int_equal(e, ERR_INVAL);
            assert_null(out);
            continue;
        }
        if (e != ERR_OK)
            fail_msg("resolve(\"%s\", \"%s\") failed: %s", t[i].base, t[i].ref, err_msg());
        if (strcmp(out, t[i].want))
            fail_msg("resolve(\"%s\", \"%s\") = \"%s\", want \"%s\"", t[i].base, t[i].ref, out,
                     t[i].want);
        free(out);
    }
}

#define RFC_BASE "http://a/b/c/d;p?q"

/*
 * RFC 3986 §5.4.1, with the results in our normal form: fragments dropped and
 * an empty path written "/" ("//g" -> "http://g/"). "g:h" is not http(s).
 */
static void test_rfc3986_normal_examples(void **state)
{
    (void)state;
    static const struct triple t[] = {
        {RFC_BASE, "g:h", NULL},
        {RFC_BASE, "g", "http://a/b/c/g"},
        {RFC_BASE, "./g", "http://a/b/c/g"},
        {RFC_BASE, "g/", "http://a/b/c/g/"},
        {RFC_BASE, "/g", "http://a/g"},
        {RFC_BASE, "//g", "http://g/"},
        {RFC_BASE, "?y", "http://a/b/c/d;p?y"},
        {RFC_BASE, "g?y", "http://a/b/c/g?y"},
        {RFC_BASE, "#s", "http://a/b/c/d;p?q"},
        {RFC_BASE, "g#s", "http://a/b/c/g"},
        {RFC_BASE, "g?y#s", "http://a/b/c/g?y"},
        {RFC_BASE, ";x", "http://a/b/c/;x"},
        {RFC_BASE, "g;x", "http://a/b/c/g;x"},
        {RFC_BASE, "g;x?y#s", "http://a/b/c/g;x?y"},
        {RFC_BASE, "", "http://a/b/c/d;p?q"},
        {RFC_BASE, ".", "http://a/b/c/"},
        {RFC_BASE, "./", "http://a/b/c/"},
        {RFC_BASE, "..", "http://a/b/"},
        {RFC_BASE, "../", "http://a/b/"},
        {RFC_BASE, "../g", "http://a/b/g"},
        {RFC_BASE, "../..", "http://a/"},
        {RFC_BASE, "../../", "http://a/"},
        {RFC_BASE, "../../g", "http://a/g"},
    };
    check_resolve(t, sizeof t / sizeof t[0]);
}

/* RFC 3986 §5.4.2; "http:g" takes the backward-compatible reading, as browsers do. */
static void test_rfc3986_abnormal_examples(void **state)
{
    (void)state;
    static const struct triple t[] = {
        {RFC_BASE, "../../../g", "http://a/g"},
        {RFC_BASE, "../../../../g", "http://a/g"},
        {RFC_BASE, "/./g", "http://a/g"},
        {RFC_BASE, "/../g", "http://a/g"},
        {RFC_BASE, "g.", "http://a/b/c/g."},
        {RFC_BASE, ".g", "http://a/b/c/.g"},
        {RFC_BASE, "g..", "http://a/b/c/g.."},
        {RFC_BASE, "..g", "http://a/b/c/..g"},
        {RFC_BASE, "./../g", "http://a/b/g"},
        {RFC_BASE, "./g/.", "http://a/b/c/g/"},
        {RFC_BASE, "g/./h", "http://a/b/c/g/h"},
        {RFC_BASE, "g/../h", "http://a/b/c/h"},
        {RFC_BASE, "g;x=1/./y", "http://a/b/c/g;x=1/y"},
        {RFC_BASE, "g;x=1/../y", "http://a/b/c/y"},
        {RFC_BASE, "g?y/./x", "http://a/b/c/g?y/./x"},
        {RFC_BASE, "g?y/../x", "http://a/b/c/g?y/../x"},
        {RFC_BASE, "g#s/./x", "http://a/b/c/g"},
        {RFC_BASE, "g#s/../x", "http://a/b/c/g"},
        {RFC_BASE, "http:g", "http://a/b/c/g"},
    };
    check_resolve(t, sizeof t / sizeof t[0]);
}

/* What hrefs look like in real pages. */
static void test_resolve_hrefs(void **state)
{
    (void)state;
    static const struct triple t[] = {
        {RFC_BASE, "https://B.Example/x#top", "https://b.example/x"},
        {RFC_BASE, "//Other.example:80", "http://other.example/"},
        {"https://a:8443/x/y", "//b/z", "https://b/z"},
        {"https://a:8443/x/y", "z", "https://a:8443/x/z"},
        {RFC_BASE, "  \t../g\n ", "http://a/b/g"},
        {RFC_BASE, "\\g", "http://a/g"},
        {RFC_BASE, "..\\g\\h", "http://a/b/g/h"},
        {RFC_BASE, "HTTP:g", "http://a/b/c/g"},
        {RFC_BASE, "g h", "http://a/b/c/g%20h"},
        {RFC_BASE, "%7Euser/", "http://a/b/c/~user/"},
        {RFC_BASE, "%2e%2E/g", "http://a/b/g"},
        {"http://a", "g", "http://a/g"},
        {"http://a?q", "?r", "http://a/?r"},
        {"http://a/b/", "", "http://a/b/"},
        {RFC_BASE, "mailto:someone@example.com", NULL},
        {RFC_BASE, "javascript:void(0)", NULL},
        {RFC_BASE, " JavaScript:alert(1)", NULL},
        {RFC_BASE, "data:text/html,<b>x</b>", NULL},
        {RFC_BASE, "ftp://a/file", NULL},
        {RFC_BASE, "tel:+123", NULL},
        {RFC_BASE, "https:g", NULL}, /* another scheme without a host */
        {RFC_BASE, "//", NULL},
        {RFC_BASE, "//:80/", NULL},
        {"mailto:x@y", "g", NULL},
        {"/relative/base", "g", NULL},
        {"mailto:x@y", "http://ok.example/", "http://ok.example/"},
    };
    check_resolve(t, sizeof t / sizeof t[0]);
}

static void test_normalize_table(void **state)
{
    (void)state;
    static const struct pair t[] = {
        /* scheme and host case, default ports */
        {"HTTP://Example.COM", "http://example.com/"},
        {"http://example.com:80/", "http://example.com/"},
        {"https://example.com:443/a", "https://example.com/a"},
        {"http://example.com:443/", "http://example.com:443/"},
        {"https://example.com:80/", "https://example.com:80/"},
        {"http://example.com:8080", "http://example.com:8080/"},
        {"http://example.com:/x", "http://example.com/x"},
        {"http://example.com:0080/", "http://example.com/"},
        {"http://example.com:65535/", "http://example.com:65535/"},
        {"https://Example.com/A/B", "https://example.com/A/B"},
        /* dot segments, empty path, fragment */
        {"http://example.com/a/./b/../c", "http://example.com/a/c"},
        {"http://example.com/a/..", "http://example.com/"},
        {"http://example.com/../../x", "http://example.com/x"},
        {"http://example.com/a//b/", "http://example.com/a//b/"},
        {"http://example.com/a#frag", "http://example.com/a"},
        {"http://example.com#", "http://example.com/"},
        {"http://example.com?q", "http://example.com/?q"},
        {"http://example.com/?", "http://example.com/?"},
        /* percent-encoding */
        {"http://example.com/%7Euser/%41%62c", "http://example.com/~user/Abc"},
        {"http://example.com/a%2fb%2Fc", "http://example.com/a%2Fb%2Fc"},
        {"http://example.com/a/%2e%2E/b", "http://example.com/b"},
        {"http://example.com/%2E/a", "http://example.com/a"},
        {"http://example.com/a b", "http://example.com/a%20b"},
        {"http://example.com/caf\xc3\xa9", "http://example.com/caf%C3%A9"},
        {"http://example.com/100%", "http://example.com/100%25"},
        {"http://example.com/%zz%4", "http://example.com/%25zz%254"},
        {"http://example.com/%c3%a9", "http://example.com/%C3%A9"},
        {"http://example.com/[x]{y}|^`\"<>", "http://example.com/%5Bx%5D%7By%7D%7C%5E%60%22%3C%3E"},
        {"http://example.com/!$&'()*+,;=:@", "http://example.com/!$&'()*+,;=:@"},
        /* the query: verbatim but for escapes */
        {"http://example.com/?b=2&a=1", "http://example.com/?b=2&a=1"},
        {"http://example.com/?a=1&b=%7e&c=%2f&d=x y", "http://example.com/?a=1&b=~&c=%2F&d=x%20y"},
        {"http://example.com/a?x=../b/./c?d", "http://example.com/a?x=../b/./c?d"},
        {"http://example.com/?q=caf\xc3\xa9\\", "http://example.com/?q=caf%C3%A9%5C"},
        /* whitespace and backslashes, as browsers read hrefs */
        {"  http://example.com/x \n", "http://example.com/x"},
        {"\x01http://example.com/\x7f", "http://example.com/%7F"},
        {"http://exa\tmple.com/a\nb\r", "http://example.com/ab"},
        {"http:\\\\example.com\\a\\b?c\\d", "http://example.com/a/b?c%5Cd"},
        /* userinfo dropped */
        {"http://user:pass@example.com/", "http://example.com/"},
        {"http://a@b@example.com:81/", "http://example.com:81/"},
        {"http://good.example@evil.example/", "http://evil.example/"},
        /* hosts */
        {"http://EXAMPLE.com./", "http://example.com/"},
        {"http://ex%41mple.com/", "http://example.com/"},
        {"http://my_host-1.Example.com/", "http://my_host-1.example.com/"},
        {"http://[2001:DB8::1]/", "http://[2001:db8::1]/"},
        {"http://[2001:db8:0:0:0:0:0:1]:8080/x", "http://[2001:db8::1]:8080/x"},
        {"http://[::1]:80/", "http://[::1]/"},
        {"http://[::FFFF:1.2.3.4]/", "http://[::ffff:1.2.3.4]/"},
        {"http://192.168.1.1/", "http://192.168.1.1/"},
        {"http://0x7f.1/", "http://127.0.0.1/"},
        {"http://2130706433/", "http://127.0.0.1/"},
        {"http://0177.0.0.1/", "http://127.0.0.1/"},
        {"http://1.2.65535/", "http://1.2.255.255/"},
        {"http://0x/", "http://0.0.0.0/"},
        {"http://0x1g/", "http://0x1g/"}, /* not a number: a name, as in browsers */
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        check_normalize(t[i].in, t[i].want);
}

static void test_rejections(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "javascript:alert(1)",
        "mailto:a@b.example",
        "ftp://example.com/",
        "data:text/html,hi",
        "file:///etc/passwd",
        "ws://example.com/",
        "//example.com/",
        "/path",
        "example.com",
        "",
        "   ",
        "http:",
        "http://",
        "http:///a",
        "http://:80/",
        "http://@/",
        "http:example.com",
        "http:/example.com",
        "http://example.com:0/",
        "http://example.com:65536/",
        "http://example.com:99999999999999999999/",
        "http://example.com:8a/",
        "http://example.com:-1/",
        "http://example.com:80:80/",
        "http://exa mple.com/",
        "http://exa<mple.com/",
        "http://ex!ample.com/",
        "http://b\303\274cher.de/", /* octal: a hex escape would swallow the "c" */
        "http://a..b/",
        "http://.a/",
        "http://example.com../",
        "http://./",
        "http://ex%zzample.com/",
        "http://ex%2fample.com/",
        "http://ex%00ample.com/",
        "http://[::1/",
        "http://[::1]x/",
        "http://[::1]:0/",
        "http://[]/",
        "http://[fe80::1%25eth0]/",
        "http://[v1.x]/",
        "http://[1:2:3]/",
        "http://1.2.3.4.5/",
        "http://256.1.1.1/",
        "http://1.2.3.256/",
        "http://4294967296/",
        "http://09.1.1.1/",
        "http://foo.123/",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *out = NULL;
        enum err e = url_normalize(bad[i], &out);
        if (e != ERR_INVAL)
            fail_msg("url_normalize(\"%s\") = %d (%s), want ERR_INVAL", bad[i], e,
                     out ? out : err_msg());
        assert_null(out);
    }
}

static void test_length_caps(void **state)
{
    (void)state;
    char *out = NULL;
    char in[URL_INPUT_MAX + 64];
    const char *prefix = "http://example.com/";
    size_t p = strlen(prefix);

    /* exactly URL_MAX bytes is fine, one more is not */
    memcpy(in, prefix, p);
    memset(in + p, 'a', URL_MAX - p);
    in[URL_MAX] = '\0';
    assert_int_equal(url_normalize(in, &out), ERR_OK);
    assert_int_equal(strlen(out), URL_MAX);
    free(out);
    in[URL_MAX] = 'a';
    in[URL_MAX + 1] = '\0';
    assert_int_equal(url_normalize(in, &out), ERR_TOOBIG);
    assert_null(out);

    /* encoding can push a short input over the cap */
    memcpy(in, prefix, p);
    memset(in + p, ' ', 1000);
    in[p + 1000] = 'x';
    in[p + 1001] = '\0';
    assert_int_equal(url_normalize(in, &out), ERR_TOOBIG);

    /* dot segments may shrink a long input under the cap */
    memcpy(in, prefix, p);
    for (size_t i = 0; i < 1500; i++)
        memcpy(in + p + 2 * i, "./", 2);
    memcpy(in + p + 3000, "end", 4);
    assert_int_equal(url_normalize(in, &out), ERR_OK);
    assert_string_equal(out, "http://example.com/end");
    free(out);

    /* raw input over URL_INPUT_MAX is refused before any work */
    memset(in, ' ', URL_INPUT_MAX + 1);
    memcpy(in, prefix, p);
    in[URL_INPUT_MAX + 1] = '\0';
    assert_int_equal(url_normalize(in, &out), ERR_TOOBIG);
    assert_int_equal(url_resolve("http://a/", in, &out), ERR_TOOBIG);
    assert_int_equal(url_resolve(in, "g", &out), ERR_TOOBIG);
    assert_null(out);

    /* labels and hosts as DNS allows */
    char host[400];
    memset(host, 'a', sizeof host);
    memcpy(host, "http://", 7);
    host[7 + 63] = '\0';
    assert_int_equal(url_normalize(host, &out), ERR_OK);
    free(out);
    host[7 + 63] = 'a';
    host[7 + 64] = '\0';
    assert_int_equal(url_normalize(host, &out), ERR_INVAL);
    host[7 + 64] = 'a';
    for (size_t i = 7 + 50; i < 7 + 300; i += 50)
        host[i] = '.';
    host[7 + 300] = '\0';
    assert_int_equal(url_normalize(host, &out), ERR_INVAL);
}

static void test_site_identity(void **state)
{
    (void)state;
    static const struct {
        const char *url, *host, *homepage, *path;
    } t[] = {
        {"http://example.com/", "example.com", "http://example.com/", "/"},
        {"https://example.com/a/b?c=d", "example.com", "https://example.com/", "/a/b?c=d"},
        {"http://example.com:8080/x", "example.com:8080", "http://example.com:8080/", "/x"},
        {"http://[::1]:8080/a", "[::1]:8080", "http://[::1]:8080/", "/a"},
        {"http://127.0.0.1/?", "127.0.0.1", "http://127.0.0.1/", "/?"},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        char *host = NULL, *home = NULL;
        assert_int_equal(url_host(t[i].url, &host), ERR_OK);
        assert_string_equal(host, t[i].host);
        assert_int_equal(url_homepage(t[i].url, &home), ERR_OK);
        assert_string_equal(home, t[i].homepage);
        assert_string_equal(url_path_and_query(t[i].url), t[i].path);
        size_t n = 0;
        const char *ref = url_host_ref(t[i].url, &n);
        assert_non_null(ref);
        assert_int_equal(n, strlen(t[i].host));
        assert_memory_equal(ref, t[i].host, n);
        free(host);
        free(home);
    }

    static const char *const bad[] = {"", "example.com/", "mailto:x@y", "http://", "ftp://a/"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *s = (char *)"untouched";
        assert_int_equal(url_host(bad[i], &s), ERR_INVAL);
        assert_null(s);
        assert_int_equal(url_homepage(bad[i], &s), ERR_INVAL);
        assert_null(s);
        assert_null(url_path_and_query(bad[i]));
        assert_false(url_same_site(bad[i], bad[i]));
    }
}

/* Intrinsic links stay on host[:port]; the scheme does not matter, subdomains do. */
static void test_same_site(void **state)
{
    (void)state;
    static const struct {
        const char *a, *b;
        int same;
    } t[] = {
        {"http://a.example/x", "http://a.example/y?z", 1},
        {"http://a.example/", "https://a.example/", 1},
        {"http://a.example/", "http://www.a.example/", 0},
        {"http://a.example/", "http://a.example.evil/", 0},
        {"http://a.example/", "http://a.exampl/", 0},
        {"http://a.example:8080/", "http://a.example/", 0},
        {"http://a.example:8080/", "https://a.example:8080/b", 1},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        if (url_same_site(t[i].a, t[i].b) != t[i].same)
            fail_msg("url_same_site(\"%s\", \"%s\") != %d", t[i].a, t[i].b, t[i].same);
    }

    /* The usual flow: resolve a link against its page, then compare sites. */
    char *page = NULL, *link = NULL;
    assert_int_equal(url_normalize("HTTP://Www.Example.com:80/dir/page.html", &page), ERR_OK);
    assert_int_equal(url_resolve(page, "../other.html#x", &link), ERR_OK);
    assert_string_equal(link, "http://www.example.com/other.html");
    assert_true(url_same_site(page, link));
    free(link);
    assert_int_equal(url_resolve(page, "//example.com/", &link), ERR_OK);
    assert_false(url_same_site(page, link));
    free(link);
    free(page);
}

/*
 * url_find_invalid: what a user may write in a job body. Each row gives the offset of
 * the first refused byte, or -1 for a URL that must pass as written.
 */
static void test_find_invalid(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        int at;
    } rows[] = {
        {"http://www.example.com/", -1},
        {"https://a-b.example.com:8443/~x/(y)/a_b.c?q=1&r=%41;s=t*u+v,w!$'@:/?#frag", -1},
        {"http://[::1]:8080/", -1},
        {"http://a.com/%7e%7E%2F", -1},
        {"", -1},
        {"http://a.com/x\r\n' OR 1=1;--", 14}, /* CR */
        {"http://a.com/x' OR 1=1;--", 15},     /* the space */
        {" http://a.com/", 0},                 /* spaces are not trimmed */
        {"http://a.com/\t", 13},               /* tab */
        {"http://a.com/\x7f", 13},             /* DEL */
        {"http://a.com/\303\274", 13},         /* UTF-8: percent-encode it */
        {"http://a.com/<script>", 13},
        {"http://a.com/\"", 13},
        {"http://a.com/{}", 13},
        {"http://a.com/a|b", 14},
        {"http://a.com/a\\b", 14},
        {"http://a.com/a^b", 14},
        {"http://a.com/a`b", 14},
        {"http://a.com/100%", 16}, /* a stray '%' */
        {"http://a.com/%4", 13},
        {"http://a.com/%zz", 13},
        {"http://a.com/%%41", 13},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const char *bad = url_find_invalid(rows[i].in);
        int at = bad ? (int)(bad - rows[i].in) : -1;
        if (at != rows[i].at)
            fail_msg("url_find_invalid(\"%s\") at %d, want %d", rows[i].in, at, rows[i].at);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc3986_normal_examples),
        cmocka_unit_test(test_rfc3986_abnormal_examples),
        cmocka_unit_test(test_resolve_hrefs),
        cmocka_unit_test(test_normalize_table),
        cmocka_unit_test(test_rejections),
        cmocka_unit_test(test_length_caps),
        cmocka_unit_test(test_site_identity),
        cmocka_unit_test(test_same_site),
        cmocka_unit_test(test_find_invalid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
