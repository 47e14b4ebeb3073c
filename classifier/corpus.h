/* Internal to classifier/: the training pages tokenised once, for training and every CV fold. */
#ifndef SITESCOUT_CLASSIFIER_CORPUS_H
#define SITESCOUT_CLASSIFIER_CORPUS_H

#include <stddef.h>
#include <stdint.h>

#include "classifier/pagecls.h"
#include "classifier/tfidf.h"
#include "classifier/vocab.h"
#include "common/err.h"

/*
 * Bags of (corpus term id, raw count), sorted by id, one per training page in the
 * caller's order; the corpus vocabulary holds every term seen (before min_df and
 * min_sites prune it). Embedded: corpus_build fills it, corpus_release frees what it
 * owns (vocabulary, bags, by_site). The pages (struct pagecls_doc) stay the caller's.
 */
struct corpus {
    struct vocab vocab;
    struct tfidf_vec *bags;
    size_t *by_site; /* page indices ordered by site (then index): a site's pages are one run */
    size_t n;
    uint32_t n_classes; /* largest class + 1, at least 2 */
};

/*
 * Check the parameters and the pages' classes, then tokenise the n pages with p->tok.
 * On error *c holds nothing (no corpus_release needed, though it is harmless).
 */
enum err corpus_build(const struct pagecls_params *p, const struct pagecls_doc *docs, size_t n,
                      struct corpus *c) WARN_UNUSED;

void corpus_release(struct corpus *c);

#endif
