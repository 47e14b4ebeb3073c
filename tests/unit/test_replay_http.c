/* Unit tests for replay/httpmsg (request parsing, re-framing) and replay/synth (fault hosts). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "replay/httpmsg.h"
#include "replay/synth.h"

static void test_head_end(void **state)
{
    (void)state;
    assert_int_equal(httpmsg_head_end("GET / HTTP/1.1\r\nHost: a\r\n\r\nrest", 31), 27);
    assert_int_equal(httpmsg_head_end("GET / HTTP/1.1\nHost: a\n\nrest", 28), 24);
    assert_int_equal(httpmsg_head_end("GET / HTTP/1.1\r\nHost: a\r\n", 25), 0);
    assert_int_equal(httpmsg_head_end("", 0), 0);
}

static enum err parse(const char *s, struct httpmsg_request *req)
{
    size_t hl = httpmsg_head_end(s, strlen(s));
    assert_int_not_equal(hl, 0);
    return httpmsg_parse_request(s, hl, req);
}

static void test_parse_request(void **state)
{
    (void)state;
    struct httpmsg_request r;
    assert_int_equal(parse("GET http://a.b/p?q HTTP/1.1\r\nHost: a.b\r\nAccept: */*\r\n\r\n", &r),
                     ERR_OK);
    assert_int_equal(r.method_len, 3);
    assert_memory_equal(r.target, "http://a.b/p?q", r.target_len);
    assert_int_equal(r.minor, 1);
    assert_int_equal(r.host_len, 3);
    assert_true(r.keep_alive);
    assert_int_equal(r.content_length, 0);

    assert_int_equal(parse("HEAD / HTTP/1.1\r\nhost:  x.y:8080 \r\nConnection: Close\r\n\r\n", &r),
                     ERR_OK);
    assert_memory_equal(r.host, "x.y:8080", r.host_len);
    assert_false(r.keep_alive);

    assert_int_equal(parse("GET / HTTP/1.0\r\nHost: a\r\n\r\n", &r), ERR_OK);
    assert_false(r.keep_alive);
    assert_int_equal(parse("GET / HTTP/1.0\r\nProxy-Connection: Keep-Alive\r\n\r\n", &r), ERR_OK);
    assert_true(r.keep_alive);
    assert_int_equal(parse("GET / HTTP/1.1\r\nConnection: TE, close\r\n\r\n", &r), ERR_OK);
    assert_false(r.keep_alive);

    assert_int_equal(
        parse("POST / HTTP/1.1\nContent-Length: 12\nTransfer-Encoding: chunked\n\n", &r), ERR_OK);
    assert_int_equal(r.content_length, 12);
    assert_true(r.chunked);

    static const char *const bad[] = {
        "GET / HTTP/2.0\r\n\r\n",
        "GET /\r\n\r\n",
        "GET  / HTTP/1.1\r\n\r\n",
        "G(T / HTTP/1.1\r\n\r\n",
        "GET / HTTP/1.1\r\nHost a\r\n\r\n",
        "GET / HTTP/1.1\r\nHost : a\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\n folded\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
        "GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
        "GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
        "GET /a\x01 HTTP/1.1\r\n\r\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(parse(bad[i], &r), ERR_PARSE);

    struct buf many;
    buf_init(&many, 0);
    assert_int_equal(buf_append_str(&many, "GET / HTTP/1.1\r\n"), ERR_OK);
    for (int i = 0; i <= HTTPMSG_HEADERS_MAX; i++)
        assert_int_equal(buf_appendf(&many, "X-%d: y\r\n", i), ERR_OK);
    assert_int_equal(buf_append_str(&many, "\r\n"), ERR_OK);
    assert_int_equal(parse(many.data, &r), ERR_PARSE);
    buf_release(&many);
}

static void test_parse_response(void **state)
{
    (void)state;
    struct httpmsg_response h;
    const char *ok = "HTTP/1.1 301 Moved\r\nLocation: /x\r\nContent-Length: 5\r\n\r\nhello";
    assert_int_equal(httpmsg_parse_response(ok, strlen(ok), &h), ERR_OK);
    assert_int_equal(h.status, 301);
    assert_int_equal(h.head_len, strlen(ok) - 5);
    assert_true(h.has_length);
    assert_int_equal(h.content_length, 5);
    assert_false(h.chunked);

    const char *ch = "HTTP/1.0 200\nTransfer-Encoding: gzip, chunked\nContent-Length: x\n\n";
    assert_int_equal(httpmsg_parse_response(ch, strlen(ch), &h), ERR_OK);
    assert_int_equal(h.status, 200);
    assert_true(h.chunked);
    assert_false(h.has_length);

    static const char *const bad[] = {
        "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n", /* head never ends */
        "HTTP/1.1 20 OK\r\n\r\n",
        "HTTP/1.1 2000 OK\r\n\r\n",
        "HTTX/1.1 200 OK\r\n\r\n",
        "HTTP/ 200 OK\r\n\r\n",
        "<html>\r\n\r\n",
        "HTTP/1.1 099 Low\r\n\r\n",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(httpmsg_parse_response(bad[i], strlen(bad[i]), &h), ERR_PARSE);
}

/* Re-frame head (whose body has body_len bytes) and compare with want. */
static void reframe_is(const char *head, uint64_t body_len, int keep, const char *want)
{
    struct httpmsg_response h;
    char out[1024];
    size_t n;
    assert_int_equal(httpmsg_parse_response(head, strlen(head), &h), ERR_OK);
    assert_int_equal(httpmsg_reframe(head, &h, body_len, keep, out, sizeof out, &n), ERR_OK);
    out[n] = '\0';
    assert_string_equal(out, want);
}

static void test_reframe(void **state)
{
    (void)state;
    /* Right as recorded: only the hop-by-hop lines change. */
    reframe_is("HTTP/1.1 200 OK\r\nDate: x\r\nContent-Type: text/html\r\nContent-Length: 4\r\n"
               "Connection: close\r\nKeep-Alive: timeout=5\r\n\r\n",
               4, 1,
               "HTTP/1.1 200 OK\r\nDate: x\r\nContent-Type: text/html\r\nContent-Length: 4\r\n"
               "Connection: keep-alive\r\n\r\n");
    /* Missing length: added; wrong length: replaced in place. */
    reframe_is("HTTP/1.0 200 OK\r\nServer: s\r\n\r\n", 7, 0,
               "HTTP/1.0 200 OK\r\nServer: s\r\nContent-Length: 7\r\nConnection: close\r\n\r\n");
    reframe_is("HTTP/1.1 200 OK\r\ncontent-length: 99\r\nX: y\r\n\r\n", 3, 1,
               "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nX: y\r\nConnection: keep-alive\r\n\r\n");
    /* Chunked: the recorded chunks go out as they are, with no length. */
    reframe_is("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n", 20, 0,
               "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n");
    /* No body by definition: the recorded length stays. */
    reframe_is(
        "HTTP/1.1 304 Not Modified\r\nContent-Length: 1234\r\n\r\n", 0, 1,
        "HTTP/1.1 304 Not Modified\r\nContent-Length: 1234\r\nConnection: keep-alive\r\n\r\n");
    /* LF line ends and folded lines of a dropped header; junk lines stay verbatim. */
    reframe_is("HTTP/1.1 200 OK\nConnection: close,\n  Upgrade\nno colon line\nA: b\n\n", 0, 1,
               "HTTP/1.1 200 OK\nno colon line\nA: b\nContent-Length: 0\r\n"
               "Connection: keep-alive\r\n\n");

    struct httpmsg_response h;
    const char *head = "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n";
    assert_int_equal(httpmsg_parse_response(head, strlen(head), &h), ERR_OK);
    char small[40];
    size_t n;
    assert_int_equal(httpmsg_reframe(head, &h, 1, 1, small, sizeof small, &n), ERR_TOOBIG);
    assert_true(httpmsg_bodyless(204) && httpmsg_bodyless(101) && !httpmsg_bodyless(200));
}

static void test_trap(void **state)
{
    (void)state;
    struct buf b;
    buf_init(&b, 64 * 1024);
    assert_int_equal(synth_trap_page("/", 1, &b), ERR_OK);
    assert_non_null(strstr(b.data, "Tuesday, 1 June 2004"));
    assert_non_null(strstr(b.data, "href=\"/calendar/2004-06-02.html\""));
    assert_non_null(strstr(b.data, "href=\"/calendar/2004-05-31.html\""));
    assert_non_null(strstr(b.data, "href=\"/calendar/2004-07-01.html\""));
    assert_non_null(strstr(b.data, "href=\"/calendar/2005-06-01.html\""));
    assert_non_null(strstr(b.data, "href=\"/calendar/2004-06-01/event-3.html\""));

    buf_reset(&b);
    const char *p = "/calendar/2004-01-31.html";
    assert_int_equal(synth_trap_page(p, strlen(p), &b), ERR_OK);
    assert_non_null(strstr(b.data, "Saturday, 31 January 2004"));
    assert_non_null(strstr(b.data, "href=\"/calendar/2004-02-29.html\"")); /* clamped, leap year */

    buf_reset(&b);
    p = "/calendar/2004-06-01/event-7.html";
    assert_int_equal(synth_trap_page(p, strlen(p), &b), ERR_OK);
    assert_non_null(strstr(b.data, "<h1>Event 7</h1>"));
    assert_non_null(strstr(b.data, "href=\"/calendar/2004-06-02/event-8.html\""));

    /* Bad dates show the first day; the edges of time have no links beyond them. */
    static const char *const odd[] = {"/calendar/2003-02-29.html", "/calendar/2004-13-01.html",
                                      "/calendar/2004-06-01.htmlx", "/x?y"};
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
        buf_reset(&b);
        assert_int_equal(synth_trap_page(odd[i], strlen(odd[i]), &b), ERR_OK);
        assert_non_null(strstr(b.data, "Events calendar: 2004-06-01"));
    }
    buf_reset(&b);
    p = "/calendar/0001-01-01.html";
    assert_int_equal(synth_trap_page(p, strlen(p), &b), ERR_OK);
    assert_null(strstr(b.data, "Previous day"));
    buf_reset(&b);
    p = "/calendar/9999999-12-31.html";
    assert_int_equal(synth_trap_page(p, strlen(p), &b), ERR_OK);
    assert_null(strstr(b.data, "Next day"));
    assert_non_null(strstr(b.data, "Previous day"));
    buf_release(&b);
}

static void test_huge_and_junk(void **state)
{
    (void)state;
    /* Any split of the huge body gives the same bytes. */
    char whole[5000], parts[5000];
    synth_huge_fill(0, whole, sizeof whole);
    for (size_t off = 0; off < sizeof parts;) {
        size_t n = 1 + off % 97;
        if (n > sizeof parts - off)
            n = sizeof parts - off;
        synth_huge_fill(off, parts + off, n);
        off += n;
    }
    assert_memory_equal(whole, parts, sizeof whole);
    assert_memory_equal(whole, "<!DOCTYPE html>", 15);

    for (uint64_t seed = 0; seed < 100; seed++) {
        uint64_t len = synth_junk_length(seed);
        assert_true(len >= SYNTH_JUNK_MIN && len < SYNTH_JUNK_MAX);
    }
    char a[1000], b[1000];
    synth_junk_fill(42, 0, a, sizeof a);
    synth_junk_fill(42, 0, b, 500);
    synth_junk_fill(42, 500, b + 500, 500);
    assert_memory_equal(a, b, sizeof a);
    int nul = 0, high = 0;
    for (size_t i = 0; i < sizeof a; i++) {
        nul += a[i] == 0;
        high += (unsigned char)a[i] >= 0x80;
    }
    assert_true(nul > 0 && high > 300); /* binary, not text */
    synth_junk_fill(43, 0, b, sizeof b);
    assert_memory_not_equal(a, b, sizeof a);
    assert_int_not_equal(synth_hash64("a", 1), synth_hash64("b", 1));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_head_end),       cmocka_unit_test(test_parse_request),
        cmocka_unit_test(test_parse_response), cmocka_unit_test(test_reframe),
        cmocka_unit_test(test_trap),           cmocka_unit_test(test_huge_and_junk),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
