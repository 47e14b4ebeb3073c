/*
 * The learning anchor classifier (Dorado, seed 004, §6.6 and §9.2.4): a two-class
 * classifier of anchor texts, trained online from the crawl's own verdicts on the pages
 * the anchors led to. The thesis uses an SVM; this is a multinomial naive Bayes with
 * Laplace smoothing (the anchor classifier of its reference [9]), which takes one
 * example at a time at no cost and gives a probability on the page classifier's scale.
 * Anchors are tokenised (and stemmed) as the page model tokenises pages.
 *
 * Ownership: a struct anchorcls owns its vocabulary, counts and tokenizer; it borrows
 * nothing and is not thread-safe: one per thread.
 */
#ifndef SITESCOUT_CLASSIFIER_ANCHORCLS_H
#define SITESCOUT_CLASSIFIER_ANCHORCLS_H

#include <stddef.h>
#include <stdint.h>

#include "classifier/tokenize.h"
#include "common/err.h"

#define ANCHORCLS_MAX_TERMS 64 /* distinct terms of one anchor text read (anchors are short) */

struct anchorcls;

enum err anchorcls_new(const struct tokenize_opts *tok, struct anchorcls **out) WARN_UNUSED;
void anchorcls_free(struct anchorcls *a);

/* Add one anchor text, of a page judged relevant (relevant 1) or not (0). */
enum err anchorcls_add(struct anchorcls *a, const char *text, size_t len, int relevant) WARN_UNUSED;

/* Examples added so far, of each class. */
uint64_t anchorcls_examples(const struct anchorcls *a, int relevant);

/* Pr[relevant | text]; 0.5 while either class has no example or the text no token. */
enum err anchorcls_score(struct anchorcls *a, const char *text, size_t len,
                         double *out) WARN_UNUSED;

/*
 * Naive Bayes with Laplace smoothing for two classes, the formula anchorcls_score uses:
 * log odds = ln(n_t / n_o) + sum_i c_i (ln((t_i + 1) / (T + V)) - ln((o_i + 1) / (O + V))),
 * for the text's n distinct terms with counts c_i, t_i / o_i their counts in each class's
 * anchors, T / O all terms counted in each class, V the vocabulary size, n_t / n_o the
 * examples of each class; returns 1 / (1 + e^-log odds).
 */
double anchorcls_posterior(const uint32_t *c, const uint64_t *t, const uint64_t *o, size_t n,
                           uint64_t total_t, uint64_t total_o, uint64_t vocab, uint64_t n_t,
                           uint64_t n_o);

#endif
