/*
 * Hot words (Tsay et al., seed 000 §3.1): the similarity between a link's anchor text and
 * the topic's query words. Our jobs have no query: the key terms stand for it, the terms
 * whose lowest weight among the page model's target centroids most exceeds their mean
 * weight in the other class's (docs/crawl.md, Strategies, says why).
 *
 * Ownership: a struct hotwords owns copies of its terms and a tokenizer of the model's
 * options (stemmer included), so it does not borrow the model after hotwords_new. It is
 * not thread-safe (the stemmer): one per thread.
 */
#ifndef SITESCOUT_CLASSIFIER_HOTWORDS_H
#define SITESCOUT_CLASSIFIER_HOTWORDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

struct pagecls;
struct hotwords;

/* The key terms the hotwords strategy takes from a model. */
#define HOTWORDS_KEYS 10

/*
 * The k terms of model m with the greatest positive difference between their lowest
 * weight among the target class's centroids and their mean weight in the other classes'
 * (fewer when fewer terms are more typical of the target). Free with hotwords_free (NULL is fine).
 * ERR_INVAL for a model without centroids (an SVM: PAGECLS_SVM).
 */
enum err hotwords_new(const struct pagecls *m, uint32_t k, struct hotwords **out) WARN_UNUSED;
void hotwords_free(struct hotwords *h);

uint32_t hotwords_count(const struct hotwords *h);
/* Key term i (< hotwords_count), most typical first; borrowed, not NUL-terminated. */
const char *hotwords_term(const struct hotwords *h, uint32_t i, size_t *len);

/* hot(h, q) of an anchor text: tokenised as the model tokenises pages, then
 * hotwords_cosine; 0 for an anchor with no token. */
enum err hotwords_score(struct hotwords *h, const char *anchor, size_t len,
                        double *out) WARN_UNUSED;

/*
 * The cosine between an anchor's term counts and the query words, each of weight 1:
 * sum of counts[i] where is_key[i], over sqrt(sum counts[i]^2) sqrt(n_keys).
 * counts: the anchor's n distinct terms; 0 when n, the counts or n_keys are 0.
 */
double hotwords_cosine(const uint32_t *counts, const bool *is_key, size_t n, uint32_t n_keys);

#endif
