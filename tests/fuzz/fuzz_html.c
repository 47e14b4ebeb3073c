/* libFuzzer harness for crawler/html: no crash or hang, and the page's invariants hold. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "crawler/html.h"

/* Crash on a broken invariant: libFuzzer reports and saves the input. */
#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond))                                                                               \
            __builtin_trap();                                                                      \
    } while (0)

/* Byte 0 of the input picks the Content-Type, so that every decoder gets fuzzed. */
static const char *const content_types[] = {
    NULL,
    "text/html",
    "text/html; charset=utf-8",
    "text/html; charset=ISO-8859-1",
    "text/html; charset=iso-8859-2",
    "text/html; charset=shift_jis",
    "text/html; charset=euc-jp",
    "text/html; charset=iso-2022-jp",
    "text/html; charset=gb18030",
    "text/html; charset=big5",
    "text/html; charset=utf-16le",
    "text/html; charset=utf-16be",
    "text/html; charset=koi8-r",
    "text/html; charset=\"x-unknown\"",
    "text/html; charset=cp437",
    "text/html; charset=",
};

/* Strictly valid UTF-8 (what every string of a page must be). */
static int valid_utf8(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned c = s[i], k, cp;
        if (c < 0x80) {
            i++;
            continue;
        }
        if (c >= 0xC2 && c <= 0xDF)
            k = 1, cp = c & 0x1F;
        else if (c >= 0xE0 && c <= 0xEF)
            k = 2, cp = c & 0x0F;
        else if (c >= 0xF0 && c <= 0xF4)
            k = 3, cp = c & 0x07;
        else
            return 0;
        if (i + k >= n)
            return 0;
        for (unsigned j = 1; j <= k; j++) {
            if ((s[i + j] & 0xC0) != 0x80)
                return 0;
            cp = cp << 6 | (s[i + j] & 0x3F);
        }
        if ((k == 2 && cp < 0x800) || (k == 3 && (cp < 0x10000 || cp > 0x10FFFF)) ||
            (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
        i += k + 1;
    }
    return 1;
}

static void check_string(const char *s, size_t max)
{
    CHECK(s);
    size_t n = strlen(s);
    CHECK(n <= max);
    CHECK(valid_utf8((const unsigned char *)s, n));
    /* Folded: no leading, trailing or doubled whitespace. */
    if (n) {
        CHECK(s[0] != ' ' && s[0] != '\n' && s[n - 1] != ' ' && s[n - 1] != '\n');
        CHECK(!strstr(s, "  ") && !strchr(s, '\t') && !strchr(s, '\r'));
    }
}

/*
 * Input: [content type][flags] body. Flags bit 0 keeps nofollow links; bit 1 sets
 * tiny caps so that every truncation path runs.
 */
/* libFuzzer calls it; it has no header to declare it. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    const char *ct = content_types[data[0] % (sizeof content_types / sizeof content_types[0])];
    struct html_options opt = {.keep_nofollow = data[1] & 1};
    if (data[1] & 2) {
        opt.max_input = 512;
        opt.max_text = 40;
        opt.max_links = 3;
        opt.max_anchor = 7;
        opt.max_nodes = 50;
    }
    struct html_page *p = NULL;
    enum err e = html_extract((const char *)data + 2, size - 2, ct, &opt, &p);
    if (e) {
        /* Only the parser budgets may fail a page. */
        CHECK(e == ERR_TOOBIG && p == NULL);
        return 0;
    }
    size_t max_text = opt.max_text ? opt.max_text : HTML_DEFAULT_MAX_TEXT;
    size_t max_links = opt.max_links ? opt.max_links : HTML_DEFAULT_MAX_LINKS;
    size_t max_anchor = opt.max_anchor ? opt.max_anchor : HTML_DEFAULT_MAX_ANCHOR;
    check_string(p->title, HTML_TITLE_MAX);
    check_string(p->text, max_text);
    CHECK(strlen(p->text) == p->text_len);
    CHECK(p->n_links <= max_links);
    CHECK(p->charset[0] != '\0');
    for (size_t i = 0; i < p->n_links; i++) {
        const struct html_link *l = &p->links[i];
        size_t n = strlen(l->href);
        CHECK(n > 0 && n <= HTML_HREF_MAX);
        CHECK((unsigned char)l->href[0] > ' ' && (unsigned char)l->href[n - 1] > ' ');
        CHECK(valid_utf8((const unsigned char *)l->href, n));
        CHECK(l->kind <= HTML_LINK_META_REFRESH);
        CHECK(opt.keep_nofollow || !l->nofollow);
        check_string(l->anchor, max_anchor);
    }
    if (p->meta_nofollow && !opt.keep_nofollow)
        CHECK(p->n_links == 0);
    html_page_free(p);
    return 0;
}
