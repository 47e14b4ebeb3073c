/*
 * Key phrases (Noh et al., seed 001 §2.2): the terms that stand for the topic, chosen
 * from the training pages by TF-DF (eq. 2) and information gain (eqs. 3-4), and the
 * number of them a page holds (lambda_i of eq. 1, the degree of relevance).
 * The "phrases" are single terms as the page model tokenises them (stemmed when the
 * model stems): the seed's examples are words, and its K holds "20 terms" (§3).
 *
 * Ownership: a struct keyphrases owns copies of its terms and a tokenizer (with its
 * stemmer), so it borrows nothing after it is made; it is not thread-safe: one per thread.
 */
#ifndef SITESCOUT_CLASSIFIER_KEYPHRASES_H
#define SITESCOUT_CLASSIFIER_KEYPHRASES_H

#include <stddef.h>
#include <stdint.h>

#include "classifier/pagecls_train.h"
#include "classifier/tokenize.h"
#include "common/buf.h"
#include "common/err.h"

/* Seed 001 §3: "we selected 20 terms as the elements of the pre-defined set of key
 * phrases K". */
#define KEYPHRASES_K 20
/* The TF-DF shortlist is this many times K; information gain picks K of it. */
#define KEYPHRASES_SHORTLIST 5
/* A key phrase is used by at least this many relevant training websites (not the name
 * of one). */
#define KEYPHRASES_MIN_SITES 2

struct keyphrases;

/* Eq. 2: W = TF / max_k TF_k * DF / n; 0 when max_tf or n is 0. */
double keyphrases_tfdf(uint32_t tf, uint32_t max_tf, uint32_t df, uint32_t n);

/* Eq. 3: E_S = -sum p_i ln p_i over the classes, p_i = counts[i] / sum(counts); 0 ln 0 = 0;
 * 0 for an empty set. */
double keyphrases_entropy(const uint32_t *counts, size_t n_classes);

/*
 * Eq. 4 for the attribute "the page holds the term" (values: holds, does not) over the
 * two classes target and other: E_S less the entropies of the pages holding it and of
 * the rest, each weighted by its share of S. with_target / with_other: the pages of each
 * class holding the term; n_target / n_other: the pages of each class.
 */
double keyphrases_gain(uint32_t with_target, uint32_t with_other, uint32_t n_target,
                       uint32_t n_other);

/*
 * Choose up to k key phrases from the training pages (class PAGECLS_TARGET against all
 * others), tokenised with tok: the terms held by a larger share of the target pages
 * than of the others and by at least KEYPHRASES_MIN_SITES target websites; of these the
 * KEYPHRASES_SHORTLIST * k with the greatest mean TF-DF weight over the target pages
 * (eq. 2, "representative"), and of those the k with the greatest information gain
 * (eq. 4, "discriminative"), greatest first. Fewer when fewer terms qualify.
 * Free with keyphrases_free (NULL is fine).
 */
enum err keyphrases_train(const struct tokenize_opts *tok, const struct pagecls_doc *docs, size_t n,
                          uint32_t k, struct keyphrases **out) WARN_UNUSED;

/* Key phrases read back from keyphrases_format's text (one term a line), to be matched
 * with a tokenizer of options tok. */
enum err keyphrases_parse(const struct tokenize_opts *tok, const char *text, size_t len,
                          struct keyphrases **out) WARN_UNUSED;

/* The key phrases as text, one term a line, greatest gain first, appended to out. */
enum err keyphrases_format(const struct keyphrases *kp, struct buf *out) WARN_UNUSED;

void keyphrases_free(struct keyphrases *kp);

/* |K|. */
uint32_t keyphrases_count(const struct keyphrases *kp);
/* Key phrase i (< keyphrases_count); borrowed, not NUL-terminated. */
const char *keyphrases_term(const struct keyphrases *kp, uint32_t i, size_t *len);

/* lambda_i of eq. 1: how many of the key phrases the text holds (each counted once, so
 * lambda / |K| is in [0, 1]). */
enum err keyphrases_lambda(struct keyphrases *kp, const char *text, size_t len,
                           uint32_t *lambda) WARN_UNUSED;

#endif
