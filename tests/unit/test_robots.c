/* Unit tests for crawler/robots: RFC 9309 parsing and matching, and the per-host policy. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crawler/robots.h"

struct verdict {
    const char *path;
    int allowed;
};

static struct robots *parse_for(const char *body, const char *product)
{
    struct robots *r = NULL;
    assert_int_equal(robots_parse(body, strlen(body), product, &r), ERR_OK);
    assert_non_null(r);
    return r;
}

static void check(const char *body, const char *product, const struct verdict *v, size_t n)
{
    struct robots *r = parse_for(body, product);
    for (size_t i = 0; i < n; i++) {
        if (robots_allowed(r, v[i].path) != v[i].allowed)
            fail_msg("%s: %s should be %s by:\n%s", product, v[i].path,
                     v[i].allowed ? "allowed" : "disallowed", body);
    }
    robots_free(r);
}

#define CHECK(body, product, ...)                                                                  \
    do {                                                                                           \
        static const struct verdict v_[] = {__VA_ARGS__};                                          \
        check(body, product, v_, sizeof v_ / sizeof v_[0]);                                        \
    } while (0)

/* RFC 9309 §5.1, the example file, for each crawler it names and for any other. */
static const char RFC_EXAMPLE[] = "User-Agent: *\n"
                                  "Disallow: *.gif$\n"
                                  "Disallow: /example/\n"
                                  "Allow: /publications/\n"
                                  "\n"
                                  "User-Agent: foobot\n"
                                  "Disallow:/\n"
                                  "Allow:/example/page.html\n"
                                  "Allow:/example/allowed.gif\n"
                                  "\n"
                                  "User-Agent: barbot\n"
                                  "User-Agent: bazbot\n"
                                  "Disallow: /example/page.html\n"
                                  "\n"
                                  "User-Agent: quxbot\n"
                                  "\n"
                                  "EOF\n";

static void test_rfc9309_example_file(void **state)
{
    (void)state;
    CHECK(RFC_EXAMPLE, "foobot", {"/", 0}, {"/example/page.html", 1}, {"/example/allowed.gif", 1},
          {"/example/other.gif", 0}, {"/publications/", 0});
    CHECK(RFC_EXAMPLE, "FooBot", {"/example/page.html", 1}, {"/x", 0});
    CHECK(RFC_EXAMPLE, "barbot", {"/example/page.html", 0}, {"/example/page.htm", 1},
          {"/example/", 1}, {"/a.gif", 1});
    CHECK(RFC_EXAMPLE, "bazbot", {"/example/page.html", 0}, {"/example/page.html?x", 0}, {"/", 1});
    /* A group without rules: nothing is disallowed, and "*" does not apply. */
    CHECK(RFC_EXAMPLE, "quxbot", {"/example/", 1}, {"/a.gif", 1}, {"/", 1});
    CHECK(RFC_EXAMPLE, ROBOTS_PRODUCT, {"/", 1}, {"/foo/bin.gif", 0}, {"/a.gif?x", 1},
          {"/example/", 0}, {"/example/page.html", 0}, {"/publications/", 1},
          {"/publications/x.gif", 1}, {"/example", 1});
}

/* §5.2: the longest match wins. */
static void test_rfc9309_longest_match(void **state)
{
    (void)state;
    const char *body = "User-Agent: foobot\n"
                       "Allow: /example/page/\n"
                       "Disallow: /example/page/disallowed.gif\n";
    CHECK(body, "foobot", {"/example/page/", 1}, {"/example/page/disallowed.gif", 0},
          {"/example/page/other.gif", 1});
}

/* §2.2.1: groups naming the same product token are merged. */
static void test_rfc9309_merged_groups(void **state)
{
    (void)state;
    const char *body = "user-agent: ExampleBot\n"
                       "disallow: /foo\n"
                       "disallow: /bar\n"
                       "\n"
                       "user-agent: ExampleBot\n"
                       "disallow: /baz\n";
    CHECK(body, "examplebot", {"/foo", 0}, {"/bar/x", 0}, {"/baz", 0}, {"/qux", 1});
    struct robots *r = parse_for(body, "ExampleBot");
    assert_int_equal(robots_rule_count(r), 3);
    robots_free(r);

    /* "*" groups merge the same way, and are only a fallback */
    const char *stars = "User-agent: *\nDisallow: /a\n"
                        "User-agent: other\nDisallow: /b\n"
                        "User-agent: *\nDisallow: /c\n";
    CHECK(stars, "sitescout", {"/a", 0}, {"/b", 1}, {"/c", 0});
    CHECK(stars, "other", {"/a", 1}, {"/b", 0}, {"/c", 1});
}

/* §2.2.2: the percent-encoding table, and its other direction. */
static void test_rfc9309_percent_encoding(void **state)
{
    (void)state;
    CHECK("User-agent: *\nDisallow: /foo/bar?baz=quz\n", "x", {"/foo/bar?baz=quz", 0},
          {"/foo/bar?baz=qu", 1}, {"/foo/bar", 1});
    CHECK("User-agent: *\nDisallow: /foo/bar/\xE3\x83\x84\n", "x", {"/foo/bar/%E3%83%84", 0},
          {"/foo/bar/%e3%83%84", 0}, {"/foo/bar/\xE3\x83\x84", 0}, {"/foo/bar/", 1});
    CHECK("User-agent: *\nDisallow: /foo/bar/%E3%83%84\n", "x", {"/foo/bar/%E3%83%84", 0},
          {"/foo/bar/\xE3\x83\x84", 0});
    CHECK("User-agent: *\nDisallow: /foo/bar/%62%61%7A\n", "x", {"/foo/bar/baz", 0},
          {"/foo/bar/%62az", 0}, {"/foo/bar/ba", 1});
    CHECK("User-agent: *\nDisallow: /a%2fb\n", "x", {"/a%2Fb", 0}, {"/a/b", 1});
    CHECK("User-agent: *\nDisallow: /a b\n", "x", {"/a%20b", 0}, {"/a b", 0});
}

/* §2.2.3: '*' and '$', and how to match them literally. */
static void test_rfc9309_special_characters(void **state)
{
    (void)state;
    CHECK("User-agent: *\nDisallow: /this/path/exactly$\n", "x", {"/this/path/exactly", 0},
          {"/this/path/exactly/", 1}, {"/this/path/exactly?q", 1});
    CHECK("User-agent: *\nDisallow: /this/*/exactly\n", "x", {"/this/a/exactly", 0},
          {"/this/a/b/exactly/more", 0}, {"/this/exactly", 1}, {"/that/a/exactly", 1});
    CHECK("User-agent: *\nDisallow: /path/file-with-a-%2A.html\n", "x",
          {"/path/file-with-a-*.html", 0}, {"/path/file-with-a-%2A.html", 0},
          {"/path/file-with-a-b.html", 1});
    CHECK("User-agent: *\nDisallow: /path/foo-%24\n", "x", {"/path/foo-$", 0}, {"/path/foo-", 1});
    CHECK("User-agent: *\nDisallow: /a$b\n", "x", {"/a$b", 0}, {"/ab", 1}, {"/a", 1});
}

/* The wildcard examples of Google's robots.txt documentation. */
static void test_wildcards(void **state)
{
    (void)state;
    CHECK("User-agent: *\nDisallow: /fish*\n", "x", {"/fish", 0}, {"/fish.html", 0},
          {"/fish/salmon.html", 0}, {"/fishheads", 0}, {"/fish.php?id=anything", 0},
          {"/Fish.asp", 1}, {"/catfish", 1}, {"/?id=fish", 1});
    CHECK("User-agent: *\nDisallow: /fish/\n", "x", {"/fish/", 0}, {"/fish/?id=x", 0},
          {"/fish/salmon.htm", 0}, {"/fish", 1}, {"/fish.html", 1}, {"/Fish/Salmon.asp", 1});
    CHECK("User-agent: *\nDisallow: /*.php\n", "x", {"/index.php", 0}, {"/filename.php", 0},
          {"/folder/filename.php", 0}, {"/folder/filename.php?parameters", 0},
          {"/folder/any.php.file.html", 0}, {"/filename.php/", 0}, {"/", 1}, {"/windows.PHP", 1});
    CHECK("User-agent: *\nDisallow: /*.php$\n", "x", {"/filename.php", 0},
          {"/folder/filename.php", 0}, {"/filename.php?parameters", 1}, {"/filename.php/", 1},
          {"/filename.php5", 1}, {"/windows.PHP", 1});
    CHECK("User-agent: *\nDisallow: /fish*.php\n", "x", {"/fish.php", 0},
          {"/fishheads/catfish.php?parameters", 0}, {"/Fish.PHP", 1});
    CHECK("User-agent: *\nDisallow: /a*b*c$\n", "x", {"/abc", 0}, {"/aXbYc", 0}, {"/abcabc", 0},
          {"/acb", 1}, {"/abcd", 1}, {"/ab", 1});
    CHECK("User-agent: *\nDisallow: /**x**\n", "x", {"/x", 0}, {"/aaxbb", 0}, {"/abc", 1});
    CHECK("User-agent: *\nDisallow: *\n", "x", {"/", 0}, {"/anything", 0}, {"/robots.txt", 1});
    CHECK("User-agent: *\nDisallow: /ab*ab$\n", "x", {"/abab", 0}, {"/ab", 1}, {"/aab", 1});
}

/* Precedence: the longest pattern decides, Allow on a tie, no match allows. */
static void test_precedence(void **state)
{
    (void)state;
    CHECK("User-agent: *\nAllow: /p\nDisallow: /\n", "x", {"/page", 1}, {"/", 0}, {"/x", 0});
    CHECK("User-agent: *\nAllow: /folder\nDisallow: /folder\n", "x", {"/folder/page", 1});
    CHECK("User-agent: *\nDisallow: /folder\nAllow: /folder\n", "x", {"/folder", 1});
    CHECK("User-agent: *\nAllow: /$\nDisallow: /\n", "x", {"/", 1}, {"/page.html", 0});
    CHECK("User-agent: *\nAllow: /page\nDisallow: /*.html\n", "x", {"/page.html", 0},
          {"/page.htm", 1});
    CHECK("User-agent: *\nAllow: /*\nDisallow: /a\n", "x", {"/a", 1}, {"/ab", 1});
    CHECK("User-agent: *\nAllow: /a/\nDisallow: /a/b\nAllow: /a/b/c\n", "x", {"/a/x", 1},
          {"/a/bx", 0}, {"/a/b/c/d", 1});
    CHECK("User-agent: *\nDisallow:\n", "x", {"/", 1}, {"/anything", 1});
    CHECK("User-agent: *\nAllow:\nDisallow: /\n", "x", {"/", 0});
    CHECK("", "x", {"/", 1});
}

/* §2.2.1: which group applies to "sitescout". */
static void test_group_selection(void **state)
{
    (void)state;
    /* ours wins over "*", wherever it is */
    CHECK("User-agent: *\nDisallow: /\n\nUser-agent: SiteScout\nDisallow: /private\n",
          ROBOTS_PRODUCT, {"/", 1}, {"/private", 0});
    /* the product token is the leading word: versions and comments do not matter */
    CHECK("User-agent: sitescout/1.0 (+https://example.org)\nDisallow: /a\n"
          "User-agent: *\nDisallow: /b\n",
          ROBOTS_PRODUCT, {"/a", 0}, {"/b", 1});
    /* other tokens, even similar ones, are not ours */
    CHECK("User-agent: sitescoutbot\nDisallow: /a\nUser-agent: site\nDisallow: /b\n"
          "User-agent: scout\nDisallow: /c\nUser-agent: *\nDisallow: /d\n",
          ROBOTS_PRODUCT, {"/a", 1}, {"/b", 1}, {"/c", 1}, {"/d", 0});
    /* no group for us and no "*": no rules */
    CHECK("User-agent: googlebot\nDisallow: /\n", ROBOTS_PRODUCT, {"/", 1});
    /* one group may name several agents, "*" among them */
    CHECK("User-agent: a\nUser-agent: sitescout\nUser-agent: b\nDisallow: /x\n"
          "User-agent: c\nDisallow: /y\n",
          ROBOTS_PRODUCT, {"/x", 0}, {"/y", 1});
    CHECK("User-agent: *\nUser-agent: other\nDisallow: /x\n", ROBOTS_PRODUCT, {"/x", 0});
    /* rules before any user-agent line belong to no group */
    CHECK("Disallow: /\nUser-agent: *\nDisallow: /x\n", ROBOTS_PRODUCT, {"/", 1}, {"/x", 0});
    /* an empty Disallow still ends the user-agent lines of its group */
    CHECK("User-agent: sitescout\nDisallow:\nUser-agent: *\nDisallow: /\n", ROBOTS_PRODUCT,
          {"/", 1});
    /* sitemap and unknown records neither belong to a group nor end one */
    CHECK("User-agent: other\nSitemap: http://x/s.xml\nUser-agent: sitescout\nDisallow: /z\n",
          "other", {"/z", 0});
    CHECK("User-agent: other\nDisallow: /o\nSitemap: http://x/s.xml\nDisallow: /p\n", "other",
          {"/o", 0}, {"/p", 0});

    struct robots *r = NULL;
    assert_int_equal(robots_parse("", 0, "", &r), ERR_INVAL);
    assert_int_equal(robots_parse("", 0, "bad token/1.0", &r), ERR_INVAL);
    assert_null(r);
}

/* Whatever a server sends: BOM, CR/LF/CRLF, comments, case, spacing, junk. */
static void test_tolerant_parsing(void **state)
{
    (void)state;
    CHECK("\xEF\xBB\xBFUser-agent: *\r\nDisallow: /a\r\nDisallow: /b\r\n", "x", {"/a", 0},
          {"/b", 0}, {"/c", 1});
    CHECK("User-agent: *\rDisallow: /a\rDisallow: /b", "x", {"/a", 0}, {"/b", 0}, {"/c", 1});
    CHECK("# comment\nUSER-AGENT : * # all robots\n  DisAllow\t:\t/a # not /b\n", "x", {"/a", 0},
          {"/b", 1});
    CHECK("User-agent: *\nthis is junk\n\x01\x02\xff\n:::\nDisallow /nocolon\nDisallow: /x\n"
          "Foo: bar\n\n\n",
          "x", {"/x", 0}, {"/nocolon", 1});
    CHECK("<html><body>Not found</body></html>", "x", {"/", 1});

    /* NUL bytes are data, not an end of input */
    static const char nul[] = "User-agent: *\nDisallow: /a\0b\nDisallow: /c\n";
    struct robots *r = NULL;
    assert_int_equal(robots_parse(nul, sizeof nul - 1, "x", &r), ERR_OK);
    assert_false(robots_allowed(r, "/c"));
    assert_true(robots_allowed(r, "/a"));
    assert_false(robots_allowed(r, "/a%00b"));
    robots_free(r);
}

/* §2.5: only the first 500 KiB count, and a rule cut by the limit is dropped. */
static void test_parse_limit(void **state)
{
    (void)state;
    size_t size = ROBOTS_PARSE_MAX + 1024;
    char *body = malloc(size);
    assert_non_null(body);
    const char *head = "User-agent: *\nDisallow: /first\n";
    size_t n = strlen(head);
    memcpy(body, head, n);
    memset(body + n, '#', size - n);
    /* The limit cuts this line to "Disallow: /c": it must be dropped, not obeyed. */
    const char *cut = "Disallow: /cutting-edge\n";
    size_t cut_at = ROBOTS_PARSE_MAX - strlen("Disallow: /c");
    memcpy(body + cut_at, cut, strlen(cut));
    const char *kept = "\nDisallow: /kept\n";
    memcpy(body + cut_at - strlen(kept), kept, strlen(kept));
    const char *late = "\nDisallow: /late\n";
    memcpy(body + size - strlen(late), late, strlen(late));

    struct robots *r = NULL;
    assert_int_equal(robots_parse(body, size, "x", &r), ERR_OK);
    assert_false(robots_allowed(r, "/first"));
    assert_false(robots_allowed(r, "/kept"));
    assert_true(robots_allowed(r, "/cutting-edge"));
    assert_true(robots_allowed(r, "/c"));
    assert_true(robots_allowed(r, "/late"));
    robots_free(r);
    free(body);
}

static void test_robots_txt_always_allowed(void **state)
{
    (void)state;
    CHECK("User-agent: *\nDisallow: /\nDisallow: /robots.txt$\n", "x", {"/robots.txt", 1},
          {"/robots.txt?x=1", 1}, {"/robots.txt2", 0}, {"/robots", 0});
    assert_true(robots_allowed(NULL, "/anything"));
    assert_int_equal(robots_crawl_delay_ms(NULL), 0);
    assert_int_equal(robots_rule_count(NULL), 0);
    robots_free(NULL);
}

static void test_long_paths(void **state)
{
    (void)state;
    struct robots *r = parse_for("User-agent: *\nDisallow: /private\n", "x");
    char *path = malloc(ROBOTS_PATH_MAX + 10);
    assert_non_null(path);
    memset(path, 'a', ROBOTS_PATH_MAX + 9);
    path[0] = '/';
    path[ROBOTS_PATH_MAX + 9] = '\0';
    assert_false(robots_allowed(r, path)); /* too long to judge: refused */
    path[1000] = '\0';
    assert_true(robots_allowed(r, path));
    free(path);
    robots_free(r);
}

static void test_crawl_delay(void **state)
{
    (void)state;
    static const struct {
        const char *value;
        int ms;
    } t[] = {
        {"5", 5000},   {"0.5", 500},   {"1.25", 1250},
        {"2.", 2000},  {".5", 500},    {"30", 30000},
        {"31", 30000}, {"100", 30000}, {"99999999999999999999", 30000},
        {"0", 0},      {"", 0},        {"abc", 0},
        {"-1", 0},     {"1.5.3", 0},   {"5s", 0},
        {"1 2", 0},    {" 7 ", 7000},  {"7 # comment", 7000},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        char body[128];
        snprintf(body, sizeof body, "User-agent: *\nCrawl-delay: %s\nDisallow: /x\n", t[i].value);
        struct robots *r = parse_for(body, "x");
        if (robots_crawl_delay_ms(r) != t[i].ms)
            fail_msg("Crawl-delay: \"%s\" gave %d ms, want %d", t[i].value,
                     robots_crawl_delay_ms(r), t[i].ms);
        assert_false(robots_allowed(r, "/x"));
        robots_free(r);
    }

    /* our group's delay, not the fallback's; the largest of merged groups */
    const char *body = "User-agent: *\nCrawl-delay: 9\n"
                       "User-agent: sitescout\nCrawl-delay: 2\nDisallow: /a\n"
                       "User-agent: sitescout\ncrawl-delay: 3\n"
                       "User-agent: other\nCrawl-delay: 20\n";
    struct robots *r = parse_for(body, ROBOTS_PRODUCT);
    assert_int_equal(robots_crawl_delay_ms(r), 3000);
    robots_free(r);
    r = parse_for(body, "nobody");
    assert_int_equal(robots_crawl_delay_ms(r), 9000);
    robots_free(r);
    /* a delay outside any group counts for nobody */
    r = parse_for("Crawl-delay: 10\nUser-agent: *\nDisallow: /\n", "x");
    assert_int_equal(robots_crawl_delay_ms(r), 0);
    robots_free(r);
}

#define T0 1000000

static void test_host_policy_success(void **state)
{
    (void)state;
    struct robots_host h;
    int64_t retry = -1;
    robots_host_init(&h);
    assert_int_equal(robots_host_check(&h, "/a", T0, &retry), ROBOTS_FETCH);
    /* one fetch at a time: others wait for the report */
    assert_int_equal(robots_host_check(&h, "/a", T0 + 10, &retry), ROBOTS_WAIT);
    assert_int_equal(retry, T0 + ROBOTS_LEASE_MS);
    const char *body = "User-agent: *\nDisallow: /private\nCrawl-delay: 2\n";
    assert_int_equal(robots_host_report(&h, 200, body, strlen(body), ROBOTS_PRODUCT, T0 + 20),
                     ERR_OK);
    assert_int_equal(h.state, ROBOTS_KNOWN);
    assert_int_equal(robots_host_check(&h, "/a", T0 + 30, NULL), ROBOTS_ALLOW);
    assert_int_equal(robots_host_check(&h, "/private/x", T0 + 30, NULL), ROBOTS_DISALLOW);
    assert_int_equal(robots_host_delay_ms(&h), 2000);
    /* a later report replaces the rules */
    assert_int_equal(robots_host_report(&h, 404, NULL, 0, ROBOTS_PRODUCT, T0 + 40), ERR_OK);
    assert_int_equal(robots_host_check(&h, "/private/x", T0 + 50, NULL), ROBOTS_ALLOW);
    assert_int_equal(robots_host_delay_ms(&h), 0);
    robots_host_release(&h);
}

/* 4xx (but 429) and too many redirects: unavailable, so everything is allowed. */
static void test_host_policy_unavailable(void **state)
{
    (void)state;
    static const int statuses[] = {301, 399, 400, 401, 403, 404, 410, 451, 499};
    for (size_t i = 0; i < sizeof statuses / sizeof statuses[0]; i++) {
        struct robots_host h;
        robots_host_init(&h);
        assert_int_equal(robots_host_check(&h, "/", T0, NULL), ROBOTS_FETCH);
        assert_int_equal(robots_host_report(&h, statuses[i], "User-agent: *\nDisallow: /\n", 26,
                                            ROBOTS_PRODUCT, T0),
                         ERR_OK);
        assert_int_equal(robots_host_check(&h, "/x", T0, NULL), ROBOTS_ALLOW);
        robots_host_release(&h);
    }
}

/* 5xx, 429 and network errors: disallow, retry after 2 s and 8 s, then give up: a host
 * whose robots.txt fails never holds a website (and training, and the budget's tail)
 * for more than ten seconds of back-off (issue 16: it held a job for 21 minutes). */
static void test_host_policy_unreachable(void **state)
{
    (void)state;
    static const int statuses[] = {500, 503, 429, 0, 199, 600};
    for (size_t i = 0; i < sizeof statuses / sizeof statuses[0]; i++) {
        struct robots_host h;
        int64_t now = T0, retry = 0;
        robots_host_init(&h);
        for (int attempt = 1; attempt <= ROBOTS_MAX_ATTEMPTS; attempt++) {
            assert_int_equal(robots_host_check(&h, "/x", now, &retry), ROBOTS_FETCH);
            assert_int_equal(robots_host_report(&h, statuses[i], NULL, 0, ROBOTS_PRODUCT, now),
                             ERR_OK);
            if (attempt == ROBOTS_MAX_ATTEMPTS)
                break;
            int64_t wait = (int64_t)ROBOTS_RETRY_MS << (2 * (attempt - 1));
            assert_int_equal(robots_host_check(&h, "/x", now + wait - 1, &retry), ROBOTS_WAIT);
            assert_int_equal(retry, now + wait);
            assert_int_equal(robots_host_delay_ms(&h), 0);
            now += wait;
        }
        assert_int_equal(h.state, ROBOTS_GAVE_UP);
        assert_true(now - T0 <= 10000);
        assert_int_equal(robots_host_check(&h, "/x", now + 1000000000, &retry), ROBOTS_DISALLOW);
        assert_int_equal(robots_host_check(&h, "/", now, &retry), ROBOTS_DISALLOW);
        assert_int_equal(robots_host_check(&h, "/robots.txt", now, &retry), ROBOTS_ALLOW);
        robots_host_release(&h);
    }
}

static void test_host_policy_recovery_and_lease(void **state)
{
    (void)state;
    struct robots_host h;
    int64_t retry = 0;
    robots_host_init(&h);
    assert_int_equal(robots_host_check(&h, "/", T0, &retry), ROBOTS_FETCH);
    assert_int_equal(robots_host_report(&h, 503, NULL, 0, ROBOTS_PRODUCT, T0), ERR_OK);
    assert_int_equal(robots_host_check(&h, "/", T0 + ROBOTS_RETRY_MS, &retry), ROBOTS_FETCH);
    const char *body = "User-agent: *\nDisallow: /a\n";
    assert_int_equal(robots_host_report(&h, 200, body, strlen(body), ROBOTS_PRODUCT, T0), ERR_OK);
    assert_int_equal(h.failures, 0);
    assert_int_equal(robots_host_check(&h, "/a", T0, &retry), ROBOTS_DISALLOW);
    assert_int_equal(robots_host_check(&h, "/b", T0, &retry), ROBOTS_ALLOW);
    robots_host_release(&h);

    /* a fetcher that never reports: the lease runs out and the fetch is handed out again */
    robots_host_init(&h);
    assert_int_equal(robots_host_check(&h, "/", T0, &retry), ROBOTS_FETCH);
    assert_int_equal(robots_host_check(&h, "/", T0 + ROBOTS_LEASE_MS - 1, &retry), ROBOTS_WAIT);
    assert_int_equal(robots_host_check(&h, "/", T0 + ROBOTS_LEASE_MS, &retry), ROBOTS_FETCH);
    assert_int_equal(robots_host_report(&h, 200, "", 0, "bad token!", T0), ERR_INVAL);
    assert_int_equal(h.state, ROBOTS_BACKOFF);
    robots_host_release(&h);
    robots_host_release(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rfc9309_example_file),
        cmocka_unit_test(test_rfc9309_longest_match),
        cmocka_unit_test(test_rfc9309_merged_groups),
        cmocka_unit_test(test_rfc9309_percent_encoding),
        cmocka_unit_test(test_rfc9309_special_characters),
        cmocka_unit_test(test_wildcards),
        cmocka_unit_test(test_precedence),
        cmocka_unit_test(test_group_selection),
        cmocka_unit_test(test_tolerant_parsing),
        cmocka_unit_test(test_parse_limit),
        cmocka_unit_test(test_robots_txt_always_allowed),
        cmocka_unit_test(test_long_paths),
        cmocka_unit_test(test_crawl_delay),
        cmocka_unit_test(test_host_policy_success),
        cmocka_unit_test(test_host_policy_unavailable),
        cmocka_unit_test(test_host_policy_unreachable),
        cmocka_unit_test(test_host_policy_recovery_and_lease),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
