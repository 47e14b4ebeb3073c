/*
 * One short text's distinct terms with their counts (an anchor text): read with a
 * tokenizer, at most a chosen number of distinct terms (new ones past it are left out),
 * for the classifiers that score anchors (classifier/hotwords, classifier/anchorcls).
 *
 * Ownership: a struct textterms is embedded; it owns its vocabulary (textterms_release)
 * and borrows the tokenizer and the text only during textterms_read.
 */
#ifndef SITESCOUT_CLASSIFIER_TEXTTERMS_H
#define SITESCOUT_CLASSIFIER_TEXTTERMS_H

#include <stddef.h>
#include <stdint.h>

#include "classifier/tokenize.h"
#include "classifier/vocab.h"
#include "common/err.h"

#define TEXTTERMS_MAX 256 /* the most distinct terms any reader asks for */

struct textterms {
    struct vocab terms;            /* ids 0..terms.n-1, in the order first met */
    uint32_t count[TEXTTERMS_MAX]; /* per id: occurrences in the text */
    uint32_t max;                  /* distinct terms kept, <= TEXTTERMS_MAX */
};

/* Empty, keeping at most max (<= TEXTTERMS_MAX) distinct terms of a text. */
void textterms_init(struct textterms *t, uint32_t max);
void textterms_release(struct textterms *t);

/* Forget the last text, then read text[0..len) with tok. */
enum err textterms_read(struct textterms *t, struct tokenizer *tok, const char *text,
                        size_t len) WARN_UNUSED;

#endif
