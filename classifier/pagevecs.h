/*
 * Pages' term counts decoded once (issue 30). A crawl judges its websites again at 500,
 * 1,000, 2,000 ... pages, each time from every page it read (job/jobjudge.c); decoding each
 * page's text form (classifier/termvec.h) into term ids every time was a fifth of the
 * judgings' CPU. A pagevecs keeps one vocabulary and each page's term ids and counts,
 * found again by a key the caller gives (a page's id): the next judging decodes only the
 * pages read since. Its memory grows with the pages (8 bytes a distinct term of a page,
 * about 1.2 KB a page) and is the caller's to bound (a crawl keeps one per run).
 *
 * Not for threads at once: one owner adds and reads.
 */
#ifndef SITESCOUT_CLASSIFIER_PAGEVECS_H
#define SITESCOUT_CLASSIFIER_PAGEVECS_H

#include <stddef.h>
#include <stdint.h>

#include "classifier/vocab.h"
#include "common/err.h"

struct pagevecs;

enum err pagevecs_new(struct pagevecs **out) WARN_UNUSED;
void pagevecs_free(struct pagevecs *pv);

/*
 * The page of key into *page (its number): with key >= 0 decoded from terms (a text form,
 * NULL is "") the first time the key is met, and the same page after without reading
 * terms (a page's terms never change under its key); key < 0: decoded, a new page each
 * call. ERR_PARSE (termvec_decode's) for terms that are not a text form; nothing is added
 * then but terms of the vocabulary.
 */
enum err pagevecs_add(struct pagevecs *pv, int64_t key, const char *terms,
                      size_t *page) WARN_UNUSED;

/* Page's distinct terms (ids of pagevecs_vocab) and their counts: the number, and the
 * arrays in *term and *count, borrowed until the next pagevecs_add. */
uint32_t pagevecs_page(const struct pagevecs *pv, size_t page, const uint32_t **term,
                       const uint32_t **count);

/* Every term of the pages added, by id. */
const struct vocab *pagevecs_vocab(const struct pagevecs *pv);

#endif
