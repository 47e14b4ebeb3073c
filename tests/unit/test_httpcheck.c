/* Unit tests for server/httpcheck: NUL escapes, the Bearer scheme, Content-Length. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>
#include <string.h>

#include "server/httpcheck.h"

static void test_has_nul(void **state)
{
    (void)state;
    static const struct {
        const char *target;
        int nul;
    } rows[] = {
        {"/api/jobs/1", 0},
        {"/api/jobs/1%00", 1},
        {"/index.html%00.css", 1},
        {"/api/jobs/1/sites?order=confidence%00x", 1},
        {"/api/jobs?%00=1", 1},
        {"/api/jobs?state=done&x=%00", 1},
        {"/a%2500", 0}, /* an escaped '%' followed by "00": the text %00, no NUL */
        {"/a%0", 0},
        {"/a%", 0},
        {"/a%20%30%300", 0},
        {"/%%00", 1},
        {"", 0},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (httpcheck_has_nul(rows[i].target) != rows[i].nul)
            fail_msg("httpcheck_has_nul(\"%s\") != %d", rows[i].target, rows[i].nul);
}

static void test_bearer(void **state)
{
    (void)state;
    static const struct {
        const char *value;
        const char *token; /* NULL: not the Bearer scheme */
    } rows[] = {
        {"Bearer s3cret", "s3cret"},
        {"bearer s3cret", "s3cret"}, /* RFC 7235 §2.1: the scheme is case-insensitive */
        {"BEARER s3cret", "s3cret"},
        {"bEaReR s3cret", "s3cret"},
        {"Bearer   s3cret", "s3cret"},
        {"Bearer ", ""},
        {"Bearer", NULL},
        {"Bearers3cret", NULL},
        {"Basic czNjcmV0", NULL},
        {"Bear s3cret", NULL},
        {"", NULL},
        {" Bearer s3cret", NULL},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const char *t = httpcheck_bearer(rows[i].value);
        if (!rows[i].token ? t != NULL : !t || strcmp(t, rows[i].token) != 0)
            fail_msg("httpcheck_bearer(\"%s\") = %s%s%s, want %s", rows[i].value, t ? "\"" : "",
                     t ? t : "NULL", t ? "\"" : "", rows[i].token ? rows[i].token : "NULL");
    }
}

static void test_content_length(void **state)
{
    (void)state;
    uint64_t n = 7;
    assert_int_equal(httpcheck_content_length("0", &n), 1);
    assert_true(n == 0);
    assert_int_equal(httpcheck_content_length("1048577", &n), 1);
    assert_true(n == 1048577);
    assert_int_equal(httpcheck_content_length("50000000", &n), 1);
    assert_true(n == 50000000);
    assert_int_equal(httpcheck_content_length("18446744073709551615", &n), 1);
    assert_true(n == UINT64_MAX);
    assert_int_equal(httpcheck_content_length("99999999999999999999999", &n), 1);
    assert_true(n == UINT64_MAX); /* too big stays too big */
    n = 7;
    static const char *const bad[] = {"", "-1", "+1", " 1", "1 ", "1e6", "0x10", "12a"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (httpcheck_content_length(bad[i], &n) != 0)
            fail_msg("httpcheck_content_length(\"%s\") accepted", bad[i]);
    assert_true(n == 7);
}

/* Each row: the bytes of a request's beginning and what the checker must say. */
struct head_row {
    const char *bytes;
    size_t len; /* 0: strlen */
    enum httpcheck_head want;
};

static void test_utf8(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int valid;
    } rows[] = {
        {"", 1},
        {"hillfox.org", 1},
        {"caf\xc3\xa9.example", 1},           /* é */
        {"\xe2\x82\xac \xf0\x9f\x98\x80", 1}, /* € and an emoji */
        {"\xff", 0},
        {"caf\xe9", 0},          /* Latin-1 */
        {"\xc3", 0},             /* cut short */
        {"\xc0\xaf", 0},         /* overlong '/' */
        {"\xe0\x80\xaf", 0},     /* overlong '/' */
        {"\xed\xa0\x80", 0},     /* a surrogate */
        {"\xf4\x90\x80\x80", 0}, /* past U+10FFFF */
        {"\x80", 0},             /* a continuation byte alone */
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (httpcheck_utf8(rows[i].text) != rows[i].valid)
            fail_msg("row %zu: httpcheck_utf8 gave %d", i, !rows[i].valid);
}

static void check_rows(const struct head_row *rows, size_t n_rows)
{
    for (size_t i = 0; i < n_rows; i++) {
        size_t n = rows[i].len ? rows[i].len : strlen(rows[i].bytes), head_len = 0;
        const char *why = NULL;
        enum httpcheck_head got = httpcheck_head(rows[i].bytes, n, &head_len, &why);
        if (got != rows[i].want)
            fail_msg("row %zu: httpcheck_head gave %d, want %d (%s)", i, (int)got,
                     (int)rows[i].want, why ? why : "");
        if (got != HTTPCHECK_HEAD_OK && got != HTTPCHECK_HEAD_MORE && (!why || !*why))
            fail_msg("row %zu: a fault without a reason", i);
    }
}

static void test_head_good_and_partial(void **state)
{
    (void)state;
    static const struct head_row rows[] = {
        {"GET / HTTP/1.1\r\nHost: x\r\n\r\n", 0, HTTPCHECK_HEAD_OK},
        {"GET / HTTP/1.0\n\n", 0, HTTPCHECK_HEAD_OK},         /* bare LF ends lines */
        {"\r\nGET / HTTP/1.1\r\n\r\n", 0, HTTPCHECK_HEAD_OK}, /* a leading empty line */
        {"POST /api/jobs HTTP/1.1\r\nHost: x\r\nContent-Length: 12\r\n"
         "content-length: 12\r\nX-Empty:\r\nX-Tab:\tv\xc3\xa9\r\n\r\n{\"topic\": 1}",
         0, HTTPCHECK_HEAD_OK},
        {"GET /?a=%00 HTTP/1.1\r\n\r\n", 0, HTTPCHECK_HEAD_OK}, /* %00: the API's check */
        {"", 0, HTTPCHECK_HEAD_MORE},
        {"\r", 0, HTTPCHECK_HEAD_MORE},
        {"GE", 0, HTTPCHECK_HEAD_MORE},
        {"GET /api", 0, HTTPCHECK_HEAD_MORE},
        {"GET / HTT", 0, HTTPCHECK_HEAD_MORE},
        {"GET / HTTP/1.1\r", 0, HTTPCHECK_HEAD_MORE},
        {"GET / HTTP/1.1\r\nHost: x\r\n", 0, HTTPCHECK_HEAD_MORE},
        {"GET / HTTP/1.1\r\nHo", 0, HTTPCHECK_HEAD_MORE},
        {"GET / HTTP/1.1\r\nHost: x\r\nXXXXXXXX", 0, HTTPCHECK_HEAD_MORE}, /* slowloris */
        {"GET / HTTP/1.1\r\nHost: x\r\n\r", 0, HTTPCHECK_HEAD_MORE},
    };
    check_rows(rows, sizeof rows / sizeof rows[0]);
    size_t head_len = 0;
    const char *why;
    static const char req[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\nGET /next";
    assert_int_equal(httpcheck_head(req, strlen(req), &head_len, &why), HTTPCHECK_HEAD_OK);
    assert_int_equal(head_len, strlen("GET / HTTP/1.1\r\nHost: x\r\n\r\n"));
}

static void test_head_faults(void **state)
{
    (void)state;
    static const struct head_row rows[] = {
        {"\x16\x03\x01\x02\x00\x01", 6, HTTPCHECK_HEAD_BAD}, /* TLS to a plain port: at once */
        {"\x01\x02\xfe\xff\x00\r\n", 7, HTTPCHECK_HEAD_BAD},
        {"GET  / HTTP/1.1\r\n\r\n", 0, HTTPCHECK_HEAD_BAD},
        {"GET / HTTP/1.1 \r\n\r\n", 0, HTTPCHECK_HEAD_BAD},
        {"GET /a b HTTP/1.1\r\n\r\n", 0, HTTPCHECK_HEAD_BAD},
        {"GET / FTP/1.1\r\n\r\n", 0, HTTPCHECK_HEAD_BAD},
        {"GET / HTTP/1.1\rX\r\n", 0, HTTPCHECK_HEAD_BAD},
        {"GET /\xc3\xa9 HTTP/1.1\r\n\r\n", 0, HTTPCHECK_HEAD_BAD},
        {"GET /\x7f HTTP/1.1\r\n\r\n", 0, HTTPCHECK_HEAD_BAD},
        {"GET /index.html\x00.css HTTP/1.1\r\n\r\n", 33, HTTPCHECK_HEAD_NUL},
        {"GET / HTTP/2.0\r\n\r\n", 0, HTTPCHECK_HEAD_VERSION},
        {"GET / HTTP/0.9\r\n\r\n", 0, HTTPCHECK_HEAD_VERSION},
        {"GET / HTTP/1.1\r\nHost x\r\n\r\n", 0, HTTPCHECK_HEAD_BAD},
        {"GET / HTTP/1.1\r\nHost : x\r\n\r\n", 0, HTTPCHECK_HEAD_BAD},
        {"GET / HTTP/1.1\r\n: x\r\n\r\n", 0, HTTPCHECK_HEAD_BAD},
        {"GET / HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n", 0, HTTPCHECK_HEAD_BAD},
        {"GET / HTTP/1.1\r\nHost: x\ry\r\n\r\n", 0, HTTPCHECK_HEAD_BAD},
        {"GET / HTTP/1.1\r\nHost: x\x01y\r\n\r\n", 0, HTTPCHECK_HEAD_BAD},
        {"GET / HTTP/1.1\r\nHost: x\x00y\r\n\r\n", 29, HTTPCHECK_HEAD_BAD},
        {"GET / HTTP/1.1\r\nHost: x\r\n\rX", 0, HTTPCHECK_HEAD_BAD},
        {"POST / HTTP/1.1\r\nContent-Length: 1e6\r\n\r\n", 0, HTTPCHECK_HEAD_BAD},
        {"POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 0, HTTPCHECK_HEAD_BAD},
        {"POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n", 0,
         HTTPCHECK_HEAD_BAD},
        {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\n", 0,
         HTTPCHECK_HEAD_BAD},
        /* Fields that may come once: the first would decide for one reader, the last for
           another. */
        {"GET / HTTP/1.1\r\nHost: x\r\nhost: y\r\n\r\n", 0, HTTPCHECK_HEAD_BAD},
        {"GET / HTTP/1.1\r\nAuthorization: Bearer a\r\nAUTHORIZATION: Bearer b\r\n\r\n", 0,
         HTTPCHECK_HEAD_BAD},
        /* Faults show before the head ends. */
        {"GET / HTTP/1.1\r\nHost x", 0, HTTPCHECK_HEAD_BAD},
        {"G(T", 0, HTTPCHECK_HEAD_BAD},
    };
    check_rows(rows, sizeof rows / sizeof rows[0]);
}

/* A request line of len bytes: "GET /aaa...a HTTP/1.1". */
static char *long_line(size_t len, const char *rest)
{
    size_t fixed = strlen("GET / HTTP/1.1");
    char *s = malloc(len + strlen(rest) + 1);
    assert_non_null(s);
    memcpy(s, "GET /", 5);
    memset(s + 5, 'a', len - fixed);
    memcpy(s + 5 + len - fixed, " HTTP/1.1", 9);
    memcpy(s + len, rest, strlen(rest) + 1);
    return s;
}

static void test_head_limits(void **state)
{
    (void)state;
    size_t head_len;
    const char *why;
    char *s = long_line(HTTPCHECK_MAX_LINE - 100, "\r\n\r\n");
    assert_int_equal(httpcheck_head(s, strlen(s), &head_len, &why), HTTPCHECK_HEAD_OK);
    free(s);
    s = long_line(HTTPCHECK_MAX_LINE + 1, "\r\n\r\n");
    assert_int_equal(httpcheck_head(s, strlen(s), &head_len, &why), HTTPCHECK_HEAD_URI_TOO_LONG);
    /* Known too long before the line ends. */
    assert_int_equal(httpcheck_head(s, HTTPCHECK_MAX_LINE + 3, &head_len, &why),
                     HTTPCHECK_HEAD_URI_TOO_LONG);
    free(s);

    /* Fields: 100 are fine, 101 are too many; a head past the cap is too big. */
    struct buf_like {
        char text[HTTPCHECK_MAX_HEAD * 2];
        size_t len;
    } *b = calloc(1, sizeof *b);
    assert_non_null(b);
    b->len = (size_t)snprintf(b->text, sizeof b->text, "GET / HTTP/1.1\r\n");
    for (int i = 0; i < HTTPCHECK_MAX_FIELDS; i++)
        b->len += (size_t)snprintf(b->text + b->len, sizeof b->text - b->len, "X-%d: v\r\n", i);
    memcpy(b->text + b->len, "\r\n", 3);
    assert_int_equal(httpcheck_head(b->text, b->len + 2, &head_len, &why), HTTPCHECK_HEAD_OK);
    b->len += (size_t)snprintf(b->text + b->len, sizeof b->text - b->len, "X-last: v\r\n\r\n");
    assert_int_equal(httpcheck_head(b->text, b->len, &head_len, &why), HTTPCHECK_HEAD_TOO_BIG);
    b->len = (size_t)snprintf(b->text, sizeof b->text, "GET / HTTP/1.1\r\nX-Big: ");
    memset(b->text + b->len, 'v', HTTPCHECK_MAX_HEAD);
    b->len += HTTPCHECK_MAX_HEAD;
    assert_int_equal(httpcheck_head(b->text, b->len, &head_len, &why), HTTPCHECK_HEAD_TOO_BIG);
    free(b);
}

/*
 * The gate peeks HTTPCHECK_PEEK_ENOUGH + 1 bytes at most and waits for more only on
 * HTTPCHECK_HEAD_MORE: so that many bytes of anything must give an answer, or a client
 * could hold a connection with a full buffer for ever.
 */
static void test_head_enough_is_enough(void **state)
{
    (void)state;
    static const char *const fills[] = {"\r\n", "a", "GET /",
                                        "GET / HTTP/1.1\r\nX: ", "GET / HTTP/1.1\r\nX-Name"};
    size_t n = HTTPCHECK_PEEK_ENOUGH + 1, head_len;
    char *s = malloc(n);
    assert_non_null(s);
    for (size_t f = 0; f < sizeof fills / sizeof fills[0]; f++) {
        size_t len = strlen(fills[f]);
        memcpy(s, fills[f], len);
        char fill = fills[f][len - 1] == '\n' ? '\n' : 'a';
        memset(s + len, fill, n - len);
        for (size_t k = HTTPCHECK_MAX_LINE - 8; k <= n; k += 7) {
            const char *why;
            enum httpcheck_head got = httpcheck_head(s, k, &head_len, &why);
            if (k > HTTPCHECK_PEEK_ENOUGH - 7 && got == HTTPCHECK_HEAD_MORE)
                fail_msg("fill %zu: %zu bytes still wait for more", f, k);
        }
        const char *why;
        if (httpcheck_head(s, n, &head_len, &why) == HTTPCHECK_HEAD_MORE)
            fail_msg("fill %zu: %zu bytes still wait for more", f, n);
    }
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_has_nul),
        cmocka_unit_test(test_bearer),
        cmocka_unit_test(test_content_length),
        cmocka_unit_test(test_utf8),
        cmocka_unit_test(test_head_good_and_partial),
        cmocka_unit_test(test_head_faults),
        cmocka_unit_test(test_head_limits),
        cmocka_unit_test(test_head_enough_is_enough),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
