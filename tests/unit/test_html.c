/* Unit tests for crawler/html: text, links, robots hints, charsets, broken input, real pages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "crawler/html.h"

#include "common/monotime.h"

/* Extract a NUL-terminated document; the test fails unless that works. */
static struct html_page *extract(const char *html, const char *content_type,
                                 const struct html_options *opt)
{
    struct html_page *p = NULL;
    enum err e = html_extract(html, strlen(html), content_type, opt, &p);
    if (e)
        fail_msg("html_extract: %s: %s", err_str(e), err_msg());
    assert_non_null(p);
    return p;
}

static const struct html_link *find_link(const struct html_page *p, const char *href)
{
    for (size_t i = 0; i < p->n_links; i++)
        if (strcmp(p->links[i].href, href) == 0)
            return &p->links[i];
    return NULL;
}

/* ---- title and visible text ---------------------------------------------------------- */

static const struct {
    const char *html, *title, *text;
} text_cases[] = {
    {"<title> Hello \n  World </title><p>One</p><p>Two</p>", "Hello World", "One\nTwo"},
    {"<p>  a \t\n b&nbsp;&nbsp;c  </p>", "", "a b c"},
    {"<p>in<b>line</b>d <i>words</i></p>", "", "inlined words"},
    {"<table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table>", "", "a b\nc"},
    {"first<br>second<hr>third", "", "first\nsecond\nthird"},
    {"<ul><li>x<li>y</ul><div><div>deep</div></div>", "", "x\ny\ndeep"},
    {"<p>&amp; &lt;b&gt; caf&eacute; &#x201C;q&#8221;</p>", "",
     "& <b> caf\xC3\xA9 \xE2\x80\x9Cq\xE2\x80\x9D"},
    {"<head><title>T</title><script>var a = '<p>no</p>';</script>"
     "<style>p { color: red }</style></head><body><p>yes</p>"
     "<noscript>enable js</noscript><template><p>tpl</p></template>"
     "<script type=text/template>x</script><!-- comment --><p>also</p></body>",
     "T", "yes\nalso"},
    {"<title>first</title><title>second</title><p>body</p>", "first", "body"},
    {"<svg><title>tooltip</title><text>drawn</text></svg>", "", "drawn"},
    {"<frameset><noframes><p>no frames</p></noframes></frameset>", "", ""},
    {"<p>a<iframe src=x>fallback text</iframe>b</p>", "", "ab"},
    {"", "", ""},
    {"   \n\t ", "", ""},
    /* gumbo turns an overflowing reference into a stray byte; it must come back valid. */
    {"<title>&#xdddddddddd;</title><p>a&#xdddddddddd;b</p>", "\xEF\xBF\xBD",
     "a\xEF\xBF\xBD"
     "b"},
};

static void test_title_and_text(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof text_cases / sizeof text_cases[0]; i++) {
        struct html_page *p = extract(text_cases[i].html, "text/html; charset=utf-8", NULL);
        if (strcmp(p->title, text_cases[i].title) || strcmp(p->text, text_cases[i].text))
            fail_msg("case %zu: title [%s] text [%s]", i, p->title, p->text);
        assert_int_equal(p->text_len, strlen(p->text));
        assert_int_equal(p->truncated, 0);
        html_page_free(p);
    }
}

/* ---- links ------------------------------------------------------------------------- */

static const struct {
    const char *html;
    unsigned kind;
    const char *href, *anchor; /* href NULL: no link at all */
} link_cases[] = {
    {"<a href=\" /x \n\">Go <b>there</b>\n now</a>", HTML_LINK_A, "/x", "Go there now"},
    {"<a href='/e?a=1&amp;b=2'>e</a>", HTML_LINK_A, "/e?a=1&b=2", "e"},
    {"<a href=/i><img src=i.gif alt=\"Team Info\"></a>", HTML_LINK_A, "/i", "Team Info"},
    {"<a href=/i>Home<img alt=House>page</a>", HTML_LINK_A, "/i", "Home House page"},
    {"<a href=/i><img src=i.gif></a>", HTML_LINK_A, "/i", ""},
    {"<map><area shape=rect href=/ar alt=\" Area  A \"></map>", HTML_LINK_AREA, "/ar", "Area A"},
    {"<frameset><frame src=/nav.html></frameset>", HTML_LINK_FRAME, "/nav.html", ""},
    {"<p><iframe src=\"inner.html\">x</iframe></p>", HTML_LINK_IFRAME, "inner.html", ""},
    {"<meta http-equiv=refresh content=\"0; url=/r\">", HTML_LINK_META_REFRESH, "/r", ""},
    {"<meta http-equiv=\"Refresh\" content=\"5;URL='/r q'\">", HTML_LINK_META_REFRESH, "/r q", ""},
    {"<meta http-equiv=REFRESH content='3 ; Url = \"/r\" '>", HTML_LINK_META_REFRESH, "/r", ""},
    {"<meta http-equiv=refresh content=\"0,/r\">", HTML_LINK_META_REFRESH, "/r", ""},
    {"<meta http-equiv=refresh content=\"url=/r\">", HTML_LINK_META_REFRESH, "/r", ""},
    {"<meta http-equiv=refresh content=\"1.5; URL=http://h/a b \">", HTML_LINK_META_REFRESH,
     "http://h/a b", ""},
    {"<meta http-equiv=refresh content=\"10\">", 0, NULL, NULL},
    {"<meta http-equiv=refresh content=\"0; url=\">", 0, NULL, NULL},
    {"<a name=top>no href</a>", 0, NULL, NULL},
    {"<a href=\"\">empty</a><a href=\"  \">blank</a>", 0, NULL, NULL},
    {"<link rel=stylesheet href=/s.css><img src=/i.gif>", 0, NULL, NULL},
    {"<a href=\"/&#xdddddddddd;\"><img alt=\"&#xdddddddddd;\"></a>", HTML_LINK_A, "/\xEF\xBF\xBD",
     "\xEF\xBF\xBD"},
};

static void test_links(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof link_cases / sizeof link_cases[0]; i++) {
        struct html_page *p = extract(link_cases[i].html, NULL, NULL);
        if (!link_cases[i].href) {
            if (p->n_links)
                fail_msg("case %zu: unexpected link [%s]", i, p->links[0].href);
        } else {
            if (p->n_links != 1)
                fail_msg("case %zu: %zu links", i, p->n_links);
            if (strcmp(p->links[0].href, link_cases[i].href) ||
                strcmp(p->links[0].anchor, link_cases[i].anchor) ||
                p->links[0].kind != link_cases[i].kind)
                fail_msg("case %zu: %s [%s] [%s]", i, html_link_kind_str(p->links[0].kind),
                         p->links[0].href, p->links[0].anchor);
            assert_int_equal(p->links[0].nofollow, 0);
        }
        html_page_free(p);
    }
}

static void test_links_in_document_order(void **state)
{
    (void)state;
    struct html_page *p = extract("<meta http-equiv=refresh content='0;url=/m'>"
                                  "<a href=/1>one</a><frameset><frame src=/f></frameset>"
                                  "<a href=/2>two</a><a href=/1>one again</a>",
                                  NULL, NULL);
    /* A frameset after body content is ignored by the HTML parser, as browsers do. */
    assert_int_equal(p->n_links, 4);
    assert_string_equal(p->links[0].href, "/m");
    assert_string_equal(p->links[1].href, "/1");
    assert_string_equal(p->links[2].href, "/2");
    assert_string_equal(p->links[3].href, "/1");
    assert_string_equal(p->links[3].anchor, "one again");
    assert_string_equal(html_link_kind_str(p->links[0].kind), "meta_refresh");
    html_page_free(p);
}

static void test_base_href(void **state)
{
    (void)state;
    struct html_page *p = extract("<head><base href=\"  http://h/dir/ \"><base href=/other/>"
                                  "</head><a href=x>x</a>",
                                  NULL, NULL);
    assert_string_equal(p->base_href, "http://h/dir/");
    assert_string_equal(p->links[0].href, "x"); /* not resolved: that is url.c's job */
    html_page_free(p);
    p = extract("<base href=\"/&#xdddddddddd;\">", NULL, NULL);
    assert_string_equal(p->base_href, "/\xEF\xBF\xBD");
    html_page_free(p);
    p = extract("<base target=_top><p>no href</p>", NULL, NULL);
    assert_null(p->base_href);
    html_page_free(p);
}

/* ---- nofollow and noindex ----------------------------------------------------------- */

static void test_rel_nofollow(void **state)
{
    (void)state;
    const char *html = "<a href=/a>a</a><a href=/b rel=\"external NoFollow\">b</a>"
                       "<map><area href=/c rel=nofollow></map><a href=/d rel=nofollower>d</a>";
    struct html_page *p = extract(html, NULL, NULL);
    assert_int_equal(p->n_links, 2);
    assert_non_null(find_link(p, "/a"));
    assert_non_null(find_link(p, "/d"));
    assert_int_equal(p->n_nofollow_dropped, 2);
    html_page_free(p);

    struct html_options opt = {.keep_nofollow = 1};
    p = extract(html, NULL, &opt);
    assert_int_equal(p->n_links, 4);
    assert_int_equal(find_link(p, "/a")->nofollow, 0);
    assert_int_equal(find_link(p, "/b")->nofollow, 1);
    assert_int_equal(find_link(p, "/c")->nofollow, 1);
    assert_int_equal(find_link(p, "/d")->nofollow, 0);
    assert_int_equal(p->n_nofollow_dropped, 0);
    html_page_free(p);
}

static const struct {
    const char *meta;
    int noindex, nofollow;
} robots_cases[] = {
    {"<meta name=robots content=noindex>", 1, 0},
    {"<meta name=\"ROBOTS\" content=\"NOINDEX, NOFOLLOW\">", 1, 1},
    {"<meta name=robots content=\"index,nofollow\">", 0, 1},
    {"<meta name=robots content=none>", 1, 1},
    {"<meta name=robots content=\"index, follow\">", 0, 0},
    {"<meta name=description content=\"noindex nofollow\">", 0, 0},
    {"<meta name=robots>", 0, 0},
};

static void test_meta_robots(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof robots_cases / sizeof robots_cases[0]; i++) {
        char html[256];
        snprintf(html, sizeof html, "<head>%s</head><p>text</p><a href=/x>x</a>",
                 robots_cases[i].meta);
        struct html_page *p = extract(html, NULL, NULL);
        if (p->meta_noindex != robots_cases[i].noindex ||
            p->meta_nofollow != robots_cases[i].nofollow)
            fail_msg("case %zu: noindex %d nofollow %d", i, p->meta_noindex, p->meta_nofollow);
        /* Honoured by default: a nofollow page yields no links; its text is still there. */
        assert_int_equal(p->n_links, robots_cases[i].nofollow ? 0 : 1);
        assert_int_equal(p->n_nofollow_dropped, robots_cases[i].nofollow ? 1 : 0);
        assert_string_equal(p->text, "text\nx");
        html_page_free(p);
    }
    /* The caller may keep them; a meta late in the body still counts. */
    struct html_options opt = {.keep_nofollow = 1};
    struct html_page *p =
        extract("<a href=/x>x</a><meta name=robots content=nofollow>", NULL, &opt);
    assert_int_equal(p->meta_nofollow, 1);
    assert_int_equal(p->n_links, 1);
    html_page_free(p);
    p = extract("<a href=/x>x</a><meta name=robots content=nofollow>", NULL, NULL);
    assert_int_equal(p->n_links, 0);
    html_page_free(p);
}

/* ---- charsets ------------------------------------------------------------------------ */

static const struct {
    const char *body;
    const char *content_type;
    const char *text;    /* expected UTF-8 text */
    const char *charset; /* expected encoding */
    unsigned source;
} charset_cases[] = {
    /* ISO-8859-1 bytes, declared in the header: decoded as windows-1252 (WHATWG). */
    {"<p>caf\xE9 na\xEFve</p>", "text/html; charset=ISO-8859-1", "caf\xC3\xA9 na\xC3\xAFve",
     "windows-1252", CHARSET_HEADER},
    {"<p>caf\xE9</p>", "text/html;charset=\"Latin1\"", "caf\xC3\xA9", "windows-1252",
     CHARSET_HEADER},
    {"<p>caf\xE9</p>", "text/html; CHARSET = 'us-ascii'", "caf\xC3\xA9", "windows-1252",
     CHARSET_HEADER},
    /* <meta charset>, and http-equiv: ISO-8859-2 0xB1 is U+0105, KOI8-R 0xC1 is U+0430. */
    {"<html><head><meta charset=\"iso-8859-2\"></head><p>\xB1</p>", "text/html", "\xC4\x85",
     "ISO-8859-2", CHARSET_META},
    {"<!-- <meta charset=utf-8> --><meta http-equiv=\"Content-Type\" "
     "content=\"text/html; charset=koi8-r\"><p>\xC1</p>",
     NULL, "\xD0\xB0", "KOI8-R", CHARSET_META},
    {"<meta content='text/html; charset=iso-8859-15' http-equiv=content-type><p>\xA4</p>", NULL,
     "\xE2\x82\xAC", "ISO-8859-15", CHARSET_META},
    /* No charset at all: windows-1252, so 0x93/0x94 are curly quotes. 0x81 decodes to the
       C1 control U+0081, which the HTML tokenizer then replaces with U+FFFD. */
    {"<p>\x93quoted\x94 \x80 \x81</p>", "text/html",
     "\xE2\x80\x9Cquoted\xE2\x80\x9D \xE2\x82\xAC \xEF\xBF\xBD", "windows-1252", CHARSET_DEFAULT},
    /* The header beats <meta>; a BOM beats both. */
    {"<meta charset=iso-8859-2><p>\xC3\xA9</p>", "text/html; charset=utf-8", "\xC3\xA9", "UTF-8",
     CHARSET_HEADER},
    {"\xEF\xBB\xBF<p>caf\xC3\xA9</p>", "text/html; charset=iso-8859-1", "caf\xC3\xA9", "UTF-8",
     CHARSET_BOM},
    /* Invalid UTF-8 is repaired byte by byte with U+FFFD. */
    {"<p>a\xFF"
     "b\xC3(c\xED\xA0\x80"
     "d\xF0\x9F\x98\x80</p>",
     "text/html; charset=utf-8",
     "a\xEF\xBF\xBD"
     "b\xEF\xBF\xBD(c\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"
     "d\xF0\x9F\x98\x80",
     "UTF-8", CHARSET_HEADER},
    /* Labels iconv does not know fall through to the next source. */
    {"<p>\xE9</p>", "text/html; charset=x-no-such-charset", "\xC3\xA9", "windows-1252",
     CHARSET_DEFAULT},
    {"<meta charset=bogus><p>\xE9</p>", "text/html; charset=\"\"", "\xC3\xA9", "windows-1252",
     CHARSET_DEFAULT},
    {"<meta charset=\"utf-8\x01\"><p>\xE9</p>", NULL, "\xC3\xA9", "windows-1252", CHARSET_DEFAULT},
    /* Multi-byte encodings through iconv; a bad or cut-off sequence becomes U+FFFD. */
    {"<p>\x82\xA0 \x93\xFA\x96\x7B</p>", "text/html; charset=Shift_JIS",
     "\xE3\x81\x82 \xE6\x97\xA5\xE6\x9C\xAC", "Shift_JIS", CHARSET_HEADER},
    {"<p>\xA4\xA2\xFF"
     "x\xA4</p>",
     "text/html; charset=euc-jp",
     "\xE3\x81\x82\xEF\xBF\xBD"
     "x\xEF\xBF\xBD",
     "EUC-JP", CHARSET_HEADER},
    /* A label only iconv knows. */
    {"<p>\x82</p>", "text/html; charset=cp850", "\xC3\xA9", "cp850", CHARSET_HEADER},
    /* <meta> cannot declare UTF-16 (the page was read as ASCII to find it). */
    {"<meta charset=utf-16><p>\xC3\xA9</p>", NULL, "\xC3\xA9", "UTF-8", CHARSET_META},
};

static void test_charsets(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof charset_cases / sizeof charset_cases[0]; i++) {
        struct html_page *p = extract(charset_cases[i].body, charset_cases[i].content_type, NULL);
        if (strcmp(p->text, charset_cases[i].text) ||
            strcmp(p->charset, charset_cases[i].charset) ||
            p->charset_source != charset_cases[i].source)
            fail_msg("case %zu: text [%s] charset %s source %u", i, p->text, p->charset,
                     p->charset_source);
        html_page_free(p);
    }
}

static void test_utf16(void **state)
{
    (void)state;
    static const char le[] = "\xFF\xFE<\0p\0>\0h\0\xE9\0";
    static const char be[] = "\0<\0p\0>\0h\0\xE9";
    struct html_page *p = NULL;
    assert_int_equal(html_extract(le, sizeof le - 1, NULL, NULL, &p), ERR_OK);
    assert_string_equal(p->text, "h\xC3\xA9");
    assert_string_equal(p->charset, "UTF-16LE");
    assert_int_equal(p->charset_source, CHARSET_BOM);
    html_page_free(p);
    assert_int_equal(html_extract(be, sizeof be - 1, "text/html; charset=utf-16be", NULL, &p),
                     ERR_OK);
    assert_string_equal(p->text, "h\xC3\xA9");
    html_page_free(p);
}

/* ---- caps ------------------------------------------------------------------------------ */

static void test_caps(void **state)
{
    (void)state;
    struct html_options opt = {.max_links = 3, .max_text = 10, .max_anchor = 6};
    struct html_page *p = extract("<p>\xC3\xA9\xC3\xA9\xC3\xA9 \xC3\xA9\xC3\xA9\xC3\xA9</p>"
                                  "<a href=/1>anchor text</a><a href=/2>b</a><a href=/3>c</a>"
                                  "<a href=/4>d</a>",
                                  "text/html; charset=utf-8", &opt);
    /* 6 + 1 + 3 bytes fit, and a two-byte character is never cut in half. */
    assert_string_equal(p->text, "\xC3\xA9\xC3\xA9\xC3\xA9 \xC3\xA9");
    assert_int_equal(p->n_links, 3);
    assert_string_equal(p->links[0].anchor, "anchor");
    assert_int_equal(p->truncated, HTML_TRUNC_TEXT | HTML_TRUNC_LINKS);
    html_page_free(p);

    opt = (struct html_options){.max_input = 16};
    p = extract("<p>0123456789</p><a href=/x>x</a>", NULL, &opt);
    assert_string_equal(p->text, "0123456789");
    assert_int_equal(p->n_links, 0);
    assert_int_equal(p->truncated, HTML_TRUNC_INPUT);
    html_page_free(p);

    /* Cut inside a UTF-8 character: the partial character is left out, not replaced. */
    opt = (struct html_options){.max_input = 5};
    p = extract("<p>a\xC3\xA9</p>", "text/html; charset=utf-8", &opt);
    assert_string_equal(p->text, "a");
    html_page_free(p);

    opt = (struct html_options){.max_nodes = 5};
    p = extract("<p>one</p><p>two</p><p>three</p><p>four</p>", NULL, &opt);
    assert_true(p->truncated & HTML_TRUNC_NODES);
    assert_non_null(strstr(p->text, "one"));
    assert_null(strstr(p->text, "four"));
    html_page_free(p);

    /* An href longer than HTML_HREF_MAX is dropped, not cut. */
    size_t n = HTML_HREF_MAX + 64;
    char *html = malloc(n + 32);
    assert_non_null(html);
    memcpy(html, "<a href=/", 10);
    memset(html + 9, 'x', n);
    memcpy(html + 9 + n, ">long</a>", 10);
    p = extract(html, NULL, NULL);
    assert_int_equal(p->n_links, 0);
    html_page_free(p);
    free(html);
}

/* ---- broken input ---------------------------------------------------------------------- */

static void test_unclosed_tags(void **state)
{
    (void)state;
    struct html_page *p = extract("<html><body><div><p>one<p>two<ul><li>a<li>b<table><tr><td>c "
                                  "<a href=/u>unclosed <b>bold",
                                  NULL, NULL);
    assert_string_equal(p->text, "one\ntwo\na\nb\nc unclosed bold");
    assert_int_equal(p->n_links, 1);
    assert_string_equal(p->links[0].anchor, "unclosed bold");
    html_page_free(p);

    p = extract("<a href=/1>one<a href=/2>two</a></a><p <b>x</p><a href=/3 <i>y</i>", NULL, NULL);
    assert_non_null(find_link(p, "/1"));
    assert_string_equal(find_link(p, "/2")->anchor, "two");
    html_page_free(p);
}

static void test_nul_and_garbage(void **state)
{
    (void)state;
    static const char nul[] = "<title>a\0b</title><p>x\0y</p><a href=\"/p\0q\">l\0m</a>";
    struct html_page *p = NULL;
    assert_int_equal(html_extract(nul, sizeof nul - 1, NULL, NULL, &p), ERR_OK);
    assert_non_null(strstr(p->text, "x"));
    assert_int_equal(p->n_links, 1);
    html_page_free(p);

    /* 256 KB of pseudo-random bytes, with and without a charset. */
    size_t n = 256 << 10;
    char *g = malloc(n);
    assert_non_null(g);
    uint32_t x = 12345;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        g[i] = (char)(x >> 16);
        if (i % 97 == 0)
            g[i] = "<>&\"'=/ "[x % 8];
    }
    const char *types[] = {NULL, "text/html; charset=utf-8", "text/html; charset=shift_jis",
                           "text/html; charset=utf-16le"};
    for (size_t t = 0; t < 4; t++) {
        assert_int_equal(html_extract(g, n, types[t], NULL, &p), ERR_OK);
        assert_int_equal(p->text_len, strlen(p->text));
        html_page_free(p);
    }
    free(g);
}

static char *repeat(const char *unit, size_t times, const char *tail)
{
    size_t u = strlen(unit), t = strlen(tail);
    char *s = malloc(u * times + t + 1);
    assert_non_null(s);
    for (size_t i = 0; i < times; i++)
        memcpy(s + i * u, unit, u);
    memcpy(s + u * times, tail, t + 1);
    return s;
}

/*
 * gumbo is quadratic on these; the budgets must stop it quickly. Either the page comes
 * back (perhaps truncated) or the parse fails with ERR_TOOBIG: never a crash or a hang.
 */
static void test_pathological_nesting(void **state)
{
    (void)state;
    struct {
        const char *unit;
        size_t times;
    } cases[] = {
        {"<div>", 100000},          {"<font><b><i>", 50000}, {"<p><b id=x>", 20000},
        {"<table><tr><td>", 30000}, {"<a href=/n>", 100000}, {"<svg><g>", 100000},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *html = repeat(cases[i].unit, cases[i].times, "<a href=/end>end</a>");
        struct html_page *p = NULL;
        double t0 = monotime_s();
        enum err e = html_extract(html, strlen(html), NULL, NULL, &p);
        double dt = monotime_s() - t0;
        if (e != ERR_OK && e != ERR_TOOBIG)
            fail_msg("case %zu: %s", i, err_str(e));
        if (dt > 3.0)
            fail_msg("case %zu took %.2f s", i, dt);
        if (e == ERR_OK)
            assert_int_equal(p->text_len, strlen(p->text));
        else
            assert_null(p);
        html_page_free(p);
        free(html);
    }
}

/* Formatting elements reopened in every paragraph: 2 GB of gumbo allocations uncapped. */
static void test_parser_budget(void **state)
{
    (void)state;
    size_t cap = 20000 * 24 + 1, len = 0;
    char *html = malloc(cap);
    assert_non_null(html);
    for (int i = 0; i < 20000; i++)
        len += (size_t)snprintf(html + len, cap - len, "<p><b id=%d></p>", i);
    struct html_page *p = NULL;
    struct html_options opt = {.max_parse_mem = 32 << 20, .max_parse_ms = 5000};
    assert_int_equal(html_extract(html, strlen(html), NULL, &opt, &p), ERR_TOOBIG);
    assert_null(p);
    assert_non_null(strstr(err_msg(), "memory budget"));
    opt = (struct html_options){.max_parse_mem = (size_t)1 << 30, .max_parse_ms = 50};
    assert_int_equal(html_extract(html, strlen(html), NULL, &opt, &p), ERR_TOOBIG);
    assert_non_null(strstr(err_msg(), "CPU time"));
    free(html);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    struct html_page *p = (struct html_page *)1;
    assert_int_equal(html_extract(NULL, 3, NULL, NULL, &p), ERR_INVAL);
    assert_int_equal(html_extract("x", 1, NULL, NULL, NULL), ERR_INVAL);
    assert_int_equal(html_extract(NULL, 0, NULL, NULL, &p), ERR_OK);
    assert_string_equal(p->text, "");
    assert_string_equal(p->title, "");
    html_page_free(p);
    html_page_free(NULL);
}

/* ---- real pages from the demo web (tests/data/html/README.md) ------------------------- */

static struct html_page *extract_file(const char *name, const char *content_type)
{
    char path[512];
    snprintf(path, sizeof path, "%s/html/%s", TEST_DATA_DIR, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    static char body[1 << 16];
    size_t n = fread(body, 1, sizeof body, f);
    fclose(f);
    struct html_page *p = NULL;
    enum err e = html_extract(body, n, content_type, NULL, &p);
    if (e)
        fail_msg("%s: %s", name, err_msg());
    return p;
}

static void assert_link(const struct html_page *p, const char *href, unsigned kind,
                        const char *anchor)
{
    const struct html_link *l = find_link(p, href);
    if (!l) {
        fail_msg("no link %s", href);
        return;
    }
    assert_int_equal(l->kind, kind);
    assert_string_equal(l->anchor, anchor);
}

static void test_real_frameset(void **state)
{
    (void)state;
    struct html_page *p = extract_file("frameset.html", "text/html; charset=UTF-8");
    assert_string_equal(p->title, "Ocean & Summit");
    assert_string_equal(p->text, "");
    assert_int_equal(p->n_links, 2);
    assert_link(p, "/nav.html", HTML_LINK_FRAME, "");
    assert_link(p, "/main.html", HTML_LINK_FRAME, "");
    html_page_free(p);
}

static void test_real_broken(void **state)
{
    (void)state;
    struct html_page *p = extract_file("broken.html", "text/html; charset=UTF-8");
    assert_string_equal(p->title, "Re: Moonbase race - Ocean & Summit");
    assert_string_equal(p->charset, "UTF-8");
    /* The text after the stray "</div></td><font>" and "<p <b>" is all there. */
    assert_non_null(strstr(p->text, "\nPosted by Henry Spencer\n"));
    assert_non_null(strstr(p->text, "Apollo was done the hard way, in a big hurry"));
    assert_non_null(strstr(p->text, ">On the other hand, if Apollo cost ~25billion"));
    assert_null(strstr(p->text, "font-family"));
    assert_int_equal(p->n_links, 7);
    assert_link(p, "../archive/page-1.html", HTML_LINK_A, "Archive");
    assert_link(p, "first-spacewalk.html", HTML_LINK_A, "First Spacewalk");
    assert_link(p, "alaska-pipeline-and-space-station.html", HTML_LINK_A,
                "Re: Alaska Pipeline and Space Station!");
    html_page_free(p);
}

static void test_real_latin1(void **state)
{
    (void)state;
    struct html_page *p = extract_file("latin1.html", "text/html; charset=ISO-8859-1");
    assert_string_equal(p->title, "Ozone GIFs Available - The SkyCoral Site");
    assert_string_equal(p->charset, "windows-1252");
    assert_int_equal(p->charset_source, CHARSET_HEADER);
    assert_non_null(strstr(p->text, "produced by the Microwave Limb Sounder aboard the Upper"));
    assert_non_null(strstr(p->text, "NASA's Jet Propulsion Laboratory"));
    assert_int_equal(p->n_links, 6);
    assert_link(p, "/links.html", HTML_LINK_A, "Links");
    html_page_free(p);
    /* Without the header its http-equiv meta says the same. */
    p = extract_file("latin1.html", "text/html");
    assert_string_equal(p->charset, "windows-1252");
    assert_int_equal(p->charset_source, CHARSET_META);
    html_page_free(p);
}

static void test_real_nocharset(void **state)
{
    (void)state;
    struct html_page *p = extract_file("nocharset.html", "text/html");
    assert_string_equal(p->title, "Phoenix Suns Report");
    assert_int_equal(p->charset_source, CHARSET_DEFAULT);
    /* The raw 0xA9 byte is the copyright sign in windows-1252. */
    assert_non_null(strstr(p->text, "Copyright \xC2\xA9 1996 by Marc Echeveste"));
    assert_non_null(strstr(p->text, "this is an UNOFFICIAL page."));
    assert_int_equal(p->n_links, 7);
    /* Image-only links take their anchor text from the images' alt. */
    assert_link(p, "http://www-leland.stanford.edu/~mecheves/suns/info.html", HTML_LINK_A,
                "Team Info");
    assert_link(p, "mailto:mecheves@leland.stanford.edu", HTML_LINK_A, "Feedback");
    /* This <A> is never closed; the table cell ends it. */
    assert_link(p, "http://www.primenet.com/cgi-bin/finger?karenwe@primenet.com", HTML_LINK_A,
                "Karen's Game Reports");
    html_page_free(p);
}

static void test_real_refresh(void **state)
{
    (void)state;
    struct html_page *p = extract_file("refresh.html", "text/html");
    assert_string_equal(p->title, "Tzi-cker Chiueh's Home Page");
    assert_non_null(strstr(p->text, "Home Page for Tzi-cker Chiueh\nBS 1984 National Taiwan"));
    assert_int_equal(p->n_links, 4);
    assert_int_equal(p->links[0].kind, HTML_LINK_META_REFRESH);
    assert_string_equal(p->links[0].href, "http://www.cs.sunysb.edu/~chiueh/pronunciation.au");
    assert_link(p, "http://www.cs.sunysb.edu/~chiueh/test.au", HTML_LINK_A,
                "Want to try one of my favorite Taiwanese tunes ?");
    html_page_free(p);
}

static void test_real_content(void **state)
{
    (void)state;
    struct html_page *p = extract_file("content.html", "text/html; charset=UTF-8");
    assert_string_equal(p->title, "Magellan Update - 04/23/93 - DimensionsSsto Online");
    assert_non_null(strstr(p->text, "\n3. Magellan has completed 7277 orbits of Venus"));
    assert_non_null(strstr(p->text, "\nElsewhere on the web: Dawn-Olive\n"));
    assert_int_equal(p->n_links, 10);
    assert_link(p, "/", HTML_LINK_A, "Home");
    assert_link(p, "/texts/dc-x-rollout-report.html", HTML_LINK_A, "DC-X Rollout Report");
    assert_link(p, "http://www.dawn-olive.com/", HTML_LINK_A, "Dawn-Olive");
    assert_null(p->base_href);
    assert_int_equal(p->meta_noindex | p->meta_nofollow, 0);
    html_page_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_title_and_text),
        cmocka_unit_test(test_links),
        cmocka_unit_test(test_links_in_document_order),
        cmocka_unit_test(test_base_href),
        cmocka_unit_test(test_rel_nofollow),
        cmocka_unit_test(test_meta_robots),
        cmocka_unit_test(test_charsets),
        cmocka_unit_test(test_utf16),
        cmocka_unit_test(test_caps),
        cmocka_unit_test(test_unclosed_tags),
        cmocka_unit_test(test_nul_and_garbage),
        cmocka_unit_test(test_pathological_nesting),
        cmocka_unit_test(test_parser_budget),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_real_frameset),
        cmocka_unit_test(test_real_broken),
        cmocka_unit_test(test_real_latin1),
        cmocka_unit_test(test_real_nocharset),
        cmocka_unit_test(test_real_refresh),
        cmocka_unit_test(test_real_content),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
