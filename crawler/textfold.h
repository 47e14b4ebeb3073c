/*
 * Internal to crawler/: the text accumulator of the HTML walk (crawler/html): words of visible text
 * go in, whitespace (ASCII and U+00A0) is folded to one separator, a block boundary owes a newline
 * instead of a space, nothing is owed at the start, and the text stops at a byte cap, cut on a
 * UTF-8 character boundary. Invalid UTF-8 in a word is repaired (charset_append_utf8) before it is
 * kept.
 *
 * Ownership: the text is f->b, the caller's to detach or release (buf_release).
 */
#ifndef SITESCOUT_CRAWLER_TEXTFOLD_H
#define SITESCOUT_CRAWLER_TEXTFOLD_H

#include <stddef.h>

#include "common/buf.h"
#include "common/err.h"

struct textfold {
    struct buf b; /* the folded text */
    size_t max;   /* its cap in bytes */
    char pending; /* separator owed before the next word: 0, ' ' or '\n' */
    int full;     /* the cap was reached: later text is dropped */
};

void textfold_init(struct textfold *f, size_t max);

/* Empty it again, keeping its cap and buffer. */
void textfold_reset(struct textfold *f);

/* Owe a separator; '\n' (block boundary) beats ' '. Nothing is owed at the start. */
void textfold_break(struct textfold *f, char sep);

/* Add the NUL-terminated text s. */
enum err textfold_add(struct textfold *f, const char *s) WARN_UNUSED;

#endif
