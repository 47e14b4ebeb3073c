/* Charset of an HTML page (BOM, HTTP header, <meta> prescan) and decoding it to UTF-8. */
#ifndef SITESCOUT_CRAWLER_CHARSET_H
#define SITESCOUT_CRAWLER_CHARSET_H

#include <stddef.h>

#include "common/buf.h"
#include "common/err.h"

/*
 * Which encoding a page is in, as browsers decide (WHATWG): a byte order mark wins,
 * then `charset=` of the Content-Type header, then a <meta charset> or <meta
 * http-equiv="Content-Type"> in the first 1024 bytes, else windows-1252. Labels are
 * mapped as WHATWG does (latin1, iso-8859-1 and us-ascii all mean windows-1252; a
 * <meta> cannot declare UTF-16). A label neither WHATWG nor iconv knows is skipped for
 * the next source. windows-1252 and UTF-8 are decoded here, everything else by iconv.
 * Decoding never fails on bad input: every byte that starts no valid sequence becomes
 * U+FFFD, so the result is always valid UTF-8.
 */

enum charset_source {
    CHARSET_DEFAULT, /* nothing usable was declared */
    CHARSET_BOM,
    CHARSET_HEADER,
    CHARSET_META,
};

/* A decoded body: borrowed from the input when it already was UTF-8 (or ASCII). */
struct charset_text {
    const char *data; /* valid UTF-8, without a BOM; not NUL-terminated */
    size_t len;
    char *owned;     /* what charset_text_release frees; NULL when data borrows the input */
    char name[48];   /* the encoding used: WHATWG name ("windows-1252") or the iconv label */
    unsigned source; /* enum charset_source */
    int cut;         /* the body was longer than `max`: only its head was decoded */
};

/*
 * Decode at most `max` bytes (0: all) of an HTML body. `content_type` is the HTTP
 * header value or NULL. A UTF-8 character split by the cut is left out rather than
 * turned into U+FFFD. Fails only with ERR_NOMEM; release *out even then.
 */
enum err charset_decode_html(const char *body, size_t len, size_t max, const char *content_type,
                             struct charset_text *out) WARN_UNUSED;
void charset_text_release(struct charset_text *t);

/* Length of the valid UTF-8 sequence at s[0..n) (1..4), or 0 if s[0] starts none. */
size_t charset_utf8_seq(const unsigned char *s, size_t n);

/* How many bytes of s[0..n) start no valid UTF-8 sequence. */
size_t charset_utf8_invalid(const char *s, size_t n);

/* Append s[0..n) to b with each such byte replaced by U+FFFD (3 bytes). */
enum err charset_append_utf8(struct buf *b, const char *s, size_t n) WARN_UNUSED;

#endif
