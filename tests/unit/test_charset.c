/* Unit tests for crawler/charset: choosing the encoding of a page and decoding it to UTF-8. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "crawler/charset.h"

#define FFFD "\xEF\xBF\xBD"

static const struct {
    const char *body;         /* NUL-terminated input */
    const char *content_type; /* the HTTP header, or NULL */
    const char *utf8;         /* the whole body decoded */
    const char *name;
    unsigned source;
} cases[] = {
    /* The header: labels in any case, quoted or not, with spaces around '='. */
    {"caf\xE9", "text/html; charset=ISO-8859-1", "caf\xC3\xA9", "windows-1252", CHARSET_HEADER},
    {"\xE9", "text/html;charset=\"Latin1\"", "\xC3\xA9", "windows-1252", CHARSET_HEADER},
    {"\xE9", "text/html; CHARSET = 'us-ascii' ; q=1", "\xC3\xA9", "windows-1252", CHARSET_HEADER},
    {"\xB1", "text/html; charset=iso-8859-2", "\xC4\x85", "ISO-8859-2", CHARSET_HEADER},
    /* windows-1252 by default: C1 bytes are the WHATWG mapping, undefined ones C1 controls. */
    {"\x93q\x94 \x80 \x81\x8D\x9F\xFF", NULL,
     "\xE2\x80\x9Cq\xE2\x80\x9D \xE2\x82\xAC \xC2\x81\xC2\x8D\xC5\xB8\xC3\xBF", "windows-1252",
     CHARSET_DEFAULT},
    /* The <meta> prescan, and what it must not be fooled by. */
    {"<meta charset=koi8-r>\xC1", NULL, "<meta charset=koi8-r>\xD0\xB0", "KOI8-R", CHARSET_META},
    {"<META HTTP-EQUIV=Content-Type CONTENT='text/html;charset=windows-1251'>\xE0", NULL,
     "<META HTTP-EQUIV=Content-Type CONTENT='text/html;charset=windows-1251'>\xD0\xB0",
     "windows-1251", CHARSET_META},
    {"<meta content=\"text/html; charset=koi8-r\">\xE9", NULL,
     "<meta content=\"text/html; charset=koi8-r\">\xC3\xA9", "windows-1252",
     CHARSET_DEFAULT}, /* no http-equiv: not a pragma */
    {"<!-- <meta charset=koi8-r> -->\xE9", NULL, "<!-- <meta charset=koi8-r> -->\xC3\xA9",
     "windows-1252", CHARSET_DEFAULT},
    {"<!--><meta charset=koi8-r>\xC1", NULL, "<!--><meta charset=koi8-r>\xD0\xB0", "KOI8-R",
     CHARSET_META},
    {"<div title='<meta charset=koi8-r>'>\xE9", NULL, "<div title='<meta charset=koi8-r>'>\xC3\xA9",
     "windows-1252", CHARSET_DEFAULT},
    {"<meta charset=bogus><meta charset=koi8-r>\xC1", NULL,
     "<meta charset=bogus><meta charset=koi8-r>\xD0\xB0", "KOI8-R", CHARSET_META},
    {"<meta charset=utf-16>\xC3\xA9", NULL, "<meta charset=utf-16>\xC3\xA9", "UTF-8", CHARSET_META},
    /* Precedence: BOM, header, meta. */
    {"<meta charset=koi8-r>\xC3\xA9", "text/html; charset=utf-8", "<meta charset=koi8-r>\xC3\xA9",
     "UTF-8", CHARSET_HEADER},
    {"\xEF\xBB\xBF\xC3\xA9", "text/html; charset=koi8-r", "\xC3\xA9", "UTF-8", CHARSET_BOM},
    {"\xE9", "text/html; charset=no-such-thing", "\xC3\xA9", "windows-1252", CHARSET_DEFAULT},
    {"\x82", "text/html; charset=cp850", "\xC3\xA9", "cp850", CHARSET_HEADER},
    /* Invalid UTF-8: every byte that starts no valid sequence is one U+FFFD. */
    {"a\xFF"
     "b\xC0\x80"
     "c\xED\xA0\x80"
     "d\xF4\x90\x80\x80"
     "e\xE2\x82",
     "text/html; charset=utf-8",
     "a" FFFD "b" FFFD FFFD "c" FFFD FFFD FFFD "d" FFFD FFFD FFFD FFFD "e" FFFD FFFD, "UTF-8",
     CHARSET_HEADER},
    {"\xF0\x9F\x98\x80\xE2\x82\xAC\xC3\xA9", "text/html; charset=utf-8",
     "\xF0\x9F\x98\x80\xE2\x82\xAC\xC3\xA9", "UTF-8", CHARSET_HEADER},
    /* iconv: bad and cut-off sequences, and a stateful encoding. */
    {"\x82\xA0\x82", "text/html; charset=sjis", "\xE3\x81\x82" FFFD, "Shift_JIS", CHARSET_HEADER},
    {"\x1B$B$\"\x1B(Bx", "text/html; charset=iso-2022-jp", "\xE3\x81\x82x", "ISO-2022-JP",
     CHARSET_HEADER},
    {"\xA4\xA2\xFFx", "text/html; charset=x-euc-jp", "\xE3\x81\x82" FFFD "x", "EUC-JP",
     CHARSET_HEADER},
};

static void test_decode_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct charset_text t;
        assert_int_equal(
            charset_decode_html(cases[i].body, strlen(cases[i].body), 0, cases[i].content_type, &t),
            ERR_OK);
        if (t.len != strlen(cases[i].utf8) || memcmp(t.data, cases[i].utf8, t.len) ||
            strcmp(t.name, cases[i].name) || t.source != cases[i].source)
            fail_msg("case %zu: [%.*s] %s source %u", i, (int)t.len, t.data, t.name, t.source);
        assert_int_equal(t.cut, 0);
        charset_text_release(&t);
    }
}

/* UTF-8 and ASCII bodies are not copied; a BOM is skipped. */
static void test_borrowed(void **state)
{
    (void)state;
    const char *utf8 = "\xEF\xBB\xBF<p>\xC3\xA9</p>", *ascii = "<p>plain</p>";
    struct charset_text t;
    assert_int_equal(charset_decode_html(utf8, strlen(utf8), 0, NULL, &t), ERR_OK);
    assert_null(t.owned);
    assert_ptr_equal(t.data, utf8 + 3);
    assert_int_equal(t.len, strlen(utf8) - 3);
    charset_text_release(&t);
    assert_int_equal(charset_decode_html(ascii, strlen(ascii), 0, "text/html; charset=koi8-r", &t),
                     ERR_OK);
    assert_ptr_equal(t.data, ascii);
    assert_string_equal(t.name, "KOI8-R");
    charset_text_release(&t);
}

static void test_cut(void **state)
{
    (void)state;
    const char *s = "ab\xC3\xA9\xE2\x82\xAC";
    struct charset_text t;
    /* Cut inside a character: it is left out, not replaced. */
    assert_int_equal(charset_decode_html(s, strlen(s), 3, "text/html; charset=utf-8", &t), ERR_OK);
    assert_int_equal(t.cut, 1);
    assert_int_equal(t.len, 2);
    assert_memory_equal(t.data, "ab", 2);
    charset_text_release(&t);
    assert_int_equal(charset_decode_html(s, strlen(s), 6, "text/html; charset=utf-8", &t), ERR_OK);
    assert_int_equal(t.len, 4);
    charset_text_release(&t);
    /* A limit the body fits in cuts nothing. */
    assert_int_equal(charset_decode_html(s, strlen(s), 7, "text/html; charset=utf-8", &t), ERR_OK);
    assert_int_equal(t.cut, 0);
    assert_int_equal(t.len, 7);
    charset_text_release(&t);
    /* The <meta> is looked for in what is decoded only. */
    const char *m = "<p>\xC1</p><meta charset=koi8-r>";
    assert_int_equal(charset_decode_html(m, strlen(m), 8, NULL, &t), ERR_OK);
    assert_string_equal(t.name, "windows-1252");
    charset_text_release(&t);
}

/* A <meta> after the first 1024 bytes does not count, as in browsers. */
static void test_prescan_window(void **state)
{
    (void)state;
    char body[2048];
    memset(body, ' ', sizeof body);
    memcpy(body + 1030, "<meta charset=koi8-r>", 21);
    struct charset_text t;
    assert_int_equal(charset_decode_html(body, sizeof body, 0, NULL, &t), ERR_OK);
    assert_string_equal(t.name, "windows-1252");
    charset_text_release(&t);
    memset(body + 1030, ' ', 21);
    memcpy(body + 1000, "<meta charset=koi8-r>", 21);
    assert_int_equal(charset_decode_html(body, sizeof body, 0, NULL, &t), ERR_OK);
    assert_string_equal(t.name, "KOI8-R");
    charset_text_release(&t);
}

static void test_utf8_helpers(void **state)
{
    (void)state;
    const unsigned char ok[] = "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80";
    assert_int_equal(charset_utf8_seq(ok, 9), 2);
    assert_int_equal(charset_utf8_seq(ok + 2, 7), 3);
    assert_int_equal(charset_utf8_seq(ok + 5, 4), 4);
    assert_int_equal(charset_utf8_seq(ok + 5, 3), 0);                                /* cut off */
    assert_int_equal(charset_utf8_seq((const unsigned char *)"\xE0\x80\x80", 3), 0); /* overlong */
    assert_int_equal(charset_utf8_invalid("a\xFF\xC3\xA9\x80", 5), 2);

    struct buf b;
    buf_init(&b, 0);
    assert_int_equal(charset_append_utf8(&b, "x\xDDy\xC3", 4), ERR_OK);
    assert_string_equal(buf_str(&b), "x" FFFD "y" FFFD);
    buf_release(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decode_table), cmocka_unit_test(test_borrowed),
        cmocka_unit_test(test_cut),          cmocka_unit_test(test_prescan_window),
        cmocka_unit_test(test_utf8_helpers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
