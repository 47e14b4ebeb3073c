/* A page's term counts as text: what a job keeps of each page to judge it again later. */
#ifndef SITESCOUT_CLASSIFIER_TERMVEC_H
#define SITESCOUT_CLASSIFIER_TERMVEC_H

#include <stddef.h>
#include <stdint.h>

#include "common/buf.h"
#include "common/err.h"

struct tokenizer;

/*
 * The text form (stored in pages.terms, docs/classifier.md "Learning from the crawl"):
 * "term:count" pairs separated by single spaces, terms in byte order, each once, counts
 * >= 1. Terms are the tokenizer's tokens (classifier/tokenize.h: word characters only, so
 * never a space or a colon). A page keeps at most TERMVEC_MAX_TERMS distinct terms (the
 * first met) and a count is capped at TERMVEC_MAX_COUNT: enough to judge a page, bounded
 * for a page of 10 MB of text. An empty page gives "".
 */
#define TERMVEC_MAX_TERMS 4000
#define TERMVEC_MAX_COUNT 9999

/* Tokenize text with t and append its text form to out. */
enum err termvec_encode(struct tokenizer *t, const char *text, size_t len,
                        struct buf *out) WARN_UNUSED;

/* Called once per pair of a text form, in order; anything but ERR_OK stops the walk. */
typedef enum err (*termvec_fn)(void *ctx, const char *term, size_t len, uint32_t count);

/*
 * Walk a text form (NULL is ""). ERR_PARSE for anything that is not one: a pair without
 * its colon or count, a count of 0 or above TERMVEC_MAX_COUNT, an empty term, two spaces.
 */
enum err termvec_decode(const char *s, termvec_fn fn, void *ctx) WARN_UNUSED;

#endif
