/*
 * The topic-specific weight table of seed 002 ("Construction of Topic Specific Weight
 * Table"): the m terms of greatest TF-IDF weight in the topic's pages, their weights
 * divided by the greatest (the seed's equation 5); and the relevancy of a text (a page,
 * an anchor, a URL's words) to it, the cosine over the table's keywords ("Calculation of
 * Relevancy of page"). Terms are tokenised and stemmed as the page model does.
 *
 * Ownership: a struct weighttable owns copies of its terms and a tokenizer (with its
 * stemmer); it borrows nothing and is not thread-safe: one per thread.
 */
#ifndef SITESCOUT_CLASSIFIER_WEIGHTTABLE_H
#define SITESCOUT_CLASSIFIER_WEIGHTTABLE_H

#include <stddef.h>
#include <stdint.h>

#include "classifier/pagecls_train.h"
#include "classifier/tokenize.h"
#include "common/buf.h"
#include "common/err.h"

/* Seed 002, Table I: "Here we have considered top 10 weighted words in the table". */
#define WEIGHTTABLE_M 10
/* A keyword is used by at least this many relevant training websites (not one's name). */
#define WEIGHTTABLE_MIN_SITES 2

struct weighttable;

/* The seed's normalised term frequency: freq / max freq in the document; 0 if max is 0. */
double weighttable_tf(uint32_t freq, uint32_t max_freq);
/* The seed's IDF with its guard: log(|D| / (1 + |{d : t in d}|)); 0 for an empty D. */
double weighttable_idf(uint32_t n_docs, uint32_t df);
/* The seed's cosine: sum w_kt w_kp / (sqrt(sum w_kt^2) sqrt(sum w_kp^2)) over the m
 * keywords k; 0 when either vector is 0. */
double weighttable_cosine(const double *wt, const double *wp, size_t m);

/*
 * The table of up to m keywords from the training pages: each term's TF-IDF summed over
 * the target pages (tf as above, idf over all the training pages, both classes), the m
 * greatest with a positive sum and used by at least WEIGHTTABLE_MIN_SITES target
 * websites, each divided by the greatest (eq. 5). Free with weighttable_free.
 */
enum err weighttable_train(const struct tokenize_opts *tok, const struct pagecls_doc *docs,
                           size_t n, uint32_t m, struct weighttable **out) WARN_UNUSED;

/* A table read back from weighttable_format's text ("term weight idf" a line). */
enum err weighttable_parse(const struct tokenize_opts *tok, const char *text, size_t len,
                           struct weighttable **out) WARN_UNUSED;
enum err weighttable_format(const struct weighttable *wt, struct buf *out) WARN_UNUSED;
void weighttable_free(struct weighttable *wt);

uint32_t weighttable_count(const struct weighttable *wt);
/* Keyword i (< count), greatest weight first; borrowed, not NUL-terminated. */
const char *weighttable_term(const struct weighttable *wt, uint32_t i, size_t *len);
double weighttable_weight(const struct weighttable *wt, uint32_t i); /* in (0, 1] */

/*
 * The relevancy of a text to the table: weighttable_cosine of the table's weights and
 * the text's keyword weights tf * idf (the tf's division by the text's greatest
 * frequency cancels in the cosine, so the keywords' counts times their idf are used).
 */
enum err weighttable_relevance(struct weighttable *wt, const char *text, size_t len,
                               double *out) WARN_UNUSED;

#endif
