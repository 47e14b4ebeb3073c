/* HTML extraction: title, visible text, links and robots hints from one page body. */
#ifndef SITESCOUT_CRAWLER_HTML_H
#define SITESCOUT_CRAWLER_HTML_H

#include <stddef.h>

#include "common/err.h"
#include "crawler/charset.h"

/*
 * html_extract decodes a page body to UTF-8 (the charset is chosen as browsers do:
 * BOM, Content-Type header, <meta>, else windows-1252; see crawler/charset.h) and
 * walks its parse tree once. Every string it returns is valid UTF-8.
 *
 * Caps bound the work per page whatever the input: bytes parsed, parser memory and
 * CPU time (gumbo is quadratic on some broken markup), tree nodes visited, text,
 * links and anchor length. Hitting a content cap is not an error: the page comes
 * back with the matching HTML_TRUNC_* bit set. Only a parse that exceeds its memory
 * or time budget fails (ERR_TOOBIG): nothing useful is left of such a page.
 *
 * Links come back raw, in document order, duplicates included: resolving them against
 * the page URL or base_href, and keeping only http(s) ones, is the URL module's job.
 * html_extract keeps no state between calls; any number of threads may call it.
 */

#define HTML_DEFAULT_MAX_INPUT     ((size_t)2 << 20)   /* body bytes parsed */
#define HTML_DEFAULT_MAX_TEXT      ((size_t)256 << 10) /* bytes of visible text kept */
#define HTML_DEFAULT_MAX_LINKS     2000                /* links kept */
#define HTML_DEFAULT_MAX_ANCHOR    512                 /* bytes of anchor text per link */
#define HTML_DEFAULT_MAX_NODES     200000              /* parse tree nodes visited */
#define HTML_DEFAULT_MAX_PARSE_MEM ((size_t)96 << 20)  /* bytes the parser may allocate */
#define HTML_DEFAULT_MAX_PARSE_MS  250                 /* thread CPU time the parser may use */
#define HTML_TITLE_MAX             1024                /* bytes of title kept */
#define HTML_HREF_MAX              4096                /* longer link targets are dropped */

/* Zero fields (or a NULL options pointer) take the defaults above. */
struct html_options {
    size_t max_input;
    size_t max_text;
    size_t max_links;
    size_t max_anchor;
    size_t max_nodes;
    size_t max_parse_mem;
    unsigned max_parse_ms;
    /*
     * 0 (default): honour nofollow, i.e. leave out links with rel=nofollow and return
     * no links at all from a page whose meta robots says nofollow. 1: keep them all,
     * each marked with its own nofollow flag; the page flag is reported either way.
     */
    int keep_nofollow;
};

enum html_link_kind {
    HTML_LINK_A,
    HTML_LINK_AREA,
    HTML_LINK_FRAME,
    HTML_LINK_IFRAME,
    HTML_LINK_META_REFRESH,
};

struct html_link {
    char *href;    /* attribute value with surrounding whitespace trimmed; NOT resolved */
    char *anchor;  /* anchor text (a: its text and img alt; area: alt), folded; "" if none */
    unsigned kind; /* enum html_link_kind */
    int nofollow;  /* rel contains nofollow */
};

/* Bits of html_page.truncated: which caps cut the page short. */
#define HTML_TRUNC_INPUT 0x01u /* body longer than max_input: only its head was parsed */
#define HTML_TRUNC_TEXT  0x02u /* visible text longer than max_text */
#define HTML_TRUNC_LINKS 0x04u /* more than max_links links */
#define HTML_TRUNC_NODES 0x08u /* tree walk stopped after max_nodes nodes */

struct html_page {
    char *title;             /* first <title>, whitespace folded; "" if none. Never NULL */
    char *text;              /* visible text, UTF-8: whitespace runs folded to one space, blocks */
    size_t text_len;         /*   separated by '\n', no leading or trailing space. Never NULL */
    struct html_link *links; /* in document order; NULL when n_links == 0 */
    size_t n_links;
    size_t n_nofollow_dropped; /* links left out because of rel=nofollow or meta nofollow */
    char *base_href;           /* first <base href>, trimmed, raw; NULL if none */
    int meta_noindex;          /* <meta name=robots> says noindex (or none) */
    int meta_nofollow;         /* <meta name=robots> says nofollow (or none) */
    char charset[48];          /* encoding the body was decoded with, e.g. "windows-1252" */
    unsigned charset_source;   /* where it came from: enum charset_source */
    unsigned truncated;        /* HTML_TRUNC_* bits */
};

/*
 * Extract a page. `body` need not be NUL-terminated and may hold any bytes;
 * `content_type` is the HTTP Content-Type header value or NULL; `opt` may be NULL.
 * On success *out is a new page the caller frees with html_page_free. On error
 * (ERR_NOMEM; ERR_TOOBIG when the parser exceeds its memory or time budget)
 * *out is NULL and err_msg() says why.
 */
enum err html_extract(const char *body, size_t len, const char *content_type,
                      const struct html_options *opt, struct html_page **out) WARN_UNUSED;

/* Free a page and everything it points to. Accepts NULL. */
void html_page_free(struct html_page *page);

/* Static name of a link kind, e.g. "iframe". */
const char *html_link_kind_str(unsigned kind);

#endif
