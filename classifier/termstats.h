/*
 * What the training pages say of each term, counted in one pass: how many pages of the
 * target class and of the others hold it, its frequency in each target page relative
 * to the page's most frequent term (summed), and how many target websites use it. The
 * key phrases (seed 001, classifier/keyphrases) and the weight table (seed 002,
 * classifier/weighttable) choose their terms from these counts.
 *
 * Ownership: a struct termstats owns its vocabulary and counts (termstats_release); it
 * borrows the tokenizer and the pages only during termstats_count.
 */
#ifndef SITESCOUT_CLASSIFIER_TERMSTATS_H
#define SITESCOUT_CLASSIFIER_TERMSTATS_H

#include <stddef.h>
#include <stdint.h>

#include "classifier/pagecls_train.h"
#include "classifier/tokenize.h"
#include "classifier/vocab.h"
#include "common/err.h"

/* Per term (the id in termstats.terms). */
struct termstats_term {
    uint32_t df[2];     /* training pages holding it: target, other */
    double tf_sum;      /* sum over the target pages of its count / the page's greatest count */
    uint32_t sites;     /* target websites using it */
    uint32_t last_site; /* private: the last target website counted (site + 1) */
    uint32_t count;     /* private: occurrences in the page being read */
};

struct termstats {
    struct vocab terms;                 /* the pages' terms, in the order first met */
    struct termstats_term *st;          /* per term id */
    uint32_t n_pages[2];                /* training pages: target, other */
    size_t cap, n_touched, cap_touched; /* private */
    uint32_t *touched;                  /* private: the page's distinct terms */
};

void termstats_init(struct termstats *ts);
void termstats_release(struct termstats *ts);

/* Count docs[0..n) (class PAGECLS_TARGET against all others), tokenised with tok, into
 * ts. A term too long for a vocabulary is left out. */
enum err termstats_count(struct termstats *ts, struct tokenizer *tok,
                         const struct pagecls_doc *docs, size_t n) WARN_UNUSED;

#endif
